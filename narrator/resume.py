"""Continuing a game: what a record says was already played, as steps to replay.

A game is its script plus the answers the table gave, so a stopped, crashed or
killed game is continued by playing the same script again from the start, with
the same deal and the same seed, and feeding it the recorded outcome of every
step that waited for the table — silently, without a sound, a window or a
secret — until the first step the record did not finish. That one is played
live: an open window is run again from its start with its full length (and a
secret is shown again only inside its owner's window) — an answer already given
in it is its answer again (``Unfinished.kept``: written the moment it was
accepted), never a second one — a speech starts again, a vote is asked again.
Undo is the same replay, cut before the answer taken back.

What chance gave (a speaking order drawn, a default pair of lovers) is read back from
the record's ``chance`` events by id (:func:`drawn`), not drawn again.

The record's ``done`` events are those outcomes, in order (:class:`Done`):
``reply`` (an answer, or none, at a prompt or a timer), ``window`` (a wake
window ran to its end) and ``dealt`` (a player saw his card). An ``undo``
event keeps only the first ``keep`` of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Literal

from narrator.limits import MAX_ANSWER_S
from narrator.rules.answers import Answer
from narrator.rules.answers import answer_from_json
from narrator.rules.answers import answer_to_json
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NarratorError
from narrator.rules.phases import SETUP
from narrator.rules.phases import PhaseId

DoneKind = Literal["reply", "window", "dealt"]


@dataclass(frozen=True)
class Done:
    """One finished step that waited for the table: its kind, its id, its outcome."""

    kind: DoneKind
    id: str
    answer: Answer | None = None
    phase: PhaseId = SETUP

    def to_event(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id, "answer": answer_to_json(self.answer)}

    @staticmethod
    def from_event(event: Mapping[str, Any], phase: PhaseId) -> Done:
        kind = event.get("kind")
        if kind not in ("reply", "window", "dealt"):
            raise ConfigError(f"the record has an unknown step {kind!r}")
        try:
            answer = answer_from_json(event.get("answer"))
        except NarratorError as error:
            raise ConfigError(f"the record has a broken answer: {error}") from None
        return Done(kind, str(event.get("id", "")), answer, phase)

    @property
    def public(self) -> bool:
        """A day answer the table may take back (a vote, a count, a nomination…)."""
        return self.kind == "reply" and not self.phase.by_night and self.id != ""


def phase_of(event: Mapping[str, Any]) -> PhaseId:
    """The phase a record's ``phase`` event begins."""
    try:
        return PhaseId.parse(str(event.get("id", "")))
    except ValueError as error:
        raise ConfigError(f"the record has a broken phase: {error}") from None


class Mismatch(ConfigError):
    """The record does not fit the game's script (another version of the rules?)."""


def replayed(events: Iterable[Mapping[str, Any]]) -> list[Done]:
    """The steps of a record to replay: every ``done``, less what an ``undo`` took back,
    less whatever was answered inside a window the record left open."""
    return _split(events)[0]


def _answers(steps: Iterable[Done]) -> list[Done]:
    """The answers among ``steps`` (those of the window a record left open: written the
    moment they were accepted, they are its answers again when it is run again)."""
    return [step for step in steps if step.kind == "reply" and step.answer is not None]


def _split(events: Iterable[Mapping[str, Any]]) -> tuple[list[Done], list[Done]]:
    """The steps to replay, and those done inside a window that never closed."""
    done: list[Done] = []
    phase = SETUP
    open_at: int | None = None  # the steps before the window that never closed
    for event in events:
        kind = event.get("event")
        if kind == "phase":
            phase = phase_of(event)
        elif kind == "window":
            open_at = len(done)
        elif kind == "done":
            step = Done.from_event(event, phase)
            done.append(step)
            if step.kind == "window":
                open_at = None
        elif kind == "undo":
            keep = event.get("keep")
            if not isinstance(keep, int) or not 0 <= keep <= len(done):
                raise ConfigError(f"the record has a broken undo: {keep!r}")
            del done[keep:]
            open_at = None
    return (done, []) if open_at is None else (done[:open_at], done[open_at:])


def drawn(events: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """What chance gave in a record (its ``chance`` events): outcome by chance id, less
    those drawn after the answer an ``undo`` took back. A replay reads them back, so a
    record replays to the same game even after the rules drew once more somewhere."""
    outcomes: dict[str, tuple[int, str]] = {}  # id -> (done steps before it, outcome)
    done = 0
    for event in events:
        kind = event.get("event")
        if kind == "done":
            done += 1
        elif kind == "chance" and isinstance(event.get("value"), str):
            outcomes[str(event.get("id", ""))] = (done, event["value"])
        elif kind == "undo" and isinstance(event.get("keep"), int):
            done = event["keep"]
            outcomes = {key: (at, value) for key, (at, value) in outcomes.items() if at <= done}
    return {key: value for key, (_, value) in outcomes.items()}


@dataclass(frozen=True)
class Unfinished:
    """A game that did not reach its end: enough to list it and to continue it."""

    path: Path
    game: str
    players: int
    lang: str
    phase: PhaseId
    started: str  # as the record names it: YYYYMMDD-HHMMSS
    start: Mapping[str, Any]  # the record's start event: seed, options, deal
    steps: Sequence[Done]
    lost: bool  # the record could not be written to the end (a full disk)
    kept: Sequence[Done] = ()  # the answers given inside the window it stopped in
    answer_s: float | None = None  # its time for a day answer, when the record has a sound one
    drawn: Mapping[str, str] = field(default_factory=dict)  # what chance gave (:func:`drawn`)
    phones: Mapping[str, Any] = field(default_factory=dict)  # its last ``phones`` event


def unfinished(path: Path, events: Sequence[Mapping[str, Any]]) -> Unfinished | None:
    """What a record holds, or None when its game has ended (or never started)."""
    if not events or events[0].get("event") != "start":
        return None
    if any(e.get("event") == "end" for e in events):
        return None
    start = events[0]
    phases = [phase_of(e) for e in events if e.get("event") == "phase"]
    deal = start.get("deal")
    if not isinstance(deal, Mapping) or not isinstance(deal.get("seats"), list):
        raise ConfigError(f"{path.name}: the record has no deal")
    steps, open_window = _split(events)
    return Unfinished(
        path=path,
        game=str(start.get("game", "")),
        players=int(start.get("players") or len(deal["seats"])),
        lang=str(start.get("lang", "ru")),
        phase=phases[-1] if phases else SETUP,
        started=path.name[:15],
        start=start,
        steps=steps,
        lost=any(e.get("event") == "lost" for e in events),
        kept=_answers(open_window),
        answer_s=_answer_s(start.get("answer_s")),
        drawn=drawn(events),
        phones=next((e for e in reversed(events) if e.get("event") == "phones"), {}),
    )


def _answer_s(value: Any) -> float | None:
    """A recorded answer time within the table's bounds; anything else is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and 0 < value <= MAX_ANSWER_S else None
