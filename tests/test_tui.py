"""The full-screen table driven by textual's headless pilot, as players would.

Whole games of «Ночь оборотня» and «Хэллоуинская мафия»: the set-up screen,
dealing, nights, days, the end screen. The tests check what the screen shows
and, as much, what it does not: no secret outside its window or deal, and the
same neutral page after every window whatever happened inside it.
"""

from __future__ import annotations

import asyncio
import html
import os
import random
import re
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot

from narrator.app import chosen_game
from narrator.host.journal import default_record_dir
from narrator.ports import Live
from narrator.prepared import prepare
from narrator.rules.core import shuffled_deal
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.screen.keys import PausableClock
from narrator.screen.remembered import initial_values
from narrator.screen.tui import TableApp
from narrator.screen.tui import TuiScreen
from narrator.session import run_game
from narrator.settings import TableSettings
from narrator.speaking import speaking
from narrator.unfinished import unfinished_choices
from narrator.voice.catalog import load_catalog
from tests.lockstep import Lockstep

# The screenshots in docs/ are refreshed with NARRATOR_SCREENSHOTS=docs (scripts/screenshots.sh);
# otherwise they go to a temporary folder, so a test run leaves the checkout as it was.
DOCS = Path(os.environ.get("NARRATOR_SCREENSHOTS") or tempfile.mkdtemp(prefix="narrator-shots-"))
STEP_S = 60.0  # the longest one step of the game may take in real time (a loaded machine)


def make_app(
    settings: TableSettings,
    config: Path,
    with_setup: bool = True,
    clock: PausableClock | None = None,
) -> TableApp:
    """The table printing its lines; ``clock`` a ``Lockstep`` for a game in the test's time."""
    clock = clock or PausableClock()
    prepared = prepare(settings)

    def game(app: TableApp) -> int:
        chosen, ready = chosen_game(app.choice, settings, prepared)
        screen = TuiScreen(app)
        spoken = speaking(chosen, ready, screen, clock, progress=None)
        code, _, _ = run_game(
            chosen,
            ready,
            screen,
            keys=app.keys,
            voice=spoken.voice,
            sound=spoken.sound,
            clock=clock,
        )
        return code

    folder = settings.record_dir or default_record_dir()
    setup = None
    if with_setup:
        setup = initial_values(settings, config, unfinished_choices(folder, settings.lang))
    return TableApp(prepared.catalog, game, clock, setup=setup, config=config)


async def until(pilot: Pilot[Any], condition: Callable[[], bool], seconds: float = 20) -> None:
    """Until ``condition``: on a ``Lockstep`` clock the game moves one wait at a time (for
    at most ``seconds`` of game time), else ``seconds`` of real time pass at most."""
    clock = getattr(pilot.app, "clock", None)
    if isinstance(clock, Lockstep):
        app = pilot.app
        assert isinstance(app, TableApp)
        await pilot.pause(0.01)
        if await clock.run_until(condition, lambda: app.finished, seconds, STEP_S):
            return
        raise AssertionError("the game never reached the expected state")
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the screen never reached the expected state")


def screen_rows(app: App[Any]) -> list[str]:
    """What the terminal shows now, row by row (from textual's own screenshot)."""
    rows = [""] * app.size.height
    svg = app.export_screenshot()
    for row, body in re.findall(
        r'<text[^>]*clip-path="url\(#[\w-]*-line-(\d+)\)"[^>]*>(.*?)</text>', svg
    ):
        rows[int(row)] += html.unescape(body).replace("\xa0", " ")
    return rows


def said(app: TableApp, text: str) -> Callable[[], bool]:
    return lambda: any(kind == "said" and text in value for kind, value in app.events)


def asking(app: TableApp, label: str) -> Callable[[], bool]:
    return lambda: app.live_view is not None and label in app.live_view.label


def not_asking(app: TableApp, label: str) -> Callable[[], bool]:
    return lambda: app.live_view is None or label not in app.live_view.label


def page_ends_with(app: TableApp, text: str) -> Callable[[], bool]:
    """The newest line of the page contains ``text``."""
    return lambda: bool(app.page_lines) and text in app.page_lines[-1]


def check_secrets_stay_inside(app: TableApp) -> None:
    """A secret is always wiped (a clear) before the next public line is said."""
    shown = False
    for kind, _ in app.events:
        if kind == "secret":
            shown = True
        elif kind == "clear":
            shown = False
        elif kind == "said":
            assert not shown, "a narrator line was said while a secret was on screen"


