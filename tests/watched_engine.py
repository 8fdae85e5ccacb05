"""A real speech engine, unchanged, with the texts it is asked to say written down.

Installed in the registry in place of the real one (``install``), so every speech
cache of the test speaks through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import pytest

from narrator.sound.clip import Clip
from narrator.voice import voices
from narrator.voice.engines import Engine
from narrator.voice.engines import EngineInfo
from narrator.voice.engines import VoiceInfo


class WatchedEngine:
    """``real`` for everything; ``said`` is every text given to ``synthesize``, in order."""

    def __init__(self, real: Engine) -> None:
        self.real = real
        self.said: list[str] = []

    @property
    def name(self) -> str:
        return self.real.name

    @property
    def version(self) -> str:
        return self.real.version

    @property
    def renders(self) -> int:
        return self.real.renders

    def info(self) -> EngineInfo:
        return self.real.info()

    def voices(self) -> list[VoiceInfo]:
        return self.real.voices()

    def before(self, text: str) -> None:
        """Called with each text before the real engine says it."""

    def synthesize(self, text: str, voice: VoiceInfo | None, rate: int) -> Clip:
        self.before(text)
        self.said.append(text)
        return self.real.synthesize(text, voice, rate)

    def close(self) -> None:
        self.real.close()


W = TypeVar("W", bound=WatchedEngine)


def install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, watched: W) -> W:
    """Make ``watched`` the process's engine of its name for the rest of the test, speaking
    into an empty speech cache of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setitem(voices._shared, watched.name, watched)
    assert voices.engine(watched.name) is watched
    return watched
