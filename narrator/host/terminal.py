"""A plain terminal as screen and keypad (the ``--text`` host).

Keys are read one at a time with echo off and signals off, so Ctrl-C reaches the
table loop as a key (it asks before stopping) and nothing typed at night is
echoed by the terminal itself. With demo players nobody reads the keyboard, so
there Ctrl-C stays a signal and stops the game.

Secrets are only ever written to a terminal. When standard output is a pipe or a
file (``narrator play --text | tee game.log``) the cards, the night's answers and
the countdown go to the keyboard's terminal if there is one, else nowhere, and
one line on standard error says so: a log keeps only what the table may hear.
"""

from __future__ import annotations

import os
import select
import sys
import time
from types import TracebackType
from typing import Any
from typing import TextIO

from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.ports import INTERRUPT
from narrator.ports import UNDO
from narrator.ports import Live
from narrator.ports import Screen
from narrator.rules.core import PublicView
from narrator.rules.prompts import Prompt

CLEAR = "\033[H\033[2J\033[3J"  # home, clear screen, clear scroll-back


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # a closed or odd stream
        return False


class Terminal:
    """Screen and keys on a POSIX or Windows terminal; use as a context manager.

    ``out`` gets every public line; private output (secrets, what is typed and
    accepted inside a night window, the countdown) goes to ``out`` only when it
    is a terminal, else to ``private`` (by default the keyboard's terminal, found
    on entering) or nowhere. ``signals``: Ctrl-C stays a signal (demo players).
    """

    def __init__(
        self,
        out: TextIO | None = None,
        texts: dict[str, str] | None = None,
        *,
        private: TextIO | None = None,
        signals: bool = False,
    ) -> None:
        self.out = out or sys.stdout
        self.texts = texts or {
            "remaining": "{seconds} s",
            "entry": "> {text}",
            "rejected": "! {reason}",
        }
        self.signals = signals
        self._private = self.out if is_terminal(self.out) else private
        self._opened: TextIO | None = None
        self._told = is_terminal(self.out) or private is not None  # why no secrets: once
        self._in_window = False  # between a night window's first countdown and its end
        self._saved: list[Any] | None = None
        self._fd = -1
        self._status_shown = False

    def __enter__(self) -> Terminal:
        keyboard = os.name == "posix" and sys.stdin.isatty()
        if keyboard:
            import termios

            self._fd = sys.stdin.fileno()
            self._saved = termios.tcgetattr(self._fd)
            mode = termios.tcgetattr(self._fd)
            mode[3] &= ~(termios.ICANON | termios.ECHO | (0 if self.signals else termios.ISIG))
            mode[6][termios.VMIN] = 1
            mode[6][termios.VTIME] = 0
            termios.tcsetattr(self._fd, termios.TCSADRAIN, mode)
        if self._private is None and keyboard:
            self._private = self._opened = _open_keyboard_terminal()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)
            self._saved = None
        self._end_status()
        if self._opened is not None:
            self._opened.close()
            self._private = self._opened = None

    # --- keys ----------------------------------------------------------------------

    def read(self, timeout: float) -> str | None:
        if os.name == "nt":  # pragma: no cover - Windows console
            return self._read_windows(timeout)
        ready, _, _ = select.select([sys.stdin], [], [], max(timeout, 0))
        if not ready:
            return None
        char = os.read(sys.stdin.fileno(), 1).decode("utf-8", "replace")
        if char == "":
            time.sleep(max(timeout, 0))  # end of input: behave like a silent keyboard
            return None
        return _normalise(char)

    def _read_windows(self, timeout: float) -> str | None:  # pragma: no cover
        import msvcrt

        end = time.monotonic() + max(timeout, 0)
        while True:
            if msvcrt.kbhit():  # type: ignore[attr-defined,unused-ignore]
                char: str = msvcrt.getwch()  # type: ignore[attr-defined,unused-ignore]
                return _normalise(char)
            if time.monotonic() >= end:
                return None
            time.sleep(0.02)

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        """A real keyboard types whatever the player types."""

    # --- screen ----------------------------------------------------------------------

    def said(self, text: str) -> None:
        """Spoken lines are public, even inside a window (a called number)."""
        self._write(self.out, f"» {text}")

    def line(self, text: str) -> None:
        """Inside a night window a line is private: what was typed, what was accepted."""
        if self._in_window:
            self._write_private(text)
        else:
            self._write(self.out, text)

    def _write_private(self, text: str) -> None:
        if not self._told:  # the first is the first card dealt: the same in every game
            self._told = True
            name = getattr(self._private, "name", "the terminal")
            where = f"on {name} only" if self._private is not None else "nowhere"
            sys.stderr.write(
                "narrator: standard output is not a terminal: secrets are shown "
                f"{where}, never written to it\n"
            )
            sys.stderr.flush()
        self._write(self._private, text)

    def _write(self, stream: TextIO | None, text: str) -> None:
        self._end_status()
        if stream is not None:
            stream.write(text + "\n")
            stream.flush()

    def live(self, view: Live | None) -> None:
        self._in_window = view is not None and view.kind == "window"
        self.status("" if view is None else self.render_live(view))

    def render_live(self, view: Live) -> str:
        """One status line: bar, seconds left, the question, the entry, a refusal."""
        parts = [
            bar(view.left, view.total),
            self.texts["remaining"].format(seconds=f"{view.left:4.1f}"),
        ]
        if view.label:
            parts.append(view.label)
        if view.kind != "timer" or view.typed:
            parts.append(self.texts["entry"].format(text=view.typed + "_"))
        if view.reason:
            parts.append(self.texts["rejected"].format(reason=view.reason))
        return "  ".join(parts)

    def secret(self, text: str) -> None:
        self._write_private("")
        self._write_private(f">>> {text} <<<")

    def table(self, view: PublicView, speaker: int | None) -> None:
        """The text host shows the table through the spoken lines only."""

    def end(self, title: str, lines: list[str]) -> None:
        self.line("")
        self.line(title)
        for text in lines:
            self.line(f"  {text}")

    def status(self, text: str) -> None:
        """The countdown line, on the terminal only: a log keeps no countdown, no typing."""
        if self._private is None:
            return
        self._private.write("\r\033[2K" + text)
        self._private.flush()
        self._status_shown = True

    def clear(self) -> None:
        self._status_shown = False
        self._in_window = False
        if self._private is None:
            return
        self._private.write(CLEAR)
        self._private.flush()

    def _end_status(self) -> None:
        if self._status_shown and self._private is not None:
            self._private.write("\n")
            self._private.flush()
        self._status_shown = False


def _open_keyboard_terminal() -> TextIO | None:
    """The terminal the keys come from, for what only the table's screen may show."""
    try:
        return open(os.ttyname(sys.stdin.fileno()), "w", encoding="utf-8")
    except OSError:
        return None


def _normalise(char: str) -> str:
    if char in {"\r", "\n"}:
        return ENTER
    if char in {"\x7f", "\b"}:
        return BACKSPACE
    if char == "\x03":
        return INTERRUPT
    if char == "\x15":  # Ctrl+U
        return UNDO
    return char


def bar(left: float, total: float, width: int = 20) -> str:
    filled = round(width * left / total) if total > 0 else 0
    return "█" * max(0, min(width, filled)) + "░" * (width - max(0, min(width, filled)))


class PrintVoice:
    """Text mode's voice: every narrator line is shown as it would be spoken."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen

    def say(self, key: str, text: str) -> None:
        self.screen.said(text)