def neutral_pages(app: TableApp) -> list[tuple[str, ...]]:
    """What the screen showed between each window's end and the next narrator line."""
    pages: list[tuple[str, ...]] = []
    current: list[str] | None = None
    for kind, value in app.events:
        if kind == "clear":
            current = []
        elif kind == "said":
            if current is not None:
                pages.append(tuple(current))
            current = None
        elif current is not None:
            current.append(f"{kind}:{value}")
    return pages


def onenight_settings(seed: int, record: Path) -> TableSettings:
    return TableSettings(
        game="onenight",
        players=3,
        lang="ru",
        seed=seed,
        answer_s=5,
        record_dir=record,
        options={"window_s": 1.0, "discussion_s": 1.0},
    )


async def play_onenight(seed: int, shots: bool = False) -> TableApp:
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(seed, record), config, clock=Lockstep())
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause(0.3)
        if shots:
            app.save_screenshot(str(DOCS / "setup.svg"))
        await pilot.press("enter")  # «Начать»
        for seat in range(1, 4):
            await until(pilot, page_ends_with(app, f"Игрок номер {seat}: нажмите Enter"))
            assert app.secret_text == "", "a card on screen before its player pressed a key"
            await pilot.press("enter")
            await until(pilot, lambda: app.secret_text.startswith("Ваша карта"))
            if shots and seat == 1:
                app.save_screenshot(str(DOCS / "deal.svg"))
            await pilot.press("enter")
            await until(pilot, lambda: app.secret_text == "")
        await until(pilot, said(app, "Верховный инквизитор видит вещий сон!"))
        await until(pilot, lambda: app.live_view is not None)
        await pilot.press("2", "enter")  # the same reaction if the card lies in the centre
        if shots:
            await pilot.pause(0.3)
            app.save_screenshot(str(DOCS / "night.svg"))
        await until(pilot, said(app, "Наступило утро"))
        if shots:
            await until(pilot, lambda: app.live_view is not None)
            app.save_screenshot(str(DOCS / "day.svg"))
        for voter in range(1, 4):
            await until(pilot, asking(app, f"Голос игрока номер {voter}"))
            await pilot.press(str(voter % 3 + 1), "enter")  # everyone one vote: nobody burns
        await until(pilot, lambda: app.finished)
        if shots:
            app.save_screenshot(str(DOCS / "end.svg"))
        await pilot.press("escape")
    return app


def test_a_whole_onenight_game_on_the_full_screen() -> None:
    DOCS.mkdir(parents=True, exist_ok=True)
    app = asyncio.run(play_onenight(11, shots=True))
    for name in ("setup", "deal", "night", "day", "end"):
        assert (DOCS / f"{name}.svg").stat().st_size > 1000
    assert app.code == 0 and app.error is None
    assert ("said", "Каждый получил по одному голосу — на костёр никто не попадает.") in app.events
    ends = [value for kind, value in app.events if kind == "end"]
    assert ends and ends[0].startswith("Итог:")
    farewell = app.farewell or []  # printed after leaving the screen
    assert farewell[0].startswith("Итог:") and "Игрок номер 1:" in farewell[1]
    assert any(line.startswith("Протокол игры: ") for line in farewell)
    check_secrets_stay_inside(app)
    for page in neutral_pages(app):  # after a window: only the neutral line, nothing private
        assert all(not item.startswith("secret:") for item in page)


def test_the_neutral_pages_do_not_depend_on_the_deal() -> None:
    apps = [asyncio.run(play_onenight(seed)) for seed in (11, 5)]
    deals = [
        shuffled_deal(
            get_variant("onenight").composition(3, make_switches(get_variant("onenight"), {})),
            3,
            random.Random(seed),
        )
        for seed in (11, 5)
    ]
    assert deals[0] != deals[1]
    public = [[value for kind, value in app.events if kind == "said"] for app in apps]
    cut = [lines.index("Все раскрывают свои карты.") for lines in public]
    assert public[0][: cut[0]] == public[1][: cut[1]]
    pages = [neutral_pages(app) for app in apps]
    assert pages[0] == pages[1], "the page after a window differs between two deals"
    assert ("line:Все спят.",) in pages[0]  # the neutral page after each night window


