"""Chance as a step: the driver draws it from the game's seed, the record keeps it, a
replay reads it back, a scenario file pins it (narrator.rules.chance)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

import narrator.rules.alliance as alliance_rules
from narrator.record import GameRecord
from narrator.resume import drawn
from narrator.resume import unfinished
from narrator.rules.alliance.day import day_of
from narrator.rules.alliance.roles import CUPID
from narrator.rules.alliance.roles import GUARD
from narrator.rules.alliance.roles import HUNTER
from narrator.rules.alliance.roles import SEER
from narrator.rules.alliance.roles import VILLAGER
from narrator.rules.alliance.roles import WEREWOLF
from narrator.rules.alliance.roles import WITCH
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.chance import drawn_order
from narrator.rules.chance import drawn_seats
from narrator.rules.core import Deal
from narrator.rules.core import Flow
from narrator.rules.core import Outcome
from narrator.rules.errors import NarratorError
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.scenario import ScenarioDriver
from narrator.scenario import ScenarioFile
from narrator.scenario import run_scenario
from narrator.voice.catalog import load_catalog
from tests.test_resume import pathlike
from tests.test_resume import play
from tests.test_resume import resume

W, S, WI, H, G, V, C = WEREWOLF, SEER, WITCH, HUNTER, GUARD, VILLAGER, CUPID
DEAL = (W, S, WI, H, W, G, V, W, V, V, W, C)
# Two candidates nobody votes for: the order of their speeches is drawn, drawn again after
# the tie, and with no sheriff the order of the day's speeches is drawn too.
NO_SHERIFF = {"d1.candidates": "2 9"}
CUPID_ON = {"cupid_enabled": True}


def scenario(answers: Mapping[str, Any], seed: int = 5) -> ScenarioFile:
    seats = {str(seat): role for seat, role in enumerate(DEAL, start=1)}
    return ScenarioFile.model_validate(
        {
            "game": "alliance",
            "lang": "en",
            "seed": seed,
            "options": CUPID_ON,
            "deal": seats,
            "answers": dict(answers),
        }
    )


def recorded(answers: Mapping[str, Any], seed: int = 5) -> tuple[GameRecord, list[str]]:
    """The record of a scenario's first day, and what was said in it."""
    file = scenario(answers, seed).model_copy(update={"stop_before": "n2"})
    record = GameRecord()
    driver = ScenarioDriver(file, load_catalog("en"), record)
    variant = get_variant("alliance")
    driver.run(variant.new_game(Deal(DEAL), make_switches(variant, CUPID_ON), random.Random(seed)))
    return record, [e["text"] for e in record.events if e["event"] == "say"]


def chances(record: GameRecord) -> dict[str, str]:
    return {e["id"]: e["value"] for e in record.events if e["event"] == "chance"}


def test_the_seed_draws_what_the_scripts_drew_and_the_record_keeps_it() -> None:
    """The driver makes the calls the scripts made on the game's stream, in their order:
    Cupid's default pair, the candidates' order twice, the order of the speeches."""
    record, said = recorded(NO_SHERIFF)
    old = random.Random(5)  # the stream as the scripts drew from it before chance was a step
    lovers = old.sample(range(1, 13), 2)
    first = (old.choice([2, 9]), old.choice((1, -1)))
    again = (old.choice([2, 9]), old.choice((1, -1)))
    living = tuple(range(1, 13))
    speeches = (old.choice(living), old.choice((1, -1)))
    sign = {1: "+", -1: "-"}
    assert chances(record) == {
        "n1.lovers_drawn": f"{lovers[0]} {lovers[1]}",
        "d1.election.order_drawn": f"{first[0]} {sign[first[1]]}",
        "d1.election_again.order_drawn": f"{again[0]} {sign[again[1]]}",
        "d1.order_drawn": f"{speeches[0]} {sign[speeches[1]]}",
    }
    direction = "ascending" if speeches[1] == 1 else "descending"
    line = f"The speeches start with player number {speeches[0]}, in {direction} seat order."
    assert line in said


def test_a_scenario_pins_a_chance_by_its_id_and_every_other_draw_stays_the_seeds() -> None:
    free, _ = recorded(NO_SHERIFF)
    drawn_before = chances(free)
    anchor = 7 if not drawn_before["d1.order_drawn"].startswith("7 ") else 8
    pinned, said = recorded(
        NO_SHERIFF | {"d1.election.order_drawn": "9 -", "d1.order_drawn": f"{anchor} -"}
    )
    assert chances(pinned) == drawn_before | {
        "d1.election.order_drawn": "9 -",
        "d1.order_drawn": f"{anchor} -",
    }
    assert "The candidates speak in this order: players number 9, 2." in said
    assert f"The speeches start with player number {anchor}, in descending seat order." in said


def test_a_pin_that_is_no_outcome_is_rejected_and_chance_decides() -> None:
    free, _ = recorded(NO_SHERIFF)
    result, _ = run_scenario(
        scenario(NO_SHERIFF | {"d1.election.order_drawn": ["5 +", "9 x", "2 +", "9 +"]}).model_copy(
            update={"stop_before": "n2"}
        )
    )
    assert [(r["prompt"], r["input"]) for r in result["rejected"]] == [
        ("d1.election.order_drawn", "5 +"),  # 5 is no candidate
        ("d1.election.order_drawn", "9 x"),
        ("d1.election.order_drawn", "9 +"),  # 2 + came first
    ]
    assert result["rejected"][-1]["reason"] == "already answered"
    assert "The candidates speak in this order: players number 2, 9." in result["spoken"]
    assert chances(free)  # the free run drew the same ids


