"""The table's time in a test's hands: a whole game on the virtual clock, in lock step.

The game plays on the project's own virtual clock (``narrator.sound.output``): its real
mixer renders every line and knock into an ``OfflineOutput`` as fast as it can, and
nothing waits on the wall clock. The test is the table's time: the clock stands still
(a prompt open, a card shown, a line half said) until the test waits for the game to
move on, and then it moves one wait of the game at a time, so the test sees every
screen the table shows in between. A key typed is read at once, with no time passing.
So what a test sees never depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable

from narrator.screen.keys import PausableClock
from narrator.sound.mixer import Mixer
from narrator.sound.output import OfflineOutput

REAL_WAIT_S = 0.005  # how often a standing game looks for a key or a step (wall clock)


class Lockstep(PausableClock):
    """A virtual clock for the full-screen table that moves one step when the test lets it.

    ``output`` makes the game's offline output (``table_app(offline=...)``); ``step``
    lets the game go on to its next wait; ``standing`` is true while it waits for one.
    P (pause) holds it still as well.
    """

    def __init__(self) -> None:
        super().__init__()
        self.rendered: OfflineOutput | None = None
        self._steps = 0  # granted and not yet taken
        self._standing = False
        self._paused = False
        self._free = False  # let go: the clock runs instantly from now on
        self._lock = threading.Condition()
        self._time = 0.0  # the clock's time when nothing is rendered (printed lines only)

    # --- the game's side ------------------------------------------------------------------

    def output(self, mixer: Mixer) -> OfflineOutput:
        self.rendered = OfflineOutput(mixer, keep=False)
        return self.rendered

    @property
    def paused(self) -> bool:
        return self._paused

    def toggle(self) -> bool:
        self._paused = not self._paused
        return self._paused

    def now(self) -> float:
        return self.rendered.seconds if self.rendered is not None else self._time

    def sleep(self, seconds: float) -> None:
        self._take(lambda: False)
        self._advance(seconds)

    def wait_key(self, keys: queue.Queue[str], timeout: float) -> str | None:
        if self._take(lambda: not keys.empty()):
            return keys.get_nowait()
        self._advance(timeout)
        try:
            return keys.get_nowait()  # typed while the time passed
        except queue.Empty:
            return None

    def _advance(self, seconds: float) -> None:
        if self.rendered is not None:
            self.rendered.advance(seconds)
        elif seconds > 0:
            self._time += seconds

    def _take(self, key_queued: Callable[[], bool]) -> bool:
        """Stand still until a step is granted (False) or a key is queued (True)."""
        with self._lock:
            self._standing = True
            self._lock.notify_all()
            try:
                while True:
                    if key_queued():
                        return True
                    if self._free:
                        return False
                    if self._steps > 0 and not self._paused:
                        self._steps -= 1
                        return False
                    self._lock.wait(REAL_WAIT_S)
            finally:
                self._standing = False

    # --- the test's side ------------------------------------------------------------------

    @property
    def standing(self) -> bool:
        with self._lock:
            return self._standing and self._steps == 0

    def let_go(self) -> None:
        """The test is over: the game (stopping, or stopped) runs on without it."""
        with self._lock:
            self._free = True
            self._lock.notify_all()

    async def step(self, alive: Callable[[], bool], seconds: float) -> None:
        """One wait of the game: let it go on until it stands again (or ends)."""
        with self._lock:
            self._steps = 1
            self._lock.notify_all()
        for _ in range(int(seconds / REAL_WAIT_S)):
            if self.standing or not alive():
                return
            await asyncio.sleep(REAL_WAIT_S)
        raise AssertionError(f"the game did not stand still again within {seconds:g} s")

    async def run_until(
        self, condition: Callable[[], bool], ended: Callable[[], bool], game_s: float, step_s: float
    ) -> bool:
        """Let the game go on one wait at a time until ``condition`` holds; False when the
        game has ``ended`` first or ``game_s`` of game time pass (each step at most
        ``step_s`` of wall clock)."""
        end = self.now() + game_s
        while not condition():
            if ended() or self.now() > end:
                return condition()
            await self.step(lambda: not ended(), step_s)
        return True
