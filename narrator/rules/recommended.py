"""Recommended compositions: the cards that make the fairest game at each table size.

The table is written by scripts/recommend_compositions.py (docs/compositions.md has
the figures): for each table size, of every allowed composition played under the
``informed`` policy (narrator.simulate), the one whose village win rate is closest to
50 %. It is the set-up screen's default composition (``with_recommended``); the rules'
own default table (docs/games/halloween.md §2.2, the scenario files' contract) and what a ``roles``
override is counted from stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# --- written by scripts/recommend_compositions.py --module ---
# halloween: players -> cards (vampire, witch, hunter, villager)
HALLOWEEN: Mapping[int, Mapping[str, int]] = {
    7: {"vampire": 1, "witch": 1, "hunter": 0, "villager": 5},  # villagers win 42.8 %
    8: {"vampire": 1, "witch": 1, "hunter": 0, "villager": 6},  # villagers win 53.1 %
    9: {"vampire": 1, "witch": 1, "hunter": 0, "villager": 7},  # villagers win 50.1 %
    10: {"vampire": 2, "witch": 1, "hunter": 1, "villager": 6},  # villagers win 50.3 %
    11: {"vampire": 2, "witch": 1, "hunter": 1, "villager": 7},  # villagers win 50.8 %
    12: {"vampire": 2, "witch": 0, "hunter": 1, "villager": 9},  # villagers win 53.1 %
}
# --- end of the written table ---

RECOMMENDED: Mapping[str, Mapping[int, Mapping[str, int]]] = {"halloween": HALLOWEEN}
# Table sizes whose composition the seed itself fixes: its worked example deals 7 players
# 2 vampires, a witch and a hunter (docs/games/halloween.md §2.2). The seed is authoritative,
# so there the rules' own composition stays the default and the recommendation is only advice.
SEED_FIXED: Mapping[str, frozenset[int]] = {"halloween": frozenset({7})}
REST: Mapping[str, str] = {"halloween": "villager"}  # the card that fills the deck


def recommended_roles(game: str, players: int) -> str | None:
    """The ``roles`` switch naming the recommended composition (None: there is none)."""
    cards = RECOMMENDED.get(game, {}).get(players)
    if cards is None or players in SEED_FIXED.get(game, frozenset()):
        return None
    return ",".join(f"{role}={count}" for role, count in cards.items() if role != REST[game])


def with_recommended(game: str, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with the recommended composition of ``players`` seats, unless they
    name a composition of their own (``roles``)."""
    chosen = dict(options)
    roles = recommended_roles(game, players)
    if roles is not None and chosen.get("roles") is None:
        chosen["roles"] = roles
    return chosen
