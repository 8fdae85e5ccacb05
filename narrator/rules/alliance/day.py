"""The day of «Альянс дедукции» (docs/games/alliance.md §4.6–4.11): the election (day 1
or postponed), the night's deaths, the speeches, the exile vote; a werewolf's explosion
ends it at once.

An explosion during an election is followed at once by the night's announcement and one
check of both (4.6-9).
"""

from __future__ import annotations

from collections.abc import Sequence

from narrator.rules import phases
from narrator.rules.alliance.deaths import announce_night
from narrator.rules.alliance.deaths import fall
from narrator.rules.alliance.deaths import settle
from narrator.rules.alliance.election import ballot
from narrator.rules.alliance.election import drawn
from narrator.rules.alliance.election import election
from narrator.rules.alliance.prompts import explode_now
from narrator.rules.alliance.prompts import order_prompt
from narrator.rules.alliance.prompts import white_wolf_prompt
from narrator.rules.alliance.resolution import exile_tally
from narrator.rules.alliance.resolution import leaders
from narrator.rules.alliance.resolution import speaking_order
from narrator.rules.alliance.resolution import top_of
from narrator.rules.alliance.roles import EXILED
from narrator.rules.alliance.roles import EXPLODED
from narrator.rules.alliance.roles import OVER
from narrator.rules.alliance.roles import POSTPONED
from narrator.rules.alliance.roles import UP
from narrator.rules.alliance.roles import WOLVES
from narrator.rules.alliance.table import Death
from narrator.rules.alliance.table import Table
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Flow
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Timer
from narrator.rules.prompts import Tag


def day_of(table: Table, day: int, pending: list[Death]) -> Flow[Outcome | None]:
    """Election (day 1 or postponed), deaths, speeches, exile; the Outcome if the game ends."""
    yield Phase(phases.day(day))
    table.fallen_today = []
    yield Say("alliance.dawn_election" if day == 1 else "alliance.dawn", dawn=True)
    if table.election != OVER:
        if table.election == POSTPONED:
            yield Say("alliance.election_resumes")
        boom = yield from election(table, day, pending)
        if boom is not None:
            outcome = yield from explosion(table, day, boom, pending)
            return outcome
    batch = yield from announce_night(table, pending)
    outcome = yield from settle(table, day, batch)
    if outcome is not None:
        return outcome
    boom = yield from speeches(table, day)
    if boom is not None:
        outcome = yield from explosion(table, day, boom, None)
        return outcome
    outcome = yield from exile(table, day)
    return outcome


def explosion(
    table: Table, day: int, boom: ExplodeAnswer, pending: Sequence[Death] | None
) -> Flow[Outcome | None]:
    """A wolf explodes (4.11): no last words, speeches stop, night follows.

    During an election (``pending`` given) the election is postponed, or the
    badge burns at the second explosion, and the night's announcement follows.
    """
    wolf = boom.wolf
    yield Say("alliance.exploded", {"seat": wolf})
    batch = yield from fall(table, [Death(wolf, phases.day(day), EXPLODED, False)])
    if table.sw.white_wolf_king:
        answer = yield Ask(white_wolf_prompt(day, wolf, tuple(table.alive), table.players))
        if isinstance(answer, SeatAnswer):
            yield Say("alliance.white_wolf_takes", {"seat": answer.seat})
            taken = yield from fall(table, [Death(answer.seat, phases.day(day), WOLVES, False)])
            batch.extend(taken)
    if pending is not None:
        if table.election == POSTPONED:
            yield Say("alliance.badge_burnt")
            table.election = OVER
        else:
            yield Say("alliance.election_postponed")
            table.election = POSTPONED
        night = yield from announce_night(table, pending)
        batch.extend(night)
    else:
        yield Say("alliance.speeches_stop")
    outcome = yield from settle(table, day, batch)
    return outcome


def speeches(table: Table, day: int) -> Flow[ExplodeAnswer | None]:
    """Day speeches in the order of 4.8, the sheriff last; an explosion stops them."""
    living = tuple(table.alive)
    dead = tuple(sorted(table.fallen_today))
    if table.sheriff is not None:
        sheriff = table.sheriff
        yield Say("alliance.order_call")
        anchors = (sheriff, *dead)
        answer = yield Ask(order_prompt(day, sheriff, anchors, table.players))
        anchor, step = (
            (answer.anchor, answer.step) if isinstance(answer, OrderAnswer) else (sheriff, UP)
        )
        order = speaking_order(anchor, step, living, table.players, sheriff)
    elif dead:
        anchor, step = yield from drawn(f"d{day}.order_drawn", dead, table.players)
        order = speaking_order(anchor, step, living, table.players, None)
    else:
        anchor, step = yield from drawn(f"d{day}.order_drawn", living, table.players)
        order = speaking_order(anchor, step, living, table.players, None, anchor_speaks_first=True)
    yield Say("alliance.order_up" if step == UP else "alliance.order_down", {"seat": order[0]})
    explode = Tag(phases.day(day), "speeches.explode")
    for seat in order:
        line = "alliance.sheriff_floor" if seat == table.sheriff else "alliance.floor"
        yield Say(line, {"seat": seat})
        speech = yield Timer(
            Tag(phases.day(day), "speech", seat),
            table.sw.speech_s,
            seat,
            interrupt=explode_now(table, explode, seat, ()),
        )
        if isinstance(speech, ExplodeAnswer):
            return speech
    return None


def exile(table: Table, day: int) -> Flow[Outcome | None]:
    """The exile vote with the sheriff's 1.5, a PK on a tie, a peaceful day (4.10)."""
    living = tuple(table.alive)
    yield Say("alliance.vote_call")
    allow_self = table.sw.allow_self_vote
    votes = yield from ballot(table, day, "vote", living, living, "living", allow_self)
    top = leaders(exile_tally(votes, table.sheriff))
    if not top:
        yield Say("alliance.no_votes")
        return None
    if len(top) > 1:
        yield Say("alliance.pk", {"seats": top})
        for seat in top:
            yield Say("alliance.pk_floor", {"seat": seat})
            yield Timer(Tag(phases.day(day), "pk", seat), table.sw.pk_speech_s, seat)
        yield Say("alliance.pk_vote_call", {"seats": top})
        voters = tuple(s for s in living if s not in top)
        votes = yield from ballot(table, day, "pk_vote", voters, top, "revote", allow_self)
        tally = {seat: 0.0 for seat in top} | exile_tally(votes, table.sheriff)
        top = top_of(tally)
        if len(top) > 1:
            yield Say("alliance.peaceful_day")
            return None
    exiled = top[0]
    yield Say("alliance.exiled", {"seat": exiled})
    batch = yield from fall(table, [Death(exiled, phases.day(day), EXILED, True)])
    outcome = yield from settle(table, day, batch)
    return outcome
