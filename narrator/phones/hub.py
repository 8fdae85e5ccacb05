"""The phones' side of the table, shared by the table's thread and the server's.

The table tells it what happens through the ports it already has: the prompt now
open (``Keys.expect``), what the laptop's screen shows (``Screen``), and through the
``Private`` port whose private moment it is (a window's seats, a card being dealt,
night or day). The phones tell it their keys. A key from a phone reaches the table as
the laptop's keys do (``PhoneKeys.read``): Enter on a phone hands the typed text over
as an :class:`~narrator.ports.Attempt` for the open prompt, in the codec's forms, and
it counts only if the prompt is that phone's own seat's (``views.may_answer``),
checked again when the table reads it. Every phone's keypad reacts the same whether
its answer counts or not.

A gathered prompt (``views.gathered``: the shooters' entries, the candidates) is handed
over once every seat that gives a part has given it, as one attempt. By day an empty
Enter on the speaker's phone ends his speech, and ``*`` with one's own seat claims a
werewolf's explosion, confirmed by the claimant's empty Enter, as at the laptop.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import replace

from narrator.phones import views
from narrator.phones.seating import Joined
from narrator.phones.seating import Seating
from narrator.phones.seating import Waiting
from narrator.phones.views import Moment
from narrator.phones.views import View
from narrator.ports import ENTER
from narrator.ports import Attempt
from narrator.ports import Keys
from narrator.ports import Live
from narrator.ports import Screen
from narrator.rules import codec
from narrator.rules.codec import Words
from narrator.rules.core import PublicView
from narrator.rules.prompts import Prompt

LINES = 8  # the laptop's last lines a phone shows
POLL_S = 0.02  # how often the table's read looks at the phones' keys while it waits
SOURCE = "phone"


class Hub:
    """The moment of the table, the seats, and each phone's own entry; thread-safe."""

    def __init__(self, seats: int, word: Words) -> None:
        self.word = word
        self.seating = Seating(seats)
        self._lock = threading.RLock()
        self._moment = Moment()
        self._typed: dict[int, str] = {}
        self._notes: dict[int, str] = {}  # why a phone's own last Enter was refused there
        self._parts: dict[int, str] = {}  # each seat's part of the open gathered prompt
        self._claimant: int | None = None  # who claimed an explosion in this speech
        self._inbox: queue.SimpleQueue[tuple[int, str | Attempt]] = queue.SimpleQueue()
        self._granted: dict[str, Joined | None] = {}  # answered requests: ticket → seat or None
        self._listeners: list[Callable[[], None]] = []
        self._keep: Callable[[Mapping[str, str]], None] | None = None
        self._written: dict[int, str] | None = None
        self.port: int | None = None  # where the server listens (a resume asks for it again)

    def resize(self, seats: int) -> None:
        """The table has ``seats`` after all (the set-up screen chose another count)."""
        with self._lock:
            self.seating.seats = seats
        self._changed()

    # --- what the game's record keeps --------------------------------------------------

    def remember(self, kept: Mapping[int, str]) -> None:
        """A resumed game's seats, as its record kept them (``Seating.remember``)."""
        with self._lock:
            self.seating.remember(kept)
        self._kept_now()
        self._changed()

    def keep(self, write: Callable[[Mapping[str, str]], None]) -> None:
        """``write`` is told who holds which seat (salted digests, seat numbers as text)
        now and whenever it changes: the game's sealed record keeps it for a resume."""
        self._keep, self._written = write, None
        self._kept_now()

    def _kept_now(self) -> None:
        with self._lock:
            kept = self.seating.kept()
            if self._keep is None or kept == self._written:
                return
            self._written = kept
            write = self._keep
        write({str(seat): digest for seat, digest in sorted(kept.items())})

    # --- watching -------------------------------------------------------------------------

    def listen(self, listener: Callable[[], None]) -> None:
        """``listener`` is called (from any thread) whenever what phones show may change."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    def _set(self, **changes: object) -> None:
        with self._lock:
            self._moment = replace(self._moment, **changes)  # type: ignore[arg-type]
        self._changed()

    @property
    def moment(self) -> Moment:
        with self._lock:
            return self._moment

    @property
    def is_night(self) -> bool:
        return self.moment.night

    # --- the table's side: the Private port ---------------------------------------------

    def night(self, on: bool) -> None:
        self._set(night=on)

    def record(self, add: Callable[..., None]) -> None:
        """The game's record keeps the seats (``keep``) and the port, for a resume."""
        self.keep(lambda seats: add("phones", port=self.port, seats=dict(seats)))

    def window(self, seats: tuple[int, ...] | None) -> None:
        """A wake window opens for ``seats`` (None: it has closed): what the laptop shows
        from now until it closes is theirs alone."""
        self._set(window=seats, lines=(), secret="", label="", reason="")

    def deal(self, seat: int | None, card: str = "") -> bool:
        """``seat``'s card is dealt (None: the deal of a card is over). True when that
        seat's phone shows it, and the laptop must not."""
        with self._lock:
            if seat is not None and not self.seating.is_bound(seat):
                return False
            self._moment = replace(self._moment, dealing=seat, card=card if seat else "")
        self._changed()
        return True

    def speech(self, seat: int | None, interrupt: Prompt | None) -> None:
        """A speech (or a public countdown) runs: ``seat``'s (None: nobody's, or it is
        over), and ``interrupt`` may cut it short (a werewolf exploding)."""
        with self._lock:
            self._claimant = None
        self._set(speaker=seat, interrupt=interrupt)

    def expect(self, prompt: Prompt | None) -> None:
        with self._lock:
            self._parts.clear()
            label = self._moment.label if prompt is not None else ""
            self._moment = replace(self._moment, prompt=prompt, label=label, reason="")
        self._changed()

    # --- the table's side: what the laptop screen shows ---------------------------------

    def line(self, text: str) -> None:
        with self._lock:
            lines = (*self._moment.lines, text)[-LINES:]
        self._set(lines=lines)

    def secret(self, text: str) -> None:
        with self._lock:
            private = self._moment.window is not None
        if private:  # a secret outside a window (a card on the laptop) is for no phone
            self._set(secret=text)

    def clear(self) -> None:
        self._set(lines=(), secret="", reason="")

    def live(self, view: Live | None) -> None:
        label = view.label if view is not None else ""
        reason = view.reason if view is not None else ""
        with self._lock:
            if (label, reason) == (self._moment.label, self._moment.reason):
                return
        self._set(label=label or self.moment.label, reason=reason)

    def end(self, title: str, lines: list[str]) -> None:
        self._set(ended=True, night=False, lines=(title, *lines)[-LINES * 2 :])

    # --- the phones' side ---------------------------------------------------------------

    def hello(self, token: str | None) -> int | None:
        """The seat a phone coming back with ``token`` holds, if it still does."""
        with self._lock:
            seat = self.seating.seat_of(token)
        self._kept_now()
        return seat

    def join(self, seat: int, token: str | None) -> Joined | Waiting:
        with self._lock:
            joined = self.seating.join(seat, token)
        self._kept_now()
        self._changed()
        return joined

    def press(self, seat: int, key: str) -> None:
        """A key of ``seat``'s phone: its entry changes the same way whoever it is."""
        with self._lock:
            typed = self._typed.get(seat, "")
            self._typed[seat] = views.typed_after(typed, key)
            self._notes.pop(seat, None)
            if key != ENTER:
                return
            moment = self._moment
            if moment.dealing == seat:
                self._inbox.put((seat, ENTER))  # the card has been seen
            elif not moment.night:
                self._by_day(seat, typed.strip(), moment)
            elif typed.strip():
                self._answer(seat, typed, moment)

    def _answer(self, seat: int, typed: str, moment: Moment) -> None:
        """``typed`` handed over by ``seat``: an answer, or its part of a gathered one."""
        prompt = moment.prompt
        if prompt is None or not views.may_answer(moment, seat):
            return
        text = codec.from_keys(typed, prompt)
        if not views.gathered(prompt):
            self._inbox.put((seat, Attempt(prompt.id, text, SOURCE)))
            return
        if prompt.entries == 1 and text not in {str(seat), codec.from_keys("0", prompt)}:
            self._notes[seat] = self.word("phones.own_seat", seat=seat)
            return
        self._parts[seat] = text
        givers = views.givers(prompt)
        if all(s in self._parts for s in givers):
            parts = [self._parts[s] for s in givers]
            if prompt.entries == 1:  # a set of seats: those who said so, or nobody
                parts = [p for p in parts if p.isdigit()] or parts[:1]
            self._parts.clear()
            self._inbox.put((seat, Attempt(prompt.id, " ".join(parts), SOURCE)))

    def _by_day(self, seat: int, typed: str, moment: Moment) -> None:
        """An Enter by day: an answer, a claim (``*`` and one's own seat), its
        confirmation, or the end of one's own speech."""
        interrupt = moment.interrupt
        prompt_id = moment.prompt.id if moment.prompt is not None else None
        if typed and interrupt is not None:
            claim = codec.interrupt_from_keys(typed, interrupt)
            if claim is not None:
                if claim.split()[0] != str(seat):
                    self._notes[seat] = self.word("phones.own_seat", seat=seat)
                    return
                self._claimant = seat
                self._inbox.put((seat, Attempt(interrupt.id, claim, SOURCE)))
                return
        if typed:
            self._answer(seat, typed, moment)
        elif interrupt is not None and seat == self._claimant:  # he confirms his claim
            self._claimant = None
            self._inbox.put((seat, Attempt(interrupt.id, "", SOURCE)))
        elif seat == moment.speaker:
            self._inbox.put((seat, Attempt(prompt_id, "", SOURCE, ends=True)))

    def view(self, seat: int) -> View:
        with self._lock:
            typed, note = self._typed.get(seat, ""), self._notes.get(seat, "")
            return views.view_for(seat, self._moment, typed, self.word, note)

    def take(self) -> str | Attempt | None:
        """The next key from a phone that still counts now, else None (never waits)."""
        while True:
            try:
                seat, key = self._inbox.get_nowait()
            except queue.Empty:
                return None
            if self._counts(seat, key):
                return key

    def _counts(self, seat: int, key: str | Attempt) -> bool:
        """Whether ``seat``'s key, handed over a moment ago, still counts now."""
        with self._lock:
            moment = self._moment
        if key == ENTER:
            return moment.dealing == seat
        assert isinstance(key, Attempt)
        if moment.interrupt is not None and key.prompt == moment.interrupt.id:
            return not moment.night
        if key.ends and not key.text:
            return moment.speaker == seat and not moment.night
        prompt = moment.prompt
        return prompt is not None and key.prompt == prompt.id and views.may_answer(moment, seat)

    # --- the laptop confirms a phone taking a bound seat ----------------------------------

    def waiting(self) -> dict[str, int]:
        """Requests for a seat another phone holds: ticket → seat."""
        with self._lock:
            return self.seating.waiting()

    def confirm(self, ticket: str) -> Joined | None:
        with self._lock:
            joined = self.seating.confirm(ticket)
            self._granted[ticket] = joined
        self._kept_now()
        self._changed()
        return joined

    def refuse(self, ticket: str) -> None:
        with self._lock:
            self.seating.refuse(ticket)
            self._granted[ticket] = None
        self._changed()

    def granted(self, ticket: str) -> Joined | bool | None:
        """A request's answer: the seat (Joined), refused (None), or False: not yet."""
        with self._lock:
            if ticket in self._granted:
                return self._granted.pop(ticket)
            return False


