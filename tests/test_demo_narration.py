"""`narrator demo GAME --output x.ogg`: a whole narrated game, knocks only at night.

Rendered faster than real time with real espeak-ng speech; the JSON timeline
beside the narration says where each line and each wake window is, and the test
listens to the file there. Each game goes to another format (the suffix says
which), so every format is read back whole: Ogg Vorbis (the default, and lossy)
for the longest game too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

from narrator.rules.registry import GAMES

DAY_KEYS = ("discussion", "vote_call", "floor", "speech", "who_is_for")
FORMATS = {".ogg": ("OGG", "VORBIS"), ".flac": ("FLAC", "PCM_16"), ".wav": ("WAV", "PCM_16")}
VOICE = "espeak:gmw/en-us"  # the voice the module names; hibari and Festival have their own tests
SUFFIXES = {"onenight": ".flac", "halloween": ".wav", "sport_mafia": ".ogg", "alliance": ".ogg"}


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples)))) if samples.size else 0.0


# The built-in games only: a child process knows no variant registered by the tests.
@pytest.mark.parametrize("game", list(GAMES))
def test_a_demo_renders_a_narrated_game_with_knocks_only_at_night(
    game: str, tmp_path: Path
) -> None:
    suffix = SUFFIXES.get(game, ".ogg")
    narration = tmp_path / f"{game}{suffix}"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "narrator.cli",
            "demo",
            game,
            "--lang",
            "en",
            "--seed",
            "2",
            "--voice",
            VOICE,
            "--output",
            str(narration),
            "--record-dir",
            str(tmp_path / "records"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    info = soundfile.info(str(narration))
    assert (info.format, info.subtype) == FORMATS[suffix]
    samples, rate = soundfile.read(str(narration))
    mono = samples.mean(axis=1)
    timeline = json.loads(narration.with_suffix(".json").read_text("utf-8"))
    assert abs(len(mono) / rate - timeline["seconds"]) < 0.05
    assert timeline["lines"] and timeline["windows"]

    speech = np.zeros(len(mono), dtype=bool)
    for line in timeline["lines"]:
        assert line["end"] > line["start"]
        speech[int(line["start"] * rate) : int((line["end"] + 0.1) * rate)] = True
    assert rms(mono[speech]) > 0.05, "the lines are silent"

    night = np.zeros(len(mono), dtype=bool)
    for window in timeline["windows"]:
        night[int((window["start"] + 0.2) * rate) : int((window["end"] - 0.2) * rate)] = True
    assert rms(mono[night & ~speech]) > 0.005, "no knocks inside the wake windows"

    day = np.zeros(len(mono), dtype=bool)
    for line in timeline["lines"]:
        if any(key in line["key"] for key in DAY_KEYS):
            day[int((line["end"] + 0.3) * rate) : int((line["end"] + 1.3) * rate)] = True
    quiet = mono[day & ~speech & ~night]
    assert quiet.size > rate // 20, "the demo had no day pauses to listen to"
    assert rms(quiet) < 1e-4, "knocks by day"
