"""Spoken day answers beside the keypad: one Keys port for both.

``VoiceKeys`` is a Keys port (``read`` / ``expect``) wrapped around the real
keypad. What is heard reaches the table loop as an :class:`~narrator.ports.Attempt`
(the prompt it was said for, the answer text, its source): «пять» at a vote is
``Attempt("d1.vote.3", "5")``, «спасибо» is an attempt that ends the speech.
The keypad always works in parallel. Whatever is said at an open question gets
a reaction: the answer (read back, or at once for a nomination, or at once for
the table to refuse with the keypad's reason), or «не расслышал»; said for a
question that has closed, it is dropped.

A microphone that goes away, or a model that cannot be loaded, leaves the
keypad alone: said once on the screen (with the reason) and aloud (by day: a
line said at night would be heard by everyone with their eyes shut).

The microphone is open only for a prompt the rules let be spoken (a day prompt;
a night one never, docs/rules.md §0.5) or, by day with no question open, for «спасибо» alone. It is
closed while the narrator speaks (``watch_voice``) and from the start of the
night's knock bed until its dawn chime has rung out (``watch_sound``).

Listening happens in another thread; everything here runs in the table's
thread, so lines on the screen and repeated lines never cross the table's own.
"""

from __future__ import annotations

import logging
import queue
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from narrator.listen.engines import NeedsModel
from narrator.listen.listener import Listener
from narrator.listen.listener import Notice
from narrator.listen.listener import Utterance
from narrator.listen.words import UNKNOWN
from narrator.listen.words import Heard
from narrator.listen.words import Lexicon
from narrator.listen.words import Reading
from narrator.listen.words import grammar
from narrator.listen.words import is_day_prompt
from narrator.listen.words import lexicon_for
from narrator.ports import Attempt
from narrator.ports import Keys
from narrator.ports import Lines
from narrator.ports import Sound
from narrator.ports import Voice
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NarratorError
from narrator.rules.prompts import Prompt

_LOGGER = logging.getLogger(__name__)

POLL_S = 0.05  # how often the keypad read is interrupted to look for spoken answers
TAIL_S = 0.35  # the narrator's last syllable is still in the air (and in the mic queue)
DAWN_QUIET_S = 1.5  # the knock bed fades out and the dawn chime rings after the day starts
PTT_HOLD_S = 0.7  # push-to-talk: a held key repeats; the mic closes this long after the last
CONFIRM_S = 1.5  # a spoken vote or count is read back and typed unless corrected this soon


