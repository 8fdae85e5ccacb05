#!/usr/bin/env python3
"""Benchmark of narrator.estimate: the game-length estimate of the set-up screen.

For each game at its default table (the `play` command's default seat count; alliance
also at its full table of 12), prints the estimate and the time of one call:

* cold: the estimate's caches cleared (the line catalogs stay loaded, as they are
  in the set-up screen), i.e. a field changed to a value not seen before;
* cached: the same arguments again.

Times are medians of repeated calls, wall clock and process CPU; the ratio is wall
time over the 200 ms target (below 1.0 is within target). Not a test: this machine
is shared and noisy.

    .venv/bin/python scripts/bench_estimate.py [--repeat 7] [--games N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from narrator.estimate import GAMES
from narrator.estimate import Length
from narrator.estimate import clear_cache
from narrator.estimate import expected_length
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names

TARGET_MS = 200.0


def default_players(game: str) -> int:
    """The seat count `narrator play` uses when none is given (app.prepare)."""
    seats = get_variant(game).seat_counts
    return (seats.start + seats.stop) // 2


def timed(call: Callable[[], Length], repeat: int, cold: bool) -> tuple[float, float]:
    """Median wall and CPU milliseconds of ``call``."""
    walls, cpus = [], []
    for _ in range(repeat):
        if cold:
            clear_cache()
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--games", type=int, default=GAMES)
    args = parser.parse_args()
    tables = [(game, default_players(game)) for game in known_names()]
    tables.append(("alliance", 12))
    expected_length("onenight", 5, {})  # imports and line catalogs, as the screen has them

    header = (
        f"{'game':<12} {'players':>7}  {'low':>5} {'median':>6} {'high':>5} {'nights':>6}"
        f"  {'cold ms':>8} {'cpu ms':>7} {'ratio':>6}  {'cached ms':>9} {'ratio':>7}"
    )
    print(f"{args.games} games per estimate, minutes; target {TARGET_MS:.0f} ms per call")
    print(header)
    for game, players in tables:

        def call(game: str = game, players: int = players) -> Length:
            return expected_length(game, players, {}, games=args.games)

        cold_wall, cold_cpu = timed(call, args.repeat, cold=True)
        cached_wall, _ = timed(call, args.repeat, cold=False)
        length = call()
        print(
            f"{game:<12} {players:>7}  {length.low_min:5.1f} {length.median_min:6.1f} "
            f"{length.high_min:5.1f} {length.nights:>6}  {cold_wall:8.1f} {cold_cpu:7.1f} "
            f"{cold_wall / TARGET_MS:6.2f}  {cached_wall:9.3f} {cached_wall / TARGET_MS:7.5f}"
        )


if __name__ == "__main__":
    main()
