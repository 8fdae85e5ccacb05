"""The vocabulary shared by every variant: roles, deals, prompts, table steps, outcomes.

A variant is a generator (its *script*) that yields :data:`Step` values, what
the table must do next, and receives the accepted :data:`Answer` after each
:class:`Ask`.  The scenario runner drives a script instantly; the table host
drives the same script in real time.  Nothing here does I/O.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Generator, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from narrator.rules.answers import Answer, AnswerKind, Nobody, SeatAnswer, parse_answer
from narrator.rules.errors import ConfigError, IllegalAction

Seat = int


@dataclass(frozen=True)
class Role:
    id: str
    team: str
    evil: bool = False  # counts toward "the evil team" when a composition is validated


@dataclass(frozen=True)
class Deal:
    """Who holds which card at the start: ``seats[0]`` is seat 1."""

    seats: tuple[str, ...]
    center: tuple[str, ...] = ()

    @property
    def players(self) -> int:
        return len(self.seats)

    def role_of(self, seat: Seat) -> str:
        return self.seats[seat - 1]

    def seats_with(self, role: str) -> tuple[Seat, ...]:
        return tuple(s for s in range(1, self.players + 1) if self.role_of(s) == role)


@dataclass(frozen=True)
class Composition:
    """How many cards of each role are in the game (players plus centre)."""

    counts: Mapping[str, int]
    center: int = 0

    def deck(self) -> list[str]:
        return [role for role, count in self.counts.items() for _ in range(count)]


class Switches(BaseModel):
    """Rule switches of RULES.md section 5; every variant extends this model."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    roles: str | None = Field(None, description="composition override, e.g. 'vampire=3,witch=1'")


# --- secrets -----------------------------------------------------------------


@dataclass(frozen=True)
class Secret:
    """Hidden information shown on the screen to the seats entitled to it.

    ``kind`` is ``roles`` (card names), ``seats`` (partners, a victim) or
    ``token`` (a yes/no style answer such as ``mafia`` / ``not_mafia``).
    """

    kind: Literal["roles", "seats", "token"]
    values: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        """The scenario contract's one-string form ("werewolf", "seats 1 5")."""
        if self.kind == "seats":
            return " ".join(("seats", *self.values))
        return " ".join(self.values)

    @staticmethod
    def roles(*roles: str) -> Secret:
        return Secret("roles", tuple(roles))

    @staticmethod
    def seats(seats: tuple[Seat, ...]) -> Secret:
        return Secret("seats", tuple(str(s) for s in seats))

    @staticmethod
    def token(token: str) -> Secret:
        return Secret("token", (token,))


# --- prompts -------------------------------------------------------------------


@dataclass(frozen=True)
class Prompt:
    """A question the table must answer, with its own legality check.

    ``seats`` answer it (empty = the whole table, e.g. a hand count).
    ``check`` raises IllegalAction for a parsed answer the rules forbid.
    ``options`` lists every legal answer text (demo players, property tests).
    ``default`` is what an expired window means (RULES.md 0.3).
    """

    id: str
    seats: tuple[Seat, ...]
    accepts: frozenset[AnswerKind]
    seat_count: int
    default: Answer
    options: tuple[str, ...]
    check: Callable[[Answer], None] = field(repr=False, compare=False)
    entries: int = 1  # separate keypad entries that make one answer ("7 7 7": three shooters)
    calls: bool = False  # answered by pressing Space as the window's cues call each seat

    def accept(self, text: str) -> Answer:
        """Parse and check one attempt; raise a NarratorError naming the problem."""
        answer = parse_answer(text, self.accepts, self.seat_count)
        self.check(answer)
        return answer


def forbid(message: str, key: str, **params: object) -> IllegalAction:
    return IllegalAction(message, key, params)


def dead_seat(seat: Seat) -> IllegalAction:
    return forbid(f"seat {seat} is out of the game", "reason.dead", seat=seat)


def check_living_seat(
    answer: Answer, chooser: Seat, living: Collection[Seat], allow_self: bool
) -> None:
    """A seat answer must name a living player, and not the chooser unless allowed."""
    if not isinstance(answer, SeatAnswer):
        return
    if answer.seat == chooser and not allow_self:
        raise forbid("you cannot choose yourself", "reason.self")
    if answer.seat not in living:
        raise dead_seat(answer.seat)


