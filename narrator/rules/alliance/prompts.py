"""Every question of «Альянс дедукции», each with its own legality check
(docs/games/alliance.md §4.4–4.11)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from narrator.rules import phases
from narrator.rules.alliance.roles import UP
from narrator.rules.alliance.roles import WEREWOLF
from narrator.rules.alliance.table import Death
from narrator.rules.alliance.table import Table
from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.answers import YesNo
from narrator.rules.errors import IllegalAction
from narrator.rules.errors import NotNow
from narrator.rules.kit import in_revote
from narrator.rules.kit import not_protected_again
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Rule
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.prompts import dead_seat
from narrator.rules.prompts import forbid
from narrator.rules.prompts import living_only
from narrator.rules.prompts import living_seat_prompt
from narrator.rules.prompts import no_self_vote
from narrator.rules.prompts import not_self
from narrator.rules.prompts import on_seat
from narrator.rules.prompts import remembered
from narrator.rules.prompts import seat_prompt


def cupid_prompt(cupid: Seat, players: int, default: tuple[Seat, Seat]) -> Prompt:
    """Two different seats, Cupid himself allowed (4.4); no answer: ``default``, drawn at random."""

    def check(answer: Answer) -> None:
        if not isinstance(answer, SeatsAnswer):
            return
        seats = answer.seats
        if len(seats) != 2 or None in seats or seats[0] == seats[1]:
            raise forbid("choose two different players", "reason.two_seats")

    pairs = tuple(f"{a} {b}" for a, b in itertools.combinations(range(1, players + 1), 2))
    accepts = frozenset({AnswerKind.SEATS})
    return Prompt(
        Tag(phases.night(1), "cupid"),
        (cupid,),
        accepts,
        players,
        SeatsAnswer(default),
        pairs,
        check,
    )


def guard_prompt(
    night: int, guard: Seat, living: Sequence[Seat], last: Seat | None, players: int
) -> Prompt:
    """Protect a living seat (oneself too) or skip; never last night's seat (4.4)."""
    choices = [s for s in living if s != last]
    rules = (living_only(living), not_protected_again(last))
    return seat_prompt(Tag(phases.night(night), "guard"), (guard,), players, choices, *rules)


