"""Narration files: the suffix says the format, every frame comes back, big writes are cut.

A demo and a game with no sound card write their mix block by block
(``sound/output.py``); here a short mix of speech and knocks goes through the same
path and is read back with soundfile, as the listening tests read a whole demo.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import soundfile

from narrator import speaking
from narrator.rules.errors import ConfigError
from narrator.sound.clip import MIX_RATE
from narrator.sound.clip import Clip
from narrator.sound.clip import Samples
from narrator.sound.mixer import Mixer
from narrator.sound.mixer import MixSettings
from narrator.sound.narration import DEFAULT_SUFFIX
from narrator.sound.narration import FORMATS
from narrator.sound.narration import WRITE_FRAMES
from narrator.sound.narration import NarrationFile
from narrator.sound.narration import narration_format
from narrator.sound.output import FileOutput
from narrator.sound.output import OfflineOutput
from tests.support import run_python

ROOT = Path(__file__).resolve().parent.parent
LOSSLESS = (".flac", ".wav")
SPEECH_S, NIGHT_S = 1.0, 2.0  # a line by day, then knocks alone


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples)))) if samples.size else 0.0


def tone(seconds: float, hz: float = 440.0) -> Clip:
    t = np.arange(int(seconds * 22050)) / 22050
    return Clip.from_mono(0.6 * np.sin(2 * np.pi * hz * t), 22050)


def a_short_game(path: Path | None) -> Samples:
    """A line by day, a pause, the knocks of a night: kept in memory, or written to ``path``."""
    output = OfflineOutput(Mixer(MixSettings(density=4.0), seed=1), block=480)
    if path is not None:
        output.record_to(path)
    output.mixer.say(tone(SPEECH_S))
    output.advance(SPEECH_S + 0.5)
    output.mixer.night(True)
    output.advance(NIGHT_S)
    output.close()
    return output.samples()


@pytest.mark.parametrize("suffix", [*FORMATS, ".FLAC"])
def test_a_narration_file_holds_every_frame_in_the_format_its_name_says(
    suffix: str, tmp_path: Path
) -> None:
    expected = a_short_game(None)
    path = tmp_path / f"game{suffix}"
    assert len(a_short_game(path)) == 0  # written, not kept
    kind = FORMATS[suffix.lower()]
    info = soundfile.info(str(path))
    assert (info.format, info.subtype, info.samplerate, info.channels) == (
        kind.format,
        kind.subtype,
        MIX_RATE,
        2,
    )
    back, _ = soundfile.read(str(path), dtype="float32", always_2d=True)
    assert back.shape == expected.shape
    if suffix.lower() in LOSSLESS:
        assert float(np.max(np.abs(back - expected))) <= 2 / 32768  # 16-bit rounding
    speech = slice(int(0.1 * MIX_RATE), int(0.9 * MIX_RATE))
    night = slice(int((SPEECH_S + 1.0) * MIX_RATE), len(expected))
    assert rms(expected[night]) > 0.005  # the knocks are there to be compared
    for part in (speech, night):
        assert rms(back[part]) == pytest.approx(rms(expected[part]), rel=0.05)


def test_one_huge_write_is_cut_into_blocks_libvorbis_survives(tmp_path: Path) -> None:
    """One write of 3 million frames once overflowed libvorbis' stack (a crash, not an error)."""
    path = tmp_path / "long.ogg"
    frames = 3_000_000
    assert frames > 100 * WRITE_FRAMES
    script = (
        "import sys, numpy as np\n"
        "from pathlib import Path\n"
        "from narrator.sound.narration import NarrationFile\n"
        "noise = np.random.default_rng(1).standard_normal((int(sys.argv[2]), 2))\n"
        "file = NarrationFile.open(Path(sys.argv[1]), 48000)\n"
        "file.write((0.1 * noise).astype(np.float32))\n"
        "file.close()\n"
    )
    done = run_python(script, str(path), str(frames), timeout=300)
    assert done.returncode == 0, done.stderr
    assert soundfile.info(str(path)).frames == frames


@pytest.mark.parametrize("name", ["game.mp3", "game", "game.wav.txt", "game.opus"])
def test_a_file_name_no_narration_may_have_is_refused(name: str, tmp_path: Path) -> None:
    assert narration_format(Path(name)) is None
    with pytest.raises(ConfigError, match=r"\.flac, \.ogg, \.oga or \.wav"):
        NarrationFile.open(tmp_path / name, MIX_RATE)
    assert not (tmp_path / name).exists()


def test_the_names_the_program_chooses_are_compressed_and_accepted() -> None:
    path = speaking.default_demo_path("onenight")
    assert path.suffix == DEFAULT_SUFFIX != ".wav"
    assert path.name.startswith("onenight-")
    assert narration_format(path) is not None


def test_a_game_with_no_sound_card_goes_to_a_compressed_file(tmp_path: Path) -> None:
    """The live path: mixed at the real clock's pace, finished when the game stops."""
    path = tmp_path / f"narration{DEFAULT_SUFFIX}"
    mixer = Mixer(MixSettings(knocks=False))
    output = FileOutput(mixer, path)
    output.start()
    token = mixer.say(tone(0.2))
    end = time.monotonic() + 60  # a hang detector, not a speed target
    while output.playback.finished_at(token) is None and time.monotonic() < end:
        time.sleep(0.02)
    output.stop()
    start, finish = output.playback.started_at(token), output.playback.finished_at(token)
    assert start is not None and finish is not None
    kind = FORMATS[DEFAULT_SUFFIX]
    info = soundfile.info(str(path))
    assert (info.format, info.subtype) == (kind.format, kind.subtype)
    back, _ = soundfile.read(str(path), dtype="float32", always_2d=True)
    assert len(back) >= finish
    assert rms(back[start:finish]) > 0.1
