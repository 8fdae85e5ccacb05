"""The table settings are declared once (``narrator.settings``): the command line and the
set-up screen take their defaults, ranges, help and refusals from that one model, so a
value one of them refuses the other refuses with the same words."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Annotated
from typing import Any

import pytest
from pydantic import Field
from textual.app import App
from textual.widgets import Input
from textual.widgets import Select
from textual.widgets import Static
from textual.widgets import Switch

from narrator import cli
from narrator import settings
from narrator.cli import _parser
from narrator.cli import play_settings
from narrator.rules.registry import GAMES
from narrator.rules.registry import get_variant
from narrator.settings import AT_TABLE
from narrator.settings import FIELDS
from narrator.settings import SHOWN
from narrator.settings import Flag
from narrator.settings import Seconds
from narrator.settings import TableSettings
from narrator.settings import default_of
from narrator.settings import default_players
from narrator.settings import is_duration
from narrator.settings import play_defaults
from narrator.settings import refusal
from narrator.voice.catalog import LANGUAGES
from narrator.voice.catalog import load_catalog
from narrator.voice.rates import RATES
from tests.test_setup_screen import run_setup
from tests.test_setup_screen import setup_of
from tests.test_tui import until

ROOT = Path(__file__).resolve().parent.parent
# Out of range for the model, each on the command line and on the set-up screen.
REFUSED = [("rate", "--rate", "500"), ("speech_volume", "--speech-volume", "1.5")]
REFUSED += [("knock_volume", "--knock-volume", "1.5"), ("answer_s", "--answer-time", "0")]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "narrator.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,  # a value let through would start a demo game: it would not end in time
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _refused_on_the_command_line(*args: str) -> str:
    done = _cli(*args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def _refused_on_the_screen(name: str, text: str, tmp_path: Path) -> str:
    shown: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        screen = setup_of(app)
        problem = screen.query_one("#problem", Static)
        screen.query_one(f"#{name}", Input).value = text
        await until(pilot, lambda: str(problem.render()) != "")
        shown.append(str(problem.render()))
        screen.query_one(f"#{name}", Input).value = str(default_of(name) or "")
        await until(pilot, lambda: str(problem.render()) == "")
        screen.query_one("#start").focus()

    run_setup(TableSettings(game="onenight", record_dir=tmp_path), tmp_path, steps)
    return shown[0]


def test_rate_500_is_refused_at_once_on_the_command_line_in_the_voice_s_range() -> None:
    """It passed the command line's own range (40–600) and failed later, or never, in
    a silent game: now the voice's range (``voice.rates.RATES``) refuses it at once."""
    line = _refused_on_the_command_line("play", "onenight", "--rate", "500", "--silent", "--text")
    assert "--rate" in line and "500" in line
    assert f"{RATES.start}–{RATES.stop - 1}" in line, line


@pytest.mark.parametrize(("name", "flag", "text"), REFUSED)
def test_the_command_line_and_the_set_up_screen_refuse_alike(
    name: str, flag: str, text: str, tmp_path: Path
) -> None:
    words = refusal(name, text)
    line = _refused_on_the_command_line("play", "onenight", flag, text, "--silent", "--text")
    assert words in line, line
    shown = _refused_on_the_screen(name, text, tmp_path)
    label = load_catalog("ru").text(f"setup.{name}")
    assert shown == f"{label}: {words}", shown


def test_demo_refuses_the_rate_as_play_does() -> None:
    line = _refused_on_the_command_line("demo", "onenight", "--rate", "500")
    assert refusal("rate", "500") in line


def test_a_plain_play_and_a_demo_start_from_the_model_s_defaults() -> None:
    chosen = play_settings(_parser().parse_args(["play", "onenight"]))
    differ = {"game", "voice", "demo", "given"}  # voice: a play speaks; demo: no terminal here
    for name in FIELDS:
        if name not in differ:
            assert getattr(chosen, name) == default_of(name), name
    assert chosen.voice == play_defaults()["voice"] == "auto"
    demo = cli._settings(_parser().parse_args(["demo", "onenight"]))
    for name in FIELDS:
        if name != "game":
            assert getattr(demo, name) == default_of(name), name


