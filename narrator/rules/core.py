"""The vocabulary shared by every variant: roles, deals, prompts, table steps, outcomes.

A variant is a generator (its *script*) that yields :data:`Step` values, what
the table must do next, and receives the accepted :data:`Answer` after each
:class:`Ask`.  The scenario runner drives a script instantly; the table host
drives the same script in real time.  Nothing here does I/O.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Callable, Collection, Generator, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal, ParamSpec, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field

from narrator.rules.answers import (
    Abstain,
    Answer,
    AnswerKind,
    Destroy,
    Nobody,
    SeatAnswer,
    parse_answer,
)
from narrator.rules.chance import Chance
from narrator.rules.errors import ConfigError, IllegalAction
from narrator.rules.frozen import quick_init

Seat = int


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
    """Rule switches of RULES.md section 5; every variant extends this model."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    roles: str | None = Field(None, description="composition override, e.g. 'vampire=3,witch=1'")


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


# --- phases, tags, prompts ----------------------------------------------------------


def night(number: int) -> str:
    """The id of night ``number`` (``n0`` is sport mafia's card night)."""
    return f"n{number}"


def day(number: int) -> str:
    return f"d{number}"


_PHASE = re.compile(r"([nd])(\d+)")


@functools.lru_cache(maxsize=1024)  # a handful of phases per game, asked at every prompt
def phase_kind(phase: str) -> Literal["night", "day", "other"]:
    """``n3`` is a night, ``d2`` a day; anything else (``setup``, ``deal``) neither."""
    match = _PHASE.fullmatch(phase)
    if match is None:
        return "other"
    return "night" if match.group(1) == "n" else "day"


@functools.lru_cache(maxsize=1024)
def phase_number(phase: str) -> int | None:
    """The number of a night or a day (``n3`` → 3); None for other phases."""
    match = _PHASE.fullmatch(phase)
    return int(match.group(2)) if match is not None else None


class Channel(StrEnum):
    """Through what a prompt may be answered (RULES.md 0.5)."""

    KEYPAD = "keypad"  # typed at the laptop: every prompt, night and day
    VOICE = "voice"  # spoken aloud: day prompts only, never at night
    CALL = "call"  # Space pressed as the narrator calls each seat (call-mode shooting)


@quick_init
@dataclass(frozen=True)
class Tag:
    """What a prompt, a window, a secret or a timer is about.

    Its id (SCENARIOS.md: ``<phase>.<action>`` or ``<phase>.<action>.<seat>``)
    is built from these fields; nothing outside the rules takes an id apart.
    ``about`` is the voter, speaker or candidate the prompt is about.
    """

    phase: str
    action: str
    about: Seat | None = None

    @property
    def id(self) -> str:
        tail = "" if self.about is None else f".{self.about}"
        return f"{self.phase}.{self.action}{tail}"

    @property
    def by_night(self) -> bool:
        return phase_kind(self.phase) == "night"

    def __str__(self) -> str:
        return self.id


_NIGHT_CHANNELS = frozenset({Channel.KEYPAD})
_DAY_CHANNELS = frozenset({Channel.KEYPAD, Channel.VOICE})


def default_channels(tag: Tag) -> frozenset[Channel]:
    """Night prompts are answered at the keypad only; day prompts also by voice."""
    return _NIGHT_CHANNELS if tag.by_night else _DAY_CHANNELS


