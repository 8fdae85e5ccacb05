"""The set-up screen as a host meets it: every house rule in the chosen language,
reachable with the keypad at 80×24, the rules page, remembered settings shown as such,
the command line over them, and a defaults button."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Input
from textual.widgets import Select
from textual.widgets import Switch

from narrator.cli import _parser
from narrator.cli import play_settings
from narrator.rules.registry import get_variant
from narrator.screen.remembered import SetupChoice
from narrator.screen.remembered import initial_values
from narrator.screen.remembered import last_path
from narrator.screen.remembered import save
from narrator.screen.setup import RulesScreen
from narrator.screen.setup import SetupScreen
from narrator.settings import TableSettings
from narrator.voice.catalog import load_catalog
from tests.test_tui import screen_rows
from tests.test_tui import until

GAMES = ("onenight", "halloween", "sport_mafia", "alliance")
Steps = Callable[[Any, App[None]], Awaitable[None]]


def run_setup(
    settings: TableSettings, folder: Path, steps: Steps, size: tuple[int, int] = (80, 24)
) -> list[SetupChoice]:
    """Show the set-up screen for ``settings``, run ``steps`` with the pilot; the chosen values."""
    chosen: list[SetupChoice] = []

    class Host(App[None]):
        def on_mount(self) -> None:
            values = initial_values(settings, folder)
            screen = SetupScreen(load_catalog(settings.lang), values, folder)
            self.push_screen(screen, chosen.append)  # type: ignore[arg-type]

    async def main() -> None:
        app = Host()
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SetupScreen) and started(app))
            await steps(pilot, app)
            await pilot.pause()  # a focus() is carried out after the call
            if isinstance(app.screen, SetupScreen) and started(app):
                await pilot.press("enter")  # «Начать»
            await until(pilot, lambda: bool(chosen))

    asyncio.run(main())
    return chosen


def started(app: App[None]) -> bool:
    """The screen is up (again) with «Начать» in focus."""
    return getattr(app.focused, "id", None) == "start"


def setup_of(app: App[None]) -> SetupScreen:
    screen = app.screen
    assert isinstance(screen, SetupScreen)
    return screen


@pytest.mark.parametrize("game", GAMES)
def test_every_house_rule_is_reached_with_plus_at_80x24_in_russian(
    game: str, tmp_path: Path
) -> None:
    catalog = load_catalog("ru")
    fields = get_variant(game).switches.model_fields
    seen: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        start = app.focused
        for _ in range(200):
            await pilot.press("plus")
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            seen.append("\n".join(screen_rows(app)))
            if app.focused is start:
                return
        raise AssertionError("+ never came back to «Начать»")

    run_setup(TableSettings(game=game), tmp_path, steps)
    shown = "\n".join(seen)
    for name in fields:
        label = catalog.text(f"setup.{game}.switch.{name}.name")
        assert label in shown, f"{game}: the switch {label!r} never came into sight"
        hint = catalog.text(f"setup.{game}.switch.{name}.hint")
        assert hint.split()[0] in shown
        assert name not in shown or name == "roles", f"{game}: the Python name {name} shown"
    assert "RULES" not in shown


def test_remembered_settings_are_shown_and_defaults_bring_back_the_defaults(
    tmp_path: Path,
) -> None:
    save(last_path("onenight", tmp_path), {"game": "onenight", "options": {"discussion_s": 15}})
    rows: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        rows.extend(screen_rows(app))
        setup_of(app).query_one("#defaults").focus()
        await pilot.press("enter")
        await until(pilot, lambda: started(app))  # rebuilt, «Начать» in focus again
        screen = setup_of(app)
        assert screen.query_one("#opt-discussion_s", Input).value == "300"  # seconds, not "300.0"
        assert screen.query_one("#remembered").render().plain == ""  # type: ignore[union-attr]

    chosen = run_setup(TableSettings(game="onenight"), tmp_path, steps)
    text = " ".join(row.strip() for row in rows)  # the notice may wrap
    assert "С прошлой игры" in text and "Обсуждение, секунд: 15" in text
    assert chosen and "discussion_s" not in chosen[0].settings.options


def test_the_command_line_wins_over_remembered_settings_and_the_screen_keeps_it(
    tmp_path: Path,
) -> None:
    save(
        last_path("onenight", tmp_path),
        {"game": "onenight", "input": "keypad", "voice_pack": "old", "knock_volume": 0.1},
    )
    args = ["play", "onenight", "--input", "voice", "--voice-pack", "mine", "--voice", "zle/ru"]
    settings = play_settings(_parser().parse_args(args))

    async def steps(pilot: Any, app: App[None]) -> None:
        pass  # «Начать» as it is

    chosen = run_setup(settings, tmp_path, steps)
    assert chosen[0].settings.input == "voice" and chosen[0].settings.voice_pack == "mine"
    assert chosen[0].settings.voice == "zle/ru"  # not turned into "auto" by the switch
    assert chosen[0].settings.knock_volume == 0.1  # not given: the remembered one


def test_a_plain_play_shows_what_it_takes_from_memory(tmp_path: Path) -> None:
    save(last_path("onenight", tmp_path), {"game": "onenight", "options": {"discussion_s": 15}})
    settings = play_settings(_parser().parse_args(["play", "onenight", "--discussion", "90"]))
    values = initial_values(settings, tmp_path)
    assert values.settings.options["discussion_s"] == 90  # the command line wins
    assert "options" not in values.remembered


def test_the_rules_page_opens_with_slash_and_scrolls_with_8_and_2(tmp_path: Path) -> None:
    pages: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen))
        first_line = load_catalog("ru").text("setup.halloween.about.summary").splitlines()[0]
        await until(pilot, lambda: first_line.strip() in "\n".join(screen_rows(app)))  # drawn
        pages.append("\n".join(screen_rows(app)))
        for _ in range(30):
            await pilot.press("2")
        await pilot.pause()
        pages.append("\n".join(screen_rows(app)))
        await pilot.press("slash")
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))

    run_setup(TableSettings(game="halloween"), tmp_path, steps)
    catalog = load_catalog("ru")
    first_line = catalog.text("setup.halloween.about.summary").strip().splitlines()[0]
    assert first_line in pages[0]
    assert catalog.text("setup.about_close") in pages[1], "the end of the page was not reached"


def test_the_players_field_is_never_empty_and_the_composition_names_the_centre(
    tmp_path: Path,
) -> None:
    rows: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        rows.extend(screen_rows(app))

    run_setup(TableSettings(game="onenight"), tmp_path, steps, size=(120, 40))
    text = "\n".join(rows)
    assert "Карты на 5 игроков и 3 в центре:" in text
    assert "Игра займёт примерно" in text


def test_choosing_english_shows_the_screen_in_english(tmp_path: Path) -> None:
    rows: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        setup_of(app).query_one("#lang", Select).value = "en"
        await until(pilot, lambda: "Set-up" in screen_rows(app)[0])
        await until(pilot, lambda: setup_of(app).query_one("#lang", Select).value == "en")
        rows.extend(screen_rows(app))
        switch = setup_of(app).query_one("#voice", Switch)
        switch.focus()
        await pilot.press("enter")  # a switch flips with Enter
        await until(pilot, lambda: not switch.value)
        setup_of(app).query_one("#start").focus()

    chosen = run_setup(TableSettings(game="sport_mafia", voice="auto"), tmp_path, steps)
    assert "Start" in "\n".join(rows) and "Начать" not in "\n".join(rows)
    assert chosen[0].settings.lang == "en" and chosen[0].settings.voice is None


def test_8_and_2_choose_in_a_closed_list_and_enter_keeps_the_choice(tmp_path: Path) -> None:
    """«Язык» with the keypad alone: 2 chooses the next language at once (the screen then
    speaks it), 8 the one before; Enter opens the list on the chosen one and Enter
    again keeps it."""
    seen: list[str] = []

    def lang(app: App[None]) -> Select[Any]:
        return setup_of(app).query_one("#lang", Select)

    async def steps(pilot: Any, app: App[None]) -> None:
        lang(app).focus()
        await pilot.press("2")
        await until(pilot, lambda: "Set-up" in screen_rows(app)[0] and lang(app).value == "en")
        await until(pilot, lambda: app.focused is lang(app))  # rebuilt, the list in focus
        await pilot.press("8")
        await until(pilot, lambda: "Set-up" not in screen_rows(app)[0])
        await until(pilot, lambda: lang(app).value == "ru" and app.focused is lang(app))
        await pilot.press("8")  # the first entry stays
        await pilot.pause()
        assert lang(app).value == "ru"
        await pilot.press("enter")  # the list opens on «русский» ...
        await until(pilot, lambda: lang(app).expanded)
        await pilot.press("enter")  # ... and it stays
        await until(pilot, lambda: not lang(app).expanded)
        seen.append(str(lang(app).value))
        setup_of(app).query_one("#start").focus()

    chosen = run_setup(TableSettings(game="onenight", lang="ru"), tmp_path, steps)
    assert seen == ["ru"] and chosen[0].settings.lang == "ru"


def test_plus_stops_only_on_fields_and_an_unnamed_preset_is_refused(tmp_path: Path) -> None:
    """+ from «Начать» goes round every field and button and back, never onto something
    invisible; «Сохранить набор» with no name says so and saves nothing."""
    stops: list[Any] = []
    problems: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        for _ in range(200):
            await pilot.press("plus")
            stops.append(app.focused)
            if started(app):
                break
        setup_of(app).query_one("#save").focus()
        await pilot.press("enter")
        await pilot.pause()
        problems.append(str(setup_of(app).query_one("#problem").render()))
        setup_of(app).query_one("#start").focus()

    run_setup(TableSettings(game="halloween", lang="ru"), tmp_path, steps)
    kinds = {type(widget).__name__ for widget in stops}
    assert started_id(stops[-1]) and kinds <= {"Button", "Input", "Select", "Switch"}, kinds
    assert len(stops) > 10  # every field on the way
    assert problems == [load_catalog("ru").text("setup.preset_unnamed")]
    assert not (tmp_path / "presets").exists() or not list((tmp_path / "presets").iterdir())


def started_id(widget: Any) -> bool:
    return getattr(widget, "id", None) == "start"


def test_speech_volume_is_a_setting_and_is_checked(tmp_path: Path) -> None:
    problems: list[str] = []

    async def steps(pilot: Any, app: App[None]) -> None:
        screen = setup_of(app)
        problem = screen.query_one("#problem")
        screen.query_one("#speech_volume", Input).value = "1.5"
        await until(pilot, lambda: "0–1" in str(problem.render()))
        problems.append(str(problem.render()))
        screen.query_one("#speech_volume", Input).value = "0.5"
        await until(pilot, lambda: str(problem.render()) == "")
        screen.query_one("#start").focus()

    chosen = run_setup(TableSettings(game="onenight"), tmp_path, steps)
    assert "0–1" in problems[0]
    assert chosen[0].settings.speech_volume == 0.5
