"""The invariants every game keeps, checked on every game of the registry.

Each game is played at every seat count it allows, with its default switches
and random values of its yes/no and one-of switches, by tables that answer
legally, adversarially (garbage, dead or own seats, wrong kinds) or hardly at
all. A new variant gets all of this with no test code: register it and it is
played here (the toy game of ``tests/toy_variant.py`` is).

- Every game ends with a winner the catalogs can name, or stops after night 30.
- The dead never act, and secrets reach only the seats entitled to them
  (``FakeTable`` asserts this while it plays).
- Nothing hidden is spoken: before the closing announcement a line names a
  role only for a seat whose card was turned up, or with no seat, or about a
  seat that has left or is leaving.
- The public game depends only on public facts: the same attempts under a deal
  whose hidden cards are shuffled give the same lines, windows, timers,
  questions and between-window screen.
- Every listed option of every prompt is accepted; garbage, seats off the
  table, dead seats and wrong kinds are refused with a reason both catalogs have.
- Every line, reason, role, cause, secret and winner has its text in ru and en.
"""

from __future__ import annotations

import random
from typing import Literal, get_args, get_origin

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from narrator.drive import NIGHT_LIMIT
from narrator.rules.core import (
    Ask,
    Eliminate,
    Phase,
    Prompt,
    RoleName,
    Say,
    Show,
    Step,
    Switches,
    Timer,
)
from narrator.rules.errors import ConfigError, NarratorError
from narrator.rules.registry import Variant, get_variant, known_names, make_switches
from narrator.voice.catalog import LANGUAGES, Catalog, load_catalog, placeholders
from tests.harness import (
    Choose,
    FakeTable,
    Replay,
    departing,
    permuted,
    play,
    properties,
    public_trace,
    random_attempts,
    random_game,
    seats_named,
    wrong_inputs,
)

CATALOGS = tuple(load_catalog(lang) for lang in LANGUAGES)
CASES = [
    pytest.param(name, players, id=f"{name}-{players}")
    for name in known_names()
    for players in get_variant(name).seat_counts
]
EXAMPLES_PER_GAME = 30  # shared among a game's seat counts; at least 4 each
# How a table answers: (legal, silent, bursts), see harness.random_attempts/random_bursts.
STYLES = {
    "legal": (0.9, 0.1, 0.03),
    "adversarial": (0.35, 0.2, 0.03),
    "quiet": (0.6, 0.75, 0.03),
    "silent": (0.0, 1.0, 0.0),
}


# --- the checks -------------------------------------------------------------------------


def has_line(catalog: Catalog, key: str, params: frozenset[str] = frozenset()) -> None:
    assert key in catalog.lines, f"{key} is missing from the {catalog.lang} catalog"
    assert placeholders(catalog.lines[key]) == params, f"{key}: placeholders in {catalog.lang}"


def check_prompt(prompt: Prompt, table: FakeTable) -> None:
    """Its options are accepted; other inputs are refused with a reason the catalogs have."""
    for text in prompt.options:
        try:
            prompt.accept(text)
        except NarratorError as error:
            raise AssertionError(f"{prompt.id} refuses its own option {text!r}: {error}") from None
    wrong = wrong_inputs(prompt)
    if {"seat", "seats"} & prompt.accepts and "count" not in prompt.accepts:
        wrong += [" ".join([str(seat)] * prompt.entries) for seat in table.gone]
    for text in wrong:
        if text in prompt.options:
            continue
        try:
            answer = prompt.accept(text)
        except NarratorError as error:
            assert error.key, f"{prompt.id} refuses {text!r} without a reason key"
            for catalog in CATALOGS:
                has_line(catalog, error.key, frozenset(error.params))
        else:
            raise AssertionError(f"{prompt.id} accepts {text!r} ({answer}), not an option")


def check_the_end(table: FakeTable) -> None:
    result = table.result()
    phases = [step.id for step in table.steps if isinstance(step, Phase)]
    assert sorted(table.dealt) == list(range(1, table.deal.players + 1)), "not every seat dealt"
    outcome = table.outcome
    if outcome is None:  # the run stops after night 30
        assert (result["winner"], result["ended_at"]) == (None, phases[-1])
        assert phases[-1] == f"n{NIGHT_LIMIT}", f"stopped at {phases[-1]}"
        return
    assert (result["winner"], result["ended_at"]) == (outcome.winner, outcome.ended_at)
    assert outcome.ended_at in phases
    assert set(outcome.reveal) == set(range(1, table.deal.players + 1))
    assert outcome.sheriff is None or outcome.sheriff not in table.gone
    for catalog in CATALOGS:
        has_line(catalog, f"winner.{outcome.winner}")


def check_nothing_hidden_is_spoken(table: FakeTable) -> None:
    names = {role: table.catalog.text(f"role.{role}").lower() for role in table.variant.roles}
    revealed: dict[int, str] = {}  # seat -> the card turned up when it left
    gone: set[int] = set()
    for index, step in enumerate(table.steps[: table.closing_start()]):
        if isinstance(step, Eliminate):
            gone.add(step.seat)
            if step.shown_role is not None:
                revealed[step.seat] = step.shown_role
        if not isinstance(step, Say):
            continue
        text = table.catalog.text(step.key, step.params)
        assert not step.key.startswith("reveal."), f"{text!r} before the end"
        named = seats_named(step)
        for value in step.params.values():
            if isinstance(value, RoleName):
                shown = {seat for seat in named if revealed.get(seat) == value.id}
                assert shown, f"{text!r} names a card nobody turned up"
        if any(name in text.lower() for name in names.values()):
            hidden = named - gone - departing(table, index)
            assert not hidden, f"{text!r} names a role next to living seats {hidden}"


