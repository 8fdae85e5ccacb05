"""The registry: one place to look a game up by name."""

from __future__ import annotations

import pytest

from narrator.rules import registry
from narrator.rules.errors import ConfigError


def test_unknown_game_lists_the_playable_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown game 'chess'; known games: onenight"):
        registry.get_variant("chess")


def test_a_planned_game_without_its_module_is_not_playable_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    modules = {**registry._MODULES, "future": "narrator.rules.no_such_module"}
    monkeypatch.setattr(registry, "_MODULES", modules)
    with pytest.raises(ConfigError, match="game 'future' is not playable yet"):
        registry.get_variant("future")
    assert "future" not in registry.known_names()


def test_every_playable_game_has_a_consistent_variant() -> None:
    for name in registry.known_names():
        variant = registry.get_variant(name)
        assert variant.name == name
        assert len(variant.seat_counts) >= 1
