"""The headless scenario runner (the file format: docs/scenarios.md).

A scenario fixes the deal and every attempt at every prompt; the runner plays
the whole game instantly and returns the contract's JSON result.

A file comes from anyone, so every size is bounded before anything is built from
it (by the one reader of narrator.files): the file, the nesting of its arrays and tables, the length
of its texts, the seat numbers of the deal; and values have strict types (``true``
is neither a seed nor a seat). Each problem is one ConfigError naming the key.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from typing import Literal

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import StrictInt
from pydantic import StrictStr
from pydantic import ValidationError
from pydantic import field_validator

from narrator.drive import ALREADY_ANSWERED
from narrator.drive import Headless
from narrator.files import KB
from narrator.files import Kind
from narrator.files import load_toml
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.chance import Chance
from narrator.rules.core import Deal
from narrator.rules.core import DealCard
from narrator.rules.core import Show
from narrator.rules.core import Switches
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NarratorError
from narrator.rules.errors import NotNow
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.registry import Variant
from narrator.rules.registry import check_players
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.rules.registry import make_switches
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog

# the longest real scenario is a few kilobytes; no answer of any game is longer than a
# few seats, so a longer text, even an answer, is not a value of a scenario file
SCENARIO_FILE = Kind("scenario file", 256 * KB, max_text=256, max_depth=8)
MAX_SEAT = 99  # no game seats more; the variant then checks its own range
SEAT_KEY = re.compile(r"[1-9][0-9]?", re.ASCII)  # "1" … "99", ASCII digits only
MAX_SEED = 2**64

AnswerValue = StrictStr | StrictInt


class ScenarioFile(BaseModel):
    """A scenario file, validated at the boundary (unknown keys are errors)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: StrictStr
    lang: Literal["ru", "en"] = "ru"
    seed: StrictInt = Field(0, gt=-MAX_SEED, lt=MAX_SEED)
    stop_before: StrictStr | None = Field(None, pattern=r"^[nd][0-9]{1,4}$")
    options: dict[StrictStr, Any] = Field(default_factory=dict)
    deal: dict[StrictStr, StrictStr | list[StrictStr]]
    answers: dict[StrictStr, AnswerValue | list[AnswerValue]] = Field(default_factory=dict)

    @field_validator("game")
    @classmethod
    def _known_game(cls, game: str) -> str:
        known = known_names()
        if game not in known:
            raise ValueError(f"unknown game {game!r}; known games: {', '.join(known)}")
        return game

    @field_validator("answers", mode="before")
    @classmethod
    def _answer_types(cls, answers: Any) -> Any:
        if not isinstance(answers, Mapping):
            return answers  # the model's own message: a table is expected
        for key, value in answers.items():
            for attempt in value if isinstance(value, list) else [value]:
                if isinstance(attempt, bool) or not isinstance(attempt, str | int):
                    raise ValueError(
                        f"answers.{key}: an answer is a text or a number "
                        f"(or a list of them), not {json.dumps(attempt, default=str)[:40]}"
                    )
        return answers

    @field_validator("deal")
    @classmethod
    def _deal_keys(cls, deal: dict[str, str | list[str]]) -> dict[str, str | list[str]]:
        for key, value in deal.items():
            if key == "center":
                if not isinstance(value, list):
                    raise ValueError("deal.center must be a list of role ids")
                continue
            if SEAT_KEY.fullmatch(key) is None:
                raise ValueError(
                    f"deal.{key}: keys are seat numbers 1..N (at most {MAX_SEAT}) and 'center'"
                )
            if not isinstance(value, str):
                raise ValueError(f"deal.{key}: a seat gets one role id")
        seats = sorted(int(k) for k in deal if k != "center")  # each at most MAX_SEAT
        if seats != list(range(1, len(seats) + 1)):
            missing = sorted(set(range(1, max(seats, default=0) + 1)) - set(seats))
            raise ValueError(f"seats missing from the deal: {', '.join(map(str, missing))}")
        return deal

    def to_deal(self) -> Deal:
        seats = sorted(int(k) for k in self.deal if k != "center")
        center = self.deal.get("center", [])
        return Deal(
            tuple(str(self.deal[str(s)]) for s in seats),
            tuple(center) if isinstance(center, list) else (),
        )

    def attempts(self, prompt_id: str) -> list[str]:
        given = self.answers.get(prompt_id, [])
        return [str(a) for a in (given if isinstance(given, list) else [given])]


def _first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "file"
    if first["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    message = str(first["msg"]).removeprefix("Value error, ")
    if message.startswith(f"{where}."):  # the message names the key more precisely
        return message
    return f"{where}: {message}"


def load_scenario(path: Path) -> ScenarioFile:
    """Read and validate a scenario file; every problem is a ConfigError."""
    data = load_toml(path, SCENARIO_FILE)
    try:
        scenario = ScenarioFile.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{path}: {_first_problem(error)}") from None
    try:
        _prepare(scenario)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}", error.key, error.params) from None
    return scenario


