"""«Игра в оборотней: Альянс дедукции» (RULES.md section 4): competitive werewolf.

The seed is only the chapter of special rules (sheriff, badge, speeches, last
words, votes, guard/witch conflicts); everything else is the standard 12-player
ruleset, every inferred rule a switch of :class:`AllianceSwitches`.

Roles stay hidden at death, so every role in the composition is called every
night with the same words and the same window whether its holder lives or not
(``call_dead_roles``).  Day 1 opens with the sheriff election before the night's
deaths are announced.  After every announcement that contains a death a fixed
public pause (``hunter_s``) lets a hunter who may shoot do so; the pause and its
input field are the same when nobody can shoot, so they reveal nothing.

Choices where RULES.md leaves room:

* Withdrawal from the election is one prompt, ``d<k>.withdraw``, after the
  candidates' speeches and before the vote (4.6-4 "until the vote is called").
* A win is checked right after each death batch (with its lovers), before the
  badge, the hunter's shot and the last words; an explosion during an election
  is followed at once by the night's announcement and one check of both (4.6-9).
* The witch's one window is named by its first prompt, ``n<k>.witch_save``, and
  so is the victim shown in it.  The hunter's status is «не можешь стрелять»
  exactly when he is tonight's poison target (4.4, to the letter).
* A werewolf who died tonight (not yet announced) cannot explode in the election.
* With Cupid in play he takes a villager's place at every table size.
* Prompts beyond SCENARIOS.md: ``d<k>.ability`` (the pause's input when nobody
  may shoot; it refuses every seat) and ``d<k>.white_wolf`` (``white_wolf_king``).
* A repeated ``d<k>.badge`` on one day (the sheriff dies twice) is asked again;
  a scenario file can answer only the first (SCENARIOS.md: one id, one answer).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Self

from pydantic import Field, model_validator

from narrator.rules.answers import (
    Abstain,
    Answer,
    AnswerKind,
    Destroy,
    ExplodeAnswer,
    Nobody,
    OrderAnswer,
    SeatAnswer,
    SeatsAnswer,
    YesNo,
)
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
from narrator.rules.errors import ConfigError, NotNow

WEREWOLF = "werewolf"
SEER = "seer"
WITCH = "witch"
HUNTER = "hunter"
GUARD = "guard"
VILLAGER = "villager"
CUPID = "cupid"

ROLES: Mapping[str, Role] = {
    WEREWOLF: Role(WEREWOLF, "werewolves", evil=True),
    SEER: Role(SEER, "good"),
    WITCH: Role(WITCH, "good"),
    HUNTER: Role(HUNTER, "good"),
    GUARD: Role(GUARD, "good"),
    VILLAGER: Role(VILLAGER, "good"),
    CUPID: Role(CUPID, "good"),
}
SPECIAL_ROLES = (SEER, WITCH, HUNTER, GUARD, CUPID)

# Winners of RULES.md 4.12.
GOOD = "good"
WEREWOLVES = "werewolves"
LOVERS = "lovers"

# Causes of departure (SCENARIOS.md).
WOLVES = "wolves"
POISON = "poison"
LOVE = "love"
SHOT = "hunter"
EXILED = "exiled"
EXPLODED = "exploded"

SHERIFF_WEIGHT = 1.5
UP, DOWN = 1, -1

# RULES.md 4.2: werewolves, villagers and the special roles per table size.
TABLES: Mapping[int, tuple[int, int, tuple[str, ...]]] = {
    9: (3, 3, (SEER, WITCH, HUNTER)),
    10: (3, 3, (SEER, WITCH, HUNTER, GUARD)),
    11: (3, 4, (SEER, WITCH, HUNTER, GUARD)),
    12: (4, 4, (SEER, WITCH, HUNTER, GUARD)),
}
SEAT_COUNTS = range(9, 13)

# The election's progress (4.6-9): due on day 1, postponed once by an explosion.
DUE, POSTPONED, OVER = "due", "postponed", "over"


class AllianceSwitches(Switches):
    allow_self_vote: bool = Field(False, description="a player may vote to exile himself")
    call_dead_roles: bool = Field(True, description="call a dead role with the same words/pause")
    witch_self_save: Literal["night1", "never", "always"] = Field(
        "night1", description="when the witch may use the antidote on herself"
    )
    witch_both_same_night: bool = Field(False, description="both potions in one night")
    witch_sees_victim_after_antidote: bool = Field(
        False, description="the witch still sees the victim once the antidote is spent"
    )
    hunter_status_call: bool = Field(True, description="the hunter's nightly shooting status")
    hunter_shoots_on_love_death: bool = Field(False, description="a hunter dying of love shoots")
    white_wolf_king: bool = Field(False, description="an exploding wolf takes one player along")
    cupid_enabled: bool = Field(False, description="Cupid replaces one villager (4.2, 4.9)")
    cupid_s: float = Field(20, gt=0, le=120, description="Cupid's window, seconds")
    lovers_s: float = Field(10, gt=0, le=120, description="the lovers' window, seconds")
    guard_s: float = Field(15, gt=0, le=120, description="the guard's window, seconds")
    wolves_first_s: float = Field(40, gt=0, le=120, description="the wolves' window, night 1")
    wolves_s: float = Field(30, gt=0, le=120, description="the wolves' window, later nights")
    witch_s: float = Field(20, gt=0, le=120, description="the witch's window, seconds")
    seer_s: float = Field(15, gt=0, le=120, description="the seer's window, seconds")
    hunter_status_s: float = Field(5, gt=0, le=120, description="the hunter's status window")
    window_s: float | None = Field(
        None, gt=0, le=120, description="every night window, seconds (overrides the above)"
    )
    election_speech_s: float = Field(60, gt=0, le=600, description="a candidate's speech")
    speech_s: float = Field(90, gt=0, le=600, description="a day speech (the sheriff's too)")
    pk_speech_s: float = Field(60, gt=0, le=600, description="a speech on the exile stand")
    last_words_s: float = Field(60, gt=0, le=600, description="last words, seconds")
    badge_s: float = Field(15, gt=0, le=120, description="the badge decision, seconds")
    hunter_s: float = Field(15, gt=0, le=120, description="the pause after a death announcement")

    @model_validator(mode="after")
    def _roles_parse(self) -> Self:
        if self.roles is not None:
            counts = parse_roles(self.roles, ROLES)
            if CUPID in counts and (counts[CUPID] > 0) != self.cupid_enabled:
                raise ValueError(
                    f"roles: cupid={counts[CUPID]} contradicts cupid_enabled = "
                    f"{str(self.cupid_enabled).lower()}"
                )
        return self

    def window(self, seconds: float) -> float:
        return self.window_s if self.window_s is not None else seconds


def _switches(switches: Switches) -> AllianceSwitches:
    assert isinstance(switches, AllianceSwitches)
    return switches


# --- compositions -----------------------------------------------------------------------------


def default_counts(players: int, cupid: bool = False) -> dict[str, int]:
    """The table of RULES.md 4.2; with Cupid he takes a villager's place."""
    wolves, villagers, specials = TABLES[players]
    counts = {role: 0 for role in ROLES}
    counts.update({WEREWOLF: wolves, VILLAGER: villagers})
    counts.update({role: 1 for role in specials})
    if cupid:
        counts[VILLAGER] -= 1
        counts[CUPID] = 1
    return counts


