"""The variant kit: what every game does the same way, written once.

A variant is its roles, its switches and its script; the rest comes from here.
:class:`Rules` is the registry's face of a game (python-chess style: a variant
overrides two hooks, :meth:`Rules.counts` and :meth:`Rules.script`, and its
script receives its own switches model).  The pieces a script is built from:

* dealing and revealing: :func:`deal_cards`, :func:`reveal`;
* walking round the table: :func:`around`, :func:`first_in_turn`;
* calling a role the same way whether its holder is alive, dead or absent:
  :func:`called`, :meth:`Table.called`, with :func:`window` for the wake line,
  the window, what happens in it (:func:`ask`, :func:`checks`, :func:`steps`),
  its close and the sleep line;
* the ``roles`` switch: :func:`override_counts`.

Seat choices (one living seat, or none / abstain / destroy) are built with
:func:`~narrator.rules.prompts.seat_prompt` and its rules in the core.
"""

from __future__ import annotations

import random
from abc import ABC
from abc import abstractmethod
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Generic
from typing import TypeVar

from narrator.rules import core
from narrator.rules import prompts
from narrator.rules.answers import Answer
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Flow
from narrator.rules.core import Script
from narrator.rules.core import Switches
from narrator.rules.errors import ConfigError
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Rule
from narrator.rules.prompts import Seat
from narrator.rules.registry import check_players

S = TypeVar("S", bound=Switches)
T = TypeVar("T")


def teams(evil: str, **members: Sequence[str]) -> dict[str, core.Role]:
    """The roles of a game, team by team in order: ``teams("black", red=(...), black=(...))``.

    The ``evil`` team is the one a ``roles`` override must keep smaller than the rest.
    """
    return {
        role: core.Role(role, team, evil=team == evil)
        for team, roles in members.items()
        for role in roles
    }


def switches_of(switches: Switches, kind: type[S]) -> S:
    """The switches as the game's own model (the registry validated them with it)."""
    if not isinstance(switches, kind):
        raise TypeError(f"{kind.__name__} expected, not {type(switches).__name__}")
    return switches


@dataclass(frozen=True)
class Rules(ABC, Generic[S]):
    """A game family as the registry knows it (:class:`~narrator.rules.registry.Variant`)."""

    name: str
    roles: Mapping[str, core.Role]
    switches: type[S]
    seat_counts: range

    @abstractmethod
    def counts(self, players: int, sw: S) -> core.Composition:
        """The cards for ``players`` seats (a supported count), ``roles`` switch applied."""

    @abstractmethod
    def script(self, deal: core.Deal, sw: S, rng: random.Random) -> Script:
        """The whole game as the table lives it; ``rng`` is its only chance (the driver
        draws the script's Chance steps from it, see narrator.rules.chance)."""

    def composition(self, players: int, switches: Switches) -> core.Composition:
        check_players(self, players)
        return self.counts(players, switches_of(switches, self.switches))

    def validate_deal(self, deal: core.Deal, switches: Switches) -> None:
        composition = self.composition(deal.players, switches)
        core.check_deal(self.name, deal, self.roles, composition.counts, composition.center)

    def new_game(self, deal: core.Deal, switches: Switches, rng: random.Random) -> core.Game:
        script = self.script(deal, switches_of(switches, self.switches), rng)
        return core.Game(self.name, deal, script, rng)


