"""The vocabulary shared by every variant: roles, deals, prompts, table steps, outcomes.

A variant is a generator (its *script*) that yields :data:`Step` values, what
the table must do next, and receives the accepted :data:`Answer` after each
:class:`Ask`.  The scenario runner drives a script instantly; the table host
drives the same script in real time.  Nothing here does I/O.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from collections.abc import Generator
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Annotated
from typing import Literal
from typing import TypeVar

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field

from narrator.rules.answers import Answer
from narrator.rules.chance import Chance
from narrator.rules.errors import ConfigError
from narrator.rules.frozen import quick_init
from narrator.rules.phases import SETUP
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag


@quick_init
@dataclass(frozen=True)
class Role:
    id: str
    team: str
    evil: bool = False  # counts toward "the evil team" when a composition is validated


@quick_init
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
        return tuple([s for s, card in enumerate(self.seats, start=1) if card == role])


@quick_init
@dataclass(frozen=True)
class Composition:
    """How many cards of each role are in the game (players plus centre)."""

    counts: Mapping[str, int]
    center: int = 0

    def deck(self) -> list[str]:
        return [role for role, count in self.counts.items() for _ in range(count)]


class Switches(BaseModel):
    """Rule switches of docs/rules.md §5; every variant extends this model."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    roles: str | None = Field(
        None,
        description="composition override, role=count pairs: see the game's page "
        "(sport_mafia refuses it: its composition is fixed)",
    )


@dataclass(frozen=True)
class Unit:
    """What a number counts: a switch or a setting marked with it says so after its range."""

    words: str


SECONDS = Unit("seconds")
Seconds = Annotated[float, SECONDS]  # a length of time: a window, a speech, a pause
MaybeSeconds = Annotated[float | None, SECONDS]  # ... or none given (the game's own)


# --- secrets -----------------------------------------------------------------


@quick_init
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


# --- steps of a script ---------------------------------------------------------


@quick_init
@dataclass(frozen=True)
class RoleName:
    """A line parameter that the catalog turns into the role's spoken name."""

    id: str


Param = int | str | tuple[int, ...] | RoleName


@quick_init
@dataclass(frozen=True)
class Say:
    """Speak one catalog line aloud (public). ``dawn`` marks the line that ends a night:
    the knocking bed stops after it."""

    key: str
    params: Mapping[str, Param] = field(default_factory=dict)
    dawn: bool = False


@quick_init
@dataclass(frozen=True)
class Phase:
    """A phase (``night(1)``, ``day(1)``) begins."""

    id: PhaseId


@quick_init
@dataclass(frozen=True)
class Tagged:
    """A step about something with an id (a window, a secret, a timer)."""

    tag: Tag

    @property
    def id(self) -> str:
        return self.tag.id


@quick_init
@dataclass(frozen=True)
class Decoy:
    """The questions of a woken window as it stands when nobody is in it (its card in the
    centre, its role dead): the table opens them all the same, so that a key typed in the
    window gets the same reaction whether its role is held or not.

    Made of public facts only (the chooser is nobody; what only a holder knows, such as a
    potion left, is left out), and answered into nothing: no rule ever sees the answer.
    ``questions`` gives the next question from the answers given so far (None: no more).
    ``shows`` are the secrets a seat or centre answer could show, each equally likely (a
    card: one for each card of the deck); the table draws what it shows from them.
    """

    questions: Callable[[tuple[Answer, ...]], Prompt | None] = field(compare=False)
    shows: tuple[Secret, ...] = ()


NO_SEAT: Seat = 0  # nobody sits there: the chooser of a decoy's questions


def asked_of_nobody(prompt: Prompt) -> Prompt:
    """``prompt`` as a decoy asks it: nobody answers it."""
    return replace(prompt, seats=())


def decoy(*prompts: Prompt, shows: Iterable[Secret] = ()) -> Decoy:
    """A window's decoy: ``prompts`` asked of nobody, one after the other."""
    asked = tuple(asked_of_nobody(prompt) for prompt in prompts)

    def questions(answers: tuple[Answer, ...]) -> Prompt | None:
        return asked[len(answers)] if len(answers) < len(asked) else None

    return Decoy(questions, tuple(shows))


def deck_shows(cards: Iterable[str]) -> tuple[Secret, ...]:
    """One card of the deck, any of them: in sorted order, never in the deal's."""
    return tuple(Secret.roles(card) for card in sorted(cards))


@quick_init
@dataclass(frozen=True)
class Wake(Tagged):
    """Open a timed wake window; it always lasts ``seconds`` in full.

    ``seats`` are the players awake in it (possibly none: a card in the centre,
    a dead hidden role). Nothing about ``seats`` may reach the public channel.
    ``cues`` are lines said during the window, one every ``cue_every`` seconds
    from its start (sport mafia's called numbers). ``decoy``: what the window asks
    when ``seats`` is empty (see :class:`Decoy`). ``meet``: the awake see on the screen
    who else is awake (alliance werewolves on night 1), a sight of the window, not a
    secret of the rules (the scenario contract lists none for it).
    """

    seconds: float
    seats: tuple[Seat, ...]
    cues: tuple[Say, ...] = ()
    cue_every: float = 0.0
    decoy: Decoy | None = field(default=None, compare=False)
    meet: bool = False

    window = Tagged.id  # the window's id, as scenario results name it


