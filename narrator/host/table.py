"""The table loop: drives a variant script in real time for people at a table.

Windows last their full length whatever happens; secrets appear only inside the
owner's window and the screen (with its scroll-back) is wiped before the sleep
line; keys pressed when nothing is asked are discarded without a trace. What a key
does to the open entry is decided by a pure reducer (narrator.host.keypad); this loop
reads the keys on time, says the cues and judges what the reducer hands over.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from narrator.drive import ALREADY_ANSWERED
from narrator.drive import Driver
from narrator.host import keypad
from narrator.host import words
from narrator.host.audio import Silence
from narrator.host.dialogs import TICK
from narrator.host.dialogs import Dialogs
from narrator.host.dialogs import GameStopped
from narrator.host.dialogs import Rewind
from narrator.host.ending import end_screen
from narrator.host.keypad import Entry
from narrator.host.keypad import Reading
from narrator.host.replaying import Replay
from narrator.host.replaying import legal
from narrator.host.window import WindowTimes
from narrator.host.window import decoy_secret
from narrator.ports import INTERRUPT
from narrator.ports import UNDO
from narrator.ports import Clock
from narrator.ports import Keys
from narrator.ports import Live
from narrator.ports import NoPhones
from narrator.ports import Private
from narrator.ports import Screen
from narrator.ports import Sound
from narrator.ports import Voice
from narrator.record import GameRecord
from narrator.resume import Done
from narrator.rules import codec
from narrator.rules.answers import Answer
from narrator.rules.core import Ask
from narrator.rules.core import DealCard
from narrator.rules.core import Decoy
from narrator.rules.core import Eliminate
from narrator.rules.core import Game
from narrator.rules.core import Outcome
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Sleep
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.errors import NarratorError
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.story import Chronicle
from narrator.story import Story
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import phase_in_words

_LOGGER = logging.getLogger(__name__)

__all__ = ["GameStopped", "Rewind", "TableDriver"]  # the table loop, and how it stops

CLAIM_S = 8.0  # a claim (a werewolf exploding) waits this long for its claimant's Enter
ENDED = "ended"  # what a carried-out effect says when it ends what is open


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
        phones: Private | None = None,
    ) -> None:
        super().__init__(catalog, record, drawn=drawn)
        self.sound: Sound = sound or Silence()
        self.phones: Private = phones or NoPhones()
        self.voice = voice
        self.screen = screen
        self.keys = keys
        self.clock = clock
        self.answer_s = answer_s
        self.dialogs = Dialogs(catalog, screen, keys, clock)
        self._window: Wake | None = None
        self._window_entry: Entry | None = None
        self._times = WindowTimes()  # the last window's cues and ticks
        self.chronicle = Chronicle()  # the story of the game, for its end screen
        self.story: Story | None = None  # told once the game has ended
        self._held = 0.0  # seconds the game time stood still (the stop question by day)
        self._last_line = ""
        self._reason = ""
        self._collecting = False
        self.game = ""
        self._game: Game | None = None
        # Replaying (resume, undo): the steps already played, met silently in order.
        self.done: list[Done] = []  # every finished step of this game, replayed or live
        self._replay = Replay(replay)
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
        self.voice.say(key, text)  # typed while it is said: for what it opens

    def _discard_keys(self) -> None:
        """Wrong-time input is inert: read and drop whatever was typed."""
        while (key := self.keys.read(0)) is not None:
            if key == INTERRUPT:
                self._confirm_stop()
            elif key == UNDO:
                self._confirm_undo()

    # --- the one input loop ------------------------------------------------------------

    def _run(self, reading: Reading, entry: Entry | None) -> tuple[bool, Entry | None]:
        """Read keys until the reading's end (or an early end); cues and warnings are said
        on time. True when the time ran out, False when the table ended it early; and
        the entry as the keys left it."""
        self._collecting = True
        try:
            ran_out, entry = self._read_until(reading, entry)
        finally:
            self._collecting = False
        self._say_due_cues()
        self.screen.live(None)
        return ran_out, entry

    def _read_until(self, reading: Reading, entry: Entry | None) -> tuple[bool, Entry | None]:
        pending = list(reading.warnings)
        while (left := reading.end - self._now()) > 0:
            self._say_due_cues()
            while self._times.tick_due(self._now()):
                self.sound.tick()
            if entry is not None and entry.claim and self._now() >= entry.claim_until:
                entry = self._unconfirmed(entry)
            while pending and left <= pending[0][0]:
                self.carry_out(Say(pending.pop(0)[1]))
            self.screen.live(self._live(left, reading.total, reading.label, entry))
            key = self.keys.read(min(TICK, left))
            if key is None:
                continue
            entry, effect = keypad.press(
                entry,
                key,
                enter_ends=reading.enter_ends,
                calling=self._times.calling,
                called=self._times.called(),
            )
            if effect is None:
                continue
            entry, outcome = self._carry(effect, entry, reading)
            if outcome == ENDED:
                return False, entry
            if isinstance(outcome, Answer):
                self.screen.line(words.accepted_line(self.catalog, reading.label, outcome))
                if reading.on_answer is not None:
                    reading.on_answer(outcome)
                if reading.stop_on_answer:
                    return False, entry
        return True, entry

    def _carry(
        self, effect: keypad.Effect, entry: Entry | None, reading: Reading
    ) -> tuple[Entry | None, Answer | str | None]:
        """Carry out what a key asked for: the entry after it, and an answer newly
        accepted (said «Принято») or ENDED."""
        if isinstance(effect, keypad.AskStop):
            self._confirm_stop()
        elif isinstance(effect, keypad.AskUndo):
            self._confirm_undo()
        elif isinstance(effect, keypad.End):
            return entry, ENDED
        elif entry is None:
            raise AssertionError(f"{effect} with no entry open")
        elif isinstance(effect, keypad.Heard):
            return self._heard(entry, effect)
        elif isinstance(effect, keypad.Submit):
            return self._submitted(entry, effect, reading)
        elif isinstance(effect, keypad.Claim):
            return self._claim(entry, effect.text), None
        elif isinstance(effect, keypad.Interrupt):
            return self._interrupt(entry, effect.text)
        return entry, None

    def _heard(self, entry: Entry, heard: keypad.Heard) -> tuple[Entry, Answer | str | None]:
        """A whole answer from another channel (a spoken one) for the open prompt."""
        assert entry.prompt is not None
        answer = self.attempt(entry.prompt, heard.text, answered=entry.answered)
        if answer is None:
            return keypad.refused(entry, self._reason), ENDED if heard.ends else None
        return keypad.taken(entry, answer), answer

    def _submitted(
        self, entry: Entry, submit: keypad.Submit, reading: Reading
    ) -> tuple[Entry, Answer | None]:
        """Typed text handed over with Enter: judged; a blind prompt shows the same
        neutral line for every attempt, taken or not."""
        prompt = entry.prompt
        assert prompt is not None
        answer = None if submit.text is None else self._judge(entry, prompt, submit.text)
        if submit.text is not None:
            entry = keypad.judged(entry, answer, self._reason)
        if not prompt.blind:
            return entry, answer
        self.screen.line(self.t("screen.noted", typed=submit.typed))
        if answer is not None and reading.on_answer is not None:
            reading.on_answer(answer)
        return keypad.refused(entry, ""), None

    def _claim(self, entry: Entry, text: str) -> Entry:
        """An interrupt typed (``*8``) with a claim line: the claim said aloud, judged
        once its claimant confirms it."""
        interrupt = entry.interrupt
        assert interrupt is not None and interrupt.claim is not None
        try:
            claimant = codec.claimant(text, interrupt)
        except NarratorError as error:  # not a seat number: the same for every role
            self.rejected(interrupt, text, error)
            return keypad.refused(entry, self._reason)
        self.carry_out(Say(interrupt.claim, {"seat": claimant}))
        # It waits from the end of the line, at any rate.
        return replace(entry, claim=text, claim_until=self._now() + CLAIM_S)

    def _unconfirmed(self, entry: Entry) -> Entry:
        assert entry.interrupt is not None and entry.interrupt.claim is not None
        self.carry_out(Say(f"{entry.interrupt.claim}_unconfirmed"))
        return replace(entry, claim=None)

    def _interrupt(self, entry: Entry, text: str) -> tuple[Entry, str | None]:
        """``*8`` during the speech of 2 is the interrupt answer ``8 2``; ENDED if accepted."""
        assert entry.interrupt is not None
        answer = self.attempt(entry.interrupt, text, answered=False)
        if answer is None:
            return keypad.refused(entry, self._reason), None
        # In words («игрок 8 взрывается»), not the answer text «8 2».
        self.screen.line(f"{codec.shown(answer, self.t)} — {self.t('screen.accepted')}")
        return replace(entry, interrupted=answer), ENDED

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
        typed = entry.shown if entry is not None else ""
        reason = entry.reason if entry is not None else ""
        return Live(kind, label, max(left, 0.0), total, typed, reason)

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        """Silent rejection: a reason on screen only, the window keeps running."""
        self._reason = self.t(error.key, **error.params) if error.key else str(error)

    # --- wake windows --------------------------------------------------------------------

    def wake(self, step: Wake) -> None:
        self._window = step
        self._window_entry = None
        self._times = WindowTimes(step, self._now(), ticks=not self.replaying)
        if self.replaying:
            self._page.clear()
            return
        self.keys.expect(None)
        self.phones.window(step.seats)  # what the screen shows now is theirs alone
        self.screen.clear()
        self.screen.line(self._last_line)
        self.screen.line(self.t(words.window_hint(self.catalog, self.game, step.tag)))
        if step.meet and step.seats:  # they meet: each sees the others
            met = Secret.seats(step.seats if len(step.seats) > 1 else ())
            self.screen.secret(words.secret_text(self.catalog, step.tag, met))

    def enter_phase(self, phase: PhaseId) -> None:
        """The knock bed starts with the night, before its first wake line."""
        if self.replaying:
            if phase.of_the_rules:
                self._page.clear()  # the page a night or a day starts on is clean
            return
        if self._game is not None:
            self.screen.table(self._game.public_view(), None)
        if phase.by_night:
            self.sound.night(True)
            self.phones.night(True)
        if phase.of_the_rules:
            self.screen.clear()  # a night or a day starts on a clean page

    def _morning(self) -> None:
        """The line that ends a night is said under «Утро», not «Ночь 1»."""
        if self._game is not None and self.phase.by_night:
            self.screen.table(replace(self._game.public_view(), dawn=True), None)

    def dawn(self) -> None:
        """The knocking bed stops after the line that ends the night."""
        if not self.replaying:
            self.sound.night(False)
            self.phones.night(False)

    def _say_due_cues(self) -> None:
        while (cue := self._times.next_cue(self._now())) is not None:
            self.carry_out(cue)

    def ask(self, prompt: Prompt) -> Answer:
        if self.replaying:
            answer = self._replay.next("reply", prompt.id)
            if answer is not None:
                answer = legal([prompt], answer)
            if self._window is None and not prompt.tag.by_night:
                label = words.prompt_label(self.catalog, self.game, prompt)
                self._replayed_answer(prompt, label, answer)
            return answer or prompt.default
        self.keys.expect(prompt)
        if self._window is not None:
            end, total = self._times.end, self._window.seconds
            label = words.window_label(self.catalog, self.game, prompt)
        else:
            end, total = self._now() + self.answer_s, self.answer_s
            label = words.prompt_label(self.catalog, self.game, prompt)
            self._labels[prompt.id] = label
        kept = self._kept.pop(prompt.id, None) if self._window is not None else None
        entry: Entry | None = Entry(prompt)
        if kept is not None:  # answered before the stop: the same answer, no other
            entry = keypad.taken(Entry(prompt), legal([prompt], kept))
            self.screen.live(self._live(end - self._now(), total, label, entry))
            self.screen.line(words.accepted_line(self.catalog, label, kept))
        else:
            _, entry = self._run(Reading(end, total, label, stop_on_answer=True), entry)
        assert entry is not None
        self.keys.expect(None)
        if prompt.calls and entry.presses:  # Space presses on called numbers (0.5)
            called = codec.presses(list(entry.presses))
            entry = replace(entry, answer=self.attempt(prompt, called, answered=False))
        if self._window is not None:
            self._window_entry = entry
        return entry.answer if entry.answer is not None else self.expire(prompt)

    def show(self, step: Show) -> None:
        if self.replaying:
            return  # it was shown in its window before the stop
        entry = self._window_entry
        answer = entry.answer if entry is not None else None
        self.screen.secret(words.secret_text(self.catalog, step.tag, step.secret, answer))

    def sleep(self) -> None:
        """Run the window to its full length, refusing late answers, then wipe the screen."""
        assert self._window is not None
        if self.replaying:
            while (cue := self._times.next_cue()) is not None:  # in the record again, unheard
                self.carry_out(cue)
            self._replay.next("window", self._window.window)
            self._window_done = self._window.window
            self._window = None
            return
        # After an accepted answer the prompt stays "open" only to refuse more input;
        # with nobody awake the decoy's questions are open instead, and with no decoy
        # (awake players with nothing to ask) every key is inert.
        if self._window_entry is None and not self._window.seats and self._window.decoy:
            self._ask_decoy(self._window, self._window.decoy)
        self._run(Reading(self._times.end, self._window.seconds, ""), self._window_entry)
        self.record.add("window_end", prompt=self._window.window)
        self._window_done = self._window.window
        self._window = None
        self._times.stop_ticking()
        self._window_entry = None
        self._kept.clear()  # only the window run again has them
        self.screen.clear()
        self.phones.window(None)
        self.screen.line(self.t("screen.asleep"))

    def _ask_decoy(self, window: Wake, decoy: Decoy) -> None:
        """A window nobody is in asks its questions all the same, as :meth:`ask` and
        :meth:`show` would: typed keys, refusals, «Принято» and a card or a verdict drawn
        at random look as they would for a holder. Nothing is recorded."""
        answers: tuple[Answer, ...] = ()
        while (prompt := decoy.questions(answers)) is not None:
            label = words.window_label(self.catalog, self.game, prompt)
            reading = Reading(self._times.end, window.seconds, label, stop_on_answer=True)
            _, self._window_entry = self._run(reading, Entry(prompt, decoy=True))
            answer = self._window_entry.answer if self._window_entry is not None else None
            if answer is None:
                return  # the window ran out
            shown = decoy_secret(decoy, answer, self._decoy_rng)
            if shown is not None:
                self.screen.secret(words.secret_text(self.catalog, window.tag, shown, answer))
            answers += (answer,)

    # --- dealing, timers ---------------------------------------------------------------------

    def deal_card(self, step: DealCard) -> None:
        if self.replaying:
            self._replay.next("dealt", step.prompt)
            return
        self.dialogs.deal(
            step.seat, step.secret.values, self._now, self._confirm_stop, phones=self.phones
        )

    def timer(self, step: Timer) -> Answer | None:
        """A public countdown; an empty Enter ends it early («Спасибо»)."""
        label = words.timer_label(self.catalog, step)
        if self.replaying:
            return self._replayed_timer(step, label)
        self._labels[step.id] = label
        if self._game is not None:
            self.screen.table(self._game.public_view(), step.seat)
        entry: Entry | None = None
        if step.prompt is not None or step.interrupt is not None:
            entry = Entry(step.prompt, interrupt=step.interrupt)
        self.keys.expect(step.prompt, speech=True)
        self.phones.speech(step.seat, step.interrupt)

        def confirm(answer: Answer) -> None:
            self.confirm(step, answer)

        start = self._now()
        reading = Reading(
            start + step.seconds,
            step.seconds,
            label,
            stop_on_answer=step.until_answer,
            enter_ends=True,
            warnings=tuple(self.timer_warnings(step)),
            on_answer=confirm,
        )
        ran_out, entry = self._run(reading, entry)
        self.phones.speech(None, None)
        if ran_out and step.expired is not None:  # not ended early, nor by an interrupt
            self.carry_out(Say(step.expired))
        self.keys.expect(None)
        if self._game is not None and step.seat is not None:
            self.screen.table(self._game.public_view(), None)  # the speech is over
        if entry is None or entry.interrupted is not None:
            return None if entry is None else entry.interrupted
        if entry.prompt is None:
            return None
        return entry.answer if entry.answer is not None else self.expire(entry.prompt)

    def _replayed_timer(self, step: Timer, label: str) -> Answer | None:
        answer = self._replay.next("reply", step.id)
        if answer is not None:
            answer = legal([p for p in (step.prompt, step.interrupt) if p is not None], answer)
            self.confirm(step, answer)  # «5 принято»: in the record again, unheard
        if step.prompt is not None:
            self._replayed_answer(step.prompt, label, answer, step.id)
        return answer

    # --- stopping, taking back -----------------------------------------------------------

    def _confirm_stop(self) -> None:
        """Stop only on an explicit yes; a second Esc (or any other key) goes on.

        By day the game time stands still meanwhile, so no speech or answer is lost;
        at night it runs on, because a pause would be heard.
        """
        held = self.dialogs.stop(saved=self._record.lost is None)
        if not self.phase.by_night:
            self._held += held

    def _confirm_undo(self) -> None:
        """Take back the last day answer, after an explicit yes; at night nothing happens."""
        if self.phase.by_night or self.replaying:
            return  # at night a reaction would tell the table someone is at the keyboard
        self._held += self.dialogs.undo(self.done, self._labels)

    def carry_out(self, step: Step) -> Answer | None:
        # An undo goes live at the question it took back: the lines before it were heard.
        if self.replaying and not self._replay and not (self._undoing and _heard_before(step)):
            self._go_live(step)
        if isinstance(step, Say) and step.dawn and not self.replaying:
            self._morning()
        answer = super().carry_out(step)
        self.chronicle.note(step, answer)
        if isinstance(step, Eliminate) and self._game is not None and not self.replaying:
            self.screen.table(self._game.public_view(), None)  # announced: the ring follows
        if isinstance(step, Ask | Timer):
            step_id = step.prompt.id if isinstance(step, Ask) else step.id
            self._finished_step(Done("reply", step_id, answer, self.phase))
        elif isinstance(step, Sleep) and self._window_done is not None:
            self._finished_step(Done("window", self._window_done, None, self.phase))
        elif isinstance(step, DealCard):
            self._finished_step(Done("dealt", step.prompt, None, self.phase))
        return answer

    # --- replaying ---------------------------------------------------------------------------

    def _finished_step(self, done: Done) -> None:
        """A step that waited for the table is over: the record keeps its outcome."""
        self.done.append(done)
        self.record.add("done", **done.to_event())

    def _replayed_answer(
        self, prompt: Prompt, label: str, answer: Answer | None, step_id: str | None = None
    ) -> None:
        """A day answer met again: its label (for a later undo) and its line on the page."""
        self._labels[step_id or prompt.id] = label
        if answer is not None and not prompt.blind:
            self._page.append(words.accepted_line(self.catalog, label, answer))

    def _go_live(self, step: Step) -> None:
        """Everything played before the stop is replayed: the table takes over from here.

        The line said last comes again by day (where we were) and before a window that
        is run again from its start (its wake line); what was shown stays unshown.
        """
        self.replaying = False
        self.record = self._record
        self.record.add("resumed", phase=str(self.phase))
        if self._game is not None:
            self.screen.table(self._game.public_view(), None)
        night = self.phase.by_night
        self.sound.night(night)
        self.phones.night(night)
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

    def run(self, game: Game) -> Outcome | None:
        self.game = game.variant
        self._game = game
        return super().run(game)

    def finished(self, outcome: Outcome) -> None:
        assert self._game is not None
        deal = self._game.deal
        self.story = self.chronicle.story(self.game, self.catalog.lang, deal, outcome)
        self.screen.end(*end_screen(self.story, self.catalog))


def _heard_before(step: Step) -> bool:
    """A step an undo meets silently after its last recorded one: it comes before the
    question taken back (a line, a phase, an announcement), the next step that waits."""
    return not isinstance(step, Ask | Timer | Wake | DealCard)
