"""The recogniser port: what every speech engine gives the listener, and the audio it takes.

An engine (Vosk, pocketsphinx, Whisper) is loaded once per game and makes one
:class:`Recogniser` per prompt grammar: the phrases of ``words.grammar``, so
every engine hears only the words valid at the open prompt. Audio is 16 kHz
mono signed 16-bit PCM in blocks. The end of an utterance is found here, by
:class:`Endpointer` (a short trailing silence), the same for every engine; an
engine that decodes whole utterances (pocketsphinx, Whisper) does its work in
``finish``.
"""

from __future__ import annotations

import logging
import math
import threading
from abc import ABC
from abc import abstractmethod
from collections import deque
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Protocol

import numpy as np

from narrator.listen.words import UNKNOWN
from narrator.listen.words import Lexicon
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NarratorError

_LOGGER = logging.getLogger(__name__)

RATE = 16000  # samples per second of every audio block given to a recogniser
SILENT_DB = -100.0


class Recogniser(Protocol):
    """One grammar's recogniser: feed blocks, get the text of each utterance."""

    @property
    def has_audio(self) -> bool:
        """Whether audio of an unfinished utterance is held (``finish`` would decode it)."""
        ...

    def feed(self, pcm: bytes) -> str | None:
        """Take a block; the utterance's text when the engine itself decided that it ended."""
        ...

    def finish(self) -> str | None:
        """End the utterance now (the endpointer heard it stop); its text, if any."""
        ...

    def reset(self) -> None: ...


class SpeechEngine(Protocol):
    """A loaded speech model of one language."""

    @property
    def name(self) -> str:
        """The engine's id for ``--asr``: ``vosk``, ``sphinx``, ``whisper``."""
        ...

    @property
    def load_seconds(self) -> float: ...

    def check(self, lexicon: Lexicon) -> None:
        """Fail loudly (ConfigError) when the model lacks a word the table needs."""
        ...

    def usable(self, phrases: Sequence[str], lexicon: Lexicon) -> tuple[str, ...]:
        """``phrases`` less the optional ones this model cannot hear (fillers, ``[unk]``)."""
        ...

    def recogniser(self, phrases: Sequence[str]) -> Recogniser: ...


class WordList(ABC):
    """What an engine with a fixed vocabulary (Vosk, pocketsphinx) checks of a grammar:
    the engine says which words it ``knows`` and how it names a lack (``lacks``)."""

    @abstractmethod
    def knows(self, word: str) -> bool: ...

    @abstractmethod
    def lacks(self, what: str) -> str:
        """The message for words it cannot hear: ``what`` names them."""

    def hears_unknown(self) -> bool:
        """Whether ``[unk]`` is heard though no word spells it (a garbage model)."""
        return False

    hint = ""  # said after the words a lexicon needs and the model lacks

    def missing(self, phrases: Sequence[str]) -> list[str]:
        return [w for p in phrases for w in p.split() if not self.knows(w)]

    def check(self, lexicon: Lexicon) -> None:
        """Fail loudly when the model lacks a word the table needs (wrong language?)."""
        missing = self.missing(lexicon.required_words())
        if missing:
            words = f"the {lexicon.lang!r} words {', '.join(missing)}"
            raise ConfigError(self.lacks(words) + self.hint)

    def usable(self, phrases: Sequence[str], lexicon: Lexicon) -> tuple[str, ...]:
        """``phrases`` less the optional ones the model lacks (fillers, ``[unk]``)."""
        optional = {*lexicon.fillers, UNKNOWN}
        kept: list[str] = []
        for phrase in phrases:
            missing = self.missing([phrase])
            if not missing or (phrase == UNKNOWN and self.hears_unknown()):
                kept.append(phrase)
            elif phrase not in optional:
                raise ConfigError(self.lacks(", ".join(missing)))
        return tuple(kept)


def level_db(pcm: bytes) -> float:
    """The RMS level of an int16 block in dB below full scale."""
    samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
    if not samples.size:
        return SILENT_DB
    rms = float(np.sqrt(np.mean(np.square(samples)))) / 32768.0
    return max(SILENT_DB, 20 * math.log10(rms)) if rms > 0 else SILENT_DB


