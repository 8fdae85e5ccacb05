"""The host's ports: tiny protocols at the edges of the table loop.

The table loop knows only these; the command line plugs in real adapters (a
terminal, later a speech engine and a full-screen app) or demo stand-ins.
"""

from __future__ import annotations

from typing import Protocol

from narrator.rules.core import Prompt

ENTER = "\n"
BACKSPACE = "\x7f"
INTERRUPT = "\x03"


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class Keys(Protocol):
    """Key presses from the table: digits, letters, ENTER, BACKSPACE, INTERRUPT."""

    def read(self, timeout: float) -> str | None:
        """The next key, or None when ``timeout`` seconds pass without one."""
        ...

    def expect(self, prompt: Prompt | None) -> None:
        """The prompt now open (None: nothing may be typed). Real keyboards ignore it."""
        ...


class Voice(Protocol):
    """Something that says a narrator line aloud (or prints it, in text mode).

    ``say`` returns when the line has been said to its end.
    """

    def say(self, key: str, text: str) -> None: ...


class Sound(Protocol):
    """The night's sound: the knock masking bed, ticks."""

    def night(self, on: bool) -> None:
        """Start (fade in) or stop (fade out, then the dawn chime) the knock bed."""
        ...

    def tick(self) -> None:
        """A soft tick in a window's last seconds (if ticks are on)."""
        ...


class Screen(Protocol):
    """The laptop screen: the only private channel at the table."""

    def line(self, text: str) -> None:
        """Add a line that may stay on screen (public information only)."""
        ...

    def status(self, text: str) -> None:
        """Replace the one live status line (countdown, digits being typed)."""
        ...

    def clear(self) -> None:
        """Wipe the screen and its scroll-back: nothing shown before can be read."""
        ...
