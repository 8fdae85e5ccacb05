"""End to end: people at a table play «Ночь оборотня» through a real pseudo-terminal.

The test is the players: it presses Enter to see each card, types night answers
inside their windows, votes seat by seat (with a mistake and a correction) and
checks the announced winner and the game record.
"""

from __future__ import annotations

import re
from pathlib import Path

import pexpect
import pytest

from tests.harness import CLEAR_SCROLLBACK
from tests.harness import deal_cards
from tests.harness import events
from tests.harness import finish
from tests.harness import read_record
from tests.harness import spawn_play
from tests.harness import stop_game

CALL = r"{seat}: [^\n]*Enter"


def spawn(tmp_path: Path, *args: str) -> pexpect.spawn:
    return spawn_play("onenight", tmp_path, *args)


def test_full_game_in_english(tmp_path: Path) -> None:
    players = 5
    child = spawn(
        tmp_path,
        "--players",
        str(players),
        "--lang",
        "en",
        "--seed",
        "1",
        "--window",
        "3",
        "--discussion",
        "2",
    )
    child.expect("Dealing the cards")
    cards = deal_cards(child, players, CALL, "Your card")
    wolves = [s for s, c in cards.items() if c == "Werewolf"]
    inquisitor = next((s for s, c in cards.items() if c == "High Inquisitor"), None)
    assert wolves and inquisitor is not None, "seed 1 deals the inquisitor and a werewolf"

    child.expect("The High Inquisitor has a prophetic dream!")
    child.expect("Digits")
    if inquisitor is not None:
        target = 1 if inquisitor != 1 else 2
        child.send(f"{inquisitor}\r")  # choosing oneself: rejected on screen, window goes on
        child.expect("you cannot choose yourself")
        child.send(f"9\x7f{target}\r")  # a typo corrected with Backspace
        child.expect(rf"The card of player number {target}: {re.escape(cards[target])} <<<")
        child.send(f"{target}\r")
        child.expect("already answered")
    child.expect(re.escape(CLEAR_SCROLLBACK))
    child.expect("The High Inquisitor falls asleep!")

    child.expect("Werewolves, wake up!")
    child.expect("Werewolves fall asleep!")
    child.expect("The Spirit transforms!")
    child.expect("Digits")
    child.send("0\r")  # no swap (inert if the spirit card is in the centre)
    child.expect("The Spirit falls asleep!")

    child.expect("Morning has come and everyone is awake.")
    child.expect("Time is up.")
    child.expect("Time to vote.")

    for voter in range(1, players + 1):
        child.expect(rf"Vote of player number {voter}:")
        if wolves:
            target = wolves[0] if voter != wolves[0] else (voter % players) + 1
        else:
            target = (voter % players) + 1
        if voter == 1:
            child.send("1\r")
            child.expect("you cannot vote for yourself")
        child.send(f"{target}\r")
        child.expect(rf"{target} — Accepted")

    if wolves:
        child.expect(rf"Player number {wolves[0]} goes to the stake.")
        child.expect("the inquisition wins!")
        expected = "inquisition"
    else:
        child.expect("Everyone got exactly one vote — nobody burns.")
        child.expect("The land is free of werewolves")
        expected = "inquisition"
    child.expect("Result: The inquisition wins")
    child.expect(r"Game record: (\S+)")
    record = read_record(Path(child.match.group(1)))
    finish(child, 0)

    assert record[0]["event"] == "start"
    assert (record[-1]["event"], record[-1]["winner"]) == ("end", expected)
    assert events(record, "window", "prompt", "seconds") == [
        (f"n1.{role}", 3.0) for role in ("high_inquisitor", "werewolves", "spirit")
    ]
    answers = events(record, "answer", "prompt", "accepted")
    assert sum(1 for prompt, ok in answers if prompt.startswith("d1.vote.") and ok) == players


def test_russian_game_and_ctrl_c_keeps_the_record(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--players", "3", "--seed", "5", "--window", "1", "--discussion", "60")
    child.expect("Раздаю карты")
    deal_cards(child, 3, CALL, "Ваша карта")
    child.expect("Наступило утро, и все проснулись")
    child.expect("Обсуждение")
    child.send("\x03")  # Ctrl-C asks first ...
    child.expect("Прервать игру")
    child.send("\r")  # ... and Enter goes on
    child.expect("Продолжаем")
    stop_game(child, "Прервать игру")
    child.expect("Игра прервана")
    child.expect(r"Протокол игры: (\S+)")
    record = read_record(Path(child.match.group(1)))
    finish(child, 130)
    assert {k: v for k, v in record[-1].items() if k != "t"} == {"event": "aborted", "phase": "d1"}
    assert record[-1]["t"] > 0  # seconds since the start of the game
    windows = events(record, "window", "prompt")
    assert windows == ["n1.high_inquisitor", "n1.werewolves", "n1.spirit"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "9"], "3–7 players"),
        (["--option", "nonsense=1"], "unknown option"),
    ],
)
def test_bad_table_settings_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    child = spawn(tmp_path, *args)
    finish(child, 2)
    assert message in child.before
    assert "Traceback" not in child.before