def composition_counts(players: int, sw: AllianceSwitches) -> dict[str, int]:
    """The role counts for ``players`` seats, with the ``roles`` override validated."""
    counts = default_counts(players, sw.cupid_enabled)
    if sw.roles is None:
        return counts
    override = parse_roles(sw.roles, ROLES)
    counts.update(override)
    for single in SPECIAL_ROLES:
        if counts[single] > 1:
            raise ConfigError(f"roles: at most one {single}")
    if counts[WEREWOLF] < 1:
        raise ConfigError("roles: the game needs at least one werewolf")
    if VILLAGER in override:
        if sum(counts.values()) != players:
            raise ConfigError(
                f"roles: {sum(counts.values())} cards for {players} players; "
                "leave 'villager' out to fill the rest with villagers"
            )
    else:
        others = sum(n for role, n in counts.items() if role != VILLAGER)
        if others > players:
            raise ConfigError(f"roles: {others} cards do not fit {players} players")
        counts[VILLAGER] = players - others
    if counts[WEREWOLF] >= players - counts[WEREWOLF]:
        raise ConfigError(
            f"roles: {counts[WEREWOLF]} werewolves of {players} players: "
            "werewolves must be fewer than the others"
        )
    return counts


# --- resolution: plain functions ---------------------------------------------------------------


def night_deaths(
    wolf_target: Seat | None,
    guard_target: Seat | None,
    antidote: bool,
    poison_target: Seat | None,
    lovers: tuple[Seat, Seat] | None = None,
) -> tuple[tuple[Seat, str], ...]:
    """Who dies at dawn and why (RULES.md 4.5), in seat order.

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
    """The side-kill rule of RULES.md 4.12, checked in the order lovers, good, werewolves.

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


def around(start: Seat, step: int, among: Iterable[Seat], players: int) -> tuple[Seat, ...]:
    """The seats of ``among`` going round the table from ``start`` (included) by ``step``."""
    chosen = set(among)
    order = ((start - 1 + step * i) % players + 1 for i in range(players))
    return tuple(seat for seat in order if seat in chosen)


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


# --- prompts ---------------------------------------------------------------------------------


def _seat_options(seats: Iterable[Seat], *extra: str) -> tuple[str, ...]:
    return (*(str(s) for s in seats), *extra)


def cupid_prompt(cupid: Seat, players: int, default: tuple[Seat, Seat]) -> Prompt:
    """Two different seats, Cupid himself allowed (4.4); no answer: ``default``, drawn at random."""

    def check(answer: Answer) -> None:
        if not isinstance(answer, SeatsAnswer):
            return
        seats = answer.seats
        if len(seats) != 2 or None in seats or seats[0] == seats[1]:
            raise forbid("choose two different players", "reason.two_seats")

    pairs = itertools.combinations(range(1, players + 1), 2)
    return Prompt(
        id="n1.cupid",
        seats=(cupid,),
        accepts=frozenset({AnswerKind.SEATS}),
        seat_count=players,
        default=SeatsAnswer(default),
        options=tuple(f"{a} {b}" for a, b in pairs),
        check=check,
    )


