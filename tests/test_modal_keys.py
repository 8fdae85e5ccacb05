"""Two quick keys on a page over the table: the first closes it, and the second, already
on its way to the page, must not close what lies beneath (the table, or the set-up
screen). Found by CI under load on the phones' seat question; the help and rules pages
take keys the same way, and the set-up screen its «Начать»."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App
from textual.screen import Screen
from textual.widgets import Button

from narrator.screen.remembered import SetupChoice
from narrator.screen.remembered import initial_values
from narrator.screen.setup import RulesScreen
from narrator.screen.setup import SetupScreen
from narrator.screen.tui import HelpScreen
from narrator.settings import TableSettings
from narrator.voice.catalog import load_catalog
from tests.test_setup_screen import started
from tests.test_tui import until

Shown = Callable[[Any, App[None]], Awaitable[Screen[Any]]]


def beneath_stays(show: Shown) -> bool:
    """Whether a screen beneath stays after ``show`` puts a page over it and hands that
    page two inputs at once (``show`` returns the page)."""

    class Table(App[None]):
        pass

    async def main() -> bool:
        app = Table()
        async with app.run_test(size=(80, 24)) as pilot:
            beneath: Screen[None] = Screen()
            await app.push_screen(beneath)
            shown = await show(pilot, app)
            await until(pilot, lambda: app.screen is not shown)
            await pilot.pause(0.2)
            return app.screen is beneath

    return asyncio.run(main())


def closed_once(page: Callable[[], HelpScreen | RulesScreen], keys: tuple[str, ...]) -> bool:
    """Whether the screen beneath is still there after ``keys`` reach ``page`` at once."""

    async def show(pilot: Any, app: App[None]) -> Screen[Any]:
        shown = page()
        await app.push_screen(shown)
        for key in keys:  # both delivered before the pop is done
            shown.on_key(events.Key(key, None))
        return shown

    return beneath_stays(show)


def test_two_quick_keys_close_the_help_once() -> None:
    assert closed_once(lambda: HelpScreen("help"), ("escape", "escape"))
    assert closed_once(lambda: HelpScreen("help"), ("enter", "slash"))


def test_two_quick_keys_close_the_rules_page_once() -> None:
    assert closed_once(lambda: RulesScreen("rules"), ("escape", "enter"))


def test_two_quick_presses_of_start_choose_once(tmp_path: Path) -> None:
    """Two presses of «Начать» delivered before the set-up screen is popped: one game is
    chosen, and the screen beneath (the table's) stays."""
    catalog = load_catalog("ru")
    values = initial_values(TableSettings(game="onenight"), tmp_path)
    chosen: list[SetupChoice] = []

    async def show(pilot: Any, app: App[None]) -> Screen[Any]:
        setup = SetupScreen(catalog, values, tmp_path)
        await app.push_screen(setup, chosen.append)  # type: ignore[arg-type]
        await until(pilot, lambda: started(app))
        start = setup.query_one("#start", Button)
        start.press()
        start.press()
        return setup

    assert beneath_stays(show)
    assert len(chosen) == 1
