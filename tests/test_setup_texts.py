"""The set-up screen's texts: every rule switch, every role and every game explained.

They live under ``setup.<game>.`` in each game's catalog, a section that is only
shown on the screen (never spoken, never rendered to speech):

* ``setup.<game>.switch.<field>.name``: a short label;
* ``setup.<game>.switch.<field>.hint``: one line, what it does and the default;
* ``setup.<game>.switch.<field>.choice.<value>``: each value of a ``Literal`` switch;
* ``setup.<game>.about.summary``: the game's rules, for the "Rules" page;
* ``setup.<game>.about.role.<role>``: one line per role, its team and what it does.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator

import pytest
from pydantic.fields import FieldInfo

from narrator.rules.errors import ConfigError
from narrator.rules.registry import GAMES
from narrator.rules.registry import Variant
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.rules.registry import make_switches
from narrator.voice.catalog import LANGUAGES
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from narrator.voice.game_lines import spoken_keys

NAME_MOST = 32  # characters of a switch's label or a choice's label
LINE_MOST = 90  # characters of a hint or a role line
SUMMARY_LINES = 22
SUMMARY_WIDTH = 76

CYRILLIC = re.compile("[А-Яа-яЁё]")
# Words of the rules specification that mean nothing to players.
SPEC_WORDS = ("RULES", "INFERRED", "PROP", "[SRC", "§")
SECTION_REF = re.compile(r"\(\d+\.\d+(?:, ?\d+\.\d+)*\)")  # "(4.2, 4.9)", "(0.5)"
MARKDOWN_FILE = re.compile(r"[\w/.-]+\.md\b", re.IGNORECASE)  # a file players do not have
ROLES_EXAMPLE = re.compile(r"\b[a-z_]+=\d+(?:,[a-z_]+=\d+)*")  # "vampire=3,witch=1"

# The games of this package (not the tests' toy game).
OUR_GAMES = tuple(name for name in known_names() if name in GAMES)
CASES = [(game, lang) for game in OUR_GAMES for lang in LANGUAGES]


def key(game: str, *parts: str) -> str:
    return ".".join(("setup", game, *parts))


def switches(game: str) -> dict[str, FieldInfo]:
    return dict(get_variant(game).switches.model_fields)


def choices(spec: FieldInfo) -> tuple[str, ...]:
    if typing.get_origin(spec.annotation) is typing.Literal:
        return tuple(str(value) for value in typing.get_args(spec.annotation))
    return ()


def expected_keys(game: str) -> set[str]:
    """Every key the set-up screen of ``game`` reads."""
    keys = {key(game, "about", "summary")}
    keys |= {key(game, "about", "role", role) for role in get_variant(game).roles}
    for name, spec in switches(game).items():
        keys |= {key(game, "switch", name, "name"), key(game, "switch", name, "hint")}
        keys |= {key(game, "switch", name, "choice", value) for value in choices(spec)}
    return keys


def texts(catalog: Catalog, game: str) -> Iterator[tuple[str, str]]:
    prefix = key(game) + "."
    for name, text in catalog.lines.items():
        if name.startswith(prefix):
            yield name, text


def python_names() -> set[str]:
    """Switch names that can only be Python (``lone_wolf_peek``), of every game.

    One-word names (``roles``, ``shooting``) are plain words and may appear.
    """
    return {name for game in OUR_GAMES for name in switches(game) if "_" in name}


def takes_override(variant: Variant) -> bool:
    """Whether the game's ``roles`` switch may change its composition at all."""
    try:
        variant.composition(variant.seat_counts.start, make_switches(variant, {"roles": ""}))
    except ConfigError:
        return False
    return True


