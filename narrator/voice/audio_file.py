"""Audio files of the voice (speech cache, voice packs, engines' own output) as clips.

A file is read as float32 samples with its own sample rate and channels, and
written in the format its name ends with: ``.wav`` and ``.flac`` as 16-bit PCM
(a 16-bit file read and written again is the same to the byte), ``.ogg`` as
Vorbis.
"""

from __future__ import annotations

import atexit
import errno
import shutil
import tempfile
from pathlib import Path

import numpy as np

from narrator.sound.clip import Clip
from narrator.voice.install import require

FORMATS = {".wav": ("WAV", "PCM_16"), ".flac": ("FLAC", "PCM_16"), ".ogg": ("OGG", "VORBIS")}


def read_clip(path: Path) -> Clip:
    """The audio of ``path`` (WAV, AIFF, FLAC, Ogg); OSError when it cannot be read."""
    soundfile = require("soundfile")
    try:
        samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except RuntimeError as error:  # soundfile.LibsndfileError is a RuntimeError
        raise OSError(errno.EIO, f"unreadable audio ({error})", str(path)) from None
    return Clip(np.ascontiguousarray(samples, dtype=np.float32), int(rate))


def taken(path: Path, nothing: str) -> Clip:
    """The audio an engine wrote to ``path``, the file removed; OSError ``nothing`` if none."""
    try:
        if not path.exists() or path.stat().st_size <= 64:  # a WAV header and no samples
            raise OSError(errno.EIO, nothing, str(path))
        return read_clip(path)
    finally:
        path.unlink(missing_ok=True)


def write_clip(path: Path, clip: Clip, suffix: str | None = None) -> None:
    """``clip`` to ``path`` in the format of ``suffix`` (default: the name's own ending)."""
    soundfile = require("soundfile")
    kind, subtype = FORMATS[(suffix or path.suffix).lower()]
    try:
        soundfile.write(str(path), clip.samples, clip.rate, subtype=subtype, format=kind)
    except RuntimeError as error:
        raise OSError(errno.EIO, f"cannot write audio ({error})", str(path)) from None


def scratch_folder(owner: str) -> Path:
    """A private temporary folder for an engine's own output files, removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix=f"narrator-{owner}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
