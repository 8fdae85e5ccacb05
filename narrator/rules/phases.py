"""A phase of a game as a value: its kind and its number.

A script says ``night(2)`` or ``day(1)``; the value is written as ``n2`` or ``d1`` only
where it leaves the program (a prompt's id, a game record, a scenario file: docs/scenarios.md),
and read back from that text in one place, :meth:`PhaseId.parse`. What a phase is called
aloud or on the screen is said by ``narrator.voice.catalog.phase_in_words``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

PhaseKind = Literal["setup", "night", "day"]

_TEXT = re.compile(r"([nd])(\d{1,4})")
_LETTER: dict[PhaseKind, str] = {"night": "n", "day": "d"}


@dataclass(frozen=True)
class PhaseId:
    """``kind`` and ``number``: night 0 is sport mafia's card night; ``setup`` (number 0)
    is the time before the first phase of the rules, the deal included."""

    kind: PhaseKind
    number: int = 0

    @property
    def by_night(self) -> bool:
        return self.kind == "night"

    @property
    def of_the_rules(self) -> bool:
        """A night or a day, not the set-up before them."""
        return self.kind != "setup"

    def __str__(self) -> str:
        return _text(self)

    @staticmethod
    def parse(text: str) -> PhaseId:
        """``n3`` → night 3, ``d2`` → day 2, ``setup`` → the set-up; ValueError otherwise."""
        return _parse(text)


SETUP = PhaseId("setup")


@functools.cache
def night(number: int) -> PhaseId:
    """Night ``number`` (one value per number: a script asks for it at every prompt)."""
    return PhaseId("night", number)


@functools.cache
def day(number: int) -> PhaseId:
    return PhaseId("day", number)


@functools.lru_cache(maxsize=1024)  # a handful of phases per game, written at every prompt
def _text(phase: PhaseId) -> str:
    letter = _LETTER.get(phase.kind)
    return "setup" if letter is None else f"{letter}{phase.number}"


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> PhaseId:
    if text == "setup":
        return SETUP
    match = _TEXT.fullmatch(text)
    if match is None:
        raise ValueError(f"not a phase: {text!r} (a phase is n<number>, d<number> or setup)")
    number = int(match.group(2))
    return night(number) if match.group(1) == "n" else day(number)
