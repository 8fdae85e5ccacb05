"""«Хэллоуинская мафия» (RULES.md section 2): vampires, a protecting witch, a checking hunter.

Every night the village closes its eyes and keeps a short silence, the
vampires agree on one target, the witch protects somebody (never the same
seat two nights running) and the hunter learns «да» / «нет» about one player.
Every day has a timed discussion and a spoken vote in turn, with one revote
between tied leaders.  Roles are turned face up when a player leaves, so a
dead witch or hunter is not called (``call_dead_roles``).  The game is a draw
after the vote of day ``cycle_limit``.

The silence after «Деревня закрывает глаза…» (RULES.md 2.3, 5 s) is a public
:class:`Timer` (``n<k>.silence``), not a wake window: nobody is awake in it and
the scenario contract names no prompt for it, so it is not listed in
``windows``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import Field

from narrator.rules.answers import Abstain, Answer, AnswerKind, Nobody, SeatAnswer
from narrator.rules.core import (
    Ask,
    Composition,
    Deal,
    DealCard,
    Eliminate,
    Flow,
    Game,
    Outcome,
    Phase,
    Prompt,
    Role,
    RoleName,
    Say,
    Script,
    Seat,
    Secret,
    Show,
    Sleep,
    Switches,
    Timer,
    Wake,
    check_deal,
    dead_seat,
    forbid,
    living_seat_prompt,
    parse_roles,
)
from narrator.rules.errors import ConfigError

VAMPIRE = "vampire"
WITCH = "witch"
HUNTER = "hunter"
VILLAGER = "villager"

ROLES: Mapping[str, Role] = {
    VAMPIRE: Role(VAMPIRE, "vampires", evil=True),
    WITCH: Role(WITCH, "villagers"),
    HUNTER: Role(HUNTER, "villagers"),
    VILLAGER: Role(VILLAGER, "villagers"),
}

# Winners of RULES.md 2.7.
VILLAGERS = "villagers"
VAMPIRES = "vampires"
DRAW = "draw"

# Causes of departure (SCENARIOS.md).
ATTACKED = "attacked"
VOTED = "voted"

# RULES.md 2.2 (proposed): vampires per table size; one witch, one hunter, villagers the rest.
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
    discussion_s: float = Field(SEED_DISCUSSION_S, ge=0, le=3600, description="discussion, s")
    silence_s: float = Field(
        5, ge=0, le=60, description="silence after «Деревня закрывает глаза», s (0: none)"
    )
    vampires_s: float = Field(30, gt=0, le=120, description="vampires' window, seconds")
    witch_s: float = Field(20, gt=0, le=120, description="witch's window, seconds")
    hunter_s: float = Field(20, gt=0, le=120, description="hunter's window, seconds")
    window_s: float | None = Field(
        None, gt=0, le=120, description="every wake window, seconds (overrides the three above)"
    )

    def window(self, role: str) -> float:
        """The length of a role's wake window."""
        if self.window_s is not None:
            return self.window_s
        return {VAMPIRE: self.vampires_s, WITCH: self.witch_s, HUNTER: self.hunter_s}[role]


def _switches(switches: Switches) -> HalloweenSwitches:
    assert isinstance(switches, HalloweenSwitches)
    return switches


# --- resolution: plain functions ----------------------------------------------------------


def night_victim(attack: Seat | None, protected: Seat | None) -> Seat | None:
    """Who leaves at dawn (RULES.md 2.5): the target, unless nobody attacked or it was protected."""
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
    """RULES.md 2.7: villagers with no vampire left, vampires when they are not fewer (in order)."""
    alive = list(living)
    vampires = sum(1 for seat in alive if roles[seat - 1] == VAMPIRE)
    if vampires == 0:
        return VILLAGERS
    if vampires >= len(alive) - vampires:
        return VAMPIRES
    return None


def first_voter(previous_first: Seat | None, living: Sequence[Seat], players: int) -> Seat:
    """RULES.md 2.6-1: day 1 from the lowest living seat, then the next living seat
    clockwise after the previous day's first voter (who may have left since)."""
    if not living:
        raise ValueError("nobody is alive")
    if previous_first is None:
        return min(living)
    for step in range(1, players + 1):
        seat = (previous_first - 1 + step) % players + 1
        if seat in living:
            return seat
    raise AssertionError("unreachable: somebody is alive")


def voting_order(first: Seat, living: Sequence[Seat], players: int) -> tuple[Seat, ...]:
    """The living seats clockwise from ``first``."""
    return tuple(
        seat for step in range(players) if (seat := (first - 1 + step) % players + 1) in living
    )


