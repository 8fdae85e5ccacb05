"""Loudness: every clip trimmed of its silent ends and brought to one level.

Synthetic clips check the rule itself (gates, ceiling, margins, silence, stereo,
idempotence); real renders from espeak-ng, Festival and hibari check that the
engines the game speaks with all land on the target.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from narrator.sound.clip import Clip
from narrator.sound.loudness import CEILING_DBFS
from narrator.sound.loudness import MARGIN_S
from narrator.sound.loudness import QUIETEST_DBFS
from narrator.sound.loudness import SLACK_S
from narrator.sound.loudness import TARGET_DBFS
from narrator.sound.loudness import VERSION
from narrator.sound.loudness import levelled
from narrator.sound.loudness import loudness_dbfs
from narrator.sound.loudness import peak_dbfs
from narrator.sound.loudness import trimmed

RATE = 22050


def tone(seconds: float, rms_dbfs: float, rate: int = RATE, hz: float = 220.0) -> np.ndarray:
    """A sine whose RMS is ``rms_dbfs``, with a 10 ms ramp at each end."""
    t = np.arange(round(seconds * rate)) / rate
    wave: np.ndarray = np.sin(2 * np.pi * hz * t) * np.sqrt(2) * 10 ** (rms_dbfs / 20)
    ramp = min(len(t), round(0.01 * rate))
    wave[:ramp] *= np.linspace(0, 1, ramp)
    wave[len(t) - ramp :] *= np.linspace(1, 0, ramp)
    return wave


def clip_of(*parts: np.ndarray, rate: int = RATE) -> Clip:
    return Clip.from_mono(np.concatenate(parts), rate)


def silence(seconds: float, rate: int = RATE) -> np.ndarray:
    return np.zeros(round(seconds * rate))


def sound_edges(clip: Clip) -> tuple[float, float]:
    """Seconds before the first and after the last sample above −45 dB under the peak."""
    level = np.max(np.abs(clip.samples), axis=1)
    loud = np.flatnonzero(level > level.max() * 10 ** (-45 / 20))
    return loud[0] / clip.rate, (clip.frames - 1 - loud[-1]) / clip.rate


# --- the rule --------------------------------------------------------------------------------


def test_a_quiet_clip_with_silent_ends_is_trimmed_and_brought_to_the_target() -> None:
    quiet = clip_of(silence(0.4), tone(1.0, -30.0), silence(0.35))
    out = levelled(quiet)
    assert loudness_dbfs(out) == pytest.approx(TARGET_DBFS, abs=0.1)
    lead, trail = sound_edges(out)
    assert lead == pytest.approx(MARGIN_S, abs=0.002)
    assert trail == pytest.approx(MARGIN_S, abs=0.002)
    assert out.seconds == pytest.approx(1.0 + 2 * MARGIN_S, abs=0.005)
    assert out.rate == quiet.rate and out.channels == 1
    assert out.samples.dtype == np.float32


def test_a_loud_clip_is_turned_down() -> None:
    out = levelled(clip_of(tone(0.8, -8.0)))
    assert loudness_dbfs(out) == pytest.approx(TARGET_DBFS, abs=0.1)


def test_the_peak_ceiling_wins_over_the_target() -> None:
    # A click train over a faint tone: reaching the target would clip the clicks.
    wave = tone(1.0, -40.0)
    wave[:: RATE // 10] = 0.5
    out = levelled(clip_of(wave))
    assert peak_dbfs(out) == pytest.approx(CEILING_DBFS, abs=0.01)
    loudness = loudness_dbfs(out)
    assert loudness is not None and loudness < TARGET_DBFS - 1


def test_a_noise_floor_is_not_raised_to_speech() -> None:
    hiss = clip_of(np.random.default_rng(2).standard_normal(RATE) * 10 ** (-55 / 20))
    loudness = loudness_dbfs(hiss)
    assert loudness is not None and loudness < QUIETEST_DBFS
    assert np.array_equal(levelled(hiss).samples, hiss.samples)


def test_an_end_already_near_the_margin_is_left_alone() -> None:
    # Sound starts 45 ms in (inside margin + slack) and runs to the end: nothing is cut.
    clip = clip_of(silence(MARGIN_S + 0.005), tone(0.5, -21.0))
    assert trimmed(clip) is clip


def test_silence_inside_speech_is_kept() -> None:
    words = clip_of(silence(0.3), tone(0.5, -25.0), silence(1.0), tone(0.5, -25.0), silence(0.3))
    out = levelled(words)
    assert out.seconds == pytest.approx(2.0 + 2 * MARGIN_S, abs=0.005)
    middle = out.samples[round((MARGIN_S + 0.6) * RATE) : round((MARGIN_S + 1.4) * RATE)]
    assert np.all(middle == 0)


def test_a_soft_onset_keeps_its_margin() -> None:
    # A fade-in from nothing: everything from 45 dB under the peak on is kept, plus the margin.
    t = np.arange(RATE) / RATE
    swell = np.sin(2 * np.pi * 200 * t) * np.linspace(0, 1, RATE) ** 3 * 0.3
    out = trimmed(clip_of(silence(0.5), swell))
    threshold = max(np.abs(swell).max() * 10 ** (-45 / 20), 10 ** (-60 / 20))
    first = np.flatnonzero(np.abs(swell) > threshold)[0] / RATE
    assert first > 0.1  # the swell is long: a fixed cut would lose some of it
    assert out.seconds - MARGIN_S == pytest.approx(1.0 - first, abs=0.001)


@pytest.mark.parametrize(
    "samples",
    [
        np.zeros((0, 1), np.float32),
        np.zeros((RATE, 1), np.float32),
        np.zeros((RATE, 2), np.float32),
        (np.random.default_rng(1).standard_normal((RATE, 1)) * 10 ** (-75 / 20)).astype(np.float32),
    ],
    ids=["empty", "mono silence", "stereo silence", "faint hiss"],
)
def test_silence_in_is_silence_out(samples: np.ndarray) -> None:
    clip = Clip(samples, RATE)
    out = levelled(clip)  # the suite turns any numpy warning (a division by zero) into an error
    assert out.frames == clip.frames and out.channels == clip.channels
    assert np.array_equal(out.samples, clip.samples)
    assert loudness_dbfs(Clip(np.zeros((RATE, 1), np.float32), RATE)) is None


def test_stereo_is_levelled_as_one_and_keeps_its_channels() -> None:
    left = np.concatenate([silence(0.3), tone(1.0, -28.0), silence(0.3)])
    right = np.concatenate([silence(0.3), tone(1.0, -34.0, hz=330.0), silence(0.3)])
    out = levelled(Clip(np.stack([left, right], axis=1).astype(np.float32), RATE))
    assert out.channels == 2
    assert loudness_dbfs(out) == pytest.approx(TARGET_DBFS, abs=0.1)
    ratio = np.sqrt(np.mean(out.samples[:, 0] ** 2) / np.mean(out.samples[:, 1] ** 2))
    assert 20 * np.log10(ratio) == pytest.approx(6.0, abs=0.1)  # the balance is kept


def test_levelling_twice_changes_nothing() -> None:
    rng = np.random.default_rng(5)
    for _ in range(60):
        parts = [silence(rng.uniform(0, 0.5))]
        for _ in range(rng.integers(1, 4)):
            parts += [tone(rng.uniform(0.1, 0.6), rng.uniform(-45, -5), hz=rng.uniform(100, 900))]
            parts += [silence(rng.uniform(0, 0.3))]
        once = levelled(clip_of(*parts))
        twice = levelled(once)
        assert twice.frames == once.frames
        assert loudness_dbfs(twice) == pytest.approx(loudness_dbfs(once), abs=0.1)


def test_version_is_a_short_string_for_the_cache_key() -> None:
    assert isinstance(VERSION, str) and VERSION


# --- real engines ----------------------------------------------------------------------------

LINE_RU = "Игрок номер пять, откройте глаза и посмотрите свою карту."
LINE_EN = "Player number five, open your eyes and look at your card."


def read(path: Path) -> Clip:
    soundfile = pytest.importorskip("soundfile")
    samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    return Clip(np.ascontiguousarray(samples), int(rate))


def espeak_clip(tmp_path: Path) -> Clip:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    path = tmp_path / "espeak.wav"
    subprocess.run(["espeak-ng", "-v", "ru", "-w", str(path), LINE_RU], check=True)
    return read(path)


def festival_clip(tmp_path: Path) -> Clip:
    if shutil.which("text2wave") is None:
        pytest.skip("festival is not installed (scripts/setup.sh)")
    text = tmp_path / "line.txt"
    text.write_text(LINE_RU.replace("глаза", "глаз+а"), encoding="utf-8")
    path = tmp_path / "festival.wav"
    command = ["text2wave", "-eval", "(voice_msu_ru_nsh_clunits)", str(text), "-o", str(path)]
    subprocess.run(command, check=True, capture_output=True)
    return read(path)


def hibari_clip(tmp_path: Path) -> Clip:
    hibari = pytest.importorskip("hibari")
    audio = hibari.Hibari()(LINE_EN, seed=1)
    return Clip.from_mono(audio, hibari.SAMPLE_RATE)


@pytest.mark.parametrize("render", [espeak_clip, festival_clip, hibari_clip])
def test_every_engine_lands_on_the_target_with_its_silence_trimmed(
    render: object, tmp_path: Path
) -> None:
    assert callable(render)
    clip = render(tmp_path)
    out = levelled(clip)
    loudness = loudness_dbfs(out)
    assert loudness is not None and abs(loudness - TARGET_DBFS) <= 1.0
    assert peak_dbfs(out) <= CEILING_DBFS + 0.01
    lead, trail = sound_edges(out)
    assert lead <= MARGIN_S + SLACK_S and trail <= MARGIN_S + SLACK_S
    assert out.seconds > 1.0  # the speech itself is all there
    assert sound_edges(clip)[0] - lead >= 0 and sound_edges(clip)[1] - trail >= 0
    again = levelled(out)
    assert again.frames == out.frames
    assert loudness_dbfs(again) == pytest.approx(loudness, abs=0.1)


def test_hibari_is_quiet_with_long_silences_before_levelling(tmp_path: Path) -> None:
    """The case the rule exists for (measured: ≈ −25 dB gated, 0.3–0.45 s at each end)."""
    clip = hibari_clip(tmp_path)
    lead, trail = sound_edges(clip)
    assert lead > 0.2 and trail > 0.2
    loudness = loudness_dbfs(clip)
    assert loudness is not None and loudness < TARGET_DBFS - 2
    out = levelled(clip)
    assert clip.seconds - out.seconds > 0.4
