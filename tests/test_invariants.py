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

The checks themselves live in ``tests/harness.py``: ``scripts/fuzz_games.py`` runs
them too, over thousands of games answered with garbage.
"""

from __future__ import annotations

import random
from typing import Literal
from typing import get_args
from typing import get_origin

import pytest
from hypothesis import assume
from hypothesis import given
from hypothesis import strategies as st

from narrator.rules.core import Switches
from narrator.rules.errors import ConfigError
from narrator.rules.registry import Variant
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.rules.registry import make_switches
from narrator.voice.catalog import LANGUAGES
from tests.harness import Choose
from tests.harness import check_game
from tests.harness import check_prompt
from tests.harness import check_public_facts_only
from tests.harness import play
from tests.harness import properties
from tests.harness import random_attempts
from tests.harness import random_game

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
    check_game(table, seed)
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