def test_an_outcome_is_read_only_when_the_chance_can_have_it() -> None:
    order = drawn_order("d2.order_drawn", (3, 5), 12)
    assert order.read("5 -") == OrderAnswer(5, -1)
    lovers = drawn_seats("n1.lovers_drawn", range(1, 13), 2, 12)
    assert lovers.read("12 4") == SeatsAnswer((12, 4))
    for text in ("4 +", "3", "3 + 5", "none"):
        with pytest.raises(NarratorError):
            order.read(text)
    for text in ("4 4", "4", "4 5 6", "13 1"):
        with pytest.raises(NarratorError):
            lovers.read(text)


def test_the_drawn_outcomes_of_a_record_leave_out_what_an_undo_took_back() -> None:
    events: list[dict[str, Any]] = [
        {"event": "start"},
        {"event": "chance", "id": "n1.lovers_drawn", "value": "2 5"},
        {"event": "done", "kind": "reply", "id": "n1.cupid", "answer": None},
        {"event": "done", "kind": "reply", "id": "d1.candidates", "answer": None},
        {"event": "chance", "id": "d1.order_drawn", "value": "4 +"},
        {"event": "done", "kind": "reply", "id": "d1.vote.1", "answer": None},
        {"event": "chance", "id": "d2.order_drawn", "value": "6 -"},
        {"event": "undo", "keep": 2},
    ]
    assert drawn(events) == {"n1.lovers_drawn": "2 5", "d1.order_drawn": "4 +"}
    again: list[dict[str, Any]] = [
        *events,
        {"event": "chance", "id": "d1.order_drawn", "value": "1 -"},
    ]
    assert drawn(again) == {"n1.lovers_drawn": "2 5", "d1.order_drawn": "1 -"}
    stopped = unfinished(pathlike(), [{"event": "start", "deal": {"seats": []}}, *events[1:]])
    assert stopped is not None and stopped.drawn == drawn(events)


GAME, PLAYERS, SEED = "alliance", 10, 5  # a game with five orders drawn


def moments(record: GameRecord, marks: list[int], count: int) -> list[int]:
    """Reads of a key after which the record holds a drawn outcome, ``count`` of them."""
    first = next(i for i, e in enumerate(record.events) if e["event"] == "chance")
    later = [read for read, length in enumerate(marks, start=1) if length > first]
    return random.Random("chance-kills").sample(later[:-1], min(count, len(later) - 1))


def test_an_old_record_without_chance_events_still_resumes_to_the_same_end() -> None:
    marks: list[int] = []
    whole, _ = play(GAME, PLAYERS, SEED, marks=marks)
    end = next(e for e in whole.events if e["event"] == "end")
    for moment in moments(whole, marks, 12):
        cut, _ = play(GAME, PLAYERS, SEED, kill_at=moment)
        old = [e for e in cut.events if e["event"] != "chance"]  # as written before chance steps
        resumed = resume(GAME, PLAYERS, SEED, old)
        assert next(e for e in resumed.events if e["event"] == "end") == end, moment
        assert chances(resumed) == chances(whole), moment


def day_after_a_toss(table: Any, day: int, pending: Any) -> Flow[Outcome | None]:
    """A day as a later version of the rules might have it: a coin tossed first."""
    yield drawn_order(f"d{day}.toss", (1, 2, 3), table.players)
    outcome = yield from day_of(table, day, pending)
    return outcome


def said_and_done(record: GameRecord) -> tuple[list[str], list[Any]]:
    """What a record says was said, eliminated and shown up to where it was resumed."""
    events = record.events
    stop = next((i for i, e in enumerate(events) if e["event"] == "resumed"), len(events))
    said = [e["text"] for e in events[:stop] if e["event"] == "say" and e["key"]]
    facts = [
        (e["event"], e.get("seat"), e.get("prompt"), e.get("shown"))
        for e in events[:stop]
        if e["event"] in ("eliminated", "secret")
    ]
    return said, facts


def test_a_record_replays_to_the_same_game_after_the_rules_draw_once_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record made before the rules added a draw: every outcome it holds is read back,
    so the draw added early in the game changes nothing that was already played."""
    marks: list[int] = []
    whole, _ = play(GAME, PLAYERS, SEED, marks=marks)
    cuts = [play(GAME, PLAYERS, SEED, kill_at=m)[0] for m in moments(whole, marks, 8)]
    monkeypatch.setattr(alliance_rules, "day_of", day_after_a_toss)
    for cut in cuts:
        resumed = resume(GAME, PLAYERS, SEED, cut.events)  # no Mismatch: the record fits
        said, facts = said_and_done(resumed)
        was_said, were_facts = said_and_done(cut)
        assert said and said == was_said[: len(said)]
        assert facts == were_facts
        got = chances(resumed)
        assert "d1.toss" in got
        assert {key: got[key] for key in chances(cut)} == chances(cut)
