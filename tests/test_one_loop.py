"""One loop: the simulator's fast path plays every game exactly as the Headless driver does.

``narrator.simulate.driver.play`` keeps nothing (no text, no record) to play thousands of
games a second; the balance figures it gives must be those of the driver every other
headless run uses. Here both loops play the same games, dealt and answered from the same
streams by the same policies, and must agree on the winner, every elimination and the
number of nights and days.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from narrator.drive import Headless
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.core import Eliminate
from narrator.rules.core import Game
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.core import shuffled_deal
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.simulate.driver import GameResult
from narrator.simulate.driver import Players
from narrator.simulate.driver import game_rngs
from narrator.simulate.driver import play
from narrator.simulate.driver import tell
from narrator.simulate.players import RandomPlayers
from narrator.simulate.run import Setup
from narrator.simulate.run import check_setup
from narrator.simulate.run import players_maker
from narrator.voice.catalog import load_catalog

SEEDS = 200
PLAYERS = {"onenight": 5, "halloween": 10, "sport_mafia": 10, "alliance": 12}


class PolicyTable(Headless):
    """The Headless driver answered by a simulation's players, who are told what they
    would be told at the simulator's table (the script's own steps, not a timer's
    warnings or a window's cues)."""

    def __init__(self, players: Players) -> None:
        super().__init__(load_catalog("en"), GameRecord())
        self.players = players
        self.alive: list[int] = []
        self.nights = self.days = 0
        self.causes: list[str] = []
        self._inside = False  # in a window or a timer: its lines are not the script's steps

    def run(self, game: Game) -> Outcome | None:
        self.alive = list(range(1, game.deal.players + 1))
        return super().run(game)

    def result(self, outcome: Outcome | None) -> GameResult:
        winner = outcome.winner if outcome is not None else None
        return GameResult(winner, self.nights, self.days, tuple(self.causes))

    def carry_out(self, step: Step) -> Answer | None:
        if isinstance(step, Eliminate):
            self.causes.append(step.cause)
            self.alive.remove(step.seat)
        answer = super().carry_out(step)
        if self.players.watching and not self._inside:
            self._tell(step)
        return answer

    def _tell(self, step: Step) -> None:
        players = self.players
        if isinstance(step, Say):
            players.said(step)
        elif isinstance(step, Phase):
            players.phase(step.id)
        elif isinstance(step, Eliminate):
            players.eliminated(step)
        else:
            tell(step, players)  # a secret shown, a card dealt, a window, the badge

    def enter_phase(self, phase: PhaseId) -> None:
        if phase.kind == "night":
            self.nights += phase.number > 0
        elif phase.kind == "day":
            self.days += 1

    def typed(self, prompt: Prompt) -> list[str]:
        text = self.players.answer(prompt, tuple(self.alive))
        return [] if text is None else [text]

    def ask(self, prompt: Prompt) -> Answer:
        answer = super().ask(prompt)
        if self.players.watching:
            self.players.answered(prompt, answer)
        return answer

    def interjections(self, timer: Timer, prompt: Prompt) -> list[str]:
        text = self.players.interrupt(timer, tuple(self.alive))
        return [] if text is None else [text]

    def interrupted(self, timer: Timer) -> Answer | None:
        answer = super().interrupted(timer)
        if answer is not None and timer.interrupt is not None and self.players.watching:
            self.players.answered(timer.interrupt, answer)
        return answer

    def timer(self, step: Timer) -> Answer | None:
        if self.players.watching:
            self.players.talk(step, tuple(self.alive))
        self._inside = True
        try:
            return super().timer(step)
        finally:
            self._inside = False

    def wake(self, step: Wake) -> None:
        self._inside = True
        try:
            super().wake(step)
        finally:
            self._inside = False


def both_loops(setup: Setup, index: int) -> tuple[GameResult, GameResult]:
    table = check_setup(setup)
    make = players_maker(table)
    results = []
    for loop in ("fast", "driver"):
        chance, rules = game_rngs(0, index)
        deal = shuffled_deal(table.composition, setup.players, chance)
        game = table.variant.new_game(deal, table.switches, rules)
        if loop == "fast":
            results.append(play(game, make(chance)))
        else:
            driver = PolicyTable(make(chance))
            results.append(driver.result(driver.run(game)))
    return results[0], results[1]


@pytest.mark.parametrize("policy", ["random", "informed"])
@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_the_simulator_and_the_driver_play_the_same_games(game: str, policy: str) -> None:
    setup = Setup(game, PLAYERS[game], policy=policy)
    seen: set[Any] = set()
    for index in range(SEEDS):
        fast, driven = both_loops(setup, index)
        assert fast == driven, f"{game} {policy}, game {index}"
        seen.add(fast.winner)
    assert len(seen) > 1  # the games differ: more than one side wins some


class Exploding(RandomPlayers):
    """Random players of whom a werewolf now and then explodes during a speech."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.rng = rng

    def interrupt(self, timer: Timer, alive: tuple[int, ...]) -> str | None:
        options = timer.interrupt.options if timer.interrupt is not None else ()
        return self.rng.choice(options) if options and self.rng.random() < 0.2 else None


def test_both_loops_end_a_speech_that_an_interrupt_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("narrator.simulate.run.RandomPlayers", Exploding)
    setup = Setup("alliance", 12)
    causes: set[str] = set()
    for index in range(SEEDS):
        fast, driven = both_loops(setup, index)
        assert fast == driven, f"alliance exploding, game {index}"
        causes.update(fast.causes)
    assert "exploded" in causes
