"""What each phone shows: a pure function of the table's moment and one seat.

A phone is sent only the view of its own seat, built here, so no other seat's
secret is ever in what it receives. At night every joined phone shows the same
page, a keypad, whoever is awake (``night_view``): a lit screen or a tap tells
nothing; the woken seats' keypad carries their window's question, lines and
result, the others' only what they typed themselves. By day a phone is a keypad
while its own seat is asked (a vote, a nomination), while it speaks (an empty Enter
ends its speech) and for every seat while a speech may be interrupted (a werewolf's
``*8``: every phone alike), else it shows the table's public lines.

Some answers are gathered from several phones, each giving its own part
(:func:`gathered`): the black players' shots, one entry each, and a set of seats each
player gives for himself (the sheriff's candidates, the withdrawals). What stays on
the laptop's keypad: a whole-table answer (a hand count), a blind pause (the dead
hunter's shot), a call-mode shot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.rules.answers import AnswerKind
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
    speaker: int | None = None  # whose speech runs (an empty Enter on his phone ends it)
    interrupt: Prompt | None = None  # what may interrupt it (a werewolf's ``*8``)


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


def gathered(prompt: Prompt) -> bool:
    """Whether ``prompt`` is answered in parts, one per seat, on the phones: the shooters'
    entries (``7`` Enter each), or a set of seats each gives for himself (``4``: I run,
    ``0``: I do not)."""
    return prompt.entries > 1 or (AnswerKind.SEATS in prompt.accepts and len(prompt.seats) != 1)


def givers(prompt: Prompt) -> tuple[int, ...]:
    """The seats whose parts make a gathered prompt's answer: its seats, or for the whole
    table every seat its answers may name (the living)."""
    if prompt.seats:
        return prompt.seats
    named = {int(t) for option in prompt.options for t in option.split() if t.isdigit()}
    return tuple(sorted(named))


def may_answer(moment: Moment, seat: int) -> bool:
    """Whether an answer typed on ``seat``'s phone counts now: the open prompt is its
    own (or it gives its part of a gathered one), and at night only inside a window it
    is awake in.

    A whole-table answer (a hand count), a blind pause, a claim and a prompt answered by
    calls are the laptop's keypad's (it keeps working for every seat)."""
    prompt = moment.prompt
    if prompt is None or prompt.calls or prompt.blind or prompt.claim:
        return False
    if gathered(prompt):
        if seat not in givers(prompt):
            return False
    elif seat not in prompt.seats:
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


def may_speak(moment: Moment, seat: int) -> bool:
    """Whether ``seat``'s phone has a keypad by day for a speech: its own (an empty Enter
    ends it), or any while a werewolf may explode (every phone alike)."""
    return not moment.night and (moment.speaker == seat or moment.interrupt is not None)


def view_for(seat: int, moment: Moment, typed: str, word: Words, note: str = "") -> View:
    """What ``seat``'s phone shows at ``moment``; ``note``: why its own last Enter was
    refused on the phone itself (an answer for another seat)."""
    title = word("screen.player", seat=seat)
    if moment.ended:
        return View("wait", seat, "end", title, lines=moment.lines)
    if moment.dealing == seat:  # called aloud by seat: a public moment, even at night
        return View("card", seat, "day", title, word("phones.card_hold"), secret=moment.card)
    if moment.night:
        return night_view(seat, moment, typed, word)
    if may_answer(moment, seat) or may_speak(moment, seat):
        reason = note or moment.reason
        return View("keypad", seat, "day", title, moment.label, typed, reason, moment.lines)
    return View("wait", seat, "day", title, word("phones.wait"), lines=moment.lines)
