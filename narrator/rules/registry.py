"""One registry of variants, looked up by name."""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from typing import Protocol

from pydantic import ValidationError

from narrator.rules.core import Composition
from narrator.rules.core import Deal
from narrator.rules.core import Game
from narrator.rules.core import Role
from narrator.rules.core import Switches
from narrator.rules.errors import ConfigError


class Variant(Protocol):
    """What the host and the scenario runner need to know of a game family."""

    @property
    def name(self) -> str: ...

    @property
    def roles(self) -> Mapping[str, Role]: ...

    @property
    def switches(self) -> type[Switches]: ...

    @property
    def seat_counts(self) -> range: ...

    def composition(self, players: int, switches: Switches) -> Composition: ...

    def validate_deal(self, deal: Deal, switches: Switches) -> None: ...

    def new_game(self, deal: Deal, switches: Switches, rng: random.Random) -> Game: ...


# The games of this package. Each module defines ``VARIANT``; a module not written
# yet is a planned game.
GAMES: Mapping[str, str] = MappingProxyType(
    {
        "onenight": "narrator.rules.onenight",
        "halloween": "narrator.rules.halloween",
        "sport_mafia": "narrator.rules.sport_mafia",
        "alliance": "narrator.rules.alliance",
    }
)
_MODULES: dict[str, str] = dict(GAMES)


def register(name: str, module: str) -> None:
    """Add a game kept outside this package, e.g. the tests' toy variant.

    ``module`` is imported at once and must define ``VARIANT`` named ``name``, so a
    typo fails here rather than as a game that is "not playable yet". The game is
    known only to the process that registered it; :data:`GAMES` never changes.
    """
    taken = _MODULES.get(name)
    if taken is not None and taken != module:
        raise ConfigError(f"game {name!r} is already registered by {taken}")
    variant: Variant = importlib.import_module(module).VARIANT
    if variant.name != name:
        raise ConfigError(f"{module} defines the game {variant.name!r}, not {name!r}")
    _MODULES[name] = module


def outside_modules() -> tuple[str, ...]:
    """The modules of registered games kept outside this package (their catalogs sit
    beside them, in ``lines/<lang>/``)."""
    return tuple(module for name, module in _MODULES.items() if name not in GAMES)


def _load(name: str) -> Variant | None:
    try:
        module = importlib.import_module(_MODULES[name])
    except ModuleNotFoundError as error:
        if error.name != _MODULES[name]:
            raise
        return None
    variant: Variant = module.VARIANT
    return variant


def known_names() -> tuple[str, ...]:
    """The playable games, in the order of the registry."""
    return tuple(name for name in _MODULES if _load(name) is not None)


def get_variant(name: str) -> Variant:
    variant = _load(name) if name in _MODULES else None
    if variant is not None:
        return variant
    known = ", ".join(known_names())
    if name in _MODULES:
        raise ConfigError(f"game {name!r} is not playable yet; playable games: {known}")
    raise ConfigError(f"unknown game {name!r}; known games: {known}")


def check_players(variant: Variant, players: int) -> None:
    seats = variant.seat_counts
    if players not in seats:
        allowed = f"exactly {seats.start}" if len(seats) == 1 else f"{seats.start}–{seats.stop - 1}"
        raise ConfigError(f"{variant.name} is played by {allowed} players, not {players}")


def make_switches(variant: Variant, options: Mapping[str, Any]) -> Switches:
    """Validate rule switches; an unknown key or a bad value is a ConfigError."""
    try:
        return variant.switches.model_validate(dict(options))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        if first["type"] == "extra_forbidden":
            allowed = ", ".join(variant.switches.model_fields)
            raise ConfigError(
                f"options.{where}: unknown option for {variant.name} (known: {allowed})"
            ) from None
        message = str(first["msg"]).removeprefix("Value error, ")
        # A check across several switches has no single location.
        place = f"options.{where}" if where else "options"
        raise ConfigError(f"{place}: {message}") from None
