"""A toy game that exists only in the tests: one wolf, villagers, one night, one vote.

It is added the way any new game is: this module (``VARIANT``), one catalog per
language (``tests/lines/<lang>/toy.toml``) and one line in ``conftest.py``; the
invariant harness (``test_invariants.py``) then plays it with no test code of its own.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

from pydantic import Field

from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Composition
from narrator.rules.core import Deal
from narrator.rules.core import DealCard
from narrator.rules.core import Eliminate
from narrator.rules.core import Game
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import Role
from narrator.rules.core import RoleName
from narrator.rules.core import Say
from narrator.rules.core import Script
from narrator.rules.core import Secret
from narrator.rules.core import Sleep
from narrator.rules.core import Switches
from narrator.rules.core import Wake
from narrator.rules.core import check_deal
from narrator.rules.errors import ConfigError
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.prompts import living_seat_prompt

WOLF = "wolf"
VILLAGER = "villager"
ROLES: Mapping[str, Role] = {
    WOLF: Role(WOLF, "werewolves", evil=True),
    VILLAGER: Role(VILLAGER, "villagers"),
}


class ToySwitches(Switches):
    window_s: float = Field(5, gt=0, le=60, description="the wolf's window, seconds")
    allow_self_vote: bool = Field(False, description="a player may vote for himself")


def voted_out(votes: Mapping[Seat, Seat | None]) -> Seat | None:
    """The one seat with the most votes; nobody on a tie or when nobody voted."""
    top = Counter(seat for seat in votes.values() if seat is not None).most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def script(deal: Deal, sw: ToySwitches) -> Script:
    players = deal.players
    living = list(range(1, players + 1))
    yield Say("toy.intro", {"players": players})
    for seat in living:
        yield Say("deal.call", {"seat": seat})
        yield DealCard(seat, Secret.roles(deal.role_of(seat)))

    yield Phase(night(1))
    yield Say("toy.night")
    (wolf,) = deal.seats_with(WOLF)
    wake = Tag(night(1), "wolf")
    yield Say("toy.wolf_wake")
    yield Wake(wake, sw.window_s, (wolf,))
    victim = yield Ask(living_seat_prompt(wake, wolf, tuple(living), players, none=True))
    yield Sleep()
    yield Say("toy.wolf_sleep")

    yield Phase(day(1))
    yield Say("toy.morning", dawn=True)
    if isinstance(victim, SeatAnswer):
        yield Say("toy.killed", {"seat": victim.seat})
        living.remove(victim.seat)
        yield Eliminate(victim.seat, night(1), "wolves")
    else:
        yield Say("toy.nobody_killed")
    yield Say("toy.vote")
    votes: dict[Seat, Seat | None] = {}
    for voter in tuple(living):
        tag = Tag(day(1), "vote", voter)
        prompt = living_seat_prompt(
            tag, voter, tuple(living), players, none=False, allow_self=sw.allow_self_vote
        )
        vote = yield Ask(prompt)
        votes[voter] = vote.seat if isinstance(vote, SeatAnswer) else None
    out = voted_out(votes)
    if out is None:
        yield Say("toy.nobody_out")
    else:
        yield Say("toy.voted_out", {"seat": out})
        yield Eliminate(out, day(1), "voted")

    winner = "villagers" if out == wolf else "werewolves"
    yield Say(f"toy.win_{winner}")
    for seat in range(1, players + 1):
        yield Say("reveal.seat", {"seat": seat, "role": RoleName(deal.role_of(seat))})
    return Outcome(winner, day(1), reveal=dict(enumerate(deal.seats, start=1)))


@dataclass(frozen=True)
class Toy:
    name: str = "toy"
    roles: Mapping[str, Role] = field(default_factory=lambda: ROLES)
    switches: type[Switches] = ToySwitches
    seat_counts: range = range(3, 7)

    def composition(self, players: int, switches: Switches) -> Composition:
        if switches.roles is not None:
            raise ConfigError("roles: the toy game is always one wolf and villagers")
        return Composition({WOLF: 1, VILLAGER: players - 1})

    def validate_deal(self, deal: Deal, switches: Switches) -> None:
        check_deal(self.name, deal, ROLES, self.composition(deal.players, switches).counts)

    def new_game(self, deal: Deal, switches: Switches, rng: random.Random) -> Game:
        del rng  # nothing is left to chance once the cards are dealt
        assert isinstance(switches, ToySwitches)
        return Game(self.name, deal, script(deal, switches))


VARIANT = Toy()
