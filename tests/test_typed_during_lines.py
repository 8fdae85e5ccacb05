"""Keys typed while a line is being spoken count for what that line opens:
people at a table type at once. Enter during «Игрок номер 1, откройте глаза…» shows the
card when the line ends; a seat typed during a window's wake line is that window's
answer. Keys typed before a line, for something already closed, still count for nothing.
"""

from __future__ import annotations

import contextlib
from collections import deque
from typing import Any

from narrator.host.table import TableDriver
from narrator.ports import ENTER
from narrator.prepared import rules_rng
from narrator.prepared import stream
from narrator.record import GameRecord
from narrator.rules.core import shuffled_deal
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog
from tests.harness import FakeClock
from tests.harness import RecordingScreen

READS = 3000  # the game is stopped after this many reads of a key


class Stopped(BaseException):
    """The test has seen enough."""


class TypedKeys:
    """A keypad on which only what the players type during lines arrives."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock, self.queue, self.reads = clock, deque[str](), 0

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        pass

    def read(self, timeout: float) -> str | None:
        self.reads += 1
        if self.reads > READS:
            raise Stopped
        if self.queue:
            return self.queue.popleft()
        if timeout > 0:
            self.clock.sleep(min(timeout, 0.5))
        return None


class TypingVoice:
    """Says nothing; while the line ``key`` is said, the table types ``keys[key]``."""

    def __init__(self, keys: TypedKeys, typing: dict[str, list[str]]) -> None:
        self.keys, self.typing = keys, typing

    def say(self, key: str, text: str) -> None:
        self.keys.queue.extend(self.typing.pop(key, []))
        self.keys.clock.sleep(1.0)  # the line takes its time; the keys are typed meanwhile


def play(typing: dict[str, list[str]], before: list[str] | None = None) -> GameRecord:
    """Onenight, 3 seats, seed 1 (1 werewolf, 2 spirit, 3 high inquisitor)."""
    variant = get_variant("onenight")
    switches = make_switches(variant, {"discussion_s": 5.0})
    deal = shuffled_deal(variant.composition(3, switches), 3, stream(1, "deal"))
    assert deal.seats == ("werewolf", "spirit", "high_inquisitor")
    clock = FakeClock()
    keys = TypedKeys(clock)
    keys.queue.extend(before or [])
    record = GameRecord()
    record.start(game="onenight", deal={"seats": list(deal.seats)}, players=3, seed=1)
    driver = TableDriver(
        load_catalog("ru"),
        record,
        voice=TypingVoice(keys, typing),
        screen=RecordingScreen(),
        keys=keys,
        clock=clock,
        answer_s=5,
    )
    with contextlib.suppress(Stopped):
        driver.run(variant.new_game(deal, switches, rules_rng(1)))
    return record


def shown(record: GameRecord) -> list[str]:
    return [e["prompt"] for e in record.events if e["event"] == "secret"]


def answers(record: GameRecord) -> dict[str, Any]:
    return {
        e["id"]: e["answer"] for e in record.events if e["event"] == "done" and e["kind"] == "reply"
    }


class Typing(dict[str, list[str]]):
    """What the table types during which line: Enter during every call of the deal, the
    other lines' keys once."""

    def pop(self, key: str, default: Any = None) -> Any:
        return [ENTER] if key == "deal.call" else super().pop(key, default)


def test_enter_during_each_call_shows_the_card_and_keys_during_a_wake_line_answer() -> None:
    record = play(Typing({"onenight.hi_hint_2": ["*", "1", "3", ENTER]}), before=[ENTER])
    assert shown(record)[:3] == ["deal.1", "deal.2", "deal.3"]  # no Enter after any call
    assert answers(record).get("n1.high_inquisitor") == {"kind": "CenterAnswer", "cards": [1, 3]}


def test_keys_typed_before_a_line_count_for_nothing() -> None:
    """A seat typed during the high inquisitor's «засыпает» is not the werewolves' or the
    spirit's answer: the next line drops it."""
    typing = Typing({"onenight.hi_sleep": ["2", ENTER], "onenight.spirit_hint": []})
    record = play(typing)
    assert answers(record)["n1.spirit"] == {"kind": "Nobody"}  # expired: nobody typed for it
