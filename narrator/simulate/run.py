"""Many games of one set-up: checked first, then played in one or several processes.

Game ``i`` of a run with seed ``S`` draws its deal, its rules' chance and its
players' choices from streams of its own, made from ``(S, i)`` alone
(:func:`~narrator.simulate.driver.game_rngs`), and the counts of the games are
whole numbers added up (:class:`~narrator.simulate.tally.Tally`): the same seed
gives the same figures with one process or many.
"""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing
import os
import random
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from narrator.rules.core import Composition
from narrator.rules.core import Switches
from narrator.rules.core import shuffled_deal
from narrator.rules.errors import ConfigError
from narrator.rules.registry import Variant
from narrator.rules.registry import check_players
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.simulate.driver import GameResult
from narrator.simulate.driver import Players
from narrator.simulate.driver import game_rngs
from narrator.simulate.driver import play
from narrator.simulate.players import RandomPlayers
from narrator.simulate.tally import Tally

POLICIES = ("random", "informed")
MAX_GAMES = 100_000_000  # a week of one core at the slowest game: no run needs more
MAX_JOBS = 256
CHUNKS_PER_JOB = 8  # parts of a run per process: an even finish, few messages


@dataclass(frozen=True)
class Setup:
    """What a simulation plays: a game, its seats, its rule switches and the policy."""

    game: str
    players: int
    options: Mapping[str, Any] = field(default_factory=dict)
    policy: str = "random"


@dataclass(frozen=True)
class Table:
    """A checked set-up, ready to deal: the variant, its switches, the cards."""

    setup: Setup
    variant: Variant
    switches: Switches
    composition: Composition

    @property
    def counts(self) -> dict[str, int]:
        """The composition, public at every table (announced or standard)."""
        return {role: n for role, n in self.composition.counts.items() if n}


def check_setup(setup: Setup) -> Table:
    """The set-up, checked before any game is played; each problem is one ConfigError."""
    variant = get_variant(setup.game)
    check_players(variant, setup.players)
    switches = make_switches(variant, setup.options)
    composition = variant.composition(setup.players, switches)
    if setup.policy not in POLICIES:
        raise ConfigError(f"unknown policy {setup.policy!r}; policies: {', '.join(POLICIES)}")
    if setup.policy == "informed":
        from narrator.simulate.informed import check_informed

        check_informed(setup.game)
    return Table(setup, variant, switches, composition)


def check_run(games: int, jobs: int) -> None:
    if not 1 <= games <= MAX_GAMES:
        raise ConfigError(f"--games {games}: expected a number of games from 1 to {MAX_GAMES:,}")
    if not 1 <= jobs <= MAX_JOBS:
        raise ConfigError(f"--jobs {jobs}: expected 1 to {MAX_JOBS} processes")


def all_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def players_maker(table: Table) -> Callable[[Any], Players]:
    """How the players of one game are made from their chance."""
    if table.setup.policy == "informed":
        from narrator.simulate.informed import informed_players

        return functools.partial(
            informed_players, table.setup.game, table.setup.players, table.counts
        )
    return RandomPlayers


def play_one(
    table: Table, seed: int, index: int, parsed: dict[Any, Any] | None = None
) -> GameResult:
    """Game ``index`` of a run with ``seed``."""
    chance, rules = game_rngs(seed, index)
    deal = shuffled_deal(table.composition, table.setup.players, chance)
    game = table.variant.new_game(deal, table.switches, rules)
    return play(game, players_maker(table)(chance), parsed)


def play_range(setup: Setup, seed: int, start: int, stop: int) -> Tally:
    """Games ``start`` to ``stop - 1`` of a run (one part of it, in one process)."""
    table = check_setup(setup)
    make = players_maker(table)
    tally = Tally()
    parsed: dict[Any, Any] = {}
    players, composition, variant, switches = (
        setup.players,
        table.composition,
        table.variant,
        table.switches,
    )
    streams = random.Random(), random.Random()  # seeded again for every game
    for index in range(start, stop):
        chance, rules = game_rngs(seed, index, streams)
        deal = shuffled_deal(composition, players, chance)
        tally.add(play(variant.new_game(deal, switches, rules), make(chance), parsed))
    return tally


def parts(games: int, jobs: int) -> list[tuple[int, int]]:
    """The run cut into contiguous parts of game indices, a few per process."""
    count = min(games, max(jobs, 2) * CHUNKS_PER_JOB)
    bounds = [games * i // count for i in range(count + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(count) if bounds[i] < bounds[i + 1]]


def simulate(
    setup: Setup,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Tally:
    """Play ``games`` games of ``setup``; the same figures for a seed whatever ``jobs``.

    ``progress(done, games)`` is called as parts of the run finish.
    """
    check_setup(setup)
    check_run(games, jobs)
    tally = Tally()
    if jobs == 1:
        for start, stop in parts(games, 1):
            tally.merge(play_range(setup, seed, start, stop))
            if progress is not None:
                progress(tally.games, games)
        return tally
    context = multiprocessing.get_context("spawn" if os.name != "posix" else "fork")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
        futures = [
            pool.submit(play_range, setup, seed, start, stop) for start, stop in parts(games, jobs)
        ]
        for future in concurrent.futures.as_completed(futures):
            tally.merge(future.result())
            if progress is not None:
                progress(tally.games, games)
    return tally
