"""End to end: people at a table play «Ночь оборотня» through a real pseudo-terminal.

The test is the players: it presses Enter to see each card, types night answers
inside their windows, votes seat by seat (with a mistake and a correction) and
checks the announced winner and the game record.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pexpect
import pytest

CLEAR_SCROLLBACK = "\x1b[3J"


def spawn(tmp_path: Path, *args: str) -> pexpect.spawn:
    command = [
        "-m",
        "narrator.cli",
        "play",
        "onenight",
        "--text",
        "--record-dir",
        str(tmp_path),
        *args,
    ]
    child = pexpect.spawn(
        sys.executable, command, encoding="utf-8", timeout=30, dimensions=(50, 200)
    )
    return child


def deal_cards(child: pexpect.spawn, players: int, card_word: str) -> dict[int, str]:
    cards: dict[int, str] = {}
    for seat in range(1, players + 1):
        child.expect(rf"{seat}: [^\n]*Enter")
        child.send("\r")
        child.expect(rf"{card_word}: (.+?) <<<")
        cards[seat] = child.match.group(1)
        child.send("\r")
        child.expect(re.escape(CLEAR_SCROLLBACK))  # the card is wiped with the scroll-back
    return cards


def test_full_game_in_english(tmp_path: Path) -> None:
    players = 5
    child = spawn(
        tmp_path,
        "--players",
        str(players),
        "--lang",
        "en",
        "--seed",
        "11",
        "--window",
        "3",
        "--discussion",
        "2",
    )
    child.expect("Dealing the cards")
    cards = deal_cards(child, players, "Your card")
    wolves = [s for s, c in cards.items() if c == "Werewolf"]
    inquisitor = next((s for s, c in cards.items() if c == "High Inquisitor"), None)
    assert wolves and inquisitor is not None, "seed 11 deals the inquisitor and a werewolf"

    child.expect("The High Inquisitor has a prophetic dream!")
    child.expect("Digits")
    if inquisitor is not None:
        target = 1 if inquisitor != 1 else 2
        child.send(f"{inquisitor}\r")  # choosing oneself: rejected on screen, window goes on
        child.expect("you cannot choose yourself")
        child.send(f"9\x7f{target}\r")  # a typo corrected with Backspace
        child.expect(rf"You see: {re.escape(cards[target])} <<<")
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
    record_path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    events = [json.loads(line) for line in record_path.read_text("utf-8").splitlines()]
    assert events[0]["event"] == "start"
    end = events[-1]
    assert end["event"] == "end" and end["winner"] == expected
    windows = [e for e in events if e["event"] == "window"]
    assert [w["prompt"] for w in windows] == ["n1.high_inquisitor", "n1.werewolves", "n1.spirit"]
    assert {w["seconds"] for w in windows} == {3.0}
    votes = [e for e in events if e["event"] == "answer" and e["prompt"].startswith("d1.vote.")]
    assert sum(1 for v in votes if v["accepted"]) == players


def test_russian_game_and_ctrl_c_keeps_the_record(tmp_path: Path) -> None:
    child = spawn(tmp_path, "--players", "3", "--seed", "5", "--window", "1", "--discussion", "60")
    child.expect("Раздаю карты")
    deal_cards(child, 3, "Ваша карта")
    child.expect("Наступило утро, и все проснулись")
    child.expect("Обсуждение")
    child.send("\x03")  # Ctrl-C asks first ...
    child.expect("Прервать игру")
    child.send("\r")  # ... and Enter goes on
    child.expect("Продолжаем")
    child.send("\x03")
    child.expect("Прервать игру")
    child.send("y")
    child.expect("Игра прервана")
    child.expect(r"Протокол игры: (\S+)")
    record_path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    events = [json.loads(line) for line in record_path.read_text("utf-8").splitlines()]
    assert {k: v for k, v in events[-1].items() if k != "t"} == {"event": "aborted", "phase": "d1"}
    assert events[-1]["t"] > 0  # seconds since the start of the game
    assert [e["prompt"] for e in events if e["event"] == "window"] == [
        "n1.high_inquisitor",
        "n1.werewolves",
        "n1.spirit",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "9"], "3–7 players"),
        (["--option", "nonsense=1"], "unknown option"),
    ],
)
def test_bad_table_settings_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    child = spawn(tmp_path, *args)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert message in child.before
    assert "Traceback" not in child.before
