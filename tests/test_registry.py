"""The registry: one place to look a game up by name; every game's switches and role overrides.

The switch and override cases of all games stand in one table each, so a rule
about options (strict types, ranges, an unknown name listing the known ones)
is tested the same way for every game.
"""

from __future__ import annotations

import pytest

from narrator.rules import registry
from narrator.rules.errors import ConfigError
from narrator.rules.registry import GAMES
from narrator.rules.registry import check_players
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.rules.registry import make_switches


def test_unknown_game_lists_the_playable_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown game 'chess'; known games: onenight") as caught:
        registry.get_variant("chess")
    for name in known_names():
        assert name in str(caught.value)


def test_a_planned_game_without_its_module_is_not_playable_yet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    modules = {**registry._MODULES, "future": "narrator.rules.no_such_module"}
    monkeypatch.setattr(registry, "_MODULES", modules)
    with pytest.raises(ConfigError, match="game 'future' is not playable yet"):
        registry.get_variant("future")
    assert "future" not in registry.known_names()


def test_every_playable_game_has_a_consistent_variant() -> None:
    for name in known_names():
        variant = get_variant(name)
        assert variant.name == name
        assert len(variant.seat_counts) >= 1


def test_the_toy_game_is_known_only_where_it_was_registered() -> None:
    assert "toy" in known_names()  # tests/conftest.py registers it
    assert "toy" not in GAMES
    assert set(known_names()) - set(GAMES) == {"toy"}


def test_register_checks_the_name_and_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_MODULES", dict(registry._MODULES))
    with pytest.raises(ConfigError, match=r"already registered by narrator\.rules\.onenight"):
        registry.register("onenight", "tests.toy_variant")
    with pytest.raises(ConfigError, match="defines the game 'toy', not 'other'"):
        registry.register("other", "tests.toy_variant")
    with pytest.raises(ModuleNotFoundError):
        registry.register("other", "tests.no_such_module")
    registry.register("toy", "tests.toy_variant")  # again, the same: nothing changes
    assert "other" not in known_names()


@pytest.mark.parametrize("game", known_names())
def test_a_table_size_outside_the_range_is_refused_naming_it(game: str) -> None:
    variant = get_variant(game)
    seats = variant.seat_counts
    for players in seats:
        check_players(variant, players)
    for players in (0, seats.start - 1, seats.stop):
        pattern = rf"{game} is played by .*{seats.start}.* players, not {players}$"
        with pytest.raises(ConfigError, match=pattern):
            check_players(variant, players)
    if len(seats) == 1:
        with pytest.raises(ConfigError, match=f"exactly {seats.start} players"):
            check_players(variant, seats.stop)


# --- every game's switches (docs/rules.md §5) --------------------------------------------------


@pytest.mark.parametrize("game", known_names())
def test_an_unknown_switch_lists_the_known_ones(game: str) -> None:
    variant = get_variant(game)
    with pytest.raises(ConfigError) as caught:
        make_switches(variant, {"lone_wolf": True})
    message = str(caught.value)
    assert message.startswith(f"options.lone_wolf: unknown option for {game}")
    for known in variant.switches.model_fields:
        assert known in message


@pytest.mark.parametrize("game", known_names())
def test_a_switch_of_another_game_is_unknown_here(game: str) -> None:
    ours = set(get_variant(game).switches.model_fields)
    others = {name for other in known_names() for name in get_variant(other).switches.model_fields}
    for name in sorted(others - ours):
        with pytest.raises(ConfigError, match=f"options.{name}: unknown option"):
            make_switches(get_variant(game), {name: True})


# (game, switch, values it refuses): out of range, or of the wrong type ("3" is no 3,
# 1 and "yes" are no true).
BAD_SWITCHES: list[tuple[str, str, tuple[object, ...]]] = [
    ("onenight", "center_cards", (0, 6, "3", 3.0, True)),
    ("onenight", "seer_center_count", (0, 4)),
    ("onenight", "window_s", (0,)),
    ("onenight", "discussion_s", (-1,)),
    ("onenight", "lone_wolf_peek", (1, "true")),
    ("onenight", "allow_self_vote", ("yes",)),
    ("onenight", "roles", (5,)),
    ("halloween", "cycle_limit", (0, 31, "6")),
    ("halloween", "vampires_s", (0,)),
    ("halloween", "witch_s", (121,)),
    ("halloween", "window_s", (0,)),
    ("halloween", "silence_s", (-1,)),
    ("halloween", "discussion_s", (-5,)),
    ("halloween", "call_dead_roles", ("yes",)),
    ("halloween", "roles", (3,)),
    ("sport_mafia", "shooting", ("x", "Enter")),
    ("sport_mafia", "speech_s", (0,)),
    ("sport_mafia", "check_s", ("10",)),
    ("sport_mafia", "shot_call_s", (-1.5,)),
    ("sport_mafia", "unvoted_to_last", ("yes",)),
    ("sport_mafia", "call_dead_roles", (1,)),
    ("sport_mafia", "allow_self_nomination", ("true",)),
    ("sport_mafia", "roles", (5,)),
]


