"""Counting many games: wins, lengths and causes, with 95 % Wilson intervals.

A :class:`Tally` only adds whole numbers, so tallies of parts of a run add up
to exactly the tally of the whole run, in any order: the figures of a seed are
the same whatever the number of processes.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from dataclasses import field

from narrator.simulate.driver import GameResult

Z_95 = 1.959963984540054  # the two-sided 95 % quantile of the normal distribution
UNFINISHED = ""  # the winner key of a game stopped after night 30


@dataclass(frozen=True)
class Interval:
    """A share with its 95 % Wilson score interval (all three between 0 and 1)."""

    rate: float
    low: float
    high: float


def wilson(hits: int, total: int, z: float = Z_95) -> Interval:
    """The Wilson score interval of ``hits`` out of ``total`` (it never leaves 0–1,
    and is not degenerate at 0 or ``total`` hits, unlike the normal approximation)."""
    if total <= 0:
        raise ValueError("an interval needs at least one game")
    if not 0 <= hits <= total:
        raise ValueError(f"{hits} hits out of {total}")
    rate = hits / total
    z2 = z * z
    centre = (rate + z2 / (2 * total)) / (1 + z2 / total)
    half = z * math.sqrt(rate * (1 - rate) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    low = 0.0 if hits == 0 else min(rate, centre - half)  # exact at the ends, whatever
    high = 1.0 if hits == total else max(rate, centre + half)  # the rounding
    return Interval(rate, low, high)


@dataclass
class Tally:
    """Whole-number counts over games; ``add`` one game, ``merge`` another tally."""

    games: int = 0
    wins: Counter[str] = field(default_factory=Counter)  # winner -> games ("" unfinished)
    nights: int = 0
    days: int = 0
    causes: Counter[str] = field(default_factory=Counter)  # cause -> eliminations
    lengths: Counter[int] = field(default_factory=Counter)  # nights played -> games

    def add(self, result: GameResult) -> None:
        self.games += 1
        self.wins[result.winner if result.winner is not None else UNFINISHED] += 1
        self.nights += result.nights
        self.days += result.days
        self.causes.update(result.causes)
        self.lengths[result.nights] += 1

    def merge(self, other: Tally) -> None:
        self.games += other.games
        self.wins.update(other.wins)
        self.nights += other.nights
        self.days += other.days
        self.causes.update(other.causes)
        self.lengths.update(other.lengths)

    def rate(self, winner: str) -> Interval:
        return wilson(self.wins[winner], self.games)

    @property
    def mean_nights(self) -> float:
        return self.nights / self.games

    @property
    def mean_days(self) -> float:
        return self.days / self.games

    @property
    def eliminations(self) -> int:
        return sum(self.causes.values())

    def top_causes(self, most: int = 5) -> list[tuple[str, int]]:
        """The most common causes of elimination, most common first (ties by name)."""
        return sorted(self.causes.items(), key=lambda item: (-item[1], item[0]))[:most]
