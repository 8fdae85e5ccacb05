"""Hostile speech input: a user's pronunciation file that would expand
every line, or is nested 2,000 deep, is refused in one line; the caps on entries, on what
one entry says and on how long it may make a line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from narrator.files import BadFile
from narrator.voice import pronounce
from narrator.voice.pronounce import Pronunciation

# The caps as this code has them (read so, the test fails rather than errors on code without).
MAX_ENTRIES: int = getattr(pronounce, "MAX_ENTRIES", 2_000)
MAX_SAY: int = getattr(pronounce, "MAX_SAY", 80)

ROOT = Path(__file__).resolve().parent.parent
COMMON = ("the", "a", "player", "number", "night", "wakes", "up", "is", "of", "and", "to")
BUILD = ["voice", "build", "--lang", "en", "--variant", "onenight", "--voice", "espeak:gmw/en-us"]


def _cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``narrator ARGV`` in a process of its own with a fresh HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env |= {"HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "narrator.cli", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _user_file(home: Path, text: str) -> Path:
    path = home / ".config" / "narrator" / "pronunciation" / "en.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text, "utf-8")
    return path


def _one_line(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in lines[0]
    return lines[0]


def expanding_override() -> str:
    """About 126 KB: common words each said as a long text, and many long entries."""
    expanding = "".join(f'"{w}" = "{(w + " ") * 60}"\n' for w in COMMON)
    filler = "".join(f'"w{i}" = "{"long " * 20}"\n' for i in range(1200))
    return "[say]\n" + expanding + filler


def test_a_126_kb_expanding_override_is_refused_in_one_line(tmp_path: Path) -> None:
    text = expanding_override()
    assert len(text.encode()) > 120_000
    path = _user_file(tmp_path, text)
    line = _one_line(_cli(tmp_path, *BUILD), str(path), "characters")
    assert "en.toml:2" in line  # the first entry beyond the cap is named


def test_an_override_nested_2000_deep_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _user_file(tmp_path, "[say]\nthe = " + "[" * 2000 + "]" * 2000 + "\n")
    _one_line(_cli(tmp_path, *BUILD), str(path), "nested")


def test_a_named_pipe_as_override_is_refused_without_waiting(tmp_path: Path) -> None:
    path = tmp_path / ".config" / "narrator" / "pronunciation" / "en.toml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    _one_line(_cli(tmp_path, *BUILD), str(path), "named pipe")


def _rules(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> Pronunciation:
    path = tmp_path / "en.toml"
    path.write_text(text, "utf-8")
    monkeypatch.setattr(pronounce, "user_file", lambda lang: path)
    pronounce.pronunciation.cache_clear()
    try:
        return pronounce.pronunciation("en")
    finally:
        pronounce.pronunciation.cache_clear()


def test_more_entries_than_the_cap_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "[say]\n" + "".join(f'w{i} = "x{i}"\n' for i in range(MAX_ENTRIES + 1))
    with pytest.raises(BadFile, match=f"more than the {MAX_ENTRIES}"):
        _rules(tmp_path, text, monkeypatch)


def test_an_entry_saying_more_than_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(BadFile, match=r"en\.toml:2"):
        _rules(tmp_path, f'[say]\nnight = "{"n" * (MAX_SAY + 1)}"\n', monkeypatch)


def test_at_the_table_a_bad_override_is_a_warning_and_the_built_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "en.toml"
    path.write_text(expanding_override(), "utf-8")
    monkeypatch.setattr(pronounce, "user_file", lambda lang: path)
    pronounce.pronunciation.cache_clear()
    try:
        with caplog.at_level(logging.WARNING):
            rules = pronounce.pronunciation("en", strict=False)
    finally:
        pronounce.pronunciation.cache_clear()
    assert rules.apply("the night", "espeak") == "the night"
    assert "built-in pronunciation" in caplog.text


def test_a_line_made_too_long_is_said_without_the_users_corrections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Each entry within the caps, but a line of many short words grows past 3x and +400.
    say = "m" * MAX_SAY
    rules = _rules(tmp_path, f'[say]\na = "{say}"\n', monkeypatch)
    assert rules.apply("a b", "espeak") == f"{say} b"  # grows, but within +400
    line = " ".join(["a"] * 100)
    with caplog.at_level(logging.WARNING):
        assert rules.apply(line, "espeak") == line
        rules.apply(line, "espeak")
    assert caplog.text.count("en.toml:2") == 1  # said once, naming the entry


# -- an engine that crashes or hangs on a line --------------------------------------------
# The fakes stand in for a real Festival that crashes or hangs on a line: neither can be
# made to on purpose. Each answers Festival's start and voice commands as Festival does,
# then, asked to say a line, kills itself with SIGSEGV or waits for ever in a child.
FAKE = """#!{python}
import os, re, signal, subprocess, sys
for line in sys.stdin:
    if "utt.synth" in line:
        if {segv}:
            os.kill(os.getpid(), signal.SIGSEGV)
        subprocess.run(["sleep", "{sleep}"])  # a child: only killing the group ends it
    job = re.search(r'"narrator-ok" (\\d+)', line)
    if job:
        print("narrator-ok", job.group(1), "Cluster", flush=True)