@quick_init
@dataclass(frozen=True)
class Prompt:
    """A question the table must answer, with its own legality check.

    ``tag`` says what it is (its id is built from it). ``seats`` answer it
    (empty = the whole table, e.g. a hand count). ``accepts`` are the answer
    kinds it takes. ``check`` raises IllegalAction for a parsed answer the rules
    forbid. ``options`` lists every legal answer text (demo players, property
    tests, grammars). ``default`` is what an expired window means (RULES.md 0.3).
    ``channels`` say how it may be answered (empty: by its phase, see
    :func:`default_channels`). ``mark`` names the spoken words that must come
    before a spoken answer (``nominate``: «я выставляю …» inside one's speech).
    ``speaker`` is the seat whose speech an interrupt prompt interrupts.
    ``blind`` marks a prompt answered in public whose answer may depend on a
    hidden role (the dead hunter's shot in a public pause): the table must react
    to every attempt in the same way, accepted or not, so that typing at it
    teaches nothing (issue 12 #5, issue 17 #2).
    ``claim`` marks a public claim about one's own hidden role (a werewolf's
    self-explosion): the table says the line ``claim`` (parameter ``seat``, the
    claimant) and judges the attempt only once it is confirmed with Enter, so
    nobody can probe another seat's role silently; unconfirmed, the line
    ``<claim>_unconfirmed`` is said, the same whatever the role (issue 17 #1).
    """

    tag: Tag
    seats: tuple[Seat, ...]
    accepts: frozenset[AnswerKind]
    seat_count: int
    default: Answer
    options: tuple[str, ...]
    check: Callable[[Answer], None] = field(repr=False, compare=False)
    entries: int = 1  # separate keypad entries that make one answer ("7 7 7": three shooters)
    channels: frozenset[Channel] = frozenset()
    mark: str | None = None
    speaker: Seat | None = None
    blind: bool = False
    claim: str | None = None

    def __post_init__(self) -> None:
        if not self.channels:  # still being made: its own dict, not the frozen setattr
            night = phase_kind(self.tag.phase) == "night"  # default_channels, inlined
            self.__dict__["channels"] = _NIGHT_CHANNELS if night else _DAY_CHANNELS

    @property
    def id(self) -> str:
        return self.tag.id

    @property
    def action(self) -> str:
        return self.tag.action

    @property
    def calls(self) -> bool:
        """Answered by pressing Space as the window's cues call each seat."""
        return Channel.CALL in self.channels

    @property
    def spoken(self) -> bool:
        """May be answered aloud (a day prompt; never at night, RULES.md 0.5)."""
        return Channel.VOICE in self.channels

    def accept(self, text: str) -> Answer:
        """Parse and check one attempt; raise a NarratorError naming the problem."""
        answer = parse_answer(text, self.accepts, self.seat_count)
        self.check(answer)
        return answer


P = ParamSpec("P")
R = TypeVar("R")
PROMPTS_REMEMBERED = 4096  # per builder: the prompts of many games, a few MB at most


