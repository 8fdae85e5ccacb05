"""End to end: ten players play sport mafia through a real pseudo-terminal.

Night 0 dealing and the meeting, day 1 with nominations typed during one's own
speech (one rejected), a hand vote (one count rejected), a last word, then night 1
with the shooting entered by every black player and both checks; the test stops
the game with Ctrl-C after the morning and checks the record.
"""

from __future__ import annotations

from pathlib import Path

from tests.harness import deal_cards
from tests.harness import events
from tests.harness import finish
from tests.harness import options
from tests.harness import read_record
from tests.harness import spawn_play
from tests.harness import stop_game

ROLE_NAMES = {"Мирный житель": "civilian", "Шериф": "sheriff", "Мафия": "mafia", "Дон": "don"}
CALL = r"Игрок номер {seat}, возьмите карту.[\s\S]*?Enter"


def test_sport_mafia_day_and_night_at_the_table(tmp_path: Path) -> None:
    timings = options(
        speech_s=4, last_word_s=1, defence_s=1, meeting_s=1, check_s=4, shot_call_s=0.6
    )
    child = spawn_play(
        "sport_mafia", tmp_path, "--players", "10", "--seed", "2", "--answer-time", "20", *timings
    )
    child.expect("Наступает ночь")
    cards = deal_cards(child, 10, CALL, "Ваша карта")
    roles = {seat: ROLE_NAMES[card] for seat, card in cards.items()}
    assert sorted(roles.values()).count("civilian") == 6
    black = [s for s, r in roles.items() if r in {"mafia", "don"}]
    civilians = [s for s, r in roles.items() if r == "civilian" and s not in {1, 2}]
    don = next(s for s, r in roles.items() if r == "don")
    sheriff = next(s for s, r in roles.items() if r == "sheriff")

    child.expect("А у нас продолжается ночь!")
    child.expect("Просыпается мафия")
    child.expect(r">>> .+ <<<")  # the meeting: partners on screen
    child.expect("Мафия засыпает")
    child.expect("Доброе утро. Наступает первый день.")

    first, second = civilians[0], civilians[1]
    for speaker in range(1, 11):
        child.expect(rf"Слово игроку номер {speaker}\.")
        child.expect("Enter без цифр")
        if speaker == 1:
            child.send(f"{first}\r")
            child.expect(rf"{first} принято")
        elif speaker == 2:
            child.send(f"{first}\r")
            child.expect(rf"игрок номер {first} уже выставлен")
            child.send(f"{second}\r")
            child.expect(rf"{second} принято")
        child.send("\r")  # «Спасибо»: the speech ends early

    child.expect(rf"На голосование выставлены игроки номер {first}, {second}\.")
    child.expect(rf"Кто за то, чтобы игрок номер {first} покинул игру\?")
    child.send("11\r")
    child.expect("11 рук: проголосовать могут только 10")
    child.send("6\r")
    child.expect(rf"Остальные голоса, 4, получает игрок номер {second}\.")
    child.expect(rf"Игрок номер {first} покидает игру\.")
    child.expect(rf"Последнее слово игрока номер {first}\.")

    child.expect("Наступает ночь")
    child.expect("Внимание Мафия! Мафия проходит мимо игроков...")
    target = civilians[2]
    for _ in black:
        child.send(f"{target}\r")
    child.expect(r"— Принято")
    child.expect("Спасибо Мафия! Мафия засыпает")
    child.expect("Просыпается Дон, Дон ищет Шерифа")
    child.expect("Цифры")
    child.send(f"{sheriff}\r")
    child.expect(rf">>> Игрок номер {sheriff}: Шериф <<<")
    child.expect("Спасибо Дон! Дон засыпает")
    child.expect("Просыпается Шериф, Шериф ищет Мафию")
    child.expect("Цифры")
    child.send(f"{don}\r")
    child.expect(rf">>> Игрок номер {don}: Мафия <<<")
    child.expect("Спасибо Шериф! Шериф засыпает")
    child.expect(rf"Утро у нас не доброе, нас покидает игрок номер {target}\.")
    child.expect(rf"Последнее слово игрока номер {target}\.")
    stop_game(child, "Прервать игру")
    child.expect(r"Протокол игры: (\S+)")
    record = read_record(Path(child.match.group(1)))
    finish(child, 130)

    gone = events(record, "eliminated", "seat", "phase", "cause")
    assert gone == [(first, "d1", "voted"), (target, "n1", "shot")]
    secrets = events(record, "secret", "prompt", "shown")
    assert ("n1.don", "sheriff") in secrets and ("n1.sheriff", "mafia") in secrets
    assert events(record, "window", "prompt") == ["n0.mafia", "n1.shoot", "n1.don", "n1.sheriff"]


def test_call_shooting_with_space_on_the_called_number(tmp_path: Path) -> None:
    """`shooting = "call"`: every black player presses Space while the target is called."""
    timings = options(shooting='"call"', speech_s=1, meeting_s=1, check_s=1, shot_call_s=1)
    child = spawn_play("sport_mafia", tmp_path, "--seed", "2", "--lang", "en", *timings)
    names = {"Civilian": "civilian", "Sheriff": "sheriff", "Mafia": "mafia", "Don": "don"}
    call = r"Player number {seat}, take your card.[\s\S]*?Enter"
    roles = {seat: names[card] for seat, card in deal_cards(child, 10, call, "Your card").items()}
    shooters = sum(1 for r in roles.values() if r in {"mafia", "don"})
    target = next(s for s, r in roles.items() if r == "civilian")
    child.expect("Nobody is nominated")
    child.expect(r"Attention, Mafia! The Mafia passes by the players\.\.\.")
    child.expect(rf"» {target}…")
    child.send(" " * shooters)
    child.expect(rf"This morning is not good: player number {target} leaves us\.")
    stop_game(child, "Stop the game")
    finish(child, 130)
