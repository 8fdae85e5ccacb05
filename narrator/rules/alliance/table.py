"""The state of one «Альянс дедукции» game: cards, lovers, the sheriff, potions, today's deaths."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import TypeVar

from narrator.rules import kit
from narrator.rules.alliance.resolution import winner_of
from narrator.rules.alliance.roles import DUE
from narrator.rules.alliance.roles import AllianceSwitches
from narrator.rules.core import Decoy
from narrator.rules.core import Flow
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag

T = TypeVar("T")


@dataclass(frozen=True)
class Death:
    """One departure; ``words`` is the right to last words (4.7-4)."""

    seat: Seat
    phase: PhaseId
    cause: str
    words: bool


@dataclass
class Table(kit.Table[AllianceSwitches]):
    """The hidden and public state of one game."""

    lovers: tuple[Seat, Seat] | None = None
    sheriff: Seat | None = None
    election: str = DUE
    antidote: bool = True
    poison: bool = True
    guarded: Seat | None = None  # last night's protection
    fallen_today: list[Seat] = field(default_factory=list)
    asked: set[str] = field(default_factory=set)  # ids of the questions that may come again

    def call(
        self,
        role: str,
        tag: Tag,
        seconds: float,
        body: Callable[[tuple[Seat, ...]], Flow[T]],
        decoy: Decoy | None = None,
        *,
        wanted: bool = True,
    ) -> Flow[T | None]:
        """``role``'s night window (:func:`kit.role_call`): its wake and sleep lines, its
        length as the switches set it, every card of it woken (the dead too, if they are
        called); no call at all when the role is not dealt or not ``wanted`` tonight."""
        sw = self.sw
        awake = self.called(role, sw.call_dead_roles) if wanted else None
        lines = (f"alliance.{role}_wake", f"alliance.{role}_sleep")
        return (yield from kit.role_call(lines, tag, sw.window(seconds), awake, body, decoy))

    def partner(self, seat: Seat) -> Seat | None:
        if self.lovers is None or seat not in self.lovers:
            return None
        return self.lovers[1] if seat == self.lovers[0] else self.lovers[0]

    def winner(self) -> str | None:
        return winner_of(self.roles, self.alive, self.lovers)

    def once_more(self, phase: PhaseId, action: str, about: Seat) -> Tag:
        """The tag of a day question that may come again: ``d2.badge`` the first time in
        a day, ``d2.badge.<about>`` after that, so that every prompt id stays unique."""
        tag = Tag(phase, action)
        if tag.id in self.asked:
            tag = Tag(phase, action, about)
        self.asked.add(tag.id)
        return tag
