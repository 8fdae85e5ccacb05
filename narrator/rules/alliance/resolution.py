"""Who dies, who wins, who speaks when, as plain functions (docs/games/alliance.md §4.5, §4.8,
§4.10, §4.12)."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence

from narrator.rules.alliance.roles import CUPID
from narrator.rules.alliance.roles import EXILED
from narrator.rules.alliance.roles import GOOD
from narrator.rules.alliance.roles import LOVE
from narrator.rules.alliance.roles import LOVERS
from narrator.rules.alliance.roles import POISON
from narrator.rules.alliance.roles import SHERIFF_WEIGHT
from narrator.rules.alliance.roles import SPECIAL_ROLES
from narrator.rules.alliance.roles import VILLAGER
from narrator.rules.alliance.roles import WEREWOLF
from narrator.rules.alliance.roles import WEREWOLVES
from narrator.rules.alliance.roles import WOLVES
from narrator.rules.kit import around
from narrator.rules.prompts import Seat


def night_deaths(
    wolf_target: Seat | None,
    guard_target: Seat | None,
    antidote: bool,
    poison_target: Seat | None,
    lovers: tuple[Seat, Seat] | None = None,
) -> tuple[tuple[Seat, str], ...]:
    """Who dies at dawn and why (docs/games/alliance.md §4.5), in seat order.

    Guard and antidote on the attacked seat cancel out; poison beats everything;
    a lover of anyone dead dies of love.  The antidote is always on the victim.
    """
    dead: dict[Seat, str] = {}
    if wolf_target is not None:
        protections = (guard_target == wolf_target) + antidote
        if protections != 1:
            dead[wolf_target] = WOLVES
    if poison_target is not None:
        dead[poison_target] = POISON
    if lovers is not None:
        for lover, partner in (lovers, lovers[::-1]):
            if lover in dead and partner not in dead:
                dead[partner] = LOVE
    return tuple(sorted(dead.items()))


def is_cross_team(roles: Sequence[str], lovers: tuple[Seat, Seat] | None) -> bool:
    """Lovers of a werewolf and a good player form the team «Влюблённые» (4.9)."""
    if lovers is None:
        return False
    wolves = [roles[seat - 1] == WEREWOLF for seat in lovers]
    return wolves[0] != wolves[1]


def winner_of(
    roles: Sequence[str], living: Iterable[Seat], lovers: tuple[Seat, Seat] | None = None
) -> str | None:
    """The side-kill rule (docs/games/alliance.md §4.12), checked in the order lovers, good,
    werewolves.

    With cross-team lovers, both lovers and Cupid play for «Влюблённые» and count
    for neither side.  A class that had no member at the start (no villagers in an
    overridden composition) cannot be "all dead".
    """
    alive = set(living)
    seats = range(1, len(roles) + 1)
    team: set[Seat] = set()
    if is_cross_team(roles, lovers):
        assert lovers is not None
        team = {*lovers, *(s for s in seats if roles[s - 1] == CUPID)}
    pair_alive = bool(team) and lovers is not None and set(lovers) <= alive
    if pair_alive and alive <= team:
        return LOVERS
    counted = [s for s in seats if s not in team]
    wolves = [s for s in counted if roles[s - 1] == WEREWOLF]
    if pair_alive:
        return None
    if not alive & set(wolves):
        return GOOD
    villagers = [s for s in counted if roles[s - 1] == VILLAGER]
    specials = [s for s in counted if roles[s - 1] in SPECIAL_ROLES]
    for group in (villagers, specials):
        if group and not alive & set(group):
            return WEREWOLVES
    return None


def exile_tally(votes: Mapping[Seat, Seat | None], sheriff: Seat | None) -> dict[Seat, float]:
    """Votes per target, the sheriff's weighing 1.5 (4.10-1); abstentions count nothing."""
    tally: dict[Seat, float] = {}
    for voter, target in votes.items():
        if target is not None:
            tally[target] = tally.get(target, 0.0) + (SHERIFF_WEIGHT if voter == sheriff else 1.0)
    return tally


def top_of(tally: Mapping[Seat, float]) -> tuple[Seat, ...]:
    """Every seat with the most votes, in seat order (all of them when all have zero)."""
    top = max(tally.values(), default=0.0)
    return tuple(sorted(seat for seat, votes in tally.items() if votes == top))


def leaders(tally: Mapping[Seat, float]) -> tuple[Seat, ...]:
    """The seats tied at the top of an exile vote; none when nobody got a vote (4.10-2)."""
    if sum(tally.values()) == 0:
        return ()
    return top_of(tally)


def speaking_order(
    anchor: Seat,
    step: int,
    living: Iterable[Seat],
    players: int,
    sheriff: Seat | None,
    *,
    anchor_speaks_first: bool = False,
) -> tuple[Seat, ...]:
    """Day speeches (4.8): from next to ``anchor`` (or from it) by ``step``, sheriff last."""
    start = anchor if anchor_speaks_first else (anchor - 1 + step) % players + 1
    order = [seat for seat in around(start, step, living, players) if seat != sheriff]
    if sheriff is not None and sheriff in set(living):
        order.append(sheriff)
    return tuple(order)


def may_shoot(cause: str, shoots_on_love_death: bool) -> bool:
    """A hunter shoots when killed by the wolves or exiled, never when poisoned (4.7-3)."""
    return cause in {WOLVES, EXILED} or (cause == LOVE and shoots_on_love_death)
