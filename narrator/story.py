"""The story of a game: what happened in it, night by night and day by day.

One :class:`Chronicle` writes it from the steps a game's script carried out and the
answers they got, as structure (a night answer of the vampires, a vote of seat 3, a
secret shown, an elimination and its cause): nothing is read back from the ids or texts
of a record. The table keeps one while it plays (its end screen tells it); a finished
record is told by playing its game once more, silently, with its answers
(:func:`story_of`): the record holds the deal, the seed, the rule switches and every
answer the table gave (its ``done`` events, narrator.resume), so that is the same story.
The end screen, the picture (narrator.picture) and ``narrator show`` render from it.

A story holds the secrets of its game: it is told only once the game has ended. Only a
finished record is read: a sealed one belongs to a game still being played or stopped
(its secrets must stay sealed, narrator.host.journal), and a plain one without an
``end`` event did not reach the end.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from narrator.drive import Driver
from narrator.record import GameRecord
from narrator.resume import Done
from narrator.resume import drawn
from narrator.resume import replayed
from narrator.rules.answers import Answer
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Badge
from narrator.rules.core import Deal
from narrator.rules.core import DealCard
from narrator.rules.core import Eliminate
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Show
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.errors import ConfigError
from narrator.rules.phases import SETUP
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog

# The line that gives the last candidate of a hand vote the hands not raised before
# (sport mafia's ``unvoted_to_last``): no prompt asks for them, the rules count them.
REST_OF_HANDS = frozenset({"sport.rest_of_hands"})


@dataclass(frozen=True)
class Act:
    """An answer the table gave: ``seats`` answered ``tag`` with ``answer``."""

    tag: Tag
    seats: tuple[Seat, ...]
    answer: Answer
    default: bool  # the window expired (nobody, abstain…), or the answer equals that

    @property
    def at_night(self) -> bool:
        """An answer given in a night window (not the default of an empty one)."""
        return self.tag.by_night and bool(self.seats) and not self.default


@dataclass(frozen=True)
class Seen:
    """A secret shown to ``to`` (in the story of a finished game it may be told)."""

    tag: Tag
    to: tuple[Seat, ...]
    shown: Show


Moment = Act | Seen | Eliminate | Badge


@dataclass
class Chapter:
    """One night or day and what happened in it, in order."""

    phase: PhaseId
    moments: list[Moment] = field(default_factory=list)


@dataclass
class Story:
    """A finished game: who sat where with which card, each phase, the outcome."""

    game: str
    lang: str
    deal: Deal
    outcome: Outcome
    chapters: list[Chapter]
    started: str | None = None  # "YYYYMMDD-HHMMSS" from the record's name, if it has one

    @property
    def players(self) -> int:
        return self.deal.players

    def left(self) -> dict[Seat, Eliminate]:
        """Every seat that left the game, with its elimination."""
        return {m.seat: m for c in self.chapters for m in c.moments if isinstance(m, Eliminate)}

    def sheriff(self) -> Seat | None:
        return self.outcome.sheriff

    def by_card(self, seats: Sequence[Seat]) -> dict[str, list[Seat]]:
        """``seats`` grouped by the card each was dealt, in the order they come."""
        roles: dict[str, list[Seat]] = {}
        for seat in seats:
            roles.setdefault(self.deal.role_of(seat), []).append(seat)
        return roles


class Chronicle:
    """Writes the story of a game from each step carried out and the answer it got."""

    def __init__(self) -> None:
        self.chapters: list[Chapter] = [Chapter(SETUP)]
        self._counted: Tag | None = None  # the last hand count asked

    def note(self, step: Step, answer: Answer | None) -> None:
        """``step`` was carried out and got ``answer`` (None: it waited for nothing)."""
        chapter = self.chapters[-1]
        if isinstance(step, Say) and step.key in REST_OF_HANDS and self._counted is not None:
            # «the other N hands go to X»: the last candidate's hands, counted by the rules
            last, seat, count = self._counted, step.params.get("seat"), step.params.get("count")
            if isinstance(seat, int) and isinstance(count, int):
                tag = Tag(last.phase, last.action, seat)
                chapter.moments.append(Act(tag, (), CountAnswer(count), False))
        elif isinstance(step, Phase):
            self.chapters.append(Chapter(step.id))
        elif isinstance(step, Eliminate | Badge):
            chapter.moments.append(step)
        elif isinstance(step, Show):
            chapter.moments.append(Seen(step.tag, step.to, step))
        elif isinstance(step, Ask) and answer is not None:
            chapter.moments.append(_act(step.prompt, answer))
            counts = isinstance(answer, CountAnswer)
            self._counted = step.prompt.tag if counts else self._counted
        elif isinstance(step, Timer) and answer is not None:
            exploded = step.interrupt is not None and isinstance(answer, ExplodeAnswer)
            chosen = step.interrupt if exploded else step.prompt
            if chosen is not None:
                chapter.moments.append(_act(chosen, answer))

    def story(
        self, game: str, lang: str, deal: Deal, outcome: Outcome, started: str | None = None
    ) -> Story:
        """The story so far, of a game that ended with ``outcome``."""
        chapters = [c for c in self.chapters if c.moments or c.phase.of_the_rules]
        return Story(game, lang, deal, outcome, chapters, started)


def _act(prompt: Prompt, answer: Answer) -> Act:
    return Act(prompt.tag, prompt.seats, answer, answer == prompt.default)


class _Replay(Driver):
    """Plays a game again with the answers of its record, its chronicle kept."""

    def __init__(self, steps: Sequence[Done], chance: Mapping[str, str]) -> None:
        super().__init__(load_catalog("en"), GameRecord(), drawn=chance)
        self.steps = deque(steps)
        self.chronicle = Chronicle()
        self._window_id = ""

    def _next(self, kind: str, step_id: str) -> Done:
        done = self.steps.popleft() if self.steps else None
        if done is None or done.kind != kind or done.id != step_id:
            said = done.id if done is not None else "nothing more"
            raise ConfigError(
                f"the record does not fit the rules at {step_id} (it says {said}): "
                "was it written by another version of narrator?"
            )
        return done

    def carry_out(self, step: Step) -> Answer | None:
        answer = super().carry_out(step)
        self.chronicle.note(step, answer)
        return answer

    def ask(self, prompt: Prompt) -> Answer:
        answer = self._next("reply", prompt.id).answer
        return answer if answer is not None else prompt.default

    def timer(self, step: Timer) -> Answer | None:
        return self._next("reply", step.id).answer

    def sleep(self) -> None:
        self._next("window", self._window_id)

    def wake(self, step: Wake) -> None:
        self._window_id = step.window

    def deal_card(self, step: DealCard) -> None:
        self._next("dealt", step.prompt)

    def say(self, key: str, text: str) -> None:
        """Nobody hears it."""

    def show(self, step: Show) -> None:
        """Kept by the chronicle."""


def story_of(
    events: Sequence[Mapping[str, Any]],
    name: str = "",
    rules_rng: Callable[[int], random.Random] = random.Random,
) -> Story:
    """The story of a finished record's events; a ConfigError when it is not one.

    ``rules_rng``: the rules' chance of a game from its seed, as the table made it
    (``narrator.prepared.rules_rng``).
    """
    if not events or events[0].get("event") != "start":
        raise ConfigError(f"{name or 'the record'}: not a game record (no start event)")
    end = next((e for e in events if e.get("event") == "end"), None)
    if end is None:
        raise ConfigError(
            f"{name or 'the record'}: the game did not reach its end, so there is nothing "
            "to draw (a stopped game can be continued with narrator resume)"
        )
    start = events[0]
    try:
        variant = get_variant(str(start["game"]))
        options = start.get("options") or {}
        switches = make_switches(variant, dict(options))
        seats = start["deal"]["seats"]
        deal = Deal(tuple(str(s) for s in seats), tuple(start["deal"].get("center", ())))
        variant.validate_deal(deal, switches)
        seed = int(start["seed"])
    except ConfigError:
        raise
    except (KeyError, TypeError, ValueError):
        raise ConfigError(f"{name or 'the record'}: its start event is incomplete") from None
    driver = _Replay(replayed(events), drawn(events))
    outcome = driver.run(variant.new_game(deal, switches, rules_rng(seed)))
    if outcome is None or outcome.winner != end.get("winner"):
        raise ConfigError(
            f"{name or 'the record'}: playing it again does not give its recorded end "
            "(was it written by another version of narrator?)"
        )
    stem = Path(name).name
    started = stem[:15] if len(stem) > 15 and stem[:8].isdigit() and stem[8] == "-" else None
    lang = str(start.get("lang", "ru"))
    return driver.chronicle.story(variant.name, lang, deal, outcome, started)