def remembered(builder: Callable[P, R]) -> Callable[P, R]:
    """A prompt (or rule) builder that makes each one once and gives the same one again.

    A prompt is a value (frozen, its check a pure function of the builder's
    arguments), and so is a rule, so the same arguments may share one: games of a
    simulation ask the same questions of the same tables again and again. Only for
    builders whose arguments are values too (ints, strings, tuples, tags); with an
    unhashable one (a list, a set) the result is simply built afresh.
    """
    cached = functools.lru_cache(maxsize=PROMPTS_REMEMBERED)(builder)

    @functools.wraps(builder)
    def made(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return cached(*args, **kwargs)  # type: ignore[arg-type]
        except TypeError:  # an unhashable argument (or the builder's own error, raised again)
            return builder(*args, **kwargs)

    return cast(Callable[P, R], made)


def forbid(message: str, key: str, **params: object) -> IllegalAction:
    return IllegalAction(message, key, params)


def dead_seat(seat: Seat) -> IllegalAction:
    return forbid(f"seat {seat} is out of the game", "reason.dead", seat=seat)


Rule = Callable[[Answer], None]
"""One check of a parsed answer; raises IllegalAction when the rules forbid it."""


def on_seat(test: Callable[[Seat], None]) -> Rule:
    """A rule about the seat an answer names; answers naming no seat pass it."""

    def rule(answer: Answer) -> None:
        if isinstance(answer, SeatAnswer):
            test(answer.seat)

    return rule


def _no_rule(answer: Answer) -> None:
    """No rule at all: every parsed answer passes."""


def all_of(*rules: Rule) -> Rule:
    """The rules in order: the first that forbids the answer names the problem."""
    if len(rules) <= 1:  # most prompts have one rule or none: no wrapper around it
        return rules[0] if rules else _no_rule

    def rule(answer: Answer) -> None:
        for each in rules:
            each(answer)

    return rule


def not_self(chooser: Seat) -> Rule:
    def test(seat: Seat) -> None:
        if seat == chooser:
            raise forbid("you cannot choose yourself", "reason.self")

    return on_seat(test)


def no_self_vote(voter: Seat) -> Rule:
    def test(seat: Seat) -> None:
        if seat == voter:
            raise forbid("you cannot vote for yourself", "reason.self_vote")

    return on_seat(test)


def living_only(living: Collection[Seat]) -> Rule:
    def test(seat: Seat) -> None:
        if seat not in living:
            raise dead_seat(seat)

    return on_seat(test)


# The answer besides a seat that a seat choice may take, and what an expired window means.
OTHER_ANSWERS: Mapping[str, tuple[frozenset[AnswerKind], Answer]] = {
    "none": (frozenset({AnswerKind.NOBODY}), Nobody()),
    "abstain": (frozenset({AnswerKind.ABSTAIN}), Abstain()),
    "destroy": (frozenset({AnswerKind.DESTROY, AnswerKind.NOBODY}), Destroy()),  # 0 destroys too
}
_NOBODY = Nobody()
# What a seat choice accepts with each ``other`` answer (built once: prompts are many).
_SEAT_OR: Mapping[str | None, frozenset[AnswerKind]] = {
    **{other: kinds | {AnswerKind.SEAT} for other, (kinds, _) in OTHER_ANSWERS.items()},
    None: frozenset({AnswerKind.SEAT}),
}


class _SeatTexts(dict[Seat, str]):
    """``str(seat)``, each made once (a seat choice lists a dozen of them)."""

    def __missing__(self, seat: Seat) -> str:
        text = str(seat)
        if type(seat) is int:  # never a bool (True == 1): its text would stand for seat 1
            self[seat] = text
        return text


_SEAT_TEXT = _SeatTexts()


def seat_prompt(
    tag: Tag,
    seats: Iterable[Seat],
    players: int,
    choices: Iterable[Seat],
    *rules: Rule,
    other: Literal["none", "abstain", "destroy"] | None = "none",
    mark: str | None = None,
) -> Prompt:
    """A choice of one seat, or of the ``other`` answer, made by ``seats``.

    ``rules`` judge every attempt in order; ``choices`` are the seats they allow,
    listed as the options in that order, followed by ``other``.  An expired window
    means ``other`` (nobody, abstain, the badge destroyed), or nobody without one.
    """
    default = OTHER_ANSWERS[other][1] if other is not None else _NOBODY
    options = tuple([_SEAT_TEXT[seat] for seat in choices])
    if other is not None:
        options += (other,)
    accepts = _SEAT_OR[other]
    return Prompt(tag, tuple(seats), accepts, players, default, options, all_of(*rules), mark=mark)


def check_living_seat(
    answer: Answer, chooser: Seat, living: Collection[Seat], allow_self: bool
) -> None:
    """A seat answer must name a living player, and not the chooser unless allowed."""
    if not allow_self:
        not_self(chooser)(answer)
    living_only(living)(answer)


def living_seat_prompt(
    tag: Tag,
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
    choices = [seat for seat in living if allow_self or seat != chooser]
    rules = (living_only(living),) if allow_self else (not_self(chooser), living_only(living))
    return seat_prompt(tag, (chooser,), players, choices, *rules, other="none" if none else None)


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
    """A phase (``n1``, ``d1``) begins."""

    id: str

    @property
    def kind(self) -> Literal["night", "day", "other"]:
        return phase_kind(self.id)

    @property
    def number(self) -> int | None:
        return phase_number(self.id)


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
    window gets the same reaction whether its role is held or not (issue 28 #4).

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

    prompt = Tagged.id  # the prompt id a secret is listed under (SCENARIOS.md)


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
    phase: str
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
    ended_at: str
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
    phase: str
    alive: tuple[Seat, ...]
    eliminated: tuple[tuple[Seat, str], ...]
    revealed: Mapping[Seat, str]


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
        self.phase = "setup"
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
