"""One simulated game: a variant script carried out with no table, answered by policies.

The loop is :class:`~narrator.drive.Driver`'s loop with everything a real table
needs taken out: no catalog text (nobody hears the lines), no game record (nobody
reads it), no clock. What is left is the script, the policies that answer its
prompts, and the few facts a simulation counts (who won, how long it lasted, who
left and why). Answers go through the prompt's own check, like every answer at
every table; their parsing is cached (an answer text means the same at every
prompt that takes the same kinds on the same table).

Policies that want to know what happens (:attr:`Players.watching`) are told each
step as the seats it concerns would live it: the public ones to everybody, a
dealt card, a secret shown, a night answer or a wake window only to the seats in
it. They are never given the game, its deal or its script.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from narrator.drive import NIGHT_LIMIT
from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import parse_answer
from narrator.rules.chance import Chance
from narrator.rules.core import Ask
from narrator.rules.core import Badge
from narrator.rules.core import DealCard
from narrator.rules.core import Eliminate
from narrator.rules.core import Game
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Sleep
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.errors import NarratorError
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag


class IllegalPolicy(RuntimeError):
    """A policy gave an answer its prompt does not accept: a bug, never a game event."""


class Players(Protocol):
    """Everybody at one simulated table: how they answer, and what they are told.

    ``answer`` chooses among ``prompt.options`` (None: no answer, the window
    expires); ``interrupt`` may answer a timer's interrupt (a werewolf exploding)
    or not; ``talk`` is the table talking during a public timer (a checker
    announcing what he found), heard by everybody. The other methods tell the
    players what happens; they are called only when ``watching`` is true.
    """

    watching: bool

    def answer(self, prompt: Prompt, alive: tuple[Seat, ...]) -> str | None: ...

    def interrupt(self, timer: Timer, alive: tuple[Seat, ...]) -> str | None: ...

    def talk(self, timer: Timer, alive: tuple[Seat, ...]) -> None: ...

    def phase(self, phase: PhaseId) -> None: ...

    def said(self, step: Say) -> None: ...

    def eliminated(self, step: Eliminate) -> None: ...

    def badge(self, seat: Seat | None) -> None: ...

    def dealt(self, seat: Seat, card: str) -> None: ...

    def awake(self, tag: Tag, seats: tuple[Seat, ...]) -> None: ...

    def shown(self, tag: Tag, to: tuple[Seat, ...], secret: Secret) -> None: ...

    def answered(self, prompt: Prompt, answer: Answer) -> None: ...


@dataclass(frozen=True)
class GameResult:
    """What a simulation counts of one game. ``winner`` None: stopped after night 30."""

    winner: str | None
    nights: int  # nights played from night 1 (sport mafia's card night 0 not counted)
    days: int
    causes: tuple[str, ...]  # the cause of every elimination, in order


_Parsed = dict[tuple[str, frozenset[AnswerKind], int], Answer]


def accept(prompt: Prompt, text: str, parsed: _Parsed) -> Answer:
    """``text`` parsed (once per table shape) and checked by the prompt's own rules."""
    key = (text, prompt.accepts, prompt.seat_count)
    answer = parsed.get(key)
    try:
        if answer is None:
            answer = parsed[key] = parse_answer(text, prompt.accepts, prompt.seat_count)
        prompt.check(answer)
    except NarratorError as error:
        raise IllegalPolicy(f"{prompt.id}: {text!r} is not accepted: {error}") from None
    return answer


@dataclass
class _Count:
    """What :func:`play` counts as a game goes: the living, the nights and days, the causes."""

    alive: list[Seat]
    living: tuple[Seat, ...]
    causes: list[str]
    nights: int = 0
    days: int = 0
    last_night: bool = False  # night NIGHT_LIMIT began: the next phase is not played

    def result(self, winner: str | None) -> GameResult:
        return GameResult(winner, self.nights, self.days, tuple(self.causes))

    def phase(self, phase: PhaseId) -> None:
        if phase.kind == "night":
            self.nights += phase.number > 0
            self.last_night = phase.number >= NIGHT_LIMIT
        elif phase.kind == "day":
            self.days += 1

    def eliminated(self, step: Eliminate) -> None:
        self.causes.append(step.cause)
        self.alive.remove(step.seat)
        self.living = tuple(self.alive)


