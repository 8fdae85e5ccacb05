"""The pocketsphinx adapter: the recogniser that installs from packages, no download.

pocketsphinx is imported only here. Its wheel ships a US-English acoustic
model and dictionary; a Russian answer word is spelled in those English phones
(``phones/ru.dict``: пять ``P Y AA T``), which makes Russian experimental but
usable. Each prompt's phrases become a JSGF grammar (up to two fillers, then
one answer), so nothing else can be heard; open-vocabulary decoding is far
worse on single words.

The whole utterance is decoded in one call when the endpointer says it ended
(ten points better than streaming, and a few milliseconds): ``feed`` only keeps
the audio from a moment before the speech began. A faint fixed dither is added
because the decoder fails on pure digital silence. An utterance decoded to
nothing or to a fragment reads as "not understood" upstream. The lattice pass
(``bestpath``) is off: on the corpus it cost most of the decoding time (five
times as much on noisy speech) for no gain (Russian was better without it,
English about even: a few more numbers, a few more false accepts). The model's noise
removal adapts to the room from one utterance to the next, so what an utterance
gives depends a little on the ones heard before it.

An answer must also sound like itself more than like anything else: the same
audio is decoded a second time by a free loop of phones (the closest any
speech can get), and an answer whose score per frame falls more than
``REJECT[lang]`` below that loop's is speech outside the grammar forced onto
the nearest answer: "not understood". The thresholds were swept on the
tuning half of the corpus's voices (``scripts/tune_asr.py``): no threshold keeps
English chatter under 3 % (even the strictest takes 2.5 % of clean chatter, and
a room's wrong seats stay over 2 % until almost nothing is understood), and
Russian meets the goals only where 4 % of clean answers are understood. So
pocketsphinx listens only when asked for (``--asr sphinx``, experimental), and
its thresholds sit where wrong seats in clean speech fall to about 1 % (English:
62 % right) and 3 % (Russian: 36 % right).
"""

from __future__ import annotations

import math
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from narrator.listen.engine import RATE
from narrator.listen.engine import WholeUtterance
from narrator.listen.engine import WordList
from narrator.listen.words import UNKNOWN
from narrator.listen.words import Lexicon
from narrator.listen.words import lexicon_for
from narrator.rules.errors import ConfigError
from narrator.voice.install import require

PACKAGE = "pip install pocketsphinx==5.1.1"
LANGS = ("en", "ru")
EXPERIMENTAL = frozenset(LANGS)  # measured far from the goals: only with --asr
LONGEST_S = 10.0  # audio kept of one utterance (the endpointer gives up at 4 s)
GARBAGE = "unk_"  # the words that stand for speech outside the grammar
GARBAGE_WEIGHT = 0.01  # their branch's weight against the answers' (1)
GARBAGE_SHAPE = "({words})+"
WIP = 0.65  # word insertion penalty: each garbage word costs this much
DITHER = 3.0  # standard deviation in int16 steps (about -80 dBFS): not digital silence
PHONES = "phones"  # the search of the free phone loop
# The lowest score per frame (the decoder's log units, base 1.0001) an answer may have
# below the phone loop's.
REJECT = {"en": -22.0, "ru": -20.0}


def require_pocketsphinx() -> ModuleType:
    return require("pocketsphinx", PACKAGE)


def model_folder() -> Path:
    """The acoustic model inside the pocketsphinx wheel."""
    return Path(require_pocketsphinx().get_model_path()) / "en-us" / "en-us"


def read_dictionary(lines: Iterable[str]) -> dict[str, list[str]]:
    """``word phones…`` lines (``word(2)`` for an alternative) as word → pronunciations."""
    found: dict[str, list[str]] = {}
    for line in lines:
        parts = line.split()
        if len(parts) < 2 or line.startswith(";;;"):
            continue
        word = parts[0].split("(")[0]
        found.setdefault(word, []).append(" ".join(parts[1:]))
    return found


def dictionary_for(lang: str, words: Iterable[str]) -> dict[str, list[str]]:
    """The pronunciations of ``words`` (the ones known) for ``lang``'s answers."""
    wanted = set(words)
    if lang == "ru":
        text = resources.files("narrator.listen").joinpath("phones/ru.dict").read_text("utf-8")
        lines: Iterable[str] = text.splitlines()
    else:
        source = model_folder().parent / "cmudict-en-us.dict"
        lines = source.read_text("utf-8").splitlines()
    return {w: p for w, p in read_dictionary(lines).items() if w in wanted}


