"""Knocks on a wooden table, synthesised in numpy, and the masking bed made of them.

Each knock is a damped low resonance (the table top) plus a short noise click
(the knuckle), with its own pitch, decay, loudness and stereo position; the bed
schedules them at random like several hands tapping, in bursts and singles,
so the key clicks and chair creaks of the woken players drown in it.
"""

from __future__ import annotations

import random

import numpy as np

from narrator.sound.clip import MIX_CHANNELS
from narrator.sound.clip import MIX_RATE
from narrator.sound.clip import Clip
from narrator.sound.clip import Samples


def knock(rng: random.Random, rate: int = MIX_RATE) -> Samples:
    """One stereo knock, about 60–180 ms long, peak near 1.0 before loudness."""
    seconds = rng.uniform(0.06, 0.18)
    frames = int(seconds * rate)
    t = np.arange(frames, dtype=np.float64) / rate
    body_hz = rng.uniform(90.0, 260.0)
    decay = rng.uniform(18.0, 45.0)
    body = np.sin(2 * np.pi * body_hz * t) * np.exp(-decay * t)
    overtone = (
        0.35 * np.sin(2 * np.pi * body_hz * rng.uniform(2.1, 3.3) * t) * np.exp(-2.5 * decay * t)
    )
    noise_rng = np.random.default_rng(rng.randrange(2**32))
    click_frames = max(1, int(rng.uniform(0.002, 0.006) * rate))
    click = np.zeros(frames)
    click[:click_frames] = noise_rng.uniform(-1, 1, click_frames) * np.linspace(1, 0, click_frames)
    mono = body + overtone + rng.uniform(0.3, 0.8) * click
    mono /= max(1e-9, float(np.max(np.abs(mono))))
    attack = min(frames, int(0.0015 * rate))
    mono[:attack] *= np.linspace(0, 1, attack)
    pan = rng.uniform(-0.9, 0.9)  # -1 left … +1 right, equal-power
    left, right = np.cos((pan + 1) * np.pi / 4), np.sin((pan + 1) * np.pi / 4)
    return np.stack([mono * left, mono * right], axis=1).astype(np.float32)


def knock_bank(rng: random.Random, count: int = 24, rate: int = MIX_RATE) -> list[Samples]:
    return [knock(rng, rate) for _ in range(count)]


NEVER = 10**12  # frames: eight months at 48 kHz, longer than any game


class KnockBed:
    """An endless stream of knocks at ``density`` knocks per second on average.

    ``render(frames)`` returns the next block; the schedule is random but seeded,
    so a demo renders the same bed every time.
    """

    def __init__(self, rng: random.Random, density: float = 3.0, rate: int = MIX_RATE) -> None:
        self.rng = rng
        self.density = density
        self.rate = rate
        self.bank = knock_bank(rng, rate=rate)
        self._tail = np.zeros((0, MIX_CHANNELS), dtype=np.float32)
        self._next = self._gap()

    def _gap(self) -> int:
        """Frames to the next knock: mostly Poisson, sometimes a quick double or triple.

        At most NEVER frames: a density as small as 1e-320 draws an infinite wait."""
        if self.density <= 0:
            return NEVER
        if self.rng.random() < 0.25:
            seconds = self.rng.uniform(0.08, 0.2)  # the same hand knocking again
        else:
            seconds = self.rng.expovariate(self.density)
        return max(1, int(min(seconds * self.rate, NEVER)))

    def render(self, frames: int) -> Samples:
        out = np.zeros((frames, MIX_CHANNELS), dtype=np.float32)
        carried = min(frames, len(self._tail))
        out[:carried] += self._tail[:carried]
        self._tail = self._tail[carried:]
        position = self._next
        while position < frames:
            sound = self.rng.choice(self.bank) * self.rng.uniform(0.35, 1.0)
            end = min(frames, position + len(sound))
            out[position:end] += sound[: end - position]
            rest = sound[end - position :]
            if len(rest):
                if len(self._tail) < len(rest):
                    grown = np.zeros((len(rest), MIX_CHANNELS), dtype=np.float32)
                    grown[: len(self._tail)] = self._tail
                    self._tail = grown
                self._tail[: len(rest)] += rest
            position += self._gap()
        self._next = position - frames
        return out


def chime(rate: int = MIX_RATE) -> Clip:
    """A soft two-note chime for dawn."""
    t = np.arange(int(1.2 * rate), dtype=np.float64) / rate
    notes = [(659.25, 0.0), (987.77, 0.18)]
    mono = np.zeros_like(t)
    for hz, start in notes:
        local = np.clip(t - start, 0, None)
        mono += (t >= start) * np.sin(2 * np.pi * hz * local) * np.exp(-3.0 * local)
    mono *= 0.25 / max(1e-9, float(np.max(np.abs(mono))))
    return Clip(np.repeat(mono.reshape(-1, 1), MIX_CHANNELS, axis=1).astype(np.float32), rate)


def tick(rate: int = MIX_RATE) -> Clip:
    """A quiet tick for the last seconds of a window."""
    frames = int(0.03 * rate)
    t = np.arange(frames, dtype=np.float64) / rate
    mono = 0.12 * np.sin(2 * np.pi * 1800 * t) * np.exp(-120 * t)
    return Clip(np.repeat(mono.reshape(-1, 1), MIX_CHANNELS, axis=1).astype(np.float32), rate)
