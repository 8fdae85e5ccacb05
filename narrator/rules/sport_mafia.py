"""«Свердловск Мафия Клуб» (docs/games/sport_mafia.md): ten-seat sport mafia.

Night 0 deals the cards and lets the mafia meet; every later night the black
players shoot together and the Don and the Sheriff check; every day has
one-minute speeches with nominations, a hand vote, perhaps a perestrelka.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from narrator.rules import kit
from narrator.rules import phases
from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import PressesAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Composition
from narrator.rules.core import Deal
from narrator.rules.core import Eliminate
from narrator.rules.core import Flow
from narrator.rules.core import Outcome
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
from narrator.rules.errors import ConfigError
from narrator.rules.kit import Rules
from narrator.rules.kit import around
from narrator.rules.kit import first_in_turn
from narrator.rules.kit import window
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Channel
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Rule
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.prompts import dead_seat
from narrator.rules.prompts import forbid
from narrator.rules.prompts import living_only
from narrator.rules.prompts import not_self
from narrator.rules.prompts import on_seat
from narrator.rules.prompts import remembered
from narrator.rules.prompts import seat_prompt

CIVILIAN = "civilian"
SHERIFF = "sheriff"
MAFIA = "mafia"
DON = "don"

ROLES: Mapping[str, Role] = kit.teams("black", red=(CIVILIAN, SHERIFF), black=(MAFIA, DON))
COMPOSITION = {CIVILIAN: 6, SHERIFF: 1, MAFIA: 2, DON: 1}
SEATS = 10
RED, BLACK = "red", "black"
TEN_SECONDS_LEFT = ((10.0, "timer.ten_seconds"),)


SEED_DEFENCE_S = 30  # «у вас тридцать секунд, чтобы оправдаться» (the seed)


class SportMafiaSwitches(Switches):
    call_dead_roles: bool = Field(True, description="call a dead Don / Sheriff with a full pause")
    night0_sheriff_call: bool = Field(False, description="the sheriff looks at the table, night 0")
    single_candidate_day1_skip: bool = Field(True, description="a lone day-1 nominee is not voted")
    unvoted_to_last: bool = Field(True, description="unvoted hands go to the last candidate")
    allow_self_nomination: bool = Field(False, description="a speaker may nominate himself")
    perestrelka_subset_loop: bool = Field(
        False, description="a smaller second tie gets new defences and a revote"
    )
    shooting: Literal["enter", "call"] = Field(
        "enter",
        description="how the mafia shoots: each types a seat (enter) or presses Space "
        "as its number is called (call)",
    )
    speech_s: Seconds = Field(60, gt=0, le=600, description="day speech, seconds")
    last_word_s: Seconds = Field(30, gt=0, le=600, description="last word, seconds")
    defence_s: Seconds = Field(30, gt=0, le=600, description="perestrelka defence, seconds")
    meeting_s: Seconds = Field(60, gt=0, le=600, description="night-0 mafia meeting, seconds")
    check_s: Seconds = Field(10, gt=0, le=120, description="Don / Sheriff check window, seconds")
    shot_call_s: Seconds = Field(1.5, gt=0, le=10, description="pause per called number, seconds")


def is_black(role: str) -> bool:
    return ROLES[role].team == BLACK


# --- resolution: plain functions -------------------------------------------------------


def shot_hits(entries: Sequence[Seat | None], shooters: int, living: Iterable[Seat]) -> Seat | None:
    """The seat hit, if every living black player shot the same living seat (3.4)."""
    if len(entries) != shooters or shooters == 0:
        return None
    targets = set(entries)
    if len(targets) != 1:
        return None
    (target,) = targets
    return target if target is not None and target in set(living) else None


def winner_of(roles: Sequence[str], living: Iterable[Seat]) -> str | None:
    """Red wins with no black left; black wins when black >= red (3.9). Red first."""
    alive = list(living)
    black = sum(1 for seat in alive if is_black(roles[seat - 1]))
    red = len(alive) - black
    if black == 0:
        return RED
    if black >= red:
        return BLACK
    return None


def leaders(tally: Mapping[Seat, int]) -> tuple[Seat, ...]:
    """Candidates with the most hands (in the tally's order); none when nobody got a hand."""
    top = max(tally.values(), default=0)
    if top == 0:
        return ()
    return tuple(seat for seat, hands in tally.items() if hands == top)


def all_leave(for_hands: int, living: int) -> bool:
    """«ЗА» must be more than «ПРОТИВ»; a split keeps everyone in (3.8-4)."""
    return for_hands > living - for_hands


def first_speaker(previous_first: Seat | None, living: Sequence[Seat]) -> Seat:
    """Day 1 from seat 1; later days from the seat after the previous first speaker."""
    return first_in_turn(previous_first, living, SEATS)


def speaking_order(first: Seat, living: Sequence[Seat]) -> list[Seat]:
    return list(around(first, 1, living, SEATS))


# --- prompts -----------------------------------------------------------------------------


def _seat_prompt(
    tag: Tag,
    seat: Seat,
    living: Sequence[Seat],
    *,
    allow_self: bool = False,
    taken: Sequence[Seat] = (),
    taken_reason: str = "already nominated",
    mark: str | None = None,
) -> Prompt:
    """A living seat (not oneself unless allowed, not one already ``taken``) or none."""

    def not_taken(target: Seat) -> None:
        if target in taken:
            raise forbid(taken_reason, "reason.already_nominated", seat=target)

    rules: tuple[Rule, ...] = (living_only(living), on_seat(not_taken))
    if not allow_self:
        rules = (not_self(seat), *rules)
    choices = [s for s in living if (allow_self or s != seat) and s not in taken]
    return seat_prompt(tag, (seat,), SEATS, choices, *rules, mark=mark)


def shoot_prompt(
    night: int, shooters: Sequence[Seat], living: Sequence[Seat], calls: bool = False
) -> Prompt:
    """One entry per living black player; with ``calls``, their Space presses (0.5)."""
    count = len(shooters)

    def check(answer: Answer) -> None:
        if isinstance(answer, PressesAnswer):
            for seat in answer.seats:
                if seat is not None and seat not in living:
                    raise dead_seat(seat)
            return
        entries = answer.seats if isinstance(answer, SeatsAnswer) else ()
        if isinstance(answer, Nobody):
            return
        if len(entries) != count:
            raise forbid(
                f"enter one shot per living black player: {count}, not {len(entries)}",
                "reason.shots",
                count=count,
            )
        for seat in entries:
            if seat is not None and seat not in living:
                raise dead_seat(seat)

    options = [" ".join([str(s)] * count) for s in living]
    if count > 1:
        options.append(" ".join(str(s) for s in (list(living) * count)[:count]))
    accepts = {AnswerKind.SEATS, AnswerKind.NOBODY}
    if calls:
        accepts.add(AnswerKind.PRESSES)
        options += [" ".join(["presses", *[str(s)] * count]) for s in living[:1]]
    return Prompt(
        tag=Tag(phases.night(night), "shoot"),
        seats=tuple(shooters),
        accepts=frozenset(accepts),
        seat_count=SEATS,
        default=Nobody(),
        options=(*options, " ".join(["none"] * count)),
        check=check,
        entries=max(count, 1),
        channels=frozenset({Channel.CALL}) if calls else frozenset(),
    )


def shots_of(answer: Answer | None, shooters: int) -> tuple[Seat | None, ...]:
    """The shot entries an answer gives; call-mode presses are judged here (0.5).

    With presses, a hit needs exactly one press per living black player, all while
    the same number was called; any other pattern is a miss.
    """
    if isinstance(answer, PressesAnswer):
        seats = set(answer.seats)
        if len(answer.seats) == shooters and len(seats) == 1 and None not in seats:
            return answer.seats
        return (None,) * shooters
    return answer.seats if isinstance(answer, SeatsAnswer) else ()


@remembered
def count_prompt(tag: Tag, most: int) -> Prompt:
    """A number of raised hands, at most ``most`` (the voters who have not voted yet)."""

    def check(answer: Answer) -> None:
        if isinstance(answer, CountAnswer) and answer.count > most:
            raise forbid(
                f"{answer.count} hands: only {most} players can still vote",
                "reason.too_many_hands",
                count=answer.count,
                most=most,
            )

    return Prompt(
        tag=tag,
        seats=(),
        accepts=frozenset({AnswerKind.COUNT}),
        seat_count=SEATS,
        default=CountAnswer(0),
        options=tuple(str(n) for n in range(most + 1)),
        check=check,
    )


# --- the script -----------------------------------------------------------------------------


@dataclass
class Table(kit.Table[SportMafiaSwitches]):
    """The hidden and public state of one sport-mafia game."""

    first: Seat | None = None  # the previous day's first speaker

    def living_black(self) -> tuple[Seat, ...]:
        return self.living_with(MAFIA, DON)

    def winner(self) -> str | None:
        return winner_of(self.roles, self.alive)


def game_script(deal: Deal, sw: SportMafiaSwitches) -> Script:
    table = Table(deal.seats, sw)

    yield Phase(phases.night(0))
    yield Say("sport.night_falls")
    yield from kit.deal_cards(table.roles, "sport.take_card", start=None, done=None)
    yield Say("sport.night_goes_on")
    black = table.seats_with(MAFIA, DON)
    yield from window(
        "sport.mafia_wake",
        Wake(Tag(phases.night(0), "mafia"), sw.meeting_s, black),
        "sport.mafia_sleep",
        kit.steps(Show(Tag(phases.night(0), "mafia"), black, Secret.seats(black))),
    )
    if sw.night0_sheriff_call:
        yield from window(
            "sport.sheriff_look",
            Wake(Tag(phases.night(0), "sheriff"), sw.check_s, table.seats_with(SHERIFF)),
            "sport.sheriff_look_sleep",
            kit.steps(),
        )

    day = 1
    shot: Seat | None = None
    while True:
        phase = phases.day(day)
        yield Phase(phase)
        if day == 1:
            yield Say("sport.day_one", dawn=True)
        else:
            ended = yield from morning(table, shot, day - 1)
            if ended is not None:
                return ended
        ended = yield from day_of(table, day)
        if ended is not None:
            return ended
        shot = yield from night_of(table, day)
        day += 1


def finish(table: Table, winner: str, phase: PhaseId) -> Script:
    yield Say(f"sport.win_{winner}")
    outcome = yield from kit.reveal(table.roles, winner, phase)
    return outcome


def morning(table: Table, shot: Seat | None, night: int) -> Flow[Outcome | None]:
    """Announce the night's shot; the victim's last word unless the game is over."""
    if shot is None:
        yield Say("sport.good_morning")
        return None
    yield Say("sport.bad_morning", {"seat": shot})
    table.alive.remove(shot)
    yield Eliminate(shot, phases.night(night), "shot")
    winner = table.winner()
    if winner is not None:
        outcome = yield from finish(table, winner, phases.day(night + 1))
        return outcome
    yield from last_words(table, [shot], night + 1)
    return None


def last_words(table: Table, seats: Sequence[Seat], day: int) -> Flow[None]:
    for seat in seats:
        yield Say("sport.last_word", {"seat": seat})
        yield Timer(
            Tag(phases.day(day), "last_word", seat), table.sw.last_word_s, seat, TEN_SECONDS_LEFT
        )
    return None


def day_of(table: Table, day: int) -> Flow[Outcome | None]:
    """Speeches with nominations, then the vote; returns the Outcome if the game ends."""
    sw = table.sw
    first = first_speaker(table.first, table.alive)
    table.first = first
    nominated: list[Seat] = []
    for speaker in speaking_order(first, table.alive):
        yield Say("sport.floor", {"seat": speaker})
        prompt = _seat_prompt(
            Tag(phases.day(day), "nominate", speaker),
            speaker,
            tuple(table.alive),
            allow_self=sw.allow_self_nomination,
            taken=tuple(nominated),
            mark="nominate",  # said inside one's speech: «я выставляю игрока номер …»
        )
        answer = yield Timer(
            Tag(phases.day(day), "speech", speaker),
            sw.speech_s,
            speaker,
            TEN_SECONDS_LEFT,
            prompt=prompt,
            confirm="sport.accepted",
        )
        if isinstance(answer, SeatAnswer):
            nominated.append(answer.seat)

    if not nominated:
        yield Say("sport.no_candidates")
        return None
    yield Say("sport.candidates", {"seats": tuple(nominated)})
    if len(nominated) == 1:
        if day == 1 and sw.single_candidate_day1_skip:
            yield Say("sport.single_day1")
            return None
        outcome = yield from leave(table, nominated, day, "voted")
        return outcome

    tally = yield from hand_vote(table, nominated, day, "vote")
    top = leaders(tally)
    if not top:
        yield Say("sport.nobody_leaves")
        return None
    rounds = 0
    while len(top) > 1:
        # ``perestrelka_subset_loop`` may run several rounds; each has its own ids
        # (``d<k>.revote.<seat>``, then ``d<k>.revote_2.<seat>``, ...).
        rounds += 1
        suffix = "" if rounds == 1 else f"_{rounds}"
        yield Say("sport.perestrelka", {"seats": tuple(sorted(top))})
        for seat in sorted(top):
            # «тридцать секунд» is true only for the seed's length; else no number is said
            line = "sport.defence" if sw.defence_s == SEED_DEFENCE_S else "sport.defence_any"
            yield Say(line, {"seat": seat})
            defence = Tag(phases.day(day), f"defence{suffix}", seat)
            yield Timer(defence, sw.defence_s, seat, TEN_SECONDS_LEFT)
        tally = yield from hand_vote(table, list(top), day, f"revote{suffix}")
        again = leaders(tally)
        if len(again) == 1:
            top = again
            break
        if not again:
            yield Say("sport.nobody_leaves")
            return None
        if sw.perestrelka_subset_loop and len(again) < len(top):
            top = again
            continue
        yield Say("sport.all_leave_question")
        hands = yield Ask(count_prompt(Tag(phases.day(day), "all_leave"), len(table.alive)))
        count = hands.count if isinstance(hands, CountAnswer) else 0
        if not all_leave(count, len(table.alive)):
            yield Say("sport.all_stay")
            return None
        outcome = yield from leave(table, sorted(again), day, "all_leave")
        return outcome
    outcome = yield from leave(table, list(top), day, "voted")
    return outcome


def hand_vote(
    table: Table, candidates: Sequence[Seat], day: int, action: str
) -> Flow[dict[Seat, int]]:
    """Hands for each candidate in nomination order; with ``unvoted_to_last`` the last
    candidate gets every hand not raised before."""
    voters = len(table.alive)
    tally: dict[Seat, int] = {}
    for index, seat in enumerate(candidates):
        left = voters - sum(tally.values())
        if table.sw.unvoted_to_last and index == len(candidates) - 1:
            tally[seat] = left
            yield Say("sport.rest_of_hands", {"seat": seat, "count": left})
            break
        yield Say("sport.who_is_for", {"seat": seat})
        hands = yield Ask(count_prompt(Tag(phases.day(day), action, seat), left))
        tally[seat] = hands.count if isinstance(hands, CountAnswer) else 0
    return tally


def leave(table: Table, seats: Sequence[Seat], day: int, cause: str) -> Flow[Outcome | None]:
    """Seats leave by day; the win check first, then the last words (C-11)."""
    for seat in sorted(seats):
        yield Say("sport.leaves", {"seat": seat})
        table.alive.remove(seat)
        yield Eliminate(seat, phases.day(day), cause)
    winner = table.winner()
    if winner is not None:
        outcome = yield from finish(table, winner, phases.day(day))
        return outcome
    yield from last_words(table, sorted(seats), day)
    return None


def night_of(table: Table, night: int) -> Flow[Seat | None]:
    """Shooting, the Don's and the Sheriff's checks; returns the seat hit, if any."""
    sw = table.sw
    living = tuple(table.alive)
    yield Phase(phases.night(night))
    yield Say("sport.night_falls")
    shooters = table.living_black()
    cues = tuple(Say("sport.number", {"seat": seat}) for seat in living)
    shots = yield from window(
        "sport.mafia_walks",
        Wake(
            Tag(phases.night(night), "shoot"),
            sw.shot_call_s * len(living),
            shooters,
            cues,
            sw.shot_call_s,
        ),
        "sport.mafia_thanks",
        kit.ask(shoot_prompt(night, shooters, living, sw.shooting == "call")),
    )
    yield from role_check(table, night, DON, ("sport.don_wake", "sport.don_sleep"), _don_token)
    yield from role_check(
        table, night, SHERIFF, ("sport.sheriff_wake", "sport.sheriff_sleep"), _sheriff_token
    )
    yield Say("sport.morning_comes", dawn=True)
    return shot_hits(shots_of(shots, len(shooters)), len(shooters), living)


def role_check(
    table: Table, night: int, role: str, lines: tuple[str, str], token: Callable[[str], str]
) -> Flow[None]:
    """The Don or the Sheriff checks one player; a dead one is called with a full pause."""
    tag = Tag(phases.night(night), role)
    living = tuple(table.alive)
    yield from kit.check_call(
        lines,
        tag,
        table.sw.check_s,
        table.called(role, table.sw.call_dead_roles),
        prompt=lambda seat: _seat_prompt(tag, seat, living),
        verdict=lambda seat: token(table.role(seat)),
        verdicts=sorted({token(r) for r in table.roles}),
    )
    return None


def _don_token(role: str) -> str:
    return "sheriff" if role == SHERIFF else "not_sheriff"


def _sheriff_token(role: str) -> str:
    return "mafia" if is_black(role) else "not_mafia"


# --- the variant ----------------------------------------------------------------------------


class SportMafia(Rules[SportMafiaSwitches]):
    def counts(self, players: int, sw: SportMafiaSwitches) -> Composition:
        if sw.roles is not None:
            raise ConfigError(
                "options.roles: sport_mafia has a fixed composition "
                "(6 civilians, sheriff, 2 mafia, don)"
            )
        return Composition(dict(COMPOSITION))

    def script(self, deal: Deal, sw: SportMafiaSwitches, rng: random.Random) -> Script:
        return game_script(deal, sw)  # no chance once the cards are dealt


VARIANT = SportMafia("sport_mafia", ROLES, SportMafiaSwitches, range(SEATS, SEATS + 1))
