"""One story of a game: the end screen and the picture are told from it.

Whole games are played at the table's own loop with its real journal (a fake clock and a
fake keypad whose answer depends only on the prompt, some taking a day answer back): the
end screen the table showed and the picture drawn from the record must be what they were
before the story was made one (``tests/golden/stories.json``, written by the code that
built them twice), and the story the table told at its end must be the story of its record.

    PYTHONPATH=. .venv/bin/python -m tests.test_story   # rewrite the golden file
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from narrator.host.audio import Silence
from narrator.host.ending import end_screen
from narrator.host.table import TableDriver
from narrator.picture import paint
from narrator.picture import story_of
from narrator.picture.svg import to_svg
from narrator.ports import ENTER
from narrator.ports import UNDO
from narrator.ports import Attempt
from narrator.prepared import prepare
from narrator.prepared import rules_rng
from narrator.record import GameRecord
from narrator.resume import Unfinished
from narrator.resume import unfinished
from narrator.rules import codec
from narrator.rules.prompts import Prompt
from narrator.session import TablePorts
from narrator.session import recorded_game
from narrator.settings import TableSettings
from narrator.voice.catalog import load_catalog
from tests.harness import FakeClock
from tests.harness import RecordingScreen
from tests.harness import SilentVoice

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


class Killed(BaseException):
    """The power went out."""


class Keypad:
    """A fake keypad: each prompt's answer depends only on its id (and a salt); with
    ``undo``, the ``undo``-th day prompt opens with / 3 and a yes first (once); with
    ``kill_at``, the power goes out at that read of a key."""

    def __init__(
        self, clock: FakeClock, salt: str, undo: int | None, kill_at: int | None = None
    ) -> None:
        self.clock = clock
        self.salt = salt
        self.undo = undo
        self.asked = 0
        self.queue: deque[str] = deque()
        self.kill_at = kill_at
        self.reads = 0

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
        self.reads += 1
        if self.reads == self.kill_at:
            raise Killed
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


def settings_for(
    game: str, players: int, lang: str, seed: int, folder: Path | None = None
) -> TableSettings:
    """A table of short speeches and discussions, its records kept in ``folder``."""
    fields = set(prepare(TableSettings(game=game, players=players)).variant.switches.model_fields)
    options = {k: v for k, v in SHORT.items() if k in fields}
    return TableSettings(
        game=game, players=players, lang=lang, seed=seed, options=options, record_dir=folder
    )


def played(
    folder: Path, game: str, players: int, lang: str, seed: int, undo: int | None = None
) -> tuple[EndScreen, list[dict[str, Any]], Path]:
    """One whole game at the table with its record: its screen, its events, its record."""
    settings = settings_for(game, players, lang, seed, folder)
    prepared = prepare(settings)
    clock = FakeClock()
    screen = EndScreen()
    ports = TablePorts(Keypad(clock, f"{game}{seed}", undo), SilentVoice(), Silence(), clock)
    code, record, path = recorded_game(settings, prepared, screen, ports)
    assert code == 0 and path is not None and path.suffix == ".jsonl"
    return screen, record.events, path


def told(folder: Path, case: tuple[str, int, str, int, int | None]) -> dict[str, Any]:
    """What a game's end screen showed and the picture its record draws (its hash)."""
    screen, events, _ = played(folder, *case)
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
        "record_tells": list(end_screen(story, load_catalog(story.lang))),
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
    assert got["record_tells"] == [got["title"], got["lines"]]  # the record's story is the table's


def resumed(game: str, players: int, lang: str, seed: int, kill_at: int) -> None:
    """A game killed at the ``kill_at``-th read of a key and continued from its record: the
    story the table tells at its end is the story of the whole record it wrote."""
    prepared = prepare(settings_for(game, players, lang, seed))
    deal, switches, catalog = prepared.deal, prepared.switches, prepared.catalog

    def table(keys: Keypad, screen: EndScreen, stopped: Unfinished | None = None) -> GameRecord:
        record = GameRecord()
        dealt = {"seats": list(deal.seats), "center": list(deal.center)}
        record.start(game=game, lang=lang, seed=seed, options=switches.model_dump(), deal=dealt)
        driver = TableDriver(
            catalog,
            record,
            voice=SilentVoice(),
            screen=screen,
            keys=keys,
            clock=keys.clock,
            answer_s=5,
            replay=stopped.steps if stopped else (),
            kept=stopped.kept if stopped else (),
        )
        with contextlib.suppress(Killed):
            outcome = driver.run(prepared.variant.new_game(deal, switches, rules_rng(seed)))
            assert outcome is not None
            story = story_of(record.events, "", rules_rng)
            assert driver.story == story  # the story the table told is the record's
            assert screen.ended == end_screen(story, catalog)
        return record

    clock = FakeClock()
    cut = table(Keypad(clock, f"{game}{seed}", None, kill_at), EndScreen())
    assert not any(e["event"] == "end" for e in cut.events), "killed before the end"
    stopped = unfinished(Path("20261201-120000-000000-game.jsonl"), cut.events)
    assert stopped is not None
    screen = EndScreen()
    whole = table(Keypad(FakeClock(), f"{game}{seed}", None), screen, stopped)
    assert screen.ended is not None and any(e["event"] == "resumed" for e in whole.events)


@pytest.mark.parametrize(
    ("game", "players", "lang", "seed", "kill_at"),
    [
        ("onenight", 5, "en", 2, 12),
        ("halloween", 8, "ru", 3, 60),
        ("sport_mafia", 10, "en", 4, 90),
        ("alliance", 12, "ru", 5, 150),
    ],
)
def test_a_resumed_game_tells_the_story_of_its_whole_record(
    game: str, players: int, lang: str, seed: int, kill_at: int
) -> None:
    resumed(game, players, lang, seed, kill_at)


def main() -> int:
    import tempfile

    stories = {}
    with tempfile.TemporaryDirectory() as folder:
        for case in GAMES:
            stories[case_id(*case)] = told(Path(folder), case)
            del stories[case_id(*case)]["record_tells"]
            print(case_id(*case), stories[case_id(*case)]["undone"], file=sys.stderr)
    GOLDEN.write_text(json.dumps(stories, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
