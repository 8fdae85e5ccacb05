"""Narration files: the mix written block by block, in the format the file name ends in.

A WAV of the 48 kHz stereo mix costs 11.5 MB a minute, so what the program writes
itself is compressed; ``.wav`` stays accepted for whoever asks for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.rules.errors import ConfigError
from narrator.sound.clip import MIX_CHANNELS
from narrator.sound.clip import Samples


@dataclass(frozen=True)
class NarrationFormat:
    """A libsndfile container and encoding, as ``soundfile`` names them."""

    format: str
    subtype: str


FLAC = NarrationFormat("FLAC", "PCM_16")
OGG_VORBIS = NarrationFormat("OGG", "VORBIS")
WAV = NarrationFormat("WAV", "PCM_16")

FORMATS: dict[str, NarrationFormat] = {
    ".flac": FLAC,
    ".ogg": OGG_VORBIS,
    ".oga": OGG_VORBIS,
    ".wav": WAV,
}

# The suffix of the narrations the program names itself (a demo without --output, a
# game with no sound device): Ogg Vorbis. Measured with scripts/bench_narration.py
# (soundfile 0.14, libsndfile 1.2.2; a 6.3-minute sport_mafia demo, and the same mix
# repeated to 60 minutes, written in the program's 10 ms blocks):
#   WAV         11.5 MB a minute, 0.16-0.21 s of CPU per minute of audio
#   FLAC         1.8 MB a minute, 0.21-0.27 s, lossless
#   Ogg Vorbis   0.6 MB a minute, 0.72-1.04 s (1.2-1.7 % of one core), every frame
#                back, the levels of speech, knocks and day silence within 1 % of the WAV's.
# Vorbis is three times smaller than FLAC, its CPU cost is affordable on the real-time
# mixer thread, and a game killed before the file is closed still leaves a readable
# Ogg file (all but its last page), where an unclosed FLAC has no length and soundfile
# cannot read it. FLAC stays at hand for a bit-exact copy (--output game.flac).
DEFAULT_SUFFIX = ".ogg"

# The most frames handed to libsndfile in one call, whatever the caller's block: libvorbis
# takes a stack buffer as long as one write, and one write of 2.5 million frames (52 s)
# crashed it here with 8 MB of stack (a thread's stack may be far smaller elsewhere).
WRITE_FRAMES = 4800


def known_suffixes() -> str:
    """``.flac, .ogg, .oga or .wav``: the file names a narration may have."""
    names = list(FORMATS)
    return ", ".join(names[:-1]) + " or " + names[-1]


def narration_format(path: Path) -> NarrationFormat | None:
    """The format ``path``'s suffix names, or None for a suffix no narration may have."""
    return FORMATS.get(path.suffix.lower())


def default_name(stem: str) -> str:
    """A narration's file name when the program chooses it."""
    return stem + DEFAULT_SUFFIX


class NarrationFile:
    """A narration being written: any number of blocks, of any length, then ``close``."""

    def __init__(self, file: Any, path: Path) -> None:
        self._file = file
        self.path = path

    @staticmethod
    def open(path: Path, rate: int, channels: int = MIX_CHANNELS) -> NarrationFile:
        """Create ``path`` (and its folders) in the format its suffix names."""
        import soundfile

        kind = narration_format(path)
        if kind is None:
            raise ConfigError(
                f"cannot write {path}: expected a file name ending in {known_suffixes()}"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            file = soundfile.SoundFile(
                str(path), "w", rate, channels, kind.subtype, format=kind.format
            )
        except (OSError, RuntimeError) as error:  # soundfile's errors are RuntimeErrors
            raise ConfigError(f"cannot write {path}: {error}") from None
        return NarrationFile(file, path)

    def write(self, samples: Samples) -> None:
        """Append ``samples`` (frames, channels); raises OSError or RuntimeError."""
        for start in range(0, len(samples), WRITE_FRAMES):
            self._file.write(samples[start : start + WRITE_FRAMES])

    def close(self) -> None:
        """Finish the file (a FLAC or Ogg file is complete only now); raises as ``write``."""
        self._file.close()
