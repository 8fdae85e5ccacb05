"""«Хэллоуинская мафия» (docs/games/halloween.md): vampires, a protecting witch, a checking hunter.

Every night the village closes its eyes and keeps a short silence, the
vampires agree on one target, the witch protects somebody (never the same
seat two nights running) and the hunter learns «да» / «нет» about one player.
Every day has a timed discussion and a spoken vote in turn, with one revote
between tied leaders.  Roles are turned face up when a player leaves, so a
dead witch or hunter is not called (``call_dead_roles``).  The game is a draw
after the vote of day ``cycle_limit``.

The silence after «Деревня закрывает глаза…» (docs/games/halloween.md §2.3, 5 s) is a public
:class:`Timer` (``n<k>.silence``), not a wake window: nobody is awake in it and
the scenario contract names no prompt for it, so it is not listed in
``windows``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field

from narrator.rules import kit
from narrator.rules import phases
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import NO_SEAT
from narrator.rules.core import Ask
from narrator.rules.core import Composition
from narrator.rules.core import Deal
from narrator.rules.core import Eliminate
from narrator.rules.core import Flow
from narrator.rules.core import MaybeSeconds
from narrator.rules.core import Phase
from narrator.rules.core import Role
from narrator.rules.core import RoleName
from narrator.rules.core import Say
from narrator.rules.core import Script
from narrator.rules.core import Seconds
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Switches
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.core import decoy
from narrator.rules.kit import Rules
from narrator.rules.kit import around
from narrator.rules.kit import first_in_turn
from narrator.rules.kit import override_counts
from narrator.rules.kit import window
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Rule
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.prompts import forbid
from narrator.rules.prompts import living_only
from narrator.rules.prompts import living_seat_prompt
from narrator.rules.prompts import no_self_vote
from narrator.rules.prompts import on_seat
from narrator.rules.prompts import seat_prompt

VAMPIRE = "vampire"
WITCH = "witch"
HUNTER = "hunter"
VILLAGER = "villager"

ROLES: Mapping[str, Role] = kit.teams(
    "vampires", vampires=(VAMPIRE,), villagers=(WITCH, HUNTER, VILLAGER)
)

# Winners of docs/games/halloween.md §2.7.
VILLAGERS = "villagers"
VAMPIRES = "vampires"
DRAW = "draw"

# Causes of departure (docs/scenarios.md).
ATTACKED = "attacked"
VOTED = "voted"

# docs/games/halloween.md §2.2 (proposed): vampires per table size; one witch, one hunter,
# villagers the rest.
VAMPIRES_FOR = {7: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3}
SEAT_COUNTS = range(7, 13)
SEED_CYCLES = 6  # the seed's limit: its own announcement and draw lines
SEED_DISCUSSION_S = 180.0  # «На обсуждение — три минуты»


class HalloweenSwitches(Switches):
    allow_self_vote: bool = Field(False, description="a player may vote for himself")
    cycle_limit: int = Field(6, ge=1, le=30, description="a draw after the vote of this day")
    witch_may_skip: bool = Field(False, description="the witch may answer 'none' (no protection)")
    call_dead_roles: bool = Field(
        False, description="call a dead witch / hunter with the same words and a silent window"
    )
    discussion_s: Seconds = Field(SEED_DISCUSSION_S, ge=0, le=3600, description="discussion, s")
    silence_s: Seconds = Field(
        5, ge=0, le=60, description="silence after «Деревня закрывает глаза», s (0: none)"
    )
    vampires_s: Seconds = Field(30, gt=0, le=120, description="vampires' window, seconds")
    witch_s: Seconds = Field(20, gt=0, le=120, description="witch's window, seconds")
    hunter_s: Seconds = Field(20, gt=0, le=120, description="hunter's window, seconds")
    window_s: MaybeSeconds = Field(
        None, gt=0, le=120, description="every wake window, seconds (overrides the three above)"
    )

    def window(self, role: str) -> float:
        """The length of a role's wake window."""
        if self.window_s is not None:
            return self.window_s
        return {VAMPIRE: self.vampires_s, WITCH: self.witch_s, HUNTER: self.hunter_s}[role]


# --- resolution: plain functions ----------------------------------------------------------