def override_counts(
    counts: Mapping[str, int],
    text: str | None,
    roles: Mapping[str, core.Role],
    *,
    rest: str,
    singles: Collection[str],
    players: int,
    center: int = 0,
    rest_named: bool = True,
) -> dict[str, int]:
    """``counts`` with the ``roles`` switch (``"vampire=3,witch=1"``) applied and checked.

    docs/scenarios.md: an override keeps at least one card of the evil team and the
    evil team smaller than the rest.  ``rest`` is the plain role that fills the
    deck; each of ``singles`` has one card at most.  Naming the rest's count too
    (when ``rest_named``) means the counts must fill the deck exactly.
    """
    result = dict(counts)
    if text is None:
        return result
    override = core.parse_roles(text, roles)
    result.update(override)
    for single in singles:
        if result[single] > 1:
            raise ConfigError(f"roles: at most one {single}")
    evil = [role for role in result if roles[role].evil]
    if sum(result[role] for role in evil) < 1:
        raise ConfigError(f"roles: the game needs at least one {' or '.join(evil)}")
    cards = players + center
    deck = f"a deck of {cards} ({players} players + {center} in the centre)"
    if not center:
        deck = f"{players} players"
    if rest in override and not rest_named:
        raise ConfigError(f"roles: {rest!r} fills the rest of the deck; leave it out")
    if rest in override and sum(result.values()) != cards:
        raise ConfigError(
            f"roles: {sum(result.values())} cards for {deck}; leave {rest!r} out to fill the rest"
        )
    others = sum(count for role, count in result.items() if role != rest)
    if others > cards:
        raise ConfigError(f"roles: {others} cards do not fit {deck}")
    result[rest] = cards - others
    bad = sum(result[role] for role in evil)
    if bad >= cards - bad:
        raise ConfigError(
            f"roles: {bad} {' / '.join(evil)} cards of {cards}: "
            "the evil team must be fewer than the others"
        )
    return result


# --- the table -----------------------------------------------------------------------------


def around(start: Seat, step: int, among: Iterable[Seat], players: int) -> tuple[Seat, ...]:
    """The seats of ``among`` going round the table from ``start`` (included) by ``step``."""
    chosen = set(among)
    order = ((start - 1 + step * i) % players + 1 for i in range(players))
    return tuple(seat for seat in order if seat in chosen)


def first_in_turn(previous: Seat | None, living: Collection[Seat], players: int) -> Seat:
    """Who opens today's round: the lowest living seat the first time, then the next
    living seat clockwise after the previous day's first (who may have left since)."""
    if not living:
        raise ValueError("nobody is alive")
    start = 1 if previous is None else previous % players + 1
    return around(start, 1, living, players)[0]


def called(
    role: str, cards: Sequence[str], alive: Collection[Seat], call_dead: bool
) -> tuple[Seat, ...] | None:
    """Who wakes when ``role`` is called: its living holders; None when it is not called.

    A role dealt to nobody is never called.  Once its holders are dead it is still
    called, with the same words and a window nobody answers, when ``call_dead``.
    """
    holders = [seat for seat, card in enumerate(cards, start=1) if card == role]
    awake = tuple(seat for seat in holders if seat in alive)
    if not holders or not (awake or call_dead):
        return None
    return awake


@dataclass
class Table(Generic[S]):
    """The cards of one game (hidden) and who is still playing (public)."""

    roles: tuple[str, ...]
    sw: S
    alive: list[Seat] = field(init=False)

    def __post_init__(self) -> None:
        self.alive = list(range(1, self.players + 1))

    @property
    def players(self) -> int:
        return len(self.roles)

    def role(self, seat: Seat) -> str:
        return self.roles[seat - 1]

    def seats_with(self, *roles: str) -> tuple[Seat, ...]:
        cards = self.roles
        return tuple([s for s in range(1, len(cards) + 1) if cards[s - 1] in roles])

    def living_with(self, *roles: str) -> tuple[Seat, ...]:
        cards = self.roles
        return tuple([s for s in self.alive if cards[s - 1] in roles])

    def called(self, role: str, call_dead: bool) -> tuple[Seat, ...] | None:
        return called(role, self.roles, self.alive, call_dead)


# --- rules of seat choices ------------------------------------------------------------------


def not_protected_again(last: Seat | None, advice: str = "") -> Rule:
    """Not the seat protected last night (a protector never protects one seat twice running)."""

    def test(seat: Seat) -> None:
        if seat == last:
            raise prompts.forbid(
                f"seat {seat} was protected last night{advice}",
                "reason.repeat_protection",
                seat=seat,
            )

    return prompts.on_seat(test)


def in_revote(candidates: Collection[Seat]) -> Rule:
    """One of the tied players a revote is between."""

    def test(seat: Seat) -> None:
        if seat not in candidates:
            listed = ", ".join(map(str, candidates))
            raise prompts.forbid(
                f"seat {seat} is not in the revote: choose one of {listed}",
                "reason.not_in_revote",
                seat=seat,
                seats=listed,
            )

    return prompts.on_seat(test)