def default_counts(players: int) -> dict[str, int]:
    """The proposed table of RULES.md 2.2."""
    vampires = VAMPIRES_FOR[players]
    return {VAMPIRE: vampires, WITCH: 1, HUNTER: 1, VILLAGER: players - vampires - 2}


def composition_counts(players: int, roles: str | None) -> dict[str, int]:
    """The role counts for ``players`` seats, with an optional override, validated."""
    counts = default_counts(players)
    if roles is None:
        return counts
    override = parse_roles(roles, ROLES)
    counts.update(override)
    for single in (WITCH, HUNTER):
        if counts[single] > 1:
            raise ConfigError(f"roles: at most one {single}")
    if counts[VAMPIRE] < 1:
        raise ConfigError("roles: the game needs at least one vampire")
    special = counts[VAMPIRE] + counts[WITCH] + counts[HUNTER]
    if VILLAGER in override:
        if sum(counts.values()) != players:
            raise ConfigError(
                f"roles: {sum(counts.values())} cards for {players} players; "
                "leave 'villager' out to fill the rest with villagers"
            )
    elif special > players:
        raise ConfigError(f"roles: {special} special cards do not fit {players} players")
    else:
        counts[VILLAGER] = players - special
    if counts[VAMPIRE] >= players - counts[VAMPIRE]:
        raise ConfigError(
            f"roles: {counts[VAMPIRE]} vampires of {players} players: "
            "vampires must be fewer than the others"
        )
    return counts


def win_line(winner: str, cycle_limit: int) -> str:
    if winner == DRAW:
        return "halloween.draw_6" if cycle_limit == SEED_CYCLES else "halloween.draw"
    return f"halloween.win_{winner}"


# --- prompts ---------------------------------------------------------------------------------


def vampires_prompt(
    night: int, vampires: Sequence[Seat], living: Sequence[Seat], players: int
) -> Prompt:
    """One agreed target: a living player of the other side, or nobody (RULES.md 2.4)."""

    def check(answer: Answer) -> None:
        if not isinstance(answer, SeatAnswer):
            return
        if answer.seat in vampires:
            raise forbid(
                f"seat {answer.seat} is a vampire: choose a player of the other side",
                "reason.partner",
                seat=answer.seat,
            )
        if answer.seat not in living:
            raise dead_seat(answer.seat)

    targets = tuple(str(s) for s in living if s not in vampires)
    return Prompt(
        id=f"n{night}.vampires",
        seats=tuple(vampires),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),  # not agreed within the window: no attack
        options=(*targets, "none"),
        check=check,
    )


def witch_prompt(
    night: int,
    witch: Seat,
    living: Sequence[Seat],
    banned: Seat | None,
    players: int,
    may_skip: bool = False,
) -> Prompt:
    """A living player (herself allowed), not last night's protected seat."""

    def check(answer: Answer) -> None:
        if not isinstance(answer, SeatAnswer):
            return
        if answer.seat not in living:
            raise dead_seat(answer.seat)
        if answer.seat == banned:
            raise forbid(
                f"seat {answer.seat} was protected last night: choose another player",
                "reason.repeat_protection",
                seat=answer.seat,
            )

    kinds = {AnswerKind.SEAT, AnswerKind.NOBODY} if may_skip else {AnswerKind.SEAT}
    targets = tuple(str(s) for s in living if s != banned)
    return Prompt(
        id=f"n{night}.witch",
        seats=(witch,),
        accepts=frozenset(kinds),
        seat_count=players,
        default=Nobody(),  # an expired window: no protection tonight
        options=(*targets, "none") if may_skip else targets,
        check=check,
    )


def hunter_prompt(night: int, hunter: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """Another living player; repeating an earlier check is allowed."""
    return living_seat_prompt(f"n{night}.hunter", hunter, living, players, none=False)


def vote_prompt(
    prompt_id: str,
    voter: Seat,
    living: Sequence[Seat],
    candidates: Sequence[Seat],
    players: int,
    allow_self: bool = False,
) -> Prompt:
    """A candidate (another living player; in a revote one of the leaders) or abstain."""

    def check(answer: Answer) -> None:
        if not isinstance(answer, SeatAnswer):
            return
        if answer.seat == voter and not allow_self:
            raise forbid("you cannot vote for yourself", "reason.self_vote")
        if answer.seat not in living:
            raise dead_seat(answer.seat)
        if answer.seat not in candidates:
            named = ", ".join(str(s) for s in candidates)
            raise forbid(
                f"seat {answer.seat} is not in the revote: choose one of {named}",
                "reason.not_in_revote",
                seat=answer.seat,
                seats=named,
            )

    targets = tuple(str(s) for s in candidates if allow_self or s != voter)
    return Prompt(
        id=prompt_id,
        seats=(voter,),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.ABSTAIN}),
        seat_count=players,
        default=Abstain(),  # no answer: the voter abstains (RULES.md 0.3)
        options=(*targets, "abstain"),
        check=check,
    )


