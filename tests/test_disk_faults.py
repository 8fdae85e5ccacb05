"""A full or read-only disk never loses the game: real small file systems, real games.

Each disk here is a tmpfs of a few pages mounted for the test (or remounted read-only):
a real ENOSPC and a real EROFS, not a mock. Without the right to mount (not root, no
CAP_SYS_ADMIN) the tests are skipped and say why. The games are demo games of the
``--text`` host in their own process and the full-screen table driven by textual's
pilot on the virtual clock (``tests.lockstep``): nothing depends on the machine's speed.

What the table must see: the game goes on; the reason the record is not kept is on
the screen at once, in words; the end names only a file that is there and whole; and
nothing is left behind: no empty or half-written record, key, part or picture, no key
of a game that has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from narrator.host.journal import FRAME_BYTES
from narrator.host.journal import PLAIN
from narrator.host.journal import SEALED
from narrator.host.journal import Journal
from narrator.host.journal import read_journal
from narrator.host.journal import record_stop
from narrator.voice.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 300  # a hang detector, never a speed target
PAGE = 4096  # tmpfs counts whole pages


class Disk:
    """A tmpfs of ``size`` bytes at ``root``; ``fill`` leaves it full, ``read_only`` so."""

    def __init__(self, root: Path, size: int) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(root)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs for a real full disk: {done.stderr.strip()}")

    def fill(self) -> None:
        """Every free byte taken: the next write gets ENOSPC."""
        fd = os.open(self.root / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * PAGE):
                    pass
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0"):
                    pass
        finally:
            os.close(fd)

    def read_only(self) -> None:
        done = subprocess.run(
            ["mount", "-o", "remount,ro", str(self.root)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr

    def files(self) -> list[str]:
        """Every file on the disk but the filler, by its path under the disk."""
        return sorted(
            str(Path(folder, name).relative_to(self.root))
            for folder, _, names in os.walk(self.root)
            for name in names
            if name != "filler"
        )

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.root)], capture_output=True, check=False)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Any]:
    made: list[Disk] = []

    def make(size: int, name: str = "disk") -> Disk:
        made.append(Disk(tmp_path / name, size))
        return made[-1]

    yield make
    for one in made:
        one.unmount()


def texts(lang: str) -> Any:
    catalog = load_catalog(lang)
    return catalog.word


def demo_game(records: Path, state: Path, lang: str = "en") -> subprocess.CompletedProcess[str]:
    """A whole demo game of the text host in its own process, printed only."""
    argv = [
        sys.executable, "-m", "narrator.cli", "play", "onenight", "--demo", "--silent",
        "--text", "--players", "5", "--lang", lang, "--seed", "3", "--window", "1",
        "--discussion", "1", "--answer-time", "1", "--record-dir", str(records),
    ]  # fmt: skip
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    return subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG_S,
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip


# --- the text host -----------------------------------------------------------------------------


def test_a_full_home_at_the_start_plays_the_game_and_says_so_at_once(disk: Any) -> None:
    """Record and key folders on a full disk: the game is played to its end, the first
    line says the record is not kept and why, the end says it was not saved, and the
    disk holds nothing of it (no empty key part, no empty record)."""
    home = disk(16 * PAGE)
    (home.root / "state").mkdir()
    home.fill()
    t = texts("en")
    done = demo_game(home.root / "records", home.root / "state")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    off = t("screen.record_off", reason=t("screen.record_full"))
    assert off in lines, done.stdout
    first_said = next(i for i, line in enumerate(lines) if line.startswith("» "))
    assert lines.index(off) < first_said  # at once: before the game's first line
    assert "Result:" in done.stdout  # the game went on to its end
    assert lines.count(off) == 1
    assert t("screen.record_unsaved", reason=t("screen.record_full")) in lines
    assert not any(line.startswith("Game record:") for line in lines)
    assert home.files() == []


def test_a_record_folder_that_fills_mid_game_leaves_one_whole_plain_record(
    disk: Any, tmp_path: Path
) -> None:
    """The sealed record fills the disk during the game; at the end the plain record is
    written whole from memory (the sealed one made room for it), the end names it, and
    no sealed record, key, part or half picture is left."""
    records = disk(4 * PAGE)
    state = tmp_path / "state"
    t = texts("en")
    done = demo_game(records.root, state)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    cut = t("screen.record_cut", reason=t("screen.record_full"))
    assert lines.count(cut) == 1, done.stdout
    assert "Result:" in done.stdout
    (plain,) = records.root.glob(f"*{PLAIN}")
    assert f"Game record: {plain}" in lines  # the end names the file that is there
    assert not any(SEALED in line for line in lines)
    events = read_journal(plain)
    assert events[0]["event"] == "start" and events[-1]["event"] == "end"  # whole
    assert record_stop(events) is None
    names = records.files()
    assert names in ([plain.name], [plain.name, plain.with_suffix(".svg").name]), names
    if len(names) == 2:  # a picture is there only whole
        assert plain.with_suffix(".svg").read_text("utf-8").rstrip().endswith("</svg>")
    assert list((state / "narrator" / "keys").iterdir()) == []


def test_a_read_only_record_folder_plays_the_game_and_says_so(disk: Any, tmp_path: Path) -> None:
    records = disk(4 * PAGE)
    records.read_only()
    t = texts("ru")
    done = demo_game(records.root, tmp_path / "state", lang="ru")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert t("screen.record_off", reason=t("screen.record_read_only")) in lines, done.stdout
    assert "Итог:" in done.stdout or "Result:" in done.stdout
    assert t("screen.record_unsaved", reason=t("screen.record_read_only")) in lines
    assert records.files() == []


# --- the journal on a disk that fills ------------------------------------------------------------


def test_a_key_that_does_not_fit_leaves_nothing(disk: Any) -> None:
    keys = disk(PAGE, "state")
    keys.fill()
    records = keys.root.parent / "records"
    with pytest.raises(OSError) as raised:
        Journal(records, "toy", keys=keys.root / "keys")
    assert raised.value.errno == errno.ENOSPC
    assert keys.files() == []  # no empty .key.part
    assert list(records.iterdir()) == []  # and no sealed record without its key


def test_a_plain_record_that_does_not_fit_leaves_nothing(disk: Any, tmp_path: Path) -> None:
    """A game that ended on a disk too small even for its plain record: the sealed record
    (cut back to whole frames while it played) and its key go, no half plain record stays."""
    records = disk(2 * PAGE)
    keys = tmp_path / "keys"
    clock = [0.0]
    journal = Journal(records.root, "toy", clock=lambda: clock[0], keys=keys)
    for step in range(40):  # frames due every half second: the disk fills
        try:  # the writer's thread may fill it before the game's last event: then it says so
            journal.append({"event": "say", "text": "x" * 200, "n": step})
        except OSError as error:
            assert error.errno == errno.ENOSPC
            break
        clock[0] += 0.5
    with contextlib.suppress(OSError):
        journal.close()
    (sealed,) = records.root.glob(f"*{SEALED}")
    assert sealed.stat().st_size % FRAME_BYTES == 0  # cut back to its whole frames
    assert record_stop(read_journal(sealed, keys)) is not None
    events = [{"event": "say", "text": "y" * 1000, "n": n} for n in range(20)]
    with pytest.raises(OSError) as raised:
        journal.finish([*events, {"event": "end", "winner": "x"}])
    assert raised.value.errno == errno.ENOSPC
    assert records.files() == []
    assert list(keys.iterdir()) == []


# --- the full screen -----------------------------------------------------------------------------


def test_the_full_screen_with_a_full_home_starts_the_game_and_says_why(
    disk: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settings, key and record folders on a full disk: «Начать» starts the game (not
    «Игра окончена»), the reason is on the screen before the first line, and after a stop
    the end says the record was not saved; nothing is left on the disk."""
    from narrator.app import table_app
    from narrator.prepared import prepare
    from narrator.screen.setup import SetupScreen
    from narrator.settings import TableSettings
    from tests.lockstep import Lockstep
    from tests.test_tui import until

    home = disk(16 * PAGE)
    (home.root / "state").mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(home.root / "state"))
    home.fill()
    settings = TableSettings(
        game="onenight", players=5, seed=3, record_dir=home.root / "records", silent=True
    )
    clock = Lockstep()
    app, _ = table_app(
        settings, prepare(settings), home.root / "config", clock=clock, offline=clock.output
    )
    t = texts("ru")
    off = t("screen.record_off", reason=t("screen.record_full"))

    async def main() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SetupScreen))
            await until(pilot, lambda: getattr(app.focused, "id", None) == "start")
            await pilot.press("enter")
            await until(pilot, lambda: app.finished or off in app.page_lines, 60)
            assert not app.finished, (app.error, app.page_lines)
            await until(pilot, lambda: any(k == "said" for k, _ in app.events[1:]), 60)
            await pilot.pause(0.2)
            rows = "".join(screen_text(app)).replace(" ", "")
            assert off.replace(" ", "") in rows, rows  # still on the screen, in the log
            await pilot.press("escape")
            await until(pilot, lambda: any("Прервать игру?" in x for x in app.page_lines), 60)
            await pilot.press("1")
            await until(pilot, lambda: app.finished, 60)
            await pilot.press("escape")

    try:
        asyncio.run(main())
    finally:
        clock.let_go()
    assert app.error is None, app.error
    shown = [value for kind, value in app.events if kind in {"said", "line"}]
    assert shown.index(off) <= 1, shown[:5]  # only «Готовлю игру…» before it
    assert shown.count(off) == 1
    assert t("screen.record_unsaved", reason=t("screen.record_full")) in (app.farewell or [])
    assert home.files() == []


