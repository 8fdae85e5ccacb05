"""Line catalogs: every spoken line and screen text, per language, as data.

The catalogs live in ``lines/<lang>.toml`` beside this module; the same keys and
placeholders exist in every language (a test proves it).
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict

from narrator.rules.core import Param, RoleName
from narrator.rules.errors import ConfigError

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

    def _value(self, value: object) -> str:
        if isinstance(value, RoleName):
            return self.text(f"role.{value.id}")
        if isinstance(value, tuple):
            return ", ".join(self._value(v) for v in value)
        return str(value)


@cache
def load_catalog(lang: str) -> Catalog:
    if lang not in LANGUAGES:
        raise ConfigError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
    data = resources.files("narrator.voice").joinpath("lines", f"{lang}.toml").read_text("utf-8")
    return Catalog(lang=lang, lines=_flatten(tomllib.loads(data)))