# --- the script ------------------------------------------------------------------------------


@dataclass
class Table:
    """The state of one game: the cards (hidden) and who is still playing (public)."""

    roles: tuple[str, ...]
    sw: HalloweenSwitches
    alive: list[Seat] = field(default_factory=list)
    banned: Seat | None = None  # the witch's protection of last night
    first: Seat | None = None  # the previous day's first voter

    @property
    def players(self) -> int:
        return len(self.roles)

    def seat_of(self, role: str) -> Seat | None:
        """The seat holding a single card (witch, hunter), if it is in the game."""
        return next((s for s in range(1, self.players + 1) if self.roles[s - 1] == role), None)

    def living_vampires(self) -> tuple[Seat, ...]:
        return tuple(s for s in self.alive if self.roles[s - 1] == VAMPIRE)

    def is_called(self, seat: Seat | None) -> bool:
        """A role is called when its card is in the game and alive, or dead ones are called."""
        return seat is not None and (seat in self.alive or self.sw.call_dead_roles)

    def winner(self) -> str | None:
        return winner_of(self.roles, self.alive)


def game_script(deal: Deal, sw: HalloweenSwitches) -> Script:
    """The whole game as the table lives it, from the announcement to the reveal."""
    table = Table(deal.seats, sw, list(range(1, deal.players + 1)))
    yield from pregame(table)
    night = 1
    while True:
        yield Phase(f"n{night}")
        attack, protected = yield from night_of(table, night)
        table.banned = protected
        yield Say("halloween.morning", dawn=True)
        victim = night_victim(attack, protected)
        if victim is None:
            yield Say("halloween.all_survived")
        else:
            yield from leave(table, victim, f"n{night}", ATTACKED, "halloween.night_victim")
        winner = table.winner()
        if winner is not None:
            outcome = yield from finish(table, winner, f"n{night}")
            return outcome

        yield Phase(f"d{night}")
        out = yield from day_of(table, night)
        if out is not None:
            yield from leave(table, out, f"d{night}", VOTED, "halloween.voted_out")
        winner = table.winner()
        if winner is None and night >= sw.cycle_limit:
            winner = DRAW
        if winner is not None:
            outcome = yield from finish(table, winner, f"d{night}")
            return outcome
        night += 1


def pregame(table: Table) -> Flow[None]:
    """RULES.md 2.3 S0: the composition and the cycle limit are announced before the deal."""
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
    yield Say("deal.start")
    for seat in range(1, players + 1):
        yield Say("deal.call", {"seat": seat})
        yield DealCard(f"deal.{seat}", seat, Secret.roles(table.roles[seat - 1]))
    yield Say("deal.done")
    return None


def night_of(table: Table, night: int) -> Flow[tuple[Seat | None, Seat | None]]:
    """The night's choices: (the vampires' target, the witch's protection)."""
    sw, players, living = table.sw, table.players, tuple(table.alive)
    yield Say("halloween.village_sleeps")
    if sw.silence_s > 0:
        yield Timer(f"n{night}.silence", sw.silence_s, warnings=())

    vampires = table.living_vampires()
    yield Say("halloween.vampires_wake_first" if night == 1 else "halloween.vampires_wake")
    yield Wake(f"n{night}.vampires", sw.window(VAMPIRE), vampires)
    if night == 1:
        partners = vampires if len(vampires) > 1 else ()
        yield Show("n1.vampires", vampires, Secret.seats(partners))
    target = yield Ask(vampires_prompt(night, vampires, living, players))
    yield Sleep()
    yield Say("halloween.vampires_sleep")
    attack = target.seat if isinstance(target, SeatAnswer) else None

    protected: Seat | None = None
    witch = table.seat_of(WITCH)
    if table.is_called(witch):
        assert witch is not None
        awake = (witch,) if witch in living else ()
        yield Say("halloween.witch_wake")
        yield Wake(f"n{night}.witch", sw.window(WITCH), awake)
        if awake:
            prompt = witch_prompt(night, witch, living, table.banned, players, sw.witch_may_skip)
            choice = yield Ask(prompt)
            protected = choice.seat if isinstance(choice, SeatAnswer) else None
        yield Sleep()
        yield Say("halloween.witch_sleep")

    hunter = table.seat_of(HUNTER)
    if table.is_called(hunter):
        assert hunter is not None
        awake = (hunter,) if hunter in living else ()
        yield Say("halloween.hunter_wake")
        yield Wake(f"n{night}.hunter", sw.window(HUNTER), awake)
        if awake:
            checked = yield Ask(hunter_prompt(night, hunter, living, players))
            if isinstance(checked, SeatAnswer):
                is_vampire = table.roles[checked.seat - 1] == VAMPIRE
                secret = Secret.token("yes" if is_vampire else "no")
                yield Show(f"n{night}.hunter", (hunter,), secret)
        yield Sleep()
        yield Say("halloween.hunter_sleep")
    return attack, protected


