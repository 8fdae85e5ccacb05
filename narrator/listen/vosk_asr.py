"""The Vosk adapter: a model folder loaded once, one recogniser per prompt grammar.

Vosk is imported only here. A model is always given as a folder path
(``Model(lang=...)`` would download from the internet and may ``sys.exit``).
Only models with a runtime-grammar graph (``HCLr.fst`` + ``Gr.fst``, the small
ones) can be restricted to the words valid at a prompt, so others are refused.
Grammars go to Vosk as ``json.dumps(phrases, ensure_ascii=False)``: escaped
Cyrillic would be "missing in vocabulary" and silently dropped, which is also
why every word is looked up in the model's vocabulary first.

Audio is 16 kHz mono signed 16-bit PCM. The end of an utterance is found by
the port's :class:`~narrator.listen.endpoint.Endpointer` (voice activity)
rather than by Vosk's own rule, which waits half a second.

An answer with a word Vosk is unsure of (its confidence below ``CONFIDENCE``)
is "not understood": a wrong seat is worse than none. Vosk's confidences are
often 1.0 on wrong words too, so the ``[unk]`` word in each grammar (speech
outside it) does most of the rejecting; the threshold could not be tuned here
(no Russian or English model can be downloaded on the project's machines).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import stat
import time
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from narrator.listen.engine import RATE
from narrator.listen.engine import ModelLoader
from narrator.listen.engine import WordList
from narrator.listen.words import UNKNOWN
from narrator.listen.words import Lexicon
from narrator.rules.errors import ConfigError

_LOGGER = logging.getLogger(__name__)

CONFIDENCE = 0.3  # the least confidence of each word of an answer (not tuned: see above)


def require_vosk() -> ModuleType:
    try:
        module = importlib.import_module("vosk")
    except ImportError as error:
        if error.name not in {"vosk", "vosk.vosk_cffi"}:
            raise
        raise ConfigError("vosk is not installed: pip install vosk") from None
    module.SetLogLevel(-1)  # our own checks say what matters, in one line
    return module


def model_problem(path: Path) -> str | None:
    """Why ``path`` is not a usable Vosk model folder (None: it looks like one)."""
    try:
        return _model_problem(path)
    except OSError as error:  # a name too long, a folder one may not look into
        return f"{path}: {error.strerror or error}"


MAX_MODEL_ENTRIES = 20_000  # files and folders in a model folder (a small model has ~30)


def _model_problem(path: Path) -> str | None:
    if not path.exists():
        return f"{path} does not exist"
    if not path.is_dir():
        return f"{path} is not a folder"
    odd = _not_a_file(path)
    if odd is not None:
        return odd
    if not any((path / p).is_file() for p in ("am/final.mdl", "final.mdl")):
        return f"{path} is not a Vosk model folder (no am/final.mdl)"
    if not any(
        (path / d / "HCLr.fst").is_file() and (path / d / "Gr.fst").is_file()
        for d in ("graph", ".")
    ):
        return (
            f"the model in {path} cannot be restricted to a grammar (no graph/HCLr.fst and "
            "graph/Gr.fst); use a small model such as vosk-model-small-ru-0.22"
        )
    return None


def _not_a_file(path: Path) -> str | None:
    """Why the folder cannot be handed to Vosk, which reads every file it names whole and
    blocking: a named pipe, a device or a dangling link inside, or too many entries."""
    count = 0
    for folder, dirs, files in os.walk(path):
        count += len(dirs) + len(files)
        if count > MAX_MODEL_ENTRIES:
            return f"{path}: more than {MAX_MODEL_ENTRIES} files, not a Vosk model folder"
        for name in files:
            try:
                mode = (Path(folder) / name).stat().st_mode
            except OSError:
                return f"{Path(folder) / name}: a link to nothing, not a model file"
            if not stat.S_ISREG(mode):
                return f"{Path(folder) / name}: not a regular file, not a model file"
    return None


class SpeechModel(WordList):
    """A loaded Vosk model and its vocabulary (a ``SpeechEngine``)."""

    name = "vosk"

    def __init__(self, path: Path, handle: Any, seconds: float) -> None:
        self.path = path
        self.handle = handle
        self.load_seconds = seconds
        self._known: dict[str, bool] = {}

    @classmethod
    def load(cls, path: Path) -> SpeechModel:
        """Load a model folder; any problem is one ConfigError naming the folder."""
        problem = model_problem(path)
        if problem is not None:
            raise ConfigError(problem)
        vosk = require_vosk()
        start = time.monotonic()
        try:
            with _native_stderr_quiet():  # Kaldi prints its own ERROR line before raising
                handle = vosk.Model(str(path))
        except Exception as error:  # vosk raises a bare Exception("Failed to create a model")
            raise ConfigError(
                f"the speech model in {path} does not load ({error}); it may be corrupt or "
                "incomplete: download it again (`narrator models download`)"
            ) from None
        return cls(path, handle, time.monotonic() - start)

    def knows(self, word: str) -> bool:
        if word not in self._known:
            self._known[word] = self.handle.vosk_model_find_word(word) != -1
        return self._known[word]

    def lacks(self, what: str) -> str:
        return f"the speech model in {self.path} does not know {what}"

    hint = ": is it a model of that language?"

    def recogniser(self, phrases: Sequence[str], rate: int = RATE) -> VoskRecogniser:
        return VoskRecogniser(self, phrases, rate)


class VoskRecogniser:
    """One grammar's streaming recogniser: feed blocks, get the text of each utterance."""

    def __init__(self, model: SpeechModel, phrases: Sequence[str], rate: int = RATE) -> None:
        vosk = require_vosk()
        self.phrases = tuple(phrases)
        grammar = json.dumps(list(self.phrases), ensure_ascii=False)
        self._rec = vosk.KaldiRecognizer(model.handle, rate, grammar)
        self._rec.SetWords(True)  # each word's confidence in the result
        self.has_audio = False

    def feed(self, pcm: bytes) -> str | None:
        """Take a block; the utterance's text when Vosk itself decided that it ended."""
        self.has_audio = True
        if self._rec.AcceptWaveform(pcm):
            self.has_audio = False
            return _text(self._rec.Result())
        return None

    def finish(self) -> str | None:
        """End the utterance now (the endpointer heard it stop); its text, if any."""
        if not self.has_audio:
            return None
        self.has_audio = False
        return _text(self._rec.FinalResult())

    def reset(self) -> None:
        self._rec.Reset()
        self.has_audio = False


def _text(result: str) -> str | None:
    """The utterance's text; ``[unk]`` when a word of it is below ``CONFIDENCE``."""
    found = json.loads(result)
    text = str(found.get("text", "")).strip()
    words = found.get("result") or []
    if text and any(float(word.get("conf", 1.0)) < CONFIDENCE for word in words):
        return UNKNOWN
    return text or None


class VoskLoader(ModelLoader):
    """The Vosk model folder at ``path`` loading in the background (``loaded``: already)."""

    def __init__(self, path: Path, lexicon: Lexicon, loaded: SpeechModel | None = None) -> None:
        super().__init__(path, lexicon, loaded, load=lambda: SpeechModel.load(path))


@contextlib.contextmanager
def _native_stderr_quiet() -> Iterator[None]:
    """File descriptor 2 pointed at /dev/null meanwhile: what a C++ library writes there
    would be a second line under our one-line message."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)
