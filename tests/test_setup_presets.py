"""The set-up screen remembers the last settings per game and keeps named presets."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Button
from textual.widgets import Input
from textual.widgets import Select

from narrator.screen.remembered import SetupChoice
from narrator.screen.remembered import initial_values
from narrator.screen.remembered import last_path
from narrator.screen.remembered import load_saved
from narrator.screen.remembered import preset_names
from narrator.screen.remembered import preset_path
from narrator.screen.remembered import save
from narrator.screen.setup import SetupScreen
from narrator.settings import TableSettings
from narrator.voice.catalog import load_catalog


def test_saved_settings_come_back_and_the_command_line_wins(tmp_path: Path) -> None:
    stored = {"game": "halloween", "players": 9, "lang": "en", "options": {"cycle_limit": 4}}
    assert save(last_path("halloween", tmp_path), stored) is None
    assert load_saved(last_path("halloween", tmp_path))["players"] == 9
    given = TableSettings(game="halloween", players=None, options={"witch_s": 15.0})
    values = initial_values(given, tmp_path)
    assert values.settings.players == 9  # remembered: not given on the command line
    assert values.settings.options == {"cycle_limit": 4, "witch_s": 15.0}
    assert load_saved(tmp_path / "nope.json") == {}


def test_presets_are_saved_by_name(tmp_path: Path) -> None:
    assert save(preset_path("пятница вечер", tmp_path), {"game": "onenight"}) is None
    assert preset_names(tmp_path) == ["пятница_вечер"]


def test_the_set_up_screen_saves_a_preset_and_starts(tmp_path: Path) -> None:
    from textual.app import App

    chosen: list[SetupChoice] = []

    class Host(App[None]):
        def on_mount(self) -> None:
            values = initial_values(TableSettings(game="sport_mafia", lang="ru"), tmp_path)
            screen = SetupScreen(load_catalog("ru"), values, tmp_path)
            self.push_screen(screen, chosen.append)  # type: ignore[arg-type]

    async def run() -> None:
        app = Host()
        async with app.run_test(size=(110, 44)) as pilot:
            await pilot.pause(0.3)
            screen = app.screen
            assert isinstance(screen, SetupScreen)
            screen.query_one("#preset", Input).value = "club"
            screen.query_one("#save", Button).press()
            await pilot.pause(0.2)
            assert preset_names(tmp_path) == ["club"]
            assert screen.query_one("#game", Select).value == "sport_mafia"
            screen.query_one("#start", Button).press()
            await pilot.pause(0.2)

    asyncio.run(run())
    assert chosen and chosen[0].settings.game == "sport_mafia"
    assert load_saved(last_path("sport_mafia", tmp_path))["game"] == "sport_mafia"


def test_silent_wins_over_a_remembered_voice(tmp_path: Path) -> None:
    assert save(last_path("onenight", tmp_path), {"game": "onenight", "voice": "auto"}) is None
    silent = TableSettings(game="onenight", voice=None, silent=True)
    assert initial_values(silent, tmp_path).settings.voice is None
    spoken = TableSettings(game="onenight", voice="auto")
    assert initial_values(spoken, tmp_path).settings.voice == "auto"


def test_a_number_typed_into_an_optional_number_switch_is_a_number() -> None:
    from narrator.rules.registry import get_variant
    from narrator.rules.registry import make_switches
    from narrator.settings import number_kind

    window = get_variant("alliance").switches.model_fields["window_s"].annotation
    assert number_kind(window) is float  # float | None: it was passed on as text
    assert number_kind(int) is int and number_kind(str) is None
    make_switches(get_variant("alliance"), {"window_s": 8.0})  # the value it now gives


def test_play_speaks_by_default_and_silent_turns_it_off() -> None:
    from narrator.cli import _parser
    from narrator.cli import play_settings

    def voice(*args: str) -> str | None:
        settings = play_settings(_parser().parse_args(["play", "onenight", *args]))
        return settings.voice

    assert voice() == "auto"
    assert voice("--voice", "zle/ru") == "zle/ru"
    assert voice("--silent") is None
