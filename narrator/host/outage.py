"""The table waits for its sound: a device that goes away pauses the game.

When the sound device is lost (unplugged, its server stopped, suspended) nothing
the narrator says or knocks can be heard, so the game waits: the clock stands
still, a line on the screen says why, and the game goes on by itself once the
device plays again. The table may instead choose to play on in silence
(Enter or 0 on that page; the lines are then only shown) or stop (Esc, then 1).

The watch is asked from the two places the game waits in: a line being said
(``AudioVoice.hold``) and every key read (``guard``). It looks at the device
only, never at the game, so the pause comes and looks the same whatever the
cards are; keys pressed meanwhile are only these three, the rest are dropped.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

from narrator.clocks import HeldClock
from narrator.host.dialogs import STOP_YES
from narrator.host.dialogs import TICK
from narrator.host.dialogs import GameStopped
from narrator.ports import ENTER
from narrator.ports import INTERRUPT
from narrator.ports import Attempt
from narrator.ports import Clock
from narrator.ports import Keys
from narrator.ports import Lines
from narrator.rules.prompts import Prompt
from narrator.voice.catalog import Catalog

_LOGGER = logging.getLogger(__name__)

SILENCE_KEYS = frozenset({ENTER, "0"})  # on the pause page: play on without sound


class Device(Protocol):
    """A sound output that may go away (``sound.output.DeviceOutput``)."""

    def problem(self) -> str | None:
        """Why it plays nothing now; None while it plays (or once silence is chosen)."""
        ...

    def go_silent(self) -> None:
        """Play on without it."""
        ...


class SoundWatch:
    """Pauses the game while ``device`` is away; ``clock`` is the game's clock."""

    def __init__(self, device: Device, screen: Lines, catalog: Catalog, clock: Clock) -> None:
        self.device = device
        self.screen = screen
        self.catalog = catalog
        self.clock = HeldClock(clock)
        self.keypad: Keys | None = None
        self.pauses = 0  # how often the game waited for its sound
        self._waiting = False

    def guard(self, keys: Keys, *, keypad: bool = True) -> Keys:
        """``keys`` that wait while the device is away. With ``keypad`` the pause page
        reads them (silence, stop); demo players are not asked."""
        if keypad:
            self.keypad = keys
        return _GuardedKeys(self, keys)

    def hold(self) -> bool:
        """Wait here while the device is away; True if the game waited."""
        if self._waiting or self.device.problem() is None:
            return False
        self._waiting = True
        self.clock.hold(True)
        self.pauses += 1
        try:
            self._wait()
        finally:
            self.clock.hold(False)
            self._waiting = False
        return True

    def _wait(self) -> None:
        _LOGGER.info("the sound is gone (%s): the game waits", self.device.problem())
        self.screen.line(self.catalog.text("screen.sound_lost"))
        while self.device.problem() is not None:
            key = self._read()
            if key in SILENCE_KEYS:
                self.device.go_silent()
                _LOGGER.info("the table plays on without sound")
                self.screen.line(self.catalog.text("screen.sound_silent"))
                return
            if key == INTERRUPT:
                self._ask_stop()
        _LOGGER.info("the sound is back: the game goes on")
        self.screen.line(self.catalog.text("screen.sound_back"))

    def _ask_stop(self) -> None:
        """The stop question of the table (1 or y stops), asked on the pause page."""
        self.screen.line(self.catalog.text("screen.confirm_quit"))
        while (key := self._read()) is None:
            pass
        if key in STOP_YES:
            raise GameStopped
        self.screen.line(self.catalog.text("screen.sound_lost"))

    def _read(self) -> str | None:
        if self.keypad is None:
            time.sleep(TICK)
            return None
        key = self.keypad.read(TICK)
        return None if isinstance(key, Attempt) else key


class _GuardedKeys:
    def __init__(self, watch: SoundWatch, keys: Keys) -> None:
        self.watch = watch
        self.keys = keys

    def read(self, timeout: float) -> str | Attempt | None:
        if self.watch.hold():
            return None  # the game waited: the table looks at its clock again
        return self.keys.read(timeout)

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self.keys.expect(prompt, speech=speech)
