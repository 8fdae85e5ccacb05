"""A game at the table runs in a child process; this parent outlives it and cleans up.

A game stopped by a key or a stop signal wipes its secret, restores the terminal and
writes «aborted» itself.  A game that crashes (an uncaught error, a native fault) or
is killed (``kill -9``) cannot: its screen stays as it was, night secret included,
the terminal stays in its full-screen modes, and its speech engines are orphans.
So ``narrator play`` and ``narrator resume`` fork before the game starts; the parent
only waits.  When the child dies by a signal or with an exit code that no normal end
gives, the parent takes the terminal back (leaves the alternate screen, switches off
the modes the full screen sets, clears the screen and its scroll-back, restores the
terminal settings it saved), kills and reaps every process the game left behind (it
is their "subreaper", so they become its children whatever session they started),
and prints one line saying how to go on (``after_crash``).

The parent stays in the child's process group, so the terminal's own signals (Ctrl-C,
a hang-up) reach the child as they always did, and the parent does not pass those on
again; a signal a program sends to the parent (``kill PID``) is passed on to the child,
whose stop then runs as usual, and the parent goes on waiting.  Exit codes pass through;
a death by signal N exits 128 + N, as a shell says it.

Only the standard library's small parts are imported here: the parent must start fast.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable

# The exit codes of a child that ended as it meant to: a game's end (0), a usage
# error (2), Ctrl-C (130) and the stop signals of ``narrator.ports.STOP_SIGNALS``
# (128 + N; tests/test_supervise.py checks that the two lists agree).
ENDED = frozenset({0, 2, 128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGHUP})
# Signals sent to the parent that are meant for the game.
PASSED_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
REAP_S = 3.0  # how long the parent waits for killed leftovers to be reaped
STOP_S = 10.0  # how long a game has to end after a stop signal reached it

# The terminal modes the full screen (textual) and the text host switch on, switched off:
# cancel a sequence cut short, leave the alternate screen, mouse reports, focus reports,
# bracketed paste, in-band resize and the keyboard protocol off, line wrap, normal
# colours, normal cursor and keypad keys, the cursor shown; then the screen and its
# scroll-back cleared and the cursor home.
RESET = (
    "\x18\x1b[?1049l"
    "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?1016l\x1b[?1004l"
    "\x1b[?2004l\x1b[?2048l\x1b[<u"
    "\x1b[?7h\x1b[0m\x1b[?1l\x1b>\x1b[?25h"
    "\x1b[H\x1b[2J\x1b[3J"
)
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36  # linux/prctl.h


def supervised(game: Callable[[], int], after_crash: Callable[[float], str]) -> int:
    """``game()`` in a child process; its exit code.  In the child this returns what
    ``game()`` returns (or raises what it raises), as if there were no parent.

    After a crash the parent prints ``after_crash(started)`` (``started``: the
    ``time.time()`` the child began at) on stderr.  Where there is no ``fork``
    the game runs in this process.
    """
    if not hasattr(os, "fork"):
        return game()
    watched = {*PASSED_ON, signal.SIGCHLD}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, watched)  # taken by sigwaitinfo
    saved = _terminal_settings()
    _adopt_orphans()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()  # nothing printed so far is printed twice
    started, parent = time.time(), os.getpid()
    child = os.fork()
    if child == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        _stop_with(parent)
        return game()
    # The signals stay blocked in the parent to its end: a Ctrl-C meant for the game,
    # still pending, must not stop the parent as it leaves.
    status = _wait(child)
    code = os.waitstatus_to_exitcode(status)
    crashed = code < 0 or code not in ENDED
    if crashed:
        _restore_terminal(saved)
    _reap_leftovers()
    if crashed:
        with contextlib.suppress(Exception):
            print(after_crash(started), file=sys.stderr, flush=True)
    return 128 - code if code < 0 else code


def _wait(child: int) -> int:
    """Wait for ``child`` to end, passing on the signals sent to this process; its status.

    A child still there ``STOP_S`` after a stop signal reached it is killed (and so
    cleaned up after as a crash): a stop always ends the program.
    """
    watched = {*PASSED_ON, signal.SIGCHLD}
    deadline: float | None = None
    while True:
        if deadline is None:
            info = signal.sigwaitinfo(watched)
        else:
            left = deadline - time.monotonic()
            found = signal.sigtimedwait(watched, left) if left > 0 else None
            if found is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGKILL)
                deadline = None
                continue
            info = found
        if info.si_signo == signal.SIGCHLD:
            done, status = os.waitpid(child, os.WNOHANG)
            if done:
                return status
            continue
        if info.si_code <= 0:  # sent by a program; the terminal's own (si_code > 0)
            with contextlib.suppress(ProcessLookupError):  # reach the child by themselves
                os.kill(child, info.si_signo)
        if deadline is None:
            deadline = time.monotonic() + STOP_S


def _terminal_settings() -> list[int | list[bytes | int]] | None:
    """The terminal's settings now (before the game changes them), when input is one."""
    try:
        import termios

        return termios.tcgetattr(0) if os.isatty(0) else None
    except (ImportError, OSError):
        return None


def _restore_terminal(saved: list[int | list[bytes | int]] | None) -> None:
    """The terminal as before the game, its screen and scroll-back empty (a night's secret
    may be on it); keys typed at the dead game are dropped, not left for the shell."""
    written: set[int] = set()
    for fd in (2, 1):
        with contextlib.suppress(OSError):
            if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
                continue  # not a terminal, or not ours (run in the background)
            device = os.fstat(fd).st_rdev
            if device not in written:
                written.add(device)
                os.write(fd, RESET.encode())
    if saved is None:
        return
    with contextlib.suppress(ImportError, OSError):
        import termios

        if os.tcgetpgrp(0) == os.getpgrp():
            termios.tcsetattr(0, termios.TCSAFLUSH, saved)


def _adopt_orphans() -> None:
    """Linux: the processes the game leaves behind become this process's children."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _stop_with(parent: int) -> None:
    """Linux: when the parent is killed (``kill -9`` of the ``narrator`` a shell started),
    the game gets SIGTERM and stops as it does on one: its secret wiped, «aborted»
    written.  (Nothing is left to clean up after it otherwise.)"""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # it died before that was asked
        os.kill(os.getpid(), signal.SIGTERM)


def _reap_leftovers() -> None:
    """Kill and reap every child left (speech engines of the dead game, in any session)."""
    deadline = time.monotonic() + REAP_S
    while True:
        try:
            done, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # none left
        if done:
            continue
        for pid in _children():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _children() -> list[int]:
    """This process's children, from /proc (empty where there is none)."""
    me = os.getpid()
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read(1024).rsplit(b")", 1)[1].split()
                if int(fields[1]) == me:  # after the name: state, then the parent's id
                    found.append(int(entry.name))
    return found