# --- flows ---------------------------------------------------------------------------------


def steps(*items: core.Step) -> Flow[None]:
    """A few fixed steps as a flow (what happens in a window that asks nothing)."""
    yield from items
    return None


def ask(prompt: Prompt) -> Flow[Answer | None]:
    """One question as a flow: the accepted answer."""
    answer = yield core.Ask(prompt)
    return answer


def window(wake: str | Sequence[str], step: core.Wake, sleep: str, body: Flow[T]) -> Flow[T]:
    """A wake window: the wake line(s), the window, ``body`` in it, its close, the sleep line."""
    for line in (wake,) if isinstance(wake, str) else wake:
        yield core.Say(line)
    yield step
    result = yield from body
    yield _SLEEP
    yield core.Say(sleep)
    return result


_SLEEP = core.Sleep()  # it has no fields: one for every window


def checks(
    tag: prompts.Tag,
    awake: Iterable[Seat],
    prompt: Callable[[Seat], Prompt],
    verdict: Callable[[Seat], core.Secret],
) -> Flow[None]:
    """Each awake checker names a seat and alone sees the verdict on it."""
    for checker in awake:
        answer = yield core.Ask(prompt(checker))
        if isinstance(answer, SeatAnswer):
            yield core.Show(tag, (checker,), verdict(answer.seat))
    return None


def role_call(
    lines: tuple[str, str],
    tag: prompts.Tag,
    seconds: float,
    awake: tuple[Seat, ...] | None,
    body: Callable[[tuple[Seat, ...]], Flow[T]],
    decoy: core.Decoy | None = None,
) -> Flow[T | None]:
    """A role's :func:`window` (lines: its wake and sleep lines) with ``body`` for the
    awake in it, ``decoy`` when nobody is; with ``awake`` None (see :func:`called`),
    no call at all and None."""
    if awake is None:
        return None
    step = core.Wake(tag, seconds, awake, decoy=decoy)
    return (yield from window(lines[0], step, lines[1], body(awake)))


def check_call(
    lines: tuple[str, str],
    tag: prompts.Tag,
    seconds: float,
    awake: tuple[Seat, ...] | None,
    *,
    prompt: Callable[[Seat], Prompt],
    verdict: Callable[[Seat], str],
    verdicts: Iterable[str],
) -> Flow[None]:
    """A checking role's window (lines: its wake and sleep lines): each awake checker
    names a seat and alone sees its ``verdict``. With nobody awake, the decoy asks the
    same of nobody and shows one of ``verdicts``; with ``awake`` None, no call at all."""
    shows = tuple(core.Secret.token(each) for each in verdicts)
    yield from role_call(
        lines,
        tag,
        seconds,
        awake,
        lambda checkers: checks(tag, checkers, prompt, lambda s: core.Secret.token(verdict(s))),
        core.decoy(prompt(core.NO_SEAT), shows=shows),
    )
    return None


def deal_cards(
    cards: Sequence[str],
    call: str = "deal.call",
    start: str | None = "deal.start",
    done: str | None = "deal.done",
) -> Flow[None]:
    """Seat by seat, each player is called and looks at the card on the screen."""
    if start is not None:
        yield core.Say(start)
    for seat, card in enumerate(cards, start=1):
        yield core.Say(call, {"seat": seat})
        yield core.DealCard(seat, core.Secret.roles(card))
    if done is not None:
        yield core.Say(done)
    return None


def reveal(
    cards: Sequence[str],
    winner: str,
    phase: PhaseId,
    center: Sequence[str] = (),
    sheriff: Seat | None = None,
) -> Script:
    """Every card face up, seat by seat and then the centre; the game's Outcome."""
    for seat, card in enumerate(cards, start=1):
        yield core.Say("reveal.seat", {"seat": seat, "role": core.RoleName(card)})
    for index, card in enumerate(center, start=1):
        yield core.Say("reveal.center", {"index": index, "role": core.RoleName(card)})
    return core.Outcome(winner, phase, reveal=dict(enumerate(cards, start=1)), sheriff=sheriff)
