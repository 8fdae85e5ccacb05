"""The keys hint of every night window is true for every answer the window takes, and
names no form it refuses: a guard told «1 — да», a witch told «0 — никого»
though she may not skip, a spirit told about centre cards.

The hint belongs to the window (which role wakes is public), so it is the same whether
the role is held, in the centre, dead or absent; its truth is checked against the
prompts asked in that window over whole games of every variant, with the optional
roles and rules that add answers switched on.
"""

from __future__ import annotations

import contextlib
import re
from collections import defaultdict
from typing import Any

import pytest

from narrator.host.table import TableDriver
from narrator.prepared import rules_rng
from narrator.prepared import stream
from narrator.record import GameRecord
from narrator.rules.answers import AnswerKind
from narrator.rules.core import Wake
from narrator.rules.core import shuffled_deal
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from tests.harness import FakeClock
from tests.harness import RecordingScreen
from tests.test_resume import SHORT
from tests.test_resume import Killed
from tests.test_resume import PolicyKeys
from tests.test_resume import table

# The parts of a hint, as the Russian catalog words them, and the answers they stand for.
PARTS = {
    AnswerKind.SEAT: "цифры — номер места",
    AnswerKind.NOBODY: "0 — никого",
    AnswerKind.YES_NO: "1 — «да»",
    AnswerKind.CENTER: "* и",
}
SEATS_PARTS = ("цифры — номер места", "2.5")  # several seats: one per shooter, or a pair
NOTHING = "вводить ничего не нужно"

GAMES = [
    ("onenight", 5, {}),
    ("onenight", 5, {"lone_wolf_peek": True}),
    ("halloween", 8, {}),
    ("halloween", 8, {"witch_may_skip": True}),
    ("sport_mafia", 10, {}),
    ("alliance", 10, {"cupid_enabled": True}),
]


def windows_and_prompts(game: str, players: int, options: dict[str, Any]) -> dict[str, Any]:
    """Over a few whole games: each window's hint, and what its prompts accept."""
    hints: dict[str, set[str]] = defaultdict(set)
    accepts: dict[str, set[AnswerKind]] = defaultdict(set)
    variant = get_variant(game)
    short = {k: v for k, v in SHORT.items() if k in variant.switches.model_fields}
    switches = make_switches(variant, {**short, **options})
    for seed in range(1, 7):
        deal = shuffled_deal(variant.composition(players, switches), players, stream(seed, "deal"))
        screen = RecordingScreen()
        keys = PolicyKeys(FakeClock(), f"hints{seed}")
        record = GameRecord()
        record.start(game=game, deal={"seats": list(deal.seats)}, players=players, seed=seed)
        driver = Watching(table(record, keys, screen=screen), screen, hints, accepts)
        with contextlib.suppress(Killed):
            driver.driver.run(variant.new_game(deal, switches, rules_rng(seed)))
    return {"hints": hints, "accepts": accepts}


class Watching:
    """The table driver of one game, with its windows and their prompts noted."""

    def __init__(
        self,
        driver: TableDriver,
        screen: RecordingScreen,
        hints: dict[str, set[str]],
        accepts: dict[str, set[AnswerKind]],
    ) -> None:
        self.driver, self.window = driver, ""
        wake, ask = driver.wake, driver.ask

        def watched_wake(step: Wake) -> None:
            wake(step)
            self.window = step.tag.action
            hints[self.window].add(screen.lines[-1])  # the hint is the window's last line

        def watched_ask(prompt: Prompt) -> Any:
            if driver._window is not None:
                accepts[self.window] |= set(prompt.accepts)
            return ask(prompt)

        driver.wake = watched_wake  # type: ignore[method-assign]
        driver.ask = watched_ask  # type: ignore[method-assign]


def unconditional(hint: str) -> str:
    """The hint without its parts that hold only under a house rule (in brackets)."""
    return re.sub(r"\([^)]*\)", "", hint).lower()


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_every_window_hint_is_true_for_its_answers(
    game: str, players: int, options: dict[str, Any]
) -> None:
    seen = windows_and_prompts(game, players, options)
    hints, accepts = seen["hints"], seen["accepts"]
    assert hints, "no window was opened"
    for window, shown in hints.items():
        assert len(shown) == 1, f"{window}: the hint changed between games: {shown}"
        hint = next(iter(shown)).lower()
        kinds = accepts.get(window, set())
        if not kinds and window != "werewolves":  # onenight's wolves: only with the rule
            assert NOTHING in hint, f"{window} takes nothing, its hint says {hint!r}"
            assert not any(part in unconditional(hint) for part in PARTS.values()), hint
            continue
        for kind in kinds:
            if kind == AnswerKind.SEATS:
                assert any(part in hint for part in SEATS_PARTS), (window, kind, hint)
            elif kind in PARTS:
                assert PARTS[kind] in hint, f"{window} takes {kind}, its hint: {hint!r}"
        for kind, part in PARTS.items():
            if part in unconditional(hint) and kind != AnswerKind.SEAT:
                assert kind in kinds, f"{window} refuses {kind}, its hint offers it: {hint!r}"
