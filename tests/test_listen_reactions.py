"""Every utterance at an open day question gets a reaction, and only for that question.

Real audio (the project's corpus voices) through the real recogniser (pocketsphinx,
the default with no download), the real listener and ``VoiceKeys``; what they hand
over is then judged by the real table loop (its clock a fake). Heard and accepted:
the answer; heard but refused by the rules (a self-vote): the keypad's reason;
not understood: «не расслышал». Audio said before the open question opened (a
listener that fell behind reads it late) is heard by no question.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from narrator.listen import corpus
from narrator.listen.engine import RATE
from narrator.listen.engine import ModelLoader
from narrator.listen.keys import VoiceKeys
from narrator.listen.keys import shown
from narrator.listen.listener import Listener
from narrator.listen.mic import FileSource
from narrator.listen.sphinx_asr import SphinxEngine
from narrator.listen.words import lexicon_for
from narrator.ports import ENTER
from narrator.ports import Attempt
from narrator.ports import Live
from narrator.rules import phases
from narrator.rules.halloween import vote_prompt
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.voice.catalog import load_catalog
from tests.test_listen_readback import FakeVoice
from tests.test_table_loop import ask_once
from tests.voice_table import Keypad
from tests.voice_table import Screen
from tests.voice_table import silence
from tests.voice_table import wait_until

BANK = corpus.Corpus()
GUARD_S = 60  # a guard against a hang, never a measure of speed


def spoken(lang: str, text: str, voice: str) -> bytes:
    phrase = corpus.Phrase(lang, text, "speech", None, "words")
    return BANK.pcm(corpus.Clip(phrase, voice, 150))


def vote_of(voter: int) -> Prompt:
    """Halloween's day vote of ``voter`` at a table of ten: another living seat or abstain."""
    seats = tuple(range(1, 11))
    return vote_prompt(Tag(phases.day(1), "vote", voter), voter, seats, seats, 10)


class Said(FileSource):
    """Audio said at ``said_at`` (the monotonic clock) and read only now: the microphone's
    queue that a listener fell behind on (a slow decode on a busy machine)."""

    def __init__(self, pcm: bytes, said_at: float) -> None:
        super().__init__(pcm)
        self.said_at = said_at

    def captured(self) -> float:
        return self.said_at + self.position / 2 / RATE


def hear(
    lang: str,
    pcm: bytes,
    prompt: Prompt,
    *,
    source: FileSource | None = None,
    before: tuple[Prompt | None, ...] = (),
) -> tuple[list[str | Attempt], Screen, FakeVoice, VoiceKeys]:
    """Open ``before`` then ``prompt``, let the listener read ``pcm`` through the real
    pocketsphinx, and collect what ``VoiceKeys`` handed over, showed and said."""
    lexicon = lexicon_for(lang)
    engine = SphinxEngine.load(lang)
    audio = source or FileSource(silence(0.3) + pcm + silence(1.0))
    listener = Listener(audio, ModelLoader(Path("sphinx"), lexicon, engine), lexicon)
    screen, voice = Screen(), FakeVoice()
    keys = VoiceKeys(Keypad(), listener, lexicon, screen)
    keys.watch_voice(voice)
    for earlier in before:
        keys.expect(earlier)
    keys.expect(prompt)
    keys.start()
    got: list[str | Attempt] = []
    try:
        wait_until(audio.finished.is_set, GUARD_S)  # every utterance in it was decoded
        end = time.monotonic() + 2 * 1.5  # a read-back answer is typed after CONFIRM_S
        while time.monotonic() < end:
            key = keys.read(0.05)
            if key is not None:
                got.append(key)
    finally:
        keys.close()
    return got, screen, voice, keys


REASON = {lang: load_catalog(lang).text("reason.self_vote", {}) for lang in ("ru", "en")}


@pytest.mark.parametrize(
    ("lang", "word", "voice"),
    [
        ("en", "four", "espeak:gmw/en-us"),
        ("ru", "четыре", "festival:msu_ru_nsh_clunits"),
    ],
)
def test_a_spoken_self_vote_gets_the_keypads_refusal(lang: str, word: str, voice: str) -> None:
    """Seat 4 says «четыре» at his own vote: heard, not read back, refused with the reason
    the keypad's ``4 Enter`` gets. (The old grammar held only the seats the rules allow:
    "four" was heard as the filler "for", «четыре» as «девять» — a wrong seat.)"""
    vote = vote_of(4)
    got, screen, voice_said, keys = hear(lang, spoken(lang, word, voice), vote)
    heard = [(u.text, h) for u, h in keys.history]
    assert got == [Attempt(vote.id, "4")], (got, heard)
    lexicon = lexicon_for(lang)
    assert voice_said.said == [], voice_said.said  # a refused answer is not read back
    assert lexicon.message("heard", text=word, answer="4") in screen.lines, screen.lines
    _, by_voice = ask_once(vote, got)
    _, by_keypad = ask_once(vote, ["4", ENTER])
    refusal = f"refused: {REASON['ru']}"  # the table of ask_once speaks Russian
    assert refusal in by_voice.lines and refusal in by_keypad.lines, by_voice.lines


