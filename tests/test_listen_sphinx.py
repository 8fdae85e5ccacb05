"""Listening with no download: pocketsphinx (English; Russian spelled in English phones).

Every recognition test decodes fixed audio: clips of the project's corpus
(``narrator.listen.corpus``: the project's voices, a faint noise floor, the
knock bed or a babble), fed block by block as fast as it decodes, so the
verdict depends on the audio and never on the machine's speed. Accuracy is
asserted with a wide margin under what ``scripts/bench_asr.py`` measures on
the same clips. The live PulseAudio test checks the plumbing, not accuracy.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest

from narrator.cli import main
from narrator.listen import corpus
from narrator.listen.endpoint import Stream
from narrator.listen.endpoint import decode
from narrator.listen.engine import RATE
from narrator.listen.engine import UtteranceBuffer
from narrator.listen.engines import choices
from narrator.listen.engines import choose
from narrator.listen.keys import VoiceKeys
from narrator.listen.keys import open_voice_keys
from narrator.listen.listener import Listener
from narrator.listen.mic import FileSource
from narrator.listen.sphinx_asr import GARBAGE
from narrator.listen.sphinx_asr import REJECT
from narrator.listen.sphinx_asr import SphinxEngine
from narrator.listen.sphinx_asr import jsgf
from narrator.listen.words import UNKNOWN
from narrator.listen.words import grammar
from narrator.listen.words import interpret
from narrator.listen.words import lexicon_for
from narrator.ports import ENTER
from narrator.rules.errors import ConfigError
from narrator.rules.phases import day
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.sport_mafia import count_prompt
from tests.voice_table import Keypad
from tests.voice_table import Screen
from tests.voice_table import render_the_day
from tests.voice_table import silence
from tests.voice_table import speak_at_the_vote
from tests.voice_table import typed
from tests.voice_table import vote_by_voice

BANK = corpus.Corpus()


@pytest.fixture(params=["en", "ru"])
def sphinx(request: pytest.FixtureRequest) -> SphinxEngine:
    """A fresh engine for each test: its noise removal adapts from one utterance to the
    next, so a shared one would make a test's verdict depend on the tests run before."""
    engine = SphinxEngine.load(request.param)
    engine.check(lexicon_for(request.param))
    return engine


def outcomes(engine: SphinxEngine, clips: list[corpus.Clip]) -> dict[str, int]:
    counted = dict.fromkeys((*corpus.OUTCOMES, *corpus.CHATTER_OUTCOMES), 0)
    for clip in clips:
        counted[corpus.outcome(clip.phrase, corpus.hear(engine, BANK, clip))] += 1
    return counted


# --- which engine ------------------------------------------------------------------------------


def test_with_no_model_downloaded_each_language_has_an_engine(tmp_path: Path) -> None:
    english = choose("en", folder=tmp_path)
    assert (english.engine, english.experimental) == ("whisper", False)
    # Russian: pocketsphinx takes too many wrong seats to listen unasked.
    with pytest.raises(ConfigError, match=r"needs the Vosk model: narrator models download ru"):
        choose("ru", folder=tmp_path)
    russian = choose("ru", "sphinx", folder=tmp_path)
    assert (russian.engine, russian.experimental) == ("sphinx", True)
    states = {c.engine: c for c in choices("ru", None, tmp_path)}
    assert "narrator models download ru" in str(states["vosk"].problem)
    assert "only English" in str(states["whisper"].problem)
    with pytest.raises(ConfigError, match=r"Whisper tiny.en hears only English, not 'ru'"):
        choose("ru", "whisper", folder=tmp_path)
    with pytest.raises(ConfigError, match=r"no 'ru' Vosk model .*narrator models download ru"):
        choose("ru", "vosk", folder=tmp_path)
    with pytest.raises(ConfigError, match=r"does not go with --asr sphinx"):
        choose("ru", "sphinx", tmp_path / "model", tmp_path)
    with pytest.raises(ConfigError, match=r"no speech engine for 'ko' .*sphinx: pocketsphinx"):
        choose("ko", folder=tmp_path)
    with pytest.raises(ConfigError, match=r"engines: vosk, sphinx, whisper"):
        choose("en", "julius")


