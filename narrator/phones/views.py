"""What each phone shows: a pure function of the table's moment and one seat.

A phone is sent only the view of its own seat, built here, so no other seat's
secret is ever in what it receives. At night every joined phone shows the same
page, a keypad, whoever is awake (``night_view``): a lit screen or a tap tells
nothing; the woken seats' keypad carries their window's question, lines and
result, the others' only what they typed themselves. By day a phone is a keypad
while its own seat is asked (a vote), else it shows the table's public lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.rules.codec import Words
from narrator.rules.prompts import Prompt

Page = Literal["wait", "card", "keypad"]
Phase = Literal["day", "night", "end"]
TYPED_CHARS = 16  # longer than any answer the keypad forms (codec.KEYPAD)
KEYS = frozenset("0123456789+-*/.") | {ENTER, BACKSPACE}


@dataclass(frozen=True)
class Moment:
    """What the table is doing, as far as the phones need it (kept by the hub).

    ``window``: the seats awake in the open wake window (None: no window is open);
    ``lines`` and ``secret`` are what the laptop's screen shows: inside a window
    they belong to its seats alone, outside one they are public.
    """

    night: bool = False
    window: tuple[int, ...] | None = None
    prompt: Prompt | None = None
    label: str = ""
    reason: str = ""
    lines: tuple[str, ...] = ()
    secret: str = ""
    dealing: int | None = None
    card: str = ""
    ended: bool = False


@dataclass(frozen=True)
class View:
    """One phone's page: everything it is sent, for its own seat."""

    page: Page
    seat: int
    phase: Phase
    title: str
    label: str = ""
    typed: str = ""
    note: str = ""
    lines: tuple[str, ...] = ()
    secret: str = ""


def may_answer(moment: Moment, seat: int) -> bool:
    """Whether an answer typed on ``seat``'s phone counts now: the open prompt is its
    own (or the whole table's), and at night only inside a window it is awake in.

    Prompts typed in several entries, answered by calls, claims and blind prompts are
    answered at the laptop's keypad (it keeps working for every seat)."""
    prompt = moment.prompt
    if prompt is None or prompt.calls or prompt.blind or prompt.claim or prompt.entries > 1:
        return False
    if prompt.seats and seat not in prompt.seats:
        return False
    if moment.window is not None:
        return seat in moment.window
    return not moment.night


def typed_after(typed: str, key: str) -> str:
    """The phone's own entry after ``key`` (Enter hands it over and empties it)."""
    if key == ENTER:
        return ""
    if key == BACKSPACE:
        return typed[:-1]
    if key in KEYS and len(typed) < TYPED_CHARS:
        return typed + key
    return typed


def night_view(seat: int, moment: Moment, typed: str, word: Words) -> View:
    """A phone at night: the same page for every seat; a woken seat's carries its window."""
    title = word("screen.player", seat=seat)
    awake = moment.window is not None and seat in moment.window
    if not awake:
        return View("keypad", seat, "night", title, word("phones.night"), typed)
    # The laptop asks nothing aloud inside a window (its hint line says what to type).
    asked = moment.prompt is not None and may_answer(moment, seat)
    label = (moment.label or word("phones.your_turn")) if asked else word("phones.night")
    return View(
        "keypad", seat, "night", title, label, typed, moment.reason, moment.lines, moment.secret
    )


def view_for(seat: int, moment: Moment, typed: str, word: Words) -> View:
    """What ``seat``'s phone shows at ``moment``."""
    title = word("screen.player", seat=seat)
    if moment.ended:
        return View("wait", seat, "end", title, lines=moment.lines)
    if moment.dealing == seat:  # called aloud by seat: a public moment, even at night
        return View("card", seat, "day", title, word("phones.card_hold"), secret=moment.card)
    if moment.night:
        return night_view(seat, moment, typed, word)
    if may_answer(moment, seat):
        return View("keypad", seat, "day", title, moment.label, typed, moment.reason, moment.lines)
    return View("wait", seat, "day", title, word("phones.wait"), lines=moment.lines)