def garbage_words(lang: str) -> dict[str, str]:
    """The words that stand for "[unk]" (phones/garbage.toml), as ``unk_<word>`` → phones."""
    text = resources.files("narrator.listen").joinpath("phones/garbage.toml").read_text("utf-8")
    table: dict[str, dict[str, str]] = tomllib.loads(text)
    return {f"{GARBAGE}{word}": phones for word, phones in table.get(lang, {}).items()}


def jsgf(
    phrases: Sequence[str],
    lexicon: Lexicon,
    words: Mapping[str, Sequence[str]] | None = None,
    garbage: Mapping[str, str] | None = None,
) -> str:
    """One utterance: up to three fillers («игрок номер», "i vote for"), then one answer.

    A filler that sounds like an answer here ("for" and "four") is left out. With
    ``[unk]`` in ``phrases`` the whole utterance may instead be a few ``garbage``
    words (name → phones), at a low weight: speech that is no answer is heard as
    them. A garbage word that sounds like a word of the grammar ("to" and "two")
    is left out too: it would take that answer for "not understood".
    """
    fillers = {*lexicon.fillers, *lexicon.nominate_phrases}
    yes_no = {*lexicon.yes, *lexicon.no}
    asked = any(p in yes_no and p not in fillers for p in phrases)  # a yes/no prompt
    answers = [
        p
        for p in phrases
        if p != UNKNOWN and (p not in fillers or (asked and p in yes_no) or _means(p, lexicon))
    ]
    sounds = {s for a in answers for s in _sounds(a, words)} if words is not None else set()
    fill = [p for p in phrases if p in fillers and not sounds & set(_sounds(p, words))]
    # Fillers alone are an utterance too («я выставляю игрока», then a pause, then the
    # number): they mean nothing, so talk that sounds like them is harmless.
    answer = "(<filler> [<filler>] [<filler>] [<answer>] | <answer>)" if fill else "<answer>"
    spoken = {s for p in (*answers, *fill) for w in p.split() for s in (words or {}).get(w, ())}
    unknown = [g for g, phones in (garbage or {}).items() if phones not in spoken]
    lines = ["#JSGF V1.0;", "grammar answers;"]
    if unknown and UNKNOWN in phrases:
        lines.append(f"public <utterance> = /1/ ({answer}) | /{GARBAGE_WEIGHT}/ <garbage>;")
        lines.append(f"<garbage> = {GARBAGE_SHAPE.format(words=' | '.join(unknown))};")
    else:
        lines.append(f"public <utterance> = {answer};")
    if fill:
        lines.append(f"<filler> = {' | '.join(fill)};")
    lines.append(f"<answer> = {' | '.join(answers)};")
    return "\n".join(lines) + "\n"


def _sounds(phrase: str, words: Mapping[str, Sequence[str]] | None) -> list[str]:
    """Every way ``phrase`` is pronounced (one-word phrases; longer ones are not homophones)."""
    if words is None or " " in phrase:
        return []
    return list(words.get(phrase, ()))


def _means(phrase: str, lexicon: Lexicon) -> bool:
    """Whether a filler phrase also means something (yes and no aside: only where asked)."""
    meaningful = (
        *lexicon.numbers,
        *lexicon.nobody,
        *lexicon.abstain,
        *lexicon.thanks,
        *lexicon.repeat,
        *lexicon.nominate,
    )
    return phrase in meaningful