async def play_halloween() -> TableApp:
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    settings = TableSettings(
        game="halloween",
        players=7,
        lang="en",
        seed=4,
        answer_s=5,
        record_dir=record,
        options={"window_s": 1.0, "discussion_s": 1.0, "silence_s": 0.5},
    )
    deal = prepare(settings).deal
    vampires = deal.seats_with("vampire")
    others = [s for s in range(1, 8) if s not in vampires]
    app = make_app(settings, config, with_setup=False, clock=Lockstep())
    async with app.run_test(size=(100, 40)) as pilot:
        for _ in range(7):
            await until(pilot, lambda: bool(app.page_lines) and "press Enter" in app.page_lines[-1])
            await pilot.press("enter")
            await until(pilot, lambda: app.secret_text != "")
            await pilot.press("enter")
            await until(pilot, lambda: app.secret_text == "")
        alive = list(range(1, 8))
        for day, (victim, target) in enumerate(
            [(others[0], vampires[0]), (others[1], vampires[1])], 1
        ):
            await until(pilot, said(app, "The vampires wake up"))
            await until(pilot, lambda: app.live_view is not None and app.live_view.kind == "window")
            await pilot.press(str(victim), "enter")
            await until(pilot, said(app, f"Tonight player number {victim} is out"))
            alive.remove(victim)
            for voter in alive:
                await until(pilot, asking(app, f"{voter}"))
                choice = target if voter != target else next(s for s in alive if s != voter)
                await pilot.press(str(choice), "enter")
                await until(pilot, not_asking(app, f"{voter}"))
            alive.remove(target)
            if day == 1:
                await until(pilot, said(app, f"Player number {target} is voted out"))
        await until(pilot, lambda: app.finished, seconds=30)
        await pilot.press("escape")
    return app


def test_a_whole_halloween_game_on_the_full_screen() -> None:
    app = asyncio.run(play_halloween())
    assert app.error is None and app.code == 0
    assert ("said", "No vampires are left — the villagers win!") in app.events
    check_secrets_stay_inside(app)


def test_pause_freezes_the_clock() -> None:
    clock = PausableClock()
    assert clock.toggle() is True
    frozen = clock.now()
    time.sleep(0.05)
    assert clock.now() == frozen
    assert clock.toggle() is False
    assert clock.now() >= frozen


async def press_p_at_night_and_by_day() -> tuple[bool, bool, TableApp]:
    """P during the first night window, then P during the day vote."""
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(3, record), config, with_setup=False, clock=Lockstep())
    async with app.run_test(size=(100, 40)) as pilot:
        await deal_cards(pilot, app, 3)
        await until(pilot, lambda: app.live_view is not None and app.live_view.kind == "window")
        await pilot.press("p", "r")
        await pilot.pause(0.1)
        paused_at_night = app.clock.paused
        await pilot.press("slash", "1")  # nor does the keypad's pause
        await pilot.pause(0.2)
        paused_at_night |= app.clock.paused
        await until(pilot, asking(app, "Голос игрока номер 1"))
        await pilot.press("p")
        await pilot.pause(0.1)
        paused_by_day = app.clock.paused
        assert "ПАУЗА" in "\n".join(screen_rows(app))
        await pilot.press("p")
        await pilot.pause(0.1)
        assert not app.clock.paused and "День 1" in screen_rows(app)[0]
        await pilot.press("slash", "1")  # the keypad's pause: help, then 1
        await pilot.pause(0.2)
        assert app.clock.paused, "/ 1 did not pause the day"
        await pilot.press("slash", "1")
        await pilot.pause(0.2)
        assert not app.clock.paused, "/ 1 did not go on"
        for voter in range(1, 4):
            await until(pilot, asking(app, f"Голос игрока номер {voter}"))
            await pilot.press(str(voter % 3 + 1), "enter")
        await until(pilot, lambda: app.finished)
        await pilot.press("escape")
    return paused_at_night, paused_by_day, app


def test_pause_and_repeat_are_inert_at_night() -> None:
    paused_at_night, paused_by_day, app = asyncio.run(press_p_at_night_and_by_day())
    assert not paused_at_night, "P at night stopped the clock and the knocks: audible"
    assert paused_by_day
    assert app.error is None


