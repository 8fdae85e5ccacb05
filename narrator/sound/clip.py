"""Audio buffers that carry their format: float32 samples, a rate, a channel count."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Samples = npt.NDArray[np.float32]

MIX_RATE = 48000
MIX_CHANNELS = 2


@dataclass(frozen=True)
class Clip:
    """A piece of audio: ``samples`` has shape (frames, channels), values in [-1, 1]."""

    samples: Samples
    rate: int

    @property
    def channels(self) -> int:
        return int(self.samples.shape[1])

    @property
    def frames(self) -> int:
        return int(self.samples.shape[0])

    @property
    def seconds(self) -> float:
        return self.frames / self.rate

    @staticmethod
    def silence(seconds: float, rate: int = MIX_RATE, channels: int = MIX_CHANNELS) -> Clip:
        return Clip(np.zeros((round(seconds * rate), channels), dtype=np.float32), rate)

    @staticmethod
    def from_mono(mono: npt.ArrayLike, rate: int) -> Clip:
        data = np.asarray(mono, dtype=np.float32).reshape(-1, 1)
        return Clip(data, rate)

    def to(self, rate: int = MIX_RATE, channels: int = MIX_CHANNELS) -> Clip:
        """The same sound at another rate (linear interpolation) and channel count."""
        samples = self.samples
        if self.rate != rate and self.frames:
            frames = max(1, round(self.frames * rate / self.rate))
            old = np.arange(self.frames, dtype=np.float64) / self.rate
            new = np.arange(frames, dtype=np.float64) / rate
            samples = np.stack(
                [np.interp(new, old, samples[:, c]) for c in range(self.channels)], axis=1
            ).astype(np.float32)
        if samples.shape[1] != channels:
            mono = samples.mean(axis=1, keepdims=True)
            samples = np.repeat(mono, channels, axis=1).astype(np.float32)
        return Clip(np.ascontiguousarray(samples, dtype=np.float32), rate)
