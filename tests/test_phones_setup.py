"""The phones on the set-up screen: its row serves them (the short address and the QR
code shown, the seats joined listed live), a request for a held seat is answered with
the keypad alone (1 Enter gives it, 0 Enter keeps it), and with the row off nothing is
served."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App
from textual.widgets import Label
from textual.widgets import Static
from textual.widgets import Switch

from narrator.phones.at_table import PhoneLink
from narrator.phones.at_table import Phones
from narrator.phones.at_table import open_phones
from narrator.phones.seating import Joined
from narrator.phones.seating import Waiting
from narrator.rules.codec import Words
from narrator.screen.phones import TICK_S
from narrator.screen.phones import SeatRequest
from narrator.screen.phones import ask_on_pause
from narrator.screen.remembered import SetupChoice
from narrator.screen.remembered import initial_values
from narrator.screen.setup import SetupScreen
from narrator.settings import TableSettings
from narrator.voice.catalog import load_catalog
from tests.test_setup_screen import started
from tests.test_tui import until

Steps = Callable[[Any, App[None], PhoneLink], Awaitable[None]]


def loopback(players: int, word: Words) -> Phones:
    return open_phones(players, word, host="127.0.0.1", port=0, period=0.1)


def run_with_phones(settings: TableSettings, folder: Path, steps: Steps) -> list[SetupChoice]:
    """The set-up screen with a phone link on loopback; ``steps``, then Start."""
    catalog = load_catalog(settings.lang)
    link = PhoneLink(catalog.word, loopback)
    chosen: list[SetupChoice] = []

    class Host(App[None]):
        def on_mount(self) -> None:
            screen = SetupScreen(catalog, initial_values(settings, folder), folder, phones=link)
            self.push_screen(screen, chosen.append)  # type: ignore[arg-type]

    async def main() -> None:
        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SetupScreen) and started(app))
            await steps(pilot, app, link)
            app.screen.query_one("#start").focus()
            await pilot.pause()
            await pilot.press("enter")
            await until(pilot, lambda: bool(chosen))

    try:
        asyncio.run(main())
    finally:
        link.close()
    return chosen


def panel(app: App[None]) -> str:
    return str(app.screen.query_one("#phones-panel", Static).render())


def asking(app: App[None]) -> bool:
    """The seat question is on the screen, drawn (a pushed screen composes a moment later)."""
    return isinstance(app.screen, SeatRequest) and bool(app.screen.query("#seat-request"))


def state(app: App[None]) -> str:
    return str(app.screen.query_one("#state-phones", Label).render())


def test_phones_on_show_the_address_qr_and_seats_and_a_held_seat_waits_for_the_keypad(
    tmp_path: Path,
) -> None:
    async def steps(pilot: Any, app: App[None], link: PhoneLink) -> None:
        phones = link.phones
        assert phones is not None, "the row is on: the phones are served"
        await until(pilot, lambda: phones.address in panel(app))
        assert "▀" in panel(app) or "█" in panel(app), "no QR code"
        assert "Телефоны за столом: —" in panel(app)
        hub = phones.hub
        first = hub.join(3, None)
        assert isinstance(first, Joined)
        await until(pilot, lambda: "Телефоны за столом: 3" in panel(app))
        # Another phone asks for seat 3: the laptop asks, the keypad answers.
        asked = hub.join(3, None)
        assert isinstance(asked, Waiting)
        await until(pilot, lambda: asking(app))
        text = str(app.screen.query_one("#seat-request", Static).render())
        assert "место 3" in text and "1 Enter" in text and "0 Enter" in text
        await pilot.press("7", "enter")  # neither answer: wiped, still asked
        assert isinstance(app.screen, SeatRequest)
        await pilot.press("0", "enter")
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        assert hub.granted(asked.ticket) is None  # refused: the seat stays
        assert hub.hello(first.token) == 3
        again = hub.join(3, None)
        assert isinstance(again, Waiting)
        await until(pilot, lambda: asking(app))
        await pilot.press("1", "enter")
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        given = hub.granted(again.ticket)
        assert isinstance(given, Joined) and given.seat == 3
        assert hub.hello(first.token) is None  # the old phone lost it
        await until(pilot, lambda: "Телефоны за столом: 3" in panel(app))

    (choice,) = run_with_phones(TableSettings(game="onenight", phones=True), tmp_path, steps)
    assert choice.settings.phones


def test_the_phones_row_switched_on_and_off_with_the_keypad(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: App[None], link: PhoneLink) -> None:
        assert link.phones is None and panel(app) == ""  # off: nothing served
        switch = app.screen.query_one("#phones", Switch)
        for _ in range(60):  # + moves to the row, Enter switches it
            if app.focused is switch:
                break
            await pilot.press("plus")
        assert app.focused is switch
        assert state(app) == "нет"  # in words: the switch's colours alone do not say it
        await pilot.press("enter")
        await until(pilot, lambda: link.phones is not None and "http://" in panel(app))
        assert state(app) == "да"
        await pilot.press("enter")
        await until(pilot, lambda: link.phones is None and panel(app) == "")
        assert state(app) == "нет"
        await pilot.press("enter")
        await until(pilot, lambda: link.phones is not None)

    (choice,) = run_with_phones(TableSettings(game="onenight"), tmp_path, steps)
    assert choice.settings.phones


def test_english_lines_for_the_phones_row(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: App[None], link: PhoneLink) -> None:
        assert link.phones is not None
        await until(pilot, lambda: "Phones at the table: —" in panel(app))
        asked = link.phones.hub.join(1, None)
        assert isinstance(asked, Joined)
        waiting = link.phones.hub.join(1, None)
        assert isinstance(waiting, Waiting)
        await until(pilot, lambda: asking(app))
        assert "seat 1" in str(app.screen.query_one("#seat-request", Static).render())
        await pilot.press("0", "enter")
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))

    settings = TableSettings(game="halloween", phones=True, lang="en")
    (choice,) = run_with_phones(settings, tmp_path, steps)
    assert choice.settings.phones and choice.settings.lang == "en"


def test_a_held_seat_asked_for_during_the_game_is_answered_on_a_day_pause(tmp_path: Path) -> None:
    """Found playing by hand: once the game had begun, a phone asking for a held seat (its
    storage cleared, a new phone) waited for a question the laptop never asked. A pause
    by day asks it; the keypad answers; no request, no question."""
    catalog = load_catalog("ru")
    link = PhoneLink(catalog.word, loopback)
    hub = link.open(5).hub
    first = hub.join(2, None)
    assert isinstance(first, Joined)

    class Table(App[None]):
        pass

    async def main() -> None:
        app = Table()
        async with app.run_test(size=(80, 24)) as pilot:
            assert not ask_on_pause(app, link, catalog)  # nothing asked: the pause only
            asked = hub.join(2, None)
            assert isinstance(asked, Waiting)
            assert ask_on_pause(app, link, catalog)
            await until(pilot, lambda: asking(app))
            await pilot.press("1", "enter")
            await until(pilot, lambda: not isinstance(app.screen, SeatRequest))
            given = hub.granted(asked.ticket)
            assert isinstance(given, Joined) and given.seat == 2
            assert hub.hello(first.token) is None

    try:
        asyncio.run(main())
    finally:
        link.close()


def test_an_answer_and_the_tick_that_sees_it_gone_close_the_question_once(tmp_path: Path) -> None:
    """Found by CI under load: the keypad's answer dismissed the question, and its tick,
    seeing the request gone before the screen was popped, dismissed it again and popped
    the screen beneath (the set-up screen, or the game's table on a day pause)."""
    catalog = load_catalog("ru")
    link = PhoneLink(catalog.word, loopback)
    hub = link.open(5).hub
    assert isinstance(hub.join(2, None), Joined)

    class Table(App[None]):
        pass

    beneath = Static("the table", id="beneath")

    async def main() -> None:
        app = Table()
        async with app.run_test(size=(80, 24)) as pilot:
            table = app.screen
            await table.mount(beneath)
            for answer in ("1", "0"):
                assert isinstance(hub.join(2, None), Waiting)
                assert ask_on_pause(app, link, catalog)
                await until(pilot, lambda: asking(app))
                question = app.screen
                assert isinstance(question, SeatRequest)
                assert question._answered(answer)
                question._still_asked()  # the tick, before the pop: no second dismissal
                question.on_key(events.Key("enter", None))  # a late Enter: ignored
                await until(pilot, lambda: not isinstance(app.screen, SeatRequest))
                await pilot.pause(2 * TICK_S)
                assert app.screen is table, "the screen beneath was popped"

    try:
        asyncio.run(main())
    finally:
        link.close()
