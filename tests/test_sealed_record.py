"""The sealed game record (narrator.host.journal): nothing readable before the end.

Real games in real processes: a peeking "player" thread opens every file the
program writes (records, keys, settings, speech cache, narration) again and
again while the game runs. Then the record's other promises: a size that is a
whole number of frames and the same for every deal, a readable prefix after
``kill -9``, a tampered frame refused, and a record folder that fails mid-game
costing one warning and nothing of the game. No timing is asserted: the polls
below only wait for a state, with a generous hang detector.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from narrator import demo as demo_module
from narrator.demo import render_offline
from narrator.host.demo import DemoKeys
from narrator.host.journal import FRAME_BYTES
from narrator.host.journal import SEALED
from narrator.host.journal import Journal
from narrator.host.journal import read_journal
from narrator.host.journal import record_stop
from narrator.host.journal import unfinished_records
from narrator.host.journal import unseal
from narrator.host.table import GameStopped
from narrator.host.terminal import Terminal
from narrator.ports import Clock
from narrator.prepared import prepare
from narrator.prepared import stream
from narrator.rules.core import Deal
from narrator.rules.errors import ConfigError
from narrator.rules.phases import night
from narrator.rules.prompts import Prompt
from narrator.settings import TableSettings
from narrator.sound.clip import Clip
from narrator.voice.catalog import load_catalog
from tests.harness import game_process

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 180  # a hang detector, never a speed target
WARNING = "The game record stopped: its folder is gone"  # on the screen (screen.record_cut)
BOOT = (
    "import resource, runpy, signal, sys; "
    "limit = int(sys.argv.pop(1)); "
    "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
    "limit and resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)); "
    "sys.argv = ['narrator', *sys.argv[1:]]; runpy.run_module('narrator.cli', run_name='__main__')"
)  # fmt: skip


# --- a table in a private home ---------------------------------------------------------------


class Home:
    """A temporary user: HOME and every XDG folder, the record folder beside them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.records = root / "records"
        self.state = self.home / ".local" / "state"
        self.keys = self.state / "narrator" / "keys"
        self.home.mkdir(parents=True)

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.state),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
        }

    def argv(self, command: str, *args: str, limit: int = 0) -> list[str]:
        return [sys.executable, "-c", BOOT, str(limit), command, "onenight", *args]

    def play(self, *args: str, lang: str = "ru", window: str = "1") -> subprocess.Popen[str]:
        """A demo game of the text host, printed only; its output goes to files."""
        argv = self.argv("play", *table_args(self.records, lang, window), *args)
        with (self.root / "out.txt").open("w") as out, (self.root / "err.txt").open("w") as err:
            return subprocess.Popen(
                argv, cwd=ROOT, env=self.env(), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                text=True,
            )  # fmt: skip

    def output(self) -> tuple[str, str]:
        return (self.root / "out.txt").read_text("utf-8"), (self.root / "err.txt").read_text(
            "utf-8"
        )

    def sealed(self) -> Path | None:
        found = unfinished_records(self.records)
        return found[0] if found else None

    def plain(self) -> Path:
        (path,) = self.records.glob("*.jsonl")
        return path


def table_args(records: Path, lang: str, window: str) -> list[str]:
    return [
        "--demo", "--silent", "--text", "--players", "5", "--lang", lang, "--seed", "3",
        "--window", window, "--discussion", "1", "--answer-time", "1",
        "--record-dir", str(records),
    ]  # fmt: skip


def wait_for(what: str, check: Any, child: subprocess.Popen[str] | None = None) -> Any:
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        if child is not None and child.poll() is not None:
            raise AssertionError(f"the game ended before {what}")
        time.sleep(0.05)
    raise AssertionError(f"no {what} after {HANG_S} s")


def finished(child: subprocess.Popen[str]) -> int:
    return child.wait(timeout=HANG_S)


# --- the peeking player ----------------------------------------------------------------------


