"""The phones in a real browser: Debian's chromium driven by Playwright, one
mobile context per phone, everything on loopback.

Phones join, one reloads and gets its seat back, and a whole ``onenight`` game is
played on them with the laptop narrating silently and its own keypad untouched: every
card is seen on its phone, every night answer and every vote is tapped there. Every
frame each context received is checked: one size, its own seat only, and no secret of
a seat it does not hold (another's card, a window it was not awake in).
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from narrator.clocks import RealClock
from narrator.host.table import TableDriver
from narrator.phones import wire
from narrator.phones.at_table import Phones
from narrator.phones.at_table import open_phones
from narrator.phones.hub import Hub
from narrator.phones.views import Moment
from narrator.ports import Attempt
from narrator.prepared import prepare
from narrator.prepared import rules_rng
from narrator.record import GameRecord
from narrator.rules import codec
from narrator.rules.core import Deal
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.settings import TableSettings
from narrator.voice.catalog import load_catalog
from tests.harness import RecordingScreen
from tests.harness import SilentVoice

CHROMIUM = shutil.which("chromium")
try:
    from playwright.sync_api import Browser
    from playwright.sync_api import Page
    from playwright.sync_api import sync_playwright
except ImportError:  # the test extra is not installed
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (test extra)"),
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium (scripts/setup.sh test installs it)"),
]

CATALOG = load_catalog("ru")
DEAL = Deal(
    ("werewolf", "spirit", "high_inquisitor", "inquisitor"), ("werewolf",) + ("inquisitor",) * 2
)
PLAYERS = len(DEAL.seats)


def word(key: str, **params: object) -> str:
    return CATALOG.text(key, params)


def card_of(seat: int) -> str:
    return word("screen.deal_card", roles=CATALOG.text(f"role.{DEAL.role_of(seat)}"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None and CHROMIUM is not None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def phones() -> Iterator[Phones]:
    served = open_phones(PLAYERS, word, host="127.0.0.1", port=0, period=0.2)
    yield served
    served.stop()


def phone(browser: Browser, address: str, seat: int, frames: list[str]) -> Page:
    """A phone that opens the page and takes ``seat``; every frame it receives is kept."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()

    def keep(payload: str | bytes) -> None:
        frames.append(payload if isinstance(payload, str) else payload.decode())

    page.on("websocket", lambda socket: socket.on("framereceived", keep))
    page.goto(address)
    page.tap(f'#seats button[data-seat="{seat}"]')
    page.wait_for_selector("#play:not([hidden])")
    assert page.inner_text("#title") == word("screen.player", seat=seat)
    return page


def test_phones_join_and_a_reloaded_phone_gets_its_seat_back(
    browser: Browser, phones: Phones
) -> None:
    frames: dict[int, list[str]] = {seat: [] for seat in (1, 2, 3)}
    pages = {seat: phone(browser, phones.address, seat, frames[seat]) for seat in frames}
    assert phones.hub.seating.bound() == (1, 2, 3)
    pages[2].reload()
    pages[2].wait_for_selector("#play:not([hidden])")
    assert pages[2].inner_text("#title") == word("screen.player", seat=2)
    assert "token" not in pages[2].url and pages[2].title() == "narrator"
    assert phones.hub.seating.bound() == (1, 2, 3)
    for page in pages.values():
        page.context.close()


class SpyingScreen(RecordingScreen):
    """The laptop's screen, keeping every secret it showed with the seats awake then."""

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub
        self.secrets: list[tuple[tuple[int, ...], str]] = []

    def secret(self, text: str) -> None:
        self.secrets.append((self.hub.moment.window or (), text))


class LaptopKeys:
    """The laptop's keypad, untouched for the whole game: it waits as a keyboard does."""

    def __init__(self, clock: RealClock) -> None:
        self.clock = clock

    def read(self, timeout: float) -> str | Attempt | None:
        self.clock.sleep(timeout)
        return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        pass


def answer_keys(prompt: Prompt, seat: int) -> list[str]:
    """What the player at ``seat`` taps for ``prompt``: a legal answer other than nobody."""
    options = [o for o in prompt.options if o not in {"none", "abstain"}]
    text = options[(seat) % len(options)]
    return [*"".join(codec.to_keys(text, prompt)), "enter"]


def asleep(moment: Moment, seat: int) -> bool:
    return moment.night and moment.window is not None and seat not in moment.window


