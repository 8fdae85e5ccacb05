"""A remembered set-up file anyone at the laptop could have put there.

A bad value, a wrong type, a file nested thousands deep, a named pipe, /dev/zero: the
set-up screen opens with the defaults and says in one line what it did not take; it
never blocks, never reads a device, never ends in a traceback inside textual.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from narrator.cli import _parser
from narrator.cli import play_settings
from narrator.screen.remembered import initial_values
from narrator.screen.remembered import last_path
from narrator.screen.setup import SetupScreen
from narrator.settings import play_defaults
from narrator.voice.catalog import load_catalog
from tests.test_setup_screen import run_setup
from tests.test_tui import screen_rows

SETTINGS = play_settings(_parser().parse_args(["play", "onenight"]))


def _put(folder: Path, content: str | bytes | None, special: str = "") -> Path:
    path = last_path("onenight", folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    if special == "fifo":
        os.mkfifo(path)
    elif special == "dev-zero":
        path.symlink_to("/dev/zero")
    elif special == "folder":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, "utf-8")
    return path


HOSTILE = {
    "bad lang": ('{"game": "onenight", "lang": "xx"}', "", "lang"),
    "bad input": ('{"game": "onenight", "input": "telepathy"}', "", "input"),
    "nested 2000 deep": ("[" * 2000 + "]" * 2000, "", "nested more than"),
    "a named pipe": (None, "fifo", "named pipe"),
    "/dev/zero": (None, "dev-zero", "device"),
    "a folder": (None, "folder", "folder"),
    "not UTF-8": (b'{"lang": "caf\xe9"}', "", "UTF-8"),
    "huge": ('{"v": "' + "x" * 100_000 + '"}', "", "too large"),
    "a bad rule switch": ('{"game": "onenight", "options": {"window_s": "soon"}}', "", "window_s"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_remembered_file_gives_the_defaults_and_says_why(
    tmp_path: Path, name: str
) -> None:
    content, special, words = HOSTILE[name]
    _put(tmp_path, content, special)
    values = initial_values(SETTINGS, tmp_path)  # returns at once: nothing blocks
    assert values.problems and words in " ".join(values.problems), values.problems
    defaults = play_defaults()
    assert values.settings.lang == defaults["lang"] and values.settings.input == defaults["input"]
    assert "window_s" not in values.settings.options or name != "a bad rule switch"


def test_the_set_up_screen_shows_what_it_did_not_take(tmp_path: Path) -> None:
    _put(tmp_path, json.dumps({"game": "onenight", "lang": "xx", "knock_volume": 0.2}))
    rows: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        assert isinstance(app.screen, SetupScreen)
        rows.append(" ".join(" ".join(screen_rows(app)).split()))

    chosen = run_setup(SETTINGS, tmp_path, steps, size=(120, 40))
    catalog = load_catalog("ru")
    prefix = catalog.text("setup.saved_problem", {"problems": ""}).split(":")[0]
    assert prefix in rows[0], rows[0]
    assert chosen[0].settings.knock_volume == 0.2  # the good values are still taken