class Peeker(threading.Thread):
    """Reads every file under ``roots`` over and over until the game's plain record appears.

    What it read is kept (each distinct content once), to be searched once the
    game's end says what was secret.
    """

    def __init__(self, roots: list[Path], records: Path) -> None:
        super().__init__(daemon=True)
        self.roots, self.records = roots, records
        self.seen: dict[bytes, Path] = {}
        self.passes = 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            files = [path for root in self.roots for path in _files(root)]
            # The end: what is listed now came before it. The plain record is written beside
            # its place first (.<name>.jsonl.part), after the winner is announced.
            if any(self.records.glob("*.jsonl")) or any(self.records.glob(".*.jsonl.part")):
                return
            for path in files:
                try:
                    data = path.read_bytes()
                except OSError:
                    continue  # removed meanwhile
                self.seen.setdefault(data, path)
            self.passes += 1
            time.sleep(0.02)

    def sealed_seen(self) -> bool:
        return any(p.suffix == SEALED and len(d) >= FRAME_BYTES for d, p in self.seen.items())

    def found(self, needles: set[str]) -> list[tuple[str, Path]]:
        hits = []
        for data, path in self.seen.items():
            for needle in needles:
                if any(form in data for form in _forms(needle)):
                    hits.append((needle, path))
        return hits


def _files(root: Path) -> Iterator[Path]:
    for folder, _dirs, names in os.walk(root):
        for name in names:
            yield Path(folder) / name


def _forms(text: str) -> set[bytes]:
    return {form.encode("utf-8") for form in (text, text.lower(), text.capitalize(), text.title())}


def secrets_of(events: list[dict[str, Any]], lang: str) -> tuple[set[str], set[str]]:
    """Every role id of the deal, their names in ``lang``, and every secret shown."""
    deal = events[0]["deal"]
    roles = set(deal["seats"]) | set(deal["center"])
    catalog = load_catalog(lang)
    names = {catalog.text(f"role.{role}") for role in roles}
    shown = {e["shown"] for e in events if e["event"] == "secret"}
    return roles | shown, names


# --- 1. sealed while the game runs, plain at its end -----------------------------------------


def test_a_peeking_player_reads_nothing_secret_until_the_end(tmp_path: Path) -> None:
    home = Home(tmp_path)
    child = home.play()
    peeker = Peeker([home.records, home.home], home.records)
    peeker.start()
    try:
        assert finished(child) == 0, home.output()[1]
    finally:
        peeker.halt.set()
        peeker.join(HANG_S)
    events = read_journal(home.plain())
    assert events[-1]["event"] == "end"
    hidden, names = secrets_of(events, "ru")
    assert peeker.sealed_seen(), "the peeker never saw the sealed record"
    keys = (".key", ".key.part")  # a key is written beside its place, then moved there
    assert any(path.name.endswith(keys) for path in peeker.seen.values()), "nor its key"
    assert peeker.found(hidden | names) == []
    text = home.plain().read_text("utf-8")
    assert all(secret in text for secret in hidden)  # the group reads everything afterwards
    assert {int(seat) for seat in events[-1]["reveal"]} == set(range(1, 6))
    assert home.sealed() is None and not list(home.records.glob(f"*{SEALED}"))
    assert list(home.keys.iterdir()) == []  # the key went with the sealed record