def play(game: Game, players: Players, parsed: _Parsed | None = None) -> GameResult:
    """Play ``game`` to its end (or to the night limit) with ``players`` answering.

    The fast path of :class:`~narrator.drive.Headless` (tests/test_one_loop.py plays
    both and compares them): the same steps met in the same way, with nothing kept.
    """
    parsed = {} if parsed is None else parsed
    watching = players.watching
    answer = players.answer
    seats = list(range(1, game.deal.players + 1))
    count = _Count(seats, tuple(seats), [])
    send = game.script.send
    reply: Answer | None = None
    while True:
        try:
            step = send(reply)
        except StopIteration as stop:
            return count.result(stop.value.winner)
        reply = None
        # By the step's own class, not a chain of isinstance: no step class has subclasses.
        if type(step) is Say:  # most steps: nothing to do unless somebody listens
            if watching:
                players.said(step)
        elif type(step) is Ask:
            prompt = step.prompt
            text = answer(prompt, count.living)
            reply = prompt.default if text is None else accept(prompt, text, parsed)
            if watching:
                players.answered(prompt, reply)
        elif type(step) is Timer:
            reply = _timer(step, players, count.living, parsed)
        elif type(step) is Phase:
            if count.last_night:
                return count.result(None)
            count.phase(step.id)
            if watching:
                players.phase(step.id)
        elif type(step) is Eliminate:
            count.eliminated(step)
            if watching:
                players.eliminated(step)
        elif type(step) is Chance:
            reply = drawn(step, game)
        elif watching or (type(step) not in _STEPS and isinstance(step, _ANSWERED)):
            tell(step, players)


def drawn(chance: Chance, game: Game) -> Answer:
    """The outcome of ``chance`` drawn from the game's stream, as every driver draws it."""
    if game.chance is None:
        raise TypeError(f"{chance.id}: a game made without a stream of chance draws")
    return chance.read(chance.draw(game.chance))


def _timer(
    timer: Timer, players: Players, alive: tuple[Seat, ...], parsed: _Parsed
) -> Answer | None:
    """A public timer: the table talks, an interrupt may end it, its prompt is answered."""
    if players.watching:
        players.talk(timer, alive)
    if timer.interrupt is not None:
        text = players.interrupt(timer, alive)
        if text is not None:
            answer = accept(timer.interrupt, text, parsed)
            if players.watching:
                players.answered(timer.interrupt, answer)
            return answer
    prompt = timer.prompt
    if prompt is None:
        return None
    text = players.answer(prompt, alive)
    answer = prompt.default if text is None else accept(prompt, text, parsed)
    if players.watching:
        players.answered(prompt, answer)
    return answer


_STEPS = frozenset({Say, Ask, Timer, Phase, Eliminate, Show, DealCard, Wake, Badge, Sleep, Chance})
_ANSWERED = (Say, Ask, Timer, Phase, Eliminate, Chance)  # the steps :func:`play` itself follows


def tell(step: object, players: Players) -> None:
    """The steps only watching players are told of (the rest need no bookkeeping)."""
    if type(step) not in _STEPS and isinstance(step, _ANSWERED):
        raise TypeError(f"{type(step).__name__}: a step class's subclass is not a step")
    if isinstance(step, Show):
        players.shown(step.tag, step.to, step.secret)
    elif isinstance(step, DealCard):
        players.dealt(step.seat, step.secret.values[0])
    elif isinstance(step, Wake):
        players.awake(step.tag, step.seats)
    elif isinstance(step, Badge):
        players.badge(step.seat)


def seeded(seed: int, index: int) -> random.Random:
    """The chance of game ``index`` of a run with ``seed``: the same whatever the jobs."""
    return random.Random(f"narrator.simulate/{seed}/{index}")


def game_rngs(
    seed: int, index: int, reuse: tuple[random.Random, random.Random] | None = None
) -> tuple[random.Random, random.Random]:
    """The chance of one game: the deal's and then the players' stream, and the rules' own.

    The deal is drawn first, so the players' choices never change the deal, and the
    rules' chance (a random speaking order) never depends on the players' choices.
    ``reuse``: two generators of a finished game, seeded again (the very same streams
    as new ones, without making them: a new ``Random`` is seeded twice).
    """
    if reuse is None:
        root = seeded(seed, index)
        return root, random.Random(root.getrandbits(64))
    root, rules = reuse
    root.seed(f"narrator.simulate/{seed}/{index}")
    rules.seed(root.getrandbits(64))
    return reuse