class SphinxEngine(WordList):
    """The pocketsphinx decoder of one language, with one JSGF search per grammar."""

    name = "sphinx"

    def __init__(
        self,
        lang: str,
        decoder: Any,
        words: dict[str, list[str]],
        garbage: dict[str, str],
        seconds: float,
    ) -> None:
        self.lang = lang
        self.decoder = decoder
        self.words = words
        self.garbage = garbage  # unk_<word> → its phones
        self.load_seconds = seconds
        self.experimental = lang in EXPERIMENTAL
        self.lock = threading.Lock()  # one decoder: one utterance at a time
        self._searches: dict[tuple[str, ...], str] = {}
        self._active: str | None = None

    @classmethod
    def load(cls, lang: str) -> SphinxEngine:
        if lang not in LANGS:
            raise ConfigError(f"pocketsphinx has no {lang!r} words; languages: {', '.join(LANGS)}")
        sphinx = require_pocketsphinx()
        lexicon = lexicon_for(lang)
        started = time.monotonic()
        words = dictionary_for(lang, [*lexicon.required_words(), *_filler_words(lexicon)])
        garbage = garbage_words(lang)
        with tempfile.TemporaryDirectory(prefix="narrator-sphinx-") as folder:
            dictionary = Path(folder) / f"{lang}.dict"
            dictionary.write_text(
                "".join(
                    f"{word}{'' if i == 0 else f'({i + 1})'} {phones}\n"
                    for word, spellings in {
                        **words,
                        **{g: [phones] for g, phones in garbage.items()},
                    }.items()
                    for i, phones in enumerate(spellings)
                ),
                "utf-8",
            )
            decoder = sphinx.Decoder(
                hmm=str(model_folder()),
                dict=str(dictionary),
                samprate=RATE,
                lm=None,
                loglevel="FATAL",
                wip=WIP,
                bestpath=False,
            )
            decoder.add_allphone_file(PHONES, None)
        return cls(lang, decoder, words, garbage, time.monotonic() - started)

    def knows(self, word: str) -> bool:
        return word in self.words

    def lacks(self, what: str) -> str:
        return f"pocketsphinx has no pronunciation of {what}"

    def hears_unknown(self) -> bool:
        return bool(self.garbage)

    def recogniser(self, phrases: Sequence[str]) -> SphinxRecogniser:
        key = tuple(phrases)
        with self.lock:
            if key not in self._searches:
                name = f"g{len(self._searches)}"
                grammar = jsgf(key, lexicon_for(self.lang), self.words, self.garbage)
                self.decoder.add_jsgf_string(name, grammar)
                self._searches[key] = name
        return SphinxRecogniser(self, self._searches[key])

    def weigh(self, search: str, pcm: bytes) -> tuple[str | None, float]:
        """The best phrase of ``search`` for a whole utterance (None: nothing) and its score
        per frame over the free phone loop's (how much more it sounds like itself than
        like any speech)."""
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
        noise = np.random.default_rng(len(samples)).normal(0.0, DITHER, len(samples))
        dithered = np.clip(samples + noise, -32768, 32767).astype(np.int16).tobytes()
        with self.lock:
            text, score, frames = self._pass(search, dithered)
            if not text or GARBAGE in text:
                return (UNKNOWN if text else None), -math.inf  # speech outside the grammar
            _, loop, _ = self._pass(PHONES, dithered)
        margin = (score - loop) / max(frames, 1)
        if margin < REJECT[self.lang]:
            return UNKNOWN, margin  # an answer only because the grammar had nothing closer
        return text, margin

    def _pass(self, search: str, pcm: bytes) -> tuple[str, int, int]:
        """One decoding of ``pcm`` by ``search``: its text, score (log units) and frames."""
        if self._active != search:  # (current_search() crashes before the first one)
            self.decoder.activate_search(search)
            self._active = search
        self.decoder.start_utt()
        self.decoder.process_raw(pcm, False, True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        if hyp is None:
            return "", self.decoder.logmath.get_zero(), self.decoder.n_frames()
        score = self.decoder.logmath.log(hyp.score)
        return str(hyp.hypstr).strip(), int(score), int(self.decoder.n_frames())


def _filler_words(lexicon: Lexicon) -> list[str]:
    return [w for phrase in lexicon.fillers for w in phrase.split()]


class SphinxRecogniser(WholeUtterance):
    """Keeps one utterance's audio and decodes it whole when it ends."""

    def __init__(self, engine: SphinxEngine, search: str) -> None:
        super().__init__(LONGEST_S)
        self.engine = engine
        self.search = search
        self.evidence: dict[str, float] = {}  # how sure the last decode was (tuning)

    def decode(self, pcm: bytes) -> str | None:
        text, margin = self.engine.weigh(self.search, pcm)
        self.evidence = {"margin": margin}
        return text
