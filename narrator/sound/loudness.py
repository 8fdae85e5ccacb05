"""Every spoken clip at one loudness, without the silence engines put around it.

Engines and recorded packs come out at very different levels: espeak-ng near
full scale, Festival around −20 dBFS, hibari quiet (about −27 dBFS) with
0.3–0.4 s of silence at each end.  Under the knock bed that is the difference
between a line that carries and one that is lost, and a silent lead makes the
host seem to hesitate.  ``levelled`` fixes both, the same way for every source:

1. **Trim** the leading and trailing silence: a sample counts as sound when it
   is louder than both ``TRIM_BELOW_PEAK_DB`` under the clip's peak and the
   absolute floor ``TRIM_FLOOR_DBFS``; ``MARGIN_S`` is kept before the first and
   after the last sound (so soft onsets and word endings stay whole), with a
   short fade where something was cut; an end with less than 10 ms more than the
   margin is left as it is.  Nothing inside the speech is touched.
2. **Normalise**: the target is a gated RMS of **−21 dBFS** (``TARGET_DBFS``):
   the clip is cut in 20 ms frames, frames quieter than −60 dBFS (absolute gate)
   are left out, then frames more than 20 dB under the mean of the rest
   (relative gate, as in EBU R128 but without K-weighting), and the RMS of the
   frames left — the voiced ones — is brought to the target.  The sample peak
   may not exceed **−1 dBFS** (``CEILING_DBFS``): when the target would push it
   higher, the ceiling wins and the clip stays a little under the target.
   −21 dBFS is about where espeak-ng's lines sat before (the level the mixer's
   bed and ducking were tuned against) and leaves 20 dB to the ceiling: more
   than the peak-to-loudness ratio of the speech measured (espeak-ng 16.5–20.4 dB,
   Festival and hibari 12–16 dB), so the ceiling rarely costs more than 0.5 dB.

A clip with nothing above the gates (silence, a faint hiss) is returned as it
came, and one quieter than −50 dBFS (``QUIETEST_DBFS``: a noise floor, not a
voice) is only trimmed.  Running it twice changes nothing (within 0.1 dB): the
gates are relative and the second pass finds the margins already in place.
Pure numpy, about 2 ms for a 3 s line.
"""

from __future__ import annotations

import numpy as np

from narrator.sound.clip import Clip
from narrator.sound.clip import Samples

# Bump when the rule changes: cached levelled audio made under another rule is stale.
VERSION = "1"

TARGET_DBFS = -21.0
CEILING_DBFS = -1.0
FRAME_S = 0.020
ABSOLUTE_GATE_DBFS = -60.0
RELATIVE_GATE_DB = -20.0
TRIM_BELOW_PEAK_DB = -45.0
TRIM_FLOOR_DBFS = -60.0
MARGIN_S = 0.040
FADE_S = 0.005
# Ends this close to the margin already are left alone, so that a second pass (where a
# sample at the threshold may round the other way) trims nothing.
SLACK_S = 0.010
# A clip whose voiced frames are quieter than this is a noise floor or a failed take, not a
# voice: it is left at its level rather than raised into a loud hiss.
QUIETEST_DBFS = -50.0


def _amplitude(db: float) -> float:
    return float(10.0 ** (db / 20.0))


def peak_dbfs(clip: Clip) -> float:
    """The sample peak in dBFS (−inf for silence)."""
    peak = float(np.max(np.abs(clip.samples))) if clip.samples.size else 0.0
    return 20.0 * float(np.log10(peak)) if peak > 0 else float("-inf")


def loudness_dbfs(clip: Clip) -> float | None:
    """The gated RMS of the voiced frames in dBFS; None when no frame passes the gates."""
    size = max(1, round(FRAME_S * clip.rate))
    frames = -(-clip.frames // size)
    if frames == 0:
        return None
    samples = clip.samples
    squares = np.einsum("ij,ij->i", samples, samples) / np.float32(clip.channels)
    padded = np.zeros(frames * size, dtype=np.float32)
    padded[: clip.frames] = squares
    counts = np.full(frames, size, dtype=np.float64)
    counts[-1] = clip.frames - (frames - 1) * size
    power = padded.reshape(frames, size).sum(axis=1, dtype=np.float64) / counts
    loud = power[power > 10.0 ** (ABSOLUTE_GATE_DBFS / 10.0)]
    if loud.size == 0:
        return None
    voiced = loud[loud > loud.mean() * 10.0 ** (RELATIVE_GATE_DB / 10.0)]
    return 10.0 * float(np.log10(voiced.mean()))


def _fade(samples: Samples, frames: int, rising: bool) -> None:
    frames = min(frames, samples.shape[0])
    if frames <= 0:
        return
    curve = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, frames, dtype=np.float64))
    shape = (curve if rising else curve[::-1]).astype(np.float32)[:, None]
    if rising:
        samples[:frames] *= shape
    else:
        samples[-frames:] *= shape


def trimmed(clip: Clip) -> Clip:
    """``clip`` without its leading and trailing silence (``MARGIN_S`` kept); as is if silent."""
    if clip.frames == 0:
        return clip
    level = np.max(np.abs(clip.samples), axis=1)
    peak = float(level.max())
    threshold = max(peak * _amplitude(TRIM_BELOW_PEAK_DB), _amplitude(TRIM_FLOOR_DBFS))
    sound = np.flatnonzero(level > threshold)
    if sound.size == 0:
        return clip
    margin = round(MARGIN_S * clip.rate)
    slack = round(SLACK_S * clip.rate)
    start = int(sound[0]) - margin
    start = 0 if start <= slack else start
    end = int(sound[-1]) + 1 + margin
    end = clip.frames if clip.frames - end <= slack else end
    if start == 0 and end == clip.frames:
        return clip
    samples = np.array(clip.samples[start:end], dtype=np.float32)
    fade = round(FADE_S * clip.rate)
    if start > 0:
        _fade(samples, fade, rising=True)
    if end < clip.frames:
        _fade(samples, fade, rising=False)
    return Clip(samples, clip.rate)


def gain_db(clip: Clip) -> float:
    """The gain that brings ``clip`` to the target, or to the ceiling if that is lower."""
    loudness = loudness_dbfs(clip)
    if loudness is None or loudness < QUIETEST_DBFS:
        return 0.0
    return min(TARGET_DBFS - loudness, CEILING_DBFS - peak_dbfs(clip))


def levelled(clip: Clip) -> Clip:
    """``clip`` trimmed of silence at both ends and brought to the one loudness."""
    out = trimmed(clip)
    # A second step, because a gain moves quiet frames across the absolute gate and so
    # moves the measured loudness a little; after it the clip sits within 0.01 dB.
    for _ in range(2):
        gain = gain_db(out)
        if abs(gain) < 0.01:
            break
        samples = np.clip(out.samples * np.float32(_amplitude(gain)), -1.0, 1.0)
        out = Clip(np.ascontiguousarray(samples, dtype=np.float32), out.rate)
    return out