def _prepare(scenario: ScenarioFile) -> tuple[Variant, Switches, Deal]:
    """Check the game, the options and the deal; each problem names its key."""
    variant = get_variant(scenario.game)
    switches = make_switches(variant, scenario.options)
    deal = scenario.to_deal()
    try:
        check_players(variant, deal.players)
    except ConfigError as error:
        raise ConfigError(f"deal: {error}", error.key, error.params) from None
    variant.validate_deal(deal, switches)
    return variant, switches, deal


class ScenarioDriver(Headless):
    """Plays a scenario with no clock: every window passes at once. A chance whose id
    the file's ``[answers]`` give (``d2.order_drawn = "3 +"``) has that outcome."""

    def __init__(self, scenario: ScenarioFile, catalog: Catalog, record: GameRecord):
        stop = None if scenario.stop_before is None else PhaseId.parse(scenario.stop_before)
        super().__init__(catalog, record, stop)
        self.scenario = scenario
        self.transcript: list[str] = []
        self._used: dict[str, int] = {}  # prompt id -> attempts already played

    def _unused(self, prompt_id: str) -> list[str]:
        return self.scenario.attempts(prompt_id)[self._used.get(prompt_id, 0) :]

    def _take(self, prompt_id: str) -> list[str]:
        """Every attempt at ``prompt_id`` not played yet, now played."""
        attempts = self._unused(prompt_id)
        self._used[prompt_id] = self._used.get(prompt_id, 0) + len(attempts)
        return attempts

    def _line(self, text: str) -> None:
        self.transcript.append(f"[{self.phase}] {text}")

    def enter_phase(self, phase: PhaseId) -> None:
        self._line(f"=== {phase} ===")

    def say(self, key: str, text: str) -> None:
        self._line(f"» {text}")

    def wake(self, step: Wake) -> None:
        self._line(f"window {step.window}: {step.seconds:g} s, awake {list(step.seats)}")
        super().wake(step)

    def typed(self, prompt: Prompt) -> list[str]:
        return self._take(prompt.id)

    def took(self, prompt: Prompt, text: str) -> None:
        self._line(f"  {prompt.id} ← {text!r}: accepted")

    def expire(self, prompt: Prompt) -> Answer:
        answer = super().expire(prompt)
        self._line(f"  {prompt.id}: no valid answer, taken as {answer}")
        return answer

    def known(self, chance: Chance) -> str | None:
        """The first pinned outcome the chance can have (the others are rejected)."""
        pinned: str | None = None
        for text in self._take(chance.id):
            reason = ALREADY_ANSWERED if pinned is not None else None
            if reason is None:
                try:
                    chance.read(text)
                except NarratorError as error:
                    reason = str(error)
            if reason is not None:
                self.record.rejected(chance.id, text, reason)
                self._line(f"  {chance.id} ← {text!r}: rejected ({reason})")
                continue
            pinned = text
            self.record.accepted(chance.id, text)
            self._line(f"  {chance.id} ← {text!r}: accepted")
        return pinned

    def interrupted(self, timer: Timer) -> Answer | None:
        """The unused attempts in order, up to the first accepted one; an attempt meant
        for a later moment stops the walk and waits. A loop, not a recursion: a file may
        hold tens of thousands of wrong attempts."""
        prompt = timer.interrupt
        if prompt is None:
            return None
        for text in self._unused(prompt.id):
            try:
                prompt.accept(text)
            except NotNow:
                return None
            except NarratorError:
                pass  # a wrong attempt is rejected below, at the first moment it could apply
            self._used[prompt.id] = self._used.get(prompt.id, 0) + 1
            answer = self.attempt(prompt, text, answered=False)
            if answer is not None:
                self._line(f"  {timer.id} interrupted: {answer}")
                return answer
        return None

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        self._line(f"  {prompt.id} ← {text!r}: rejected ({error})")

    def show(self, step: Show) -> None:
        self._line(f"  secret {step.prompt} → {list(step.to)}: {step.secret.shown}")

    def sleep(self) -> None:
        self._line("  window ends")

    def deal_card(self, step: DealCard) -> None:
        self._line(f"  card for seat {step.seat}: {step.secret.shown}")

    def timer(self, step: Timer) -> Answer | None:
        speaker = f", speaker {step.seat}" if step.seat is not None else ""
        self._line(f"timer {step.id}: {step.seconds:g} s{speaker}")
        return super().timer(step)

    def finished(self, outcome: Any) -> None:
        self._line(f"winner: {outcome.winner}")


def run_scenario(scenario: ScenarioFile) -> tuple[dict[str, Any], list[str]]:
    """Play a scenario; return the contract's result and a readable transcript."""
    variant, switches, deal = _prepare(scenario)
    record = GameRecord()
    record.start(game=scenario.game, lang=scenario.lang, seed=scenario.seed)
    driver = ScenarioDriver(scenario, load_catalog(scenario.lang), record)
    driver.run(variant.new_game(deal, switches, random.Random(scenario.seed)))
    return record.result(scenario.game), driver.transcript
