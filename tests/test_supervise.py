"""The parent that outlives a game (narrator.supervise), with a tiny game in a real terminal.

The tiny game does what the full screen and the text host do to a terminal: it
prints a secret that scrolls into the scroll-back, switches keys to raw mode,
enters the alternate screen with mouse reports and bracketed paste on, and
writes a second secret there; it starts a "speech engine" (``sleep``) in a
session of its own, as Festival is started.  Then it is killed, crashes, or is
stopped.  tmux shows what a player would see: the pane and its scroll-back
(``capture-pane -S -``), and ``stty`` run by the shell after the program.
"""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest

from narrator import supervise
from narrator.ports import STOP_SIGNALS
from tests.support import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

ROOT = Path(__file__).resolve().parent.parent
WAIT_S = 60.0  # the longest wait for one thing to appear on the pane
SECRETS = ("SCROLLED-SECRET", "ALTERNATE-SECRET", "TRACEBACK-SECRET")
CRASHED = "CRASH-LINE: narrator resume"

GAME = """
import os, signal, subprocess, sys, time, tty
from pathlib import Path
from narrator.supervise import supervised

how, folder = sys.argv[1], Path(sys.argv[2])

def stop(signum, frame):
    print("\\x1b[?1049l\\x1b[?25hWIPED", flush=True)
    if how == "hang":  # a game whose stop never ends (a thread it waits for)
        while True:
            time.sleep(1)
    raise SystemExit(128 + signum)

def game() -> int:
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    engine = subprocess.Popen(["sleep", "600"], start_new_session=True)
    (folder / "pids").write_text(f"{os.getpid()} {engine.pid}")
    for n in range(60):
        print(f"SCROLLED-SECRET {n}")
    print("FAREWELL-KEPT")
    if how == "exit":
        return int(sys.argv[3])
    if how != "ctrl-c":
        tty.setraw(0)
    sys.stdout.write("\\x1b[?1049h\\x1b[?1000h\\x1b[?2004h\\x1b[?25l\\x1b[5;5HALTERNATE-SECRET")
    sys.stdout.flush()
    (folder / "ready").touch()
    try:
        if how == "raise":
            while not (folder / "go").exists():
                time.sleep(0.05)
            raise RuntimeError("TRACEBACK-SECRET")
        time.sleep(600)
    except KeyboardInterrupt:
        print("\\x1b[?1049lINTERRUPTED", flush=True)
        return 130
    return 0

sys.exit(supervised(game, lambda started: "CRASH-LINE: narrator resume"))
"""


SERVERS = itertools.count()


