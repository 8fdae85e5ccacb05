"""End to end: a table plays «Хэллоуинская мафия» through a real pseudo-terminal.

The test is the players: it looks at each card, types the night answers inside
their (shortened) windows, makes the usual mistakes (a vampire names his
partner, a voter names himself) and votes the vampires out one by one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from tests.harness import CLEAR_SCROLLBACK
from tests.harness import deal_cards
from tests.harness import events
from tests.harness import finish
from tests.harness import options
from tests.harness import record_in
from tests.harness import spawn_play
from tests.harness import stop_game

SHORT = (
    *options(vampires_s=3, witch_s=2, hunter_s=2, silence_s=0.5),
    *("--discussion", "1", "--answer-time", "15"),
)
CALL = r"{seat}: [^\n]*Enter"


def spawn(tmp_path: Path, *args: str) -> pexpect.spawn:
    return spawn_play("halloween", tmp_path, *args, *SHORT)


def vote(child: pexpect.spawn, label: str, choose: dict[int, str], voters: int) -> None:
    """Each voter, in the order the table calls them, types the answer ``choose`` gives."""
    for _ in range(voters):
        child.expect(rf"{label} (\d+):")
        voter = int(child.match.group(1))
        child.send(choose[voter] + "\r")
        child.expect("Принято")


def test_full_game_in_russian(tmp_path: Path) -> None:
    players = 7
    child = spawn(tmp_path, "--players", str(players), "--seed", "2")
    child.expect("Играем всемером: два вампира, ведьма, охотник и три мирных жителя.")
    child.expect("Партия длится не больше шести циклов")
    cards = deal_cards(child, players, CALL, "Ваша карта")
    first, second = (s for s, c in cards.items() if c == "Вампир")
    witch = next(s for s, c in cards.items() if c == "Ведьма")
    hunter = next(s for s, c in cards.items() if c == "Охотник")
    target = next(s for s, c in cards.items() if c == "Мирный житель")

    # Night 1: the vampires name a partner (refused on screen), then a villager.
    child.expect("» Деревня закрывает глаза. До моего сигнала никто не подглядывает")
    child.expect("» Вампиры просыпаются, узнают друг друга и выбирают одну цель")
    child.expect("Цифры")
    child.send(f"{second}\r")
    child.expect("ваш союзник")
    child.send(f"{target}\r")
    child.expect(rf"{target} — Принято")
    child.expect(re.escape(CLEAR_SCROLLBACK))
    child.expect("» Вампиры засыпают")
    child.expect("» Ведьма просыпается и выбирает защиту")
    child.expect("Цифры")
    child.send(f"{target}\r")  # the witch guesses right
    child.expect("Принято")
    child.expect("» Ведьма засыпает")
    child.expect("» Охотник просыпается и показывает, кого проверить")
    child.expect("Цифры")
    child.send(f"{hunter}\r")
    child.expect("нельзя выбрать себя")
    child.send(f"{first}\r")
    child.expect(f">>> Игрок номер {first}: ДА <<<")  # whom the check was about
    child.expect(re.escape(CLEAR_SCROLLBACK))
    child.expect("» Охотник засыпает")
    child.expect("» Деревня открывает глаза. Наступило утро")
    child.expect("» Эту ночь пережили все")

    # Day 1: voter 1 names himself (refused), everybody votes the first vampire out.
    child.expect("Время вышло")
    child.expect("Себя называть нельзя")
    child.expect("Голос игрока номер 1:")
    child.send("1\r")
    child.expect("нельзя голосовать за себя")
    day1 = {s: str(first) if s != first else "0" for s in range(1, players + 1)}
    child.send(day1[1] + "\r")
    child.expect("Принято")
    vote(child, "Голос игрока номер", day1, players - 1)
    child.expect(rf"» Исключён игрок номер {first}\. Покажи свою карту\.")
    child.expect(rf"» Карта игрока номер {first}: Вампир\.")

    # Night 2: no attack; the witch protects herself; the hunter checks again.
    child.expect("» Вампиры просыпаются и выбирают одну цель")
    child.expect("Цифры")
    child.send("0\r")
    child.expect("Принято")
    child.expect("» Ведьма просыпается и выбирает защиту")
    child.expect("Цифры")
    child.send(f"{target}\r")  # protected last night: refused
    child.expect("был под защитой прошлой ночью")
    child.send(f"{witch}\r")
    child.expect("Принято")
    child.expect("» Охотник просыпается и показывает, кого проверить")
    child.expect("Цифры")
    child.send(f"{second}\r")
    child.expect(f">>> Игрок номер {second}: ДА <<<")
    child.expect("» Эту ночь пережили все")

    # Day 2: the second vampire goes; the villagers win.
    day2 = {s: str(second) if s != second else "0" for s in range(1, players + 1)}
    vote(child, "Голос игрока номер", day2, players - 1)
    child.expect(rf"» Исключён игрок номер {second}\. Покажи свою карту\.")
    child.expect("» Вампиров не осталось — победа мирных!")
    child.expect("» Все открывают карты.")
    child.expect("Итог: Победили мирные жители")
    finish(child, 0)

    record = record_in(tmp_path, "halloween")
    end = record[-1]
    assert (end["event"], end["winner"], end["ended_at"]) == ("end", "villagers", "d2")
    night = [("vampires", 3), ("witch", 2), ("hunter", 2)]
    assert events(record, "window", "prompt", "seconds") == [
        (f"n{k}.{role}", s) for k in (1, 2) for role, s in night
    ]
    assert events(record, "eliminated", "seat", "phase", "cause") == [
        (first, "d1", "voted"),
        (second, "d2", "voted"),
    ]
    answers = events(record, "answer", "prompt", "accepted")
    refused = [prompt for prompt, accepted in answers if not accepted]
    assert refused == ["n1.vampires", "n1.hunter", "d1.vote.1", "n2.witch"]


def test_english_day_vote_then_ctrl_c(tmp_path: Path) -> None:
    players = 8
    child = spawn(tmp_path, "--players", str(players), "--seed", "9", "--lang", "en")
    child.expect("Eight players: two vampires, the witch, the hunter and four villagers.")
    deal_cards(child, players, CALL, "Your card")
    child.expect("» The village closes its eyes. No peeking until my signal.")
    child.expect("» The vampires wake up, recognise each other and choose one target.")
    child.expect("» The hunter falls asleep.")
    child.expect("» Everyone survived this night.")  # nobody typed anything at night
    child.expect("» Discussion: three minutes.|» The discussion begins.")
    child.expect("» Time is up.")
    child.expect("Vote of player number 1:")
    child.send("1\r")
    child.expect("you cannot vote for yourself")
    child.send("0\r")
    child.expect("abstain — Accepted")
    child.expect("Vote of player number 2:")
    stop_game(child, "Stop the game?")
    child.expect("Game stopped.")
    finish(child, 130)
    record = record_in(tmp_path, "halloween")
    assert (record[-1]["event"], record[-1]["phase"]) == ("aborted", "d1")
    assert events(record, "window", "prompt") == ["n1.vampires", "n1.witch", "n1.hunter"]
    votes = events(record, "answer", "prompt", "input", "accepted")
    assert [(text, ok) for prompt, text, ok in votes if prompt == "d1.vote.1"] == [
        ("1", False),
        ("abstain", True),
    ]
