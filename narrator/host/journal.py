"""The game journal: one JSON object per line, appended and flushed per event.

It lives in the user's data folder, readable only by its owner. Each answer is
on disk the moment it is accepted, so a crash loses nothing that was played.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from narrator.rules.errors import ConfigError


def default_record_dir() -> Path:
    from platformdirs import user_data_path

    return user_data_path("narrator", appauthor=False) / "games"


class Journal:
    """Appends events to ``<folder>/<time>-<game>.jsonl``."""

    def __init__(self, folder: Path, game: str) -> None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(
                f"cannot create the record folder {folder}: {error.strerror}"
            ) from None
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        self.path = folder / f"{stamp}-{game}.jsonl"
        descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._file: IO[str] = os.fdopen(descriptor, "a", encoding="utf-8")

    def append(self, event: dict[str, Any]) -> None:
        self._file.write(json.dumps(event, ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def read_journal(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
