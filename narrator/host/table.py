"""The table loop: drives a variant script in real time for people at a table.

Windows last their full length whatever happens; secrets appear only inside the
owner's window and the screen (with its scroll-back) is wiped before the sleep
line; keys pressed when nothing is asked are discarded without a trace.
"""

from __future__ import annotations

import logging
import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from narrator.drive import ALREADY_ANSWERED, Driver
from narrator.host.audio import Silence
from narrator.ports import (
    BACKSPACE,
    ENTER,
    INTERRUPT,
    UNDO,
    Attempt,
    Clock,
    Keys,
    Live,
    Screen,
    Sound,
    Voice,
)
from narrator.record import GameRecord
from narrator.resume import Done, Mismatch
from narrator.rules import codec
from narrator.rules.answers import Answer, CenterAnswer, SeatAnswer
from narrator.rules.core import (
    Ask,
    DealCard,
    Decoy,
    Eliminate,
    Game,
    Outcome,
    Prompt,
    Say,
    Seat,
    Secret,
    Show,
    Sleep,
    Step,
    Tag,
    Timer,
    Wake,
    phase_kind,
)
from narrator.rules.errors import NarratorError
from narrator.voice.catalog import DAWN, Catalog, phase_in_words

_LOGGER = logging.getLogger(__name__)

TICK = 0.1  # how often countdowns are redrawn, seconds
TICKS_FROM = 3.0  # a wake window ticks in its last seconds (when ticks are on)
DEAL_SHOW_S = 8.0  # a dealt card disappears by itself after this long
STOP_YES = frozenset({"y", "Y", "д", "Д", "1"})  # the stop question's yes; keypad: 1
CLAIM_S = 8.0  # a claim (a werewolf exploding) waits this long for its claimant's Enter


class GameStopped(Exception):
    """The table confirmed that it wants to stop the game."""


class Rewind(Exception):
    """The table took back an answer: play again with the first ``keep`` steps."""

    def __init__(self, keep: int, taken: Done, words: str) -> None:
        super().__init__(keep)
        self.keep = keep
        self.taken = taken
        self.words = words  # the answer taken back, as the screen showed it


def window_hint(catalog: Catalog, game: str, tag: Tag) -> str:
    """The key of a night window's keys hint: the window's own (which role wakes is
    public), true for every answer it takes and the same whether its role is held, in the
    centre, dead or absent; one with nothing to type says so (sport mafia's meeting)."""
    hints = (f"keys.{game}_{tag.phase}_{tag.action}", f"keys.{game}_{tag.action}", f"keys.{game}")
    return next((key for key in hints if key in catalog.lines), "screen.keys")


@dataclass
class Entry:
    """The keypad state of one open prompt."""

    prompt: Prompt | None
    answered: bool = False
    typed: str = ""
    parts: list[str] = field(default_factory=list)
    reason: str = ""
    answer: Answer | None = None
    presses: list[Seat | None] = field(default_factory=list)  # the seat called at each Space
    interrupt: Prompt | None = None  # typed as "*" + seat, e.g. a werewolf exploding
    speaker: Seat | None = None
    interrupted: Answer | None = None
    claim: str | None = None  # an interrupt waiting for its claimant's Enter
    claim_until: float = 0.0
    decoy: bool = False  # a decoy's question (nobody in the window): judged, then dropped


