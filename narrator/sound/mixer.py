"""The mixer: the speech queue over the knock bed, with ducking and fades.

``mix_block`` is a pure function over arrays; ``Mixer`` keeps the state between
blocks (what is playing, where the fades are) and is driven block by block by an
output (the sound card's producer thread, or the offline WAV renderer).
"""

from __future__ import annotations

import itertools
import random
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from narrator.sound.clip import MIX_CHANNELS
from narrator.sound.clip import MIX_RATE
from narrator.sound.clip import Clip
from narrator.sound.clip import Samples
from narrator.sound.knocks import KnockBed

Gains = npt.NDArray[np.float32]


@dataclass(frozen=True)
class MixSettings:
    bed_volume: float = 0.35  # knock bed level at full gain
    density: float = 3.0  # knocks per second
    duck: float = 0.3  # bed gain factor while speech plays
    speech_volume: float = 0.9
    fade_s: float = 0.8  # bed fade in / out
    duck_s: float = 0.06  # duck attack / release
    knocks: bool = True


def ramp(start: float, target: float, frames: int, per_frame: float) -> Gains:
    """A linear approach from ``start`` toward ``target``, at most ``per_frame`` a frame."""
    steps = np.arange(1, frames + 1, dtype=np.float32) * np.float32(per_frame)
    if target >= start:
        up: Gains = np.minimum(np.float32(start) + steps, np.float32(target))
        return up
    down: Gains = np.maximum(np.float32(start) - steps, np.float32(target))
    return down


def mix_block(
    speech: Samples, bed: Samples, cues: Samples, bed_gain: Gains, settings: MixSettings
) -> Samples:
    """Speech + ducked bed + cues; the block is scaled down if it would clip."""
    out = speech * np.float32(settings.speech_volume)
    out += bed * (bed_gain * np.float32(settings.bed_volume))[:, None]
    out += cues
    peak = float(np.max(np.abs(out))) if out.size else 0.0
    if peak > 1.0:
        out /= np.float32(peak)
    return out


class Mixer:
    """Plays speech clips one after another (never two at once, never cut) over the bed."""

    def __init__(self, settings: MixSettings | None = None, seed: int = 0) -> None:
        self.settings = settings or MixSettings()
        self.rate = MIX_RATE
        self.frame = 0  # frames rendered so far
        self._lock = threading.Lock()
        self._queue: deque[tuple[int, Samples]] = deque()
        self._current: tuple[int, Samples, int] | None = None
        self._cues: list[tuple[Samples, int]] = []
        self._bed = KnockBed(random.Random(seed), self.settings.density)
        self._night_target = 0.0
        self._night_gain = 0.0
        self._duck_gain = 1.0
        self._tokens = 0
        self.paused = False  # a paused table: silence, and nothing moves on
        self.on_started: Callable[[int, int], None] | None = None  # (token, frame)
        self.on_finished: Callable[[int, int], None] | None = None  # (token, frame)

    # --- commands (any thread) ----------------------------------------------------------

    def say(self, clip: Clip) -> int:
        """Queue a speech clip; returns a token reported by on_started / on_finished."""
        return self.say_after(clip)[0]

    def say_after(self, clip: Clip) -> tuple[int, float]:
        """Queue a speech clip: its token, and the seconds of speech still to be said
        before it begins (a line asked again, a voice-input reply)."""
        samples = clip.to(self.rate, MIX_CHANNELS).samples
        with self._lock:
            ahead = sum(len(queued) for _, queued in self._queue)
            if self._current is not None:
                _, playing, position = self._current
                ahead += len(playing) - position
            self._tokens += 1
            self._queue.append((self._tokens, samples))
            return self._tokens, ahead / self.rate

    def cue(self, clip: Clip) -> None:
        """Mix a short sound now, beside the speech (a tick, a chime)."""
        with self._lock:
            self._cues.append((clip.to(self.rate, MIX_CHANNELS).samples, 0))

    def night(self, on: bool) -> None:
        """Fade the knock bed in or out."""
        with self._lock:
            self._night_target = 1.0 if on and self.settings.knocks else 0.0

    def is_speaking(self) -> bool:
        with self._lock:
            return self._current is not None or bool(self._queue)

    def restart_speech(self) -> None:
        """The line being said starts again from its first sample.

        For a sound device that went away in the middle of a line: the table did
        not hear its end, so it hears the whole line once the device is back.
        """
        with self._lock:
            if self._current is not None:
                token, samples, _ = self._current
                self._current = (token, samples, 0)

    # --- rendering (one thread) -----------------------------------------------------------

    def pause(self, on: bool) -> None:
        with self._lock:
            self.paused = on

    def render(self, frames: int) -> Samples:
        with self._lock:
            if self.paused:
                self.frame += frames
                return np.zeros((frames, MIX_CHANNELS), dtype=np.float32)
            speech, active = self._speech(frames)
            cues = self._mix_cues(frames)
            night = ramp(
                self._night_gain, self._night_target, frames, 1 / (self.settings.fade_s * self.rate)
            )
            self._night_gain = float(night[-1]) if frames else self._night_gain
            duck = self._duck(active, frames)
            bed_on = self._night_gain > 0 or self._night_target > 0
            bed = (
                self._bed.render(frames) if bed_on else np.zeros((frames, MIX_CHANNELS), np.float32)
            )
            out = mix_block(speech, bed, cues, night * duck, self.settings)
            self.frame += frames
            return out

    def _speech(self, frames: int) -> tuple[Samples, npt.NDArray[np.bool_]]:
        out = np.zeros((frames, MIX_CHANNELS), dtype=np.float32)
        active = np.zeros(frames, dtype=np.bool_)
        done = 0
        while done < frames:
            if self._current is None:
                if not self._queue:
                    break
                token, samples = self._queue.popleft()
                self._current = (token, samples, 0)
                if self.on_started is not None:
                    self.on_started(token, self.frame + done)
            token, samples, position = self._current
            take = min(frames - done, len(samples) - position)
            out[done : done + take] = samples[position : position + take]
            active[done : done + take] = True
            done += take
            position += take
            if position >= len(samples):
                self._current = None
                if self.on_finished is not None:
                    self.on_finished(token, self.frame + done)
            else:
                self._current = (token, samples, position)
        return out, active

    def _duck(self, active: npt.NDArray[np.bool_], frames: int) -> Gains:
        per_frame = 1 / (self.settings.duck_s * self.rate)
        gains = np.empty(frames, dtype=np.float32)
        gain = self._duck_gain
        edges = [0, *(np.flatnonzero(np.diff(active.astype(np.int8))) + 1).tolist(), frames]
        for start, end in itertools.pairwise(edges):  # one ramp per run
            if end <= start:
                continue
            target = self.settings.duck if bool(active[start]) else 1.0
            gains[start:end] = ramp(gain, target, end - start, per_frame)
            gain = float(gains[end - 1])
        self._duck_gain = gain
        return gains

    def _mix_cues(self, frames: int) -> Samples:
        out = np.zeros((frames, MIX_CHANNELS), dtype=np.float32)
        still: list[tuple[Samples, int]] = []
        for samples, position in self._cues:
            take = min(frames, len(samples) - position)
            out[:take] += samples[position : position + take]
            if position + take < len(samples):
                still.append((samples, position + take))
        self._cues = still
        return out