def living_seat_prompt(
    prompt_id: str,
    chooser: Seat,
    living: Collection[Seat],
    players: int,
    *,
    none: bool,
    allow_self: bool = False,
) -> Prompt:
    """One living player (other than the chooser unless allowed); with ``none``, or nobody.

    An expired window means nobody (no check, no shot).
    """
    accepts = {AnswerKind.SEAT, AnswerKind.NOBODY} if none else {AnswerKind.SEAT}
    choices = tuple(str(s) for s in living if allow_self or s != chooser)
    return Prompt(
        id=prompt_id,
        seats=(chooser,),
        accepts=frozenset(accepts),
        seat_count=players,
        default=Nobody(),
        options=(*choices, "none") if none else choices,
        check=lambda answer: check_living_seat(answer, chooser, living, allow_self),
    )


# --- steps of a script ---------------------------------------------------------


@dataclass(frozen=True)
class RoleName:
    """A line parameter that the catalog turns into the role's spoken name."""

    id: str


Param = int | str | tuple[int, ...] | RoleName


@dataclass(frozen=True)
class Say:
    """Speak one catalog line aloud (public). ``dawn`` marks the line that ends a night:
    the knocking bed stops after it."""

    key: str
    params: Mapping[str, Param] = field(default_factory=dict)
    dawn: bool = False


@dataclass(frozen=True)
class Phase:
    """A phase (``n1``, ``d1``) begins."""

    id: str


@dataclass(frozen=True)
class Wake:
    """Open a timed wake window; it always lasts ``seconds`` in full.

    ``seats`` are the players awake in it (possibly none: a card in the centre,
    a dead hidden role). Nothing about ``seats`` may reach the public channel.
    ``cues`` are lines said during the window, one every ``cue_every`` seconds
    from its start (sport mafia's called numbers).
    """

    window: str
    seconds: float
    seats: tuple[Seat, ...]
    cues: tuple[Say, ...] = ()
    cue_every: float = 0.0


@dataclass(frozen=True)
class Ask:
    """Wait for an accepted answer to ``prompt`` (inside a window: until it ends)."""

    prompt: Prompt


@dataclass(frozen=True)
class Show:
    """Show a secret to ``to`` on the screen, inside the current wake window."""

    prompt: str
    to: tuple[Seat, ...]
    secret: Secret


@dataclass(frozen=True)
class Sleep:
    """Close the current wake window after its full length and clear the screen."""


@dataclass(frozen=True)
class DealCard:
    """One seat looks at its card: the screen shows it only on that player's key."""

    prompt: str
    seat: Seat
    secret: Secret


ONE_MINUTE_LEFT = ((60.0, "timer.one_minute"),)


@dataclass(frozen=True)
class Timer:
    """A public timer: a discussion, or the speech of ``seat``; the table may end it early.

    ``warnings`` are (seconds left, line key) said while it runs, when the timer is
    longer than that. A ``prompt`` stays open during the timer (a nomination made
    in one's own speech); its accepted answer is confirmed aloud with the line
    ``confirm`` (parameter ``seat``) and returned when the timer ends.
    ``interrupt`` is a second prompt open meanwhile (a werewolf's self-explosion,
    answered ``"W S"`` with S the speaker); its accepted answer ends the timer at
    once and is returned instead. Its check raises NotNow for an answer meant for
    another speech: the scenario runner keeps that attempt for later.
    """

    id: str
    seconds: float
    seat: Seat | None = None
    warnings: tuple[tuple[float, str], ...] = ONE_MINUTE_LEFT
    prompt: Prompt | None = None
    confirm: str | None = None
    interrupt: Prompt | None = None


@dataclass(frozen=True)
class Eliminate:
    """A seat leaves the game; ``shown_role`` when its card is turned face up."""

    seat: Seat
    phase: str
    cause: str
    shown_role: str | None = None


Step = Say | Phase | Wake | Ask | Show | Sleep | DealCard | Timer | Eliminate


@dataclass(frozen=True)
class Outcome:
    winner: str | None
    ended_at: str
    reveal: Mapping[Seat, str] = field(default_factory=dict)
    sheriff: Seat | None = None


T = TypeVar("T")
Flow = Generator[Step, Answer | None, T]  # a part of a script that returns a T
Script = Flow[Outcome]