class TableDriver(Driver):
    """Meets every step of the script at a real table with a clock."""

    def __init__(
        self,
        catalog: Catalog,
        record: GameRecord,
        *,
        voice: Voice,
        screen: Screen,
        keys: Keys,
        clock: Clock,
        answer_s: float,
        sound: Sound | None = None,
        replay: Sequence[Done] = (),
        record_replay: bool = True,
        kept: Sequence[Done] = (),
        drawn: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(catalog, record, drawn=drawn)
        self.sound: Sound = sound or Silence()
        self.voice = voice
        self.screen = screen
        self.keys = keys
        self.clock = clock
        self.answer_s = answer_s
        self._window: Wake | None = None
        self._window_start = 0.0
        self._window_entry: Entry | None = None
        self._cues: list[tuple[float, Say]] = []
        self._cue_seats: list[Seat | None] = []
        self._ticks: list[float] = []  # when the open window ticks: from its start and length
        self._history: list[tuple[str, Show | Eliminate | Taken]] = []
        self._held = 0.0  # seconds the game time stood still (the stop question by day)
        self._last_line = ""
        self._reason = ""
        self._collecting = False
        self.game = ""
        self._game: Game | None = None
        # Replaying (resume, undo): the steps already played, met silently in order.
        self.done: list[Done] = []  # every finished step of this game, replayed or live
        self._replay = deque(replay)
        self.replaying = bool(replay)
        self._record = record
        self._undoing = self.replaying and not record_replay
        if self._undoing:
            self.record = GameRecord()  # undo: the record already holds these events
        self.undone = ""  # an undo: the line that says what it took back, shown once live
        self._page: list[str] = []  # replayed answers by day whose «… — Принято.» is on the page
        self._labels: dict[str, str] = {}  # prompt id → the label it was asked with
        self._window_done: str | None = None  # the window the last Sleep closed
        # Answers given in the window a resumed game stopped in: the window runs again and
        # they are its answers again (the result shown anew); no new answer is taken.
        self._kept = {step.id: step.answer for step in kept}
        # What a decoy's answer shows: a stream of its own, apart from the deal's, the
        # sound's and the demo players' (a fresh seed from the system each game).
        self._decoy_rng = random.Random()

    def _now(self) -> float:
        """Game time: the clock, less the time the table spent on the stop question by day."""
        return self.clock.now() - self._held

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    # --- spoken lines ------------------------------------------------------------------

    def say(self, key: str, text: str) -> None:
        self._last_line = text
        if self.replaying:
            return  # said before the stop: silent now
        if not self._collecting:  # a cue or a warning said while keys are being read
            self._discard_keys()  # typed before this line, for what is over: nothing
        self.voice.say(key, text)  # typed while it is said: for what it opens (issue 28 #8)

    def _discard_keys(self) -> None:
        """Wrong-time input is inert: read and drop whatever was typed."""
        while (key := self.keys.read(0)) is not None:
            if key == INTERRUPT:
                self._confirm_stop()
            elif key == UNDO:
                self._confirm_undo()

    # --- the one input loop ------------------------------------------------------------

    def _run(
        self,
        end: float,
        total: float,
        label: str,
        entry: Entry | None,
        *,
        stop_on_answer: bool = False,
        enter_ends: bool = False,
        warnings: list[tuple[float, str]] | None = None,
        on_answer: Callable[[Answer], None] | None = None,
    ) -> bool:
        """Read keys until ``end`` (or an early end); cues and warnings are said on time.

        True when the time ran out, False when the table ended it early.
        """
        pending = list(warnings or [])
        self._collecting = True
        try:
            ran_out = self._read_until(
                end, total, label, entry, pending, stop_on_answer, enter_ends, on_answer
            )
        finally:
            self._collecting = False
        self._say_due_cues()
        self.screen.live(None)
        return ran_out

    def _read_until(
        self,
        end: float,
        total: float,
        label: str,
        entry: Entry | None,
        pending: list[tuple[float, str]],
        stop_on_answer: bool,
        enter_ends: bool,
        on_answer: Callable[[Answer], None] | None,
    ) -> bool:
        while (left := end - self._now()) > 0:
            self._say_due_cues()
            self._tick_due()
            if entry is not None and entry.claim and self._now() >= entry.claim_until:
                self._unconfirmed(entry)
            while pending and left <= pending[0][0]:
                self.carry_out(Say(pending.pop(0)[1]))
            self.screen.live(self._live(left, total, label, entry))
            key = self.keys.read(min(TICK, left))
            if key is None:
                continue
            if isinstance(key, Attempt):
                accepted = self._given(entry, key)
                if key.ends and enter_ends and accepted is None:
                    return False
            elif key == INTERRUPT:
                self._confirm_stop()
                continue
            elif key == UNDO:
                self._confirm_undo()
                continue
            elif entry is None:
                if enter_ends and key == ENTER:
                    return False
                continue
            elif entry.prompt is not None and entry.prompt.calls:
                if key == " " and not entry.answered and self._cue_seats:
                    slot = len(self._cue_seats) - len(self._cues) - 1
                    entry.presses.append(self._cue_seats[slot] if slot >= 0 else None)
                continue
            elif key == ENTER:
                if entry.claim is not None and not entry.typed.strip():
                    claim, entry.claim = entry.claim, None
                    if self._interrupt(entry, claim):
                        return False
                    continue
                if not entry.typed.strip():
                    if enter_ends:
                        return False
                    continue
                interrupt = codec.interrupt_from_keys(entry.typed, entry.interrupt)
                if interrupt is not None:
                    if self._claim(entry, interrupt):
                        return False
                    continue
                typed = entry.typed.strip()
                accepted = self._enter(entry)
                if entry.prompt is not None and entry.prompt.blind:
                    self._noted(entry, typed, accepted, on_answer)
                    continue
            elif key == BACKSPACE:
                entry.typed = entry.typed[:-1]
                continue
            else:
                if key.isprintable():
                    entry.typed += key
                    entry.reason = ""
                continue
            if accepted is not None:
                self.screen.line(self._accepted_line(label, accepted))
                if on_answer is not None:
                    on_answer(accepted)
                if stop_on_answer:
                    return False
        return True

    def _accepted_line(self, label: str, answer: Answer) -> str:
        """«4 — Принято.», after the question by day."""
        shown = codec.shown(answer, self.t)
        return f"{question_of(label)} {shown} — {self.t('screen.accepted')}".strip()

    def _noted(
        self,
        entry: Entry,
        typed: str,
        accepted: Answer | None,
        on_answer: Callable[[Answer], None] | None,
    ) -> None:
        """A blind prompt: the same neutral line for every attempt, taken or not."""
        entry.reason = ""
        self.screen.line(self.t("screen.noted", typed=typed))
        if accepted is not None and on_answer is not None:
            on_answer(accepted)

    def _tick_due(self) -> None:
        """A soft tick in each of a wake window's last seconds: a function of its start
        and length only, never of what was typed in it (issue 17 #3)."""
        while self._ticks and self._now() >= self._ticks[0]:
            self._ticks.pop(0)
            self.sound.tick()

    def _given(self, entry: Entry | None, given: Attempt) -> Answer | None:
        """A whole answer from another channel (a spoken one) for the open prompt."""
        prompt = entry.prompt if entry is not None else None
        if entry is None or prompt is None or not given.text or given.prompt != prompt.id:
            return None  # said for a prompt that is closed now, or only «спасибо»
        if prompt.calls or (given.source == "voice" and not prompt.spoken):
            return None  # the rules do not take this prompt by voice (night, calls)
        answer = self.attempt(prompt, given.text, answered=entry.answered)
        if answer is None:
            entry.reason = self._reason
            return None
        entry.answered, entry.answer, entry.typed, entry.parts = True, answer, "", []
        return answer

    def _claim(self, entry: Entry, text: str) -> bool:
        """An interrupt typed (``*8``): a claim said aloud, judged once confirmed.

        Without a claim line the attempt is judged at once; True if accepted.
        """
        interrupt = entry.interrupt
        assert interrupt is not None
        if interrupt.claim is None:
            return self._interrupt(entry, text)
        entry.typed = ""
        try:
            claimant = codec.claimant(text, interrupt)
        except NarratorError as error:  # not a seat number: the same for every role
            self.rejected(interrupt, text, error)
            entry.reason = self._reason
            return False
        entry.claim = text
        self.carry_out(Say(interrupt.claim, {"seat": claimant}))
        entry.claim_until = self._now() + CLAIM_S  # from the end of the line, at any rate
        return False

    def _unconfirmed(self, entry: Entry) -> None:
        assert entry.interrupt is not None and entry.interrupt.claim is not None
        entry.claim = None
        self.carry_out(Say(f"{entry.interrupt.claim}_unconfirmed"))

    def _interrupt(self, entry: Entry, text: str) -> bool:
        """``*8`` during the speech of 2 is the interrupt answer ``8 2``; True if accepted."""
        assert entry.interrupt is not None
        entry.typed = ""
        answer = self.attempt(entry.interrupt, text, answered=False)
        if answer is None:
            entry.reason = self._reason
            return False
        entry.interrupted = answer  # in words («игрок 8 взрывается»), not the answer text «8 2»
        self.screen.line(f"{codec.shown(answer, self.t)} — {self.t('screen.accepted')}")
        return True

    def _enter(self, entry: Entry) -> Answer | None:
        """Take the typed text; the answer if it is newly accepted."""
        prompt = entry.prompt
        if prompt is None:
            entry.typed = ""
            return None
        part = codec.from_keys(entry.typed, prompt)
        entry.typed = ""
        if prompt.entries > 1 and not entry.answered:
            entry.parts.append(part)  # one shooter's entry; the answer needs them all
            if len(entry.parts) < prompt.entries:
                return None
            part, entry.parts = " ".join(entry.parts), []
        answer = self._judge(entry, prompt, part)
        if answer is None:
            entry.reason = self._reason
            return None
        entry.answered, entry.answer = True, answer
        return answer

    def _judge(self, entry: Entry, prompt: Prompt, text: str) -> Answer | None:
        """:meth:`attempt`, or for a decoy the same judgement with nothing recorded."""
        if not entry.decoy:
            return self.attempt(prompt, text, answered=entry.answered)
        try:
            if entry.answered:
                raise NarratorError(ALREADY_ANSWERED, "reason.already_answered")
            return prompt.accept(text)
        except NarratorError as error:
            self.rejected(prompt, text, error)
            return None

    def _live(self, left: float, total: float, label: str, entry: Entry | None) -> Live:
        if self._window is not None:
            kind: Literal["window", "answer", "timer"] = "window"
        elif entry is not None and entry.prompt is not None and not entry.interrupt:
            kind = "answer"
        else:
            kind = "timer"
        typed = " ".join([*entry.parts, entry.typed]).strip() if entry is not None else ""
        reason = entry.reason if entry is not None else ""
        return Live(kind, label, max(left, 0.0), total, typed, reason)

    def _window_label(self, prompt: Prompt) -> str:
        """A night question's own words, for a window that asks more than one (the
        witch's potion, then her poison); none for the others."""
        key = f"prompt.{self.game}.{prompt.action}"
        return self.t(key) if key in self.catalog.lines else ""

    def _label(self, prompt: Prompt, game: str) -> str:
        """The on-screen question: ``prompt.<game>.<action>`` or ``prompt.<action>``."""
        action, about = prompt.tag.action, prompt.tag.about
        seat = "" if about is None else about
        for key in (f"prompt.{game}.{action}", f"prompt.{action}"):
            if key in self.catalog.lines:
                return self.t(key, seat=seat)
        return self.t("screen.answer_for", prompt=prompt.id)

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        """Silent rejection: a reason on screen only, the window keeps running."""
        self._reason = self.t(error.key, **error.params) if error.key else str(error)

    # --- wake windows --------------------------------------------------------------------

    def wake(self, step: Wake) -> None:
        self._window = step
        self._window_start = self._now()
        self._window_entry = None
        self._cues = [(i * step.cue_every, cue) for i, cue in enumerate(step.cues)]
        self._cue_seats = [_seat_param(cue) for cue in step.cues]
        if self.replaying:
            self._page.clear()
            return
        end = self._window_start + step.seconds
        self._ticks = [end - k for k in range(int(TICKS_FROM), 0, -1) if step.seconds > k]
        self.keys.expect(None)
        self.screen.clear()
        self.screen.line(self._last_line)
        self.screen.line(self.t(window_hint(self.catalog, self.game, step.tag)))
        if step.meet and step.seats:  # they meet: each sees the others (issue 28 #5)
            met = Secret.seats(step.seats if len(step.seats) > 1 else ())
            self.screen.secret(self._secret_text(step.tag, met))

    def enter_phase(self, phase: str) -> None:
        """The knock bed starts with the night, before its first wake line."""
        if self.replaying:
            if phase_kind(phase) in ("night", "day"):
                self._page.clear()  # the page a night or a day starts on is clean
            return
        if self._game is not None:
            self.screen.table(self._game.public_view(), None)
        kind = phase_kind(phase)
        if kind == "night":
            self.sound.night(True)
        if kind in ("night", "day"):
            self.screen.clear()  # a night or a day starts on a clean page

    def _morning(self) -> None:
        """The line that ends a night is said under «Утро», not «Ночь 1» (issue 28 #13)."""
        if self._game is not None and phase_kind(self.phase) == "night":
            self.screen.table(replace(self._game.public_view(), phase=DAWN), None)

    def dawn(self) -> None:
        """The knocking bed stops after the line that ends the night."""
        if not self.replaying:
            self.sound.night(False)

    def _say_due_cues(self) -> None:
        while self._cues and self._now() - self._window_start >= self._cues[0][0]:
            self.carry_out(self._cues.pop(0)[1])

    def _window_end(self) -> float:
        assert self._window is not None
        return self._window_start + self._window.seconds

    def ask(self, prompt: Prompt) -> Answer:
        if self.replaying:
            answer = self._replayed("reply", prompt.id)
            if answer is not None:
                answer = self._legal(prompt, answer)
            if self._window is None and not prompt.tag.by_night:
                self._replayed_answer(prompt, self._label(prompt, self.game), answer)
            return answer or prompt.default
        entry = Entry(prompt)
        self.keys.expect(prompt)
        if self._window is not None:
            self._window_entry = entry
            end, total = self._window_end(), self._window.seconds
            label = self._window_label(prompt)
        else:
            end, total = self._now() + self.answer_s, self.answer_s
            label = self._label(prompt, self.game)
            self._labels[prompt.id] = label
        kept = self._kept.pop(prompt.id, None) if self._window is not None else None
        if kept is not None:
            kept = self._legal(prompt, kept)
        if kept is not None:  # answered before the stop: the same answer, no other
            entry.answered, entry.answer = True, kept
            self.screen.live(self._live(end - self._now(), total, label, entry))
            self.screen.line(self._accepted_line(label, kept))
        else:
            self._run(end, total, label, entry, stop_on_answer=True)
        self.keys.expect(None)
        if prompt.calls:
            self._take_calls(prompt, entry)
        return entry.answer if entry.answer is not None else self.expire(prompt)

    def _take_calls(self, prompt: Prompt, entry: Entry) -> None:
        """Space presses on called numbers go to the rules, which judge the shot (0.5)."""
        if entry.presses:
            entry.answer = self.attempt(prompt, codec.presses(entry.presses), answered=False)

    def show(self, step: Show) -> None:
        if self.replaying:
            return  # it was shown in its window before the stop
        entry = self._window_entry
        answer = entry.answer if entry is not None else None
        self.screen.secret(self._secret_text(step.tag, step.secret, answer))

    def _secret_text(self, tag: Tag, secret: Secret, answer: Answer | None = None) -> str:
        """The secret in words; cards seen are named by what ``answer`` looked at."""
        if secret.kind == "roles":
            roles = ", ".join(self.t(f"role.{r}") for r in secret.values)
            if isinstance(answer, SeatAnswer):
                own = f"shown.{tag.action}_seat"  # the spirit's: the card he took from there
                key = own if own in self.catalog.lines else "screen.secret_seat_roles"
                return self.t(key, seat=answer.seat, roles=roles)
            if isinstance(answer, CenterAnswer):
                cards = ", ".join(str(card) for card in answer.cards)
                return self.t("screen.secret_center_roles", cards=cards, roles=roles)
            return self.t("screen.secret_roles", roles=roles)
        if secret.kind == "seats":
            action = tag.action
            if not secret.values:
                alone = f"shown.{action}_alone"
                return self.t(alone if alone in self.catalog.lines else "screen.secret_lone")
            key = f"shown.{action}" if f"shown.{action}" in self.catalog.lines else "shown.seats"
            return self.t(key, seats=", ".join(secret.values))
        verdict = self.t(f"secret.{secret.values[0]}")
        if isinstance(answer, SeatAnswer):  # a check: whom it is about (issue 28 #13)
            return self.t("screen.secret_seat_token", seat=answer.seat, verdict=verdict)
        return verdict

    def sleep(self) -> None:
        """Run the window to its full length, refusing late answers, then wipe the screen."""
        assert self._window is not None
        if self.replaying:
            while self._cues:  # the numbers called in it: in the record again, unheard
                self.carry_out(self._cues.pop(0)[1])
            self._replayed("window", self._window.window)
            self._window_done = self._window.window
            self._window = None
            return
        # After an accepted answer the prompt stays "open" only to refuse more input;
        # with nobody awake the decoy's questions are open instead, and with no decoy
        # (awake players with nothing to ask) every key is inert.
        if self._window_entry is None and not self._window.seats and self._window.decoy:
            self._ask_decoy(self._window, self._window.decoy)
        self._run(self._window_end(), self._window.seconds, "", self._window_entry)
        self.record.add("window_end", prompt=self._window.window)
        self._window_done = self._window.window
        self._window = None
        self._ticks = []
        self._window_entry = None
        self._kept.clear()  # only the window run again has them
        self.screen.clear()
        self.screen.line(self.t("screen.asleep"))

    def _ask_decoy(self, window: Wake, decoy: Decoy) -> None:
        """A window nobody is in asks its questions all the same, as :meth:`ask` and
        :meth:`show` would: typed keys, refusals, «Принято» and a card or a verdict drawn
        at random look as they would for a holder (issue 28 #4). Nothing is recorded."""
        answers: tuple[Answer, ...] = ()
        while (prompt := decoy.questions(answers)) is not None:
            entry = Entry(prompt, decoy=True)
            self._window_entry = entry
            label = self._window_label(prompt)
            self._run(self._window_end(), window.seconds, label, entry, stop_on_answer=True)
            if entry.answer is None:
                return  # the window ran out
            shown = self._decoy_secret(decoy, entry.answer)
            if shown is not None:
                self.screen.secret(self._secret_text(window.tag, shown, entry.answer))
            answers += (entry.answer,)

    def _decoy_secret(self, decoy: Decoy, answer: Answer) -> Secret | None:
        """What a holder's answer would show, drawn from the decoy's possible secrets."""
        if not decoy.shows or not isinstance(answer, SeatAnswer | CenterAnswer):
            return None
        count = len(answer.cards) if isinstance(answer, CenterAnswer) else 1
        drawn = self._decoy_rng.sample(decoy.shows, min(count, len(decoy.shows)))
        values = tuple(value for secret in drawn for value in secret.values)
        return Secret(drawn[0].kind, values)

    # --- dealing, timers ---------------------------------------------------------------------

    def _wait_enter(self, seconds: float | None = None) -> None:
        """Until Enter (or, with ``seconds``, until that much time has passed)."""
        end = None if seconds is None else self._now() + seconds
        while end is None or self._now() < end:
            key = self.keys.read(TICK)
            if key == INTERRUPT:
                self._confirm_stop()
            elif key == ENTER:
                return

    def deal_card(self, step: DealCard) -> None:
        if self.replaying:
            self._replayed("dealt", step.prompt)
            return
        self.keys.expect(None)
        self.screen.clear()
        self.screen.line(self.t("screen.deal_wait", seat=step.seat))
        self._wait_enter()
        names = ", ".join(self.t(f"role.{r}") for r in step.secret.values)
        self.screen.secret(self.t("screen.deal_card", roles=names))
        self.screen.line(self.t("screen.deal_hide"))
        self.keys.expect(None)
        self._wait_enter(DEAL_SHOW_S)  # the card goes on the next key or by itself
        self.screen.clear()

    def timer(self, step: Timer) -> Answer | None:
        """A public countdown; an empty Enter ends it early («Спасибо»)."""
        action = step.tag.action
        key = f"label.{action}" if f"label.{action}" in self.catalog.lines else "label.discussion"
        label = self.t(key, seat=step.seat or "")
        if self.replaying:
            answer = self._replayed("reply", step.id)
            if answer is not None:
                asked = [p for p in (step.prompt, step.interrupt) if p is not None]
                answer = self._legal_for_any(asked, answer)
            if answer is not None:
                self.confirm(step, answer)  # «5 принято»: in the record again, unheard
            if step.prompt is not None:
                self._replayed_answer(step.prompt, label, answer, step.id)
            return answer
        self._labels[step.id] = label
        if self._game is not None:
            self.screen.table(self._game.public_view(), step.seat)
        entry: Entry | None = None
        if step.prompt is not None or step.interrupt is not None:
            entry = Entry(step.prompt, interrupt=step.interrupt, speaker=step.seat)
        self.keys.expect(step.prompt, speech=True)

        def confirm(answer: Answer) -> None:
            self.confirm(step, answer)

        ran_out = self._run(
            self._now() + step.seconds,
            step.seconds,
            label,
            entry,
            stop_on_answer=step.until_answer,
            enter_ends=True,
            warnings=self.timer_warnings(step),
            on_answer=confirm,
        )
        if ran_out and step.expired is not None:  # not ended early, nor by an interrupt
            self.carry_out(Say(step.expired))
        self.keys.expect(None)
        if self._game is not None and step.seat is not None:
            self.screen.table(self._game.public_view(), None)  # the speech is over
        if entry is None:
            return None
        if entry.interrupted is not None:
            return entry.interrupted
        if entry.prompt is None:
            return None
        return entry.answer if entry.answer is not None else self.expire(entry.prompt)

    # --- stopping ----------------------------------------------------------------------------

    def _confirm_stop(self) -> None:
        """Stop only on an explicit yes; a second Esc (or any other key) goes on.

        By day the game time stands still meanwhile, so no speech or answer is lost;
        at night it runs on, because a pause would be heard (issue 17 #4).
        """
        self.screen.line("")
        kept = self._record.lost is None  # the disk took the record so far
        self.screen.line(self.t("screen.confirm_quit" if kept else "screen.confirm_quit_unsaved"))
        asked = self.clock.now()
        while True:
            key = self.keys.read(TICK)
            if isinstance(key, str) and key in STOP_YES:
                raise GameStopped
            if key is not None and not isinstance(key, Attempt):
                break
        if phase_kind(self.phase) != "night":
            self._held += self.clock.now() - asked
        self.screen.line(self.t("screen.resumed"))

    def carry_out(self, step: Step) -> Answer | None:
        # An undo goes live at the question it took back: the lines before it were heard.
        if self.replaying and not self._replay and not (self._undoing and _heard_before(step)):
            self._go_live(step)
        if isinstance(step, Say) and step.dawn and not self.replaying:
            self._morning()
        if isinstance(step, Show | Eliminate):
            self._history.append((self.phase, step))  # for the end screen's timeline
        answer = super().carry_out(step)
        if isinstance(step, Ask) and _acted_at_night(step.prompt, answer):
            assert answer is not None
            taken = Taken(step.prompt.seats, answer, step.prompt.tag.action)
            self._history.append((self.phase, taken))
        if isinstance(step, Eliminate) and self._game is not None and not self.replaying:
            self.screen.table(self._game.public_view(), None)  # announced: the ring follows
        if isinstance(step, Ask | Timer):
            self._finished_step(
                Done(
                    "reply",
                    step.prompt.id if isinstance(step, Ask) else step.id,
                    answer,
                    self.phase,
                )
            )
        elif isinstance(step, Sleep) and self._window_done is not None:
            self._finished_step(Done("window", self._window_done, None, self.phase))
        elif isinstance(step, DealCard):
            self._finished_step(Done("dealt", step.prompt, None, self.phase))
        return answer

    # --- replaying and taking back ---------------------------------------------------------

    def _finished_step(self, done: Done) -> None:
        """A step that waited for the table is over: the record keeps its outcome."""
        self.done.append(done)
        self.record.add("done", **done.to_event())

    def _legal(self, prompt: Prompt, answer: Answer) -> Answer:
        """A recorded answer is judged again by the rules as they stand now: a record
        cannot give a role an action its prompt does not allow (the dead, a seat off
        the table, a second potion). Its expiry default is always allowed."""
        return self._legal_for_any([prompt], answer)

    def _legal_for_any(self, prompts: Sequence[Prompt], answer: Answer) -> Answer:
        for prompt in prompts:
            if answer == prompt.default:
                return answer
            try:
                if prompt.accept(str(answer)) == answer:
                    return answer
            except NarratorError:
                continue
        raise Mismatch(f"the record's answer {answer} is not allowed at {prompts[0].id}")

    def _replayed(self, kind: str, step_id: str) -> Answer | None:
        """The recorded outcome of the step being replayed; the record must fit the script."""
        expected = self._replay.popleft() if self._replay else None
        if expected is None or expected.kind != kind or expected.id != step_id:
            raise Mismatch(
                f"the record does not fit the game at {step_id}"
                f" (it says {expected.id if expected else 'nothing more'})"
            )
        return expected.answer

    def _replayed_answer(
        self, prompt: Prompt, label: str, answer: Answer | None, step_id: str | None = None
    ) -> None:
        """A day answer met again: its label (for a later undo) and its line on the page."""
        self._labels[step_id or prompt.id] = label
        if answer is not None and not prompt.blind:
            self._page.append(self._accepted_line(label, answer))

    def _go_live(self, step: Step) -> None:
        """Everything played before the stop is replayed: the table takes over from here.

        The line said last comes again by day (where we were) and before a window that
        is run again from its start (its wake line); what was shown stays unshown.
        """
        self.replaying = False
        self.record = self._record
        self.record.add("resumed", phase=self.phase)
        if self._game is not None:
            self.screen.table(self._game.public_view(), None)
        night = phase_kind(self.phase) == "night"
        self.sound.night(night)
        self.screen.clear()
        context = self._last_line
        if self._undoing:  # the answers that still count, what was taken back: the question
            for line in [*self._page, self.undone]:
                if line:
                    self.screen.line(line)
            return
        where = phase_in_words(self.catalog, self.phase)
        self.carry_out(Say("screen.resumed_game", {"phase": where}))
        # The question the last line asked comes again (by day, or a window's wake line);
        # a step that speaks for itself (a card's call, a line, an announcement) does.
        if context and (isinstance(step, Wake) or (not night and isinstance(step, Ask | Timer))):
            self.say("", context)

    def _confirm_undo(self) -> None:
        """Take back the last day answer, after an explicit yes; at night nothing happens."""
        if phase_kind(self.phase) == "night" or self.replaying:
            return  # at night a reaction would tell the table someone is at the keyboard
        keep = next(
            (
                i
                for i in range(len(self.done) - 1, -1, -1)
                if self.done[i].public and self.done[i].answer is not None
            ),
            None,
        )
        if keep is None:
            self.screen.line(self.t("screen.nothing_to_undo"))
            return
        taken = self.done[keep]
        assert taken.answer is not None
        words = f"{self._labels.get(taken.id, '')} {codec.shown(taken.answer, self.t)}".strip()
        self.screen.line("")
        self.screen.line(self.t("screen.confirm_undo", answer=words))
        asked = self.clock.now()
        while True:
            key = self.keys.read(TICK)
            if isinstance(key, str) and key in STOP_YES:
                raise Rewind(keep, taken, words)
            if key is not None and not isinstance(key, Attempt):
                break
        self._held += self.clock.now() - asked
        self.screen.line(self.t("screen.resumed"))

    def run(self, game: Game) -> Outcome | None:
        self.game = game.variant
        self._game = game
        return super().run(game)

    def finished(self, outcome: Outcome) -> None:
        winner = self.t(f"winner.{outcome.winner}") if outcome.winner else "—"
        self.screen.end(self.t("screen.winner", winner=winner), self.timeline(outcome))

    def timeline(self, outcome: Outcome) -> list[str]:
        """Every seat's role and the centre cards, then each phase in words: who did
        what at night (answers and what they were shown), and who left and why."""
        lines = [
            self.t("reveal.seat", seat=seat, role=self.t(f"role.{role}"))
            for seat, role in sorted(outcome.reveal.items())
        ]
        center = self._game.deal.center if self._game is not None else ()
        lines += [
            self.t("reveal.center", index=i, role=self.t(f"role.{role}"))
            for i, role in enumerate(center, start=1)
        ]
        before: tuple[str, Show | Eliminate | Taken] | None = None
        for phase, step in self._history:
            at = step.phase if isinstance(step, Eliminate) else phase
            when = phase_in_words(self.catalog, at)
            if isinstance(step, Eliminate):
                cause = self.t(f"cause.{step.cause}")
                lines.append(f"{when}: {self.t('screen.player', seat=step.seat)} — {cause}")
            elif isinstance(step, Taken):
                answer = codec.shown(step.answer, self.t)
                key = f"timeline.{step.action}"
                if key in self.catalog.lines:
                    lines.append(f"{when}: {self._who(step.seats)}, {self.t(key)}: {answer}")
                else:
                    lines.append(f"{when}: {self._who(step.seats)} → {answer}")
            else:
                answered = _answered_by(before, phase, step)
                taken = before[1] if answered and before is not None else None
                looked = taken.answer if isinstance(taken, Taken) else None
                if step.secret.kind != "roles":
                    looked = None  # «проверка: 1 — ДА»: the seat is named already
                secret = self._secret_text(step.tag, step.secret, looked)  # as it was shown
                if answered:  # «…, проверка: 1 — ДА»
                    lines[-1] += f" — {secret}"
                else:
                    lines.append(f"{when}: {self._who(step.to)} — {secret}")
            before = (phase, step)
        return lines

    def _who(self, seats: tuple[Seat, ...]) -> str:
        """«шериф (8)», «мафия (3, 6)»: the seats with the card each was dealt."""
        if self._game is None or not seats:
            return ", ".join(str(s) for s in seats)
        roles: dict[str, list[Seat]] = {}
        for seat in seats:
            roles.setdefault(self._game.deal.role_of(seat), []).append(seat)
        return "; ".join(
            f"{self.t(f'role.{role}')} ({', '.join(map(str, held))})"
            for role, held in roles.items()
        )


@dataclass(frozen=True)
class Taken:
    """A night answer, for the end screen: who gave it and what it was."""

    seats: tuple[Seat, ...]
    answer: Answer
    action: str  # the prompt's action: «проверка», «защита» on the end screen


def question_of(label: str) -> str:
    """«Слово игроку номер 1.» of «Слово игроку номер 1. Enter без цифр — «Спасибо».»: the
    page line of an accepted answer names the question, not the keys of the moment."""
    question, keys, _ = label.partition(". Enter")
    return f"{question}." if keys else label


def _answered_by(
    before: tuple[str, Show | Eliminate | Taken] | None, phase: str, shown: Show
) -> bool:
    """Whether ``shown`` is what the night answer just before it found out."""
    if before is None or before[0] != phase or not isinstance(before[1], Taken):
        return False
    return before[1].action == shown.tag.action and before[1].seats == shown.to


def _acted_at_night(prompt: Prompt, answer: Answer | None) -> bool:
    """An answer given in a night window (not the default of an empty one)."""
    return (
        answer is not None
        and prompt.tag.by_night
        and bool(prompt.seats)
        and answer != prompt.default
    )


def _heard_before(step: Step) -> bool:
    """A step an undo meets silently after its last recorded one: it comes before the
    question taken back (a line, a phase, an announcement), the next step that waits."""
    return not isinstance(step, Ask | Timer | Wake | DealCard)


def _seat_param(cue: Say) -> Seat | None:
    """The seat a cue calls («Пять»), if it calls one."""
    seat = cue.params.get("seat")
    return seat if isinstance(seat, int) else None
