"""Phases, tags and prompts: what a script asks the table, and the rules an answer must keep.

A prompt is pure data with its rules; nothing here does I/O.  Seats are numbers from 1.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from enum import StrEnum
from typing import Literal
from typing import ParamSpec
from typing import TypeVar
from typing import cast

from narrator.rules.answers import Abstain
from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import Destroy
from narrator.rules.answers import Nobody
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import parse_answer
from narrator.rules.errors import IllegalAction
from narrator.rules.frozen import quick_init
from narrator.rules.phases import PhaseId

Seat = int


class Channel(StrEnum):
    """Through what a prompt may be answered (docs/rules.md §0.5)."""

    KEYPAD = "keypad"  # typed at the laptop: every prompt, night and day
    VOICE = "voice"  # spoken aloud: day prompts only, never at night
    CALL = "call"  # Space pressed as the narrator calls each seat (call-mode shooting)


@quick_init
@dataclass(frozen=True)
class Tag:
    """What a prompt, a window, a secret or a timer is about.

    Its id (docs/scenarios.md: ``<phase>.<action>`` or ``<phase>.<action>.<seat>``)
    is built from these fields; nothing outside the rules takes an id apart.
    ``about`` is the voter, speaker or candidate the prompt is about.
    """

    phase: PhaseId
    action: str
    about: Seat | None = None

    @property
    def id(self) -> str:
        tail = "" if self.about is None else f".{self.about}"
        return f"{self.phase}.{self.action}{tail}"

    @property
    def by_night(self) -> bool:
        return self.phase.by_night

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
    tests, grammars). ``default`` is what an expired window means (docs/rules.md §0.3).
    ``channels`` say how it may be answered (empty: by its phase, see
    :func:`default_channels`). ``mark`` names the spoken words that must come
    before a spoken answer (``nominate``: «я выставляю …» inside one's speech).
    ``speaker`` is the seat whose speech an interrupt prompt interrupts.
    ``blind`` marks a prompt answered in public whose answer may depend on a
    hidden role (the dead hunter's shot in a public pause): the table must react
    to every attempt in the same way, accepted or not, so that typing at it
    teaches nothing.
    ``claim`` marks a public claim about one's own hidden role (a werewolf's
    self-explosion): the table says the line ``claim`` (parameter ``seat``, the
    claimant) and judges the attempt only once it is confirmed with Enter, so
    nobody can probe another seat's role silently; unconfirmed, the line
    ``<claim>_unconfirmed`` is said, the same whatever the role.
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
            night = self.tag.phase.by_night  # default_channels, inlined
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
        """May be answered aloud (a day prompt; never at night, docs/rules.md §0.5)."""
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