"""


def _sleep_mark(segv: bool) -> str:
    """A sleep length no other test (nor the other case, in another worker) uses."""
    return f"987.{os.getpid()}{int(segv)}"


def _fake_festival(tmp_path: Path, script: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    from narrator.voice.engines import VoiceInfo
    from narrator.voice.engines import festival

    program = tmp_path / "fake-festival"
    program.write_text(script)
    program.chmod(0o755)
    monkeypatch.setattr(festival, "START_TIMEOUT_S", 1.0)
    monkeypatch.setattr(festival, "RENDER_TIMEOUT_S", 1.0)
    engine = festival.FestivalEngine(str(program))
    fake = VoiceInfo("fake_voice", "fake", "en", "en-us", "fake_voice", "festival", 99)
    engine._voices = [fake]
    return engine


def _children() -> list[str]:
    done = subprocess.run(
        ["ps", "-o", "pid=,stat=,comm=", "--ppid", str(os.getpid())],
        capture_output=True,
        text=True,
        check=False,
    )
    return [line for line in done.stdout.splitlines() if "ps" not in line.split()[-1:]]


@pytest.mark.parametrize("segv", [True, False], ids=["sigsegv", "hang"])
def test_a_line_the_engine_crashes_or_hangs_on_is_said_by_the_fallback(
    segv: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from narrator.voice.tts import SpeechCache

    before = {line.split()[0] for line in _children()}  # another test's own Festival may live on
    mark = _sleep_mark(segv)
    script = FAKE.format(python=sys.executable, segv=segv, sleep=mark)
    engine = _fake_festival(tmp_path, script, monkeypatch)
    cache = SpeechCache("en", rate=None, folder=tmp_path / "speech", renderer=engine)
    with caplog.at_level(logging.WARNING):
        clip = cache.clip("The night falls.")
    assert clip.samples.size > 0  # said, by another voice
    assert "that line is said by" in caplog.text
    assert caplog.text.count("that line is said by") == 1
    assert "stopped twice while rendering" in caplog.text or "gave no answer" in caplog.text
    new = [line for line in _children() if line.split()[0] not in before]
    assert not new, new  # the fake was killed with its group and reaped: none defunct
    left = subprocess.run(["pgrep", "-f", f"sleep {mark}"], capture_output=True, check=False)
    assert not left.stdout, "the hung engine's own child is left running"
    engine.close()


def test_a_link_planted_at_the_speech_cache_s_part_carries_no_write_outside(
    tmp_path: Path,
) -> None:
    import threading

    from tests.support import espeak_cache

    folder, outside = tmp_path / "speech", tmp_path / "outside.wav"
    outside.write_bytes(b"theirs")
    cache = espeak_cache("en", folder)
    path = cache.path("Night falls.")
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(
        f".{path.stem}.{os.getpid()}-{threading.get_ident()}.partial{path.suffix}"
    )
    part.symlink_to(outside)
    assert cache.clip("Night falls.").samples.size > 0
    assert outside.read_bytes() == b"theirs"
    assert path.is_file() and not path.is_symlink() and not os.path.lexists(part)
