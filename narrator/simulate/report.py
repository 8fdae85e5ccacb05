"""The figures of a simulation in words, in the table's language (``simulate.*`` lines)."""

from __future__ import annotations

from narrator.simulate.run import Table
from narrator.simulate.tally import UNFINISHED
from narrator.simulate.tally import Tally
from narrator.voice.catalog import Catalog

TOP_CAUSES = 5


def number(value: float, lang: str, digits: int = 1) -> str:
    """``48.3`` (en) or ``48,3`` (ru)."""
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if lang == "ru" else text


def count(value: int, lang: str) -> str:
    """``100 000`` (ru) or ``100,000`` (en)."""
    text = f"{value:,}"
    return text.replace(",", "\u00a0") if lang == "ru" else text


def percent(share: float, lang: str, digits: int = 1) -> str:
    return number(100 * share, lang, digits)


def outcomes(table: Table, tally: Tally) -> list[str]:
    """The winners to show: each side with cards in play (it can win, even if it never
    did), then any other end seen (a draw, nobody, the lovers)."""
    sides = list(dict.fromkeys(table.variant.roles[role].team for role in table.counts))
    others = sorted(w for w in tally.wins if w not in sides and w != UNFINISHED)
    return [*sides, *others]


def heading(table: Table, catalog: Catalog) -> str:
    roles = ", ".join(f"{catalog.text(f'role.{r}')} × {n}" for r, n in table.counts.items())
    game = catalog.lines.get(f"setup.game_title.{table.setup.game}", table.setup.game)
    return catalog.text(
        "simulate.heading", {"game": game, "players": table.setup.players, "roles": roles}
    )


def summary(
    table: Table, tally: Tally, catalog: Catalog, *, seed: int, jobs: int, seconds: float
) -> list[str]:
    """Every line ``narrator simulate`` prints, in order."""
    lang = catalog.lang

    def t(key: str, **params: object) -> str:
        return catalog.text(key, params)

    lines = [
        heading(table, catalog),
        t(
            "simulate.run",
            games=count(tally.games, lang),
            policy=t(f"simulate.policy_{table.setup.policy}"),
            seed=seed,
            jobs=jobs,
            seconds=number(seconds, lang),
        ),
        t("simulate.wins"),
    ]
    for team in outcomes(table, tally):
        rate = tally.rate(team)
        name = catalog.lines.get(f"winner.{team}", team)
        digits = 2 if rate.high < 0.01 else 1  # a rare end (a draw) is not shown as 0.0 %
        lines.append(
            t(
                "simulate.win",
                team=name,
                rate=percent(rate.rate, lang, digits),
                low=percent(rate.low, lang, digits),
                high=percent(rate.high, lang, digits),
            )
        )
    if tally.wins[UNFINISHED]:
        lines.append(t("simulate.unfinished", rate=percent(tally.rate(UNFINISHED).rate, lang)))
    lines.append(
        t(
            "simulate.length",
            nights=number(tally.mean_nights, lang, 2),
            days=number(tally.mean_days, lang, 2),
        )
    )
    if not tally.eliminations:
        lines.append(t("simulate.no_causes"))
        return lines
    lines.append(t("simulate.causes"))
    for cause, times in tally.top_causes(TOP_CAUSES):
        lines.append(
            t(
                "simulate.cause",
                cause=catalog.lines.get(f"cause.{cause}", cause),
                per_game=number(times / tally.games, lang, 2),
                share=percent(times / tally.eliminations, lang),
            )
        )
    return lines
