"""A game ready to be played: its variant, rules, deal, catalog and seed.

One seed makes one game, through independent random streams: the deal, the knock
bed and the demo players each draw from their own child of
``numpy.random.SeedSequence(seed)``, so a recording of the knocks (or the demo
players' answers) says nothing about the cards. The rules' own coin flips draw
from ``random.Random(seed)``, as in a scenario file with that seed, so a game
record replays as a scenario.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import numpy as np

from narrator.resume import Done
from narrator.rules.core import Deal
from narrator.rules.core import Switches
from narrator.rules.core import shuffled_deal
from narrator.rules.registry import Variant
from narrator.rules.registry import check_players
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.settings import TableSettings
from narrator.settings import default_players
from narrator.settings import is_duration
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog

DEMO_SECONDS = 3.0  # every window, speech and timer of a demo game, unless given
STREAMS = ("deal", "sound", "demo")  # the children of SeedSequence(seed), in this order


def stream_seed(seed: int, name: str) -> int:
    """A 128-bit seed for the stream ``name`` (one of STREAMS) of the game seed ``seed``.

    Negative seeds are taken by their absolute value, as ``random.Random`` does.
    """
    child = np.random.SeedSequence(abs(seed)).spawn(len(STREAMS))[STREAMS.index(name)]
    return int.from_bytes(child.generate_state(4, np.uint32).tobytes(), "little")


def stream(seed: int, name: str) -> random.Random:
    """The random stream ``name`` of one game: ``deal``, ``sound`` or ``demo``."""
    return random.Random(stream_seed(seed, name))


def rules_rng(seed: int) -> random.Random:
    """The rules' coin flips (speaking order, ...): the scenario runner's stream."""
    return random.Random(seed)


@dataclass
class Prepared:
    variant: Variant
    switches: Switches
    deal: Deal
    catalog: Catalog
    seed: int
    players: int
    replay: tuple[Done, ...] = ()  # a resumed game: the steps played before it stopped
    kept: tuple[Done, ...] = ()  # ... and the answers given in the window it stopped in
    drawn: Mapping[str, str] = field(default_factory=dict)  # ... and what chance gave in it
    resumed_from: Path | None = None  # ... and the record it continues
    seats_kept: Mapping[int, str] = field(default_factory=dict)  # ... its phones' seats
    phones_port: int | None = None  # ... and the port they came to


def prepare(settings: TableSettings) -> Prepared:
    variant = get_variant(settings.game)
    players = settings.players if settings.players is not None else default_players(variant)
    check_players(variant, players)
    options = dict(settings.options)
    if settings.demo:
        for name, spec in variant.switches.model_fields.items():
            if is_duration(name, spec) and spec.default is not None:
                options.setdefault(name, min(float(spec.default), DEMO_SECONDS))
    switches = make_switches(variant, options)
    catalog = load_catalog(settings.lang)
    seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(2**32)
    deal = shuffled_deal(variant.composition(players, switches), players, stream(seed, "deal"))
    return Prepared(variant, switches, deal, catalog, seed, players)
