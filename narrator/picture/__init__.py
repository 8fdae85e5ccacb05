"""A picture of a finished game: its table and its timeline, as SVG (or PNG).

``narrator show RECORD`` draws one from a finished game's record; the table draws
one next to the record when a game ends (narrator.app). Only the record of a game
that has ended is drawn: while a game runs or after it stopped, its record is
sealed, and nothing of it may be written in the clear (docs/rules.md §0.5).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from narrator import files
from narrator.outputs import check_writable
from narrator.picture.scene import Scene
from narrator.picture.scene import paint
from narrator.picture.svg import to_svg
from narrator.rules.errors import ConfigError
from narrator.story import Story
from narrator.story import story_of
from narrator.voice.catalog import load_catalog

_LOGGER = logging.getLogger(__name__)

FORMATS = (".svg", ".png")
SEALED = ".sealed"  # narrator.host.journal's sealed records


def check_output(path: Path) -> None:
    """Before anything is read: a picture can be written at ``path`` (.svg or .png)."""
    if path.suffix.lower() not in FORMATS:
        raise ConfigError(f"-o {path}: a picture is an .svg or a .png file")
    check_writable(path, "-o")
    if path.suffix.lower() == ".png":
        from narrator.picture.png import require_matplotlib

        require_matplotlib("a PNG picture")


def read_finished(record: Path) -> list[dict[str, Any]]:
    """The events of a finished game's record; a sealed one is refused, unread."""
    from narrator.host.journal import read_journal

    if record.suffix == SEALED:
        raise ConfigError(
            f"{record.name} is sealed: its game is still being played or was stopped, and "
            "its secrets stay sealed until it ends (continue it with narrator resume)"
        )
    if not record.is_file():
        raise ConfigError(f"{record}: no such record (records end in .jsonl)")
    return read_journal(record)


def write(scene: Scene, path: Path) -> None:
    """The picture at ``path``, whole or not at all: drawn beside it, then moved there
    (a full disk leaves no half picture, and an older one stays as it was)."""
    try:
        files.write_beside(path, lambda part: _draw(scene, path.suffix, part))
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None


def _draw(scene: Scene, suffix: str, part: Path) -> None:
    if suffix.lower() == ".png":
        from narrator.picture.png import write_png

        write_png(scene, part)
    else:
        part.write_text(to_svg(scene), encoding="utf-8")


def draw(
    record: Path,
    output: Path | None = None,
    rules_rng: Callable[[int], random.Random] = random.Random,
) -> tuple[Path, str]:
    """Draw the finished game of ``record`` into ``output`` (default: beside it, .svg).

    Returns where it went and the game's language (the picture's).
    """
    target = output if output is not None else record.with_suffix(".svg")
    check_output(target)
    story = story_of(read_finished(record), record.name, rules_rng)
    write(paint(story, load_catalog(story.lang)), target)
    return target, story.lang


def draw_finished(
    record: Path,
    events: Sequence[Mapping[str, Any]],
    rules_rng: Callable[[int], random.Random] = random.Random,
) -> Path | None:
    """At the end of a game: its picture beside its plain record, or None.

    None when the game did not end or its record is still sealed (nothing is drawn
    then), and when the picture cannot be made (told in the log: a game that ended
    never fails for its picture).
    """
    if record.suffix == SEALED or not any(e.get("event") == "end" for e in events):
        return None
    target = record.with_suffix(".svg")
    try:
        story = story_of(events, record.name, rules_rng)
        write(paint(story, load_catalog(story.lang)), target)
    except ConfigError as error:
        _LOGGER.warning("no picture of the game: %s", error)
        return None
    return target


__all__ = [
    "Scene",
    "Story",
    "check_output",
    "draw",
    "draw_finished",
    "paint",
    "story_of",
]