async def deal_cards(pilot: Pilot[Any], app: TableApp, players: int) -> None:
    """Each player in turn: Enter shows the card, Enter hides it."""
    for _ in range(players):
        await until(pilot, lambda: bool(app.page_lines) and "Enter" in app.page_lines[-1])
        await pilot.press("enter")
        await until(pilot, lambda: app.secret_text.startswith("Ваша карта"))
        await pilot.press("enter")
        await until(pilot, lambda: app.secret_text == "")


async def stop_for_good(pilot: Pilot[Any], app: TableApp, asked_before: int = 0) -> list[str]:
    """The stop question is on the page: the screen then; 1 (yes) stops, Esc leaves."""
    await until(pilot, lambda: sum("Прервать игру?" in x for x in app.page_lines) > asked_before)
    rows = screen_rows(app)
    await pilot.press("1")
    await until(pilot, lambda: app.finished)
    await until(pilot, lambda: screen_rows(app)[0].strip().startswith("Игра прервана."))
    await pilot.press("escape")
    return rows


async def help_and_stop_keys() -> tuple[list[str], TableApp]:
    from narrator.screen.tui import HelpScreen

    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(3, record), config, with_setup=False)
    seen: list[str] = []
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: bool(app.page_lines) and "Enter" in app.page_lines[-1])
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        seen.append("help" if isinstance(app.screen, HelpScreen) else "table")
        await pilot.press("question_mark")
        await pilot.pause(0.2)
        seen.append("help" if isinstance(app.screen, HelpScreen) else "table")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: any("Прервать игру?" in line for line in app.page_lines))
        await pilot.press("escape")  # a second Esc goes on
        await until(pilot, lambda: any("Продолжаем." in line for line in app.page_lines))
        seen.append("running" if not app.finished else "stopped")
        await pilot.press("slash", "0")  # the keypad's way: help, then 0 asks to stop
        await stop_for_good(pilot, app, asked_before=1)
    return seen, app


def test_help_toggles_and_stopping_needs_an_explicit_yes() -> None:
    seen, app = asyncio.run(help_and_stop_keys())
    assert seen == ["help", "table", "running"]
    assert app.code == 130 and app.error is None
    farewell = app.farewell or []
    assert farewell[0] == "Игра прервана." and farewell[-1].startswith("Протокол игры: ")


async def deal_in_a_small_terminal() -> tuple[list[str], list[str], TableApp]:
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(5, record), config, with_setup=False)
    async with app.run_test(size=(50, 15)) as pilot:
        await until(pilot, lambda: bool(app.page_lines) and "Enter" in app.page_lines[-1])
        await pilot.press("enter")
        await until(pilot, lambda: app.secret_text.startswith("Ваша карта"))
        await pilot.pause(0.2)
        small = screen_rows(app)
        await pilot.resize_terminal(100, 40)
        await pilot.pause(0.3)
        large = screen_rows(app)
        await pilot.press("escape")
        await until(pilot, lambda: any("Прервать игру?" in line for line in app.page_lines))
        await pilot.press("1")
        await until(pilot, lambda: app.finished)
        await pilot.press("escape")
    return small, large, app


def test_a_small_terminal_shows_a_full_page_instead_of_a_cut_secret() -> None:
    small, large, _ = asyncio.run(deal_in_a_small_terminal())
    text = "\n".join(small)
    assert "Окно слишком маленькое" in text, text
    assert "Ваша карта" not in text and "Игрок номер" not in text, text
    assert any("Ваша карта" in row for row in large), "the card did not come back when enlarged"


async def many_lines(size: tuple[int, int]) -> tuple[list[str], TableApp]:
    """The narrator says forty lines while the page above the log fills and empties."""

    def game(app: TableApp) -> int:
        screen = TuiScreen(app)
        for n in range(1, 41):
            screen.said(f"Строка номер {n} от ведущего.")
            if n % 7 == 0:
                screen.clear()
            else:
                screen.line(f"на странице {n}")
            time.sleep(0.01)
        return 0

    app = TableApp(load_catalog("ru"), game, PausableClock())
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.finished)
        await pilot.pause(0.3)
        rows = screen_rows(app)
        await pilot.press("escape")
    return rows, app


def test_the_log_shows_the_newest_line_however_full_the_page() -> None:
    for size in ((80, 24), (120, 40)):
        rows, _ = asyncio.run(many_lines(size))
        text = "\n".join(rows)
        assert "» Строка номер 40 от ведущего." in text, text
        assert "» Строка номер 1 от ведущего." not in text, text