def night_victim(attack: Seat | None, protected: Seat | None) -> Seat | None:
    """Who leaves at dawn (docs/games/halloween.md §2.5): the target, unless nobody attacked
    or it was protected."""
    if attack is None or attack == protected:
        return None
    return attack


def leaders(votes: Mapping[Seat, Seat | None]) -> tuple[Seat, ...]:
    """Everybody with the most votes, in seat order; nobody when every voter abstained."""
    tally = Counter(target for target in votes.values() if target is not None)
    top = max(tally.values(), default=0)
    if top == 0:
        return ()
    return tuple(sorted(seat for seat, count in tally.items() if count == top))


def winner_of(roles: Sequence[str], living: Iterable[Seat]) -> str | None:
    """Villagers with no vampire left, vampires when they are not fewer, in that order
    (docs/games/halloween.md §2.7)."""
    alive = list(living)
    vampires = sum(1 for seat in alive if roles[seat - 1] == VAMPIRE)
    if vampires == 0:
        return VILLAGERS
    if vampires >= len(alive) - vampires:
        return VAMPIRES
    return None


# docs/games/halloween.md §2.6 item 1: day 1 from the lowest living seat, then the next living seat
# clockwise after the previous day's first voter (who may have left since).
first_voter = first_in_turn


def voting_order(first: Seat, living: Sequence[Seat], players: int) -> tuple[Seat, ...]:
    """The living seats clockwise from ``first``."""
    return around(first, 1, living, players)


def default_counts(players: int) -> dict[str, int]:
    """The proposed table of docs/games/halloween.md §2.2."""
    vampires = VAMPIRES_FOR[players]
    return {VAMPIRE: vampires, WITCH: 1, HUNTER: 1, VILLAGER: players - vampires - 2}


def composition_counts(players: int, roles: str | None) -> dict[str, int]:
    """The role counts for ``players`` seats, with an optional override, validated."""
    return override_counts(
        default_counts(players),
        roles,
        ROLES,
        rest=VILLAGER,
        singles=(WITCH, HUNTER),
        players=players,
    )


def win_line(winner: str, cycle_limit: int) -> str:
    if winner == DRAW:
        return "halloween.draw_6" if cycle_limit == SEED_CYCLES else "halloween.draw"
    return f"halloween.win_{winner}"


# --- prompts ---------------------------------------------------------------------------------


def _not_a_vampire(vampires: Sequence[Seat]) -> Rule:
    def test(seat: Seat) -> None:
        if seat in vampires:
            raise forbid(
                f"seat {seat} is a vampire: choose a player of the other side",
                "reason.partner",
                seat=seat,
            )

    return on_seat(test)


def vampires_prompt(
    night: int, vampires: Sequence[Seat], living: Sequence[Seat], players: int
) -> Prompt:
    """One agreed target: a living player of the other side, or nobody
    (docs/games/halloween.md §2.4).

    Not agreed within the window: no attack.
    """
    targets = [s for s in living if s not in vampires]
    rules = (_not_a_vampire(vampires), living_only(living))
    return seat_prompt(Tag(phases.night(night), "vampires"), vampires, players, targets, *rules)


def witch_prompt(
    night: int,
    witch: Seat,
    living: Sequence[Seat],
    banned: Seat | None,
    players: int,
    may_skip: bool = False,
) -> Prompt:
    """A living player (herself allowed), not last night's protected seat.

    An expired window: no protection tonight.
    """
    targets = [s for s in living if s != banned]
    rules = (living_only(living), kit.not_protected_again(banned, ": choose another player"))
    tag = Tag(phases.night(night), "witch")
    return seat_prompt(tag, (witch,), players, targets, *rules, other="none" if may_skip else None)


