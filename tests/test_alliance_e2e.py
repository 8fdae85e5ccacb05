"""End to end: twelve players play «Альянс дедукции» through a real pseudo-terminal.

Dealing, night 1 with every role at the keypad (guard, wolves, witch, seer, the
hunter's status), the day-1 sheriff election before the deaths are announced
(a non-werewolf's explosion and a vote for a non-candidate rejected on screen),
the announcement of the night's death, the pause for the hunter and the last
words; then the test stops the game with Ctrl-C and checks the record.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pexpect

CLEAR_SCROLLBACK = "\x1b[3J"
ROLE_NAMES = {
    "Оборотень": "werewolf",
    "Провидец": "seer",
    "Ведьма": "witch",
    "Охотник": "hunter",
    "Страж": "guard",
    "Мирный житель": "villager",
}
TIMINGS = {
    "guard_s": 3,
    "wolves_first_s": 3,
    "witch_s": 4,
    "seer_s": 3,
    "hunter_status_s": 1,
    "election_speech_s": 8,
    "speech_s": 4,
    "last_words_s": 8,
    "hunter_s": 1,
    "badge_s": 2,
    "pk_speech_s": 2,
}


def test_alliance_night_one_and_the_election_at_the_table(tmp_path: Path) -> None:
    command = [
        "-m",
        "narrator.cli",
        "play",
        "alliance",
        "--players",
        "12",
        "--text",
        "--seed",
        "7",
        "--record-dir",
        str(tmp_path),
        "--answer-time",
        "20",
    ]
    for name, seconds in TIMINGS.items():
        command += ["-o", f"{name}={seconds}"]
    child = pexpect.spawn(
        sys.executable, command, encoding="utf-8", timeout=30, dimensions=(50, 220)
    )

    child.expect("Раздаю карты")
    roles: dict[int, str] = {}
    for seat in range(1, 13):
        child.expect(rf"Игрок номер {seat}, откройте глаза и посмотрите свою карту\.")
        child.expect("Enter")
        child.send("\r")
        child.expect(r"Ваша карта: (.+?) <<<")
        roles[seat] = ROLE_NAMES[child.match.group(1)]
        child.send("\r")
        child.expect(re.escape(CLEAR_SCROLLBACK))
    child.expect("Все карты розданы.")
    wolves = [s for s, r in roles.items() if r == "werewolf"]
    villagers = [s for s, r in roles.items() if r == "villager"]
    assert len(wolves) == 4 and len(villagers) == 4
    victim, protected, liar = villagers[0], villagers[1], villagers[2]

    child.expect(r"Наступает ночь\. Все закрывают глаза\.")
    child.expect(r"Страж, проснись\. Кого ты защищаешь этой ночью\?")
    child.expect("Цифры")
    child.send(f"{protected}\r")
    child.expect(rf"{protected} — Принято")
    child.expect(r"Страж, засыпай\.")

    child.expect(r"Оборотни, проснитесь и узнайте друг друга\. Кого вы убиваете\?")
    child.expect("Цифры")
    child.send(f"{victim}\r")
    child.expect(rf"{victim} — Принято")
    child.expect(r"Оборотни, засыпайте\.")

    child.expect(r"Ведьма, проснись\. Этой ночью убит этот игрок\.")
    child.expect(rf">>> .*{victim}.* <<<")  # the victim, on screen only
    child.send("no\r")
    child.expect("нет — Принято")
    child.send("0\r")
    child.expect("никого — Принято")
    child.expect(r"Ведьма, засыпай\.")

    child.expect(r"Провидец, проснись\. Кого ты проверяешь\?")
    child.expect("Цифры")
    child.send(f"{wolves[0]}\r")
    child.expect(r">>> Оборотень <<<")
    child.expect(r"Провидец, засыпай\.")

    child.expect(r"Охотник, проснись\. Вот твоё состояние выстрела\.")
    child.expect(r">>> Можешь стрелять <<<")
    child.expect(r"Охотник, засыпай\.")

    # Day 1: the election comes before the deaths.
    child.expect(r"Рассвело\. Все открывают глаза\. Начинаются выборы шерифа\.")
    child.expect(r"Кто выдвигается в шерифы — поднимите руку\.")
    candidates = sorted((protected, victim))
    child.expect("Кандидаты в шерифы \\(номера")
    child.send(f"{candidates[0]} {candidates[1]}\r")
    child.expect(r"— Принято")
    child.expect(r"Кандидаты выступают в таком порядке: игроки номер (\d+), (\d+)\.")
    order = [int(child.match.group(1)), int(child.match.group(2))]
    assert sorted(order) == candidates
    child.expect(rf"Слово кандидату, игроку номер {order[0]}\.")
    child.expect("Речь кандидата")
    child.send(f"*{liar}\r")  # a villager pretends to explode
    child.expect(rf"игрок номер {liar} не может совершить самоподрыв")
    child.send("\r")  # «Спасибо»: the speech ends early
    child.expect(rf"Слово кандидату, игроку номер {order[1]}\.")
    child.expect("Речь кандидата")
    child.send("\r")
    child.expect(r"Кто из кандидатов снимает свою кандидатуру\?")
    child.expect("Кто снимает кандидатуру")
    child.send("0\r")
    child.expect(r"Голосуют только те, кто не выдвигался\.")
    voters = [s for s in range(1, 13) if s not in candidates]
    for index, voter in enumerate(voters):
        child.expect(rf"Голос игрока номер {voter} за шерифа")
        if index == 0:
            child.send(f"{liar}\r")
            child.expect(rf"игрок номер {liar} не кандидат")
        child.send(f"{protected}\r")
        child.expect(r"— Принято")
    child.expect(rf"Шерифом становится игрок номер {protected}\.")
    child.expect(rf"Этой ночью погиб игрок номер {victim}\.")
    child.expect(r"Погибший может использовать свою способность\.")
    child.expect(rf"Последние слова игрока номер {victim}\.")
    child.send("\r")
    child.expect(r"Шериф, выберите, с кого начинаются выступления\.")
    child.send("\x03")
    child.expect("Прервать игру")
    child.send("y")
    child.expect(r"Протокол игры: (\S+)")
    record = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130

    events = [json.loads(line) for line in record.read_text("utf-8").splitlines()]
    assert events[0]["event"] == "start" and events[0]["game"] == "alliance"
    assert events[-1]["event"] == "aborted" and events[-1]["phase"] == "d1"
    gone = [(e["seat"], e["phase"], e["cause"]) for e in events if e["event"] == "eliminated"]
    assert gone == [(victim, "n1", "wolves")]
    secrets = [(e["prompt"], e["to"], e["shown"]) for e in events if e["event"] == "secret"]
    witch = next(s for s, r in roles.items() if r == "witch")
    seer = next(s for s, r in roles.items() if r == "seer")
    hunter = next(s for s, r in roles.items() if r == "hunter")
    assert secrets[12:] == [
        ("n1.witch_save", [witch], f"seats {victim}"),
        ("n1.seer", [seer], "werewolf"),
        ("n1.hunter", [hunter], "can_shoot"),
    ]
    windows = [(e["prompt"], e["seconds"]) for e in events if e["event"] == "window"]
    assert windows == [
        ("n1.guard", 3),
        ("n1.wolves", 3),
        ("n1.witch_save", 4),
        ("n1.seer", 3),
        ("n1.hunter", 1),
    ]
    rejected = [
        (e["prompt"], e["input"]) for e in events if e["event"] == "answer" and not e["accepted"]
    ]
    assert rejected == [
        ("d1.election.explode", f"{liar} {order[0]}"),
        (f"d1.sheriff_vote.{voters[0]}", str(liar)),
    ]
    said = [e["key"] for e in events if e["event"] == "say"]
    assert said.index("alliance.sheriff_elected") < said.index("alliance.night_death")
