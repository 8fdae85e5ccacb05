"""What the table is asked in the middle of a game: stop it (Esc), take back the last
answer given by day (/ 3). Each question waits for one key: only an explicit yes acts,
any other key goes on, and an answer from another channel (a spoken one) is no key.
And the deal of a card: shown to its player after his Enter, gone on the next."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence

from narrator.ports import ENTER
from narrator.ports import INTERRUPT
from narrator.ports import Attempt
from narrator.ports import Clock
from narrator.ports import Keys
from narrator.ports import NoPhones
from narrator.ports import Private
from narrator.ports import Screen
from narrator.resume import Done
from narrator.rules import codec
from narrator.rules.prompts import Seat
from narrator.voice.catalog import Catalog

TICK = 0.1  # how often a waiting table reads its keys (and redraws a countdown), seconds
STOP_YES = frozenset({"y", "Y", "д", "Д", "1"})  # the stop question's yes; keypad: 1
DEAL_SHOW_S = 8.0  # a dealt card disappears by itself after this long


class GameStopped(Exception):
    """The table confirmed that it wants to stop the game."""


class Rewind(Exception):
    """The table took back an answer: play again with the first ``keep`` steps."""

    def __init__(self, keep: int, taken: Done, words: str) -> None:
        super().__init__(keep)
        self.keep = keep
        self.taken = taken
        self.words = words  # the answer taken back, as the screen showed it


def last_public_answer(done: Sequence[Done]) -> int | None:
    """Where the last answer given by day is among ``done`` (None: there is none)."""
    return next(
        (i for i in range(len(done) - 1, -1, -1) if done[i].public and done[i].answer is not None),
        None,
    )


class Dialogs:
    """Asks the table, on its screen, and waits for its key."""

    def __init__(self, catalog: Catalog, screen: Screen, keys: Keys, clock: Clock) -> None:
        self.catalog, self.screen, self.keys, self.clock = catalog, screen, keys, clock

    def stop(self, *, saved: bool) -> float:
        """Stop only on an explicit yes (GameStopped); else the seconds the question took.

        ``saved``: the disk took the record so far (the question does not promise it else).
        """
        key = "screen.confirm_quit" if saved else "screen.confirm_quit_unsaved"
        return self._ask(self.catalog.text(key), GameStopped())

    def undo(self, done: Sequence[Done], labels: Mapping[str, str]) -> float:
        """Take back the last day answer of ``done`` on a yes (Rewind); else the seconds
        the question took. ``labels``: the question each prompt was asked with."""
        keep = last_public_answer(done)
        if keep is None:
            self.screen.line(self.catalog.text("screen.nothing_to_undo"))
            return 0.0
        taken = done[keep]
        assert taken.answer is not None
        shown = codec.shown(taken.answer, self.catalog.word)
        words = f"{labels.get(taken.id, '')} {shown}".strip()
        question = self.catalog.text("screen.confirm_undo", {"answer": words})
        return self._ask(question, Rewind(keep, taken, words))

    def _ask(self, question: str, yes: Exception) -> float:
        self.screen.line("")
        self.screen.line(question)
        asked = self.clock.now()
        while True:
            key = self.keys.read(TICK)
            if isinstance(key, str) and key in STOP_YES:
                raise yes
            if key is not None and not isinstance(key, Attempt):
                break
        held = self.clock.now() - asked
        self.screen.line(self.catalog.text("screen.resumed"))
        return held

    def deal(
        self,
        seat: Seat,
        roles: Sequence[str],
        now: Callable[[], float],
        stop: Callable[[], None],
        phones: Private | None = None,
    ) -> None:
        """Seat ``seat``'s card: shown after his Enter, gone on the next key or by itself.
        ``now``: the game time; ``stop``: what Esc does (the stop question). A seat whose
        phone has joined sees it there, and the laptop shows only whose turn it is."""
        self.keys.expect(None)
        self.screen.clear()
        names = ", ".join(self.catalog.text(f"role.{r}") for r in roles)
        card = self.catalog.text("screen.deal_card", {"roles": names})
        phones = phones or NoPhones()
        if phones.deal(seat, card):
            self.screen.line(self.catalog.text("phones.deal_wait", {"seat": seat}))
            try:
                _wait_enter(self.keys, now, stop)
            finally:
                phones.deal(None)
            self.screen.clear()
            return
        self.screen.line(self.catalog.text("screen.deal_wait", {"seat": seat}))
        _wait_enter(self.keys, now, stop)
        self.screen.secret(card)
        self.screen.line(self.catalog.text("screen.deal_hide"))
        self.keys.expect(None)
        _wait_enter(self.keys, now, stop, DEAL_SHOW_S)
        self.screen.clear()


def _wait_enter(
    keys: Keys, now: Callable[[], float], stop: Callable[[], None], seconds: float | None = None
) -> None:
    """Until Enter (or, with ``seconds``, until that much time has passed)."""
    end = None if seconds is None else now() + seconds
    while end is None or now() < end:
        key = keys.read(TICK)
        if key == INTERRUPT:
            stop()
        elif key == ENTER:
            return