class Pane:
    """The tiny game in a detached tmux session, then the shell's ``stty``."""

    def __init__(self, folder: Path, how: str, *args: str) -> None:
        self.folder = folder
        # One server per pane, never a name used before: a server killed by the last
        # test may still be going down when the next one starts.
        socket = f"narrator-supervise-{os.getpid()}-{next(SERVERS)}"
        script = folder / "game.py"
        script.write_text(GAME, encoding="utf-8")
        words = [sys.executable, str(script), how, str(folder), *args]
        line = f"{shlex.join(words)}; echo EXIT=$?; stty -a; sleep 3600"
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color")
        self.tmux = Tmux(socket, env)
        self.tmux("new-session", "-d", "-s", "t", "-x", "80", "-y", "24", line)

    def history(self) -> str:
        """The pane with its whole scroll-back."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")

    def wait(self, what: str, test: Callable[[], bool]) -> None:
        deadline = time.monotonic() + WAIT_S
        while not test():
            assert time.monotonic() < deadline, f"waited for {what}:\n{self.history()}"
            time.sleep(0.05)

    def started(self) -> tuple[int, int]:
        """The game (the child) and its engine, once the secrets are on the pane."""
        self.wait("the game", (self.folder / "ready").exists)
        self.wait("the secret drawn", lambda: "ALTERNATE-SECRET" in self.history())
        game, engine = (self.folder / "pids").read_text().split()
        return int(game), int(engine)

    def parent(self) -> int:
        pids = [pid for pid in self.tmux.children("t") if not is_sleep(pid)]
        assert len(pids) == 1, f"the pane's shell has children {pids}"
        return pids[0]

    def ended(self) -> str:
        """The whole pane once the shell ran ``stty`` after the program."""
        self.wait("the program to end", lambda: "EXIT=" in self.history())
        self.wait("stty", lambda: "speed " in self.history())
        return self.history()

    def close(self) -> None:
        self.tmux.kill()


def is_sleep(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "sleep"
    except OSError:
        return False


def exists(pid: int) -> bool:
    """Whether ``pid`` is still a process, running or defunct (not reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.fixture
def panes(tmp_path: Path) -> Iterator[Callable[..., Pane]]:
    started: list[Pane] = []

    def start(how: str, *args: str) -> Pane:
        folder = tmp_path / f"p{len(started)}"
        folder.mkdir()
        started.append(Pane(folder, how, *args))
        return started[-1]

    try:
        yield start
    finally:
        for pane in started:
            pane.close()


def assert_clean(printed: str, code: int) -> None:
    """No secret on the pane or in its scroll-back, the crash line, the terminal's keys
    cooked again (the shell's ``stty`` shows echo and line editing)."""
    lines = [line.strip() for line in printed.splitlines() if line.strip()]
    for secret in SECRETS:
        assert secret not in printed, f"{secret} was left:\n{printed}"
    assert "FAREWELL-KEPT" not in printed, printed  # the whole scroll-back went
    assert f"EXIT={code}" in lines, printed
    assert lines.count(CRASHED) == 1, printed
    modes = printed.split()
    assert "echo" in modes and "icanon" in modes and "isig" in modes, printed


@pytest.mark.parametrize("how", ["SIGKILL", "SIGSEGV", "raise"])
def test_after_a_crash_the_terminal_is_clean_and_no_engine_is_left(
    panes: Callable[..., Pane], how: str
) -> None:
    """``kill -9`` of the game, a native crash (SIGSEGV) or an uncaught error: the parent
    clears the screen and scroll-back, restores the terminal, kills and reaps the
    engine the game started in another session, and says how to go on."""
    pane = panes("raise" if how == "raise" else "wait")
    game, engine = pane.started()
    assert exists(engine)
    if how == "raise":
        (pane.folder / "go").touch()
        code = 1
    else:
        os.kill(game, getattr(signal, how))
        code = 128 + getattr(signal, how)
    assert_clean(pane.ended(), code)
    assert not exists(engine), "the engine was left behind"
    assert not exists(game)


@pytest.mark.parametrize("how", ["SIGTERM", "SIGHUP", "ctrl-c"])
def test_a_stop_reaches_the_game_once_and_its_own_ending_stays(
    panes: Callable[..., Pane], how: str
) -> None:
    """A stop signal sent to the parent (``kill PID``) is passed on to the game; Ctrl-C
    from the terminal reaches the game as before (once, not passed on again). The game
    stops its own way, its last words stay, its exit code passes through; no crash line."""
    pane = panes("ctrl-c" if how == "ctrl-c" else "wait")
    game, _ = pane.started()
    parent = pane.parent()
    assert parent != game
    if how == "ctrl-c":
        pane.tmux("send-keys", "-t", "t", "C-c")
        code, said = 130, "INTERRUPTED"
    else:
        signum = getattr(signal, how)
        code, said = 128 + signum, "WIPED"
        os.kill(parent, signum)
    printed = pane.ended()
    lines = [line.strip() for line in printed.splitlines() if line.strip()]
    assert lines.count(said) == 1, printed
    assert f"EXIT={code}" in lines, printed
    assert "FAREWELL-KEPT" in printed and CRASHED not in printed, printed
    assert not exists(game)


def test_a_killed_parent_stops_the_game_its_own_way(panes: Callable[..., Pane]) -> None:
    """``kill -9`` of the ``narrator`` the shell started (the parent): the game is told to
    stop (SIGTERM) and wipes its secret itself; it does not play on, orphaned."""
    pane = panes("wait")
    game, _ = pane.started()
    os.kill(pane.parent(), signal.SIGKILL)
    pane.wait("the game to stop", lambda: "WIPED" in pane.history())
    pane.wait("the game to end", lambda: not exists(game))
    assert "ALTERNATE-SECRET" not in pane.tmux("capture-pane", "-p", "-t", "t")


def test_a_game_that_does_not_end_after_a_stop_is_killed_and_cleaned_up(
    panes: Callable[..., Pane],
) -> None:
    """SIGTERM reached the game, which wiped its secret but never ends: after
    ``STOP_S`` the parent kills it and cleans up as after a crash; no engine is left."""
    pane = panes("hang")
    game, engine = pane.started()
    os.kill(pane.parent(), signal.SIGTERM)
    assert_clean(pane.ended(), 128 + signal.SIGKILL)
    assert not exists(engine) and not exists(game)


@pytest.mark.parametrize(("code", "crash"), [(0, False), (2, False), (130, False), (7, True)])
def test_exit_codes_pass_through(tmp_path: Path, code: int, crash: bool) -> None:
    """The game's exit code is the program's; one that no normal end gives is a crash."""
    script = tmp_path / "game.py"
    script.write_text(GAME, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), "exit", str(tmp_path), str(code)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == code, done.stderr
    assert (CRASHED in done.stderr) == crash, done.stderr
    assert done.stdout.count("FAREWELL-KEPT") == 1  # nothing printed twice by the fork


def test_the_ends_of_a_stop_are_not_crashes() -> None:
    """The stop signals the game handles (narrator.ports) end as the supervisor expects."""
    stopped = {128 + getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)}
    assert stopped <= supervise.ENDED


def test_a_crash_before_any_deal_offers_nothing_to_continue(tmp_path: Path) -> None:
    """No game of this run in the record folder: the line says so, in the game's language."""
    from narrator.cli import _parser
    from narrator.cli import after_crash
    from narrator.voice.catalog import load_catalog

    args = _parser().parse_args(["play", "onenight", "--lang", "en", "--record-dir", str(tmp_path)])
    said = after_crash(args, time.time())
    assert said == load_catalog("en").text("supervise.crashed_no_game")


def test_a_wrong_argument_is_said_once_by_one_process(tmp_path: Path) -> None:
    """Arguments are read before the game's process starts; a wrong game is said by it."""
    for args in (["play", "onenight", "--players", "x"], ["play", "nosuchgame"]):
        done = subprocess.run(
            [sys.executable, "-m", "narrator.cli", *args, "--record-dir", str(tmp_path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr and CRASHED not in done.stderr
