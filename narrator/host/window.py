"""An open wake window apart from its keys: its cues said on time, its soft ticks, the
number being called now, and what its decoy shows when nobody is in it."""

from __future__ import annotations

import random
from collections import deque

from narrator.rules.answers import Answer
from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Decoy
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Wake
from narrator.rules.prompts import Seat

TICKS_FROM = 3.0  # a wake window ticks in its last seconds (when ticks are on)


class WindowTimes:
    """When a window's cues are due (from its start) and when it ticks: a function of
    its start and length only, never of what was typed in it."""

    def __init__(self, window: Wake | None = None, start: float = 0.0, ticks: bool = False):
        self.start = start
        self.end = start + (window.seconds if window is not None else 0.0)
        cues = window.cues if window is not None else ()
        every = window.cue_every if window is not None else 0.0
        self._cues = deque((i * every, cue) for i, cue in enumerate(cues))
        self._seats = [_seat_param(cue) for cue in cues]
        seconds = window.seconds if window is not None else 0.0
        self._ticks = deque(
            self.end - k for k in range(int(TICKS_FROM), 0, -1) if ticks and seconds > k
        )

    def next_cue(self, now: float | None = None) -> Say | None:
        """The next cue if it is due at ``now`` (None: any that is left), taken off."""
        if self._cues and (now is None or now - self.start >= self._cues[0][0]):
            return self._cues.popleft()[1]
        return None

    def tick_due(self, now: float) -> bool:
        """Whether a tick is due at ``now`` (taken off)."""
        if self._ticks and now >= self._ticks[0]:
            self._ticks.popleft()
            return True
        return False

    def stop_ticking(self) -> None:
        self._ticks.clear()

    @property
    def calling(self) -> bool:
        """Whether the window calls numbers (a Space presses the one called)."""
        return bool(self._seats)

    def called(self) -> Seat | None:
        """The seat whose number is being called now (None: none yet)."""
        slot = len(self._seats) - len(self._cues) - 1
        return self._seats[slot] if slot >= 0 else None


def _seat_param(cue: Say) -> Seat | None:
    """The seat a cue calls («Пять»), if it calls one."""
    seat = cue.params.get("seat")
    return seat if isinstance(seat, int) else None


def decoy_secret(decoy: Decoy, answer: Answer, rng: random.Random) -> Secret | None:
    """What a holder's answer would show, drawn from the decoy's possible secrets."""
    if not decoy.shows or not isinstance(answer, SeatAnswer | CenterAnswer):
        return None
    count = len(answer.cards) if isinstance(answer, CenterAnswer) else 1
    drawn = rng.sample(decoy.shows, min(count, len(decoy.shows)))
    values = tuple(value for secret in drawn for value in secret.values)
    return Secret(drawn[0].kind, values)