def guard_prompt(
    night: int, guard: Seat, living: Sequence[Seat], last: Seat | None, players: int
) -> Prompt:
    """Protect a living seat (oneself too) or skip; never last night's seat (4.4)."""

    def check(answer: Answer) -> None:
        if not isinstance(answer, SeatAnswer):
            return
        if answer.seat not in living:
            raise dead_seat(answer.seat)
        if answer.seat == last:
            raise forbid(
                f"seat {answer.seat} was protected last night",
                "reason.repeat_protection",
                seat=answer.seat,
            )

    return Prompt(
        id=f"n{night}.guard",
        seats=(guard,),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=_seat_options((s for s in living if s != last), "none"),
        check=check,
    )


def wolves_prompt(
    night: int, wolves: Sequence[Seat], living: Sequence[Seat], players: int
) -> Prompt:
    """One agreed living seat (a wolf too) or an empty knife; no agreement = none."""

    def check(answer: Answer) -> None:
        if isinstance(answer, SeatAnswer) and answer.seat not in living:
            raise dead_seat(answer.seat)

    return Prompt(
        id=f"n{night}.wolves",
        seats=tuple(wolves),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=_seat_options(living, "none"),
        check=check,
    )


def witch_save_prompt(
    night: int,
    witch: Seat,
    victim: Seat | None,
    antidote_left: bool,
    self_save: str,
    players: int,
) -> Prompt:
    """The antidote, on the wolves' victim only, once per game; on herself per the switch."""

    def check(answer: Answer) -> None:
        if not (isinstance(answer, YesNo) and answer.yes):
            return
        if not antidote_left:
            raise forbid("the antidote is used up", "reason.antidote_used")
        if victim is None:
            raise forbid("nobody was killed tonight", "reason.no_victim")
        if victim == witch and not (
            self_save == "always" or (self_save == "night1" and night == 1)
        ):
            raise forbid("the witch cannot save herself tonight", "reason.self_save")

    return Prompt(
        id=f"n{night}.witch_save",
        seats=(witch,),
        accepts=frozenset({AnswerKind.YES_NO}),
        seat_count=players,
        default=YesNo(False),
        options=("yes", "no") if antidote_left and victim is not None else ("no",),
        check=check,
    )


def witch_poison_prompt(
    night: int,
    witch: Seat,
    living: Sequence[Seat],
    poison_left: bool,
    saved_tonight: bool,
    both_same_night: bool,
    players: int,
) -> Prompt:
    """The poison on a living player other than herself, once per game, one potion a night."""

    def check(answer: Answer) -> None:
        if not isinstance(answer, SeatAnswer):
            return
        if not poison_left:
            raise forbid("the poison is used up", "reason.poison_used")
        if saved_tonight and not both_same_night:
            raise forbid("one potion per night", "reason.one_potion")
        if answer.seat == witch:
            raise forbid("you cannot choose yourself", "reason.self")
        if answer.seat not in living:
            raise dead_seat(answer.seat)

    can_poison = poison_left and not (saved_tonight and not both_same_night)
    targets = [s for s in living if s != witch] if can_poison else []
    return Prompt(
        id=f"n{night}.witch_poison",
        seats=(witch,),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=_seat_options(targets, "none"),
        check=check,
    )


