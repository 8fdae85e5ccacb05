"""What the table knows in public, and what each seat knows on its own.

:class:`Board` is the public record as everybody at the table lives it: who is
still playing, the cards turned face up, the sheriff, the votes of the round,
the lines said aloud, and the claims made in the talk (a checker announcing what
he found). :class:`Mind` is one seat's own knowledge: its card, the partners it
saw at night, its checks, its own night answers. A seat's decisions read its own
mind and the board, nothing else: a mind is filled only with what its seat was
dealt, shown or did (narrator.simulate.driver tells each seat only its own).

Claims are the talk of the table, which the rules do not model: a good checker
announces his findings truthfully; a werewolf (or a vampire, or a black player)
accused by one answers with a counter-claim of the same role, accusing him back.
Whom to believe is then each seat's own judgement (:meth:`Mind.beliefs`): a card
turned face up settles it, so does a claimant killed at night (the evil team kills
the checker who exposes it, never its own liar); else the first claim is likelier
believed than the answer to it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

from narrator.rules.core import Param
from narrator.rules.phases import SETUP
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Seat

# How often a seat believes the first of two claims of one role it cannot tell apart: a
# claim made unprompted is likelier true than one made in answer to an accusation.
FIRST_CLAIM_TRUST = 0.75


@dataclass(frozen=True)
class Claim:
    """A public claim: ``seat`` says it holds ``role`` and found ``verdicts`` (True: evil)."""

    seat: Seat
    role: str
    verdicts: Mapping[Seat, bool]
    phase: PhaseId


@dataclass
class Board:
    """The public record of one table."""

    players: int
    counts: Mapping[str, int]  # the composition: announced (or standard) at every table
    phase: PhaseId = SETUP
    alive: set[Seat] = field(default_factory=set)
    face_up: dict[Seat, str] = field(default_factory=dict)  # cards shown at elimination
    claims: list[Claim] = field(default_factory=list)
    sheriff: Seat | None = None
    martyrs: set[Seat] = field(default_factory=set)  # claimants the night killed
    said: dict[str, Mapping[str, Param]] = field(default_factory=dict)  # the last of each line
    round: tuple[PhaseId, str] = (SETUP, "")  # the vote being cast now: (phase, action)
    tally: Counter[Seat] = field(default_factory=Counter)  # its votes so far

    def __post_init__(self) -> None:
        self.alive = set(range(1, self.players + 1))

    def vote(self, phase: PhaseId, action: str, target: Seat | None) -> None:
        """A vote cast in public, in turn (a new round starts with a new action)."""
        if self.round != (phase, action):
            self.round, self.tally = (phase, action), Counter()
        if target is not None:
            self.tally[target] += 1

    def leader(self, phase: PhaseId, action: str, among: Iterable[Seat]) -> Seat | None:
        """The seat of ``among`` with the most votes so far in this round (None: no votes)."""
        if self.round != (phase, action):
            return None
        best = max(((self.tally[s], -s) for s in among if self.tally[s] > 0), default=None)
        return -best[1] if best is not None else None

    def claimants(self, role: str) -> list[Seat]:
        """The seats that claimed ``role``, in the order they first did."""
        seats: list[Seat] = []
        for claim in self.claims:
            if claim.role == role and claim.seat not in seats:
                seats.append(claim.seat)
        return seats

    def verdicts(self, seat: Seat, role: str) -> dict[Seat, bool]:
        """Everything ``seat`` said it found as ``role``, the latest word on each seat last."""
        found: dict[Seat, bool] = {}
        for claim in self.claims:
            if claim.seat == seat and claim.role == role:
                found.update(claim.verdicts)
        return found


@dataclass(frozen=True)
class Beliefs:
    """Whom a seat takes for evil and for good (itself excluded from neither)."""

    evil: frozenset[Seat]
    good: frozenset[Seat]
    trusted: frozenset[Seat]  # the claimants it believes


@dataclass
class Mind:
    """One seat's own knowledge."""

    seat: Seat
    rng: random.Random
    card: str | None = None  # as dealt (onenight: the card may move at night)
    evil_side: bool = False  # plays for the evil team (from its card)
    partners: set[Seat] = field(default_factory=set)  # evil seats it saw at night
    evil: set[Seat] = field(default_factory=set)  # seats it knows are evil
    good: set[Seat] = field(default_factory=set)  # seats it knows are good
    checks: dict[Seat, bool] = field(default_factory=dict)  # its own checks: True evil
    roles: dict[Seat, str] = field(default_factory=dict)  # cards it knows (seen, or told)
    own: dict[str, object] = field(default_factory=dict)  # its last night answer per action
    said: set[tuple[Seat, bool]] = field(default_factory=set)  # verdicts it announced
    trust: dict[tuple[Seat, ...], Seat] = field(default_factory=dict)  # its pick between claims

    def knows_evil(self, seat: Seat) -> bool:
        return seat in self.evil or seat in self.partners

    def beliefs(self, board: Board, checkers: tuple[str, ...]) -> Beliefs:
        """Whom this seat takes for evil and good, from what it knows and the claims of
        ``checkers`` (the roles that find things out and announce them, e.g. the hunter)."""
        evil = set(self.evil) | self.partners
        good = set(self.good)
        trusted: set[Seat] = set()
        if self.evil_side:
            return Beliefs(frozenset(evil), frozenset(good), frozenset())
        good.add(self.seat)
        for checker in checkers:
            liars, believed = self._judge(board, checker, good, evil)
            evil |= liars
            for claimant in believed:
                trusted.add(claimant)
                good.add(claimant)
                for seat, is_evil in board.verdicts(claimant, checker).items():
                    (evil if is_evil else good).add(seat)
        good -= evil
        return Beliefs(frozenset(evil), frozenset(good), frozenset(trusted))

    def _judge(
        self, board: Board, role: str, good: set[Seat], evil: set[Seat]
    ) -> tuple[set[Seat], list[Seat]]:
        """The claimants of ``role`` this seat takes for liars, and those it believes.

        A claimant is a liar when a card turned face up says otherwise, when this seat
        holds the role itself, or when it knows him evil; of the rest, one is believed
        when the role is single (another claimant must lie), else all of them.
        """
        claimants = board.claimants(role)
        if not claimants:
            return set(), []
        holders = [s for s, card in board.face_up.items() if card == role]
        single = board.counts.get(role, 0) <= 1

        def lies(seat: Seat) -> bool:
            shown = board.face_up.get(seat)
            if shown is not None:
                return shown != role
            if seat in evil or (self.card == role and seat != self.seat):
                return True
            return single and bool(holders)

        liars = {s for s in claimants if lies(s)}
        honest = [s for s in claimants if s not in liars]
        if len(honest) <= 1 or not single:
            return liars, honest
        known = [s for s in honest if s in good or s in board.martyrs]
        chosen = known[0] if known else self._pick(tuple(honest))
        return liars | {s for s in honest if s != chosen}, [chosen]

    def _pick(self, claimants: tuple[Seat, ...]) -> Seat:
        """Whom to believe between claims this seat cannot tell apart: the first one
        more often (he spoke unprompted; a later one answers an accusation), by its own
        coin, tossed once for these claimants (it does not change its mind)."""
        if claimants not in self.trust:
            first = self.rng.random() < FIRST_CLAIM_TRUST
            self.trust[claimants] = claimants[0] if first else self.rng.choice(claimants[1:])
        return self.trust[claimants]
