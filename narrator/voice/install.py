"""What to install when something the voice needs is missing, as one phrase each.

Heavy libraries are imported at the moment they are needed (``require``): a
missing one is a ConfigError with its exact install hint.  The hints for the
speech engines and for a language without a voice live here too, so every
message says the same thing.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

from narrator.rules.errors import ConfigError
from narrator.voice.engines import FESTIVAL
from narrator.voice.engines import HIBARI

_HINTS = {
    "pyttsx3": "pip install pyttsx3",
    "soundfile": "pip install soundfile",
    "sounddevice": "pip install sounddevice",
}
_ENGINE_HINTS = {
    FESTIVAL: "apt-get install festival festvox-ru festvox-us-slt-hts",
    HIBARI: "pip install hibari-tts",
    "espeak": "apt-get install espeak-ng",
    "sapi5": "pip install comtypes pywin32",
    "nsss": "pip install pyobjc",
}
# A driver's language names (espeak's "russian", a voice called "… English") as codes.
LANGUAGE_NAMES = {
    "russian": "ru",
    "english": "en",
    "german": "de",
    "french": "fr",
    "spanish": "es",
    "italian": "it",
    "ukrainian": "uk",
    "polish": "pl",
    "portuguese": "pt",
    "dutch": "nl",
    "chinese": "zh",
    "japanese": "ja",
    "korean": "ko",
}
_SPOKEN_NAMES = {code: name.title() for name, code in LANGUAGE_NAMES.items()}


def require(module: str, hint: str | None = None) -> ModuleType:
    """Import a heavy library at the moment it is needed; missing → the exact install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        if error.name != module:
            raise
        hint = hint or _HINTS.get(module, f"pip install {module}")
        raise ConfigError(f"{module} is not installed: {hint}") from None


def sounddevice() -> Any:
    """The sounddevice module; ConfigError when it or the PortAudio library is missing."""
    try:
        return require("sounddevice")
    except OSError as error:  # the PortAudio library itself is missing
        raise ConfigError(
            f"PortAudio is missing ({error}): apt-get install libportaudio2"
        ) from None


# Where the system's package manager is not apt: Homebrew on macOS; on Windows neither
# Festival nor espeak-ng is a package, and the system voice (SAPI5) speaks instead.
_PLATFORM_HINTS = {
    "darwin": {
        FESTIVAL: "brew install festival (English only: no Russian Festival voice on macOS)",
        "espeak": "brew install espeak-ng",
    },
    "win32": {
        FESTIVAL: "Festival does not run on Windows; the system voice speaks instead",
        "espeak": "install espeak-ng with the .msi installer of the espeak-ng project",
    },
}


def engine_hint(engine: str) -> str:
    """How to get ``engine``'s voices onto this machine, as one phrase."""
    mine = _PLATFORM_HINTS.get(sys.platform, {})
    return mine.get(engine) or _ENGINE_HINTS.get(engine, "pip install pyttsx3")


def language_hint(lang: str) -> str:
    """What to install for a voice of ``lang`` on this platform, as one phrase."""
    name = _SPOKEN_NAMES.get(lang, lang)
    if sys.platform == "win32":
        return (
            f"add the {name} language pack with its speech voice "
            "(Settings › Time & language › Language & region)"
        )
    if sys.platform == "darwin":
        return (
            f"add a {name} voice in System Settings › Accessibility › Spoken Content "
            "› System voice › Manage Voices"
        )
    return f"install espeak-ng ({engine_hint('espeak')}), it speaks ru and en"
