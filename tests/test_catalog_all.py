"""Both catalogs cover every line key, reason key and secret the engine emits, in every game."""

from __future__ import annotations

import random

import pytest

from narrator.drive import Headless
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.core import Eliminate
from narrator.rules.core import Say
from narrator.rules.core import Show
from narrator.rules.core import shuffled_deal
from narrator.rules.errors import NarratorError
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders

RU = load_catalog("ru")
EN = load_catalog("en")
GARBAGE = ("", "banana", "99", "0", "none none", "center 9", "abstain", "yes", "destroy", "1 +")


class RandomTable(Headless):
    """Plays instantly: random legal answers, with garbage first now and then."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(RU, GameRecord())
        self.rng = rng
        self.said: dict[str, set[str]] = {}
        self.reasons: dict[str, set[str]] = {}
        self.shown: set[tuple[str, str]] = set()

    def carry_out(self, step: object) -> Answer | None:
        if isinstance(step, Say):
            self.said.setdefault(step.key, set()).update(step.params)
        if isinstance(step, Eliminate):
            self.said.setdefault(f"cause.{step.cause}", set())
        return super().carry_out(step)  # type: ignore[arg-type]

    def typed(self, prompt: Prompt) -> list[str]:
        garbage = [self.rng.choice(GARBAGE)] if self.rng.random() < 0.3 else []
        if self.rng.random() < 0.1 or not prompt.options:
            return garbage
        return [*garbage, self.rng.choice(prompt.options)]

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        self.reasons.setdefault(error.key, set()).update(error.params)

    def show(self, step: Show) -> None:
        self.shown.add((step.secret.kind, step.secret.values[0] if step.secret.values else ""))


@pytest.mark.parametrize("game", known_names())
def test_every_emitted_key_is_in_both_catalogs(game: str) -> None:
    variant = get_variant(game)
    switches = make_switches(variant, {})
    said: dict[str, set[str]] = {}
    reasons: dict[str, set[str]] = {}
    shown: set[tuple[str, str]] = set()
    for seed in range(40):
        rng = random.Random(seed)
        players = rng.choice(list(variant.seat_counts))
        deal = shuffled_deal(variant.composition(players, switches), players, rng)
        table = RandomTable(rng)
        table.run(variant.new_game(deal, switches, random.Random(seed)))
        for key, params in table.said.items():
            said.setdefault(key, set()).update(params)
        for key, params in table.reasons.items():
            reasons.setdefault(key, set()).update(params)
        shown |= table.shown
    assert said, "the games said nothing"
    for catalog in (RU, EN):
        for key, params in {**said, **reasons}.items():
            assert key in catalog.lines, f"{key} is missing from the {catalog.lang} catalog"
            assert params == placeholders(catalog.lines[key]), f"{key} in {catalog.lang}"
        for kind, value in shown:
            if kind == "roles":
                assert f"role.{value}" in catalog.lines
            elif kind == "token":
                assert f"secret.{value}" in catalog.lines


def test_both_catalogs_have_the_same_keys_and_placeholders() -> None:
    assert RU.lines.keys() == EN.lines.keys()
    for key in RU.lines:
        assert placeholders(RU.lines[key]) == placeholders(EN.lines[key]), key
