"""The ``informed`` players: every seat acts on what it could know, and on nothing else.

:class:`InformedPlayers` is told each step as the seats live it (the driver's
:class:`~narrator.simulate.driver.Players` methods) and keeps one public
:class:`~narrator.simulate.informed.knowledge.Board` and one private
:class:`~narrator.simulate.informed.knowledge.Mind` per seat. A decision for a
prompt reads the board and the minds of the seats that answer it: one seat's,
or the evil team's together for their night choice (they are awake together and
agree on it), or each living seat's own for a whole-table count of hands.

:class:`Strategy` is what the four games share: checkers announce what they
found and the accused answer with counter-claims (the talk of a public timer),
voters vote for whom they take for evil, else follow the public vote, the evil
team votes together for the checker who exposes it, else for the leader. Each
game's strategy adds its own night (``narrator.simulate.informed.<game>``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import ClassVar

from narrator.rules.answers import Abstain
from narrator.rules.answers import Answer
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Eliminate
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Timer
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.simulate.informed.knowledge import Beliefs
from narrator.simulate.informed.knowledge import Board
from narrator.simulate.informed.knowledge import Claim
from narrator.simulate.informed.knowledge import Mind


def seats_of(prompt: Prompt) -> list[Seat]:
    """The seats a prompt lists as answers (its options that are one seat number)."""
    return [int(option) for option in prompt.options if option.isdigit()]


class Strategy:
    """How the seats of one game decide; a game's strategy fills in its own prompts.

    ``checker``: the role that checks at night and announces by day; ``evil``: the
    cards of the evil team; ``team_windows``: the night windows in which the evil
    team is awake together (so each sees the others). ``decisions`` maps a
    prompt's action to the method answering it; any other prompt gets a random
    legal answer.
    """

    checker: ClassVar[str | None] = None
    witnesses: ClassVar[tuple[str, ...]] = ()  # other roles whose claims count (onenight)
    evil: ClassVar[frozenset[str]] = frozenset()
    team_windows: ClassVar[frozenset[str]] = frozenset()
    decisions: ClassVar[Mapping[str, str]] = {}  # a prompt's action -> the method answering it
    sequential_votes: ClassVar[bool] = True  # votes are cast in turn, in public

    def __init__(self, board: Board, minds: Mapping[Seat, Mind], rng: random.Random) -> None:
        self.board = board
        self.minds = minds
        self.rng = rng
        self.team: dict[object, Seat | None] = {}  # the evil team's agreed choices
        self.countered: set[Seat] = set()  # accusers the evil team has answered

    # --- what the seats are told ----------------------------------------------------------

    def on_shown(self, mind: Mind, tag: Tag, secret: Secret) -> None:
        """A secret shown to ``mind``'s seat (its check's verdict, its partners…)."""

    def learn_check(self, mind: Mind, action: str, evil: bool) -> None:
        """The verdict of ``mind``'s own night check (its answer to ``action``)."""
        checked = mind.own.get(action)
        if isinstance(checked, SeatAnswer):
            mind.checks[checked.seat] = evil
            (mind.evil if evil else mind.good).add(checked.seat)

    def on_public(self, prompt: Prompt, answer: Answer) -> None:
        """An answer given in public (a vote cast aloud, a nomination)."""
        if isinstance(answer, SeatAnswer | Abstain):
            target = answer.seat if isinstance(answer, SeatAnswer) else None
            self.board.vote(prompt.tag.phase, prompt.tag.action, target)

    night_kills: ClassVar[frozenset[str]] = frozenset()  # the evil team's night kill

    def on_eliminated(self, step: Eliminate) -> None:
        """A seat left the game (its card face up if ``shown_role``); a checker killed
        at night by the evil team was the real one."""
        checker = self.checker
        if (
            step.cause in self.night_kills
            and checker
            and step.seat in self.board.claimants(checker)
        ):
            self.board.martyrs.add(step.seat)

    def on_said(self, step: Say) -> None:
        """A line said aloud."""

    # --- deciding -------------------------------------------------------------------------

    def decide(self, prompt: Prompt) -> str | None:
        action = prompt.tag.action
        name = self.decisions.get(action) or self.decisions.get(action.rstrip("_0123456789"))
        if name is None:
            return self.any_option(prompt)
        decision: Callable[[Prompt], str | None] = getattr(self, name)
        return decision(prompt)

    def nothing(self, prompt: Prompt) -> str | None:
        """No answer: the window expires (the default)."""
        return None

    def nobody(self, prompt: Prompt) -> str | None:
        return "none"

    def any_option(self, prompt: Prompt) -> str | None:
        return self.rng.choice(prompt.options) if prompt.options else None

    def mind(self, prompt: Prompt) -> Mind:
        """The one seat that answers ``prompt``."""
        return self.minds[prompt.seats[0]]

    def beliefs(self, mind: Mind) -> Beliefs:
        checkers = (*(() if self.checker is None else (self.checker,)), *self.witnesses)
        return mind.beliefs(self.board, checkers)

    def partners(self, minds: Iterable[Mind]) -> set[Seat]:
        """The evil seats a group of evil players knows (themselves included)."""
        known: set[Seat] = set()
        for mind in minds:
            known |= mind.partners | {mind.seat}
        return known

    def exposers(self, evil: set[Seat]) -> list[Seat]:
        """Living claimants of the checking role outside the evil team: the real checker
        as the evil team knows (its own claims are the only false ones), newest last."""
        if self.checker is None:
            return []
        return [s for s in self.board.claimants(self.checker) if s not in evil and self.alive(s)]

    def alive(self, seat: Seat) -> bool:
        return seat in self.board.alive

    def agreed(self, key: object, choices: Sequence[Seat]) -> Seat | None:
        """The evil team's one choice for ``key`` (agreed at night, kept by all of them)."""
        if key not in self.team or self.team[key] not in choices:
            self.team[key] = self.rng.choice(choices) if choices else None
        return self.team[key]

    def victim(
        self, prompt: Prompt, choices: Sequence[Seat], key: str, preferred: Iterable[Seat] = ()
    ) -> Seat | None:
        """The evil team's one night victim among ``choices`` outside the team: the
        newest claimant who exposes it, else the first of ``preferred``, else the one
        it agrees on for ``key`` this night."""
        team = self.partners(self.minds[seat] for seat in prompt.seats)
        targets = [s for s in choices if s not in team]
        for seat in [*reversed(self.exposers(team)), *preferred]:
            if seat in targets:
                return seat
        return self.agreed((prompt.tag.phase, key), targets)

    def vote_for(self, mind: Mind, prompt: Prompt, choices: Sequence[Seat]) -> Seat | None:
        """The seat ``mind`` votes for among ``choices`` (None: abstain).

        Evil: the checker who exposes the team, else it blends in: the public leader
        outside the team, else a random seat outside it. Good: whom it takes for evil,
        else the public leader (unless taken for good), else a random seat it does not
        take for good.
        """
        tag = prompt.tag
        others = [s for s in choices if s != mind.seat]
        if mind.evil_side:
            team = self.partners([mind])
            targets = [s for s in others if s not in team]
            for seat in reversed(self.exposers(team)):
                if seat in targets:
                    return seat
            pool = targets
        else:
            beliefs = self.beliefs(mind)
            suspects = [s for s in others if s in beliefs.evil]
            if suspects:
                leader = self.board.leader(tag.phase, tag.action, suspects)
                return leader if leader is not None else suspects[0]
            pool = [s for s in others if s not in beliefs.good]
        leader = self.board.leader(tag.phase, tag.action, pool)
        if self.sequential_votes and leader is not None:
            return leader
        return mind.rng.choice(pool) if pool else None

    def vote(self, prompt: Prompt) -> str | None:
        """A vote of one seat: a seat option, or abstain if it has one."""
        choices = seats_of(prompt)
        seat = self.vote_for(self.mind(prompt), prompt, choices)
        if seat is None:
            return "abstain" if "abstain" in prompt.options else None
        return str(seat)

    def check(self, prompt: Prompt) -> str | None:
        """A night check: a seat not checked yet and not known, else any seat."""
        mind = self.mind(prompt)
        choices = seats_of(prompt)
        beliefs = self.beliefs(mind)
        fresh = [
            s
            for s in choices
            if s not in mind.checks and s not in beliefs.good and s not in mind.partners
        ]
        pool = fresh or [s for s in choices if s not in mind.partners] or choices
        return str(mind.rng.choice(pool)) if pool else None

    # --- talking --------------------------------------------------------------------------

    def talk(self, timer: Timer, alive: tuple[Seat, ...]) -> None:
        """The talk of a public timer: a speech (its speaker) or a discussion (everybody).

        Checkers announce first, then the accused answer.
        """
        speakers = (timer.seat,) if timer.seat is not None else alive
        if timer.tag.by_night:
            return  # a silence at night: nobody talks
        for seat in speakers:
            self.announce(self.minds[seat], timer)
        for seat in speakers:
            self.counter(self.minds[seat])

    def announce(self, mind: Mind, timer: Timer) -> None:
        """A good checker announces his checks once he has found the evil team (or
        when ``wants_to_announce`` says so), again whenever he found more."""
        if self.checker is None or mind.card != self.checker or mind.evil_side:
            return
        new = {(seat, evil) for seat, evil in mind.checks.items()} - mind.said
        if not new or not self.wants_to_announce(mind, timer):
            return
        mind.said |= new
        self.board.claims.append(Claim(mind.seat, self.checker, dict(mind.checks), timer.tag.phase))

    def wants_to_announce(self, mind: Mind, timer: Timer) -> bool:
        """By default: once a check found somebody evil."""
        return any(mind.checks.values())

    def counter(self, mind: Mind) -> None:
        """An evil seat accused by a claimant outside its team claims the same role and
        accuses him back (once per accuser, by one member of the team)."""
        if self.checker is None or not mind.evil_side or not self.alive(mind.seat):
            return
        team = self.partners([mind])
        for accuser in self.exposers(team):
            if accuser in self.countered:
                continue
            accused = [s for s, evil in self.board.verdicts(accuser, self.checker).items() if evil]
            if any(s in team for s in accused):
                self.countered.add(accuser)
                verdicts = {accuser: True}
                self.board.claims.append(Claim(mind.seat, self.checker, verdicts, self.board.phase))


