"""The players of a simulated table: the ``random`` policy, and what every policy shares.

A policy lives outside the rules: it only ever picks one of the answers a prompt
lists as legal (``Prompt.options``), or gives none and lets the window expire.
"""

from __future__ import annotations

import random

from narrator.rules.answers import Answer
from narrator.rules.core import Eliminate
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Timer
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag


class Unwatching:
    """Players who are told nothing: every observation is ignored."""

    watching = False

    def interrupt(self, timer: Timer, alive: tuple[Seat, ...]) -> str | None:
        """Nobody interrupts a speech."""
        return None

    def talk(self, timer: Timer, alive: tuple[Seat, ...]) -> None:
        """Nobody says anything the simulation counts."""

    def phase(self, phase: PhaseId) -> None:
        """Not followed."""

    def said(self, step: Say) -> None:
        """Not followed."""

    def eliminated(self, step: Eliminate) -> None:
        """Not followed."""

    def badge(self, seat: Seat | None) -> None:
        """Not followed."""

    def dealt(self, seat: Seat, card: str) -> None:
        """Not followed."""

    def awake(self, tag: Tag, seats: tuple[Seat, ...]) -> None:
        """Not followed."""

    def shown(self, tag: Tag, to: tuple[Seat, ...], secret: Secret) -> None:
        """Not followed."""

    def answered(self, prompt: Prompt, answer: Answer) -> None:
        """Not followed."""


class RandomPlayers(Unwatching):
    """Uniformly random legal answers, as the demo players give (docs/rules.md §0.3 otherwise).

    Every prompt gets one of its options, each as likely; a prompt with none
    expires. Nobody interrupts a speech: an explosion is not an answer a speech
    waits for (the length estimate and the demo players do the same).
    """

    def __init__(self, rng: random.Random) -> None:
        self.choice = rng.choice

    def answer(self, prompt: Prompt, alive: tuple[Seat, ...]) -> str | None:
        options = prompt.options
        return self.choice(options) if options else None