def hunter_prompt(night: int, hunter: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """Another living player; repeating an earlier check is allowed."""
    return living_seat_prompt(
        Tag(phases.night(night), "hunter"), hunter, living, players, none=False
    )


def vote_prompt(
    tag: Tag,
    voter: Seat,
    living: Sequence[Seat],
    candidates: Sequence[Seat],
    players: int,
    allow_self: bool = False,
) -> Prompt:
    """A candidate (another living player; in a revote one of the leaders) or abstain.

    No answer: the voter abstains (docs/rules.md §0.3).
    """
    targets = [s for s in candidates if allow_self or s != voter]
    rules: tuple[Rule, ...] = (living_only(living), kit.in_revote(candidates))
    if not allow_self:
        rules = (no_self_vote(voter), *rules)
    return seat_prompt(tag, (voter,), players, targets, *rules, other="abstain")


# --- the script ------------------------------------------------------------------------------


@dataclass
class Table(kit.Table[HalloweenSwitches]):
    """The state of one game: the cards (hidden) and who is still playing (public)."""

    banned: Seat | None = None  # the witch's protection of last night
    first: Seat | None = None  # the previous day's first voter

    def winner(self) -> str | None:
        return winner_of(self.roles, self.alive)


def game_script(deal: Deal, sw: HalloweenSwitches) -> Script:
    """The whole game as the table lives it, from the announcement to the reveal."""
    table = Table(deal.seats, sw)
    yield from pregame(table)
    night = 1
    while True:
        yield Phase(phases.night(night))
        attack, protected = yield from night_of(table, night)
        table.banned = protected
        yield Say("halloween.morning", dawn=True)
        victim = night_victim(attack, protected)
        if victim is None:
            yield Say("halloween.all_survived")
        else:
            yield from leave(table, victim, phases.night(night), ATTACKED, "halloween.night_victim")
        winner = table.winner()
        if winner is not None:
            outcome = yield from finish(table, winner, phases.night(night))
            return outcome

        yield Phase(phases.day(night))
        out = yield from day_of(table, night)
        if out is not None:
            yield from leave(table, out, phases.day(night), VOTED, "halloween.voted_out")
        winner = table.winner()
        if winner is None and night >= sw.cycle_limit:
            winner = DRAW
        if winner is not None:
            outcome = yield from finish(table, winner, phases.day(night))
            return outcome
        night += 1


def pregame(table: Table) -> Flow[None]:
    """The composition and the cycle limit are announced before the deal
    (docs/games/halloween.md §2.3, S0)."""
    players, sw = table.players, table.sw
    counts = Counter(table.roles)
    yield Say("halloween.intro")
    if dict(counts) == {k: v for k, v in default_counts(players).items() if v}:
        yield Say(f"halloween.table_{players}")
    else:
        yield Say(
            "halloween.table",
            {
                "players": players,
                "vampires": counts[VAMPIRE],
                "witches": counts[WITCH],
                "hunters": counts[HUNTER],
                "villagers": counts[VILLAGER],
            },
        )
    if sw.cycle_limit == SEED_CYCLES:
        yield Say("halloween.limit_6")
    else:
        yield Say("halloween.limit", {"cycles": sw.cycle_limit})
    yield Say("halloween.quiet")
    yield from kit.deal_cards(table.roles)
    return None


def night_of(table: Table, night: int) -> Flow[tuple[Seat | None, Seat | None]]:
    """The night's choices: (the vampires' target, the witch's protection).

    A dead witch or hunter is called only with ``call_dead_roles`` (their cards are
    face up, so the window hides nothing).
    """
    sw, players, living = table.sw, table.players, tuple(table.alive)
    phase = phases.night(night)
    yield Say("halloween.village_sleeps")
    if sw.silence_s > 0:
        yield Timer(Tag(phase, "silence"), sw.silence_s, warnings=())

    vampires = table.living_with(VAMPIRE)
    attack = yield from window(
        "halloween.vampires_wake_first" if night == 1 else "halloween.vampires_wake",
        Wake(Tag(phase, "vampires"), sw.window(VAMPIRE), vampires),
        "halloween.vampires_sleep",
        vampires_agree(night, vampires, living, players),
    )

    protected = yield from kit.role_call(
        ("halloween.witch_wake", "halloween.witch_sleep"),
        Tag(phase, "witch"),
        sw.window(WITCH),
        table.called(WITCH, sw.call_dead_roles),
        lambda awake: protect(table, night, awake, living),
        decoy(witch_prompt(night, NO_SEAT, living, None, players, sw.witch_may_skip)),
    )

    yield from kit.check_call(
        ("halloween.hunter_wake", "halloween.hunter_sleep"),
        Tag(phase, "hunter"),
        sw.window(HUNTER),
        table.called(HUNTER, sw.call_dead_roles),
        prompt=lambda hunter: hunter_prompt(night, hunter, living, players),
        verdict=lambda seat: "yes" if table.role(seat) == VAMPIRE else "no",
        verdicts=("no", "yes"),
    )
    return attack, protected


def vampires_agree(
    night: int, vampires: tuple[Seat, ...], living: Sequence[Seat], players: int
) -> Flow[Seat | None]:
    """The vampires (meeting each other on night 1) agree on one target, or nobody."""
    if night == 1:
        yield Show(
            Tag(phases.night(1), "vampires"),
            vampires,
            Secret.seats(vampires if len(vampires) > 1 else ()),
        )
    target = yield Ask(vampires_prompt(night, vampires, living, players))
    return target.seat if isinstance(target, SeatAnswer) else None


def protect(
    table: Table, night: int, awake: Sequence[Seat], living: Sequence[Seat]
) -> Flow[Seat | None]:
    """The witch protects one player tonight (never the same two nights running)."""
    protected: Seat | None = None
    for witch in awake:
        prompt = witch_prompt(
            night, witch, living, table.banned, table.players, table.sw.witch_may_skip
        )
        choice = yield Ask(prompt)
        protected = choice.seat if isinstance(choice, SeatAnswer) else None
    return protected


def day_of(table: Table, day: int) -> Flow[Seat | None]:
    """Discussion, the vote and perhaps one revote; the seat voted out, if any."""
    sw, players = table.sw, table.players
    discussion = "halloween.discussion_3min" if sw.discussion_s == SEED_DISCUSSION_S else None
    yield Say(discussion or "halloween.discussion")
    yield Timer(Tag(phases.day(day), "discussion"), sw.discussion_s, expired="timer.time_up")
    yield Say("halloween.vote_self_allowed" if sw.allow_self_vote else "halloween.vote")

    first = first_voter(table.first, table.alive, players)
    table.first = first
    order = voting_order(first, table.alive, players)
    living = tuple(table.alive)
    votes = yield from vote_round(table, order, living, Tag(phases.day(day), "vote"))
    top = leaders(votes)
    if len(top) == 1:
        return top[0]
    if not top:
        yield Say("halloween.all_abstained")
        return None

    yield Say("halloween.tie", {"seats": top})
    votes = yield from vote_round(table, order, top, Tag(phases.day(day), "revote"))
    again = leaders(votes)
    if len(again) == 1:
        return again[0]
    yield Say("halloween.tie_again" if again else "halloween.all_abstained")
    return None


def vote_round(
    table: Table, order: Sequence[Seat], candidates: Sequence[Seat], action: Tag
) -> Flow[dict[Seat, Seat | None]]:
    """Every living player in turn names a candidate or abstains."""
    votes: dict[Seat, Seat | None] = {}
    for voter in order:
        yield Say("halloween.vote_call", {"seat": voter})
        prompt = vote_prompt(
            Tag(action.phase, action.action, voter),
            voter,
            tuple(table.alive),
            candidates,
            table.players,
            table.sw.allow_self_vote,
        )
        vote = yield Ask(prompt)
        votes[voter] = vote.seat if isinstance(vote, SeatAnswer) else None
    return votes


def leave(table: Table, seat: Seat, phase: PhaseId, cause: str, line: str) -> Flow[None]:
    """A player leaves and the card is turned face up (roles of the eliminated are public)."""
    role = table.role(seat)
    yield Say(line, {"seat": seat})
    table.alive.remove(seat)
    yield Eliminate(seat, phase, cause, shown_role=role)
    yield Say("halloween.card", {"seat": seat, "role": RoleName(role)})
    return None


def finish(table: Table, winner: str, phase: PhaseId) -> Script:
    """Announce the result and turn every card face up."""
    yield Say(win_line(winner, table.sw.cycle_limit))
    yield Say("halloween.reveal_all")
    outcome = yield from kit.reveal(table.roles, winner, phase)
    return outcome


# --- the variant -----------------------------------------------------------------------------


class Halloween(Rules[HalloweenSwitches]):
    def counts(self, players: int, sw: HalloweenSwitches) -> Composition:
        return Composition(composition_counts(players, sw.roles))

    def script(self, deal: Deal, sw: HalloweenSwitches, rng: random.Random) -> Script:
        return game_script(deal, sw)  # no chance once the cards are dealt


VARIANT = Halloween("halloween", ROLES, HalloweenSwitches, SEAT_COUNTS)
