"""One story of a game: the end screen and the picture are told from it.

Whole games are played at the table's own loop with its real journal (a fake clock and a
fake keypad whose answer depends only on the prompt, some taking a day answer back): the
end screen the table showed and the picture drawn from the record must be what they were
before the story was made one (``tests/golden/stories.json``, written by the code that
built them twice), and the story the table told at its end must be the story of its record.

    PYTHONPATH=. .venv/bin/python -m tests.test_story   # rewrite the golden file
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from narrator.app import TablePorts, TableSettings, _recorded_game, prepare, rules_rng
from narrator.host.audio import Silence
from narrator.picture import paint, story_of
from narrator.picture.svg import to_svg
from narrator.ports import ENTER, UNDO, Attempt
from narrator.rules import codec
from narrator.rules.core import Prompt
from narrator.voice.catalog import load_catalog
from tests.harness import FakeClock, RecordingScreen, SilentVoice

GOLDEN = Path(__file__).parent / "golden" / "stories.json"
SHORT = {"discussion_s": 5.0, "speech_s": 5.0}
# (game, players, language, seed, the day prompt whose opening takes an answer back)
GAMES = [
    *(
        (game, players, lang, seed, None)
        for seed in (1, 2, 3)
        for game, players, lang in (
            ("onenight", 5, "ru"),
            ("halloween", 8, "en"),
            ("sport_mafia", 10, "ru"),
            ("alliance", 12, "en"),
        )
    ),
    ("alliance", 9, "ru", 4, None),
    ("halloween", 7, "ru", 7, None),
    ("sport_mafia", 10, "en", 5, 3),
    ("alliance", 12, "ru", 6, 2),
    ("halloween", 8, "ru", 2, 2),
]


def case_id(game: str, players: int, lang: str, seed: int, undo: int | None) -> str:
    return f"{game}-{players}-{lang}-{seed}" + (f"-undo{undo}" if undo else "")


class Keypad:
    """A fake keypad: each prompt's answer depends only on its id (and a salt); with
    ``undo``, the ``undo``-th day prompt opens with / 3 and a yes first (once)."""

    def __init__(self, clock: FakeClock, salt: str, undo: int | None) -> None:
        self.clock = clock
        self.salt = salt
        self.undo = undo
        self.asked = 0
        self.queue: deque[str] = deque()

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self.queue.clear()
        if prompt is None or prompt.calls or not prompt.options:
            return
        digest = hashlib.sha256(f"{self.salt}/{prompt.id}/{self.asked}".encode()).digest()
        option = prompt.options[digest[0] % len(prompt.options)]
        if not prompt.tag.by_night:
            self.asked += 1
            if self.asked == self.undo:
                self.queue.extend([UNDO, "1"])
                return
        for entry in codec.to_keys(option, prompt):
            self.queue.extend([*entry, ENTER])

    def read(self, timeout: float) -> str | Attempt | None:
        if self.queue:
            return self.queue.popleft()
        if timeout <= 0:
            return None
        self.clock.sleep(min(timeout, 0.5))
        return ENTER  # ends a speech, shows and hides a card


class EndScreen(RecordingScreen):
    """A fake screen that keeps the end screen too."""

    def __init__(self) -> None:
        super().__init__()
        self.ended: tuple[str, list[str]] | None = None

    def end(self, title: str, lines: list[str]) -> None:
        self.ended = (title, list(lines))


def played(
    folder: Path, game: str, players: int, lang: str, seed: int, undo: int | None
) -> tuple[EndScreen, list[dict[str, Any]]]:
    """One whole game at the table with its record: its screen and its events."""
    fields = set(prepare(TableSettings(game=game, players=players)).variant.switches.model_fields)
    options = {k: v for k, v in SHORT.items() if k in fields}
    settings = TableSettings(
        game=game, players=players, lang=lang, seed=seed, options=options, record_dir=folder
    )
    prepared = prepare(settings)
    clock = FakeClock()
    screen = EndScreen()
    ports = TablePorts(Keypad(clock, f"{game}{seed}", undo), SilentVoice(), Silence(), clock)
    code, record, path = _recorded_game(settings, prepared, screen, ports)
    assert code == 0 and path is not None
    return screen, record.events


def told(folder: Path, case: tuple[str, int, str, int, int | None]) -> dict[str, Any]:
    """What a game's end screen showed and the picture its record draws (its hash)."""
    screen, events = played(folder, *case)
    assert screen.ended is not None, "the game reached its end screen"
    story = story_of(events, "", rules_rng)
    svg = to_svg(paint(story, load_catalog(story.lang)))
    title, lines = screen.ended
    undone = sum(1 for e in events if e["event"] == "undo")
    return {
        "title": title,
        "lines": lines,
        "undone": undone,
        "picture": hashlib.sha256(svg.encode("utf-8")).hexdigest(),
    }


@pytest.mark.parametrize("case", GAMES, ids=[case_id(*case) for case in GAMES])
def test_the_end_screen_and_the_picture_tell_what_they_told(
    tmp_path: Path, case: tuple[str, int, str, int, int | None]
) -> None:
    golden = json.loads(GOLDEN.read_text("utf-8"))[case_id(*case)]
    got = told(tmp_path, case)
    assert got["undone"] == golden["undone"]
    assert (got["title"], got["lines"]) == (golden["title"], golden["lines"])
    assert got["picture"] == golden["picture"]


def main() -> int:
    import tempfile

    stories = {}
    with tempfile.TemporaryDirectory() as folder:
        for case in GAMES:
            stories[case_id(*case)] = told(Path(folder), case)
            print(case_id(*case), stories[case_id(*case)]["undone"], file=sys.stderr)
    GOLDEN.write_text(json.dumps(stories, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
