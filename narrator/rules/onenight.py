"""«Ночь оборотня» (docs/games/onenight.md): one night, one discussion, one vote.

The night order is fixed by the seed: high inquisitor, werewolves, spirit.
Every window runs in full even when its card lies in the centre.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Self

from pydantic import Field
from pydantic import model_validator

from narrator.rules import phases
from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import NO_SEAT
from narrator.rules.core import Ask
from narrator.rules.core import Composition
from narrator.rules.core import Deal
from narrator.rules.core import Eliminate
from narrator.rules.core import Flow
from narrator.rules.core import Phase
from narrator.rules.core import Role
from narrator.rules.core import Say
from narrator.rules.core import Script
from narrator.rules.core import Seconds
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Switches
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.core import deck_shows
from narrator.rules.core import decoy
from narrator.rules.kit import Rules
from narrator.rules.kit import deal_cards
from narrator.rules.kit import override_counts
from narrator.rules.kit import reveal
from narrator.rules.kit import teams
from narrator.rules.kit import window
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.prompts import all_of
from narrator.rules.prompts import forbid
from narrator.rules.prompts import living_seat_prompt
from narrator.rules.prompts import no_self_vote
from narrator.rules.prompts import not_self
from narrator.rules.prompts import remembered
from narrator.rules.prompts import seat_prompt

WEREWOLF = "werewolf"
HIGH_INQUISITOR = "high_inquisitor"
SPIRIT = "spirit"
INQUISITOR = "inquisitor"

ROLES: Mapping[str, Role] = teams(
    "werewolves", werewolves=(WEREWOLF,), inquisition=(HIGH_INQUISITOR, SPIRIT, INQUISITOR)
)

# Winners of docs/games/onenight.md §1.7.
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
    discussion_s: Seconds = Field(300, ge=0, le=3600, description="discussion length, seconds")
    window_s: Seconds = Field(10, gt=0, le=120, description="each wake window, seconds")

    @model_validator(mode="after")
    def _centre_fits(self) -> Self:
        if self.seer_center_count > self.center_cards:
            raise ValueError(
                f"seer_center_count {self.seer_center_count} is more than "
                f"center_cards {self.center_cards}"
            )
        return self


# --- resolution: plain functions ----------------------------------------------------


def burned_by(votes: Mapping[Seat, Seat | None]) -> tuple[Seat, ...]:
    """Who burns (docs/games/onenight.md §1.6): everyone tied at the top, unless nobody has
    2+ votes."""
    tally = Counter(target for target in votes.values() if target is not None)
    top = max(tally.values(), default=0)
    if top <= 1:
        return ()
    return tuple(sorted(seat for seat, count in tally.items() if count == top))


def winner_of(final_cards: Sequence[str], burned: Iterable[Seat]) -> str:
    """The win table of docs/games/onenight.md §1.7, on the cards held at the end of the night."""
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


def _centre_rule(count: int, center_cards: int) -> Callable[[Answer], None]:
    """Exactly ``count`` different centre cards that exist."""

    def rule(answer: Answer) -> None:
        if isinstance(answer, CenterAnswer):
            _check_centre(answer.cards, count, center_cards)

    return rule


def _check_centre(cards: tuple[int, ...], count: int, center_cards: int) -> None:
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
    """Another player's card, ``seer_center_count`` centre cards, or nothing (1.4)."""
    return _high_inquisitor_prompt(seat, players, sw.center_cards, sw.seer_center_count)


@remembered
def _high_inquisitor_prompt(
    seat: Seat, players: int, center_cards: int, seer_center_count: int
) -> Prompt:
    centre = itertools.combinations(range(1, center_cards + 1), seer_center_count)
    others = (str(s) for s in range(1, players + 1) if s != seat)
    options = (*others, *(str(CenterAnswer(cards)) for cards in centre), "none")
    check = all_of(not_self(seat), _centre_rule(seer_center_count, center_cards))
    accepts = frozenset({AnswerKind.SEAT, AnswerKind.CENTER, AnswerKind.NOBODY})
    tag = Tag(phases.night(1), "high_inquisitor")
    return Prompt(tag, (seat,), accepts, players, Nobody(), options, check)


@remembered
def spirit_prompt(seat: Seat, players: int) -> Prompt:
    """Another player to swap cards with, or nobody."""
    return living_seat_prompt(
        Tag(phases.night(1), "spirit"), seat, range(1, players + 1), players, none=True
    )


def lone_wolf_prompt(seat: Seat, players: int, sw: OneNightSwitches) -> Prompt:
    """``lone_wolf_peek``: one centre card, or none."""
    return _lone_wolf_prompt(seat, players, sw.center_cards)


@remembered
def _lone_wolf_prompt(seat: Seat, players: int, center_cards: int) -> Prompt:
    options = (*(f"center {c}" for c in range(1, center_cards + 1)), "none")
    accepts = frozenset({AnswerKind.CENTER, AnswerKind.NOBODY})
    check = _centre_rule(1, center_cards)
    return Prompt(
        Tag(phases.night(1), "werewolves"), (seat,), accepts, players, Nobody(), options, check
    )


def vote_prompt(voter: Seat, players: int, sw: OneNightSwitches) -> Prompt:
    """Any other player (oneself with ``allow_self_vote``); no valid answer = no vote (1.6-3)."""
    return _vote_prompt(voter, players, sw.allow_self_vote)


