"""The speech engine port: what every engine is, says about itself, and gives back.

An engine turns one text into audio *with its format* (a ``Clip``: float32
samples and their sample rate, whatever rate the engine speaks at) and
describes itself (``info``: its name, its version, its voices and so the
languages it speaks).  It writes nothing anywhere: the speech cache
(``narrator.voice.tts``) decides what to render and keeps the files.  Three
kinds exist (``narrator.voice.voices`` is their registry): the system voices
through pyttsx3 (espeak-ng, SAPI5, NSSS: ``system.py``), Festival
(``festival.py``: a unit-selection Russian voice cut from real recordings, an
HTS English one) and hibari (``hibari.py``: a small neural English voice inside
its wheel).  They differ a lot in how natural they sound, so every voice
carries a quality rank and the best installed voice of a language is the
default.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Protocol
from typing import runtime_checkable

from narrator.sound.clip import Clip

FESTIVAL = "festival"
HIBARI = "hibari"
SYSTEM = "system"  # the platform's pyttsx3 driver, whatever it is called
PYTTSX3_DRIVERS = ("espeak", "sapi5", "nsss")
ENGINE_NAMES = (FESTIVAL, HIBARI, *PYTTSX3_DRIVERS)
DEFAULT = "default"  # ``ENGINE:default``: that engine's best voice for the language
# How long an engine may take to say one line before it counts as gone.
RENDER_TIMEOUT_S = 60.0

# Quality ranks, higher is better.  Measured by ear and by the character error rate
# a speech recogniser makes on them (see the README): hibari's English and
# Festival's Russian unit-selection voice are near-human, Festival's HTS English
# clear but buzzy, the platform voices of Windows and macOS in between, espeak-ng a
# formant synthesiser that a table struggles to follow in Russian.
BEST = 90
GOOD = 70
OTHER_FESTIVAL = 60  # another Festival voice of a modern kind (clunits, HTS, clustergen)
PLATFORM = 50  # SAPI5 and NSSS voices
DIPHONE = 30  # Festival's old diphone voices
ESPEAK = 10
MBROLA = 5  # espeak's mbrola voices need a separate synthesiser that is rarely installed
_KNOWN_QUALITY = {
    (HIBARI, "heart"): BEST,
    (FESTIVAL, "msu_ru_nsh_clunits"): BEST,
    (FESTIVAL, "cmu_us_slt_arctic_hts"): GOOD,
}


class LineFailed(OSError):
    """The engine runs, but crashed (a signal, an exit) or hung on this one line: the line
    is said by the fallback voice, and the engine keeps the others."""


@dataclass(frozen=True)
class VoiceInfo:
    """One voice of one engine: ``id`` is normalised, ``native_id`` goes to the engine.

    ``driver`` is the engine's name (``festival``, ``hibari``, or the pyttsx3
    driver ``espeak``/``sapi5``/``nsss``); ``quality`` ranks voices across
    engines, higher is better.
    """

    id: str
    name: str
    lang: str
    tag: str
    native_id: str
    driver: str
    quality: int = 0

    @property
    def engine(self) -> str:
        return self.driver

    @property
    def key(self) -> str:
        """The voice as ``--voice`` takes it: ``ENGINE:VOICE``."""
        return f"{self.driver}:{self.id}"


@dataclass(frozen=True)
class EngineInfo:
    """What an engine says about itself: its name, its version and its voices."""

    name: str
    version: str
    voices: tuple[VoiceInfo, ...]

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages its voices speak, each once, in the order of its voices."""
        return tuple(dict.fromkeys(v.lang for v in self.voices if v.lang))


class Engine(Protocol):
    """Something that says a text and hands back the audio, with the voices it has.

    ``synthesize`` returns the speech as a ``Clip`` (samples and their rate) or
    raises OSError when nothing came; ``version`` changes when the engine's own
    text handling or rate mapping does, so speech cached under the old rules is
    not reused.  ``voices`` (and ``info``) raise ConfigError, with the install
    hint, when the engine cannot run here.
    """

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def renders(self) -> int:
        """How many texts it has said."""
        ...

    def info(self) -> EngineInfo: ...

    def voices(self) -> list[VoiceInfo]: ...

    def synthesize(self, text: str, voice: VoiceInfo | None, rate: int) -> Clip: ...

    def close(self) -> None: ...


@runtime_checkable
class SpanEngine(Engine, Protocol):
    """An engine that can say a few words inside a sentence and hand back only those words.

    ``synthesize_span(before, words, after, …)`` says ``before words after`` as
    one sentence and returns the samples of ``words`` (a voice pack's part, said
    with the pace and tune it has in its line); where it cannot cut, it returns
    the words said on their own, as ``synthesize`` would.
    """

    def synthesize_span(
        self, before: str, words: str, after: str, voice: VoiceInfo | None, rate: int
    ) -> Clip: ...


def system_driver() -> str:
    """The pyttsx3 driver of this platform (the same choice pyttsx3 makes)."""
    if sys.platform == "darwin":
        return "nsss"
    if sys.platform == "win32":
        return "sapi5"
    return "espeak"


def quality(engine: str, voice_id: str) -> int:
    """The rank of a voice among all engines' voices; higher is better."""
    known = _KNOWN_QUALITY.get((engine, voice_id))
    if known is not None:
        return known
    if engine == HIBARI:
        return BEST
    if engine == FESTIVAL:
        modern = ("_clunits", "_hts", "_cg", "_multisyn")
        return OTHER_FESTIVAL if voice_id.endswith(modern) else DIPHONE
    if engine == "espeak":
        return MBROLA if voice_id.startswith("mb/") else ESPEAK
    return PLATFORM
