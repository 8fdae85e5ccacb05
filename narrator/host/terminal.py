"""A plain terminal as screen and keypad (the ``--text`` host).

Keys are read one at a time with echo off and signals off, so Ctrl-C reaches the
table loop as a key (it asks before stopping) and nothing typed at night is
echoed by the terminal itself.
"""

from __future__ import annotations

import os
import select
import sys
import time
from types import TracebackType
from typing import Any, TextIO

from narrator.host.ports import BACKSPACE, ENTER, INTERRUPT, Live, Screen
from narrator.rules.core import Prompt, PublicView

CLEAR = "\033[H\033[2J\033[3J"  # home, clear screen, clear scroll-back


class RealClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class Terminal:
    """Screen and keys on a POSIX or Windows terminal; use as a context manager."""

    def __init__(self, out: TextIO | None = None, texts: dict[str, str] | None = None) -> None:
        self.out = out or sys.stdout
        self.texts = texts or {
            "remaining": "{seconds} s",
            "entry": "> {text}",
            "rejected": "! {reason}",
        }
        self._saved: list[Any] | None = None
        self._fd = -1
        self._status_shown = False

    def __enter__(self) -> Terminal:
        if os.name == "posix" and sys.stdin.isatty():
            import termios

            self._fd = sys.stdin.fileno()
            self._saved = termios.tcgetattr(self._fd)
            mode = termios.tcgetattr(self._fd)
            mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG)
            mode[6][termios.VMIN] = 1
            mode[6][termios.VTIME] = 0
            termios.tcsetattr(self._fd, termios.TCSADRAIN, mode)
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

    def expect(self, prompt: Prompt | None) -> None:
        """A real keyboard types whatever the player types."""

    # --- screen ----------------------------------------------------------------------

    def said(self, text: str) -> None:
        self.line(f"» {text}")

    def line(self, text: str) -> None:
        self._end_status()
        self.out.write(text + "\n")
        self.out.flush()

    def live(self, view: Live | None) -> None:
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
        self.line("")
        self.line(f">>> {text} <<<")

    def table(self, view: PublicView, speaker: int | None) -> None:
        """The text host shows the table through the spoken lines only."""

    def end(self, title: str, lines: list[str]) -> None:
        self.line("")
        self.line(title)
        for text in lines:
            self.line(f"  {text}")

    def status(self, text: str) -> None:
        if not self.out.isatty():
            return  # a log or a pipe keeps only the lines, not every countdown tick
        self.out.write("\r\033[2K" + text)
        self.out.flush()
        self._status_shown = True

    def clear(self) -> None:
        self._status_shown = False
        if not self.out.isatty():
            return
        self.out.write(CLEAR)
        self.out.flush()

    def _end_status(self) -> None:
        if self._status_shown:
            self.out.write("\n")
            self.out.flush()
            self._status_shown = False


def _normalise(char: str) -> str:
    if char in {"\r", "\n"}:
        return ENTER
    if char in {"\x7f", "\b"}:
        return BACKSPACE
    if char == "\x03":
        return INTERRUPT
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
