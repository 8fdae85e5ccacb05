"""The ports: tiny protocols at the edges of the table loop, in one place.

The table loop knows only these; the command line plugs in real adapters (a
terminal, a speech engine, a full-screen app, a microphone) or demo stand-ins.
They sit on the ground floor so that every adapter (``listen``, ``screen``,
``sound``) implements them without importing the host.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from typing import Protocol

from narrator.rules.core import PublicView
from narrator.rules.prompts import Prompt

ENTER = "\n"
BACKSPACE = "\x7f"
INTERRUPT = "\x03"
UNDO = "\x15"  # take back the last public answer (the keypad: / then 3)

# The signals that stop a game as Ctrl-C does (the terminal closed, the system shutting down).
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


class Terminated(BaseException):
    """SIGTERM or SIGHUP: stop the game as Ctrl-C does, keeping the record and the terminal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


@dataclass(frozen=True)
class Attempt:
    """A whole answer given at once (spoken), not typed key by key.

    ``prompt`` is the id of the prompt it was given for (None: no question was
    open); the table takes it only if that prompt is still the open one.
    ``text`` is the canonical answer text (docs/scenarios.md), empty for a bare
    «спасибо»; ``ends`` means the speaker said «спасибо» (the speech is over).
    """

    prompt: str | None
    text: str
    source: str = "voice"
    ends: bool = False


class Keys(Protocol):
    """Input from the table: key presses (digits, letters, ENTER, BACKSPACE,
    INTERRUPT) and whole attempts from other channels (a spoken answer)."""

    def read(self, timeout: float) -> str | Attempt | None:
        """The next key or attempt, or None when ``timeout`` seconds pass without one."""
        ...

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        """The prompt now open (None: nothing may be typed). Real keyboards ignore it.

        ``speech``: a public countdown runs (a speech, a discussion), which «Спасибо»
        ends early; at a question alone it means nothing, so it is not listened for.
        """
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


@dataclass(frozen=True)
class Live:
    """The live part of the screen: a countdown, the question, the digits being typed."""

    kind: Literal["window", "answer", "timer"]
    label: str  # the question or the speaker; empty inside a night window
    left: float
    total: float
    typed: str = ""
    reason: str = ""  # why the last attempt was refused (silent, on screen only)


class Private(Protocol):
    """The players' own screens (their phones): whose private moment it is.

    The laptop's screen is the private channel of whoever is awake; this tells the
    phones who that is, so each phone shows only its own seat's part of it.
    """

    def night(self, on: bool) -> None:
        """The night begins (True) or ends (False)."""
        ...

    def window(self, seats: tuple[int, ...] | None) -> None:
        """A wake window opens for ``seats`` (possibly none), or closes (None)."""
        ...

    def deal(self, seat: int | None, card: str = "") -> bool:
        """``seat`` looks at its card ``card`` (None: done). True: its own phone shows
        the card, so the laptop must not; then the phone's Enter (or the laptop's) ends it."""
        ...

    def record(self, add: Callable[..., None]) -> None:
        """The game's record is ``add``: it keeps what a resume needs to know the phones
        again (never a token, never a role)."""
        ...

    def speech(self, seat: int | None, interrupt: Prompt | None) -> None:
        """A public countdown runs: ``seat``'s speech (None: nobody's; both None: it is
        over), which ``interrupt`` may cut short (a werewolf exploding)."""
        ...


class NoPhones:
    """No phones at the table: the laptop is every seat's screen."""

    def night(self, on: bool) -> None:
        pass

    def window(self, seats: tuple[int, ...] | None) -> None:
        pass

    def deal(self, seat: int | None, card: str = "") -> bool:
        return False

    def record(self, add: Callable[..., None]) -> None:
        pass

    def speech(self, seat: int | None, interrupt: Prompt | None) -> None:
        pass


class Lines(Protocol):
    """Somewhere public lines can be added (the part of the Screen the voice input uses)."""

    def line(self, text: str) -> None: ...


class Screen(Lines, Protocol):
    """The laptop screen: the only private channel at the table."""

    def said(self, text: str) -> None:
        """A narrator line, as it is spoken (public)."""
        ...

    def line(self, text: str) -> None:
        """Add a line that may stay on screen (public information only)."""
        ...

    def live(self, view: Live | None) -> None:
        """Show (or, with None, remove) the countdown and the entry."""
        ...

    def secret(self, text: str) -> None:
        """Show hidden information large; only ever inside its owner's window or deal."""
        ...

    def clear(self) -> None:
        """Wipe everything shown privately: the neutral page, the same whatever happened."""
        ...

    def table(self, view: PublicView, speaker: int | None) -> None:
        """The public state of the table: who is in the game, who speaks."""
        ...

    def end(self, title: str, lines: list[str]) -> None:
        """The final screen: the winner, every role, the game's timeline."""
        ...