@remembered
def _vote_prompt(voter: Seat, players: int, allow_self_vote: bool) -> Prompt:
    targets = [s for s in range(1, players + 1) if allow_self_vote or s != voter]
    rules = () if allow_self_vote else (no_self_vote(voter),)
    return seat_prompt(
        Tag(phases.day(1), "vote", voter), (voter,), players, targets, *rules, other=None
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
    yield from deal_cards(cards)

    yield Phase(phases.night(1))
    yield Say("onenight.night")
    # Every window runs in full, its card dealt or in the centre.  The high inquisitor
    # acts on the initial deal: nothing has moved yet.
    deck = deck_shows((*deal.seats, *center))  # a decoy's card: any of them
    inquisitors = deal.seats_with(HIGH_INQUISITOR)
    yield from window(
        ("onenight.hi_wake", _centre_text(sw.seer_center_count)),
        Wake(
            Tag(phases.night(1), "high_inquisitor"),
            sw.window_s,
            inquisitors,
            decoy=decoy(high_inquisitor_prompt(NO_SEAT, players, sw), shows=deck),
        ),
        "onenight.hi_sleep",
        inquire(inquisitors, cards, center, sw),
    )
    wolves = deal.seats_with(WEREWOLF)
    yield from window(
        (
            "onenight.wolves_wake",
            "onenight.wolves_hint_peek" if sw.lone_wolf_peek else "onenight.wolves_hint",
        ),
        Wake(
            Tag(phases.night(1), "werewolves"),
            sw.window_s,
            wolves,
            decoy=decoy(lone_wolf_prompt(NO_SEAT, players, sw), shows=deck)
            if sw.lone_wolf_peek
            else None,
        ),
        "onenight.wolves_sleep",
        wolves_meet(wolves, center, players, sw),
    )
    spirits = deal.seats_with(SPIRIT)
    yield from window(
        ("onenight.spirit_wake", "onenight.spirit_hint"),
        Wake(
            Tag(phases.night(1), "spirit"),
            sw.window_s,
            spirits,
            decoy=decoy(spirit_prompt(NO_SEAT, players), shows=deck),
        ),
        "onenight.spirit_sleep",
        swap(spirits, cards, players),
    )

    yield Phase(phases.day(1))
    yield Say("onenight.morning", dawn=True)
    yield Say("onenight.discussion")
    yield Timer(Tag(phases.day(1), "discussion"), sw.discussion_s, expired="timer.time_up")
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
        yield Eliminate(seat, phases.day(1), "burned")

    yield Say("onenight.reveal_all")
    winner = winner_of(cards, burned)
    yield Say(win_line(winner, WEREWOLF in cards))
    outcome = yield from reveal(cards, winner, phases.day(1), center)
    return outcome


def inquire(
    inquisitors: Sequence[Seat], cards: Sequence[str], center: Sequence[str], sw: OneNightSwitches
) -> Flow[None]:
    """The high inquisitor sees one player's card or centre cards."""
    tag = Tag(phases.night(1), "high_inquisitor")
    for seat in inquisitors:
        seen = yield Ask(high_inquisitor_prompt(seat, len(cards), sw))
        if isinstance(seen, SeatAnswer):
            yield Show(tag, (seat,), Secret.roles(cards[seen.seat - 1]))
        elif isinstance(seen, CenterAnswer):
            yield Show(tag, (seat,), Secret.roles(*(center[i - 1] for i in seen.cards)))
    return None


def wolves_meet(
    wolves: tuple[Seat, ...], center: Sequence[str], players: int, sw: OneNightSwitches
) -> Flow[None]:
    """The werewolves see each other; a lone one may peek at a centre card."""
    tag = Tag(phases.night(1), "werewolves")
    if wolves:
        yield Show(tag, wolves, Secret.seats(wolves if len(wolves) > 1 else ()))
    if sw.lone_wolf_peek and len(wolves) == 1:
        peek = yield Ask(lone_wolf_prompt(wolves[0], players, sw))
        if isinstance(peek, CenterAnswer):
            yield Show(tag, wolves, Secret.roles(center[peek.cards[0] - 1]))
    return None


def swap(spirits: Sequence[Seat], cards: list[str], players: int) -> Flow[None]:
    """The spirit swaps cards with another player and sees his new card."""
    for seat in spirits:
        other = yield Ask(spirit_prompt(seat, players))
        if isinstance(other, SeatAnswer):
            cards[seat - 1], cards[other.seat - 1] = cards[other.seat - 1], cards[seat - 1]
            yield Show(Tag(phases.night(1), "spirit"), (seat,), Secret.roles(cards[seat - 1]))
    return None


# --- the variant ----------------------------------------------------------------------


class OneNight(Rules[OneNightSwitches]):
    def counts(self, players: int, sw: OneNightSwitches) -> Composition:
        cards = players + sw.center_cards
        default = {WEREWOLF: 2, HIGH_INQUISITOR: 1, SPIRIT: 1, INQUISITOR: cards - 4}
        counts = override_counts(
            default,
            sw.roles,
            ROLES,
            rest=INQUISITOR,
            singles=(HIGH_INQUISITOR, SPIRIT),
            players=players,
            center=sw.center_cards,
            rest_named=False,  # the inquisitors are the rest of the deck
        )
        return Composition(counts, sw.center_cards)

    def script(self, deal: Deal, sw: OneNightSwitches, rng: random.Random) -> Script:
        return night_and_day(deal, sw)  # no chance once the cards are dealt


VARIANT = OneNight("onenight", ROLES, OneNightSwitches, range(3, 8))
