"""``narrator doctor``: what a game would use on this machine, what is missing, and how to get it.

Per table language: the voice a game would speak with (``narrator voices``' default)
and the recogniser it would listen with (``narrator models list``' default), or
why there is none and the exact command that gets one on this system; then
whether a sound device and a microphone are there. It only looks: nothing is
installed, downloaded or played.
"""

from __future__ import annotations

import platform
from typing import Any
from typing import TextIO

from narrator import __version__
from narrator.listen.engines import choose
from narrator.listen.engines import missing
from narrator.rules.errors import ConfigError
from narrator.voice import voices
from narrator.voice.catalog import LANGUAGES
from narrator.voice.install import language_hint
from narrator.voice.install import sounddevice


def doctor(out: TextIO) -> int:
    out.write(
        f"narrator {__version__} on {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}\n"
    )
    found = voices.survey()
    for lang in LANGUAGES:
        out.write(f"{lang}:\n")
        spoken = voices.speaking(lang, found.voices)
        if spoken:
            best = spoken[0]
            out.write(f"  voice:     {best.key} (quality {best.quality}; narrator voices)\n")
        else:
            out.write(f"  voice:     none, lines are only shown: {language_hint(lang)}\n")
        try:
            choice = choose(lang)
        except ConfigError:
            out.write(f"  listening: none, the keypad answers: {missing(lang)}\n")
        else:
            out.write(f"  listening: {choice.engine} ({choice.source}; narrator models list)\n")
    for name, why in sorted(found.missing.items()):
        out.write(f"missing voice engine {name}: {why}\n")
    out.write(f"sound:      {_device('output')}\n")
    out.write(f"microphone: {_device('input')}\n")
    return 0


def _device(kind: str) -> str:
    """The default device of ``kind`` by name, or what its lack means for a game."""
    lack = {
        "output": "none: a game is shown only; narrator demo --output FILE renders one to a file",
        "input": "none: voice input is off, the keypad answers",
    }[kind]
    try:
        sd: Any = sounddevice()
        device = sd.query_devices(kind=kind)
    except ConfigError as error:
        return f"{lack} ({error})"
    except Exception:  # PortAudio: no such device
        return lack
    return str(device.get("name", "?"))
