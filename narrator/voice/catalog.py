"""Line catalogs: every spoken line and screen text, per language, as data.

The catalogs live in ``lines/<lang>/*.toml`` beside this module: ``common.toml``
plus one file per variant. The same keys and placeholders exist in every
language (a test proves it); a key defined in two files is an error.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any
from typing import Literal

from pydantic import BaseModel
from pydantic import ConfigDict

from narrator.rules.core import Param
from narrator.rules.core import RoleName
from narrator.rules.errors import ConfigError
from narrator.rules.phases import PhaseId

LANGUAGES = ("ru", "en")


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    lines: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            lines.update(_flatten(value, f"{name}."))
        elif isinstance(value, str):
            lines[name] = value
        else:
            raise ConfigError(f"catalog key {name!r}: expected text, got {value!r}")
    return lines


def placeholders(text: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name)


class Catalog(BaseModel):
    """All lines of one language, keyed like ``onenight.hi_wake``."""

    model_config = ConfigDict(frozen=True)

    lang: str
    lines: dict[str, str]

    def text(self, key: str, params: Mapping[str, Param | object] | None = None) -> str:
        """The line ``key`` with its placeholders filled in."""
        try:
            template = self.lines[key]
        except KeyError:
            raise ConfigError(f"line {key!r} is missing from the {self.lang} catalog") from None
        values = {name: self._value(value) for name, value in (params or {}).items()}
        return template.format(**values)

    def word(self, key: str, **params: object) -> str:
        """``text`` with its parameters as keywords: the ``codec.Words`` the rules' and the
        phones' code take, so they need no catalog."""
        return self.text(key, params)

    def _value(self, value: object) -> str:
        if isinstance(value, RoleName):
            return self.text(f"role.{value.id}")
        if isinstance(value, tuple):
            return ", ".join(self._value(v) for v in value)
        return str(value)


def _outside_folders() -> tuple[Traversable, ...]:
    """``lines/`` beside each registered game kept outside this package (the tests' toy)."""
    from narrator.rules.registry import outside_modules

    folders = []
    for module in outside_modules():
        package = module.rpartition(".")[0] or module
        folders.append(resources.files(package).joinpath("lines"))
    return tuple(folders)


def load_catalog(lang: str) -> Catalog:
    """Every line of ``lang``: this package's catalogs and those of registered games."""
    return _load_catalog(lang, _outside_folders())


@cache
def _load_catalog(lang: str, outside: tuple[Traversable, ...]) -> Catalog:
    if lang not in LANGUAGES:
        raise ConfigError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
    folders = [resources.files("narrator.voice").joinpath("lines"), *outside]
    lines: dict[str, str] = {}
    for folder in (f.joinpath(lang) for f in folders if f.joinpath(lang).is_dir()):
        for part in sorted(folder.iterdir(), key=lambda p: p.name):
            if not part.name.endswith(".toml"):
                continue
            found = _flatten(tomllib.loads(part.read_text("utf-8")))
            twice = sorted(found.keys() & lines.keys())
            if twice:
                raise ConfigError(f"{lang}/{part.name}: keys defined twice: {', '.join(twice)}")
            lines.update(found)
    return Catalog(lang=lang, lines=lines)


@cache
def load_words(lang: str) -> dict[str, str]:
    """The spoken-answer words of ``lang`` (``words.*`` of its catalog), flat.

    Table languages read them from their whole catalog (so the ru/en parity test
    covers them).  A registered game kept outside this package may bring the words
    of another language, in ``lines/<lang>/words.toml`` (the tests' Korean).
    """
    if lang in LANGUAGES:
        lines = load_catalog(lang).lines
        return {key: text for key, text in lines.items() if key.startswith("words.")}
    brought = {
        language.name: language / "words.toml"
        for folder in _outside_folders()
        if folder.is_dir()
        for language in folder.iterdir()
        if (language / "words.toml").is_file()
    }
    if lang not in brought:
        known = ", ".join([*LANGUAGES, *sorted(brought.keys() - set(LANGUAGES))])
        raise ConfigError(f"no spoken words for language {lang!r}; languages: {known}")
    return _flatten(tomllib.loads(brought[lang].read_text("utf-8")))


DAWN: Literal["dawn"] = "dawn"  # not a phase of the rules: the line that ends a night


def phase_in_words(catalog: Catalog, phase: PhaseId | Literal["dawn"]) -> str:
    """«Ночь 2», «День 1», «Раздача», «Утро»: a phase as the table names it, never an id.

    The one place a phase is put into words: the status bar, the end screen, the list of
    unfinished games and the picture all say it so.
    """
    if phase == DAWN:
        return catalog.text("tui.phase_dawn")
    if phase.of_the_rules:
        return catalog.text(f"screen.{phase.kind}", {"number": phase.number})
    return catalog.text("tui.phase_setup")
