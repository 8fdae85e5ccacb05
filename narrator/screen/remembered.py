"""What the set-up screen starts from: the command line over the settings remembered
from the last game of its kind, over the defaults; and the presets saved by name.

Kept per game and per preset as JSON in the user's config folder; a stored value the
table's model does not take is left out, as if it had not been saved.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from narrator.files import SETTINGS as SETTINGS_FILE
from narrator.files import BadFile
from narrator.files import load_json
from narrator.files import write_whole
from narrator.rules.registry import get_variant
from narrator.settings import SHOWN
from narrator.settings import SettingError
from narrator.settings import TableSettings
from narrator.settings import checked
from narrator.settings import play_defaults

# What the set-up screen keeps per game and in a preset: its rows and the rules.
SAVED_FIELDS = ("game", *SHOWN, "options")
_LOGGER = logging.getLogger(__name__)


@dataclass
class SetupValues:
    """What the set-up screen shows, and where each value came from.

    ``base``: the command line's settings (the fields no row shows come from them);
    ``given``: the fields typed on it (they win); ``remembered``: the rows and rule
    switches taken from the last game of this kind (shown as such); ``defaults``:
    what the defaults button brings back (the program's under the command line's);
    ``unfinished``: games to continue, (record path, its description).
    """

    settings: TableSettings
    base: TableSettings
    given: frozenset[str]
    defaults: TableSettings
    remembered: frozenset[str] = frozenset()
    remembered_options: frozenset[str] = frozenset()
    unfinished: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what the remembered file lacked


@dataclass(frozen=True)
class SetupChoice:
    """What Start chose: a new game with these settings, or the stopped game ``resume``."""

    settings: TableSettings
    resume: Path | None = None


def config_folder() -> Path:
    from platformdirs import user_config_path

    return user_config_path("narrator", appauthor=False)


def load_saved(path: Path, problems: list[str] | None = None) -> dict[str, Any]:
    """The saved settings in ``path`` that the model takes; none when it cannot be read.

    Read through the bounded reader (a pipe, a device, a huge or deeply nested file is
    refused without reading it); what is wrong with the file, when it exists and is not
    taken whole, goes to ``problems`` in one line: the set-up screen shows it.
    """
    if not os.path.lexists(path):
        return {}
    try:
        data = load_json(path, SETTINGS_FILE)
    except BadFile as error:
        _warn(problems, str(error))
        return {}
    if not isinstance(data, dict):
        _warn(problems, f"{path}: not a table of settings")
        return {}
    saved: dict[str, Any] = {}
    for name, value in data.items():
        if (name == "options" and isinstance(value, dict)) or (
            name == "game" and isinstance(value, str)
        ):
            saved[name] = value
        elif name in SHOWN:
            try:
                saved[name] = checked(name, value)
            except SettingError as error:
                _warn(problems, f"{path}: {name}: {error}")
        else:
            _warn(problems, f"{path}: {name!r} is not a setting")
    return saved


def _warn(problems: list[str] | None, problem: str) -> None:
    _LOGGER.warning("%s", problem)
    if problems is not None:
        problems.append(problem)


def checked_options(game: str, options: Mapping[str, Any], problems: list[str]) -> dict[str, Any]:
    """The remembered rule switches of ``game`` its model takes, one by one."""
    switches = get_variant(game).switches
    taken: dict[str, Any] = {}
    for name, value in options.items():
        if name not in switches.model_fields:
            continue
        try:
            switches.model_validate({name: value})
        except ValidationError as error:
            problems.append(f"{name}: {error.errors()[0].get('msg', 'not taken')}")
            continue
        taken[name] = value
    return taken


def save(path: Path, values: Mapping[str, object]) -> str | None:
    """Write settings, whole or not at all (a full disk keeps the ones saved before and
    leaves no empty file); the problem in one line, or None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, json.dumps(values, ensure_ascii=False, indent=1).encode("utf-8"))
    except OSError as error:
        return f"cannot save {path}: {error.strerror}"
    return None


def last_path(game: str, folder: Path | None = None) -> Path:
    return (folder or config_folder()) / "last" / f"{game}.json"


def preset_path(name: str, folder: Path | None = None) -> Path:
    safe = re.sub(r"[^\w-]+", "_", name.strip()) or "preset"
    return (folder or config_folder()) / "presets" / f"{safe}.json"


def preset_names(folder: Path | None = None) -> list[str]:
    presets = (folder or config_folder()) / "presets"
    return sorted(p.stem for p in presets.glob("*.json")) if presets.is_dir() else []


def saved_values(settings: TableSettings) -> dict[str, object]:
    """What is kept of ``settings``: the set-up screen's rows and the rule switches."""
    return {name: getattr(settings, name) for name in SAVED_FIELDS}


def initial_values(
    settings: TableSettings,
    folder: Path | None = None,
    unfinished: list[tuple[str, str]] | None = None,
) -> SetupValues:
    """The command line over the remembered settings of that game, over the defaults;
    ``unfinished``: the stopped games to offer, (record path, its description)."""
    given = frozenset(name for name in settings.winning_fields() if name in SHOWN)
    values = values_for(settings, settings.game, given, folder)
    values.unfinished = list(unfinished or [])
    return values


def values_for(
    base: TableSettings,
    game: str,
    given: frozenset[str],
    folder: Path | None = None,
    *,
    options: bool = True,
) -> SetupValues:
    """The values of ``game``'s set-up: the ``given`` fields of ``base`` (and its rule
    switches, with ``options``) over its remembered ones, over the defaults."""
    fields = get_variant(game).switches.model_fields
    chosen = {k: v for k, v in base.options.items() if k in fields} if options else {}
    problems: list[str] = []
    saved = load_saved(last_path(game, folder), problems)
    saved_options = checked_options(game, saved.get("options", {}), problems)
    defaults = {**play_defaults(), **{name: getattr(base, name) for name in given}}
    values = dict(defaults)
    remembered = set()
    for name in SHOWN:
        if name not in given and name in saved and saved[name] != defaults[name]:
            values[name] = saved[name]
            remembered.add(name)
    remembered_options = set()
    picked = dict(chosen)
    for name, value in saved_options.items():
        if name not in picked and value != fields[name].default:
            picked[name] = value
            remembered_options.add(name)
    return SetupValues(
        settings=base.but(**values, game=game, options=picked),
        base=base,
        given=given,
        defaults=base.but(**defaults, game=game, options=chosen),
        remembered=frozenset(remembered),
        remembered_options=frozenset(remembered_options),
        problems=problems[:3],
    )
