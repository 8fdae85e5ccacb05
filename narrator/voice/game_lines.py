"""What a game may say: the catalog lines a variant speaks, and every form they take.

``spoken_keys`` are the catalog keys a game of a variant may say (its own
sections and the spoken ones of ``common.toml``; screen-only sections never);
``lines_to_render`` fills their placeholders over practical domains, so the
speech cache can render a game's lines before it starts (``narrator voice
build``, rendering ahead) and a voice pack knows what to record.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from importlib import resources

from narrator.rules.core import Param
from narrator.rules.core import RoleName
from narrator.rules.registry import Variant
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders

# Sections that are only ever shown on the screen, never spoken.
SILENT_SECTIONS = frozenset(
    {
        "screen",
        "reason",
        "prompt",
        "label",
        "secret",
        "role",
        "winner",
        "tui",
        "setup",
        "shown",
        "keys",
        "answer",
        "cause",
    }
)
# The sections of common.toml that a game speaks from (the rest is screen text).
SPOKEN_SHARED = frozenset({"deal", "timer", "reveal", "undo"})
# A variant whose catalog section is not called like the variant.
SECTION_OF = {"sport_mafia": "sport"}
DEFAULT_SEATS = 12
CENTER_CARDS = range(1, 6)  # onenight's centre_cards switch: 1–5
CYCLES = range(1, 31)  # halloween's cycle_limit switch: 1–30
# A line with more combinations than this is rendered on demand at game time.
MOST_COMBINATIONS = 200


def _tables(lang: str, file: str) -> list[str]:
    part = resources.files("narrator.voice").joinpath("lines", lang, file)
    if not part.is_file():
        return []
    return [name for name, value in tomllib.loads(part.read_text("utf-8")).items() if value]


def _sections(lang: str, variant: Variant) -> list[str]:
    """The catalog sections a game of ``variant`` speaks from: its own, then the shared ones."""
    own = [*_tables(lang, f"{variant.name}.toml"), SECTION_OF.get(variant.name, variant.name)]
    shared = [s for s in _tables(lang, "common.toml") if s in SPOKEN_SHARED]
    return [s for s in dict.fromkeys([*own, *shared]) if s not in SILENT_SECTIONS]


def spoken_keys(lang: str, variant: str | None) -> list[str]:
    """Every catalog key a game of ``variant`` (None: of any game) may say, in catalog order."""
    catalog = load_catalog(lang)
    names = [variant] if variant is not None else list(known_names())
    sections: set[str] = set()
    for name in names:
        sections.update(_sections(lang, get_variant(name)))
    return [key for key in catalog.lines if key.split(".", 1)[0] in sections]


def domains(variant: Variant) -> dict[str, Sequence[Param]]:
    seats = variant.seat_counts
    last = seats.stop - 1 if len(seats) else DEFAULT_SEATS
    return {
        "seat": range(1, last + 1),
        "players": seats,
        "count": range(0, last + 1),
        "center": CENTER_CARDS,
        "index": CENTER_CARDS,
        "cycles": CYCLES,
        "role": [RoleName(role) for role in variant.roles],
    }


def fillings(
    names: frozenset[str], values_of: Mapping[str, Sequence[Param]]
) -> Iterator[dict[str, Param]]:
    order = sorted(names)
    for values in itertools.product(*(values_of[name] for name in order)):
        yield dict(zip(order, values, strict=True))


def lines_to_render(lang: str, variant: str | None) -> list[str]:
    """Every displayed line a game of ``variant`` (None: any game) may say, each once.

    Placeholders are filled over practical domains: seats 1…the variant's largest
    table, roles of the variant, small counts.  Lines with a ``{seats}`` list, with
    a placeholder of no known domain (halloween's free composition) or with more
    than MOST_COMBINATIONS fillings are left out: they are rendered when said.
    """
    catalog = load_catalog(lang)
    names = [variant] if variant is not None else list(known_names())
    texts: dict[str, None] = {}
    for name in names:
        rules = get_variant(name)
        values_of = domains(rules)
        for key in spoken_keys(lang, name):
            wanted = placeholders(catalog.lines[key])
            if not wanted <= values_of.keys():
                continue
            if math.prod(len(values_of[p]) for p in wanted) > MOST_COMBINATIONS:
                continue
            for params in fillings(wanted, values_of):
                texts[catalog.text(key, params)] = None
    return list(texts)