@pytest.mark.parametrize(
    ("lang", "word", "voice"),
    [
        ("en", "well i do not know", "espeak:gmw/en-us"),  # chatter: no answer in it
        ("ru", "ну не знаю", "espeak:zle/ru"),
    ],
)
def test_an_answer_not_understood_is_said_to_be(lang: str, word: str, voice: str) -> None:
    """Speech the recogniser cannot place («[unk]», fillers alone, nothing) at an open
    vote: «не расслышал» on the screen and aloud, and nothing typed (it was silence)."""
    got, screen, voice_said, keys = hear(lang, spoken(lang, word, voice), vote_of(5))
    heard = [(u.text, h) for u, h in keys.history]
    assert heard and all(h.answer is None for _, h in heard), heard  # this clip: not placed
    lexicon = lexicon_for(lang)
    for text, _ in heard:
        assert lexicon.message("unclear", text=shown(text)) in screen.lines, screen.lines
    assert lexicon.message("say_unclear") in voice_said.said, voice_said.said
    assert got == [], got


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_an_answer_heard_late_is_not_taken_by_the_next_question(lang: str) -> None:
    """«два» said at voter 3's vote but read by a listener that fell behind, after the
    vote closed and voter 5's opened: heard by no question, not read back, nothing typed.
    The same audio said once voter 5's vote is open is his answer (the control)."""
    lexicon = lexicon_for(lang)
    word = lexicon.number_word(2)
    pcm = silence(0.3) + spoken(lang, word, corpus.VOICES[lang][0]) + silence(1.0)
    # (The control below hears it as «два» through this same path.)
    three, five = vote_of(3), vote_of(5)
    early = Said(pcm, time.monotonic() - 10)  # said before voter 5's vote opened
    got, screen, said, _ = hear(lang, pcm, five, source=early, before=(three, None))
    assert got == [] and said.said == [], (got, said.said, screen.lines)
    assert not any(word in line for line in screen.lines), screen.lines
    got, screen, said, _ = hear(lang, pcm, five, before=(three, None))  # said once it is open
    assert said.said == [lexicon.message("say_heard", text=word)], (said.said, screen.lines)
    assert got == [Attempt(five.id, "2")], got


# --- live: the PulseAudio virtual microphone, a real table, in real time -----------------------


class LiveScreen(Screen):
    """The lines, and each refusal the live area shows (the keypad's reason)."""

    def live(self, view: Live | None) -> None:
        if view is not None and view.reason and f"refused: {view.reason}" not in self.lines:
            self.lines.append(f"refused: {view.reason}")


LIVE = {  # a self-vote, speech the recogniser cannot place, an answer: voices that say them
    "en": (("four", "espeak:gmw/en-us"), ("one", "espeak:gmw/en-us"), "two"),
    "ru": (("четыре", "festival:msu_ru_nsh_clunits"), ("один", "espeak:zle/ru"), "два"),
}


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_utterance_at_a_vote_gets_a_reaction_through_the_microphone(
    lang: str, pulse_audio: dict[str, str], tmp_path: Path
) -> None:
    """Voter 4 says his own number, then a word the recogniser may not place; after his
    vote has closed, before voter 5's opens, «три» is said; voter 5 says «два». As ``play
    --input voice`` hears it, through the virtual microphone in real time: the refusal,
    a reaction to every utterance, nothing for «три», voter 5's «два» taken."""
    from narrator.listen.keys import open_voice_keys
    from narrator.rules.answers import SeatAnswer
    from narrator.rules.core import Ask
    from narrator.rules.core import Outcome
    from narrator.rules.core import Phase
    from narrator.rules.core import Say
    from narrator.rules.core import Script
    from tests.support import espeak_cache
    from tests.voice_table import play_by_voice
    from tests.voice_table import play_into_microphone

    lexicon = lexicon_for(lang)
    catalog = load_catalog(lang)
    cache = espeak_cache(lang, tmp_path / "speech")
    (self_word, self_voice), (vague, vague_voice), answer = LIVE[lang]
    four, five = vote_of(4), vote_of(5)
    answers: list[object] = []

    def day() -> Script:
        yield Phase(phases.day(1))
        yield Say("sport.day_one", dawn=True)
        answers.append((yield Ask(four)))
        yield Say("sport.leaves", {"seat": 4})  # a line between the two votes
        answers.append((yield Ask(five)))
        return Outcome(None, phases.day(1))

    for key in ("sport.day_one", "sport.leaves"):
        cache.clip(catalog.text(key, {"seat": 4}))
    screen = LiveScreen()
    keys = open_voice_keys(Keypad(), lang, None, None, screen, models_dir=tmp_path / "models")

    def say(text: str, voice: str) -> None:
        play_into_microphone(
            silence(0.2) + spoken(lang, text, voice) + silence(0.3), pulse_audio, tmp_path
        )

    def open_at(prompt: Prompt) -> bool:
        return keys.prompt == prompt and keys.listening and keys.may_listen()

    def table_part() -> None:
        wait_until(lambda: keys.listener.loader.done(), 20)
        wait_until(lambda: open_at(four), 30)
        say(self_word, self_voice)
        wait_until(lambda: any(line.startswith("refused: ") for line in screen.lines), 15)
        say(vague, vague_voice)
        wait_until(lambda: keys.prompt is None, 30)  # voter 4's vote has closed
        say(lexicon.number_word(3), corpus.VOICES[lang][0])
        wait_until(lambda: open_at(five), 30)
        say(answer, corpus.VOICES[lang][0])

    play_by_voice(keys, screen, catalog, cache, day(), answer_s=8.0, speak=table_part)
    heard = [(u.text, h) for u, h in keys.history]
    refusal = f"refused: {REASON[lang]}"
    assert refusal in screen.lines, (screen.lines, heard)
    assert lexicon.message("heard", text=self_word, answer="4") in screen.lines, screen.lines
    for text, h in heard:  # every utterance at a vote: the answer, or «не расслышал»
        said = shown(text)
        taken = lexicon.message("heard", text=said, answer=h.answer) if h.answer else None
        assert taken in screen.lines or lexicon.message("unclear", text=said) in screen.lines
    assert not any(lexicon.number_word(3) in line for line in screen.lines), screen.lines
    # «два» through the microphone: taken, or (the recogniser is not that good) unclear.
    assert answers[1] in (SeatAnswer(2), five.default), (answers, heard)
