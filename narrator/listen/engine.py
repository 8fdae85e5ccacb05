"""The recogniser port: what every speech engine gives the listener, and the audio it takes.

An engine (Vosk, pocketsphinx, Whisper) is loaded once per game and makes one
:class:`Recogniser` per prompt grammar: the phrases of ``words.grammar``, so
every engine hears only the words valid at the open prompt. Audio is 16 kHz
mono signed 16-bit PCM in blocks. Where an utterance begins and ends is found
by ``endpoint.Endpointer`` (voice activity), the same for every engine, and
``endpoint.Stream`` feeds a recogniser only the utterance; an engine that
decodes whole utterances (pocketsphinx, Whisper) does its work in ``finish``.
"""

from __future__ import annotations

import logging
import threading
from abc import ABC
from abc import abstractmethod
from collections import deque
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from narrator.listen.words import UNKNOWN
from narrator.listen.words import Lexicon
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NarratorError

_LOGGER = logging.getLogger(__name__)

RATE = 16000  # samples per second of every audio block given to a recogniser


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


class UtteranceBuffer:
    """The audio of one utterance, for engines that decode it whole when it ends.

    The :class:`~narrator.listen.endpoint.Stream` feeds it only the utterance
    (and a moment before it); it keeps at most ``longest_s``.
    """

    def __init__(self, longest_s: float = 10.0) -> None:
        self.longest_s = longest_s
        self._blocks: deque[bytes] = deque()
        self._seconds = 0.0

    @property
    def has_audio(self) -> bool:
        return bool(self._blocks)

    def feed(self, pcm: bytes) -> None:
        self._blocks.append(pcm)
        self._seconds += len(pcm) / 2 / RATE
        while len(self._blocks) > 1 and self._seconds > self.longest_s:
            self._seconds -= len(self._blocks.popleft()) / 2 / RATE

    def take(self) -> bytes | None:
        """The utterance (None: nothing was fed), and an empty buffer for the next."""
        pcm = b"".join(self._blocks) if self._blocks else None
        self.reset()
        return pcm

    def reset(self) -> None:
        self._blocks.clear()
        self._seconds = 0.0


class WholeUtterance:
    """A recogniser that keeps one utterance's audio and decodes it whole when it ends
    (pocketsphinx, Whisper): a subclass says how, in ``decode``."""

    def __init__(self, longest_s: float = 10.0) -> None:
        self._buffer = UtteranceBuffer(longest_s)

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
