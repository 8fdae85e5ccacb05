"""Speech made faster or slower without changing its pitch (WSOLA).

Festival's unit-selection voices (clunits, such as the Russian ``msu_ru_nsh``)
splice recorded units at their recorded length and ignore ``Duration_Stretch``,
so the speech rate is applied to their audio afterwards.  WSOLA cuts the sound
into overlapping windows and lays them down at another spacing, each window
taken from where it continues the previous one best (the cross-correlation
peak within a small tolerance), which keeps pitch periods whole.  At the
natural pace (speed 1) the samples are returned untouched.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

WINDOW_S = 0.030  # about three pitch periods of a low voice
TOLERANCE_S = 0.008  # how far a window may move to line up with the last one
SPEEDS = (0.3, 3.0)

Mono = npt.NDArray[np.float32]


def at_speed(samples: Mono, rate: int, speed: float) -> Mono:
    """``samples`` (mono) played ``speed`` times as fast, at the same pitch."""
    low, high = SPEEDS
    if not low <= speed <= high:
        raise ValueError(f"speed {speed} is outside {low}–{high}")
    if abs(speed - 1.0) < 1e-3 or samples.size == 0:
        return samples
    window = max(16, round(WINDOW_S * rate) // 2 * 2)
    hop = window // 2  # output hop; Hann windows at half overlap sum to one
    tolerance = max(1, round(TOLERANCE_S * rate))
    source = np.concatenate(
        [
            np.zeros(tolerance, np.float32),
            samples.astype(np.float32),
            np.zeros(window + tolerance, np.float32),
        ]
    )
    frames = max(1, int(np.ceil(samples.size / speed / hop)))
    out = np.zeros(frames * hop + window, dtype=np.float64)
    shape = np.hanning(window + 2)[1:-1]
    previous = tolerance  # where the last window started in ``source``
    for frame in range(frames):
        nominal = tolerance + round(frame * hop * speed)
        if frame == 0:
            start = nominal
        else:
            natural = source[previous + hop : previous + hop + window]
            lo = max(0, nominal - tolerance)
            hi = min(source.size - window, nominal + tolerance)
            region = source[lo : hi + window]
            scores = np.correlate(region, natural, mode="valid")
            start = lo + int(np.argmax(scores)) if scores.size else nominal
        piece = source[start : start + window]
        out[frame * hop : frame * hop + piece.size] += shape[: piece.size] * piece
        previous = start
    length = round(samples.size / speed)
    return np.clip(out[:length], -1.0, 1.0).astype(np.float32)