@quick_init
@dataclass(frozen=True)
class Ask:
    """Wait for an accepted answer to ``prompt`` (inside a window: until it ends)."""

    prompt: Prompt


@quick_init
@dataclass(frozen=True)
class Show(Tagged):
    """Show a secret to ``to`` on the screen, inside the current wake window."""

    to: tuple[Seat, ...]
    secret: Secret

    prompt = Tagged.id  # the prompt id a secret is listed under (docs/scenarios.md)


@quick_init
@dataclass(frozen=True)
class Sleep:
    """Close the current wake window after its full length and clear the screen."""


@quick_init
@dataclass(frozen=True)
class DealCard:
    """One seat looks at its card: the screen shows it only on that player's key."""

    seat: Seat
    secret: Secret

    @property
    def prompt(self) -> str:
        return f"deal.{self.seat}"


ONE_MINUTE_LEFT = ((60.0, "timer.one_minute"),)


@quick_init
@dataclass(frozen=True)
class Timer(Tagged):
    """A public timer: a discussion, or the speech of ``seat``; the table may end it early.

    ``warnings`` are (seconds left, line key) said while it runs, when the timer is
    longer than that. A ``prompt`` stays open during the timer (a nomination made
    in one's own speech); its accepted answer is confirmed aloud with the line
    ``confirm`` (parameter ``seat``) and returned when the timer ends.
    ``interrupt`` is a second prompt open meanwhile (a werewolf's self-explosion,
    answered ``"W S"`` with S the speaker); its accepted answer ends the timer at
    once and is returned instead. Its check raises NotNow for an answer meant for
    another speech: the scenario runner keeps that attempt for later.
    ``expired`` is a line said when the timer runs to its end («Время вышло.»),
    not when the table ends it early. ``until_answer``: the prompt's accepted answer
    ends the timer at once (the badge passed, nothing more to wait for).
    """

    seconds: float
    seat: Seat | None = None
    warnings: tuple[tuple[float, str], ...] = ONE_MINUTE_LEFT
    prompt: Prompt | None = None
    confirm: str | None = None
    interrupt: Prompt | None = None
    expired: str | None = None
    until_answer: bool = False


@quick_init
@dataclass(frozen=True)
class Eliminate:
    """A seat leaves the game; ``shown_role`` when its card is turned face up."""

    seat: Seat
    phase: PhaseId
    cause: str
    shown_role: str | None = None


@quick_init
@dataclass(frozen=True)
class Badge:
    """The sheriff's badge is now with ``seat`` (None: destroyed, no sheriff); public."""

    seat: Seat | None


Step = Say | Phase | Wake | Ask | Show | Sleep | DealCard | Timer | Eliminate | Badge | Chance


@quick_init
@dataclass(frozen=True)
class Outcome:
    winner: str | None
    ended_at: PhaseId
    reveal: Mapping[Seat, str] = field(default_factory=dict)
    sheriff: Seat | None = None


T = TypeVar("T")
Flow = Generator[Step, Answer | None, T]  # a part of a script that returns a T
Script = Flow[Outcome]


# --- views -----------------------------------------------------------------------


@quick_init
@dataclass(frozen=True)
class PublicView:
    """What everybody at the table may know."""

    game: str
    players: int
    phase: PhaseId
    alive: tuple[Seat, ...]
    eliminated: tuple[tuple[Seat, str], ...]
    revealed: Mapping[Seat, str]
    dawn: bool = False  # the line that ends the night is being said: «Утро» on the bar


@quick_init
@dataclass(frozen=True)
class SeatView:
    """What one seat may know: its own dealt card and what it was shown."""

    seat: Seat
    dealt: str
    shown: tuple[Secret, ...]


class Game:
    """One game in progress: its script plus the views of its hidden state.

    ``chance`` is the seeded stream the driver draws the script's :class:`Chance` steps
    from (None: a script that draws nothing).
    """

    def __init__(
        self, variant: str, deal: Deal, script: Script, chance: random.Random | None = None
    ) -> None:
        self.variant = variant
        self.deal = deal
        self.script = script
        self.chance = chance
        self.phase = SETUP
        self.eliminated: list[tuple[Seat, str]] = []
        self.revealed: dict[Seat, str] = {}
        self.sheriff: Seat | None = None  # who holds the badge now (alliance)
        self._shown: dict[Seat, list[Secret]] = {s: [] for s in range(1, deal.players + 1)}

    def note(self, step: Step) -> None:
        """Follow the public consequences of a step the driver is carrying out."""
        if isinstance(step, Phase):
            self.phase = step.id
        elif isinstance(step, Eliminate):
            self.eliminated.append((step.seat, step.cause))
            if step.shown_role is not None:
                self.revealed[step.seat] = step.shown_role
        elif isinstance(step, Badge):
            self.sheriff = step.seat
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
    """The deal uses the game's role ids and exactly its composition (docs/scenarios.md).

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
