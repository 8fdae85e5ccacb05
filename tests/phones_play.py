"""Playing a whole game on browser phones, shared by the phone tests.

Debian's chromium driven by Playwright, one mobile context per seat, everything on
loopback; the laptop narrates silently and its keypad answers only what stays on it
(a hand count). Every frame each context received is kept for :func:`check_frames`.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import pytest

from narrator.clocks import RealClock
from narrator.host.table import TableDriver
from narrator.phones import views
from narrator.phones import wire
from narrator.phones.at_table import Phones
from narrator.phones.hub import Hub
from narrator.phones.views import Moment
from narrator.ports import ENTER
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
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import Page
    from playwright.sync_api import sync_playwright
except ImportError:  # the test extra is not installed
    sync_playwright = None  # type: ignore[assignment]

NEEDS_BROWSER = [
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (test extra)"),
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium (scripts/setup.sh test installs it)"),
]
CATALOG = load_catalog("ru")
Answering = Callable[[Prompt, int], str | None]  # (prompt, seat) → the answer text, or none


def word(key: str, **params: object) -> str:
    return CATALOG.text(key, params)


def card_of(deal: Deal, seat: int) -> str:
    return word("screen.deal_card", roles=CATALOG.text(f"role.{deal.role_of(seat)}"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None and CHROMIUM is not None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


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


class SpyingScreen(RecordingScreen):
    """The laptop's screen, keeping every secret it showed with the seats awake then."""

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub
        self.secrets: list[tuple[tuple[int, ...], str]] = []

    def secret(self, text: str) -> None:
        self.secrets.append((self.hub.moment.window or (), text))


class LaptopKeys:
    """The laptop's keypad: it waits as a keyboard does, and types only the answers that
    stay on it (``laptop``: a hand count), once each."""

    def __init__(self, clock: RealClock, laptop: Callable[[Prompt], str | None]) -> None:
        self.clock, self.laptop = clock, laptop
        self.typed: list[str] = []

    def read(self, timeout: float) -> str | Attempt | None:
        if self.typed:
            return self.typed.pop(0)
        self.clock.sleep(timeout)
        return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        text = self.laptop(prompt) if prompt is not None else None
        if text is not None:
            self.typed = [*"".join(codec.to_keys(text, prompt)), ENTER]  # type: ignore[arg-type]


def nobody(prompt: Prompt) -> str | None:
    return None


def asleep(moment: Moment, seat: int) -> bool:
    return moment.night and moment.window is not None and seat not in moment.window


TAP_MS = 3000  # a keypad gone meanwhile (the moment passed): the tap is given up


def tap(page: Page, keys: list[str]) -> None:
    for key in keys:
        try:
            page.tap(f'#keypad button[data-key="{key}"]', timeout=TAP_MS)
        except PlaywrightError:
            return


def keys_of(text: str, prompt: Prompt) -> list[str]:
    """The phone's keys for the canonical answer ``text`` (one seat's part, or whole)."""
    return [*"".join(codec.to_keys(text, prompt)), "enter"]


def state(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """() => ({
            card: !document.getElementById('card').hidden,
            keypad: !document.getElementById('keypad').hidden,
        })"""
    )
    return result


@dataclass
class Played:
    """What a game on phones left: the record, what each phone received, what it did."""

    record: GameRecord
    frames: dict[int, list[str]]
    secrets: list[tuple[tuple[int, ...], str]]
    cards: dict[int, str] = field(default_factory=dict)
    knocked: set[tuple[int, int]] = field(default_factory=set)
    ended: list[int] = field(default_factory=list)  # speakers whose Enter ended a speech

    def answers(self) -> list[dict[str, Any]]:
        return [e for e in self.record.events if e["event"] == "answer"]


