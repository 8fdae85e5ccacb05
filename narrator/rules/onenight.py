"""«Ночь оборотня» (RULES.md section 1): one night, one discussion, one vote.

The night order is fixed by the seed: high inquisitor, werewolves, spirit.
Every window runs in full even when its card lies in the centre.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Self

from pydantic import Field, model_validator

from narrator.rules.answers import (
    Answer,
    AnswerKind,
    CenterAnswer,
    Nobody,
    SeatAnswer,
)
from narrator.rules.core import (
    Ask,
    Composition,
    Deal,
    DealCard,
    Eliminate,
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
    forbid,
    parse_roles,
)
from narrator.rules.errors import ConfigError

WEREWOLF = "werewolf"
HIGH_INQUISITOR = "high_inquisitor"
SPIRIT = "spirit"
INQUISITOR = "inquisitor"

ROLES: Mapping[str, Role] = {
    WEREWOLF: Role(WEREWOLF, "werewolves", evil=True),
    HIGH_INQUISITOR: Role(HIGH_INQUISITOR, "inquisition"),
    SPIRIT: Role(SPIRIT, "inquisition"),
    INQUISITOR: Role(INQUISITOR, "inquisition"),
}

# Winners of RULES.md 1.7.
INQUISITION = "inquisition"
WEREWOLVES = "werewolves"
NOBODY_WINS = "none"


class OneNightSwitches(Switches):
    center_cards: int = Field(3, ge=1, le=5, description="cards face down in the centre")
    seer_center_count: int = Field(
        2, ge=1, le=3, description="centre cards the high inquisitor may look at"
    )
    lone_wolf_peek: bool = Field(False, description="a lone werewolf may look at one centre card")
    allow_self_vote: bool = Field(False, description="a player may vote to burn himself")
    discussion_s: float = Field(300, ge=0, le=3600, description="discussion length, seconds")
    window_s: float = Field(10, gt=0, le=120, description="each wake window, seconds")

    @model_validator(mode="after")
    def _centre_fits(self) -> Self:
        if self.seer_center_count > self.center_cards:
            raise ValueError(
                f"seer_center_count {self.seer_center_count} is more than "
                f"center_cards {self.center_cards}"
            )
        return self


def _switches(switches: Switches) -> OneNightSwitches:
    assert isinstance(switches, OneNightSwitches)
    return switches


# --- resolution: plain functions ----------------------------------------------------


def burned_by(votes: Mapping[Seat, Seat | None]) -> tuple[Seat, ...]:
    """Who burns (RULES.md 1.6): everyone tied at the top, unless nobody has 2+ votes."""
    tally = Counter(target for target in votes.values() if target is not None)
    top = max(tally.values(), default=0)
    if top <= 1:
        return ()
    return tuple(sorted(seat for seat, count in tally.items() if count == top))


def winner_of(final_cards: Sequence[str], burned: Iterable[Seat]) -> str:
    """The win table of RULES.md 1.7, on the cards held at the end of the night."""
    wolves = {seat for seat, card in enumerate(final_cards, start=1) if card == WEREWOLF}
    burned_set = set(burned)
    if burned_set & wolves:
        return INQUISITION
    if wolves:
        return WEREWOLVES
    if not burned_set:
        return INQUISITION
    return NOBODY_WINS


def win_line(winner: str, werewolf_among_players: bool) -> str:
    if winner == WEREWOLVES:
        return "onenight.win_werewolves"
    if winner == NOBODY_WINS:
        return "onenight.win_nobody"
    return "onenight.win_burned_wolf" if werewolf_among_players else "onenight.win_peace"


# --- prompts -------------------------------------------------------------------------


def _others(seat: Seat, players: int) -> tuple[str, ...]:
    return tuple(str(s) for s in range(1, players + 1) if s != seat)


def _not_self(seat: Seat, answer: Answer) -> None:
    if isinstance(answer, SeatAnswer) and answer.seat == seat:
        raise forbid("you cannot choose yourself", "reason.self")


def _center_check(answer: Answer, count: int, center_cards: int) -> None:
    if not isinstance(answer, CenterAnswer):
        return
    cards = answer.cards
    if len(cards) != count:
        raise forbid(
            f"choose exactly {count} centre card(s), not {len(cards)}",
            "reason.center_count",
            count=count,
        )
    if len(set(cards)) != len(cards):
        raise forbid("choose different centre cards", "reason.center_twice")
    for card in cards:
        if not 1 <= card <= center_cards:
            raise forbid(
                f"centre card {card} does not exist: the centre has cards 1–{center_cards}",
                "reason.no_such_center",
                card=card,
                last=center_cards,
            )


def high_inquisitor_prompt(seat: Seat, players: int, sw: OneNightSwitches) -> Prompt:
    def check(answer: Answer) -> None:
        _not_self(seat, answer)
        _center_check(answer, sw.seer_center_count, sw.center_cards)

    centre_choices = itertools.combinations(range(1, sw.center_cards + 1), sw.seer_center_count)
    return Prompt(
        id="n1.high_inquisitor",
        seats=(seat,),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.CENTER, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=(
            *_others(seat, players),
            *(str(CenterAnswer(c)) for c in centre_choices),
            "none",
        ),
        check=check,
    )


def spirit_prompt(seat: Seat, players: int) -> Prompt:
    return Prompt(
        id="n1.spirit",
        seats=(seat,),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=(*_others(seat, players), "none"),
        check=lambda answer: _not_self(seat, answer),
    )


def lone_wolf_prompt(seat: Seat, players: int, sw: OneNightSwitches) -> Prompt:
    return Prompt(
        id="n1.werewolves",
        seats=(seat,),
        accepts=frozenset({AnswerKind.CENTER, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=(*(f"center {c}" for c in range(1, sw.center_cards + 1)), "none"),
        check=lambda answer: _center_check(answer, 1, sw.center_cards),
    )


def vote_prompt(voter: Seat, players: int, sw: OneNightSwitches) -> Prompt:
    def check(answer: Answer) -> None:
        if not sw.allow_self_vote and isinstance(answer, SeatAnswer) and answer.seat == voter:
            raise forbid("you cannot vote for yourself", "reason.self_vote")

    targets = tuple(str(s) for s in range(1, players + 1))
    return Prompt(
        id=f"d1.vote.{voter}",
        seats=(voter,),
        accepts=frozenset({AnswerKind.SEAT}),
        seat_count=players,
        default=Nobody(),  # no valid answer = no vote (RULES.md 1.6-3)
        options=targets if sw.allow_self_vote else _others(voter, players),
        check=check,
    )


# --- the script ---------------------------------------------------------------------


def _centre_text(count: int) -> str:
    return f"onenight.hi_hint_{count}"


def night_and_day(deal: Deal, sw: OneNightSwitches) -> Script:
    """The whole game as the table lives it, from the deal to the reveal."""
    players = deal.players
    cards = list(deal.seats)  # the cards as they lie now; the spirit may swap two
    center = deal.center

    yield Say("onenight.intro", {"players": players, "center": sw.center_cards})
    yield Say("deal.start")
    for seat in range(1, players + 1):
        yield Say("deal.call", {"seat": seat})
        yield DealCard(f"deal.{seat}", seat, Secret.roles(cards[seat - 1]))
    yield Say("deal.done")

    yield Phase("n1")
    yield Say("onenight.night")

    # The high inquisitor acts on the initial deal: nothing has moved yet.
    yield Say("onenight.hi_wake")
    yield Say(_centre_text(sw.seer_center_count))
    inquisitors = deal.seats_with(HIGH_INQUISITOR)
    yield Wake("n1.high_inquisitor", sw.window_s, inquisitors)
    for seat in inquisitors:
        seen = yield Ask(high_inquisitor_prompt(seat, players, sw))
        if isinstance(seen, SeatAnswer):
            yield Show("n1.high_inquisitor", (seat,), Secret.roles(cards[seen.seat - 1]))
        elif isinstance(seen, CenterAnswer):
            shown = Secret.roles(*(center[i - 1] for i in seen.cards))
            yield Show("n1.high_inquisitor", (seat,), shown)
    yield Sleep()
    yield Say("onenight.hi_sleep")

    yield Say("onenight.wolves_wake")
    yield Say("onenight.wolves_hint_peek" if sw.lone_wolf_peek else "onenight.wolves_hint")
    wolves = deal.seats_with(WEREWOLF)
    yield Wake("n1.werewolves", sw.window_s, wolves)
    if wolves:
        partners = wolves if len(wolves) > 1 else ()
        yield Show("n1.werewolves", wolves, Secret.seats(partners))
    if sw.lone_wolf_peek and len(wolves) == 1:
        peek = yield Ask(lone_wolf_prompt(wolves[0], players, sw))
        if isinstance(peek, CenterAnswer):
            yield Show("n1.werewolves", wolves, Secret.roles(center[peek.cards[0] - 1]))
    yield Sleep()
    yield Say("onenight.wolves_sleep")

    yield Say("onenight.spirit_wake")
    yield Say("onenight.spirit_hint")
    spirits = deal.seats_with(SPIRIT)
    yield Wake("n1.spirit", sw.window_s, spirits)
    for seat in spirits:
        swap = yield Ask(spirit_prompt(seat, players))
        if isinstance(swap, SeatAnswer):
            other = swap.seat
            cards[seat - 1], cards[other - 1] = cards[other - 1], cards[seat - 1]
            yield Show("n1.spirit", (seat,), Secret.roles(cards[seat - 1]))
    yield Sleep()
    yield Say("onenight.spirit_sleep")

    yield Phase("d1")
    yield Say("onenight.morning", dawn=True)
    yield Say("onenight.discussion")
    yield Timer("d1.discussion", sw.discussion_s)
    yield Say("timer.time_up")
    yield Say("onenight.vote_time")
    yield Say("onenight.vote_count")
    yield Say("onenight.vote_enter")
    votes: dict[Seat, Seat | None] = {}
    for voter in range(1, players + 1):
        vote = yield Ask(vote_prompt(voter, players, sw))
        votes[voter] = vote.seat if isinstance(vote, SeatAnswer) else None

    burned = burned_by(votes)
    if not burned:
        cast = sorted(target for target in votes.values() if target is not None)
        everyone_one = cast == list(range(1, players + 1))
        yield Say("onenight.nobody_all_one" if everyone_one else "onenight.nobody_burns")
    elif len(burned) == 1:
        yield Say("onenight.burn_one", {"seat": burned[0]})
    else:
        yield Say("onenight.burn_tie", {"seats": burned})
    for seat in burned:
        yield Eliminate(seat, "d1", "burned")

    yield Say("onenight.reveal_all")
    winner = winner_of(cards, burned)
    yield Say(win_line(winner, WEREWOLF in cards))
    for seat in range(1, players + 1):
        yield Say("reveal.seat", {"seat": seat, "role": RoleName(cards[seat - 1])})
    for index, card in enumerate(center, start=1):
        yield Say("reveal.center", {"index": index, "role": RoleName(card)})
    return Outcome(winner, "d1", reveal={s: cards[s - 1] for s in range(1, players + 1)})


# --- the variant ----------------------------------------------------------------------


@dataclass(frozen=True)
class OneNight:
    name: str = "onenight"
    roles: Mapping[str, Role] = field(default_factory=lambda: ROLES)
    switches: type[Switches] = OneNightSwitches
    seat_counts: range = range(3, 8)

    def composition(self, players: int, switches: Switches) -> Composition:
        sw = _switches(switches)
        cards = players + sw.center_cards
        counts = {WEREWOLF: 2, HIGH_INQUISITOR: 1, SPIRIT: 1}
        if sw.roles is not None:
            override = parse_roles(sw.roles, ROLES)
            counts.update(override)
            if INQUISITOR in override:
                raise ConfigError("roles: the inquisitors are the rest of the deck; leave them out")
        for single in (HIGH_INQUISITOR, SPIRIT):
            if counts[single] > 1:
                raise ConfigError(f"roles: at most one {single} card")
        if counts[WEREWOLF] < 1:
            raise ConfigError("roles: the deck needs at least one werewolf card")
        rest = cards - sum(counts.values())
        if rest < 0:
            raise ConfigError(
                f"roles: {sum(counts.values())} special cards do not fit a deck of {cards} "
                f"({players} players + {sw.center_cards} in the centre)"
            )
        # SCENARIOS.md: an override keeps the evil team smaller than the rest.  The
        # default table (two wolves) stays playable with a small centre.
        if sw.roles is not None and counts[WEREWOLF] >= cards - counts[WEREWOLF]:
            raise ConfigError("roles: werewolf cards must be fewer than the others")
        counts[INQUISITOR] = rest
        return Composition(counts, sw.center_cards)

    def validate_deal(self, deal: Deal, switches: Switches) -> None:
        sw = _switches(switches)
        counts = self.composition(deal.players, sw).counts
        check_deal(self.name, deal, ROLES, counts, sw.center_cards)

    def new_game(self, deal: Deal, switches: Switches, rng: random.Random) -> Game:
        del rng  # the game has no chance once the cards are dealt
        return Game(self.name, deal, night_and_day(deal, _switches(switches)))


VARIANT = OneNight()
