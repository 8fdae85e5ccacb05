"""A voice pack's parts said inside their lines: hibari's phoneme durations and the cut.

Said on its own, «Player number» is a whole sentence with a falling end; cut out
of «Player number 1, open your eyes…» it keeps the pace and tune of a line's
start (``Part.context``, ``SpeechCache.clip_in``, ``HibariEngine.synthesize_span``).
Everything here runs the real hibari model.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from narrator.sound.clip import Clip
from narrator.voice import voices
from narrator.voice.engines import SpanEngine
from narrator.voice.engines import VoiceInfo
from narrator.voice.engines.hibari import DURATIONS
from narrator.voice.engines.hibari import SPAN_MARGIN_S
from narrator.voice.engines.hibari import HibariEngine
from narrator.voice.engines.hibari import with_output
from narrator.voice.splice import NUMBER_CARRIER
from narrator.voice.splice import ROLE_CARRIER
from narrator.voice.splice import _sentence
from narrator.voice.splice import pack_parts
from narrator.voice.splice import templates
from narrator.voice.tts import SpeechCache
from narrator.voice.voices import choose_voice

BEFORE, WORDS, AFTER = "Player number", "five", ", open your eyes and look at your card."
SENTENCE = "Player number five, open your eyes and look at your card."


def mono(clip: Clip) -> np.ndarray:
    """The samples of a clip hibari handed over: mono, at its 24 kHz."""
    assert clip.rate == 24000 and clip.channels == 1
    return clip.samples[:, 0]


@pytest.fixture(scope="module")
def hibari() -> HibariEngine:
    engine = voices.engine("hibari")
    assert isinstance(engine, HibariEngine)
    return engine


def heart() -> VoiceInfo:
    return choose_voice("en", "hibari:heart")


def test_the_durations_become_an_output_and_nothing_else_changes() -> None:
    ort = importlib.import_module("onnxruntime")
    voices = importlib.import_module("hibari.voices")
    raw = Path(voices.voice_path("heart", download_missing=False)).read_bytes()
    plain = ort.InferenceSession(raw, providers=["CPUExecutionProvider"])
    timed = ort.InferenceSession(with_output(raw, DURATIONS), providers=["CPUExecutionProvider"])
    assert [o.name for o in timed.get_outputs()] == [
        *(o.name for o in plain.get_outputs()),
        DURATIONS,
    ]
    ids = np.asarray([[0, 50, 83, 156, 0]], np.int64)
    speed = np.asarray([1.0], np.float32)
    before, after = (
        plain.run(None, {"ids": ids, "speed": speed}),
        timed.run(None, {"ids": ids, "speed": speed}),
    )
    for old, new in zip(before, after[:-1], strict=True):
        np.testing.assert_array_equal(old, new)
    durations = after[-1].ravel()
    assert durations.size == ids.size  # one per phoneme id, the pads included
    assert after[0].shape[-1] == 2 * int(durations.sum())  # two frames per unit


def test_a_part_is_the_very_audio_of_its_words_in_the_sentence(
    hibari: HibariEngine,
) -> None:
    assert isinstance(hibari, SpanEngine)
    whole = mono(hibari.synthesize(SENTENCE, heart(), 170))
    five = mono(hibari.synthesize_span(BEFORE, WORDS, AFTER, heart(), 170))
    alone = mono(hibari.synthesize(WORDS, heart(), 170))
    # The same phonemes with the same noise seed: the cut is a slice of the sentence.
    starts = [
        i
        for i in np.flatnonzero(whole == five[0])
        if i + five.size <= whole.size and np.array_equal(whole[i : i + five.size], five)
    ]
    assert len(starts) == 1, "the cut is not one stretch of the sentence"
    start_s, seconds = starts[0] / 24000, five.size / 24000
    assert 0.6 < start_s < 1.2  # after «Player number» (and the model's lead-in)
    assert start_s + seconds < whole.size / 24000 * 0.5  # well before «…your card»
    # «five» and its two margins: shorter than the word said as a sentence, with its
    # silence at both ends.
    assert 2 * SPAN_MARGIN_S + 0.15 < seconds < alone.size / 24000
    assert np.sqrt(np.mean(np.square(five))) > 0.02


def test_without_durations_a_part_is_said_on_its_own() -> None:
    engine = HibariEngine()
    alone = engine.synthesize(WORDS, heart(), 170)
    engine._timed["heart"] = None  # a model with no duration tensor
    span = engine.synthesize_span(BEFORE, WORDS, AFTER, heart(), 170)
    np.testing.assert_array_equal(mono(span), mono(alone))


def test_a_sentence_too_long_for_one_pass_is_said_on_its_own(
    hibari: HibariEngine,
) -> None:
    long = " ".join(["open your eyes and look at your card"] * 30)
    span = hibari.synthesize_span(long, WORDS, ".", heart(), 170)
    alone = hibari.synthesize(WORDS, heart(), 170)
    np.testing.assert_array_equal(mono(span), mono(alone))


# --- the lines the parts are said in ---------------------------------------------------------


def test_each_part_knows_the_line_it_is_said_in() -> None:
    parts = {p.key: p for p in pack_parts("en")}
    assert parts["deal.call#0"].context == ("", " 1, open your eyes and look at your card.")
    assert parts["deal.call#1"].context == ("Player number 1, ", "")
    assert parts["number.5"].context == (
        "Player number ",
        ", open your eyes and look at your card.",
    )
    assert parts["role.werewolf"].context == ("Player number 1: ", ".")
    # Only the sentence the words are in («The table. Players: …. Vampires: ….»).
    assert parts["halloween.table#1"].words == "Vampires"
    assert parts["halloween.table#1"].context == ("", ": 1.")
    # A line said whole has no line around it.
    assert all(p.context is None for p in parts.values() if p.whole and "." not in p.key[:5])
    assert NUMBER_CARRIER in templates("ru") and ROLE_CARRIER in templates("ru")
    ru = {p.key: p for p in pack_parts("ru")}
    assert ru["number.5"].context == ("Игрок номер ", ", откройте глаза и посмотрите свою карту.")


def test_a_cut_keeps_to_its_sentence() -> None:
    assert _sentence("Night. Player number ", ", wake up! Then sleep.") == (
        "Player number ",
        ", wake up!",
    )
    assert _sentence("Dr. Who", "") == ("Who", "")
    assert _sentence("", "") == ("", "")


# --- the cache -------------------------------------------------------------------------------


def test_a_part_in_its_line_is_cached_under_its_line(tmp_path: Path) -> None:
    cache = SpeechCache("en", voice="hibari:heart", folder=tmp_path)
    in_line = cache.clip_in("Player number ", "5", ", open your eyes and look at your card.")
    assert cache.rendered == 1
    again = SpeechCache("en", voice="hibari:heart", folder=tmp_path)
    np.testing.assert_array_equal(
        again.clip_in("Player number ", "5", ", open your eyes and look at your card.").samples,
        in_line.samples,
    )
    assert again.rendered == 0  # read back from its file
    alone = again.clip("5")
    other = again.clip_in("Player number ", "5", " votes.")
    assert again.rendered == 2  # the word alone and in another line are other files
    assert alone.frames != in_line.frames and other.frames != in_line.frames


@pytest.mark.parametrize(
    ("lang", "voice", "before", "after"),
    [
        ("en", "espeak", "Player number ", ", open your eyes."),
        # Festival is not asked to cut: its unit-selection voice picks short, reduced
        # units inside a sentence, and a number cut from there is heard worse (README).
        ("ru", "festival", "Игрок номер ", ", откройте глаза."),
    ],
)
def test_an_engine_that_cannot_cut_says_the_part_alone(
    lang: str, voice: str, before: str, after: str, tmp_path: Path
) -> None:
    cache = SpeechCache(lang, voice=voice, folder=tmp_path)
    assert not isinstance(cache.renderer, SpanEngine)
    in_line = cache.clip_in(before, "5", after)
    np.testing.assert_array_equal(in_line.samples, cache.clip("5").samples)
    assert cache.rendered == 1
