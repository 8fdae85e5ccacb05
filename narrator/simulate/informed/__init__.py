"""The ``informed`` policy: seats that act on what they could know (see :mod:`.base`).

One strategy per game; a game without one (a test's toy game) is refused before any
game is played.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from narrator.rules.errors import ConfigError
from narrator.simulate.informed.alliance import Alliance
from narrator.simulate.informed.base import InformedPlayers
from narrator.simulate.informed.base import Strategy
from narrator.simulate.informed.halloween import Halloween
from narrator.simulate.informed.onenight import OneNight
from narrator.simulate.informed.sport_mafia import SportMafia

STRATEGIES: Mapping[str, type[Strategy]] = {
    "onenight": OneNight,
    "halloween": Halloween,
    "sport_mafia": SportMafia,
    "alliance": Alliance,
}


def check_informed(game: str) -> None:
    if game not in STRATEGIES:
        known = ", ".join(STRATEGIES)
        raise ConfigError(f"the informed policy knows how to play {known}, not {game}")


def informed_players(
    game: str, players: int, counts: Mapping[str, int], rng: random.Random
) -> InformedPlayers:
    """The informed players of one table of ``game``."""
    return InformedPlayers(STRATEGIES[game], players, counts, rng)