def test_the_speech_cache_and_the_narration_say_nothing_secret(tmp_path: Path) -> None:
    """A spoken demo (real espeak-ng): the cache and the narration grow while it plays."""
    home = Home(tmp_path)
    narration = home.home / "narration.ogg"
    argv = home.argv(
        "demo", "--players", "3", "--lang", "en", "--seed", "2", "--output", str(narration),
        "--record-dir", str(home.records),
    )  # fmt: skip
    peeker = Peeker([home.records, home.home], home.records)
    peeker.start()
    try:
        done = subprocess.run(
            argv, cwd=ROOT, env=home.env(), capture_output=True, text=True, timeout=HANG_S,
            check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    finally:
        peeker.halt.set()
        peeker.join(HANG_S)
    assert done.returncode == 0, done.stderr
    events = read_journal(home.plain())
    hidden, names = secrets_of(events, "en")
    cache = [path for path in peeker.seen.values() if ".cache" in path.parts]
    assert cache, "the peeker saw no speech cache"
    assert peeker.found(hidden | names) == []


# --- 2. the files say nothing by their size ---------------------------------------------------


class EvenSpeech:
    """Every line half a second long, whatever it says: the timeline is the public script."""

    def clip(self, key: str, text: str) -> Clip:
        return Clip(np.zeros((11025, 1), dtype=np.float32), 22050)


class StopAtDawn:
    """Demo players who stop the game at the first day question: one moment for any deal."""

    def __init__(self, keys: DemoKeys) -> None:
        self.keys = keys

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        if prompt is not None and prompt.id.startswith("d1."):
            raise GameStopped()
        self.keys.expect(prompt)

    def read(self, timeout: float) -> Any:
        return self.keys.read(timeout)


def test_two_deals_with_one_public_timeline_leave_sealed_records_of_one_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    def stopping(seed: int, clock: Clock) -> StopAtDawn:
        return StopAtDawn(DemoKeys(stream(seed, "demo"), clock))

    monkeypatch.setattr(demo_module, "demo_keys", stopping)
    settings = TableSettings(
        game="onenight", players=3, lang="en", seed=5, answer_s=1.0, demo=True,
        options={"window_s": 1.0, "discussion_s": 1.0}, voice="auto",
    )  # fmt: skip
    first = prepare(settings).deal
    second = Deal(first.seats[1:] + first.seats[:1], first.center)
    assert first.seats != second.seats
    records = []
    for number, deal in enumerate((first, second)):
        chosen = settings.model_copy(update={"record_dir": tmp_path / f"records{number}"})
        screen = Terminal(out=io.StringIO())
        rendered = render_offline(chosen, replace(prepare(chosen), deal=deal), EvenSpeech(), screen)
        assert rendered.code == 130
        (path,) = unfinished_records(tmp_path / f"records{number}")
        records.append(path)
    sizes = [path.stat().st_size for path in records]
    assert sizes[0] == sizes[1] and sizes[0] % FRAME_BYTES == 0, sizes
    starts = [read_journal(path)[0]["deal"]["seats"] for path in records]
    assert starts == [list(first.seats), list(second.seats)]
    assert [read_journal(path)[-1]["event"] for path in records] == ["aborted", "aborted"]


class HandClock:
    """A game clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def write(folder: Path, keys: Path, events: list[dict[str, Any]], seconds: float) -> Path:
    clock = HandClock()
    journal = Journal(folder, "toy", clock=clock, keys=keys)
    for event in events:
        journal.append(event)
    clock.now = seconds
    journal.close()
    return journal.path


def test_frames_follow_the_clock_not_the_events(tmp_path: Path) -> None:
    noise = base64.b64encode(os.urandom(3000)).decode("ascii")  # spills over several frames
    plain: list[dict[str, Any]] = [
        {"event": "start", "deal": ["villager"]},
        {"event": "say", "text": "Night."},
    ]
    busy: list[dict[str, Any]] = [
        {"event": "start", "deal": ["werewolf"] * 12},
        *({"event": "secret", "shown": noise[: 40 * n]} for n in range(20)),
        {"event": "answer", "input": noise},
    ]
    paths = [write(tmp_path / name, tmp_path / "keys", events, 10.0)
             for name, events in (("a", plain), ("b", busy))]  # fmt: skip
    sizes = [path.stat().st_size for path in paths]
    assert sizes == [22 * FRAME_BYTES] * 2  # a frame at 0, 0.5, ... 10 s and the closing one
    assert read_journal(paths[1], tmp_path / "keys") == busy  # closed: no "lost" mark
    # more than the frames of its time can hold: nothing is dropped, the closing frames follow
    flood = [{"event": "answer", "input": base64.b64encode(os.urandom(30_000)).decode()}]
    path = write(tmp_path / "c", tmp_path / "keys", flood, 1.0)
    assert path.stat().st_size > 3 * FRAME_BYTES and path.stat().st_size % FRAME_BYTES == 0
    assert read_journal(path, tmp_path / "keys") == flood


# --- 3. reading for resume: killed, truncated, tampered ---------------------------------------


def test_a_killed_game_leaves_a_readable_sealed_prefix(tmp_path: Path) -> None:
    home = Home(tmp_path)
    child = home.play(window="30")

    def night_has_begun() -> list[dict[str, Any]] | None:
        path = home.sealed()
        if path is None or not (home.keys / f"{path.stem}.key").exists():
            return None
        events = read_journal(path, home.keys)  # read live, as resume would after a crash
        return events if any(e["event"] == "window" for e in events) else None

    try:
        wait_for("night window in the live record", night_has_begun, child)
        os.kill(game_process(child.pid), signal.SIGKILL)  # the game, not its parent
        assert finished(child) == 128 + signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    path = home.sealed()
    assert path is not None and unfinished_records(home.records) == [path]
    data = path.read_bytes()
    assert len(data) % FRAME_BYTES == 0 and len(data) >= FRAME_BYTES
    events = read_journal(path, home.keys)
    assert events[0]["event"] == "start" and events[0]["game"] == "onenight"
    assert any(e["event"] == "window" for e in events)
    stop = record_stop(events)
    assert stop is not None and stop.phase == night(1)
    assert stop.t is not None and stop.t > 0

    torn = path.with_name(f"torn-{path.name}")  # killed in the middle of a frame
    torn.write_bytes(data + data[-FRAME_BYTES // 2 :])
    shutil.copy(home.keys / f"{path.stem}.key", home.keys / f"{torn.stem}.key")
    assert read_journal(torn, home.keys) == events
    torn.write_bytes(data + bytes(FRAME_BYTES))  # a power cut: the last frame never landed
    assert read_journal(torn, home.keys) == events

    tampered = bytearray(data)
    tampered[FRAME_BYTES + 100] ^= 0x01  # one bit of the second frame
    torn.write_bytes(bytes(tampered))
    with pytest.raises(ConfigError, match=r"frame 2 .* altered"):
        read_journal(torn, home.keys)
    (home.keys / f"{torn.stem}.key").unlink()
    with pytest.raises(ConfigError, match=r"key .* is missing"):
        read_journal(torn, home.keys)


def test_records_are_listed_newest_first_and_unsealed_when_their_game_ended(
    tmp_path: Path,
) -> None:
    keys = tmp_path / "keys"
    older = write(tmp_path, keys, [{"event": "start"}, {"event": "aborted", "phase": "n1"}], 1)
    ended = write(tmp_path, keys, [{"event": "start"}, {"event": "end", "winner": "x"}], 1)
    assert unfinished_records(tmp_path) == [ended, older]
    with pytest.raises(ConfigError, match="has not ended"):
        unseal(older, keys)
    plain = unseal(ended, keys)
    assert read_journal(plain) == [{"event": "start"}, {"event": "end", "winner": "x"}]
    assert unfinished_records(tmp_path) == [older]
    assert [path.name for path in keys.iterdir()] == [f"{older.stem}.key"]
    assert unfinished_records(tmp_path / "nowhere") == []


def test_a_key_is_moved_into_place_whole_and_a_killed_writers_part_is_forgotten(
    tmp_path: Path,
) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    stale, fresh = keys / ".old-toy.key.part", keys / ".new-toy.key.part"
    stale.write_text('{"format": 1, "ke')  # a writer killed mid-key, long ago
    fresh.write_text('{"format": 1, "ke')  # another narrator writing its key right now
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    record = write(tmp_path, keys, [{"event": "start"}], 1)
    assert sorted(path.name for path in keys.iterdir()) == [fresh.name, f"{record.stem}.key"]
    assert read_journal(record, keys)[0] == {"event": "start"}


# --- 4. a record folder that fails mid-game ---------------------------------------------------


def test_a_record_folder_removed_mid_game_costs_one_warning(tmp_path: Path) -> None:
    home = Home(tmp_path)
    child = home.play("--lang", "en")
    try:
        path = wait_for("sealed record", home.sealed, child)
        wait_for("second frame", lambda: path.stat().st_size >= 2 * FRAME_BYTES, child)
        shutil.rmtree(home.records)
        assert finished(child) == 0, home.output()[1]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    out, err = home.output()
    assert "Traceback" not in err, err
    assert sum(line.startswith(WARNING) for line in out.splitlines()) == 1, out
    assert "Result:" in out  # the game went on to its end
    assert not home.records.exists()
    assert list(home.keys.iterdir()) == []  # the key of a record that is gone is gone too


def test_a_record_that_hits_the_file_size_limit_is_told_once_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    """RLIMIT_FSIZE: every file may grow to 6000 bytes only: the sealed one fills first, the
    plain one cannot be written whole at the end; the game goes on to its end all the same,
    and no half record, sealed record or key is left (tests/test_disk_faults.py: a real
    full disk)."""
    home = Home(tmp_path)
    argv = home.argv("play", *table_args(home.records, "en", "1"), limit=6000)
    done = subprocess.run(
        argv, cwd=ROOT, env=home.env(), capture_output=True, text=True, timeout=HANG_S,
        check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(line.startswith("The game record stopped:") for line in lines) == 1, done.stdout
    assert "Result:" in done.stdout
    assert sum(line.startswith("The game record was not saved:") for line in lines) == 1
    assert list(home.records.iterdir()) == []
    assert list(home.keys.iterdir()) == []
    assert unfinished_records(home.records) == []  # its game ended: nothing to resume
