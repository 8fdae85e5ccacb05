"""The headless scenario runner of ``../shared/SCENARIOS.md``.

A scenario fixes the deal and every attempt at every prompt; the runner plays
the whole game instantly and returns the contract's JSON result.
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from narrator.drive import Driver
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.core import Deal, DealCard, Prompt, Say, Show, Switches, Timer, Wake
from narrator.rules.errors import ConfigError, NarratorError, NotNow
from narrator.rules.registry import Variant, check_players, get_variant, make_switches
from narrator.voice.catalog import Catalog, load_catalog

GameName = Literal["onenight", "halloween", "sport_mafia", "alliance"]
AnswerValue = str | int


class ScenarioFile(BaseModel):
    """A scenario file, validated at the boundary (unknown keys are errors)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: GameName
    lang: Literal["ru", "en"] = "ru"
    seed: int = 0
    stop_before: str | None = Field(None, pattern=r"^[nd]\d+$")
    options: dict[str, Any] = Field(default_factory=dict)
    deal: dict[str, str | list[str]]
    answers: dict[str, AnswerValue | list[AnswerValue]] = Field(default_factory=dict)

    @field_validator("deal")
    @classmethod
    def _deal_keys(cls, deal: dict[str, str | list[str]]) -> dict[str, str | list[str]]:
        for key, value in deal.items():
            if key == "center":
                if not isinstance(value, list):
                    raise ValueError("deal.center must be a list of role ids")
                continue
            if not key.isdigit() or int(key) < 1:
                raise ValueError(f"deal.{key}: keys are seat numbers 1..N (and 'center')")
            if not isinstance(value, str):
                raise ValueError(f"deal.{key}: a seat gets one role id")
        seats = sorted(int(k) for k in deal if k != "center")
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
    return f"{where}: {message}"


def load_scenario(path: Path) -> ScenarioFile:
    """Read and validate a scenario file; every problem is a ConfigError."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
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


class ScenarioDriver(Driver):
    """Plays a scenario with no clock: every window passes at once."""

    def __init__(self, scenario: ScenarioFile, catalog: Catalog, record: GameRecord):
        super().__init__(catalog, record, scenario.stop_before)
        self.scenario = scenario
        self.transcript: list[str] = []
        self._used: dict[str, int] = {}  # prompt id -> attempts already played

    def _unused(self, prompt_id: str) -> list[str]:
        return self.scenario.attempts(prompt_id)[self._used.get(prompt_id, 0) :]

    def _line(self, text: str) -> None:
        self.transcript.append(f"[{self.phase}] {text}")

    def enter_phase(self, phase: str) -> None:
        self._line(f"=== {phase} ===")

    def say(self, key: str, text: str) -> None:
        self._line(f"» {text}")

    def wake(self, step: Wake) -> None:
        self._line(f"window {step.window}: {step.seconds:g} s, awake {list(step.seats)}")
        for cue in step.cues:
            self.carry_out(cue)

    def ask(self, prompt: Prompt) -> Answer:
        accepted: Answer | None = None
        attempts = self._unused(prompt.id)
        self._used[prompt.id] = self._used.get(prompt.id, 0) + len(attempts)
        for text in attempts:
            answer = self.attempt(prompt, text, answered=accepted is not None)
            if answer is not None:
                accepted = answer
                self._line(f"  {prompt.id} ← {text!r}: accepted")
        if accepted is None:
            accepted = self.expire(prompt)
            self._line(f"  {prompt.id}: no valid answer, taken as {accepted}")
        return accepted

    def _interrupt(self, prompt: Prompt) -> Answer | None:
        """The next unused attempt, if it is meant for this moment (else it waits)."""
        attempts = self._unused(prompt.id)
        if not attempts:
            return None
        try:
            prompt.accept(attempts[0])
        except NotNow:
            return None
        except NarratorError:
            pass  # a wrong attempt is rejected below, at the first moment it could apply
        self._used[prompt.id] = self._used.get(prompt.id, 0) + 1
        answer = self.attempt(prompt, attempts[0], answered=False)
        return answer if answer is not None else self._interrupt(prompt)

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
        if step.interrupt is not None:
            interrupted = self._interrupt(step.interrupt)
            if interrupted is not None:
                self._line(f"  {step.id} interrupted: {interrupted}")
                return interrupted
        answer = None
        if step.prompt is not None:
            answer = self.ask(step.prompt)
            self.confirm(step, answer)
        for _, key in self.timer_warnings(step):
            self.carry_out(Say(key))
        return answer

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
