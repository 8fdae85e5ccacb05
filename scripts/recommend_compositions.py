#!/usr/bin/env python3
"""Recommended compositions: for each table size, the cards that make the fairest game.

For every game whose composition is a choice (halloween at 7–12 players, onenight
at 3–7, alliance at 9–12; sport mafia's is fixed) and every table size, every
allowed composition is played under the ``informed`` policy (narrator.simulate):
first ``--screen`` games each, then the ``--top`` closest to an even game again
with ``--final`` games each. The one whose village win rate (halloween: villagers,
onenight: inquisition, alliance: good) is closest to 50 % is recommended — of those
whose intervals overlap its own, the one with the most special cards — with its 95 %
Wilson interval, the runner-up and the default it replaces.

Writes the markdown table (``--out``, default docs/compositions.md) and, with
``--module``, the halloween table the set-up screen's defaults read
(narrator/rules/recommended.py). Every run with the same arguments gives the same
figures (each composition has its own seed).

    nice -n 10 .venv/bin/python scripts/recommend_compositions.py [--jobs 2] [--game halloween]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
import time
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from narrator.rules.errors import ConfigError
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.simulate.run import Setup
from narrator.simulate.run import check_setup
from narrator.simulate.run import simulate
from narrator.simulate.tally import Interval
from narrator.voice.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
VILLAGE = {"halloween": "villagers", "onenight": "inquisition", "alliance": "good"}
EVIL = {"halloween": "vampire", "onenight": "werewolf", "alliance": "werewolf"}
REST = {"halloween": "villager", "onenight": "inquisitor", "alliance": "villager"}
SPECIALS = {
    "halloween": ("witch", "hunter"),
    "onenight": ("high_inquisitor", "spirit"),
    "alliance": ("seer", "witch", "hunter", "guard"),
}
ALLIANCE_WOLVES = (2, 3, 4)  # fewer is no game at 9–12 seats, more is a rout
ORDER = ("halloween", "onenight", "alliance")
# Games per composition (screen, final) unless given: alliance's games are the longest.
GAMES = {"halloween": (2000, 20000), "onenight": (2000, 20000), "alliance": (1000, 8000)}


@dataclass(frozen=True)
class Tried:
    counts: Mapping[str, int]  # every role's cards, the rest included
    rate: Interval
    games: int


def roles_text(counts: Mapping[str, int], game: str) -> str:
    """The ``roles`` switch of a composition: every card but the rest, which fills up."""
    return ",".join(f"{role}={n}" for role, n in counts.items() if role != REST[game])


def candidates(game: str, players: int) -> Iterator[dict[str, int]]:
    """Every composition worth playing at ``players`` seats (the variant validates each)."""
    specials = SPECIALS[game]
    cards = players + (3 if game == "onenight" else 0)
    wolves = range(1, (cards - 1) // 2 + 1)
    if game == "alliance":
        wolves = range(min(ALLIANCE_WOLVES), max(ALLIANCE_WOLVES) + 1)
    for evil in wolves:
        for chosen in itertools.product((0, 1), repeat=len(specials)):
            if game == "alliance" and sum(chosen) < len(specials) - 1:
                continue  # at most one of the four special roles left out
            counts = {EVIL[game]: evil, **dict(zip(specials, chosen, strict=True))}
            rest = cards - sum(counts.values())
            if rest < 0:
                continue
            counts[REST[game]] = rest
            try:
                check_setup(Setup(game, players, {"roles": roles_text(counts, game)}, "informed"))
            except ConfigError:
                continue
            yield counts


def seed_of(game: str, players: int, counts: Mapping[str, int], base: int) -> int:
    text = f"{base}/{game}/{players}/{sorted(counts.items())}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def play(
    game: str, players: int, counts: Mapping[str, int], games: int, args: argparse.Namespace
) -> Tried:
    setup = Setup(game, players, {"roles": roles_text(counts, game)}, "informed")
    tally = simulate(setup, games, seed_of(game, players, counts, args.seed), args.jobs)
    return Tried(dict(counts), tally.rate(VILLAGE[game]), games)


def sizes(game: str, args: argparse.Namespace) -> tuple[int, int]:
    """Games per composition: (screen, final)."""
    screen, final = GAMES[game]
    return args.screen or screen, args.final or final


def default_counts(game: str, players: int) -> dict[str, int]:
    """The composition the rules deal when none is given (docs/games/onenight.md §1.2,
    docs/games/halloween.md §2.2, docs/games/alliance.md §4.2)."""
    variant = get_variant(game)
    counts = variant.composition(players, make_switches(variant, {})).counts
    return {role: counts.get(role, 0) for role in (EVIL[game], *SPECIALS[game], REST[game])}


def recommend(game: str, players: int, args: argparse.Namespace) -> list[Tried]:
    """The finalists, closest to an even game first."""
    screen, final = sizes(game, args)
    screened = sorted(
        (play(game, players, counts, screen, args) for counts in candidates(game, players)),
        key=lambda t: abs(t.rate.rate - 0.5),
    )
    finalists = [play(game, players, t.counts, final, args) for t in screened[: args.top]]
    return ranked(game, finalists)


def ranked(game: str, finalists: list[Tried]) -> list[Tried]:
    """Closest to 50 % first; but of the finalists whose intervals overlap the closest
    one's (no run can tell them apart), the one with the most special cards comes first:
    the richer game of two equally fair ones."""
    by_distance = sorted(finalists, key=lambda t: abs(t.rate.rate - 0.5))
    best = by_distance[0].rate
    ties = [t for t in by_distance if t.rate.low <= best.high and best.low <= t.rate.high]
    chosen = max(ties, key=lambda t: sum(t.counts.get(role, 0) for role in SPECIALS[game]))
    return [chosen, *(t for t in by_distance if t is not chosen)]


def cards_text(counts: Mapping[str, int], lang: str = "en") -> str:
    catalog = load_catalog(lang)
    return ", ".join(
        f"{n} × {catalog.text(f'role.{role}')}" if n > 1 else catalog.text(f"role.{role}")
        for role, n in counts.items()
        if n
    )


def percent(rate: Interval) -> str:
    return f"{100 * rate.rate:.1f} % ({100 * rate.low:.1f}–{100 * rate.high:.1f})"


def table(
    game: str, rows: list[tuple[int, list[Tried], Tried | None]], args: argparse.Namespace
) -> list[str]:
    village = load_catalog("en").text(f"winner.{VILLAGE[game]}")
    screen, final = sizes(game, args)
    lines = [
        f"### {load_catalog('en').text(f'setup.game_title.{game}')} (`{game}`)",
        "",
        f"Village win rate = “{village}”, informed policy, 95 % Wilson interval; every "
        f"composition {screen:,} games, the {args.top} closest to 50 % {final:,} games more.",
        "",
        "| Players | Recommended | Village wins | Runner-up | Village wins "
        "| Default before | Village wins |",
        "|---:|---|---:|---|---:|---|---:|",
    ]
    for players, finalists, before in rows:
        best = finalists[0]
        second = finalists[1] if len(finalists) > 1 else None
        cells = [
            str(players),
            cards_text(best.counts),
            percent(best.rate),
            cards_text(second.counts) if second else "—",
            percent(second.rate) if second else "—",
            cards_text(before.counts) if before else "—",
            percent(before.rate) if before else "—",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


NOTE = """
How to read it: the informed players know only what the rules show them (their cards, what \
they were shown, the votes, the cards turned face up, the checkers' claims and the \
counter-claims of the accused); a real table also reads faces and speeches, which helps the \
village, so compare compositions with each other rather than reading a rate as the truth of a \
real table. Only halloween's table is a default (the set-up screen deals it when no composition \
is chosen: `narrator/rules/recommended.py`), except at 7 players, where the seed's own worked \
example (2 vampires, a witch, a hunter) stays the default; onenight's and alliance's are \
advice, their defaults stay those of the games' own pages, and sport mafia's composition is \
fixed.
"""
START = "# --- written by scripts/recommend_compositions.py --module ---\n"
END = "# --- end of the written table ---\n"


def module(rows: list[tuple[int, list[Tried], Tried | None]], text: str) -> str:
    """narrator/rules/recommended.py's ``text`` with its halloween table written anew."""
    entries = "".join(
        f"    {players}: {json.dumps(dict(finalists[0].counts))},  # villagers win "
        f"{100 * finalists[0].rate.rate:.1f} %\n"
        for players, finalists, _ in rows
    )
    table = (
        "# halloween: players -> cards (vampire, witch, hunter, villager)\n"
        f"HALLOWEEN: Mapping[int, Mapping[str, int]] = {{\n{entries}}}\n"
    )
    head, rest = text.split(START, 1)
    return head + START + table + END + rest.split(END, 1)[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=ORDER, action="append", help="only these games")
    parser.add_argument("--players", type=int, action="append", help="only these table sizes")
    parser.add_argument("--screen", type=int, default=None, help="games per composition, first")
    parser.add_argument("--final", type=int, default=None, help="games per finalist")
    parser.add_argument("--top", type=int, default=3, help="finalists per table size")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "compositions.md")
    parser.add_argument("--module", action="store_true", help="write narrator/rules/recommended.py")
    args = parser.parse_args()
    games = args.game or list(ORDER)
    started = time.perf_counter()
    sections = [
        "# Recommended compositions",
        "",
        "Written by `scripts/recommend_compositions.py "
        + " ".join(sys.argv[1:]).replace(str(ROOT) + "/", "")
        + "`: every allowed composition of each table size played under the informed "
        "policy (`narrator simulate --policy informed`), the closest to an even game played "
        "again with more games; the recommendation is the one whose village win rate is "
        "closest to 50 % (of those it cannot be told apart from, within their 95 % intervals, "
        "the one with the most special cards). Seeds are fixed: the same arguments give the "
        "same table.",
        NOTE,
    ]
    for game in games:
        seats = get_variant(game).seat_counts
        rows = []
        for players in seats:
            if args.players and players not in args.players:
                continue
            finalists = recommend(game, players, args)
            before_counts = default_counts(game, players)
            before = next((t for t in finalists if dict(t.counts) == before_counts), None)
            if before is None:
                before = play(game, players, before_counts, sizes(game, args)[1], args)
            rows.append((players, finalists, before))
            best = finalists[0]
            print(
                f"{game} {players}: {cards_text(best.counts)} {percent(best.rate)}"
                f" [{time.perf_counter() - started:.0f} s]",
                flush=True,
            )
        sections.extend(table(game, rows, args))
        if game == "halloween" and args.module:
            path = ROOT / "narrator" / "rules" / "recommended.py"
            path.write_text(module(rows, path.read_text("utf-8")), "utf-8")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(sections), "utf-8")
    print(f"wrote {args.out} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