class PhoneKeys:
    """The laptop's keys and the phones' in one ``Keys`` port."""

    def __init__(self, inner: Keys, hub: Hub) -> None:
        self.inner, self.hub = inner, hub

    def read(self, timeout: float) -> str | Attempt | None:
        left = timeout
        while True:
            key = self.hub.take()
            if key is not None:
                return key
            step = min(left, POLL_S)
            key = self.inner.read(step)
            if key is not None:
                return key
            left -= step
            if left <= 0:
                return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self.hub.expect(prompt)
        self.inner.expect(prompt, speech=speech)


class PhoneScreen:
    """The laptop's screen, also told to the phones (each gets only its own view)."""

    def __init__(self, inner: Screen, hub: Hub) -> None:
        self.inner, self.hub = inner, hub

    def said(self, text: str) -> None:
        self.inner.said(text)
        self.hub.line(text)

    def line(self, text: str) -> None:
        self.inner.line(text)
        self.hub.line(text)

    def live(self, view: Live | None) -> None:
        self.inner.live(view)
        self.hub.live(view)

    def secret(self, text: str) -> None:
        self.inner.secret(text)
        self.hub.secret(text)

    def clear(self) -> None:
        self.inner.clear()
        self.hub.clear()

    def table(self, view: PublicView, speaker: int | None) -> None:
        self.inner.table(view, speaker)

    def end(self, title: str, lines: list[str]) -> None:
        self.inner.end(title, lines)
        self.hub.end(title, lines)
