"""The game's clocks: the wall clock, and a clock over another that stands still while
it is held (the table paused by key P, or waiting for its sound device)."""

from __future__ import annotations

import time

from narrator.ports import Clock


class RealClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class HeldClock:
    """``clock`` (the wall clock if none), less every stretch it was held."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or RealClock()
        self._held = 0.0
        self._since: float | None = None

    @property
    def holding(self) -> bool:
        return self._since is not None

    def now(self) -> float:
        moment = self._since if self._since is not None else self.clock.now()
        return moment - self._held

    def sleep(self, seconds: float) -> None:
        """Until ``seconds`` of this clock have gone by (never while it is held)."""
        end = self.now() + seconds
        while (left := end - self.now()) > 0:
            self.clock.sleep(min(left, 0.05))

    def hold(self, on: bool) -> None:
        if on and self._since is None:
            self._since = self.clock.now()
        elif not on and self._since is not None:
            self._held += self.clock.now() - self._since
            self._since = None
