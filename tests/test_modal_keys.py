"""Two quick keys on a page over the table: the first closes it, and the second, already
on its way to the page, must not close what lies beneath (the table, or the set-up
screen). Found by CI under load on the phones' seat question; the help and rules pages
take keys the same way."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual import events
from textual.app import App
from textual.screen import Screen

from narrator.screen.setup import RulesScreen
from narrator.screen.tui import HelpScreen
from tests.test_tui import until


def closed_once(page: Callable[[], HelpScreen | RulesScreen], keys: tuple[str, ...]) -> bool:
    """Whether the screen beneath is still there after ``keys`` reach ``page`` at once."""

    class Table(App[None]):
        pass

    async def main() -> bool:
        app = Table()
        async with app.run_test(size=(80, 24)) as pilot:
            beneath: Screen[None] = Screen()
            await app.push_screen(beneath)
            shown = page()
            await app.push_screen(shown)
            for key in keys:  # both delivered before the pop is done
                shown.on_key(events.Key(key, None))
            await until(pilot, lambda: app.screen is not shown)
            await pilot.pause(0.1)
            return app.screen is beneath

    return asyncio.run(main())


def test_two_quick_keys_close_the_help_once() -> None:
    assert closed_once(lambda: HelpScreen("help"), ("escape", "escape"))
    assert closed_once(lambda: HelpScreen("help"), ("enter", "slash"))


def test_two_quick_keys_close_the_rules_page_once() -> None:
    assert closed_once(lambda: RulesScreen("rules"), ("escape", "enter"))
