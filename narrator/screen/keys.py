"""The full screen's clock and keys, without the screen: the clock stands still while
the game is paused, and keys typed meanwhile are not passed on (only a stop is)."""

from __future__ import annotations

import queue

from narrator.clocks import HeldClock
from narrator.ports import INTERRUPT
from narrator.ports import Terminated
from narrator.rules.prompts import Prompt


class PausableClock(HeldClock):
    """The wall clock, standing still while the game is paused (key P)."""

    @property
    def paused(self) -> bool:
        return self.holding

    def wait_key(self, keys: queue.Queue[str], timeout: float) -> str | None:
        """The next key typed within ``timeout`` seconds of this clock, else None."""
        try:
            return keys.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None

    def toggle(self) -> bool:
        self.hold(not self.holding)
        return self.paused


STOP_GRACE_S = 3.0  # after SIGTERM or SIGHUP, how long the game has to stop on its own


class TuiKeys:
    """Keys from the app to the table loop; while paused nothing is typed."""

    def __init__(self, clock: PausableClock) -> None:
        self.clock = clock
        self.keys: queue.Queue[str] = queue.Queue()
        self.signum: int | None = None  # a stop signal came: the next read raises Terminated

    def read(self, timeout: float) -> str | None:
        key = self.clock.wait_key(self.keys, timeout)
        self.stopping()
        if key is None:
            return None
        return None if self.clock.paused and key != INTERRUPT else key

    def stopping(self) -> None:
        """Raises Terminated once a stop signal came: at a read of a key, and while a line
        is said (a night's lines run several seconds with no key read)."""
        if self.signum is not None:
            raise Terminated(self.signum)

    def terminate(self, signum: int) -> None:
        """SIGTERM or SIGHUP: the game stops at its next read of a key (one is woken)."""
        self.signum = signum
        self.keys.put(INTERRUPT)

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        """Keys mean the same at every prompt (narrator.rules.codec): nothing to switch."""

    def press(self, key: str) -> None:
        self.keys.put(key)
