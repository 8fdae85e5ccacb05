#!/usr/bin/env python3
"""Benchmark of the rules engine and the scenario command.

Prints a table of measured figures against their targets and the ratio
measured / target (below 1.0 is within target). Not a test: this machine is
shared and noisy, so figures are medians of repeated runs.

    .venv/bin/python scripts/bench_engine.py [--games 300]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from narrator.drive import Driver
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.core import DealCard
from narrator.rules.core import Show
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.core import shuffled_deal
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent


class RandomTable(Driver):
    """Answers every prompt at once with a random legal option."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(load_catalog("ru"), GameRecord())
        self.rng = rng

    def say(self, key: str, text: str) -> None:
        pass

    def wake(self, step: Wake) -> None:
        pass

    def ask(self, prompt: Prompt) -> Answer:
        answer = self.attempt(prompt, self.rng.choice(prompt.options), answered=False)
        return answer if answer is not None else self.expire(prompt)

    def show(self, step: Show) -> None:
        pass

    def sleep(self) -> None:
        pass

    def deal_card(self, step: DealCard) -> None:
        pass

    def timer(self, step: Timer) -> Answer | None:
        return None


def game_ms(players: int, games: int) -> float:
    variant = get_variant("onenight")
    switches = make_switches(variant, {})
    rng = random.Random(players)
    times = []
    for _ in range(games):
        start = time.perf_counter()
        deal = shuffled_deal(variant.composition(players, switches), players, rng)
        RandomTable(rng).run(variant.new_game(deal, switches, rng))
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cli_run() -> tuple[float, float]:
    """Wall time (s) and peak RSS (MB) of `narrator scenario run A-T1.toml`."""
    scenario = ROOT / "tests" / "scenarios" / "A-T1.toml"
    walls = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "narrator.cli", "scenario", "run", str(scenario)],
            check=True,
            capture_output=True,
        )
        walls.append(time.perf_counter() - start)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return statistics.median(walls), peak_kb / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    rows = [
        ("onenight game, 3 players, instant (ms)", game_ms(3, args.games), 5.0),
        ("onenight game, 7 players, instant (ms)", game_ms(7, args.games), 5.0),
    ]
    wall, rss = cli_run()
    rows += [
        ("`narrator scenario run` wall time (s)", wall, 1.0),
        ("`narrator scenario run` peak RSS (MB)", rss, 100.0),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'measured':>9}  {'target':>7}  {'ratio':>6}")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:9.3f}  {target:7.1f}  {value / target:6.2f}")


if __name__ == "__main__":
    main()
