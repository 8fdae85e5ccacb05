"""The phones in a real browser: Debian's chromium driven by Playwright, one
mobile context per phone, everything on loopback.

Phones join, one reloads and gets its seat back, and a whole ``onenight`` game is
played on them with the laptop narrating silently and its own keypad untouched: every
card is seen on its phone, every night answer and every vote is tapped there. Every
frame each context received is checked: one size, its own seat only, and no secret of
a seat it does not hold (another's card, a window it was not awake in). The other
variants are played the same way in test_phones_games.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from narrator.phones.at_table import Phones
from narrator.phones.at_table import open_phones
from narrator.rules.core import Deal
from narrator.rules.prompts import Prompt
from tests.phones_play import NEEDS_BROWSER
from tests.phones_play import browser  # noqa: F401 (a fixture)
from tests.phones_play import check_frames
from tests.phones_play import phone
from tests.phones_play import play
from tests.phones_play import word

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = NEEDS_BROWSER

DEAL = Deal(
    ("werewolf", "spirit", "high_inquisitor", "inquisitor"), ("werewolf",) + ("inquisitor",) * 2
)
PLAYERS = len(DEAL.seats)


@pytest.fixture
def phones() -> Iterator[Phones]:
    served = open_phones(PLAYERS, word, host="127.0.0.1", port=0, period=0.2)
    yield served
    served.stop()


def test_phones_join_and_a_reloaded_phone_gets_its_seat_back(
    browser: Browser,  # noqa: F811
    phones: Phones,
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


def answer(prompt: Prompt, seat: int) -> str:
    """What the player at ``seat`` taps for ``prompt``: a legal answer other than nobody."""
    options = [o for o in prompt.options if o not in {"none", "abstain"}]
    return options[seat % len(options)]


def test_a_whole_onenight_game_on_phones_tells_no_phone_another_seats_secret(
    browser: Browser,  # noqa: F811
    phones: Phones,
) -> None:
    played = play(browser, phones, "onenight", DEAL, {"window_s": 4, "discussion_s": 1}, answer)
    answers = played.answers()
    # Every night answer and every vote came from its own phone, once, and was taken; the
    # sleeping phones' taps at night never reached the table, not even as a refusal.
    votes = [f"d1.vote.{seat}" for seat in range(1, PLAYERS + 1)]
    assert sorted(e["prompt"] for e in answers) == sorted(
        ["n1.high_inquisitor", "n1.spirit", *votes]
    )
    assert all(e["accepted"] for e in answers), answers
    assert played.knocked
    check_frames(played, DEAL)