def play(
    browser: Browser,
    phones: Phones,
    game_name: str,
    deal: Deal,
    options: Mapping[str, object],
    answer: Answering,
    *,
    laptop: Callable[[Prompt], str | None] = nobody,
    speaking: Callable[[int, Moment], list[str]] = lambda seat, moment: [],
    answer_s: float = 8,
) -> Played:
    """A whole game of ``deal`` on phones, one per seat: every card seen on its phone,
    every answer ``answer`` gives tapped on the phone of a seat that may give it, every
    speech ended by its speaker's empty Enter (after the keys ``speaking`` gives), and
    a sleeping phone tapping once in every window."""
    variant = get_variant(game_name)
    settings = TableSettings.of(
        {"game": game_name, "players": deal.players, "options": dict(options)}
    )
    prepared = prepare(settings)
    variant.validate_deal(deal, prepared.switches)
    hub = phones.hub
    frames: dict[int, list[str]] = {seat: [] for seat in range(1, deal.players + 1)}
    pages = {seat: phone(browser, phones.address, seat, frames[seat]) for seat in frames}
    clock = RealClock()
    screen = SpyingScreen(hub)
    record = GameRecord()
    driver = TableDriver(
        CATALOG,
        record,
        voice=SilentVoice(),
        screen=phones.screen(screen),
        keys=phones.keys(LaptopKeys(clock, laptop)),
        clock=clock,
        answer_s=answer_s,
        phones=hub,
    )
    game = variant.new_game(deal, prepared.switches, rules_rng(1))
    failed: list[BaseException] = []

    def run() -> None:
        try:
            driver.run(game)
        except BaseException as error:  # told to the test's thread
            failed.append(error)

    table = threading.Thread(target=run, daemon=True)
    table.start()
    played = Played(record, frames, screen.secrets)
    answered: set[tuple[int, str]] = set()
    windows = speeches = 0
    last_window: tuple[int, ...] | None = None
    last_speaker: int | None = None
    spoken: set[int] = set()  # the speeches (by number) already ended
    while table.is_alive():
        moment = hub.moment
        if moment.window is not None and moment.window != last_window:
            windows += 1
        last_window = moment.window
        if moment.speaker != last_speaker and moment.speaker is not None:
            speeches += 1
        last_speaker = moment.speaker
        prompt = moment.prompt
        knocking: list[tuple[int, Page]] = []  # sleeping phones, after every answer is given
        for seat, page in pages.items():
            shown = state(page)
            if shown["card"] and seat not in played.cards:
                page.dispatch_event("#hold", "pointerdown")
                played.cards[seat] = page.inner_text("#card-text")
                page.dispatch_event("#hold", "pointerup")
                tap(page, ["enter"])
            elif (
                shown["keypad"]
                and prompt is not None
                and views.may_answer(moment, seat)
                and (seat, prompt.id) not in answered
            ):
                answered.add((seat, prompt.id))
                text = answer(prompt, seat)
                if text is not None:
                    tap(page, keys_of(text, prompt))
            elif (
                shown["keypad"]
                and moment.speaker == seat
                and not moment.night
                and speeches not in spoken
                and (prompt is None or (seat, prompt.id) in answered)
            ):
                spoken.add(speeches)
                played.ended.append(seat)
                tap(page, [*speaking(seat, moment), "enter"])
            elif asleep(moment, seat) and (seat, windows) not in played.knocked:
                knocking.append((seat, page))
        for seat, page in knocking[:1]:  # one per pass: a short window's answer comes first
            played.knocked.add((seat, windows))
            tap(page, ["1", "enter"])  # a sleeping phone taps: nothing counts
        table.join(0.02)
    assert not failed, failed
    assert played.cards == {seat: card_of(deal, seat) for seat in pages}
    for page in pages.values():
        page.context.close()
    return played


def check_frames(played: Played, deal: Deal) -> None:
    """Every frame: one size, its own seat, and no secret the seat is not entitled to."""
    cards = {seat: card_of(deal, seat) for seat in played.frames}
    secrets = played.secrets
    for seat, received in played.frames.items():
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
            if frame.get("phase") != "end":  # the end screen shows the whole game to all
                assert not any(text in payload for text in foreign), (seat, payload)
