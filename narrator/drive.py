"""The one loop that carries out a variant script, shared by every driver.

It keeps the game record and the public bookkeeping; a driver subclass decides
how each step meets the table: instantly from a scenario file, or in real time
with a screen, a keypad and a voice.
"""

from __future__ import annotations

import random
from abc import ABC
from abc import abstractmethod
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any

from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.chance import Chance
from narrator.rules.core import Ask
from narrator.rules.core import Badge
from narrator.rules.core import DealCard
from narrator.rules.core import Eliminate
from narrator.rules.core import Game
from narrator.rules.core import Outcome
from narrator.rules.core import Param
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Show
from narrator.rules.core import Sleep
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.errors import NarratorError
from narrator.rules.phases import SETUP
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.voice.catalog import Catalog

NIGHT_LIMIT = 30  # docs/scenarios.md: a run stops after night 30 at the latest
ALREADY_ANSWERED = "already answered"


def is_last_night(phase: PhaseId) -> bool:
    return phase.by_night and phase.number >= NIGHT_LIMIT


class Driver(ABC):
    """Carry out a game's script; subclasses meet each step at the table."""

    def __init__(
        self,
        catalog: Catalog,
        record: GameRecord,
        stop_before: PhaseId | None = None,
        drawn: Mapping[str, str] | None = None,
    ):
        self.catalog = catalog
        self.record = record
        self.stop_before = stop_before
        self.phase: PhaseId = SETUP
        # The outcomes of chance a record holds (narrator.resume.drawn): read back, not drawn.
        self.drawn: Mapping[str, str] = dict(drawn or {})
        self._chance: random.Random | None = None

    def run(self, game: Game) -> Outcome | None:
        """Play to the end; ``None`` when the run stopped before the end."""
        self._chance = game.chance
        reply: Answer | None = None
        while True:
            try:
                step = game.script.send(reply)
            except StopIteration as stop:
                outcome: Outcome = stop.value
                game.finish(outcome)
                self.record.end(outcome, self.phase)
                self.finished(outcome)
                return outcome
            if isinstance(step, Phase) and (
                step.id == self.stop_before or is_last_night(self.phase)
            ):
                self.record.end(None, self.phase, sheriff=game.sheriff)
                return None
            game.note(step)
            reply = self.carry_out(step)

    def carry_out(self, step: Step) -> Answer | None:
        match step:
            case Phase(id=phase):
                self.phase = phase
                self.record.phase(phase)
                self.enter_phase(phase)
            case Say(key=key, params=params):
                text = self.catalog.text(key, params)
                self.record.say(key, params, text)
                self.say(key, text)
                if step.dawn:
                    self.dawn()
            case Wake():
                self.record.window(step.window, step.seconds)
                self.wake(step)
            case Ask(prompt=prompt):
                self.record.add("prompt", id=prompt.id, seats=list(prompt.seats))
                return self.ask(prompt)
            case Show():
                self.record.secret(step.prompt, step.to, step.secret.shown)
                self.show(step)
            case Sleep():
                self.sleep()
            case DealCard():
                self.record.secret(step.prompt, (step.seat,), step.secret.shown)
                self.deal_card(step)
            case Timer(prompt=prompt):
                if prompt is not None:
                    self.record.add("prompt", id=prompt.id, seats=list(prompt.seats))
                if step.interrupt is not None:
                    interrupt = step.interrupt
                    self.record.add("prompt", id=interrupt.id, seats=list(interrupt.seats))
                return self.timer(step)
            case Eliminate(seat=seat, phase=phase, cause=cause):
                self.record.eliminated(seat, phase, cause)
            case Badge(seat=seat):
                self.record.add("badge", seat=seat)
            case Chance():
                return self.chance(step)
        return None

    def chance(self, chance: Chance) -> Answer:
        """What chance gives: drawn from the game's stream, always and in the script's
        order (a seed gives the same draws whatever is read back), unless its outcome is
        known (:meth:`known`: the record of a replay, a scenario's pin); then recorded."""
        if self._chance is None:
            raise TypeError(f"{chance.id}: a game made without a stream of chance draws")
        text = chance.draw(self._chance)
        known = self.known(chance)
        if known is not None:
            text = known
        self.record.add("chance", id=chance.id, value=text)
        return chance.read(text)

    def known(self, chance: Chance) -> str | None:
        """The outcome the record being replayed holds, if it is one this chance can have
        (the rules may have changed what is drawn: then it is drawn anew)."""
        text = self.drawn.get(chance.id)
        if text is None:
            return None
        try:
            chance.read(text)
        except NarratorError:
            return None
        return text

    def attempt(self, prompt: Prompt, text: str, answered: bool) -> Answer | None:
        """Judge one attempt: the accepted answer, or None (rejection recorded)."""
        if answered:
            self.record.rejected(prompt.id, text, ALREADY_ANSWERED)
            self.rejected(prompt, text, NarratorError(ALREADY_ANSWERED, "reason.already_answered"))
            return None
        try:
            answer = prompt.accept(text)
        except NarratorError as error:
            self.record.rejected(prompt.id, text, str(error))
            self.rejected(prompt, text, error)
            return None
        self.record.accepted(prompt.id, text)
        return answer

    def expire(self, prompt: Prompt) -> Answer:
        """No valid answer in time: the rule's documented default (docs/rules.md §0.3)."""
        self.record.expired(prompt.id, str(prompt.default))
        return prompt.default

    def timer_warnings(self, timer: Timer) -> list[tuple[float, str]]:
        """The warnings a timer of its full length speaks: (seconds left, key), in order."""
        return sorted(((at, key) for at, key in timer.warnings if timer.seconds > at), reverse=True)

    def timer_without_clock(self, timer: Timer) -> Answer | None:
        """A timer that runs to its end at once: its prompt asked (and confirmed aloud),
        then its warnings and its end line said, as a headless run hears them."""
        answer = None
        if timer.prompt is not None:
            answer = self.ask(timer.prompt)
            self.confirm(timer, answer)
        for _, key in self.timer_warnings(timer):
            self.carry_out(Say(key))
        if timer.expired is not None:
            self.carry_out(Say(timer.expired))
        return answer

    def confirm(self, timer: Timer, answer: Answer) -> None:
        """Say aloud that an answer given during a timer was accepted («4 принято»)."""
        if (
            timer.confirm is not None
            and timer.prompt is not None
            and answer != timer.prompt.default
        ):
            self.carry_out(Say(timer.confirm, {"seat": str(answer)}))

    # --- what a driver does at the table ---------------------------------------------

    def enter_phase(self, phase: PhaseId) -> None:  # noqa: B027 - optional hook
        """A new phase begins."""

    def dawn(self) -> None:  # noqa: B027 - optional hook
        """The line that ends the night has been said."""

    @abstractmethod
    def say(self, key: str, text: str) -> None: ...

    @abstractmethod
    def wake(self, step: Wake) -> None: ...

    @abstractmethod
    def ask(self, prompt: Prompt) -> Answer: ...

    @abstractmethod
    def show(self, step: Show) -> None: ...

    @abstractmethod
    def sleep(self) -> None: ...

    @abstractmethod
    def deal_card(self, step: DealCard) -> None: ...

    @abstractmethod
    def timer(self, step: Timer) -> Answer | None:
        """Run a public timer; the accepted answer of its prompt, if it has one."""

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:  # noqa: B027
        """An attempt was rejected (the table shows it silently)."""

    def finished(self, outcome: Outcome) -> None:  # noqa: B027
        """The game is over."""