def test_the_package_games_are_all_here() -> None:
    assert set(OUR_GAMES) == set(GAMES)


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_every_switch_choice_role_and_summary_has_a_text(game: str, lang: str) -> None:
    lines = load_catalog(lang).lines
    missing = sorted(name for name in expected_keys(game) if not lines.get(name, "").strip())
    assert missing == [], f"missing from the {lang} catalog"


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_no_text_for_a_switch_or_role_that_does_not_exist(game: str, lang: str) -> None:
    stray = sorted(set(dict(texts(load_catalog(lang), game))) - expected_keys(game))
    assert stray == [], "texts of renamed or removed switches / roles"


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_the_lengths_fit_the_screen(game: str, lang: str) -> None:
    too_long = []
    for name, text in texts(load_catalog(lang), game):
        if name.endswith(".summary"):
            rows = text.splitlines()
            if len(rows) > SUMMARY_LINES:
                too_long.append(f"{name}: {len(rows)} lines")
            too_long += [f"{name}: {row!r}" for row in rows if len(row) > SUMMARY_WIDTH]
            continue
        most = NAME_MOST if name.endswith(".name") or ".choice." in name else LINE_MOST
        if "\n" in text or len(text) > most:
            too_long.append(f"{name}: {len(text)} > {most}")
    assert too_long == []


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_no_spec_jargon_and_no_python_names(game: str, lang: str) -> None:
    names = python_names()
    found = []
    for name, text in texts(load_catalog(lang), game):
        found += [f"{name}: {word}" for word in SPEC_WORDS if word in text]
        found += [f"{name}: {ref}" for ref in SECTION_REF.findall(text)]
        found += [f"{name}: {field}" for field in names if field in text]
        found += [f"{name}: {page}" for page in MARKDOWN_FILE.findall(text)]
    assert found == []


@pytest.mark.parametrize("game", OUR_GAMES)
def test_russian_is_cyrillic_and_english_is_not(game: str) -> None:
    ru = [name for name, text in texts(load_catalog("ru"), game) if not CYRILLIC.search(text)]
    en = [name for name, text in texts(load_catalog("en"), game) if CYRILLIC.search(text)]
    assert (ru, en) == ([], [])


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_seconds_say_seconds_and_numbers_their_default(game: str, lang: str) -> None:
    lines = load_catalog(lang).lines
    word = {"ru": "секунд", "en": "second"}[lang]
    wrong = []
    for name, spec in switches(game).items():
        hint = lines[key(game, "switch", name, "hint")]
        if name.endswith("_s") and word not in hint:
            wrong.append(f"{name}: no {word!r}")
        if spec.annotation in (int, float) and spec.default is not None:
            default = f"{spec.default:g}"
            forms = {default, default.replace(".", ",")} if lang == "ru" else {default}
            if not any(re.search(rf"(?<![\d.,]){re.escape(f)}(?!\d|[.,]\d)", hint) for f in forms):
                wrong.append(f"{name}: default {default} not stated")
    assert wrong == []


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_the_roles_hint_gives_an_example_this_game_accepts(game: str, lang: str) -> None:
    variant = get_variant(game)
    hint = load_catalog(lang).lines[key(game, "switch", "roles", "hint")]
    examples = ROLES_EXAMPLE.findall(hint)
    for example in examples:
        ids = {part.partition("=")[0] for part in example.split(",")}
        assert ids <= set(variant.roles), f"{example}: not {game}'s role ids"
    if not takes_override(variant):
        assert examples == [], f"{game} has a fixed composition: no example to type"
        return
    assert examples, f"no example such as {next(iter(variant.roles))}=1 in {hint!r}"
    for example in examples:
        sw = make_switches(variant, {"roles": example})
        fits = []
        for players in variant.seat_counts:
            try:
                variant.composition(players, sw)
            except ConfigError:
                continue
            fits.append(players)
        assert fits, f"{example!r} fits no table of {game}"


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_the_setup_texts_are_never_spoken(game: str, lang: str) -> None:
    spoken = set(spoken_keys(lang, game))
    assert [name for name, _ in texts(load_catalog(lang), game) if name in spoken] == []
