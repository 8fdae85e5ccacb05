"""hibari: a small neural English voice (distilled from Kokoro) that ships inside its wheel.

Only the voices bundled in the package are offered: hibari fetches its other
voices from the internet on first use, and a table game must never wait for a
download (or fail without a network).  The model is loaded once per process, at
the first line (about 190 MB with onnxruntime), and renders at a real-time
factor of 0.02–0.05 on one core.  Its 24 kHz float output is written as 16-bit
WAV; its ``speed`` follows the rate (1.0 at 170 words a minute, its own pace:
173 words a minute measured on a game's lines).  A fixed noise seed makes a
line render to the same samples every time.  Its output is quiet with silence
at both ends: the cache levels every clip it reads (``narrator.sound.loudness``).
"""

from __future__ import annotations

import errno
import importlib
import importlib.util
import threading
from pathlib import Path
from typing import Any

import numpy as np

from narrator.rules.errors import ConfigError
from narrator.voice.engines import HIBARI, VoiceInfo, install_hint, quality

NATURAL_RATE = 170
SPEEDS = (0.5, 2.0)  # the range hibari documents for ``speed``
SEED = 0
VERSION = "1"


def _speed(rate: int) -> float:
    low, high = SPEEDS
    return min(max(rate / NATURAL_RATE, low), high)


class HibariEngine:
    """hibari's bundled voices; one model per voice, loaded once and kept for the process."""

    name = HIBARI
    extension = ".wav"
    version = VERSION

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, Any] = {}
        self._renders = 0
        self._voices: list[VoiceInfo] | None = None

    @property
    def renders(self) -> int:
        """How many files this engine has written."""
        return self._renders

    @property
    def loaded(self) -> bool:
        """Whether a model is in memory now."""
        return bool(self._models)

    def _problem(self) -> str | None:
        for module in ("hibari", "onnxruntime"):
            if importlib.util.find_spec(module) is None:
                return f"hibari-tts is not installed ({module} is missing): {install_hint(HIBARI)}"
        return None

    def voices(self) -> list[VoiceInfo]:
        """The voices inside the package (its other voices would be downloaded: not offered)."""
        if self._voices is None:
            problem = self._problem()
            if problem is not None:
                raise ConfigError(problem)
            registry = importlib.import_module("hibari.voices").VOICES
            voices = []
            for name, about in registry.items():
                if not about.get("bundled"):
                    continue
                tag = str(about.get("language", "en-US")).lower()
                accent = about.get("accent", "")
                gender = about.get("gender", "")
                voices.append(
                    VoiceInfo(
                        id=name,
                        name=f"hibari {name} ({accent} English, {gender})",
                        lang=tag.split("-")[0],
                        tag=tag,
                        native_id=name,
                        driver=HIBARI,
                        quality=quality(HIBARI, name),
                    )
                )
            self._voices = voices
        return list(self._voices)

    def _model(self, name: str) -> Any:
        model = self._models.get(name)
        if model is None:
            module = importlib.import_module("hibari")
            voices = importlib.import_module("hibari.voices")
            try:
                # download_missing=False: a voice that is not in the package fails here.
                file = voices.voice_path(name, download_missing=False)
                model = module.Hibari(voice=name, model=file, threads=1)
            except (ValueError, FileNotFoundError) as error:
                raise OSError(
                    errno.ENOENT, f"hibari has no voice {name!r} here ({error})"
                ) from None
            self._models[name] = model
        return model

    def render(self, text: str, path: Path, voice: VoiceInfo | None, rate: int) -> None:
        """Write ``text`` by ``voice`` at ``rate`` wpm to ``path`` as 16-bit WAV; OSError if not."""
        name = voice.native_id if voice is not None else "heart"
        soundfile = importlib.import_module("soundfile")
        with self._lock:
            model = self._model(name)
            try:
                audio = np.asarray(model(text, speed=_speed(rate), seed=SEED), dtype=np.float32)
            except (RuntimeError, ValueError, KeyError) as error:
                raise OSError(errno.EIO, f"hibari could not say {text!r} ({error})") from None
            if audio.size == 0 or not np.isfinite(audio).all():
                raise OSError(errno.EIO, f"hibari said nothing for {text!r}")
            rate_hz = int(getattr(model, "sample_rate", 24000))
            soundfile.write(
                str(path), np.clip(audio, -1.0, 1.0), rate_hz, subtype="PCM_16", format="WAV"
            )
            self._renders += 1

    def close(self) -> None:
        """Let the models go (their memory with them); the next line loads them again."""
        with self._lock:
            self._models.clear()
