"""A picture of every finished game: drawn at the end of the game beside its record, and by
``narrator show RECORD``; a record still sealed (a game running or stopped) is refused.

Whole games are played through the table's own loop and its real journal (a fake clock
and a fake keypad whose answer depends only on the prompt), so the record drawn is the
record a table writes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from narrator import cli
from narrator.host.journal import Journal
from narrator.host.journal import read_journal
from narrator.picture import draw
from narrator.picture import story_of
from narrator.prepared import rules_rng
from narrator.voice.catalog import load_catalog
from tests.harness import RecordingScreen
from tests.test_story import played

TABLES = [
    ("onenight", 5, "ru"),
    ("halloween", 8, "en"),
    ("sport_mafia", 10, "ru"),
    ("alliance", 12, "en"),
]


def finished_game(
    tmp_path: Path, game: str, players: int, lang: str, seed: int = 3
) -> tuple[Path, RecordingScreen, list[dict[str, Any]]]:
    """One whole game at a table with its record: the record, the screen, the events."""
    screen, events, path = played(tmp_path, game, players, lang, seed)
    return path, screen, events


def texts(svg: Path) -> list[str]:
    root = ElementTree.fromstring(svg.read_text("utf-8"))  # well-formed XML, or this raises
    return [el.text or "" for el in root.iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize(("game", "players", "lang"), TABLES)
def test_the_end_of_a_game_draws_it_beside_its_record_and_says_where(
    tmp_path: Path, game: str, players: int, lang: str
) -> None:
    record, screen, events = finished_game(tmp_path, game, players, lang)
    picture = record.with_suffix(".svg")
    assert picture.is_file()
    written = load_catalog(lang).text("picture.written", {"path": picture})
    assert written in screen.lines  # the end screen's last lines name it
    assert screen.lines.index(written) > screen.lines.index(
        load_catalog(lang).text("screen.record", {"path": record})
    )
    shown = texts(picture)
    end = next(e for e in events if e["event"] == "end")
    catalog = load_catalog(lang)
    # every seat, with its card
    for seat, role in end["reveal"].items():
        assert seat in shown, f"seat {seat} is not drawn"
        assert any(catalog.text(f"role.{role}") in text for text in shown)
    # every elimination, with its cause, in the game's language
    joined = "\n".join(shown)
    eliminated = [e for e in events if e["event"] == "eliminated"]
    assert eliminated, "a finished game of these tables has eliminations"
    for event in eliminated:
        cause = catalog.text(f"cause.{event['cause']}")
        line = catalog.text(
            "picture.left", {"seat": event["seat"], "cause": cause, "role": "x"}
        ).split(" (")[0]
        assert line in joined.replace("\n", " "), f"{line!r} is not drawn"
    # the winner
    winner = catalog.text("screen.winner", {"winner": catalog.text(f"winner.{end['winner']}")})
    assert winner in shown
    # and the night's actions and the day's votes in words
    if game != "onenight" or any(e.get("event") == "answer" for e in events):
        assert any(catalog.text("screen.night", {"number": 1}) == t for t in shown)


@pytest.mark.parametrize(("game", "players", "lang"), TABLES)
def test_narrator_show_draws_a_finished_record_as_svg_and_png(
    tmp_path: Path, game: str, players: int, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    record, _, _ = finished_game(tmp_path, game, players, lang, seed=8)
    record.with_suffix(".svg").unlink()
    assert cli.main(["show", str(record)]) == 0
    assert record.with_suffix(".svg").is_file()
    png = tmp_path / "game.png"
    assert cli.main(["show", str(record), "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert str(png) in out and load_catalog(lang).text("picture.written", {"path": png}) in out


def test_the_picture_tells_the_votes_by_target(tmp_path: Path) -> None:
    record, _, events = finished_game(tmp_path, "halloween", 8, "ru", seed=5)
    votes = [e for e in events if e["event"] == "answer" and ".vote." in e["prompt"]]
    assert votes
    joined = "\n".join(texts(record.with_suffix(".svg")))
    assert "Голосование:" in joined
    assert re.search(r"за \d+: [\d, ]+ \(\d+\)", joined)


def test_a_sealed_record_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = Journal(tmp_path, "halloween", keys=tmp_path / "keys")
    journal.append({"event": "start", "game": "halloween"})
    journal.close()
    assert journal.path.suffix == ".sealed"
    assert cli.main(["show", str(journal.path)]) == 2
    err = capsys.readouterr().err
    assert "is sealed" in err and "narrator resume" in err and "\n" not in err.strip()
    assert not list(tmp_path.glob("*.svg"))


def test_an_unfinished_plain_record_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, events = finished_game(tmp_path, "onenight", 5, "ru")
    cut = tmp_path / "cut.jsonl"
    kept = [e for e in events if e["event"] != "end"][:-3]
    cut.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in kept), "utf-8")
    assert cli.main(["show", str(cut)]) == 2
    assert "did not reach its end" in capsys.readouterr().err
    assert not cut.with_suffix(".svg").exists()


def test_a_record_that_does_not_fit_the_rules_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, _, events = finished_game(tmp_path, "halloween", 8, "en")
    for event in events:
        if event["event"] == "end":
            event["winner"] = "draw" if event["winner"] != "draw" else "vampires"
    record.write_text("".join(json.dumps(e) + "\n" for e in events), "utf-8")
    assert cli.main(["show", str(record)]) == 2
    assert "does not give its recorded end" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("output", "message"),
    [("pic.gif", ".svg or a .png"), ("/nonexistent-folder/pic.svg", "does not exist")],
)
def test_a_bad_output_is_refused_before_reading(
    tmp_path: Path, output: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.jsonl"  # not even there: the output is checked first
    assert cli.main(["show", str(record), "-o", output]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_record_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["show", str(tmp_path / "nothing.jsonl")]) == 2
    assert "no such record" in capsys.readouterr().err


def test_the_story_is_the_game_played_again(tmp_path: Path) -> None:
    record, _, events = finished_game(tmp_path, "alliance", 12, "ru", seed=9)
    story = story_of(read_journal(record), record.name, rules_rng)
    end = next(e for e in events if e["event"] == "end")
    assert story.outcome.winner == end["winner"]
    left = [(e["seat"], e["cause"]) for e in events if e["event"] == "eliminated"]
    assert [(m.seat, m.cause) for m in story.left().values()] == left
    path, lang = draw(record, tmp_path / "again.svg", rules_rng)
    assert lang == "ru" and path.read_text("utf-8").startswith("<?xml")


def test_a_link_planted_at_the_picture_s_part_is_not_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, _, _ = finished_game(tmp_path, "onenight", 5, "ru", seed=8)
    picture = record.with_suffix(".svg")
    picture.unlink()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("theirs")
    (record.parent / f".{picture.name}.part").symlink_to(outside)
    assert cli.main(["show", str(record)]) == 0
    assert outside.read_text() == "theirs"  # the write stayed in its folder
    assert not picture.is_symlink() and texts(picture)
    outside.unlink()
