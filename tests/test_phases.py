"""A phase is a value (kind and number), written as ``n2``/``d1``/``setup`` only where it
leaves the program and read back in one place; put into words in one place."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from typing import Literal

import pytest

from narrator.host.journal import record_stop
from narrator.resume import replayed
from narrator.resume import unfinished
from narrator.rules.errors import ConfigError
from narrator.rules.phases import SETUP
from narrator.rules.phases import PhaseId
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Tag
from narrator.voice.catalog import DAWN
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import phase_in_words


@pytest.mark.parametrize(
    ("phase", "text"), [(SETUP, "setup"), (night(0), "n0"), (night(2), "n2"), (day(11), "d11")]
)
def test_a_phase_is_written_and_read_back_the_same(phase: PhaseId, text: str) -> None:
    assert str(phase) == text
    assert PhaseId.parse(text) == phase
    assert PhaseId.parse(text) is phase  # one value per phase: scripts ask for it at every prompt


@pytest.mark.parametrize("text", ["", "n", "x1", "n-1", "N1", "d1 ", "n1.vote", "night1", "d12345"])
def test_text_that_is_no_phase_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a phase"):
        PhaseId.parse(text)


def test_kinds_and_the_prompt_ids_built_from_them() -> None:
    assert night(0).by_night and night(0).of_the_rules
    assert not day(1).by_night and day(1).of_the_rules
    assert not SETUP.by_night and not SETUP.of_the_rules
    assert Tag(night(1), "wolves").id == "n1.wolves"
    assert Tag(day(3), "vote", 4).id == "d3.vote.4"
    assert night(1) != day(1) and night(1) == PhaseId("night", 1)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("ru", ["Раздача", "Ночь 0", "Ночь 2", "День 1", "Утро"]),
        ("en", ["The deal", "Night 0", "Night 2", "Day 1", "Morning"]),
    ],
)
def test_a_phase_is_put_into_words_in_each_language(lang: str, words: list[str]) -> None:
    catalog = load_catalog(lang)
    phases: list[PhaseId | Literal["dawn"]] = [SETUP, night(0), night(2), day(1), DAWN]
    assert [phase_in_words(catalog, phase) for phase in phases] == words


START: dict[str, Any] = {"event": "start", "game": "onenight", "deal": {"seats": ["villager"] * 5}}


def test_a_record_with_a_broken_phase_is_refused_with_its_reason(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = [START, {"event": "phase", "id": "n1; rm -rf"}]
    with pytest.raises(ConfigError, match="broken phase"):
        unfinished(tmp_path / "x.jsonl", events)
    with pytest.raises(ConfigError, match="broken phase"):
        replayed(events)
    with pytest.raises(ConfigError, match="broken phase"):
        record_stop([*events, {"event": "lost", "phase": "tomorrow", "t": 3.0}])


def test_a_record_cut_short_names_the_phase_it_stops_in() -> None:
    stop = record_stop([START, {"event": "phase", "id": "d2"}, {"event": "lost", "phase": "d2"}])
    assert stop is not None and stop.phase == day(2) and stop.t is None
    stop = record_stop([START, {"event": "lost", "t": 1.5}])
    assert stop is not None and stop.phase == SETUP and stop.t == 1.5