class InformedPlayers:
    """The players of one table under the ``informed`` policy (see the module)."""

    watching = True

    def __init__(
        self, strategy: type[Strategy], players: int, counts: Mapping[str, int], rng: random.Random
    ) -> None:
        self.board = Board(players, counts)
        self.minds = {
            seat: Mind(seat, random.Random(rng.getrandbits(64))) for seat in range(1, players + 1)
        }
        self.strategy = strategy(self.board, self.minds, rng)

    def answer(self, prompt: Prompt, alive: tuple[Seat, ...]) -> str | None:
        return self.strategy.decide(prompt)

    def interrupt(self, timer: Timer, alive: tuple[Seat, ...]) -> str | None:
        """Nobody explodes: it only ends a day early, for a werewolf who dies anyway."""
        return None

    def talk(self, timer: Timer, alive: tuple[Seat, ...]) -> None:
        self.strategy.talk(timer, alive)

    def phase(self, phase: PhaseId) -> None:
        self.board.phase = phase

    def said(self, step: Say) -> None:
        self.board.said[step.key] = step.params
        self.strategy.on_said(step)

    def eliminated(self, step: Eliminate) -> None:
        self.board.alive.discard(step.seat)
        if step.shown_role is not None:
            self.board.face_up[step.seat] = step.shown_role
        self.strategy.on_eliminated(step)

    def badge(self, seat: Seat | None) -> None:
        self.board.sheriff = seat

    def dealt(self, seat: Seat, card: str) -> None:
        mind = self.minds[seat]
        mind.card = card
        mind.evil_side = card in self.strategy.evil

    def awake(self, tag: Tag, seats: tuple[Seat, ...]) -> None:
        """Awake together in a window of the evil team: each sees the others."""
        if tag.action in self.strategy.team_windows:
            for seat in seats:
                self.minds[seat].partners |= set(seats) - {seat}

    def shown(self, tag: Tag, to: tuple[Seat, ...], secret: Secret) -> None:
        for seat in to:
            self.strategy.on_shown(self.minds[seat], tag, secret)

    def answered(self, prompt: Prompt, answer: Answer) -> None:
        """A night answer is known to the seats that gave it; a day answer to all."""
        if prompt.tag.by_night:
            for seat in prompt.seats:
                self.minds[seat].own[prompt.tag.action] = answer
        else:
            self.strategy.on_public(prompt, answer)