class VoiceKeys:
    """The keypad plus spoken day answers, merged into one stream of keys."""

    def __init__(
        self,
        keypad: Keys,
        listener: Listener,
        lexicon: Lexicon,
        screen: Lines | None = None,
        *,
        speaking: Callable[[], bool] | None = None,
        push_to_talk: bool = False,
        clock: Callable[[], float] = time.monotonic,
        notes: tuple[str, ...] = (),
    ) -> None:
        self.keypad = keypad
        self.notes = notes  # shown with "ready" (an experimental recogniser says so)
        self.listener = listener
        self.lexicon = lexicon
        self.screen = screen
        self.speaking = speaking
        self.push_to_talk = push_to_talk
        self.clock = clock
        self.enabled = True
        self.history: deque[tuple[Utterance, Heard]] = deque(maxlen=100)
        self._pending: deque[str | Attempt] = deque()
        self._prompt: Prompt | None = None
        self._speech = False  # a countdown is open: «спасибо» ends it
        self._generation = 0
        self._listening = False
        self._night = False
        self._day = False
        self._talking = 0  # lines being said right now
        self._quiet_until = 0.0
        self._ptt_until = 0.0
        self._reading = Reading(None, lexicon)
        self._voice: Voice | None = None
        self._last_line: tuple[str, str] | None = None
        # A read-back answer, when it is typed, and what was heard.
        self._held: tuple[str, float, str] | None = None
        self._tell: str | None = None  # why the voice input is off, to be said by day
        listener.gate = self.may_listen

    def start(self) -> None:
        self.listener.start()

    @property
    def listening(self) -> bool:
        """Whether a grammar is open now (the gate may still hold the microphone shut)."""
        return self._listening

    @property
    def prompt(self) -> Prompt | None:
        return self._prompt

    def close(self) -> None:
        self.listener.stop()

    # --- the Keys port -----------------------------------------------------------------

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self.keypad.expect(prompt, speech=speech)
        self._prompt = prompt
        self._speech = speech
        self._reading = Reading(prompt, self.lexicon)
        if self._held is not None:  # read back, but its question closed before it was typed
            self._show(self.lexicon.message("closed", text=self._held[2]))
        self._held = None  # heard for a prompt that is closed now
        self._pending.clear()  # said for the prompt that closed: never taken by the next
        self._reopen()

    def read(self, timeout: float) -> str | Attempt | None:
        deadline = self.clock() + max(timeout, 0.0)
        while True:
            self._take_heard()
            self._tell_off()
            self._release_held()
            if self._pending:
                return self._pending.popleft()
            key = self.keypad.read(min(POLL_S, max(0.0, deadline - self.clock())))
            if key is not None:
                if not (self.push_to_talk and key == " " and self._listening):
                    self._held = None  # the keypad corrects a read-back answer
                    return key
                self._ptt_until = self.clock() + PTT_HOLD_S  # Space held: the mic is open
            if self.clock() >= deadline:
                self._take_heard()
                return self._pending.popleft() if self._pending else None

    # --- what the microphone may hear ----------------------------------------------------

    def _reopen(self) -> None:
        """Tell the listener which grammar is open now (a new generation each time)."""
        self._generation += 1
        prompt = self._prompt
        phrases: tuple[str, ...] | None = None
        if self.enabled and not self._night:
            if prompt is not None and is_day_prompt(prompt):
                phrases = grammar(prompt, self.lexicon, speech=self._speech)
            elif prompt is None and self._day:
                phrases = grammar(None, self.lexicon)  # only «спасибо» and «повтори» mean anything
        self._listening = phrases is not None
        self.listener.listen(self._generation, phrases)

    def may_listen(self, recorded: float | None = None) -> bool:
        """The gate, asked by the listening thread for each block of audio: whether it
        may be heard, judged at the moment it was ``recorded`` (default: now). A block
        read late is judged by then: said while the narrator spoke, it is not heard."""
        now = self.clock()
        at = now if recorded is None else recorded
        if self._talking or (self.speaking is not None and self.speaking()):
            self._quiet_until = max(self._quiet_until, now + TAIL_S)
            return False
        if at < self._quiet_until or self._night:
            return False
        return not (self.push_to_talk and at > self._ptt_until)

    # --- what was heard ------------------------------------------------------------------

    def _take_heard(self) -> None:
        while True:
            try:
                notice = self.listener.notices.get_nowait()
            except queue.Empty:
                break
            self._notice(notice)
        while True:
            try:
                utterance = self.listener.results.get_nowait()
            except queue.Empty:
                return
            if utterance.generation != self._generation:
                continue  # heard for a prompt that is closed now
            heard = self._reading.read(utterance.text, self.clock())
            self.history.append((utterance, heard))
            _LOGGER.info("heard %r at %s: %s", utterance.text, self._prompt_id(), heard)
            self._act(heard)

    def _prompt_id(self) -> str:
        return self._prompt.id if self._prompt is not None else "-"

    def _prompt_key(self) -> str | None:
        return self._prompt.id if self._prompt is not None else None

    def _notice(self, notice: Notice) -> None:
        if notice.kind == "ready":
            self._show(self.lexicon.message("ready"))
            for note in self.notes:
                self._show(note)
            return
        self.enabled = False
        _LOGGER.warning("voice input %s: %s", notice.kind, notice.reason)
        self._show(self.lexicon.message(notice.kind, reason=notice.reason))
        self._tell = self.lexicon.message(f"say_{notice.kind}")
        self._reopen()

    def _tell_off(self) -> None:
        """Say once, by day, that the keypad alone answers now."""
        if self._tell is not None and not self._night and not self._talking:
            text, self._tell = self._tell, None
            self._say(text)

    def _act(self, heard: Heard) -> None:
        if heard.answer is not None:
            self._show(self.lexicon.message("heard", text=shown(heard.text), answer=heard.answer))
            if self._refused(heard.answer):
                # Heard, but the rules refuse it (one's own seat): no read-back, the table
                # shows their reason at once, as for the same keys on the keypad.
                self._pending.append(Attempt(self._prompt_key(), heard.answer))
            elif self._reads_back():
                self._say(self.lexicon.message("say_heard", text=heard.text))
                self._held = (heard.answer, self.clock() + CONFIRM_S, heard.text)
            else:
                self._pending.append(Attempt(self._prompt_key(), heard.answer))
        elif heard.unclear:
            self._show(self.lexicon.message("unclear", text=shown(heard.text)))
            self._say(self.lexicon.message("say_unclear"))
        if heard.end:
            self._pending.append(Attempt(self._prompt_key(), "", ends=True))  # «Спасибо»
        if heard.repeat:
            self._repeat()

    def _refused(self, answer: str) -> bool:
        """Whether the open prompt's rules refuse ``answer`` (they judge it again)."""
        if self._prompt is None:
            return False
        try:
            self._prompt.accept(answer)
        except NarratorError:
            return True
        return False

    def _reads_back(self) -> bool:
        """Votes, counts and yes/no are read back; a nomination is confirmed by the host."""
        prompt = self._prompt
        return prompt is not None and prompt.mark is None

    def _release_held(self) -> None:
        """A read-back answer nobody corrected in time is typed for the table."""
        if self._held is not None and self.clock() >= self._held[1]:
            answer, self._held = self._held[0], None
            self._pending.append(Attempt(self._prompt_key(), answer))

    def _say(self, text: str) -> None:
        """Say a line of the voice input itself, with the microphone closed meanwhile."""
        if self._voice is None:
            return
        self._talking += 1
        try:
            self._voice.say("", text)
        finally:
            self._talking -= 1
            self._quiet_until = self.clock() + TAIL_S

    def _show(self, text: str) -> None:
        if self.screen is not None:
            self.screen.line(text)

    def _repeat(self) -> None:
        if self._voice is None or self._last_line is None:
            return
        key, text = self._last_line
        self._talking += 1
        try:
            self._voice.say(key, text)
        finally:
            self._talking -= 1
            self._quiet_until = self.clock() + TAIL_S

    # --- watching the narrator -----------------------------------------------------------

    def watch_voice(self, voice: Voice) -> Voice:
        """The Voice port, with the microphone closed while a line is said."""
        self._voice = voice
        return _WatchedVoice(self, voice)

    def watch_sound(self, sound: Sound) -> Sound:
        """The Sound port, with the microphone closed from the knock bed to the dawn chime."""
        return _WatchedSound(self, sound)

    def _said(self, key: str, text: str) -> None:
        self._last_line = (key, text)

    def _set_night(self, on: bool) -> None:
        self._night = on
        self._day = not on
        if not on:
            self._quiet_until = self.clock() + DAWN_QUIET_S
        self._reopen()


