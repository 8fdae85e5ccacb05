"""``scripts/fuzz_games.py`` in small: games answered with garbage keep every invariant.

The script plays thousands of games per variant (see its docstring); here a few dozen
of each registered game (the toy game too) with a fixed seed, and each kind of bug it
counts is planted once to prove that it is found: a crash, a rejected attempt that
changes the game, an answer outside a prompt's options.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from narrator import drive
from narrator.rules import codec
from narrator.rules import sport_mafia
from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.phases import day
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from tests.support import load_script

GAMES_PER_VARIANT = 40
SEED = 13


fuzz_games = load_script("fuzz_games")


def statuses(variant: str, games: int, seed: int = SEED) -> Counter[str]:
    report = fuzz_games.fuzz([variant], games, seed, timeout=0)
    return Counter(result.status for result in report.results)


def test_a_small_fuzz_run_finds_nothing() -> None:
    report = fuzz_games.fuzz(known_names(), GAMES_PER_VARIANT, SEED, timeout=0)
    assert len(report.results) == GAMES_PER_VARIANT * len(known_names())
    assert not report.failures(), fuzz_games.summary(report)
    tally: Counter[str] = Counter()
    for result in report.results:
        tally.update(result.tally)
    for kind in (*fuzz_games.KINDS, "interrupt", "closed", "accepted", "rejected"):
        assert tally[kind], f"no {kind} attempt was made"


def test_every_seat_count_is_played_and_a_seed_gives_the_same_games() -> None:
    for name in known_names():
        cases = list(fuzz_games.cases(name, 12, SEED))
        assert {case.players for case in cases} == set(get_variant(name).seat_counts)
        assert cases == list(fuzz_games.cases(name, 12, SEED))
    case = fuzz_games.Case("alliance", 12, 7)
    first, again = fuzz_games.play_case(case), fuzz_games.play_case(case)
    assert first.status == again.status == "ok"
    assert (first.attempts, first.tally) == (again.attempts, again.tally)


def test_a_case_replays_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_games.main(["--replay", "halloween/8/5"]) == 0
    assert capsys.readouterr().out.startswith("halloween/8/5: ok")


def test_a_crash_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    real = codec.from_keys

    def from_keys(typed: str, prompt: Prompt) -> str:
        if typed.startswith("*"):
            raise IndexError("planted")
        return real(typed, prompt)

    monkeypatch.setattr(codec, "from_keys", from_keys)
    assert statuses("sport_mafia", 8)["crash"] > 0


def test_a_rejected_attempt_that_changes_the_game_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A driver that counts a refused hand count as one hand when the vote expires."""
    attempt, expire = drive.Driver.attempt, drive.Driver.expire

    def remembering(self: drive.Driver, prompt: Prompt, text: str, answered: bool) -> Answer | None:
        answer = attempt(self, prompt, text, answered)
        if answer is None:
            self.__dict__.setdefault("refused", set()).add(prompt.id)
        return answer

    def leaky(self: drive.Driver, prompt: Prompt) -> Answer:
        if AnswerKind.COUNT in prompt.accepts and prompt.id in self.__dict__.get("refused", ()):
            return CountAnswer(1)
        return expire(self, prompt)

    monkeypatch.setattr(drive.Driver, "attempt", remembering)
    monkeypatch.setattr(drive.Driver, "expire", leaky)
    assert statuses("sport_mafia", 8)["illegal"] > 0


def test_an_answer_outside_the_options_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand count that takes more hands than there are voters left."""
    real = sport_mafia.count_prompt

    def count_prompt(tag: Tag, most: int) -> Prompt:
        return dataclasses.replace(real(tag, most), check=lambda answer: None)

    monkeypatch.setattr(sport_mafia, "count_prompt", count_prompt)
    assert statuses("sport_mafia", 8)["illegal"] > 0


def test_an_accepted_answer_must_be_made_of_the_options() -> None:
    """Shots are listed by example: any entries of living seats or none, one per shooter."""
    outside = fuzz_games.outside_options
    shoot = sport_mafia.shoot_prompt(1, (3, 6, 9), (1, 2, 3, 4, 6, 7, 8, 9, 10))
    legal = [shoot.accept(option) for option in shoot.options]
    for text in ("7 7 7", "7 8 none", "none", "none none none", "1 2 3"):
        assert not outside(shoot.accept(text), shoot, legal), text
    for seats in ((5, 5, 5), (7, 7), (7, 7, 7, 7)):  # a dead seat, too few or too many entries
        assert outside(SeatsAnswer(seats), shoot, legal), seats
    vote = sport_mafia.count_prompt(Tag(day(1), "vote", 4), 3)
    assert outside(CountAnswer(4), vote, [vote.accept(option) for option in vote.options])
