"""Which voices this machine has, and which one speaks a language.

The registry starts each engine once per process (``engine``), and only when a
voice of its is used: heavy engines are imported at that moment.  A missing
engine is not an error: its voices are absent, ``survey`` says why and how to
install it, and the next best voice speaks.  ``ENGINE:VOICE``
(``festival:msu_ru_nsh_clunits``, ``hibari:heart``, ``espeak:zle/ru``) names a
voice, ``ENGINE`` alone (or ``ENGINE:default``) that engine's best voice, and a
bare voice id still works.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field

from narrator.rules.errors import ConfigError
from narrator.voice.engines import BEST
from narrator.voice.engines import DEFAULT
from narrator.voice.engines import ENGINE_NAMES
from narrator.voice.engines import FESTIVAL
from narrator.voice.engines import GOOD
from narrator.voice.engines import HIBARI
from narrator.voice.engines import SYSTEM
from narrator.voice.engines import Engine
from narrator.voice.engines import VoiceInfo
from narrator.voice.engines import system_driver
from narrator.voice.install import engine_hint
from narrator.voice.install import language_hint

_LOGGER = logging.getLogger(__name__)

# The regional voice picked first for a language, among voices of one quality.
_PREFERRED_TAGS = {"en": ("en-us", "en-gb", "en"), "ru": ("ru", "ru-ru")}


def engine_names() -> list[str]:
    """The engines that may run on this platform, best first."""
    return [FESTIVAL, HIBARI, system_driver()]


def _expected(engine: str) -> dict[str, int]:
    """The languages ``engine`` speaks once installed, with its best quality in each.

    Festival is expected where the set-up script installs it (Linux); elsewhere
    its absence is normal and not worth a warning.
    """
    if engine == HIBARI:
        return {"en": BEST}
    if engine == FESTIVAL and sys.platform.startswith("linux"):
        return {"ru": BEST, "en": GOOD}
    return {}


# --- the registry ----------------------------------------------------------------------------

_shared: dict[str, Engine] = {}
_shared_lock = threading.Lock()


def _make(name: str) -> Engine:
    if name == FESTIVAL:
        from narrator.voice.engines.festival import FestivalEngine

        return FestivalEngine()
    if name == HIBARI:
        from narrator.voice.engines.hibari import HibariEngine

        return HibariEngine()
    from narrator.voice.engines.system import SystemEngine

    return SystemEngine.shared(name)


def engine(name: str) -> Engine:
    """The process's one engine called ``name`` (``system``: the platform's pyttsx3 driver)."""
    name = system_driver() if name == SYSTEM else name
    if name not in ENGINE_NAMES:
        raise ConfigError(
            f"unknown speech engine {name!r}; engines: {', '.join(sorted(ENGINE_NAMES))}"
        )
    with _shared_lock:
        found = _shared.get(name)
        if found is None:
            found = _shared[name] = _make(name)
        return found


def engine_for(voice: VoiceInfo) -> Engine:
    """The engine that speaks ``voice``."""
    return engine(voice.driver)


def close_all() -> None:
    """Stop every engine started in this process (Festival's process, hibari's model, …)."""
    with _shared_lock:
        started = list(_shared.values())
    for each in started:
        each.close()


@dataclass(frozen=True)
class Survey:
    """What this machine can speak with: every voice, and why each missing engine is missing."""

    voices: list[VoiceInfo] = field(default_factory=list)
    engines: dict[str, int] = field(default_factory=dict)  # engine → how many voices
    missing: dict[str, str] = field(default_factory=dict)  # engine → why, and how to install


def survey(names: Sequence[str] | None = None) -> Survey:
    """Ask every engine (or those ``names``) for its voices; a failing one is listed as missing."""
    result = Survey()
    for name in names if names is not None else engine_names():
        try:
            voices = engine(name).voices()
        except ConfigError as error:
            result.missing[name] = str(error)
            continue
        if not voices:
            result.missing[name] = f"{name} has no voices: {engine_hint(name)}"
            continue
        result.engines[name] = len(voices)
        result.voices.extend(voices)
    return result


# --- choosing a voice ------------------------------------------------------------------------


@dataclass(frozen=True)
class VoiceRequest:
    """What ``--voice`` asked for: an engine, a voice, or both."""

    engine: str | None
    voice: str  # "" or DEFAULT: the engine's best voice

    @staticmethod
    def parse(text: str) -> VoiceRequest:
        """``festival:msu_ru_nsh_clunits``, ``hibari``, ``hibari:default``, ``zle/ru``, ``Alex``.

        A prefix before ``:`` counts as an engine only when it is one, or looks
        like one (a lower-case word): ``unknown:x`` is then an unknown engine,
        while a voice name with a colon in it stays a bare voice.
        """
        wanted = text.strip()
        head, colon, rest = wanted.partition(":")
        head_key = head.strip().casefold()
        if head_key == SYSTEM:
            head_key = system_driver()
        if not colon:
            if head_key in ENGINE_NAMES:
                return VoiceRequest(head_key, "")
            return VoiceRequest(None, wanted)
        if head_key in ENGINE_NAMES or (head_key.isalnum() and head_key.isascii()):
            return VoiceRequest(head_key, rest.strip())
        return VoiceRequest(None, wanted)

    @property
    def wants_default(self) -> bool:
        return self.voice.casefold() in ("", DEFAULT)


def is_named(voice: VoiceInfo, wanted: str) -> bool:
    """Whether ``wanted`` (``ENGINE:VOICE``, an engine, or a bare id or name) names ``voice``."""
    request = VoiceRequest.parse(wanted)
    if request.engine is not None and request.engine != voice.driver:
        return False
    if request.wants_default:
        return request.engine is not None
    key = request.voice.casefold()
    return key in (voice.id.casefold(), voice.native_id.casefold(), voice.name.casefold())


def rank(voice: VoiceInfo, lang: str) -> tuple[int, int, str, str]:
    """The order of voices for ``lang``: quality, then the preferred region, then the id."""
    preferred = _PREFERRED_TAGS.get(lang, (lang,))
    place = preferred.index(voice.tag) if voice.tag in preferred else len(preferred)
    return (-voice.quality, place, voice.driver, voice.id)


def speaking(lang: str, voices: Sequence[VoiceInfo]) -> list[VoiceInfo]:
    """The voices of ``lang``, best first."""
    return sorted((v for v in voices if v.lang == lang), key=lambda v: rank(v, lang))


_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()


def _warn_once(engine_name: str, lang: str, message: str, *args: object) -> None:
    """A missing engine is a fact about the machine: said once per process and language."""
    with _warned_lock:
        if (engine_name, lang) in _warned:
            return
        _warned.add((engine_name, lang))
    _LOGGER.warning(message, *args)


def _why_missing(request: VoiceRequest, lang: str, missing: dict[str, str]) -> str:
    if request.engine is None:
        return "no such voice"
    if request.engine not in ENGINE_NAMES:
        return f"no speech engine {request.engine!r} (engines: {', '.join(engine_names())})"
    if request.engine in missing:
        return missing[request.engine]
    if request.engine not in engine_names():
        return f"the {request.engine} engine does not run on this system"
    if request.wants_default:
        return f"{request.engine} has no {lang} voice"
    return f"{request.engine} has no voice {request.voice!r}"


def choose(
    lang: str,
    wanted: str | None,
    voices: Sequence[VoiceInfo],
    missing: dict[str, str] | None = None,
    no_voice: str = "",
) -> VoiceInfo:
    """The voice for ``lang``: ``wanted`` when it exists, else the best one, with a warning.

    ``missing`` (engine → why) is what the survey found absent: named in the
    warning when the wanted voice's engine is one of them, and — with no voice
    wanted — warned about once when that engine would have spoken ``lang``
    better than the voice chosen.  ``no_voice`` is the install hint when the
    language has no voice at all.
    """
    missing = missing or {}
    best = speaking(lang, voices)
    request = VoiceRequest.parse(wanted) if wanted else None
    if request is not None:
        found = _named(request, lang, voices, best)
        if found is not None:
            if found.lang != lang:
                _LOGGER.warning("voice %s speaks %r, not %r", found.key, found.lang, lang)
            return found
    if not best:
        raise ConfigError(f"no speech voice for language {lang!r}: {no_voice}".rstrip(": "))
    chosen = best[0]
    if request is not None:
        _LOGGER.warning(
            "voice %r not found: %s; speaking %s with %s (see `narrator voices`)",
            wanted,
            _why_missing(request, lang, missing),
            lang,
            chosen.key,
        )
        return chosen
    for name, why in missing.items():
        if _expected(name).get(lang, 0) > chosen.quality:
            _warn_once(
                name,
                lang,
                "a better %s voice needs %s: %s; speaking %s with %s",
                lang,
                name,
                why,
                lang,
                chosen.key,
            )
    return chosen


def _named(
    request: VoiceRequest, lang: str, voices: Sequence[VoiceInfo], best: list[VoiceInfo]
) -> VoiceInfo | None:
    if request.wants_default:
        return next((v for v in best if v.driver == request.engine), None)
    pool = [v for v in voices if request.engine in (None, v.driver)]
    key = request.voice.casefold()
    # The language's own voices first: "English" names a voice of en before one of de.
    pool.sort(key=lambda v: (v.lang != lang, rank(v, lang)))
    return next(
        (v for v in pool if key in (v.id.casefold(), v.native_id.casefold(), v.name.casefold())),
        None,
    )


def next_voice(lang: str, after: VoiceInfo, failed: set[str]) -> VoiceInfo | None:
    """The best voice of ``lang`` from an engine other than those in ``failed``, if any."""
    found = survey([n for n in engine_names() if n not in failed and n != after.driver])
    return next(iter(speaking(lang, found.voices)), None)


def choose_voice(
    lang: str, wanted: str | None = None, voices: Sequence[VoiceInfo] | None = None
) -> VoiceInfo:
    """The voice for ``lang``: ``wanted`` when it exists, else the best, with a warning.

    ``wanted`` is ``ENGINE:VOICE``, an engine alone (its best voice), or a bare
    voice id, engine id or name.  Without ``voices``, every engine's voices are
    asked, and an engine that is missing but would speak ``lang`` better than the
    voice chosen is named once, with how to install it.
    """
    if voices is not None:
        return choose(lang, wanted, voices, no_voice=language_hint(lang))
    found = survey()
    return choose(lang, wanted, found.voices, found.missing, language_hint(lang))


def list_voices() -> list[VoiceInfo]:
    """Every voice of every engine that runs here (Festival, hibari, the system voices)."""
    return survey().voices