def test_models_list_shows_every_engine_and_the_one_a_game_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "list", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    used = [line for line in lines if line.startswith("  en * ")]
    assert len(used) == 1 and "whisper" in used[0] and "ready" in used[0], out
    assert not [line for line in lines if line.startswith("  ru * ")], out
    assert any(line.startswith("  ru   whisper ") for line in lines), out
    for lang in ("ru", "en"):
        assert any(line.startswith(f"  {lang}   vosk ") for line in lines), out
        assert any(line.startswith(f"  {lang}   sphinx ") for line in lines), out
    sphinx_ru = next(line for line in lines if line.startswith("  ru   sphinx "))
    assert "experimental" in sphinx_ru and "only with --asr sphinx" in sphinx_ru, out
    assert "  ru ! voice input in 'ru' needs the Vosk model: narrator models download ru" in out


def test_an_unknown_engine_on_the_command_line_is_one_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["play", "sport_mafia", "--input", "voice", "--asr", "julius"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--asr: julius: expected one of vosk, sphinx, whisper" in err
    assert len(err.strip().splitlines()) == 1


# --- grammars ---------------------------------------------------------------------------------


def test_a_grammar_holds_one_answer_after_fillers_and_a_garbage_branch() -> None:
    engine = SphinxEngine.load("en")
    english = lexicon_for("en")
    vote = jsgf(grammar(corpus.prompt_for("seat"), english), english, engine.words, engine.garbage)
    assert "(<filler> [<filler>] [<filler>] [<answer>] | <answer>)" in vote
    assert f"{GARBAGE}the" in vote and "/0.01/ <garbage>" in vote
    assert f"{GARBAGE}to " not in vote  # "to" sounds like "two": it would swallow it
    confirm = grammar(corpus.prompt_for("yes_no"), english)
    assert f"{GARBAGE}to " in jsgf(confirm, english, engine.words, engine.garbage)
    answers = next(line for line in vote.splitlines() if line.startswith("<answer>"))
    fillers = next(line for line in vote.splitlines() if line.startswith("<filler>"))
    assert " four " in answers + " " and " for" not in fillers  # "for" sounds like "four"
    assert "for" in next(
        line for line in jsgf(confirm, english).splitlines() if line.startswith("<answer>")
    )
    without = jsgf([p for p in grammar(None, english) if p != UNKNOWN], english)
    assert "<garbage>" not in without


def test_pure_digital_silence_is_no_utterance(sphinx: SphinxEngine) -> None:
    lexicon = lexicon_for(sphinx.lang)
    recogniser = sphinx.recogniser(
        sphinx.usable(grammar(count_prompt(Tag(day(1), "vote"), 9), lexicon), lexicon)
    )
    stream = Stream(recogniser)
    for block in corpus.pcm_blocks(silence(2.0)):
        assert stream.push(block) is None
    assert not recogniser.has_audio
    assert stream.finish() is None


def test_the_stream_gives_the_engine_the_utterance_and_a_moment_before_it(
    sphinx: SphinxEngine,
) -> None:
    lexicon = lexicon_for(sphinx.lang)
    kept: list[bytes] = []

    class Keeping(UtteranceBuffer):
        def take(self) -> bytes | None:
            pcm = super().take()
            kept.append(pcm or b"")
            return pcm

    clip = corpus.clips(sphinx.lang, speeds=(150,), conditions=[("clean", None)])[6]
    recogniser = sphinx.recogniser(sphinx.usable(corpus.listened("seat", lexicon), lexicon))
    recogniser._buffer = Keeping()
    stream = Stream(recogniser)
    pcm = BANK.pcm(clip)
    texts = [t for b in corpus.pcm_blocks(silence(3.0) + pcm) if (t := stream.push(b))]
    assert texts and len(kept) == 1
    speech = BANK.speech_end(clip) - corpus.LEAD_S
    assert speech * RATE * 2 < len(kept[0]) < (speech + 1.0) * RATE * 2


# --- accuracy on fixed clips (wide margins under the benchmark's figures) ------------------------


# Least share right of the clean answers, most share of chatter taken for an answer, least
# nominations right (of 9). With the thresholds tuned for few wrong seats,
# measured (one speed, three voices): ru 44 % right, 0 nominations (every one
# "not understood", none wrong). Russian is spelled in English phones: experimental.
MARGINS = {
    "en": (0.70, 0.30, 5),
    "ru": (0.35, 0.30, 0),
}


def test_clean_answers_are_heard(sphinx: SphinxEngine) -> None:
    clips = corpus.clips(
        sphinx.lang, speeds=(150,), conditions=[("clean", None)], groups=("numbers", "words")
    )
    counted = outcomes(sphinx, clips)
    least, _, _ = MARGINS[sphinx.lang]
    assert counted["right"] >= least * len(clips), counted
    assert counted["wrong"] < counted["right"] / 2, counted


def test_chatter_is_rarely_taken_for_an_answer(sphinx: SphinxEngine) -> None:
    clips = corpus.clips(
        sphinx.lang, speeds=(150,), conditions=[("clean", None)], groups=("chatter",)
    )
    counted = outcomes(sphinx, clips)
    _, most, _ = MARGINS[sphinx.lang]
    assert counted["accepted"] <= most * len(clips), counted
    assert counted["rejected"] > counted["accepted"], counted  # "not understood" far more often


def test_an_answer_less_like_itself_than_like_any_speech_is_not_understood(
    sphinx: SphinxEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The phone-loop check: chatter the grammar forces onto an answer reads as
    "not understood"; without the check the same clips give more wrong answers."""
    clips = corpus.clips(
        sphinx.lang, speeds=(150,), conditions=[("clean", None)], groups=("chatter",)
    )
    checked = outcomes(sphinx, clips)
    monkeypatch.setitem(REJECT, sphinx.lang, -math.inf)
    unchecked = outcomes(SphinxEngine.load(sphinx.lang), clips)
    assert checked["accepted"] < unchecked["accepted"], (checked, unchecked)
    assert checked["right"] == unchecked["right"] == 0


def test_a_nomination_in_a_speech(sphinx: SphinxEngine) -> None:
    clips = corpus.clips(
        sphinx.lang, speeds=(150,), conditions=[("clean", None)], groups=("nominate",)
    )
    counted = outcomes(sphinx, clips)
    assert counted["right"] >= MARGINS[sphinx.lang][2], counted
    assert counted["wrong"] <= 1, counted  # a nomination of the wrong player is the harm


# --- through the listener into VoiceKeys, and mic-test, from files -------------------------------


def spoken(lang: str, text: str, voice: str | None = None) -> bytes:
    """One phrase by the language's first corpus voice, as 16 kHz PCM with a noise floor."""
    phrase = corpus.Phrase(lang, text, "speech", None, "words")
    return BANK.pcm(corpus.Clip(phrase, voice or corpus.VOICES[lang][0], 150))


def decoded(engine: SphinxEngine, pcm: bytes, prompt: Prompt) -> list[str]:
    """The text of each utterance in ``pcm``, streamed as the listener streams it."""
    lexicon = lexicon_for(engine.lang)
    stream = Stream(engine.recogniser(engine.usable(grammar(prompt, lexicon), lexicon)))
    return [utterance.text for utterance in decode(stream, pcm)]


def test_a_spoken_count_reaches_the_table(sphinx: SphinxEngine) -> None:
    """The way from the audio to the table, not accuracy: what the engine makes of the
    clip (decoded on its own by a fresh engine) is read back and typed for the table."""
    from narrator.listen.engine import ModelLoader

    lexicon = lexicon_for(sphinx.lang)
    prompt = count_prompt(Tag(day(1), "vote", 4), 9)
    pcm = silence(0.3) + spoken(sphinx.lang, lexicon.number_word(9))
    texts = decoded(SphinxEngine.load(sphinx.lang), pcm, prompt)
    meant = [a for t in texts if (a := interpret(t, prompt, lexicon).answer) is not None]
    assert meant, f"the engine hears no number in this clip ({texts}): pick another word"
    listener = Listener(FileSource(pcm), ModelLoader(Path("sphinx"), lexicon, sphinx), lexicon)
    screen = Screen()
    keys = VoiceKeys(Keypad(), listener, lexicon, screen, notes=("note",))
    keys.expect(prompt)  # the grammar is open before any audio
    keys.start()
    try:
        got = typed(keys, 60)  # a guard against a hang: it ends at the ENTER
    finally:
        keys.close()
    assert got == meant[0] + ENTER, (got, texts, screen.lines, list(keys.history))
    assert screen.lines[:2] == [lexicon.message("ready"), "note"]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_mic_test_from_a_file(lang: str, tmp_path: Path) -> None:
    from narrator.listen.commands import mic_test

    lexicon = lexicon_for(lang)
    audio = silence(0.5) + b"".join(
        spoken(lang, lexicon.number_word(n)) + silence(0.4) for n in range(1, 11)
    )
    out = io.StringIO()
    seconds = len(audio) / 2 / RATE
    source = FileSource(audio)
    assert (
        mic_test(
            lang,
            None,
            None,
            out,
            source=source,
            level_s=0.5,
            listen_s=seconds,
            folder=tmp_path,
            asr="sphinx",
        )
        == 0
    )
    text = out.getvalue()
    assert "loading sphinx" in text and "with sphinx" in text
    assert lexicon.message("experimental", engine="sphinx") in text  # both languages
    right = int(text.split("accuracy: ")[1].split(" of 10")[0])
    assert right >= (6 if lang == "en" else 4), text  # measured: 9 and 7
    # The level check read only silence: the voice is judged by the counting too.
    assert "the voice is quiet" not in text, text


# --- live: a day vote through the PulseAudio virtual microphone (plumbing) -------------------


@pytest.mark.parametrize(
    "lang",
    [
        "en",
        # The default tier hears pocketsphinx through the microphone once (in English); the
        # Russian model decodes files there (test_clean_answers_are_heard, test_mic_test_...).
        pytest.param("ru", marks=pytest.mark.slow),
    ],
)
def test_a_day_vote_by_voice_with_no_download(
    lang: str, pulse_audio: dict[str, str], tmp_path: Path
) -> None:
    """As ``play --input voice --asr sphinx`` builds it: the engine with no download."""
    from narrator.rules.answers import CountAnswer
    from narrator.voice.catalog import load_catalog
    from tests.support import espeak_cache

    lexicon = lexicon_for(lang)
    catalog = load_catalog(lang)
    cache = espeak_cache(lang, tmp_path / "speech")
    render_the_day(catalog, cache)
    thanks, eight = spoken(lang, lexicon.thanks[0]), spoken(lang, lexicon.number_word(8))
    screen = Screen()
    keys = open_voice_keys(
        Keypad(), lang, None, None, screen, models_dir=tmp_path / "models", asr="sphinx"
    )
    answers, _ = vote_by_voice(
        keys,
        screen,
        catalog,
        cache,
        vote=count_prompt(Tag(day(1), "vote", 4), 9),
        answer_s=15.0,
        speak=lambda: speak_at_the_vote(keys, thanks, eight, pulse_audio, tmp_path, 30),
    )
    heard = [(u.text, h) for u, h in keys.history]
    assert heard, screen.lines  # speech went through the virtual microphone to the recogniser
    assert len(answers) == 2 and isinstance(answers[1], CountAnswer), answers
    assert lexicon.message("ready") in screen.lines, screen.lines
    experimental = lexicon.message("experimental", engine="sphinx")
    assert experimental in screen.lines  # pocketsphinx says so in both languages
    for _, h in heard:  # whatever was understood was typed for the table
        if h.answer is not None:
            assert answers[1] == CountAnswer(int(h.answer)), (heard, answers)