async def ctrl_c_on_set_up_and_in_game() -> tuple[list[str], TableApp]:
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(3, record), config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("enter")  # start
        await until(pilot, lambda: bool(app.page_lines) and "Enter" in app.page_lines[-1])
        await pilot.press("ctrl+c")
        rows = await stop_for_good(pilot, app)
    return rows, app


def test_ctrl_c_asks_to_stop_in_the_game_language() -> None:
    rows, app = asyncio.run(ctrl_c_on_set_up_and_in_game())
    assert "Ctrl+Q" not in "\n".join(rows) or "Прервать" in "\n".join(rows)
    assert not any("quit" in row.lower() for row in rows), rows
    assert app.code == 130


async def ctrl_c_on_the_set_up_screen() -> TableApp:
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(3, record), config)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("ctrl+c")
        await pilot.pause(0.3)
        assert not any("quit" in row.lower() for row in screen_rows(app))
    return app


def test_ctrl_c_on_the_set_up_screen_leaves_quietly() -> None:
    app = asyncio.run(ctrl_c_on_the_set_up_screen())
    assert app._thread is None and not app.is_running


async def take_back_a_nomination() -> TableApp:
    """Sport mafia, day 1: seat 1 nominates 5, then during the next speech the keypad's
    / 3 and 1 take it back: «Ответ отменён.» is said and the first speech comes again."""
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    settings = TableSettings(
        game="sport_mafia",
        players=10,
        seed=4,
        answer_s=5,
        record_dir=record,
        options={"meeting_s": 1.0, "check_s": 1.0, "speech_s": 30.0, "shot_call_s": 0.3},
    )
    app = make_app(settings, config, with_setup=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await deal_cards(pilot, app, 10)
        await until(pilot, asking(app, "Слово игроку номер 1."), 120)
        await pilot.press("5", "enter")
        await until(pilot, said(app, "5 принято"))
        await pilot.press("enter")  # «Спасибо»
        await until(pilot, asking(app, "Слово игроку номер 2."), 60)
        await pilot.press("slash", "3")
        await until(pilot, lambda: any("Отменить ответ" in line for line in app.page_lines))
        await pilot.press("1")
        await until(pilot, said(app, "отменён"), 60)
        await until(pilot, asking(app, "Слово игроку номер 1."), 60)
        await pilot.press("escape")
        await until(pilot, lambda: any("Прервать игру?" in line for line in app.page_lines))
        await pilot.press("1")
        await until(pilot, lambda: app.finished)
        await pilot.press("escape")
    return app


def test_a_nomination_is_taken_back_with_the_keypad() -> None:
    app = asyncio.run(take_back_a_nomination())
    lines = [value for kind, value in app.events if kind == "said"]
    assert [line for line in lines if "отменён" in line] == ["Ответ отменён."]
    # The page says which answer went, once the question is open again.
    shown = [value for kind, value in app.events if kind == "line" and "отменён" in value]
    assert len(shown) == 1 and "5" in shown[0], shown
    assert app.error is None


async def leave_while_the_record_is_written() -> tuple[bool, bool, TableApp]:
    """Enter on the end screen while the game still writes its record: it leaves after."""
    written = threading.Event()

    def game(app: TableApp) -> int:
        TuiScreen(app).end("Победила деревня.", ["Игрок 1: Оборотень"])
        written.wait(60)  # the record and the narration file are being written
        return 0

    app = TableApp(load_catalog("ru"), game, PausableClock())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.ended)
        await pilot.press("enter")
        await pilot.pause(0.2)
        stayed = app.is_running and not app.finished
        written.set()
        await until(pilot, lambda: not app.is_running)
        left = not app.is_running
    return stayed, left, app


def test_the_end_screen_takes_its_leave_key_before_the_record_is_written() -> None:
    stayed, left, app = asyncio.run(leave_while_the_record_is_written())
    assert stayed, "the app left before the game had written its record"
    assert left and app.finished, "Enter pressed during the save was lost"


