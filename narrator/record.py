"""The game record: every prompt, answer and event, in order, as JSON-able dicts.

Both drivers feed one: the scenario runner turns it into the result of
docs/scenarios.md, the table host hands each event to the journal the moment it
happens (sealed on disk within half a second, narrator.host.journal: a crash
loses at most that much). When the file cannot be
written any more (the disk is full, the folder is gone), the game goes on: the
record says so once, stops writing and keeps every event in memory.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import TypeAlias

from narrator.rules.core import Outcome
from narrator.rules.core import Param
from narrator.rules.core import RoleName
from narrator.rules.phases import PhaseId

_LOGGER = logging.getLogger(__name__)

Event = dict[str, Any]
# What an event's field may hold: JSON as it is written (a phase goes as its text).
Field: TypeAlias = str | int | float | bool | Sequence[Any] | Mapping[str, Any] | None


def _json_param(value: Param) -> Any:
    if isinstance(value, RoleName):
        return {"role": value.id}
    if isinstance(value, tuple):
        return list(value)
    return value


class GameRecord:
    """An append-only list of events with an optional sink called on each one."""

    def __init__(
        self,
        sink: Callable[[Event], None] | None = None,
        clock: Callable[[], float] | None = None,
        on_lost: Callable[[OSError], None] | None = None,
    ) -> None:
        self.events: list[Event] = []
        self._sink = sink
        self._clock = clock
        self._zero = clock() if clock is not None else 0.0
        self._on_lost = on_lost
        self.lost: OSError | None = None  # why the sink stopped taking events, if it did

    def add(self, event: str, **fields: Field) -> None:
        entry: Event = {"event": event, **fields}
        if self._clock is not None:  # seconds since the start, at a real or virtual table
            entry["t"] = round(self._clock() - self._zero, 4)
        self.events.append(entry)
        if self._sink is not None:
            try:
                self._sink(entry)
            except OSError as error:
                self.lose(error)

    def lose(self, error: OSError) -> None:
        """The sink failed: stop feeding it and warn once; the events stay in memory."""
        self._sink = None
        if self.lost is not None:
            return
        self.lost = error
        if self._on_lost is not None:
            self._on_lost(error)
        else:
            _LOGGER.warning("the game record cannot be written any more: %s", error)

    def start(self, **fields: Any) -> None:
        self.add("start", **fields)

    def phase(self, phase: PhaseId) -> None:
        self.add("phase", id=str(phase))

    def say(self, key: str, params: Mapping[str, Param], text: str) -> None:
        self.add("say", key=key, params={k: _json_param(v) for k, v in params.items()}, text=text)

    def window(self, prompt: str, seconds: float) -> None:
        whole = float(seconds).is_integer()
        self.add("window", prompt=prompt, seconds=int(seconds) if whole else seconds)

    def accepted(self, prompt: str, text: str) -> None:
        self.add("answer", prompt=prompt, input=text, accepted=True)

    def rejected(self, prompt: str, text: str, reason: str) -> None:
        self.add("answer", prompt=prompt, input=text, accepted=False, reason=reason)

    def expired(self, prompt: str, value: str) -> None:
        self.add("expired", prompt=prompt, value=value)

    def secret(self, prompt: str, to: tuple[int, ...], shown: str) -> None:
        self.add("secret", prompt=prompt, to=list(to), shown=shown)

    def eliminated(self, seat: int, phase: PhaseId, cause: str) -> None:
        self.add("eliminated", seat=seat, phase=str(phase), cause=cause)

    def end(self, outcome: Outcome | None, last_phase: PhaseId, sheriff: int | None = None) -> None:
        """The end of the game, or of a run stopped before it (``sheriff``: the badge now)."""
        if outcome is None:
            self.add("stopped", ended_at=str(last_phase), sheriff=sheriff)
        else:
            reveal = {str(seat): role for seat, role in outcome.reveal.items()}
            self.add(
                "end",
                winner=outcome.winner,
                ended_at=str(outcome.ended_at),
                sheriff=outcome.sheriff,
                reveal=reveal,
            )

    def result(self, game: str) -> dict[str, Any]:
        """The scenario contract's result object (docs/scenarios.md, "Result")."""
        last = next((e for e in reversed(self.events) if e["event"] in {"end", "stopped"}), {})
        of = self._of
        return {
            "game": game,
            "winner": last.get("winner"),
            "ended_at": last.get("ended_at"),
            "eliminated": of("eliminated", "seat", "phase", "cause"),
            "sheriff": last.get("sheriff"),
            "rejected": [
                {"prompt": e["prompt"], "input": e["input"], "reason": e["reason"]}
                for e in self.events
                if e["event"] == "answer" and not e["accepted"]
            ],
            "secrets": of("secret", "prompt", "to", "shown"),
            "spoken": [e["text"] for e in self.events if e["event"] == "say"],
            "windows": of("window", "prompt", "seconds"),
        }

    def _of(self, event: str, *keys: str) -> list[dict[str, Any]]:
        return [{k: e[k] for k in keys} for e in self.events if e["event"] == event]