def test_a_game_that_cannot_start_says_why_on_the_full_screen(tmp_path: Path) -> None:
    """The stopped game chosen on the set-up screen is gone when «Начать» is pressed: the
    screen says why there is no game, not only «Игра окончена» and the reason after it."""
    from textual.widgets import Select

    from narrator.host.journal import unfinished_records
    from narrator.settings import TableSettings
    from tests.test_resume import stopped_onenight
    from tests.test_tui import make_app
    from tests.test_tui import until

    records, _ = stopped_onenight(tmp_path)
    settings = TableSettings(game="halloween", record_dir=records, answer_s=5)
    app = make_app(settings, tmp_path / "config")
    t = texts("ru")

    async def main() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await until(pilot, lambda: bool(app.screen.query("#resume")))
            choice = app.screen.query_one("#resume", Select)
            await until(pilot, lambda: app.focused is choice)
            await pilot.press("2")
            (path,) = unfinished_records(records)
            await until(pilot, lambda: choice.value == str(path))
            path.unlink()  # another narrator finished it meanwhile
            await until(pilot, lambda: getattr(app.focused, "id", None) == "start")
            await pilot.press("enter")
            await until(pilot, lambda: app.finished)
            await pilot.pause(0.2)
            rows = "".join(screen_text(app)).replace(" ", "")
            failed = t("tui.failed", reason=app.error)
            assert failed in app.page_lines, app.page_lines
            assert failed.replace(" ", "") in rows, rows
            assert t("tui.leave_failed").replace(" ", "") in rows, rows
            assert t("tui.leave").replace(" ", "") not in rows, rows
            await pilot.press("escape")

    asyncio.run(main())
    assert app.error is not None


