"""The mixer on arrays: speech order, ducking depth, fades, no clipping, the bed only at night."""

from __future__ import annotations

import random
import signal

import numpy as np
import pytest

from narrator.clocks import RealClock
from narrator.host.audio import AudioVoice
from narrator.ports import Terminated
from narrator.screen.keys import PausableClock
from narrator.screen.keys import TuiKeys
from narrator.sound.clip import MIX_RATE
from narrator.sound.clip import Clip
from narrator.sound.knocks import KnockBed
from narrator.sound.knocks import chime
from narrator.sound.knocks import knock
from narrator.sound.mixer import Mixer
from narrator.sound.mixer import MixSettings
from narrator.sound.mixer import mix_block
from narrator.sound.mixer import ramp
from narrator.sound.output import OfflineOutput
from narrator.sound.output import Playback
from narrator.sound.output import VirtualClock


def tone(seconds: float, hz: float = 440.0, level: float = 0.8, rate: int = 22050) -> Clip:
    t = np.arange(int(seconds * rate)) / rate
    return Clip.from_mono(level * np.sin(2 * np.pi * hz * t), rate)


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples)))) if samples.size else 0.0


def test_clip_conversion_keeps_length_and_level() -> None:
    clip = tone(1.0).to(MIX_RATE, 2)
    assert clip.rate == MIX_RATE and clip.channels == 2
    assert clip.seconds == pytest.approx(1.0, abs=1e-3)
    assert rms(clip.samples) == pytest.approx(0.8 / np.sqrt(2), rel=0.02)


def test_ramp_moves_toward_its_target_and_stops_there() -> None:
    up = ramp(0.0, 1.0, 100, 0.02)
    assert up[0] == pytest.approx(0.02) and up[49] == pytest.approx(1.0) and up[-1] == 1.0
    down = ramp(1.0, 0.3, 10, 0.1)
    assert down[-1] == pytest.approx(0.3) and np.all(np.diff(down) <= 0)


def test_mix_block_never_clips() -> None:
    loud = np.ones((1000, 2), dtype=np.float32)
    out = mix_block(loud, loud, loud, np.ones(1000, dtype=np.float32), MixSettings(bed_volume=1))
    assert float(np.max(np.abs(out))) <= 1.0 + 1e-6


def test_speech_clips_play_one_after_another_without_cuts() -> None:
    mixer = Mixer(MixSettings(knocks=False))
    output = OfflineOutput(mixer)
    first, second = tone(0.5, 300), tone(0.3, 600)
    a, b = mixer.say(first), mixer.say(second)
    output.advance(1.0)
    playback = output.playback
    assert playback.started_at(a) == 0
    assert playback.finished_at(a) == playback.started_at(b) == round(0.5 * MIX_RATE)
    assert playback.finished_at(b) == round(0.8 * MIX_RATE)
    samples = output.samples()
    assert rms(samples[: int(0.5 * MIX_RATE)]) > 0.3
    assert rms(samples[int(0.85 * MIX_RATE) :]) == 0.0


def test_the_bed_is_present_only_at_night_and_fades() -> None:
    mixer = Mixer(MixSettings(density=8.0, fade_s=0.2), seed=3)
    output = OfflineOutput(mixer)
    output.advance(1.0)  # day: silence
    mixer.night(True)
    output.advance(3.0)
    mixer.night(False)
    output.advance(2.0)
    samples = output.samples()
    day, night, after = (
        samples[:MIX_RATE],
        samples[int(1.3 * MIX_RATE) : 4 * MIX_RATE],
        samples[int(4.3 * MIX_RATE) :],
    )
    assert rms(day) == 0.0
    assert rms(night) > 0.01
    assert rms(after) == 0.0


def test_the_bed_ducks_under_speech() -> None:
    settings = MixSettings(density=20.0, fade_s=0.05, duck=0.25, speech_volume=0.0)
    mixer = Mixer(settings, seed=5)
    output = OfflineOutput(mixer)
    mixer.night(True)
    output.advance(2.0)
    mixer.say(tone(2.0))  # inaudible speech (volume 0): only its ducking is heard
    output.advance(2.0)
    samples = output.samples()
    before = rms(samples[int(0.5 * MIX_RATE) : 2 * MIX_RATE])
    during = rms(samples[int(2.2 * MIX_RATE) : 4 * MIX_RATE])
    assert during / before == pytest.approx(0.25, rel=0.35)


