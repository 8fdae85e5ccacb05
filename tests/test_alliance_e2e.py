"""End to end: twelve players play «Альянс дедукции» through a real pseudo-terminal.

Dealing, night 1 with every role at the keypad (guard, wolves, witch, seer, the
hunter's status), the day-1 sheriff election before the deaths are announced
(a non-werewolf's explosion and a vote for a non-candidate rejected on screen),
the announcement of the night's death, the pause for the hunter and the last
words; then the test stops the game with Ctrl-C and checks the record.
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
    child = spawn_play(
        "alliance",
        tmp_path,
        *("--players", "12", "--seed", "7", "--answer-time", "20"),
        *options(**TIMINGS),
        width=220,
    )
    child.expect("Раздаю карты")
    call = r"Игрок номер {seat}, откройте глаза и посмотрите свою карту\.[\s\S]*?Enter"
    cards = deal_cards(child, 12, call, "Ваша карта")
    roles = {seat: ROLE_NAMES[card] for seat, card in cards.items()}
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
    child.expect(rf">>> Игрок номер {wolves[0]}: Оборотень <<<")
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
    child.send(f"*{liar}\r")  # a villager claims to explode: said aloud, not yet judged
    child.expect(rf"Игрок номер {liar} заявляет самоподрыв")
    child.send("\r")  # he confirms it himself, so the refusal tells only what he chose to
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
    stop_game(child, "Прервать игру")
    child.expect(r"Протокол игры: (\S+)")
    record = read_record(Path(child.match.group(1)))
    finish(child, 130)

    assert record[0]["event"] == "start" and record[0]["game"] == "alliance"
    assert record[-1]["event"] == "aborted" and record[-1]["phase"] == "d1"
    assert events(record, "eliminated", "seat", "phase", "cause") == [(victim, "n1", "wolves")]
    secrets = events(record, "secret", "prompt", "to", "shown")
    witch = next(s for s, r in roles.items() if r == "witch")
    seer = next(s for s, r in roles.items() if r == "seer")
    hunter = next(s for s, r in roles.items() if r == "hunter")
    assert secrets[12:] == [
        ("n1.witch_save", [witch], f"seats {victim}"),
        ("n1.seer", [seer], "werewolf"),
        ("n1.hunter", [hunter], "can_shoot"),
    ]
    assert events(record, "window", "prompt", "seconds") == [
        ("n1.guard", 3),
        ("n1.wolves", 3),
        ("n1.witch_save", 4),
        ("n1.seer", 3),
        ("n1.hunter", 1),
    ]
    answers = events(record, "answer", "prompt", "input", "accepted")
    assert [(prompt, text) for prompt, text, accepted in answers if not accepted] == [
        ("d1.election.explode", f"{liar} {order[0]}"),
        (f"d1.sheriff_vote.{voters[0]}", str(liar)),
    ]
    said = events(record, "say", "key")
    assert said.index("alliance.sheriff_elected") < said.index("alliance.night_death")
