"""The keypad entry of one open prompt, as a pure reducer: a state and a key give the
next state and at most one effect for the table to carry out.

Typing edits the entry (digits and the keypad's + - * / ., Backspace); Enter hands the
typed text over (:class:`Submit`), or ends a speech when nothing is typed (:class:`End`);
``*`` and a seat during a speech is an interrupt (a werewolf exploding), said aloud as a
claim first when its prompt has a claim line (:class:`Claim`) and judged once the
claimant confirms it with Enter (:class:`Interrupt`); Esc and / 3 ask the table
(:class:`AskStop`, :class:`AskUndo`); a whole answer from another channel is
:class:`Heard`. Judging is not done here: the table judges an effect through the
rules and folds the verdict back with :func:`taken` or :func:`refused`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace

from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.ports import INTERRUPT
from narrator.ports import UNDO
from narrator.ports import Attempt
from narrator.rules import codec
from narrator.rules.answers import Answer
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat


@dataclass(frozen=True)
class Entry:
    """The keypad state of one open prompt."""

    prompt: Prompt | None
    answered: bool = False
    typed: str = ""
    parts: tuple[str, ...] = ()  # the shooters' entries so far, when the answer needs them all
    reason: str = ""  # why the last attempt was refused, on screen until the next key
    answer: Answer | None = None
    presses: tuple[Seat | None, ...] = ()  # the seat called at each Space
    interrupt: Prompt | None = None  # typed as "*" + seat, e.g. a werewolf exploding
    interrupted: Answer | None = None
    claim: str | None = None  # an interrupt waiting for its claimant's Enter
    claim_until: float = 0.0
    decoy: bool = False  # a decoy's question (nobody in the window): judged, then dropped

    @property
    def shown(self) -> str:
        """What the live line shows as typed: the entries so far and the one being typed."""
        return " ".join([*self.parts, self.typed]).strip()


@dataclass(frozen=True)
class Reading:
    """One stretch of reading keys: until ``end`` (game time), shown as ``total``
    seconds with ``label``; how it may end early and what an accepted answer does."""

    end: float
    total: float
    label: str
    stop_on_answer: bool = False
    enter_ends: bool = False
    warnings: tuple[tuple[float, str], ...] = ()  # (seconds left, key), in order
    on_answer: Callable[[Answer], None] | None = None


@dataclass(frozen=True)
class AskStop:
    """Esc (Ctrl-C): ask the table whether it wants to stop the game."""


@dataclass(frozen=True)
class AskUndo:
    """/ 3: ask the table whether it takes back the last answer given by day."""


@dataclass(frozen=True)
class End:
    """The table ended what is open early (an empty Enter, a spoken «спасибо»)."""


@dataclass(frozen=True)
class Heard:
    """A whole answer from another channel, for the open prompt: judge it; ``ends``: one
    not accepted ends what is open (it came with «спасибо»)."""

    text: str
    ends: bool = False


@dataclass(frozen=True)
class Submit:
    """Enter on typed keys: ``text`` to judge, as the prompt reads it (None: one
    shooter's entry, the answer needs the others); ``typed`` as it was typed."""

    text: str | None
    typed: str


@dataclass(frozen=True)
class Claim:
    """An interrupt typed (``*8``) whose prompt has a claim line: say it, wait for Enter."""

    text: str


@dataclass(frozen=True)
class Interrupt:
    """An interrupt to judge now: confirmed by its claimant, or one without a claim line."""

    text: str


Effect = AskStop | AskUndo | End | Heard | Submit | Claim | Interrupt


def press(
    entry: Entry | None,
    key: str | Attempt,
    *,
    enter_ends: bool = False,
    calling: bool = False,
    called: Seat | None = None,
) -> tuple[Entry | None, Effect | None]:
    """The entry after ``key``, and what the table must do about it.

    ``entry`` None: nothing is asked (a speech without a prompt, or a window nobody
    answers); ``enter_ends``: an empty Enter ends what is open; ``calling``: numbers are
    being called, ``called`` the one called now (a Space presses it).
    """
    if isinstance(key, Attempt):
        interrupt = entry.interrupt if entry is not None else None
        if entry is not None and interrupt is not None and key.prompt == interrupt.id:
            return _claimed(entry, key.text)  # a claim from a phone, or its confirmation
        return entry, _heard(entry, key, enter_ends)
    if key == INTERRUPT:
        return entry, AskStop()
    if key == UNDO:
        return entry, AskUndo()
    if entry is None:
        return None, End() if enter_ends and key == ENTER else None
    if entry.prompt is not None and entry.prompt.calls:  # only Space, on a called number
        if key == " " and not entry.answered and calling:
            return replace(entry, presses=(*entry.presses, called)), None
        return entry, None
    if key == ENTER:
        return _enter(entry, enter_ends)
    if key == BACKSPACE:
        return replace(entry, typed=entry.typed[:-1]), None
    if key.isprintable():
        return replace(entry, typed=entry.typed + key, reason=""), None
    return entry, None


def _heard(entry: Entry | None, given: Attempt, enter_ends: bool) -> Effect | None:
    """A spoken answer is judged only for the prompt it was given for, if its rules
    take it by voice (never at night, never a call)."""
    ends = given.ends and enter_ends
    prompt = entry.prompt if entry is not None else None
    if prompt is None or not given.text or given.prompt != prompt.id:
        return End() if ends else None  # said for a prompt that is closed now, or «спасибо»
    if prompt.calls or (given.source == "voice" and not prompt.spoken):
        return End() if ends else None
    return Heard(given.text, ends)


def _claimed(entry: Entry, text: str) -> tuple[Entry, Effect | None]:
    """An interrupt's whole text given at once (``8 2``), as ``*8`` Enter would be; or
    with no text, the claimant's Enter confirming his claim."""
    assert entry.interrupt is not None
    if not text:
        if entry.claim is None:
            return entry, None
        return replace(entry, claim=None), Interrupt(entry.claim)
    return entry, Claim(text) if entry.interrupt.claim is not None else Interrupt(text)


def _enter(entry: Entry, enter_ends: bool) -> tuple[Entry, Effect | None]:
    typed = entry.typed.strip()
    if entry.claim is not None and not typed:  # the claimant confirms his claim
        return replace(entry, claim=None, typed=""), Interrupt(entry.claim)
    if not typed:
        return entry, End() if enter_ends else None
    interrupt = codec.interrupt_from_keys(entry.typed, entry.interrupt)
    if interrupt is not None:
        assert entry.interrupt is not None
        claimed = entry.interrupt.claim is not None
        return replace(entry, typed=""), Claim(interrupt) if claimed else Interrupt(interrupt)
    prompt = entry.prompt
    if prompt is None:
        return replace(entry, typed=""), None
    part = codec.from_keys(entry.typed, prompt)
    if prompt.entries > 1 and not entry.answered:  # one shooter's entry
        parts = (*entry.parts, part)
        if len(parts) < prompt.entries:
            return replace(entry, typed="", parts=parts), Submit(None, typed)
        return replace(entry, typed="", parts=()), Submit(" ".join(parts), typed)
    return replace(entry, typed=""), Submit(part, typed)


def taken(entry: Entry, answer: Answer) -> Entry:
    """The entry once ``answer`` was accepted: what was typed goes, more is refused."""
    return replace(entry, answered=True, answer=answer, typed="", parts=())


def refused(entry: Entry, reason: str) -> Entry:
    """The entry once an attempt was refused for ``reason`` (shown until the next key)."""
    return replace(entry, reason=reason)


def judged(entry: Entry, answer: Answer | None, reason: str) -> Entry:
    """The entry once an attempt was judged: :func:`taken`, or :func:`refused` (None)."""
    return refused(entry, reason) if answer is None else taken(entry, answer)