def wolves_prompt(
    night: int, wolves: Sequence[Seat], living: Sequence[Seat], players: int
) -> Prompt:
    """One agreed living seat (a wolf too) or an empty knife; no agreement = none."""
    return seat_prompt(
        Tag(phases.night(night), "wolves"), wolves, players, living, living_only(living)
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

    may_save_herself = self_save == "always" or (self_save == "night1" and night == 1)

    def check(answer: Answer) -> None:
        if not (isinstance(answer, YesNo) and answer.yes):
            return
        if not antidote_left:
            raise forbid("the antidote is used up", "reason.antidote_used")
        if victim is None:
            raise forbid("nobody was killed tonight", "reason.no_victim")
        if victim == witch and not may_save_herself:
            raise forbid("the witch cannot save herself tonight", "reason.self_save")

    can_save = antidote_left and victim is not None and (victim != witch or may_save_herself)
    options = ("yes", "no") if can_save else ("no",)
    accepts = frozenset({AnswerKind.YES_NO})
    tag = Tag(phases.night(night), "witch_save")
    return Prompt(tag, (witch,), accepts, players, YesNo(False), options, check)


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

    def potion(seat: Seat) -> None:
        if not poison_left:
            raise forbid("the poison is used up", "reason.poison_used")
        if saved_tonight and not both_same_night:
            raise forbid("one potion per night", "reason.one_potion")

    can_poison = poison_left and not (saved_tonight and not both_same_night)
    targets = [s for s in living if s != witch] if can_poison else []
    rules = (on_seat(potion), not_self(witch), living_only(living))
    return seat_prompt(Tag(phases.night(night), "witch_poison"), (witch,), players, targets, *rules)


def seer_prompt(night: int, seer: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """Check one living player other than oneself; no answer = no check."""
    return living_seat_prompt(Tag(phases.night(night), "seer"), seer, living, players, none=False)


def _not_candidate(seat: Seat) -> IllegalAction:
    return forbid(f"seat {seat} is not a candidate", "reason.not_candidate", seat=seat)


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
            raise _not_candidate(seat) if outside == "candidate" else dead_seat(seat)
        seen.add(seat)


def _hands_prompt(
    tag: Tag,
    seats: Sequence[Seat],
    allowed: Sequence[Seat],
    outside: str,
    players: int,
    *options: str,
) -> Prompt:
    """Raised hands: several different seats of ``allowed``, or none."""

    def check(answer: Answer) -> None:
        _seat_list(answer, allowed, outside)

    accepts = frozenset({AnswerKind.SEATS, AnswerKind.NOBODY})
    return Prompt(tag, tuple(seats), accepts, players, Nobody(), ("none", *options), check)


@remembered
def candidates_prompt(day: int, living: Sequence[Seat], players: int) -> Prompt:
    """The raised hands of «Кто выдвигается в шерифы» (4.6-1); none = no candidate."""
    ordered = sorted(living)
    pairs = (f"{a} {b}" for a, b in itertools.combinations(ordered, 2))
    threes = (" ".join(map(str, ordered[i : i + 3])) for i in range(0, len(ordered) - 2, 2))
    every = " ".join(map(str, ordered))
    tag = Tag(phases.day(day), "candidates")
    return _hands_prompt(
        tag, (), living, "living", players, *map(str, ordered), *pairs, *threes, every
    )


@remembered
def withdraw_prompt(day: int, candidates: Sequence[Seat], players: int) -> Prompt:
    """Candidates who step down before the vote (4.6-4); none = nobody."""
    every = " ".join(map(str, candidates))
    tag = Tag(phases.day(day), "withdraw")
    return _hands_prompt(
        tag, candidates, candidates, "candidate", players, *map(str, candidates), every
    )


def choice_vote_prompt(
    tag: Tag,
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

    def votes_here(answer: Answer) -> None:
        if voter not in voters:
            raise forbid(f"seat {voter} does not vote here", "reason.no_vote", seat=voter)

    def a_candidate(seat: Seat) -> None:
        if seat not in choices:
            raise _not_candidate(seat)

    rules: list[Rule] = [votes_here]
    if not allow_self:
        rules.append(no_self_vote(voter))
    among = {"candidate": on_seat(a_candidate), "revote": in_revote(choices)}
    rules.append(among.get(outside, living_only(choices)))
    targets = [s for s in choices if allow_self or s != voter] if voter in voters else []
    return seat_prompt(tag, (voter,), players, targets, *rules, other="abstain")


def explode_prompt(tag: Tag, speaker: Seat, wolves: Sequence[Seat], players: int) -> Prompt:
    """``W S``: werewolf W explodes during the speech of S (4.11).

    An answer for another speech is NotNow (kept for that speech); W must be a
    living werewolf.  Anyone at the table may type it, so it is a public claim:
    the table says it aloud and judges it only once W confirms in front of
    everybody; the prompt names no seats.
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

    options = tuple(f"{w} {speaker}" for w in wolves)
    accepts = frozenset({AnswerKind.EXPLODE})
    claim = "alliance.explode_claim"  # said aloud; judged once the claimant confirms
    return Prompt(tag, (), accepts, players, Nobody(), options, check, speaker=speaker, claim=claim)


def explode_now(table: Table, tag: Tag, speaker: Seat, pending: Sequence[Death]) -> Prompt:
    """The explosion open during a speech: any living werewolf not dying tonight (4.11)."""
    wolves = table.living_with(WEREWOLF)
    if pending:
        dying = {death.seat for death in pending}
        wolves = tuple([s for s in wolves if s not in dying])
    return explode_prompt(tag, speaker, wolves, table.players)


def badge_prompt(
    day: int, sheriff: Seat, living: Sequence[Seat], players: int, tag: Tag | None = None
) -> Prompt:
    """Pass the badge to a living player or destroy it (4.7-2); ``none`` (keypad 0) destroys."""
    tag = tag or Tag(phases.day(day), "badge")
    return seat_prompt(tag, (sheriff,), players, living, living_only(living), other="destroy")


def hunter_prompt(day: int, hunter: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """The dead hunter's shot: a living player other than himself, or none (4.7-3)."""
    return living_seat_prompt(Tag(phases.day(day), "hunter"), hunter, living, players, none=True)


def _nobody_shoots(seat: Seat) -> None:
    raise forbid("nobody can shoot now", "reason.cannot_shoot")


def no_shot_prompt(day: int, players: int, tag: Tag | None = None) -> Prompt:
    """The same input field when nobody may shoot, so the pause reveals nothing."""
    tag = tag or Tag(phases.day(day), "ability")
    return seat_prompt(tag, (), players, (), on_seat(_nobody_shoots))


def order_prompt(day: int, sheriff: Seat, anchors: Sequence[Seat], players: int) -> Prompt:
    """``S +`` / ``S -``: the sheriff starts the speeches next to himself or a dead player."""

    def check(answer: Answer) -> None:
        if isinstance(answer, OrderAnswer) and answer.anchor not in anchors:
            raise forbid(
                f"start next to the sheriff or a player who died: {', '.join(map(str, anchors))}",
                "reason.order_anchor",
                seat=answer.anchor,
            )

    options = tuple(f"{a} {d}" for a in anchors for d in "+-")
    accepts = frozenset({AnswerKind.ORDER})
    tag = Tag(phases.day(day), "order")
    return Prompt(tag, (sheriff,), accepts, players, OrderAnswer(sheriff, UP), options, check)


def white_wolf_prompt(day: int, wolf: Seat, living: Sequence[Seat], players: int) -> Prompt:
    """``white_wolf_king``: the exploding wolf takes one living player along, or nobody."""
    return living_seat_prompt(Tag(phases.day(day), "white_wolf"), wolf, living, players, none=True)
