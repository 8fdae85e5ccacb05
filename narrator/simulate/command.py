"""``narrator simulate``: check everything, play the games, print the figures, draw the chart."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from typing import TextIO

from narrator.simulate.report import count
from narrator.simulate.report import summary
from narrator.simulate.run import Setup
from narrator.simulate.run import all_cores
from narrator.simulate.run import check_run
from narrator.simulate.run import check_setup
from narrator.simulate.run import simulate
from narrator.voice.catalog import load_catalog


def simulate_command(
    game: str,
    players: int | None,
    options: Mapping[str, Any],
    *,
    games: int,
    policy: str,
    jobs: int | None,
    seed: int,
    plot: Path | None,
    lang: str,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Every check first (a ConfigError, exit 2, before any game), then the run."""
    out = out or sys.stdout
    errors = err or sys.stderr
    from narrator.rules.registry import get_variant
    from narrator.settings import default_players

    if players is None:
        players = default_players(get_variant(game))
    processes = all_cores() if jobs is None else jobs
    table = check_setup(Setup(game, players, dict(options), policy))
    check_run(games, processes)
    catalog = load_catalog(lang)
    if plot is not None:
        from narrator.simulate.plot import check_plot

        check_plot(plot)

    def progress(done: int, total: int) -> None:
        if errors.isatty():
            text = catalog.text(
                "simulate.progress", {"done": count(done, lang), "games": count(total, lang)}
            )
            errors.write(f"\r{text}" + ("\n" if done >= total else ""))
            errors.flush()

    start = time.perf_counter()
    tally = simulate(table.setup, games, seed, processes, progress)
    seconds = time.perf_counter() - start
    for line in summary(table, tally, catalog, seed=seed, jobs=processes, seconds=seconds):
        print(line, file=out)
    if plot is not None:
        from narrator.simulate.plot import write_plot

        write_plot(plot, table, tally, catalog)
        print(catalog.text("simulate.plot", {"path": plot}), file=out)
    return 0