@pytest.mark.parametrize(
    ("game", "name", "value"),
    [(game, name, value) for game, name, values in BAD_SWITCHES for value in values],
)
def test_a_bad_switch_value_is_refused_by_name(game: str, name: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"options.{name}"):
        make_switches(get_variant(game), {name: value})


# --- every game's role override ---------------------------------------------------------------

# game -> (players, override, the counts it gives: "role=count ...")
ROLE_OVERRIDES: dict[str, list[tuple[int, str, str]]] = {
    "onenight": [
        (5, "werewolf=1", "werewolf=1 high_inquisitor=1 spirit=1 inquisitor=5"),
        (5, "werewolf=3,spirit=0", "werewolf=3 high_inquisitor=1 spirit=0 inquisitor=4"),
        (3, "high_inquisitor=0, spirit=0", "werewolf=2 high_inquisitor=0 spirit=0 inquisitor=4"),
        (7, " werewolf = 4 ", "werewolf=4 high_inquisitor=1 spirit=1 inquisitor=4"),
    ],
    "alliance": [
        (10, "werewolf=2,guard=0", "werewolf=2 seer=1 witch=1 hunter=1 villager=5"),
    ],
    "halloween": [
        (10, "vampire=3,witch=1,hunter=1", "vampire=3 witch=1 hunter=1 villager=5"),
        (8, "vampire=3", "vampire=3 witch=1 hunter=1 villager=3"),
        (7, "vampire=1,hunter=0", "vampire=1 witch=1 hunter=0 villager=5"),
        (9, "witch=0, hunter=0", "vampire=2 witch=0 hunter=0 villager=7"),
        (7, "vampire=3,villager=2", "vampire=3 witch=1 hunter=1 villager=2"),
    ],
}


@pytest.mark.parametrize(
    ("game", "players", "roles", "counts"),
    [(game, *case) for game, cases in ROLE_OVERRIDES.items() for case in cases],
)
def test_a_roles_override_sets_the_counts(game: str, players: int, roles: str, counts: str) -> None:
    variant = get_variant(game)
    composition = variant.composition(players, make_switches(variant, {"roles": roles}))
    expected = {role: int(n) for role, n in (pair.split("=") for pair in counts.split())}
    assert dict(composition.counts) == expected
    assert len(composition.deck()) == players + composition.center


BAD_ROLE_OVERRIDES: list[tuple[str, int, str, str]] = [
    ("onenight", 5, "vampire=1", "unknown role 'vampire'"),
    ("onenight", 5, "werewolf", "should look like 'role=count'"),
    ("onenight", 5, "werewolf=two", "should look like 'role=count'"),
    ("onenight", 5, "werewolf=1,werewolf=2", "given twice"),
    ("onenight", 5, "werewolf=0", "at least one werewolf"),
    ("onenight", 5, "inquisitor=3", "the rest of the deck"),
    ("onenight", 5, "high_inquisitor=2", "at most one high_inquisitor"),
    ("onenight", 5, "spirit=2", "at most one spirit"),
    ("onenight", 3, "werewolf=5", "do not fit a deck of 6"),
    ("onenight", 3, "werewolf=3", "fewer than the others"),
    ("halloween", 8, "werewolf=2", "unknown role 'werewolf'"),
    ("halloween", 8, "vampire", "should look like 'role=count'"),
    ("halloween", 8, "vampire=0", "at least one vampire"),
    ("halloween", 8, "witch=2", "at most one witch"),
    ("halloween", 8, "hunter=2", "at most one hunter"),
    ("halloween", 8, "vampire=4", "fewer than the others"),
    ("halloween", 7, "vampire=4,witch=0,hunter=0", "fewer than the others"),
    ("halloween", 7, "vampire=6", "do not fit 7 players"),
    ("halloween", 8, "vampire=2,villager=2", "8 players"),
    ("alliance", 12, "werewolf=0", "at least one werewolf"),
    ("alliance", 9, "werewolf=5", "fewer than the others"),
    ("alliance", 12, "werewolf=6", "fewer than the others"),
    ("alliance", 12, "seer=2", "at most one seer"),
    ("alliance", 9, "werewolf=3,villager=2", "cards for 9 players"),
    ("alliance", 10, "werewolf=5,villager=1", "fewer than the others"),
    ("alliance", 9, "werewolf=3,guard=1,cupid=0,seer=1,witch=1,hunter=1,villager=3", "cards for 9"),
]


@pytest.mark.parametrize(("game", "players", "roles", "problem"), BAD_ROLE_OVERRIDES)
def test_a_bad_roles_override_names_the_problem(
    game: str, players: int, roles: str, problem: str
) -> None:
    variant = get_variant(game)
    with pytest.raises(ConfigError, match=problem):
        variant.composition(players, make_switches(variant, {"roles": roles}))