def test_knocks_vary_and_the_bed_is_seeded() -> None:
    rng = random.Random(1)
    knocks = [knock(rng) for _ in range(6)]
    assert len({len(k) for k in knocks}) > 1  # different lengths (timbre, decay)
    pans = {round(float(np.sum(np.abs(k[:, 0])) / np.sum(np.abs(k[:, 1]))), 1) for k in knocks}
    assert len(pans) > 1  # different stereo positions
    one = KnockBed(random.Random(7)).render(MIX_RATE * 2)
    two = KnockBed(random.Random(7)).render(MIX_RATE * 2)
    assert np.array_equal(one, two) and rms(one) > 0


@pytest.mark.parametrize("density", [1e-320, 5e-324, 1e-300])
def test_a_vanishing_knock_density_is_silence_not_an_overflow(density: float) -> None:
    """``--knock-density 1e-320`` drew an infinite wait: OverflowError (scripts/fuzz_inputs.py)."""
    bed = KnockBed(random.Random(3), density)
    for _ in range(30):  # a double knock (a quarter of the gaps) may still come first
        bed.render(MIX_RATE)
    assert rms(bed.render(MIX_RATE)) == 0


def test_virtual_clock_renders_exactly_the_time_waited() -> None:
    output = OfflineOutput(Mixer())
    clock = VirtualClock(output)
    clock.sleep(1.25)
    assert clock.now() == pytest.approx(1.25)
    assert len(output.samples()) == round(1.25 * MIX_RATE)


def test_cues_mix_beside_speech() -> None:
    mixer = Mixer(MixSettings(knocks=False))
    output = OfflineOutput(mixer)
    mixer.cue(chime())
    output.advance(0.5)
    assert rms(output.samples()) > 0.01


class PacedPlayback(Playback):
    """A sound device that plays exactly as long as it is waited for: each wait renders
    that many seconds of the mix (no wall clock, so no machine speed in the verdict)."""

    def wait(self, token: int, timeout: float | None = None) -> bool:
        self.mixer.render(round((timeout or 0.0) * self.mixer.rate))
        return self.finished_at(token) is not None


class Lines:
    """Every line is a 1.5 s tone (the speech source of AudioVoice)."""

    def clip(self, key: str, text: str) -> Clip:
        return tone(1.5)


def test_a_line_asked_again_and_again_is_queued_once_and_the_next_waits_for_it() -> None:
    """R pressed five times during a speech: one repeat is queued, not five; the next
    line waits for the speech ahead of it without being taken for a stuck device."""
    mixer = Mixer()
    voice = AudioVoice(Lines(), mixer, PacedPlayback(mixer), RealClock(), False)  # (unused)
    for _ in range(5):
        voice.repeat("Player number 7 has the floor.")
    _, ahead = mixer.say_after(tone(0.5))
    assert ahead == pytest.approx(1.5, abs=0.01)  # one repeat ahead, not five

    for _ in range(10):  # more speech ahead than the stall allowance of one line
        mixer.say(tone(1.5))
    voice.say("", "Player number 8 has the floor.")  # (raised "the sound output stalled")
    assert voice.timeline[-1].end - voice.timeline[-1].start == pytest.approx(1.5, abs=0.01)


def test_a_stop_signal_cuts_a_line_short() -> None:
    """SIGTERM on the full screen while a night's lines are said: the game stops
    mid-line (its record says «aborted», its farewell is printed), as the text host
    does, instead of saying lines until the screen gives up on it (found by hand: a
    signal between two windows left a record cut short and no farewell)."""
    mixer = Mixer()
    playback = PacedPlayback(mixer)
    keys = TuiKeys(PausableClock())
    checks: list[int] = []

    def stop() -> None:
        checks.append(len(checks))
        if len(checks) == 3:  # the signal comes a third of a second into the line
            keys.terminate(signal.SIGTERM)
        keys.stopping()

    voice = AudioVoice(Lines(), mixer, playback, RealClock(), False, stop=stop)
    with pytest.raises(Terminated) as stopped:
        voice.say("", "The werewolves wake up.")
    assert stopped.value.signum == signal.SIGTERM
    assert len(checks) == 3 and voice.timeline == []  # not said to its end
    other = Mixer()
    quiet = AudioVoice(Lines(), other, PacedPlayback(other), RealClock(), False)
    quiet.say("", "Nobody stops this one.")  # no stop given: said whole
    assert len(quiet.timeline) == 1