def seer_prompt(night: int, seer: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """Check one living player other than oneself; no answer = no check."""
    return living_seat_prompt(f"n{night}.seer", seer, living, players, none=False)


def _seat_list(answer: Answer, allowed: Sequence[Seat], outside: str) -> None:
    """Several different seats of ``allowed``; ``outside`` names the reason for another seat."""
    if not isinstance(answer, SeatsAnswer):
        return
    seen: set[Seat] = set()
    for seat in answer.seats:
        if seat is None:
            raise forbid("seat numbers only, or 'none' alone", "reason.not_an_answer", input="none")
        if seat in seen:
            raise forbid(f"seat {seat} is named twice", "reason.twice", seat=seat)
        if seat not in allowed:
            if outside == "candidate":
                raise forbid(f"seat {seat} is not a candidate", "reason.not_candidate", seat=seat)
            raise dead_seat(seat)
        seen.add(seat)


def candidates_prompt(day: int, living: Sequence[Seat], players: int) -> Prompt:
    """The raised hands of «Кто выдвигается в шерифы» (4.6-1); none = no candidate."""

    def check(answer: Answer) -> None:
        _seat_list(answer, living, "living")

    ordered = sorted(living)
    pairs = [f"{a} {b}" for a, b in itertools.combinations(ordered, 2)]
    threes = [" ".join(map(str, ordered[i : i + 3])) for i in range(0, len(ordered) - 2, 2)]
    return Prompt(
        id=f"d{day}.candidates",
        seats=(),
        accepts=frozenset({AnswerKind.SEATS, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=(
            "none",
            *(str(s) for s in ordered),
            *pairs,
            *threes,
            " ".join(map(str, ordered)),
        ),
        check=check,
    )


def withdraw_prompt(day: int, candidates: Sequence[Seat], players: int) -> Prompt:
    """Candidates who step down before the vote (4.6-4); none = nobody."""

    def check(answer: Answer) -> None:
        _seat_list(answer, candidates, "candidate")

    return Prompt(
        id=f"d{day}.withdraw",
        seats=tuple(candidates),
        accepts=frozenset({AnswerKind.SEATS, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=("none", *(str(s) for s in candidates), " ".join(map(str, candidates))),
        check=check,
    )


def choice_vote_prompt(
    prompt_id: str,
    voter: Seat,
    voters: Sequence[Seat],
    choices: Sequence[Seat],
    players: int,
    *,
    outside: str,
    allow_self: bool = True,
) -> Prompt:
    """One vote of ``voter`` for one of ``choices`` or abstain.

    Only ``voters`` vote: a sheriff candidate in the election, a player on the
    stand in a PK (4.6-1, 4.10-4).  ``outside`` names the reason for a seat that
    is not a choice: ``candidate`` (election), ``revote`` (a tie's revote) or
    ``living`` (the exile vote).
    """

    def check(answer: Answer) -> None:
        if voter not in voters:
            raise forbid(f"seat {voter} does not vote here", "reason.no_vote", seat=voter)
        if not isinstance(answer, SeatAnswer):
            return
        seat = answer.seat
        if seat == voter and not allow_self:
            raise forbid("you cannot vote for yourself", "reason.self_vote")
        if seat in choices:
            return
        if outside == "candidate":
            raise forbid(f"seat {seat} is not a candidate", "reason.not_candidate", seat=seat)
        if outside == "revote":
            listed = ", ".join(map(str, choices))
            raise forbid(
                f"seat {seat} is not in the revote: choose one of {listed}",
                "reason.not_in_revote",
                seat=seat,
                seats=listed,
            )
        raise dead_seat(seat)

    targets = [s for s in choices if allow_self or s != voter] if voter in voters else []
    return Prompt(
        id=prompt_id,
        seats=(voter,),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.ABSTAIN}),
        seat_count=players,
        default=Abstain(),
        options=_seat_options(targets, "abstain"),
        check=check,
    )


def explode_prompt(prompt_id: str, speaker: Seat, wolves: Sequence[Seat], players: int) -> Prompt:
    """``W S``: werewolf W explodes during the speech of S (4.11).

    An answer for another speech is NotNow (kept for that speech); W must be a
    living werewolf.  Anyone at the table may try, so the prompt names no seats.
    """

    def check(answer: Answer) -> None:
        if not isinstance(answer, ExplodeAnswer):
            return
        if answer.during != speaker:
            raise NotNow(
                f"seat {answer.during} is not speaking now (seat {speaker} is)",
                "reason.not_now",
                {"seat": speaker},
            )
        if answer.wolf not in wolves:
            raise forbid(
                f"seat {answer.wolf} cannot explode: only a living werewolf can",
                "reason.not_werewolf",
                seat=answer.wolf,
            )

    return Prompt(
        id=prompt_id,
        seats=(),
        accepts=frozenset({AnswerKind.EXPLODE}),
        seat_count=players,
        default=Nobody(),
        options=tuple(f"{w} {speaker}" for w in wolves),
        check=check,
    )


def badge_prompt(day: int, sheriff: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """Pass the badge to a living player or destroy it (4.7-2); ``none`` (keypad 0) destroys."""

    def check(answer: Answer) -> None:
        if isinstance(answer, SeatAnswer) and answer.seat not in living:
            raise dead_seat(answer.seat)

    return Prompt(
        id=f"d{day}.badge",
        seats=(sheriff,),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.DESTROY, AnswerKind.NOBODY}),
        seat_count=players,
        default=Destroy(),
        options=_seat_options(living, "destroy"),
        check=check,
    )


def hunter_prompt(day: int, hunter: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """The dead hunter's shot: a living player other than himself, or none (4.7-3)."""
    return living_seat_prompt(f"d{day}.hunter", hunter, living, players, none=True)


def no_shot_prompt(day: int, players: int) -> Prompt:
    """The same input field when nobody may shoot, so the pause reveals nothing."""

    def check(answer: Answer) -> None:
        if isinstance(answer, SeatAnswer):
            raise forbid("nobody can shoot now", "reason.cannot_shoot")

    return Prompt(
        id=f"d{day}.ability",
        seats=(),
        accepts=frozenset({AnswerKind.SEAT, AnswerKind.NOBODY}),
        seat_count=players,
        default=Nobody(),
        options=("none",),
        check=check,
    )


def order_prompt(day: int, sheriff: Seat, anchors: Sequence[Seat], players: int) -> Prompt:
    """``S +`` / ``S -``: the sheriff starts the speeches next to himself or a dead player."""

    def check(answer: Answer) -> None:
        if isinstance(answer, OrderAnswer) and answer.anchor not in anchors:
            raise forbid(
                f"start next to the sheriff or a player who died: {', '.join(map(str, anchors))}",
                "reason.order_anchor",
                seat=answer.anchor,
            )

    return Prompt(
        id=f"d{day}.order",
        seats=(sheriff,),
        accepts=frozenset({AnswerKind.ORDER}),
        seat_count=players,
        default=OrderAnswer(sheriff, UP),
        options=tuple(f"{a} {d}" for a in anchors for d in "+-"),
        check=check,
    )


def white_wolf_prompt(day: int, wolf: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """``white_wolf_king``: the exploding wolf takes one living player along, or nobody."""
    return living_seat_prompt(f"d{day}.white_wolf", wolf, living, players, none=True)


@dataclass(frozen=True)
class Death:
    """One departure; ``words`` is the right to last words (4.7-4)."""

    seat: Seat
    phase: str
    cause: str
    words: bool


@dataclass
class Table:
    """The hidden and public state of one game."""

    roles: tuple[str, ...]
    sw: AllianceSwitches
    rng: random.Random
    alive: list[Seat] = field(default_factory=list)
    lovers: tuple[Seat, Seat] | None = None
    sheriff: Seat | None = None
    election: str = DUE
    antidote: bool = True
    poison: bool = True
    guarded: Seat | None = None  # last night's protection
    fallen_today: list[Seat] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.alive = list(range(1, self.players + 1))

    @property
    def players(self) -> int:
        return len(self.roles)

    def role(self, seat: Seat) -> str:
        return self.roles[seat - 1]

    def seats_with(self, role: str) -> tuple[Seat, ...]:
        return tuple(s for s in range(1, self.players + 1) if self.role(s) == role)

    def living_with(self, role: str) -> tuple[Seat, ...]:
        return tuple(s for s in self.alive if self.role(s) == role)

    def partner(self, seat: Seat) -> Seat | None:
        if self.lovers is None or seat not in self.lovers:
            return None
        return self.lovers[1] if seat == self.lovers[0] else self.lovers[0]

    def winner(self) -> str | None:
        return winner_of(self.roles, self.alive, self.lovers)

    def called(self, role: str) -> tuple[bool, tuple[Seat, ...]]:
        """Whether the role's window opens tonight, and who is awake in it."""
        awake = self.living_with(role)
        if not self.seats_with(role):
            return False, ()
        return bool(awake) or self.sw.call_dead_roles, awake


# --- the night -------------------------------------------------------------------------------


def game_script(deal: Deal, sw: AllianceSwitches, rng: random.Random) -> Script:
    table = Table(deal.seats, sw, rng)
    yield Say("deal.start")
    for seat in range(1, table.players + 1):
        yield Say("deal.call", {"seat": seat})
        yield DealCard(f"deal.{seat}", seat, Secret.roles(table.role(seat)))
    yield Say("deal.done")
    night = 1
    while True:
        pending = yield from night_of(table, night)
        outcome = yield from day_of(table, night, pending)
        if outcome is not None:
            return outcome
        night += 1


def night_of(table: Table, night: int) -> Flow[list[Death]]:
    """Cupid and the lovers (night 1), guard, wolves, witch, seer, hunter (4.3)."""
    yield Phase(f"n{night}")
    yield Say("alliance.night_falls")
    if night == 1 and table.seats_with(CUPID):
        yield from cupid_call(table)
    guarded = yield from guard_call(table, night)
    victim = yield from wolves_call(table, night)
    saved, poisoned = yield from witch_call(table, night, victim)
    yield from seer_call(table, night)
    yield from hunter_call(table, night, poisoned)
    deaths = night_deaths(victim, guarded, saved, poisoned, table.lovers)
    return [Death(seat, f"n{night}", cause, night == 1) for seat, cause in deaths]


def cupid_call(table: Table) -> Flow[None]:
    sw = table.sw
    default = sorted(table.rng.sample(range(1, table.players + 1), 2))
    pair = (default[0], default[1])
    yield Say("alliance.cupid_wake")
    awake = table.living_with(CUPID)
    yield Wake("n1.cupid", sw.window(sw.cupid_s), awake)
    for cupid in awake:
        answer = yield Ask(cupid_prompt(cupid, table.players, pair))
        if isinstance(answer, SeatsAnswer):
            first, second = sorted(s for s in answer.seats if s is not None)
            pair = (first, second)
    yield Sleep()
    yield Say("alliance.cupid_sleep")
    table.lovers = pair
    yield Say("alliance.lovers_wake")
    yield Wake("n1.lovers", sw.window(sw.lovers_s), pair)
    yield Show("n1.lovers", (pair[0],), Secret.seats((pair[1],)))
    yield Show("n1.lovers", (pair[1],), Secret.seats((pair[0],)))
    yield Sleep()
    yield Say("alliance.lovers_sleep")
    return None


def guard_call(table: Table, night: int) -> Flow[Seat | None]:
    sw = table.sw
    calls, awake = table.called(GUARD)
    if not calls:
        return None
    yield Say("alliance.guard_wake")
    yield Wake(f"n{night}.guard", sw.window(sw.guard_s), awake)
    target: Seat | None = None
    for guard in awake:
        answer = yield Ask(
            guard_prompt(night, guard, tuple(table.alive), table.guarded, table.players)
        )
        target = answer.seat if isinstance(answer, SeatAnswer) else None
        table.guarded = target  # a skip clears the ban (D-12)
    yield Sleep()
    yield Say("alliance.guard_sleep")
    return target


def wolves_call(table: Table, night: int) -> Flow[Seat | None]:
    sw = table.sw
    wolves = table.living_with(WEREWOLF)
    first = night == 1
    yield Say("alliance.wolves_wake_first" if first else "alliance.wolves_wake")
    yield Wake(f"n{night}.wolves", sw.window(sw.wolves_first_s if first else sw.wolves_s), wolves)
    victim: Seat | None = None
    if wolves:
        answer = yield Ask(wolves_prompt(night, wolves, tuple(table.alive), table.players))
        victim = answer.seat if isinstance(answer, SeatAnswer) else None
    yield Sleep()
    yield Say("alliance.wolves_sleep")
    return victim


def witch_call(table: Table, night: int, victim: Seat | None) -> Flow[tuple[bool, Seat | None]]:
    """One window, the victim on screen while the antidote lasts, save first (4.4)."""
    sw = table.sw
    calls, awake = table.called(WITCH)
    if not calls:
        return False, None
    window = f"n{night}.witch_save"
    yield Say("alliance.witch_wake")
    yield Wake(window, sw.window(sw.witch_s), awake)
    saved, poisoned = False, None
    for witch in awake:
        if table.antidote or sw.witch_sees_victim_after_antidote:
            shown = Secret.seats((victim,)) if victim is not None else Secret.token("none")
            yield Show(window, (witch,), shown)
        if table.antidote:
            answer = yield Ask(
                witch_save_prompt(
                    night, witch, victim, table.antidote, sw.witch_self_save, table.players
                )
            )
            if isinstance(answer, YesNo) and answer.yes:
                saved, table.antidote = True, False
        if table.poison:
            answer = yield Ask(
                witch_poison_prompt(
                    night,
                    witch,
                    tuple(table.alive),
                    table.poison,
                    saved,
                    sw.witch_both_same_night,
                    table.players,
                )
            )
            if isinstance(answer, SeatAnswer):
                poisoned, table.poison = answer.seat, False
    yield Sleep()
    yield Say("alliance.witch_sleep")
    return saved, poisoned


def seer_call(table: Table, night: int) -> Flow[None]:
    sw = table.sw
    calls, awake = table.called(SEER)
    if not calls:
        return None
    yield Say("alliance.seer_wake")
    yield Wake(f"n{night}.seer", sw.window(sw.seer_s), awake)
    for seer in awake:
        answer = yield Ask(seer_prompt(night, seer, tuple(table.alive), table.players))
        if isinstance(answer, SeatAnswer):
            token = "werewolf" if table.role(answer.seat) == WEREWOLF else "good"
            yield Show(f"n{night}.seer", (seer,), Secret.token(token))
    yield Sleep()
    yield Say("alliance.seer_sleep")
    return None


def hunter_call(table: Table, night: int, poisoned: Seat | None) -> Flow[None]:
    """The shooting status: «не можешь стрелять» when poisoned tonight (4.4)."""
    sw = table.sw
    calls, awake = table.called(HUNTER)
    if not calls or not sw.hunter_status_call:
        return None
    yield Say("alliance.hunter_wake")
    yield Wake(f"n{night}.hunter", sw.window(sw.hunter_status_s), awake)
    for hunter in awake:
        token = "cannot_shoot" if hunter == poisoned else "can_shoot"
        yield Show(f"n{night}.hunter", (hunter,), Secret.token(token))
    yield Sleep()
    yield Say("alliance.hunter_sleep")
    return None


# --- the day ---------------------------------------------------------------------------------


def day_of(table: Table, day: int, pending: list[Death]) -> Flow[Outcome | None]:
    """Election (day 1 or postponed), deaths, speeches, exile; the Outcome if the game ends."""
    yield Phase(f"d{day}")
    table.fallen_today = []
    yield Say("alliance.dawn_election" if day == 1 else "alliance.dawn", dawn=True)
    if table.election != OVER:
        if table.election == POSTPONED:
            yield Say("alliance.election_resumes")
        boom = yield from election(table, day, pending)
        if boom is not None:
            outcome = yield from explosion(table, day, boom, pending)
            return outcome
    outcome = yield from dawn(table, day, pending)
    if outcome is not None:
        return outcome
    boom = yield from speeches(table, day)
    if boom is not None:
        outcome = yield from explosion(table, day, boom, None)
        return outcome
    outcome = yield from exile(table, day)
    return outcome


def _explode(table: Table, day: int, part: str, speaker: Seat, pending: Sequence[Death]) -> Prompt:
    dying = {death.seat for death in pending}
    wolves = tuple(s for s in table.living_with(WEREWOLF) if s not in dying)
    return explode_prompt(f"d{day}.{part}.explode", speaker, wolves, table.players)


def candidate_order(candidates: Sequence[Seat], table: Table) -> tuple[Seat, ...]:
    """A random first candidate and a random direction round the table (4.6-3)."""
    start = table.rng.choice(sorted(candidates))
    step = table.rng.choice((UP, DOWN))
    return around(start, step, candidates, table.players)


def election(table: Table, day: int, pending: Sequence[Death]) -> Flow[ExplodeAnswer | None]:
    """The sheriff election (4.6); returns the explosion that interrupted it, if any."""
    sw = table.sw
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
    order = candidate_order(candidates, table)
    yield Say("alliance.candidate_order", {"seats": order})
    for seat in order:
        yield Say("alliance.candidate_floor", {"seat": seat})
        speech = yield Timer(
            f"d{day}.candidate.{seat}",
            sw.election_speech_s,
            seat,
            interrupt=_explode(table, day, "election", seat, pending),
        )
        if isinstance(speech, ExplodeAnswer):
            return speech

    yield Say("alliance.withdraw_call")
    answer = yield Ask(withdraw_prompt(day, candidates, table.players))
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
        for seat in candidate_order(top, table):
            yield Say("alliance.candidate_floor", {"seat": seat})
            speech = yield Timer(
                f"d{day}.candidate_again.{seat}",
                sw.election_speech_s,
                seat,
                interrupt=_explode(table, day, "election", seat, pending),
            )
            if isinstance(speech, ExplodeAnswer):
                return speech
        tally = yield from sheriff_vote(table, day, "sheriff_revote", top, voters)
        top = top_of(tally)
    if len(top) == 1:
        yield from elect(table, top[0])
    else:
        yield Say("alliance.election_tie_again")
        table.election = OVER
    return None


def sheriff_vote(
    table: Table, day: int, action: str, candidates: Sequence[Seat], voters: Sequence[Seat]
) -> Flow[dict[Seat, float]]:
    """Only those who never ran vote, one vote each (4.6-5)."""
    yield Say(f"alliance.{action}_call", {"seats": tuple(candidates)})
    tally = dict.fromkeys(candidates, 0.0)
    for voter in voters:
        answer = yield Ask(
            choice_vote_prompt(
                f"d{day}.{action}.{voter}",
                voter,
                voters,
                candidates,
                table.players,
                outside="candidate" if action == "sheriff_vote" else "revote",
            )
        )
        if isinstance(answer, SeatAnswer):
            tally[answer.seat] += 1.0
    return tally


def elect(table: Table, seat: Seat) -> Flow[None]:
    table.sheriff = seat
    table.election = OVER
    yield Say("alliance.sheriff_elected", {"seat": seat})
    return None


def announce_night(table: Table, deaths: Sequence[Death]) -> Flow[list[Death]]:
    """«Этой ночью погиб(ли) …» in seat order (causes unnamed), or «мирная ночь»."""
    seats = tuple(death.seat for death in deaths)
    if not seats:
        yield Say("alliance.peaceful_night")
        return []
    if len(seats) == 1:
        yield Say("alliance.night_death", {"seat": seats[0]})
    else:
        yield Say("alliance.night_deaths", {"seats": seats})
    batch = yield from fall(table, deaths)
    return batch


def dawn(table: Table, day: int, pending: Sequence[Death]) -> Flow[Outcome | None]:
    """The night's deaths, then the check, badge, hunter and last words (day 1 only)."""
    batch = yield from announce_night(table, pending)
    words: list[Seat] = []
    outcome = yield from aftermath(table, day, batch, words)
    if outcome is not None:
        return outcome
    yield from last_words(table, day, words)
    return None


def fall(table: Table, deaths: Sequence[Death]) -> Flow[list[Death]]:
    """Seats leave the game; a lover still alive follows at once with the same rights."""
    batch: list[Death] = []
    for death in deaths:
        if death.seat not in table.alive:
            continue
        batch.append(death)
        yield from _leave(table, death)
    for death in list(batch):
        partner = table.partner(death.seat)
        if partner is not None and partner in table.alive:
            yield Say("alliance.love_death", {"seat": partner})
            follower = Death(partner, death.phase, LOVE, death.words)
            batch.append(follower)
            yield from _leave(table, follower)
    return batch


def _leave(table: Table, death: Death) -> Flow[None]:
    table.alive.remove(death.seat)
    table.fallen_today.append(death.seat)
    shown = WEREWOLF if death.cause == EXPLODED else None
    yield Eliminate(death.seat, death.phase, death.cause, shown)
    return None


def aftermath(
    table: Table, day: int, batch: Sequence[Death], words: list[Seat], *, pause: bool = True
) -> Flow[Outcome | None]:
    """After a death batch: the win check, the badge, the hunter's pause and shot.

    ``words`` collects the seats that get last words, in order.
    """
    if not batch:
        return None
    outcome = yield from check(table, f"d{day}")
    if outcome is not None:
        return outcome
    if table.sheriff is not None and table.sheriff not in table.alive:
        yield from badge(table, day)
    words.extend(death.seat for death in batch if death.words)
    if not pause:
        return None
    hunter = next(
        (
            death
            for death in batch
            if table.role(death.seat) == HUNTER
            and may_shoot(death.cause, table.sw.hunter_shoots_on_love_death)
        ),
        None,
    )
    yield Say("alliance.ability")
    prompt = (
        hunter_prompt(day, hunter.seat, tuple(table.alive), table.players)
        if hunter is not None
        else no_shot_prompt(day, table.players)
    )
    answer = yield Timer(f"d{day}.ability", table.sw.hunter_s, None, (), prompt=prompt)
    if hunter is None or not isinstance(answer, SeatAnswer):
        return None
    yield Say("alliance.hunter_shot", {"hunter": hunter.seat, "seat": answer.seat})
    shot = yield from fall(table, [Death(answer.seat, f"d{day}", SHOT, hunter.words)])
    outcome = yield from aftermath(table, day, shot, words, pause=False)
    return outcome


def badge(table: Table, day: int) -> Flow[None]:
    """The dead sheriff passes the badge to a living player or destroys it (4.7-2)."""
    sheriff = table.sheriff
    assert sheriff is not None
    yield Say("alliance.badge_call")
    answer = yield Timer(
        f"d{day}.badge",
        table.sw.badge_s,
        sheriff,
        (),
        prompt=badge_prompt(day, sheriff, tuple(table.alive), table.players),
    )
    if isinstance(answer, SeatAnswer):
        table.sheriff = answer.seat
        yield Say("alliance.badge_passed", {"seat": answer.seat})
    else:
        table.sheriff = None
        yield Say("alliance.badge_destroyed")
    return None


def last_words(table: Table, day: int, seats: Sequence[Seat]) -> Flow[None]:
    for seat in seats:
        yield Say("alliance.last_words", {"seat": seat})
        yield Timer(f"d{day}.last_word.{seat}", table.sw.last_words_s, seat)
    return None


def explosion(
    table: Table, day: int, boom: ExplodeAnswer, pending: Sequence[Death] | None
) -> Flow[Outcome | None]:
    """A wolf explodes (4.11): no last words, speeches stop, night follows.

    During an election (``pending`` given) the election is postponed, or the
    badge burns at the second explosion, and the night's announcement follows.
    """
    wolf = boom.wolf
    yield Say("alliance.exploded", {"seat": wolf})
    batch = yield from fall(table, [Death(wolf, f"d{day}", EXPLODED, False)])
    if table.sw.white_wolf_king:
        answer = yield Ask(white_wolf_prompt(day, wolf, tuple(table.alive), table.players))
        if isinstance(answer, SeatAnswer):
            yield Say("alliance.white_wolf_takes", {"seat": answer.seat})
            taken = yield from fall(table, [Death(answer.seat, f"d{day}", WOLVES, False)])
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
    words: list[Seat] = []
    outcome = yield from aftermath(table, day, batch, words)
    if outcome is not None:
        return outcome
    yield from last_words(table, day, words)
    return None


def speeches(table: Table, day: int) -> Flow[ExplodeAnswer | None]:
    """Day speeches in the order of 4.8, the sheriff last; an explosion stops them."""
    sw = table.sw
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
        anchor = table.rng.choice(dead)
        step = table.rng.choice((UP, DOWN))
        order = speaking_order(anchor, step, living, table.players, None)
    else:
        anchor = table.rng.choice(living)
        step = table.rng.choice((UP, DOWN))
        order = speaking_order(anchor, step, living, table.players, None, anchor_speaks_first=True)
    yield Say("alliance.order_up" if step == UP else "alliance.order_down", {"seat": order[0]})
    for seat in order:
        line = "alliance.sheriff_floor" if seat == table.sheriff else "alliance.floor"
        yield Say(line, {"seat": seat})
        speech = yield Timer(
            f"d{day}.speech.{seat}",
            sw.speech_s,
            seat,
            interrupt=_explode(table, day, "speeches", seat, ()),
        )
        if isinstance(speech, ExplodeAnswer):
            return speech
    return None


def exile_votes(
    table: Table, day: int, action: str, voters: Sequence[Seat], choices: Sequence[Seat]
) -> Flow[dict[Seat, Seat | None]]:
    votes: dict[Seat, Seat | None] = {}
    for voter in voters:
        answer = yield Ask(
            choice_vote_prompt(
                f"d{day}.{action}.{voter}",
                voter,
                voters,
                choices,
                table.players,
                outside="living" if action == "vote" else "revote",
                allow_self=table.sw.allow_self_vote,
            )
        )
        votes[voter] = answer.seat if isinstance(answer, SeatAnswer) else None
    return votes


def exile(table: Table, day: int) -> Flow[Outcome | None]:
    """The exile vote with the sheriff's 1.5, a PK on a tie, a peaceful day (4.10)."""
    sw = table.sw
    living = tuple(table.alive)
    yield Say("alliance.vote_call")
    votes = yield from exile_votes(table, day, "vote", living, living)
    top = leaders(exile_tally(votes, table.sheriff))
    if not top:
        yield Say("alliance.no_votes")
        return None
    if len(top) > 1:
        yield Say("alliance.pk", {"seats": top})
        for seat in top:
            yield Say("alliance.pk_floor", {"seat": seat})
            yield Timer(f"d{day}.pk.{seat}", sw.pk_speech_s, seat)
        yield Say("alliance.pk_vote_call", {"seats": top})
        voters = tuple(s for s in living if s not in top)
        votes = yield from exile_votes(table, day, "pk_vote", voters, top)
        tally = {seat: 0.0 for seat in top} | exile_tally(votes, table.sheriff)
        top = top_of(tally)
        if len(top) > 1:
            yield Say("alliance.peaceful_day")
            return None
    exiled = top[0]
    yield Say("alliance.exiled", {"seat": exiled})
    batch = yield from fall(table, [Death(exiled, f"d{day}", EXILED, True)])
    words: list[Seat] = []
    outcome = yield from aftermath(table, day, batch, words)
    if outcome is not None:
        return outcome
    yield from last_words(table, day, words)
    return None


def check(table: Table, phase: str) -> Flow[Outcome | None]:
    """The win check; when it holds, the winner is named and every card revealed."""
    winner = table.winner()
    if winner is None:
        return None
    yield Say(f"alliance.win_{winner}")
    for seat in range(1, table.players + 1):
        yield Say("reveal.seat", {"seat": seat, "role": RoleName(table.role(seat))})
    sheriff = table.sheriff if table.sheriff in table.alive else None
    reveal = {s: table.role(s) for s in range(1, table.players + 1)}
    return Outcome(winner, phase, reveal=reveal, sheriff=sheriff)


# --- the variant -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Alliance:
    name: str = "alliance"
    roles: Mapping[str, Role] = field(default_factory=lambda: ROLES)
    switches: type[Switches] = AllianceSwitches
    seat_counts: range = SEAT_COUNTS

    def composition(self, players: int, switches: Switches) -> Composition:
        if players not in SEAT_COUNTS:
            raise ConfigError(f"alliance is played by 9–12 players, not {players}")
        counts = composition_counts(players, _switches(switches))
        return Composition({role: n for role, n in counts.items() if n})

    def validate_deal(self, deal: Deal, switches: Switches) -> None:
        counts = self.composition(deal.players, switches).counts
        check_deal(self.name, deal, ROLES, counts)

    def new_game(self, deal: Deal, switches: Switches, rng: random.Random) -> Game:
        return Game(self.name, deal, game_script(deal, _switches(switches), rng))


VARIANT = Alliance()