# --- views -----------------------------------------------------------------------


@dataclass(frozen=True)
class PublicView:
    """What everybody at the table may know."""

    game: str
    players: int
    phase: str
    alive: tuple[Seat, ...]
    eliminated: tuple[tuple[Seat, str], ...]
    revealed: Mapping[Seat, str]


@dataclass(frozen=True)
class SeatView:
    """What one seat may know: its own dealt card and what it was shown."""

    seat: Seat
    dealt: str
    shown: tuple[Secret, ...]


class Game:
    """One game in progress: its script plus the views of its hidden state."""

    def __init__(self, variant: str, deal: Deal, script: Script) -> None:
        self.variant = variant
        self.deal = deal
        self.script = script
        self.phase = "setup"
        self.eliminated: list[tuple[Seat, str]] = []
        self.revealed: dict[Seat, str] = {}
        self._shown: dict[Seat, list[Secret]] = {s: [] for s in range(1, deal.players + 1)}

    def note(self, step: Step) -> None:
        """Follow the public consequences of a step the driver is carrying out."""
        if isinstance(step, Phase):
            self.phase = step.id
        elif isinstance(step, Eliminate):
            self.eliminated.append((step.seat, step.cause))
            if step.shown_role is not None:
                self.revealed[step.seat] = step.shown_role
        elif isinstance(step, Show | DealCard):
            for seat in step.to if isinstance(step, Show) else (step.seat,):
                self._shown[seat].append(step.secret)

    def finish(self, outcome: Outcome) -> None:
        self.revealed.update(outcome.reveal)

    def public_view(self) -> PublicView:
        gone = {seat for seat, _ in self.eliminated}
        return PublicView(
            game=self.variant,
            players=self.deal.players,
            phase=self.phase,
            alive=tuple(s for s in range(1, self.deal.players + 1) if s not in gone),
            eliminated=tuple(self.eliminated),
            revealed=dict(self.revealed),
        )

    def seat_view(self, seat: Seat) -> SeatView:
        return SeatView(seat, self.deal.role_of(seat), tuple(self._shown[seat]))


def parse_roles(text: str, known: Mapping[str, Role]) -> dict[str, int]:
    """Read a composition override such as ``"vampire=3,witch=1,hunter=1"``."""
    counts: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, eq, number = part.partition("=")
        name = name.strip()
        number = number.strip()
        if not eq or not (number.isascii() and number.isdigit()):
            raise ConfigError(f"roles: {part!r} should look like 'role=count'")
        if name not in known:
            raise ConfigError(f"roles: unknown role {name!r} (known: {', '.join(known)})")
        if name in counts:
            raise ConfigError(f"roles: {name!r} is given twice")
        counts[name] = int(number)
    return counts


def check_deal(
    game: str,
    deal: Deal,
    roles: Mapping[str, Role],
    expected: Mapping[str, int],
    center: int = 0,
) -> None:
    """The deal uses the game's role ids and exactly its composition (SCENARIOS.md).

    Each problem is a ConfigError naming the seat (or centre card) and the role.
    """
    cards = [
        *((f"deal.{seat}", role) for seat, role in enumerate(deal.seats, start=1)),
        *((f"deal.center[{i}]", role) for i, role in enumerate(deal.center, start=1)),
    ]
    for where, role in cards:
        if role not in roles:
            raise ConfigError(f"{where}: unknown role {role!r} ({game} roles: {', '.join(roles)})")
    if len(deal.center) != center:
        if not center:
            raise ConfigError(f"deal.center: {game} has no centre cards")
        raise ConfigError(
            f"deal.center: {len(deal.center)} cards, the game has {center} centre cards"
        )
    dealt = Counter(role for _, role in cards)
    for role in roles:
        if dealt[role] != expected.get(role, 0):
            seats = ", ".join(str(s) for s in deal.seats_with(role)) or "none"
            centre = " + centre" if role in deal.center else ""
            raise ConfigError(
                f"deal: {dealt[role]} {role!r} card(s) (seats {seats}{centre}); the deal for "
                f"{deal.players} players has {expected.get(role, 0)}"
            )


def shuffled_deal(composition: Composition, players: int, rng: random.Random) -> Deal:
    deck = composition.deck()
    rng.shuffle(deck)
    return Deal(tuple(deck[:players]), tuple(deck[players:]))