def check_catalogs(table: FakeTable) -> None:
    keys = {(line.say.key, frozenset(line.say.params)) for line in table.spoken}
    keys |= {(key, frozenset(params)) for key, params in table.reasons}
    keys |= {(f"role.{role}", frozenset()) for role in table.variant.roles}
    for step in table.steps:
        for prompt in asked_in(step):
            if prompt.claim is not None:  # the table says the claim, then maybe its failure
                keys |= {
                    (prompt.claim, frozenset({"seat"})),
                    (f"{prompt.claim}_unconfirmed", frozenset()),
                }
        if isinstance(step, Eliminate):
            keys.add((f"cause.{step.cause}", frozenset()))
        elif isinstance(step, Show) and step.secret.kind == "token":
            keys.add((f"secret.{step.secret.values[0]}", frozenset()))
        elif isinstance(step, Show) and step.secret.kind == "roles":
            keys |= {(f"role.{role}", frozenset()) for role in step.secret.values}
    for catalog in CATALOGS:
        for key, params in keys:
            has_line(catalog, key, params)


def asked_in(step: Step) -> list[Prompt]:
    if isinstance(step, Ask):
        return [step.prompt]
    if isinstance(step, Timer):
        return [p for p in (step.prompt, step.interrupt) if p is not None]
    return []


def check_public_facts_only(table: FakeTable, seed: int) -> None:
    """Replay the same attempts on a deal with the hidden cards shuffled: the cards of
    the seats that left, acted at night or were named there stay where they were."""
    deal = permuted(table.deal, set(table.gone) | table.named, random.Random(seed))
    assert table.switches is not None
    replay = Replay(table.tried)
    twin = play(
        table.variant,
        deal,
        table.switches,
        replay,
        lang=table.catalog.lang,
        seed=table.seed,
        interject=replay,
    )
    assert_same(public_trace(table), public_trace(twin), "the public game")
    assert_same(table.screen, twin.screen, "the screen between windows")


def assert_same(first: list[object], second: list[object], what: str) -> None:
    if first == second:
        return
    at = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), None)
    at = min(len(first), len(second)) if at is None else at
    raise AssertionError(
        f"{what} differs under a shuffled hidden deal at step {at}:\n"
        f"  {first[max(at - 3, 0) : at + 1]}\n  {second[max(at - 3, 0) : at + 1]}"
    )


def keeps_every_invariant(
    variant: Variant, players: int, sw: Switches, *, style: str, lang: str, seed: int
) -> None:
    legal, silent, bursts = STYLES[style]
    table = random_game(
        variant,
        players,
        sw,
        seed,
        lang=lang,
        legal=legal,
        silent=silent,
        bursts=bursts,
        on_prompt=check_prompt,
    )
    check_the_end(table)
    check_nothing_hidden_is_spoken(table)
    check_catalogs(table)
    check_public_facts_only(table, seed)
    if style != "silent":
        # The same kind of days with silent nights: every card that stays is shuffled.
        days = random_attempts(random.Random(seed + 1), players, legal=legal, silent=silent)
        quiet = play(variant, table.deal, sw, by_day(days), lang=lang, seed=seed)
        check_public_facts_only(quiet, seed + 1)


def by_day(choose: Choose) -> Choose:
    return lambda prompt: [] if prompt.tag.by_night else choose(prompt)


# --- the tests -----------------------------------------------------------------------------


def random_switches(variant: Variant) -> st.SearchStrategy[dict[str, object]]:
    """Any subset of the yes/no and one-of switches, each with a random value."""
    fields: dict[str, st.SearchStrategy[object]] = {}
    for name, info in variant.switches.model_fields.items():
        if info.annotation is bool:
            fields[name] = st.booleans()
        elif get_origin(info.annotation) is Literal:
            fields[name] = st.sampled_from(get_args(info.annotation))
    return st.fixed_dictionaries({}, optional=fields)


@pytest.mark.parametrize(("name", "players"), CASES)
def test_random_games_keep_every_invariant(name: str, players: int) -> None:
    variant = get_variant(name)
    examples = max(4, EXAMPLES_PER_GAME // len(variant.seat_counts))

    @properties(examples)  # derandomized: the same games on every run, it cannot flake
    @given(
        options=random_switches(variant),
        style=st.sampled_from(("adversarial", "legal", "quiet")),
        lang=st.sampled_from(LANGUAGES),
        seed=st.integers(0, 2**32 - 1),
    )
    def one_game(options: dict[str, object], style: str, lang: str, seed: int) -> None:
        try:
            sw = make_switches(variant, options)
        except ConfigError:  # switches that exclude each other
            assume(False)
            return
        keeps_every_invariant(variant, players, sw, style=style, lang=lang, seed=seed)

    one_game()


@pytest.mark.parametrize(("name", "players"), CASES)
def test_a_silent_table_with_the_default_switches(name: str, players: int) -> None:
    """Nobody answers anything: the game still ends, or stops after night 30."""
    variant = get_variant(name)
    sw = make_switches(variant, {})
    keeps_every_invariant(variant, players, sw, style="silent", lang="en", seed=players)