def tap(page: Page, keys: list[str]) -> None:
    for key in keys:
        page.tap(f'#keypad button[data-key="{key}"]')


def state(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """() => ({
            card: !document.getElementById('card').hidden,
            keypad: !document.getElementById('keypad').hidden,
            label: document.getElementById('label').textContent,
        })"""
    )
    return result


def test_a_whole_onenight_game_on_phones_tells_no_phone_another_seats_secret(
    browser: Browser, phones: Phones
) -> None:
    variant = get_variant("onenight")
    settings = TableSettings.of(
        {"game": "onenight", "players": PLAYERS, "options": {"window_s": 4, "discussion_s": 1}}
    )
    prepared = prepare(settings)
    variant.validate_deal(DEAL, prepared.switches)
    hub = phones.hub
    frames: dict[int, list[str]] = {seat: [] for seat in range(1, PLAYERS + 1)}
    pages = {seat: phone(browser, phones.address, seat, frames[seat]) for seat in frames}
    clock = RealClock()
    screen = SpyingScreen(hub)
    record = GameRecord()
    driver = TableDriver(
        CATALOG,
        record,
        voice=SilentVoice(),
        screen=phones.screen(screen),
        keys=phones.keys(LaptopKeys(clock)),
        clock=clock,
        answer_s=8,
        phones=hub,
    )
    game = variant.new_game(DEAL, prepared.switches, rules_rng(1))
    failed: list[BaseException] = []

    def play() -> None:
        try:
            driver.run(game)
        except BaseException as error:  # told to the test's thread
            failed.append(error)

    table = threading.Thread(target=play, daemon=True)
    table.start()
    answered: set[tuple[int, str]] = set()
    seen_cards: dict[int, str] = {}
    knocked: set[tuple[int, int]] = set()  # (seat, window): a tap at night by a sleeping phone
    windows = 0
    last_window: tuple[int, ...] | None = None
    while table.is_alive():
        moment = hub.moment
        if moment.window is not None and moment.window != last_window:
            windows += 1
        last_window = moment.window
        for seat, page in pages.items():
            shown = state(page)
            prompt = moment.prompt
            if shown["card"] and seat not in seen_cards:
                page.dispatch_event("#hold", "pointerdown")
                seen_cards[seat] = page.inner_text("#card-text")
                page.dispatch_event("#hold", "pointerup")
                tap(page, ["enter"])
            elif (
                shown["keypad"]
                and prompt is not None
                and shown["label"] not in {"", word("phones.night")}
                and (seat, prompt.id) not in answered
                and (not prompt.seats or seat in prompt.seats)
            ):
                answered.add((seat, prompt.id))
                tap(page, answer_keys(prompt, seat))
            elif asleep(moment, seat) and (seat, windows) not in knocked:
                knocked.add((seat, windows))
                tap(page, ["1", "enter"])  # a sleeping phone taps: nothing counts
        table.join(0.05)
    assert not failed, failed
    assert seen_cards == {seat: card_of(seat) for seat in pages}
    answers = [e for e in record.events if e["event"] == "answer"]
    # Every night answer and every vote came from its own phone, once, and was taken; the
    # sleeping phones' taps at night never reached the table, not even as a refusal.
    votes = [f"d1.vote.{seat}" for seat in pages]
    assert sorted(e["prompt"] for e in answers) == sorted(
        ["n1.high_inquisitor", "n1.spirit", *votes]
    )
    assert all(e["accepted"] for e in answers), answers
    assert knocked
    check_frames(frames, screen.secrets)
    for page in pages.values():
        page.context.close()


def check_frames(frames: dict[int, list[str]], secrets: list[tuple[tuple[int, ...], str]]) -> None:
    """Every frame: one size, its own seat, and no secret the seat is not entitled to."""
    cards = {seat: card_of(seat) for seat in frames}
    for seat, received in frames.items():
        assert received, f"seat {seat} received nothing"
        own = {cards[seat]} | {text for seats, text in secrets if seat in seats}
        foreign = {text for seats, text in secrets if seat not in seats} - own
        foreign |= {card for other, card in cards.items() if card != cards[seat]}
        for payload in received:
            assert len(payload.encode()) == wire.FRAME
            frame = json.loads(payload)
            if frame["kind"] == "view":
                assert frame["seat"] == seat
                assert frame["secret"] in own | {""}, (seat, frame["secret"])
                if frame["phase"] == "night":
                    assert frame["page"] == "keypad"
            assert not any(text in payload for text in foreign), (seat, payload)
