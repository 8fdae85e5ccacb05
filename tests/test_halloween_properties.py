"""Property tests of «Хэллоуинская мафия» against an independent
model of docs/games/halloween.md.

The invariants every game keeps (the dead, leaks, public facts, catalogs) are in
test_invariants.py; here random games on the harness' fake table are replayed on
a model of the nights, votes and win checks, each night's windows are predicted
from public facts, and random games must reach every line of the script.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from narrator.rules.answers import Abstain
from narrator.rules.answers import Answer
from narrator.rules.answers import Nobody
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Eliminate
from narrator.rules.core import Phase
from narrator.rules.core import Wake
from narrator.rules.halloween import DRAW
from narrator.rules.halloween import HUNTER
from narrator.rules.halloween import VAMPIRE
from narrator.rules.halloween import VAMPIRES
from narrator.rules.halloween import VILLAGERS
from narrator.rules.halloween import WITCH
from narrator.rules.halloween import HalloweenSwitches
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import LANGUAGES
from narrator.voice.catalog import load_catalog
from tests.harness import FakeTable
from tests.harness import deal_for
from tests.harness import games
from tests.harness import play
from tests.harness import properties
from tests.harness import random_game
from tests.harness import switches_of

VARIANT = get_variant("halloween")
RU = load_catalog("ru")

PROPERTIES = properties(60)
ROLE_OVERRIDES = (None, None, None, "vampire=1", "vampire=3", "witch=0", "hunter=0,vampire=1")


@st.composite
def setups(draw: st.DrawFn) -> tuple[int, dict[str, object]]:
    return draw(st.integers(7, 12)), {
        "cycle_limit": draw(st.sampled_from((6, 6, 1, 2, 3))),
        "call_dead_roles": draw(st.booleans()),
        "witch_may_skip": draw(st.booleans()),
        "allow_self_vote": draw(st.booleans()),
        "discussion_s": draw(st.sampled_from((180.0, 30.0))),
        "roles": draw(st.sampled_from(ROLE_OVERRIDES)),
    }


def seat_of(answer: Answer | None) -> int | None:
    return answer.seat if isinstance(answer, SeatAnswer) else None


@PROPERTIES
@given(table=games(VARIANT, setups(), langs=LANGUAGES))
def test_random_games_follow_an_independent_model(table: FakeTable) -> None:
    sw, deal, outcome = switches_of(table, HalloweenSwitches), table.deal, table.outcome
    players, result = deal.players, table.result()
    assert outcome is not None
    assert dict(outcome.reveal) == dict(enumerate(deal.seats, start=1))
    for step in table.steps:
        if isinstance(step, Eliminate):  # every card is turned up when its player leaves
            assert step.shown_role == deal.role_of(step.seat)

    # Replay the game on an independent model of docs/games/halloween.md §2.4–2.7.
    roles, accepted = deal.seats, table.accepted
    living = list(range(1, players + 1))
    expected: list[dict[str, Any]] = []

    def leaves(seat: int | None, phase: str, cause: str) -> tuple[str, str] | None:
        """The seat (if any) leaves; the winner and the phase, if that ends the game."""
        if seat is not None:
            living.remove(seat)
            expected.append({"seat": seat, "phase": phase, "cause": cause})
        winner = _winner(roles, living)
        return None if winner is None else (winner, phase)

    banned: int | None = None
    end: tuple[str, str] | None = None
    for k in range(1, sw.cycle_limit + 1):
        attack = seat_of(accepted.get(f"n{k}.vampires"))
        assert attack is None or (attack in living and roles[attack - 1] != VAMPIRE)
        protected = seat_of(accepted.get(f"n{k}.witch"))
        assert protected is None or (protected in living and protected != banned)
        banned = protected
        if end := leaves(attack if attack != protected else None, f"n{k}", "attacked"):
            break
        votes = {v: seat_of(accepted[f"d{k}.vote.{v}"]) for v in living}  # all living voted
        for voter, target in votes.items():
            assert target is None or target in living
            assert sw.allow_self_vote or target != voter
        tally = _tally(votes)
        out: int | None = tally[0] if len(tally) == 1 else None
        if len(tally) > 1:
            revotes = {v: seat_of(accepted.get(f"d{k}.revote.{v}")) for v in living}
            assert all(t is None or t in tally for t in revotes.values())
            again = _tally(revotes)
            out = again[0] if len(again) == 1 else None
        elif not tally:
            assert not [p for p in accepted if p.startswith(f"d{k}.revote.")]
        if end := leaves(out, f"d{k}", "voted"):
            break
    assert (outcome.winner, str(outcome.ended_at)) == (end or (DRAW, f"d{sw.cycle_limit}"))
    assert result["eliminated"] == expected

    # The hunter's answers are the truth; the vampires see their partners on night 1.
    for secret in result["secrets"][players:]:
        prompt = secret["prompt"]
        if prompt.endswith(".hunter"):
            checked = seat_of(accepted[prompt])
            assert checked is not None
            assert secret["shown"] == ("yes" if roles[checked - 1] == VAMPIRE else "no")
        else:
            vampires = list(deal.seats_with(VAMPIRE))
            assert (prompt, secret["to"]) == ("n1.vampires", vampires)
            partners = vampires if len(vampires) > 1 else []
            assert secret["shown"] == " ".join(["seats", *map(str, partners)])


def _winner(roles: tuple[str, ...], living: list[int]) -> str | None:
    """An independent model of docs/games/halloween.md §2.7."""
    vampires = [s for s in living if roles[s - 1] == VAMPIRE]
    if not vampires:
        return VILLAGERS
    return VAMPIRES if 2 * len(vampires) >= len(living) else None


def _tally(votes: Mapping[int, int | None]) -> list[int]:
    """An independent count: the seats with the most votes, if anybody got one."""
    counts: dict[int, int] = {}
    for target in votes.values():
        if target is not None:
            counts[target] = counts.get(target, 0) + 1
    top = max(counts.values(), default=0)
    return sorted(seat for seat, count in counts.items() if count == top)


@PROPERTIES
@given(table=games(VARIANT, setups()))
def test_night_windows_follow_the_composition_and_the_cards_turned_up(table: FakeTable) -> None:
    sw = switches_of(table, HalloweenSwitches)
    composition = VARIANT.composition(table.deal.players, sw).counts
    revealed: list[str] = []
    nights: list[list[tuple[str, float]]] = []
    predicted: list[list[tuple[str, float]]] = []
    for step in table.steps:
        if isinstance(step, Phase) and step.id.kind == "night":
            k = step.id.number
            windows = [(f"n{k}.vampires", sw.window(VAMPIRE))]
            for role in (WITCH, HUNTER):
                if composition.get(role, 0) and (sw.call_dead_roles or role not in revealed):
                    windows.append((f"n{k}.{role}", sw.window(role)))
            predicted.append(windows)
            nights.append([])
        elif isinstance(step, Wake):
            nights[-1].append((step.window, step.seconds))
        elif isinstance(step, Eliminate) and step.shown_role is not None:
            revealed.append(step.shown_role)
    assert nights == predicted


# --- random games reach the whole script ------------------------------------------------------


@pytest.fixture(scope="module")
def many_games() -> list[FakeTable]:
    option_sets: list[dict[str, object]] = [
        {"cycle_limit": limit, "call_dead_roles": dead, "witch_may_skip": skip}
        for limit, dead, skip in itertools.product((6, 2), (False, True), (False, True))
    ]
    option_sets += [
        {"allow_self_vote": True, "discussion_s": 30.0},
        {"roles": "vampire=1"},
        {"roles": "vampire=3,hunter=0"},
    ]
    setups = itertools.product(option_sets, range(7, 13), range(3))
    return [
        random_game(VARIANT, players, make_switches(VARIANT, options), 31 + index)
        for index, (options, players, _) in enumerate(setups)
    ]


def test_the_random_games_reach_every_line_reason_and_result(
    many_games: list[FakeTable],
) -> None:
    said = {line.say.key for table in many_games for line in table.spoken}
    script_keys = {key for key in RU.lines if key.startswith("halloween.")} - {"halloween.title"}
    assert script_keys - said == set(), "lines never reached by the random games"
    winners = {table.outcome.winner for table in many_games if table.outcome is not None}
    assert winners == {VILLAGERS, VAMPIRES, DRAW}
    reasons = {key for table in many_games for key, _ in table.reasons}
    assert {
        "reason.dead",
        "reason.partner",
        "reason.repeat_protection",
        "reason.not_in_revote",
        "reason.self",
        "reason.self_vote",
        "reason.already_answered",
        "reason.no_such_seat",
    } <= reasons


SEED_LINES = {
    "halloween.village_sleeps": "Деревня закрывает глаза. До моего сигнала никто не подглядывает",
    "halloween.vampires_wake_first": "Вампиры просыпаются, узнают друг друга и выбирают одну цель",
    "halloween.vampires_sleep": "Вампиры засыпают",
    "halloween.witch_wake": "Ведьма просыпается и выбирает защиту",
    "halloween.witch_sleep": "Ведьма засыпает",
    "halloween.hunter_wake": "Охотник просыпается и показывает, кого проверить",
    "halloween.hunter_sleep": "Охотник засыпает",
    "halloween.morning": "Деревня открывает глаза. Наступило утро",
    "halloween.all_survived": "Эту ночь пережили все",
}


@pytest.mark.parametrize(("key", "line"), SEED_LINES.items())
def test_seed_lines_are_verbatim(key: str, line: str) -> None:
    assert RU.lines[key] == line


def test_a_no_answer_game_is_the_same_in_both_languages() -> None:
    sw = make_switches(VARIANT, {})
    deal = deal_for(VARIANT, 9, sw, 5)
    ru, en = (play(VARIANT, deal, sw, lang=lang) for lang in ("ru", "en"))
    assert [line.say for line in ru.spoken] == [line.say for line in en.spoken]
    assert ru.outcome == en.outcome
    assert ru.outcome is not None and ru.outcome.winner == DRAW
    for prompt, answer in ru.accepted.items():
        assert answer == (Nobody() if prompt.startswith("n") else Abstain())