def screen_text(app: Any) -> list[str]:
    from tests.test_tui import screen_rows

    return [row.strip() for row in screen_rows(app)]


def test_a_record_that_fails_inside_a_night_window_is_told_after_it(disk: Any) -> None:
    """The write that finds the disk full may be an answer typed in a night window: the
    table is told after the window (whose end is at a fixed time), never at the moment of
    the answer, and only once."""
    import time

    from narrator.session import RecordSink
    from tests.harness import RecordingScreen

    records = disk(2 * PAGE)
    clock = [0.0]
    journal = Journal(records.root, "toy", clock=lambda: clock[0], keys=records.root / "keys")
    screen = RecordingScreen()
    sink = RecordSink(screen, load_catalog("en"))
    sink.journal = journal
    sink({"event": "start"})
    sink({"event": "window", "prompt": "n1.seer"})
    records.fill()
    clock[0] = 10.0  # twenty frames due: the writer meets the full disk
    deadline = time.monotonic() + HANG_S
    while sink.lost is None and time.monotonic() < deadline:
        sink({"event": "answer", "prompt": "n1.seer", "input": "3", "accepted": True})
        time.sleep(0.01)
    assert sink.lost is not None and sink.lost.errno == errno.ENOSPC
    assert screen.lines == []  # inside the window: not a word
    sink({"event": "window_end", "prompt": "n1.seer"})
    assert screen.lines == []  # its screen is wiped right after: still not
    sink({"event": "done", "kind": "window", "id": "n1.seer"})
    t = texts("en")
    assert screen.lines == [t("screen.record_cut", reason=t("screen.record_full"))]
    sink({"event": "say", "text": "Day"})
    assert len(screen.lines) == 1
    with contextlib.suppress(OSError):
        journal.close()
