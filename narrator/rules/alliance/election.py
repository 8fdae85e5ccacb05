"""The sheriff election (docs/games/alliance.md §4.6): candidates, speeches, withdrawal, the vote.

Withdrawal is one prompt, ``d<k>.withdraw``, after the candidates' speeches and before
the vote (4.6-4 "until the vote is called").  A werewolf may explode during a
candidate's speech (``d<k>.election.explode``; in the speeches after a tie
``d<k>.election_again.explode``), except one who died tonight (not yet announced).
"""

from __future__ import annotations

from collections.abc import Sequence

from narrator.rules import phases
from narrator.rules.alliance.prompts import candidates_prompt
from narrator.rules.alliance.prompts import choice_vote_prompt
from narrator.rules.alliance.prompts import explode_now
from narrator.rules.alliance.prompts import withdraw_prompt
from narrator.rules.alliance.resolution import top_of
from narrator.rules.alliance.roles import OVER
from narrator.rules.alliance.table import Death
from narrator.rules.alliance.table import Table
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.chance import drawn_order
from narrator.rules.core import Ask
from narrator.rules.core import Badge
from narrator.rules.core import Flow
from narrator.rules.core import Say
from narrator.rules.core import Timer
from narrator.rules.kit import around
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag


def election(table: Table, day: int, pending: Sequence[Death]) -> Flow[ExplodeAnswer | None]:
    """The sheriff election (4.6); returns the explosion that interrupted it, if any."""
    living = tuple(table.alive)
    yield Say("alliance.candidates_call")
    answer = yield Ask(candidates_prompt(day, living, table.players))
    candidates = (
        sorted(s for s in answer.seats if s is not None) if isinstance(answer, SeatsAnswer) else []
    )
    voters = tuple(s for s in living if s not in candidates)
    if not candidates or not voters:
        yield Say("alliance.no_candidates" if not candidates else "alliance.no_voters")
        table.election = OVER
        return None
    if len(candidates) == 1:
        yield from elect(table, candidates[0])
        return None
    yield Say("alliance.candidates", {"seats": tuple(candidates)})
    order = yield from candidate_order(candidates, table, f"d{day}.election.order_drawn")
    yield Say("alliance.candidate_order", {"seats": order})
    boom = yield from campaign(table, day, order, "candidate", "election", pending)
    if boom is not None:
        return boom

    yield Say("alliance.withdraw_call")
    answer = yield Ask(withdraw_prompt(day, tuple(candidates), table.players))
    withdrawn = (
        {s for s in answer.seats if s is not None} if isinstance(answer, SeatsAnswer) else set()
    )
    remaining = tuple(s for s in candidates if s not in withdrawn)
    if withdrawn:
        yield Say("alliance.withdrawn", {"seats": tuple(sorted(withdrawn))})
    if len(remaining) <= 1:
        if remaining:
            yield from elect(table, remaining[0])
        else:
            yield Say("alliance.no_sheriff")
            table.election = OVER
        return None

    tally = yield from sheriff_vote(table, day, "sheriff_vote", remaining, voters)
    top = top_of(tally)
    if len(top) > 1:
        yield Say("alliance.election_tie", {"seats": top})
        again = yield from candidate_order(top, table, f"d{day}.election_again.order_drawn")
        boom = yield from campaign(table, day, again, "candidate_again", "election_again", pending)
        if boom is not None:
            return boom
        tally = yield from sheriff_vote(table, day, "sheriff_revote", top, voters)
        top = top_of(tally)
    if len(top) == 1:
        yield from elect(table, top[0])
    else:
        yield Say("alliance.election_tie_again")
        table.election = OVER
    return None


def candidate_order(
    candidates: Sequence[Seat], table: Table, chance_id: str
) -> Flow[tuple[Seat, ...]]:
    """A random first candidate and a random direction round the table (4.6-3)."""
    start, step = yield from drawn(chance_id, sorted(candidates), table.players)
    return around(start, step, candidates, table.players)


def drawn(chance_id: str, anchors: Sequence[Seat], players: int) -> Flow[tuple[Seat, int]]:
    """A seat of ``anchors`` and a direction round the table, left to chance."""
    answer = yield drawn_order(chance_id, anchors, players)
    if not isinstance(answer, OrderAnswer):
        raise TypeError(f"{chance_id}: the driver gave {answer!r}, not an order")
    return answer.anchor, answer.step


def campaign(
    table: Table,
    day: int,
    order: Sequence[Seat],
    action: str,
    part: str,
    pending: Sequence[Death],
) -> Flow[ExplodeAnswer | None]:
    """The candidates' speeches in ``order``; an explosion stops them (4.6-9).

    The speeches after a tie are a part of their own (``d<k>.election_again.explode``):
    every tied candidate spoke once before, and an answer ``W S`` must name one moment.
    """
    explode = Tag(phases.day(day), f"{part}.explode")
    for seat in order:
        yield Say("alliance.candidate_floor", {"seat": seat})
        speech = yield Timer(
            Tag(phases.day(day), action, seat),
            table.sw.election_speech_s,
            seat,
            interrupt=explode_now(table, explode, seat, pending),
        )
        if isinstance(speech, ExplodeAnswer):
            return speech
    return None


def sheriff_vote(
    table: Table, day: int, action: str, candidates: Sequence[Seat], voters: Sequence[Seat]
) -> Flow[dict[Seat, float]]:
    """Only those who never ran vote, one vote each (4.6-5)."""
    yield Say(f"alliance.{action}_call", {"seats": tuple(candidates)})
    outside = "candidate" if action == "sheriff_vote" else "revote"
    votes = yield from ballot(table, day, action, voters, candidates, outside)
    tally = dict.fromkeys(candidates, 0.0)
    for target in votes.values():
        if target is not None:
            tally[target] += 1.0
    return tally


def ballot(
    table: Table,
    day: int,
    action: str,
    voters: Sequence[Seat],
    choices: Sequence[Seat],
    outside: str,
    allow_self: bool = True,
) -> Flow[dict[Seat, Seat | None]]:
    """Each voter in turn names one of ``choices`` or abstains (see :func:`choice_vote_prompt`)."""
    votes: dict[Seat, Seat | None] = {}
    for voter in voters:
        tag = Tag(phases.day(day), action, voter)
        prompt = choice_vote_prompt(
            tag, voter, voters, choices, table.players, outside=outside, allow_self=allow_self
        )
        answer = yield Ask(prompt)
        votes[voter] = answer.seat if isinstance(answer, SeatAnswer) else None
    return votes


def elect(table: Table, seat: Seat) -> Flow[None]:
    table.sheriff = seat
    table.election = OVER
    yield Badge(seat)
    yield Say("alliance.sheriff_elected", {"seat": seat})
    return None