async def long_lines_on_a_small_page() -> tuple[list[str], TableApp]:
    """Page lines and a prompt label that wrap at 80 columns still fit, or ask for more."""

    seen = threading.Event()

    def game(app: TableApp) -> int:
        screen = TuiScreen(app)
        for n in range(1, 9):
            screen.line(f"Строка {n}: " + "очень длинная строка страницы, " * 4)
        screen.live(Live("answer", "Длинная подпись вопроса, " * 5, left=10, total=10))
        seen.wait(60)
        return 0

    app = TableApp(load_catalog("ru"), game, PausableClock())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.live_view is not None)
        await pilot.pause(0.3)
        rows = screen_rows(app)
        seen.set()
    return rows, app


def test_wrapped_page_lines_never_push_the_prompt_off_the_screen() -> None:
    rows, _ = asyncio.run(long_lines_on_a_small_page())
    text = "\n".join(rows)
    assert "Строка 8" in text, text  # the newest page line is shown
    assert "Строка 1:" not in text, text  # the oldest gave way to it
    assert "Длинная подпись вопроса" in text, text  # and the prompt stays in sight


async def a_question_over_a_night_box() -> tuple[list[str], TableApp]:
    """The sheriff's window at 80×24: his box, the keys' hints, his answer, the live area,
    and then the stop question (Esc) on the page, as the table asks it."""
    seen = threading.Event()
    ru = load_catalog("ru")
    question = ru.text("screen.confirm_quit")
    wake = "Просыпается Шериф, Шериф ищет мафию"

    def game(app: TableApp) -> int:
        screen = TuiScreen(app)
        screen.said(wake)
        screen.line(wake)
        screen.line(ru.text("keys.sport_mafia_sheriff"))
        screen.secret("Игрок номер 2: Мафия")
        screen.line("2 — Принято.")
        screen.live(Live("answer", "", left=5, total=10))
        screen.line("")  # the table's Dialogs: a blank line, then the question
        screen.line(question)
        seen.wait(60)
        return 0

    app = TableApp(ru, game, PausableClock())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: bool(app.page_lines) and app.page_lines[-1] == question)
        await pilot.pause(0.3)
        rows = screen_rows(app)
        seen.set()
    return rows, app


def test_a_stop_question_over_a_night_box_fits_80_by_24() -> None:
    """Found playing sport mafia at 80×24: Esc in the sheriff's window gave «Окно слишком
    маленькое», so the question could not be read; the hints give way to it instead."""
    rows, _ = asyncio.run(a_question_over_a_night_box())
    text = "\n".join(rows)
    assert load_catalog("ru").text("screen.confirm_quit") in " ".join(text.split()), text
    assert "Игрок номер 2: Мафия" in text, text
    assert "слишком маленькое" not in text, text


async def stop_while_a_card_is_shown() -> TableApp:
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(3, record), config, with_setup=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: bool(app.page_lines) and "Enter" in app.page_lines[-1])
        await pilot.press("enter")
        await until(pilot, lambda: app.secret_text.startswith("Ваша карта"))
        await pilot.press("escape")
        await stop_for_good(pilot, app)
    return app


def test_stopping_inside_a_window_wipes_its_secret() -> None:
    app = asyncio.run(stop_while_a_card_is_shown())
    assert app.code == 130
    assert app.secret_text == "", "the card stayed on screen after the game stopped"
    after = app.events[max(i for i, (kind, _) in enumerate(app.events) if kind == "secret") :]
    assert ("clear", "") in after


async def set_up_in_english() -> list[str]:
    """The set-up screen in Russian; 2 on «Язык» picks English; «Start»."""
    record, config = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    app = make_app(onenight_settings(3, record), config, clock=Lockstep())
    bars: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        from narrator.screen.setup import SetupScreen

        setup = app.screen
        assert isinstance(setup, SetupScreen)
        setup.query_one("#lang").focus()
        await pilot.press("2")
        await until(pilot, lambda: "Set-up" in screen_rows(app)[0])
        app.screen.query_one("#start").focus()
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, SetupScreen))
        await until(pilot, lambda: bool(app.last_said))
        bars.append(screen_rows(app)[0].strip())
        app.exit()
    return bars


def test_the_phase_bar_speaks_the_language_chosen_on_the_set_up_screen() -> None:
    """Set up in Russian, play in English: the bar says «The deal», not «Раздача»."""
    en = load_catalog("en")
    bar = en.text("tui.phase", {"phase": en.text("tui.phase_setup")})
    assert asyncio.run(set_up_in_english()) == [bar]