def day_of(table: Table, day: int) -> Flow[Seat | None]:
    """Discussion, the vote and perhaps one revote; the seat voted out, if any."""
    sw, players = table.sw, table.players
    discussion = "halloween.discussion_3min" if sw.discussion_s == SEED_DISCUSSION_S else None
    yield Say(discussion or "halloween.discussion")
    yield Timer(f"d{day}.discussion", sw.discussion_s)
    yield Say("timer.time_up")
    yield Say("halloween.vote_self_allowed" if sw.allow_self_vote else "halloween.vote")

    first = first_voter(table.first, table.alive, players)
    table.first = first
    order = voting_order(first, table.alive, players)
    living = tuple(table.alive)
    votes = yield from vote_round(table, order, living, f"d{day}.vote")
    top = leaders(votes)
    if len(top) == 1:
        return top[0]
    if not top:
        yield Say("halloween.all_abstained")
        return None

    yield Say("halloween.tie", {"seats": top})
    votes = yield from vote_round(table, order, top, f"d{day}.revote")
    again = leaders(votes)
    if len(again) == 1:
        return again[0]
    yield Say("halloween.tie_again" if again else "halloween.all_abstained")
    return None


def vote_round(
    table: Table, order: Sequence[Seat], candidates: Sequence[Seat], action: str
) -> Flow[dict[Seat, Seat | None]]:
    """Every living player in turn names a candidate or abstains."""
    votes: dict[Seat, Seat | None] = {}
    for voter in order:
        yield Say("halloween.vote_call", {"seat": voter})
        prompt = vote_prompt(
            f"{action}.{voter}",
            voter,
            tuple(table.alive),
            candidates,
            table.players,
            table.sw.allow_self_vote,
        )
        vote = yield Ask(prompt)
        votes[voter] = vote.seat if isinstance(vote, SeatAnswer) else None
    return votes


def leave(table: Table, seat: Seat, phase: str, cause: str, line: str) -> Flow[None]:
    """A player leaves and the card is turned face up (roles of the eliminated are public)."""
    role = table.roles[seat - 1]
    yield Say(line, {"seat": seat})
    table.alive.remove(seat)
    yield Eliminate(seat, phase, cause, shown_role=role)
    yield Say("halloween.card", {"seat": seat, "role": RoleName(role)})
    return None


def finish(table: Table, winner: str, phase: str) -> Script:
    """Announce the result and turn every card face up."""
    yield Say(win_line(winner, table.sw.cycle_limit))
    yield Say("halloween.reveal_all")
    for seat in range(1, table.players + 1):
        yield Say("reveal.seat", {"seat": seat, "role": RoleName(table.roles[seat - 1])})
    reveal = {s: table.roles[s - 1] for s in range(1, table.players + 1)}
    return Outcome(winner, phase, reveal=reveal)


# --- the variant -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Halloween:
    name: str = "halloween"
    roles: Mapping[str, Role] = field(default_factory=lambda: ROLES)
    switches: type[Switches] = HalloweenSwitches
    seat_counts: range = SEAT_COUNTS

    def composition(self, players: int, switches: Switches) -> Composition:
        if players not in SEAT_COUNTS:
            raise ConfigError(f"halloween is played by 7–12 players, not {players}")
        return Composition(composition_counts(players, _switches(switches).roles))

    def validate_deal(self, deal: Deal, switches: Switches) -> None:
        counts = self.composition(deal.players, switches).counts
        check_deal(self.name, deal, ROLES, counts)

    def new_game(self, deal: Deal, switches: Switches, rng: random.Random) -> Game:
        del rng  # no chance once the cards are dealt
        return Game(self.name, deal, game_script(deal, _switches(switches)))


VARIANT = Halloween()