def test_the_set_up_screen_shows_the_model_s_defaults(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def steps(pilot: Any, app: App[None]) -> None:
        for name in SHOWN:
            widget = setup_of(app).query_one(f"#{name}")
            assert isinstance(widget, Input | Select | Switch)
            seen[name] = widget.value

    run_setup(play_settings(_parser().parse_args(["play", "halloween"])), tmp_path, steps)
    defaults = play_defaults()
    assert seen.pop("players") == str(default_players(get_variant("halloween")))
    assert seen.pop("voice") is True  # it speaks
    for name, value in seen.items():
        expected = defaults[name]
        if isinstance(expected, bool) or name in {"lang", "input"}:
            assert value == expected, name
        elif isinstance(expected, int | float):
            assert float(value) == expected and not value.endswith(".0"), name  # 60, not 60.0
        else:
            assert value == ("" if expected is None else str(expected)), name


def _help(command: str) -> str:
    parser = _parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return str(action.choices[command].format_help())
    raise AssertionError("no commands")


def test_every_flag_and_its_help_come_from_the_model() -> None:
    for command in ("play", "resume", "demo"):
        text = " ".join(_help(command).split())
        for name, spec in FIELDS.items():
            flag = settings.flag_of(name)
            if flag is None or command not in flag.commands:
                continue
            option = flag.name or "--" + ("no-" if flag.negated else "") + name.replace("_", "-")
            assert option in text, (command, option)
            assert " ".join((spec.description or "").split()) in text, (command, name)
    assert "(default: 0.35)" in " ".join(_help("play").split())  # the knocks' level


class Wider(TableSettings):
    """The table's settings and one more, as a new setting would be added."""

    thinking_time: Annotated[Seconds, Flag(AT_TABLE)] = Field(
        7.0, description="a pause to think before each vote"
    )


def test_a_setting_added_to_the_model_is_a_flag_with_its_help_and_its_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(settings, "FIELDS", Wider.model_fields)
    monkeypatch.setattr(cli, "FIELDS", Wider.model_fields)
    text = " ".join(_help("play").split())
    assert "--thinking-time" in text and "a pause to think before each vote" in text
    assert "(default: 7)" in text
    assert "--thinking-time" in _help("resume") and "--thinking-time" not in _help("demo")
    args = _parser().parse_args(["play", "onenight", "--thinking-time", "12"])
    assert cli.typed_settings(args)["thinking_time"] == 12.0
    with pytest.raises(SystemExit):
        _parser().parse_args(["play", "onenight", "--thinking-time", "0"])


def test_a_duration_is_its_type_not_its_name() -> None:
    assert is_duration("answer_s", FIELDS["answer_s"])
    assert is_duration("thinking_time", Wider.model_fields["thinking_time"])  # no _s
    assert not is_duration("knock_density", FIELDS["knock_density"])


@pytest.mark.parametrize("game", GAMES)
def test_a_rule_switch_is_a_duration_by_its_type(game: str) -> None:
    """The rules mark their windows and speeches ``Seconds``; a name says nothing."""
    fields = get_variant(game).switches.model_fields
    marked = {name for name, spec in fields.items() if is_duration(name, spec)}
    assert marked and marked == {name for name in fields if name.endswith("_s")}

    class Renamed(get_variant(game).switches):  # type: ignore[misc]
        count_s: int = 3  # a count that happens to end in _s

    assert not is_duration("count_s", Renamed.model_fields["count_s"])


def test_every_language_flag_offers_the_catalog_s_languages() -> None:
    def walk(parser: argparse.ArgumentParser, path: str) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found.update(walk(sub, f"{path} {name}".strip()))
            elif "--lang" in action.option_strings:
                found[path] = tuple(action.choices or ())
        return found

    langs = walk(_parser(), "")
    assert len(langs) >= 8 and set(langs.values()) == {LANGUAGES}, langs
