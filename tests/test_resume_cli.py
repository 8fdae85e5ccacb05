"""`narrator resume` after a real SIGKILL: the game is listed and continued to its end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from narrator.host.journal import default_key_dir
from narrator.host.journal import unfinished_records
from narrator.unfinished import unfinished_games
from tests.harness import game_process

NARRATOR = [sys.executable, "-m", "narrator.cli"]
# The host's options, given to the game and to its resume alike; the kill and the resume
# are the point, not the length of an answer. The answer time is the game's: the resume
# takes it from the record.
HOST = ["--demo", "--text", "--silent"]
ANSWER_S = ["--answer-time", "2"]
# Short rule switches for the game: a resume takes them from the record.
SHORT = [
    *("-o", "speech_s=1", "-o", "last_word_s=1", "-o", "defence_s=1", "-o", "meeting_s=1"),
    *("-o", "check_s=1", "-o", "shot_call_s=0.5"),
]


def env(tmp: Path) -> dict[str, str]:
    """The test session's private config, state and data folders (tests/conftest.py): the
    sealed record's key is where this process can read it too."""
    return {**os.environ}


def wait_for_played_steps(records: Path, child: subprocess.Popen[bytes], steps: int) -> None:
    """Until the running game is offered to resume with ``steps`` steps to replay.

    Looked at as `narrator resume` looks (``unfinished_games``): a record seen in the
    moment before its key is written is not offered yet, and is looked at again.
    """
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        games = unfinished_games(records)
        if games and len(games[0].steps) >= steps:
            return
        assert child.poll() is None, "the demo game ended before it could be killed"
        time.sleep(0.5)
    raise AssertionError(f"the record never showed {steps} played steps")


def test_a_killed_game_is_listed_and_resumed_to_its_end(tmp_path: Path) -> None:
    records = tmp_path / "records"
    game = ["sport_mafia", "--seed", "3", *HOST, *ANSWER_S, *SHORT]
    child = subprocess.Popen(
        [*NARRATOR, "play", *game, "--record-dir", str(records)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env(tmp_path),
    )
    # Kill once the game is well into the night: the record has played steps in it.
    try:
        wait_for_played_steps(records, child, 12)
    finally:
        os.kill(game_process(child.pid), signal.SIGKILL)  # the game, not its parent
        child.wait(timeout=60)

    listing = subprocess.run(
        [*NARRATOR, "resume", "--list", "--record-dir", str(records)],
        capture_output=True,
        text=True,
        env=env(tmp_path),
        timeout=120,
    )
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("1  ") and "10 игроков" in lines[0]

    resumed = subprocess.run(
        [*NARRATOR, "resume", "--record-dir", str(records), *HOST],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env(tmp_path),
        timeout=900,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "Продолжаем игру с того места, где остановились" in resumed.stdout
    assert unfinished_records(records) == []  # the old record is retired, the new one ended
    plain = sorted(records.glob("*.jsonl"))
    assert len(plain) == 1
    events = [json.loads(line) for line in plain[0].read_text("utf-8").splitlines()]
    assert events[0]["event"] == "start" and events[0]["resumed_from"]
    assert events[0]["answer_s"] == 2  # the stopped game's answer time, not the default
    assert any(e["event"] == "resumed" for e in events)
    assert any(e["event"] == "end" for e in events)
    old_key = default_key_dir() / f"{Path(events[0]['resumed_from']).stem}.key"
    assert not old_key.exists()  # no key left of a game that has ended
    assert not (default_key_dir() / f"{plain[0].stem}.key").exists()