class _WatchedVoice:
    def __init__(self, keys: VoiceKeys, voice: Voice) -> None:
        self.keys = keys
        self.voice = voice

    def say(self, key: str, text: str) -> None:
        self.keys._talking += 1
        try:
            self.voice.say(key, text)
        finally:
            self.keys._talking -= 1
            self.keys._quiet_until = self.keys.clock() + TAIL_S
            self.keys._said(key, text)


class _WatchedSound:
    def __init__(self, keys: VoiceKeys, sound: Sound) -> None:
        self.keys = keys
        self.sound = sound

    def night(self, on: bool) -> None:
        self.keys._set_night(on)
        self.sound.night(on)

    def tick(self) -> None:
        self.sound.tick()


def open_voice_keys(
    keypad: Keys,
    lang: str,
    model: Path | None,
    device: str | None,
    screen: Lines | None,
    *,
    push_to_talk: bool = False,
    models_dir: Path | None = None,
    asr: str | None = None,
) -> VoiceKeys:
    """The microphone opened now (no device: one ConfigError line), the engine loading behind.

    The engine is the one ``--asr`` names, else the best one installed for the
    language (``narrator models list``). It loads in a background thread while
    the game starts; until it is ready, and if it fails to load, the keypad alone
    answers (the screen says so).
    """
    from narrator.listen.engines import choose
    from narrator.listen.mic import Microphone
    from narrator.listen.mic import parse_device

    lexicon = lexicon_for(lang)
    choice = choose(lang, asr, model, models_dir)
    microphone = Microphone(parse_device(device))
    microphone.start()
    listener = Listener(microphone, choice.loader(lexicon), lexicon)
    notes = (lexicon.message("experimental", engine=choice.engine),) if choice.experimental else ()
    return VoiceKeys(keypad, listener, lexicon, screen, push_to_talk=push_to_talk, notes=notes)


def shown(text: str) -> str:
    """What was heard, for the screen: a word outside the grammar (``[unk]``) is «…» (the
    screen would read the brackets as markup and show nothing)."""
    return " ".join("…" if word == UNKNOWN else word for word in text.split())


def keypad_only(lang: str, reason: str, screen: Lines | None, voice: Voice) -> None:
    """Voice input cannot start (no model, no microphone, no vosk): the keypad alone
    answers, said once on the screen (with the reason) and aloud."""
    lexicon = lexicon_for(lang)
    _LOGGER.info("voice input off: %s", reason)
    if screen is not None:
        screen.line(lexicon.message("off", reason=reason))
    voice.say("", lexicon.message("say_off"))


def voice_keys_or_keypad(
    keypad: Keys,
    lang: str,
    model: Path | None,
    device: str | None,
    screen: Lines | None,
    voice: Voice,
    *,
    push_to_talk: bool = False,
    asr: str | None = None,
) -> VoiceKeys | None:
    """``open_voice_keys``, or None (the keypad alone, said once) when it cannot start."""
    try:
        return open_voice_keys(
            keypad, lang, model, device, screen, push_to_talk=push_to_talk, asr=asr
        )
    except NeedsModel as need:  # said in the game's language, with the command
        keypad_only(
            lang, lexicon_for(lang).message("needs_vosk", command=need.command), screen, voice
        )
        return None
    except ConfigError as error:
        keypad_only(lang, str(error), screen, voice)
        return None