@dataclass
class Endpointer:
    """Finds the end of an utterance: speech, then ``end_silence_s`` back at the noise level.

    The noise floor is a low percentile of the levels of the last seconds, so
    steady noise (a fan, a murmuring room) is not speech; a block is speech
    when it is ``margin_db`` above the floor and above ``min_db``. An utterance
    that never pauses is cut after ``longest_s``.
    """

    rate: int = RATE
    end_silence_s: float = 0.2
    min_speech_s: float = 0.1
    margin_db: float = 9.0
    min_db: float = -50.0
    history_s: float = 2.0
    longest_s: float = 6.0
    speech_s: float = field(default=0.0, init=False)
    silence_s: float = field(default=0.0, init=False)
    _levels: deque[float] = field(default_factory=deque, init=False, repr=False)

    @property
    def floor_db(self) -> float:
        if not self._levels:
            return SILENT_DB
        ordered = sorted(self._levels)
        return ordered[len(ordered) // 5]

    def push(self, pcm: bytes) -> bool:
        """Take a block; True exactly at the block where an utterance has ended."""
        seconds = len(pcm) / 2 / self.rate
        level = level_db(pcm)
        self._levels.append(level)
        while len(self._levels) * seconds > self.history_s:
            self._levels.popleft()
        speech = level > max(self.floor_db + self.margin_db, self.min_db)
        if speech:
            self.speech_s += seconds
            self.silence_s = 0.0
            if self.speech_s >= self.longest_s:
                self.reset()
                return True
            return False
        if self.speech_s < self.min_speech_s:
            self.speech_s = 0.0  # a click, not a word
            return False
        self.silence_s += seconds
        if self.silence_s >= self.end_silence_s:
            self.reset()
            return True
        return False

    @property
    def in_speech(self) -> bool:
        return self.speech_s > 0

    def reset(self) -> None:
        self.speech_s = self.silence_s = 0.0


class UtteranceBuffer:
    """The audio of one utterance, for engines that decode it whole when it ends.

    It keeps ``pre_roll_s`` of audio from before the speech began (the first
    consonant is quiet) and at most ``longest_s`` in all; speech is judged by
    the listener's own rule (an :class:`Endpointer`).
    """

    def __init__(self, pre_roll_s: float = 0.3, longest_s: float = 10.0) -> None:
        self.pre_roll_s = pre_roll_s
        self.longest_s = longest_s
        self._blocks: deque[bytes] = deque()
        self._seconds = 0.0
        self._speech = Endpointer()
        self._heard = False

    @property
    def has_audio(self) -> bool:
        """Whether speech was heard since the last ``take``."""
        return self._heard

    def feed(self, pcm: bytes) -> None:
        self._speech.push(pcm)
        self._heard = self._heard or self._speech.in_speech
        seconds = len(pcm) / 2 / RATE
        self._blocks.append(pcm)
        self._seconds += seconds
        keep = self.longest_s if self._heard else self.pre_roll_s + seconds
        while self._blocks and self._seconds - len(self._blocks[0]) / 2 / RATE >= keep:
            self._seconds -= len(self._blocks.popleft()) / 2 / RATE

    def take(self) -> bytes | None:
        """The utterance (None: no speech in it), and an empty buffer for the next."""
        pcm = b"".join(self._blocks) if self._heard else None
        self.reset()
        return pcm

    def reset(self) -> None:
        self._blocks.clear()
        self._seconds = 0.0
        self._heard = False
        self._speech.reset()


class WholeUtterance:
    """A recogniser that keeps one utterance's audio and decodes it whole when it ends
    (pocketsphinx, Whisper): a subclass says how, in ``decode``."""

    def __init__(self, pre_roll_s: float = 0.3, longest_s: float = 10.0) -> None:
        self._buffer = UtteranceBuffer(pre_roll_s, longest_s)

    @property
    def has_audio(self) -> bool:
        return self._buffer.has_audio

    def feed(self, pcm: bytes) -> str | None:
        self._buffer.feed(pcm)
        return None

    def finish(self) -> str | None:
        """The text of the utterance; ``[unk]`` when there was speech but the engine made
        nothing of it (an empty hypothesis, no allowed phrase close): "not understood"."""
        pcm = self._buffer.take()
        if pcm is None:
            return None
        return self.decode(pcm) or UNKNOWN

    def reset(self) -> None:
        self._buffer.reset()

    def decode(self, pcm: bytes) -> str | None:
        """The text of a whole utterance (None: nothing in it)."""
        raise NotImplementedError


class ModelLoader:
    """Loads an engine in a background thread (while the game starts) and checks its words.

    ``path`` names the model in messages; ``load`` loads it (an engine's own
    loader: ``engines.Choice.loader``, ``vosk_asr.VoskLoader``); ``loaded`` is an
    engine loaded already (mic-test, tests), whose words are only checked.
    """

    def __init__(
        self,
        path: Path,
        lexicon: Lexicon,
        loaded: SpeechEngine | None = None,
        *,
        load: Callable[[], SpeechEngine] | None = None,
    ) -> None:
        self.path = path
        self.lexicon = lexicon
        self.model: SpeechEngine | None = None
        self.error: NarratorError | None = None
        self._done = threading.Event()
        if loaded is not None:
            self._check(loaded)
            return
        if load is None:
            raise ValueError("a model loader needs a loaded engine or a way to load one")
        self._load_engine = load
        threading.Thread(target=self._load, name="speech-model", daemon=True).start()

    def _check(self, model: SpeechEngine) -> None:
        try:
            model.check(self.lexicon)
            self.model = model
        except NarratorError as error:
            self.error = error
        finally:
            self._done.set()

    def _load(self) -> None:
        try:
            model = self._load_engine()
        except NarratorError as error:
            self.error = error
            self._done.set()
            return
        _LOGGER.info("speech model %s loaded in %.1f s", self.path, model.load_seconds)
        self._check(model)

    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> SpeechEngine:
        """The model once loaded; its ConfigError if it could not be."""
        if not self._done.wait(timeout):
            raise ConfigError(f"the speech model in {self.path} is still loading")
        if self.error is not None:
            raise self.error
        assert self.model is not None
        return self.model
