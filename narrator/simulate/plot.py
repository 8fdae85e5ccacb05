"""The chart of a simulation (``--plot FILE``): win rates with their 95 % intervals, and
how many nights the games lasted. matplotlib is imported only here."""

from __future__ import annotations

from pathlib import Path

from narrator.outputs import check_writable
from narrator.rules.errors import ConfigError
from narrator.simulate.report import count
from narrator.simulate.report import number
from narrator.simulate.report import outcomes
from narrator.simulate.run import Table
from narrator.simulate.tally import Tally
from narrator.voice.catalog import Catalog

INSTALL = "pip install matplotlib (a dependency of narrator: bash scripts/setup.sh installs it)"
EVIL, GOOD, OTHER = "#b03a2e", "#2471a3", "#8a8f98"


def check_plot(path: Path) -> None:
    """Before any game is played: matplotlib is there and ``path`` can be written."""
    if path.suffix.lower() != ".png":
        raise ConfigError(f"--plot {path}: the chart is a PNG file (name it ….png)")
    check_writable(path, "--plot")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ConfigError(f"--plot needs matplotlib, which is not installed: {INSTALL}") from None


def write_plot(path: Path, table: Table, tally: Tally, catalog: Catalog) -> None:
    """Two panels: the share of wins of each side (with error bars), the length in nights."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    def t(key: str, **params: object) -> str:
        return catalog.text(key, params)

    sides = outcomes(table, tally)
    evil = {role.team for role in table.variant.roles.values() if role.evil}
    good = {role.team for role in table.variant.roles.values() if not role.evil}
    rates = [tally.rate(side) for side in sides]
    names = [catalog.lines.get(f"winner.{side}", side) for side in sides]
    colours = [EVIL if s in evil else GOOD if s in good else OTHER for s in sides]
    figure = Figure(figsize=(11, 5.2), dpi=120)
    wins, length = figure.subplots(1, 2, gridspec_kw={"width_ratios": (3, 2)})
    heights = [100 * r.rate for r in rates]
    below = [100 * (r.rate - r.low) for r in rates]
    above = [100 * (r.high - r.rate) for r in rates]
    bars = wins.bar(range(len(sides)), heights, color=colours, yerr=(below, above), capsize=6)
    for bar, height in zip(bars, heights, strict=True):
        label = f"{number(height, catalog.lang)} %"
        wins.annotate(
            label,
            (bar.get_x() + bar.get_width() / 2, height),
            ha="center",
            va="bottom",
            xytext=(0, 8),
            textcoords="offset points",
        )
    wins.set_xticks(range(len(sides)), [name.replace(" — ", "\n") for name in names])
    wins.set_ylim(0, 105)
    wins.set_ylabel(t("simulate.chart_wins"))
    wins.axhline(50, color="#cccccc", linewidth=1, zorder=0)
    nights = sorted(tally.lengths)
    shares = [100 * tally.lengths[n] / tally.games for n in nights]
    length.bar(nights, shares, color=OTHER)
    length.set_xlabel(t("simulate.chart_length"))
    length.set_ylabel(t("simulate.chart_share"))
    length.set_xticks(nights)
    game = catalog.lines.get(f"setup.game_title.{table.setup.game}", table.setup.game)
    figure.suptitle(
        t(
            "simulate.chart_title",
            game=game,
            players=table.setup.players,
            games=count(tally.games, catalog.lang),
            policy=t(f"simulate.policy_{table.setup.policy}"),
        )
    )
    figure.tight_layout()
    try:
        figure.savefig(path, format="png")
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