class Unrecorded(GameRecord):
    """A game record that keeps nothing: nobody reads the record of a game played to be
    measured or listened to (the length estimate, the order of the lines to render)."""

    def add(self, event: str, **fields: Any) -> None:
        """Nothing is kept."""

    def say(self, key: str, params: Mapping[str, Param], text: str) -> None:
        """Nothing is kept (not even the parameters turned into JSON)."""


class Headless(Driver):
    """The table with no clock that every run without one plays at: the scenario runner,
    the length estimate, the order of the lines to render, the test tables.

    A wake window passes at once, its cues said; a timer runs to its end at once
    (:meth:`Driver.timer_without_clock`) unless an attempt at its interrupt (a werewolf
    exploding) is accepted first. A prompt takes the attempts :meth:`typed` gives, in
    order: the first accepted one is its answer, every later one is rejected as already
    answered, and with none accepted the prompt expires to its default.
    """

    def typed(self, prompt: Prompt) -> Iterable[str]:
        """What is typed at ``prompt`` (by default nothing: it expires)."""
        return ()

    def interjections(self, timer: Timer, prompt: Prompt) -> Iterable[str]:
        """What is typed at the interrupt ``prompt`` of ``timer`` (by default nothing)."""
        return ()

    def ask(self, prompt: Prompt) -> Answer:
        accepted: Answer | None = None
        for text in self.typed(prompt):
            answer = self.attempt(prompt, text, answered=accepted is not None)
            if answer is not None:
                accepted = answer
                self.took(prompt, text)
        return accepted if accepted is not None else self.expire(prompt)

    def took(self, prompt: Prompt, text: str) -> None:
        """An attempt at a prompt was accepted as its answer."""

    def interrupted(self, timer: Timer) -> Answer | None:
        """The first accepted attempt at the timer's interrupt, which ends it; or None."""
        if timer.interrupt is None:
            return None
        for text in self.interjections(timer, timer.interrupt):
            answer = self.attempt(timer.interrupt, text, answered=False)
            if answer is not None:
                return answer
        return None

    def timer(self, step: Timer) -> Answer | None:
        interrupted = self.interrupted(step)
        return interrupted if interrupted is not None else self.timer_without_clock(step)

    def wake(self, step: Wake) -> None:
        for cue in step.cues:
            self.carry_out(cue)

    def say(self, key: str, text: str) -> None:
        """Nobody hears it."""

    def show(self, step: Show) -> None:
        """Nobody sees it."""

    def sleep(self) -> None:
        """The window is over."""

    def deal_card(self, step: DealCard) -> None:
        """The card is seen."""
