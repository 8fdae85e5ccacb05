"""Whole games of halloween, sport_mafia and alliance on browser phones.

One mobile context per seat, the laptop narrating silently; every answer a player gives
for his own seat is tapped on his phone (the shooters' entries and the sheriff's
candidates one part per phone, a speech ended by its speaker's empty Enter, a
werewolf's ``*8`` claimed and confirmed on his phone), and the laptop's keypad types
only what stays on it (sport_mafia's hand counts). Every frame each context received
is checked as for onenight (tests/phones_play.py). Short windows and speeches and a
deal that ends quickly keep each game to a few tens of seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from narrator.phones.at_table import Phones
from narrator.phones.at_table import open_phones
from narrator.phones.views import Moment
from narrator.rules.core import Deal
from narrator.rules.prompts import Prompt
from tests.phones_play import NEEDS_BROWSER
from tests.phones_play import browser  # noqa: F401 (a fixture)
from tests.phones_play import check_frames
from tests.phones_play import play
from tests.phones_play import word

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = NEEDS_BROWSER
NOBODY = {"none", "abstain"}


@pytest.fixture
def phones(request: pytest.FixtureRequest) -> Iterator[Phones]:
    served = open_phones(request.param, word, host="127.0.0.1", port=0, period=0.2)
    yield served
    served.stop()


def seats(options: tuple[str, ...]) -> list[int]:
    return [int(o) for o in options if o.isdigit()]


def first_of(options: tuple[str, ...], wanted: tuple[int, ...], default: str = "none") -> str:
    """The first seat of ``wanted`` the options name, else the first other one."""
    named = seats(options)
    return str(next((s for s in named if s in wanted), named[0] if named else default))


# --- halloween: 7 players, two vampires voted out on days 1 and 2 -----------------------

HALLOWEEN = Deal(("vampire", "villager", "witch", "vampire", "hunter", "villager", "villager"))


def halloween(prompt: Prompt, seat: int) -> str:
    vampires = HALLOWEEN.seats_with("vampire")
    others = tuple(s for s in range(1, 8) if s not in vampires)
    if prompt.action == "vampires":  # one vampire's phone answers for the pair
        return first_of(prompt.options, others)
    if prompt.tag.by_night:
        return first_of(prompt.options, ())
    return first_of(prompt.options, vampires)  # every vote: a vampire


@pytest.mark.parametrize("phones", [HALLOWEEN.players], indirect=True)
def test_a_whole_halloween_game_on_phones(browser: Browser, phones: Phones) -> None:  # noqa: F811
    options = {"window_s": 3, "silence_s": 0.5, "discussion_s": 0.5}
    played = play(browser, phones, "halloween", HALLOWEEN, options, halloween)
    answers = played.answers()
    taken = {e["prompt"] for e in answers if e["accepted"]}
    assert {"n1.vampires", "n1.witch", "n1.hunter", "d1.vote.3", "d2.vote.3"} <= taken
    assert all(e["accepted"] for e in answers), answers
    assert played.record.events[-1]["winner"] == "villagers"
    assert played.knocked
    check_frames(played, HALLOWEEN)


# --- sport_mafia: 10 players, the black side wins after two days and two nights ---------

SPORT = Deal(("don", "mafia", "mafia", "sheriff", *("civilian",) * 6))


def sport_mafia(prompt: Prompt, seat: int) -> str:
    red = SPORT.seats_with("civilian")
    if prompt.action == "shoot":  # each shooter's own entry: the first red seat
        return first_of(tuple(o.split()[0] for o in prompt.options), red)
    if prompt.action == "nominate":  # the first two speakers nominate, the others nobody
        return first_of(prompt.options, red) if seat in _first_speakers(prompt) else "none"
    return first_of(prompt.options, ())


def _first_speakers(prompt: Prompt) -> tuple[int, ...]:
    nominated = 10 - len(seats(prompt.options))
    return (prompt.tag.about,) if nominated < 4 else ()  # type: ignore[return-value]


def hand_count(prompt: Prompt) -> str | None:
    """The laptop's keypad: every hand for the first nominee, then what is left."""
    return max(prompt.options, key=int) if prompt.action in {"vote", "revote"} else None


@pytest.mark.parametrize("phones", [SPORT.players], indirect=True)
def test_a_whole_sport_mafia_game_on_phones(browser: Browser, phones: Phones) -> None:  # noqa: F811
    options = {"speech_s": 5, "last_word_s": 3, "meeting_s": 1, "check_s": 2.5, "shot_call_s": 0.4}
    played = play(browser, phones, "sport_mafia", SPORT, options, sport_mafia, laptop=hand_count)
    answers = played.answers()
    taken = {e["prompt"] for e in answers if e["accepted"]}
    assert {"n1.shoot", "n1.don", "n1.sheriff"} <= taken, taken
    assert any(p.startswith("d1.nominate.") for p in taken), taken
    assert played.ended, "no speech was ended on its speaker's phone"
    assert played.knocked
    assert played.record.events[-1]["winner"] == "black"
    check_frames(played, SPORT)


# --- alliance: 9 players, the werewolves win when the second villager is exiled ---------

ALLIANCE = Deal(
    ("werewolf", "guard", "werewolf", "witch", "seer", "werewolf", "hunter", "villager", "villager")
)
CANDIDATES = (2, 5)
CLAIMANT = 4  # the witch claims an explosion on her phone: said aloud, then refused


def alliance(prompt: Prompt, seat: int) -> str:
    villagers = ALLIANCE.seats_with("villager")
    if prompt.action == "candidates":
        return str(seat) if seat in CANDIDATES else "none"
    if prompt.action in {"withdraw", "witch_save"}:
        return "no" if prompt.action == "witch_save" else "none"
    if prompt.action == "witch_poison":
        return "none"
    if prompt.action == "wolves":
        return first_of(prompt.options, villagers)
    if prompt.action in {"sheriff_vote", "sheriff_revote"}:
        return first_of(prompt.options, CANDIDATES[:1])
    if prompt.action in {"vote", "pk_vote"}:
        return first_of(prompt.options, villagers)
    return next(o for o in prompt.options if o not in NOBODY or o == prompt.options[-1])


def claim(seat: int, moment: Moment) -> list[str]:
    """During his own first speech the witch claims she explodes: ``*4`` Enter."""
    return ["*", str(CLAIMANT), "enter"] if seat == CLAIMANT and moment.interrupt else []


@pytest.mark.parametrize("phones", [ALLIANCE.players], indirect=True)
def test_a_whole_alliance_game_on_phones(browser: Browser, phones: Phones) -> None:  # noqa: F811
    options = {
        "roles": "werewolf=3,guard=1,witch=1,seer=1,hunter=1,villager=2",
        "window_s": 3,
        "election_speech_s": 5,
        "speech_s": 5,
        "pk_speech_s": 3,
        "last_words_s": 3,
        "hunter_s": 2,
        "badge_s": 3,
    }
    played = play(browser, phones, "alliance", ALLIANCE, options, alliance, speaking=claim)
    answers = played.answers()
    taken = {e["prompt"] for e in answers if e["accepted"]}
    assert {"n1.wolves", "n1.guard", "n1.witch_save", "n1.seer", "d1.candidates"} <= taken, taken
    assert played.ended and played.knocked
    assert played.record.events[-1]["winner"] == "werewolves"
    claims = [e for e in answers if e["prompt"].endswith(".explode")]
    assert claims and str(CLAIMANT) in str(claims[0]), answers  # made on the witch's phone
    assert not any(e["accepted"] for e in claims)  # a witch cannot explode: refused
    check_frames(played, ALLIANCE)
