"""Where the program writes a file it is told to write (``demo --output``, ``show -o``,
``voice export``): checked before any work, so a bad place costs one line and exit 2,
not a whole rendered game.

The folder must exist already (it is never made: a typing mistake must not create a
tree of folders), the path must not be an existing folder, device, pipe or socket, and
a file must really be creatable there: that is tried, and the try left as it was.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from narrator.files import describe_mode
from narrator.rules.errors import ConfigError


def check_writable(path: Path, flag: str) -> None:
    """A regular file can be written at ``path``, else one ConfigError naming ``flag``."""
    try:
        mode: int | None = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise ConfigError(f"{flag} {path}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise ConfigError(f"{flag} {path}: {describe_mode(mode)}, not a file to write")
    folder = path.parent
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise ConfigError(f"{flag} {path}: the folder {folder} {what}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        os.close(os.open(path, flags, 0o644))
    except OSError as error:
        raise ConfigError(f"{flag} {path}: cannot write there ({error.strerror})") from None
    if mode is None:
        path.unlink(missing_ok=True)
