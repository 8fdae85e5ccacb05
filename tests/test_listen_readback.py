"""Spoken votes and counts are read back and typed unless corrected; unclear speech is asked again.

The recogniser is replaced by a fake listener that hands over utterances (named
as a fake: these tests are about what the table does with what was heard; the
real Vosk path is in test_listen_vosk.py). The clock is a fake too, so the
correction window is checked exactly.
"""

from __future__ import annotations

import queue
from typing import TYPE_CHECKING

from narrator.listen.keys import CONFIRM_S
from narrator.listen.keys import VoiceKeys
from narrator.listen.listener import Notice
from narrator.listen.listener import Utterance
from narrator.listen.words import lexicon_for
from narrator.ports import ENTER
from narrator.ports import Attempt
from narrator.rules.phases import day
from narrator.rules.prompts import Tag
from narrator.rules.sport_mafia import _seat_prompt
from narrator.rules.sport_mafia import count_prompt

if TYPE_CHECKING:
    from tests.voice_table import Screen


class FakeListener:
    """Stands in for the Vosk listener: the test says what was heard."""

    def __init__(self) -> None:
        self.gate = lambda: True
        self.results: queue.Queue[Utterance] = queue.Queue()
        self.notices: queue.Queue[Notice] = queue.Queue()
        self.generation = 0

    def listen(self, generation: int, phrases: tuple[str, ...] | None) -> None:
        self.generation = generation

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def hear(self, text: str) -> None:
        self.results.put(Utterance(self.generation, text, 0.0))


class FakeKeypad:
    def __init__(self) -> None:
        self.keys: list[str] = []

    def read(self, timeout: float) -> str | None:
        return self.keys.pop(0) if self.keys else None

    def expect(self, prompt: object, *, speech: bool = False) -> None:
        pass


class FakeVoice:
    def __init__(self) -> None:
        self.said: list[str] = []

    def say(self, key: str, text: str) -> None:
        self.said.append(text)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


Table = tuple[VoiceKeys, FakeListener, FakeKeypad, FakeVoice, FakeClock]


def table(screen: Screen | None = None) -> Table:
    listener, keypad, voice, clock = FakeListener(), FakeKeypad(), FakeVoice(), FakeClock()
    keys = VoiceKeys(keypad, listener, RUSSIAN, screen, clock=clock)  # type: ignore[arg-type]
    keys.watch_voice(voice)
    return keys, listener, keypad, voice, clock


def counting(heard: str, screen: Screen | None = None) -> Table:
    """A table at the count of hands for candidate 4 of ten seats that heard ``heard``."""
    keys, listener, keypad, voice, clock = table(screen)
    keys.expect(count_prompt(Tag(day(1), "vote", 4), 10))
    listener.hear(heard)
    return keys, listener, keypad, voice, clock


RUSSIAN = lexicon_for("ru")


def as_keys(key: str | Attempt) -> str:
    """What the table gets, written as keys: an attempt as its answer text and ENTER."""
    return key.text + ENTER if isinstance(key, Attempt) else key


def typed(keys: VoiceKeys) -> str:
    out = ""
    while (key := keys.read(0)) is not None:
        out += as_keys(key)
    return out


def test_a_heard_count_is_read_back_then_typed_when_nobody_corrects_it() -> None:
    keys, _, _, voice, clock = counting("пять")
    assert typed(keys) == ""  # held for the correction window
    assert voice.said == ["Слышу: пять."]
    clock.now += CONFIRM_S
    assert typed(keys) == "5" + ENTER


def test_a_correction_in_the_window_replaces_the_heard_answer() -> None:
    keys, listener, _, voice, clock = counting("пять")
    assert typed(keys) == ""
    clock.now += CONFIRM_S / 2
    listener.hear("шесть")
    assert typed(keys) == ""
    assert voice.said == ["Слышу: пять.", "Слышу: шесть."]
    clock.now += CONFIRM_S
    assert typed(keys) == "6" + ENTER


def test_the_keypad_overrules_a_read_back_answer() -> None:
    keys, _, keypad, _, clock = counting("пять")
    assert typed(keys) == ""
    keypad.keys = ["7", ENTER]
    assert typed(keys) == "7" + ENTER
    clock.now += CONFIRM_S * 2
    assert typed(keys) == ""  # the spoken «пять» was dropped


def test_a_new_prompt_drops_what_was_heard_for_the_old_one() -> None:
    keys, _, _, _, clock = counting("пять")
    assert typed(keys) == ""
    keys.expect(count_prompt(Tag(day(1), "vote", 9), 5))
    clock.now += CONFIRM_S * 2
    assert typed(keys) == ""


def test_a_nomination_is_typed_at_once_the_host_confirms_it() -> None:
    keys, listener, _, voice, _ = table()
    keys.expect(_seat_prompt(Tag(day(1), "nominate", 1), 1, tuple(range(1, 11)), mark="nominate"))
    listener.hear("я выставляю игрока номер семь")
    assert typed(keys) == "7" + ENTER
    assert voice.said == []


def test_unclear_speech_is_asked_again_aloud_and_types_nothing() -> None:
    keys, _, _, voice, clock = counting("пять шесть")
    clock.now += CONFIRM_S * 2
    assert typed(keys) == ""
    assert voice.said == ["Не расслышал, повторите."]


def test_an_answer_handed_over_for_a_closed_prompt_never_reaches_the_next() -> None:
    """Two nominations heard in one read: the table takes the first and closes the
    question; the second, said for that question, is not handed to the next one."""
    keys, listener, _, _, _ = table()
    nominate = _seat_prompt(Tag(day(1), "nominate", 1), 1, tuple(range(1, 11)), mark="nominate")
    keys.expect(nominate)
    listener.hear("я выставляю игрока номер семь")
    listener.hear("я выставляю игрока номер восемь")
    assert keys.read(0) == Attempt(nominate.id, "7")
    keys.expect(count_prompt(Tag(day(1), "vote", 4), 10))
    assert typed(keys) == ""


def test_a_refused_answer_is_handed_over_at_once_without_a_read_back() -> None:
    """A self-vote is refused by the rules: not read back, handed to the table at once
    (which shows the keypad's reason); no correction window to wait out."""
    from narrator.rules.halloween import vote_prompt

    keys, listener, _, voice, _ = table()
    vote = vote_prompt(Tag(day(1), "vote", 4), 4, tuple(range(1, 11)), tuple(range(1, 11)), 10)
    keys.expect(vote)
    listener.hear("четыре")
    assert keys.read(0) == Attempt(vote.id, "4")
    assert voice.said == []


def test_a_read_back_answer_its_question_closed_on_says_it_was_not_taken() -> None:
    """«Слышу: пять», then the vote's time ran out inside the correction window: the
    answer is not taken, and the screen says so (the read-back had promised it)."""
    from tests.voice_table import Screen  # it imports this module

    screen = Screen()
    keys, _, _, voice, clock = counting("пять", screen)
    assert typed(keys) == "" and voice.said == ["Слышу: пять."]
    keys.expect(None)  # the vote closed
    clock.now += CONFIRM_S * 2
    assert typed(keys) == ""
    assert screen.lines[-1] == RUSSIAN.message("closed", text="пять"), screen.lines
