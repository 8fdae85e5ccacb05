"""A short scripted night through a real sound device (PulseAudio null sink), recorded back.

The table host speaks real espeak-ng lines through the real PortAudio output;
the test records the sink's monitor and checks, from the sound alone, that the
lines come in order, that the knocks fill the wake window and stop after dawn,
and that the window lasts its setting to within 50 ms.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from narrator.clocks import RealClock
from narrator.host.audio import AudioVoice
from narrator.host.audio import NightSound
from narrator.host.audio import PackOrTTS
from narrator.host.demo import DemoKeys
from narrator.host.table import TableDriver
from narrator.record import GameRecord
from narrator.rules.core import Deal
from narrator.rules.core import Game
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Script
from narrator.rules.core import Sleep
from narrator.rules.core import Wake
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Tag
from narrator.sound.clip import MIX_RATE
from narrator.sound.clip import Clip
from narrator.sound.mixer import Mixer
from narrator.sound.mixer import MixSettings
from narrator.sound.output import DeviceOutput
from narrator.voice.catalog import load_catalog
from tests.harness import RecordingScreen

WINDOW_S = 1.5


def short_night() -> Script:
    yield Phase(night(1))
    yield Say("onenight.night")
    yield Say("onenight.hi_wake")
    yield Wake(Tag(night(1), "high_inquisitor"), WINDOW_S, ())
    yield Sleep()
    yield Say("onenight.hi_sleep")
    yield Phase(day(1))
    yield Say("onenight.morning", dawn=True)
    return Outcome(None, day(1))


class Recorder:
    """Records the sink's monitor from before the first line to after the last."""

    def __init__(self) -> None:
        import sounddevice as sd

        self.blocks: list[np.ndarray] = []
        self.started = threading.Event()
        self.stream = sd.InputStream(
            device="speaker_mon",
            samplerate=MIX_RATE,
            channels=2,
            dtype="float32",
            callback=self._callback,
        )

        self.lost = False  # the monitor dropped input: the recording has a hole

    def _callback(self, indata: Any, frames: int, _time: Any, status: Any) -> None:
        self.blocks.append(indata.copy())
        self.lost = self.lost or bool(status.input_overflow)
        self.started.set()

    def mono(self) -> np.ndarray:
        mono: np.ndarray = np.concatenate(self.blocks).mean(axis=1)
        return mono


def locate(recording: np.ndarray, clip: np.ndarray) -> int:
    """The sample where ``clip`` best matches the recording (FFT cross-correlation)."""
    size = len(recording) + len(clip)
    spectrum = np.fft.rfft(recording, size) * np.conj(np.fft.rfft(clip, size))
    return int(np.argmax(np.fft.irfft(spectrum, size)[: len(recording)]))


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples)))) if len(samples) else 0.0


@pytest.fixture
def speech(tmp_path: Path) -> Iterator[Any]:
    from narrator.voice.tts import SpeechCache

    yield SpeechCache("ru", folder=tmp_path / "speech")


def test_a_night_through_the_sound_card(pulse_audio: dict[str, str], speech: Any) -> None:
    catalog = load_catalog("ru")
    keys = ["onenight.night", "onenight.hi_wake", "onenight.hi_sleep", "onenight.morning"]
    clips = {key: speech.clip(catalog.text(key)) for key in keys}  # warm before timing
    # The recorder is the test's ear, not the product: on a busy machine its monitor stream
    # may drop input, and a recording with a hole cannot be judged. Then the night is played
    # again (the game's own underruns are asserted, never retried).
    for _attempt in range(3):
        recorder, underruns = night_through_the_card(catalog, speech)
        if not recorder.lost:
            break
    assert not recorder.lost, "the monitor dropped input three times: nothing to judge"
    assert underruns == 0
    _judge(recorder, clips, keys)


def night_through_the_card(catalog: Any, speech: Any) -> tuple[Recorder, int]:
    """The short night played through the null sink, recorded from its monitor."""
    mixer = Mixer(MixSettings(density=6.0, fade_s=0.3), seed=1)
    device = DeviceOutput(mixer)
    recorder = Recorder()
    recorder.stream.start()
    assert recorder.started.wait(5), "the monitor never delivered audio"
    device.start()
    clock = RealClock()
    voice = AudioVoice(PackOrTTS(speech.clip), mixer, device.playback, clock, False)
    driver = TableDriver(
        catalog,
        GameRecord(),
        voice=voice,
        screen=RecordingScreen(),  # a fake screen nobody looks at: the test listens
        keys=DemoKeys(random.Random(1), clock),
        clock=clock,
        answer_s=5,
        sound=NightSound(mixer),
    )
    driver.run(Game("onenight", Deal(("inquisitor",) * 3), short_night()))
    clock.sleep(3.0)  # fade out, chime, then silence
    device.stop()
    recorder.stream.stop()
    recorder.stream.close()
    return recorder, device.underruns


def _judge(recorder: Recorder, clips: dict[str, Any], keys: list[str]) -> None:
    recording = recorder.mono()
    level = 0.9  # the mixer's speech volume
    starts = {}
    for key in keys:
        reference = Clip.to(clips[key], MIX_RATE, 1).samples[:, 0] * level
        starts[key] = locate(recording, reference)
    assert starts["onenight.night"] < starts["onenight.hi_wake"] < starts["onenight.hi_sleep"]
    assert starts["onenight.hi_sleep"] < starts["onenight.morning"]

    wake_end = starts["onenight.hi_wake"] + round(clips["onenight.hi_wake"].seconds * MIX_RATE)
    window = (starts["onenight.hi_sleep"] - wake_end) / MIX_RATE
    assert window == pytest.approx(WINDOW_S, abs=0.05)

    inside = recording[wake_end + MIX_RATE // 10 : starts["onenight.hi_sleep"] - MIX_RATE // 10]
    assert rms(inside) > 0.005, "no knocks inside the wake window"
    dawn_end = starts["onenight.morning"] + round(clips["onenight.morning"].seconds * MIX_RATE)
    after = recording[dawn_end + int(1.6 * MIX_RATE) : dawn_end + int(2.6 * MIX_RATE)]
    assert len(after) > MIX_RATE // 2
    assert rms(after) < 0.001, "knocks (or anything) after dawn"
