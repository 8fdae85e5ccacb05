#!/usr/bin/env python3
"""Benchmark of narrator.simulate: games per second per core, each game at its default table.

For each variant (and alliance at its full table of 12) it measures, in one process:

* ``scenario``: the same random games carried out by the Headless driver the scenario
  runner plays at (narrator.drive.Headless: every line rendered in the catalog, every
  event in a game record) — the loop the simulator's fast path is checked against
  (tests/test_one_loop.py);
* ``random``: ``narrator simulate --policy random`` (narrator.simulate.run.play_range);
* ``informed``: the same with ``--policy informed``;
* ``script``: the variant's script alone, answered from its options with no policy and
  no bookkeeping at all — what the rules engine costs by itself, the ceiling of any
  driver that does not copy the rules.

Figures are games per CPU second of this process (best of ``--repeat`` runs: the
machine is shared, and the best run is the one least disturbed). The ratio is the
goal over the ``random`` figure: below 1.0 the goal (10,000 onenight games a second,
1,000 of any other) is met. ``--profile GAME`` prints where a random game's time goes.

    nice -n 10 .venv/bin/python scripts/bench_simulate.py [--repeat 5] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from collections.abc import Callable

from narrator.drive import Headless
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.chance import Chance
from narrator.rules.core import Ask
from narrator.rules.core import Timer
from narrator.rules.core import shuffled_deal
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.simulate.driver import game_rngs
from narrator.simulate.run import Setup
from narrator.simulate.run import play_range
from narrator.voice.catalog import load_catalog

GOALS = {"onenight": 10_000}
GOAL = 1_000
TABLES = [("onenight", 5, 4000), ("halloween", 10, 800), ("sport_mafia", 10, 800)]
TABLES += [("alliance", 11, 400), ("alliance", 12, 400)]


class ScenarioLike(Headless):
    """Random legal answers at the Headless driver, as the scenario runner plays: every line
    rendered, every event in a game record."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(load_catalog("ru"), GameRecord())
        self.rng = rng

    def typed(self, prompt: Prompt) -> list[str]:
        return [self.rng.choice(prompt.options)] if prompt.options else []


def scenario_games(game: str, players: int, start: int, stop: int) -> None:
    variant = get_variant(game)
    switches = make_switches(variant, {})
    composition = variant.composition(players, switches)
    for index in range(start, stop):
        chance, rules = game_rngs(0, index)
        deal = shuffled_deal(composition, players, chance)
        ScenarioLike(chance).run(variant.new_game(deal, switches, rules))


def script_games(game: str, players: int, start: int, stop: int) -> None:
    """The script alone: each prompt answered with a random option, parsed once."""
    variant = get_variant(game)
    switches = make_switches(variant, {})
    composition = variant.composition(players, switches)
    parsed: dict[tuple[str, frozenset[object], int], Answer] = {}
    for index in range(start, stop):
        chance, rules = game_rngs(0, index)
        deal = shuffled_deal(composition, players, chance)
        send = variant.new_game(deal, switches, rules).script.send
        reply: Answer | None = None
        try:
            while True:
                step = send(reply)
                reply = None
                if isinstance(step, Chance):  # a speaking order drawn: as every driver does
                    reply = step.read(step.draw(rules))
                    continue
                prompt = (
                    step.prompt
                    if isinstance(step, Ask | Timer) and step.prompt is not None
                    else None
                )
                if prompt is not None and prompt.options:
                    text = chance.choice(prompt.options)
                    key = (text, frozenset(prompt.accepts), prompt.seat_count)
                    if key not in parsed:
                        parsed[key] = prompt.accept(text)
                    reply = parsed[key]
                elif prompt is not None:
                    reply = prompt.default
        except StopIteration:
            pass


def simulated(policy: str) -> Callable[[str, int, int, int], None]:
    def run(game: str, players: int, start: int, stop: int) -> None:
        play_range(Setup(game, players, policy=policy), 0, start, stop)

    return run


def per_second(
    run: Callable[[str, int, int, int], None], game: str, players: int, games: int, repeat: int
) -> float:
    """Games per CPU second, the best of ``repeat`` runs of ``games`` games each."""
    best = float("inf")
    for attempt in range(repeat):
        start = time.process_time()
        run(game, players, attempt * games, (attempt + 1) * games)
        best = min(best, time.process_time() - start)
    return games / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="more or fewer games per run")
    parser.add_argument("--profile", default=None, help="profile this game's random play")
    args = parser.parse_args()
    columns = [
        ("scenario", scenario_games),
        ("random", simulated("random")),
        ("informed", simulated("informed")),
        ("script", script_games),
    ]
    print(f"games per second per core (best of {args.repeat}, process CPU time)")
    header = f"{'game':<12} {'players':>7}" + "".join(f" {name:>9}" for name, _ in columns)
    print(header + f" {'goal':>7} {'ratio':>6}")
    for game, players, games in TABLES:
        count = max(20, int(games * args.scale))
        rates = {
            name: per_second(
                run, game, players, count if name != "informed" else count // 2, args.repeat
            )
            for name, run in columns
        }
        goal = GOALS.get(game, GOAL)
        cells = "".join(f" {rates[name]:>9.0f}" for name, _ in columns)
        print(f"{game:<12} {players:>7}{cells} {goal:>7} {goal / rates['random']:>6.2f}")
    print("ratio = goal / random: below 1.00 the goal is met")
    if args.profile:
        players = next(p for g, p, _ in TABLES if g == args.profile)
        profile = cProfile.Profile()
        profile.runcall(simulated("random"), args.profile, players, 0, 500)
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
