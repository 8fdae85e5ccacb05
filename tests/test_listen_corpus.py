"""The listening corpus itself (no decoding): its voice halves, conditions and phrases.

The corpus (``narrator.listen.corpus``) is what the recognition tests and the
benchmark measure: its held-out voices must be kept apart from the tuning
ones, every condition must give the same audio every time, and its chatter
must hold talk with numbers in it that no answer may be taken from.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from narrator.listen import corpus
from narrator.listen.engine import RATE
from narrator.listen.words import lexicon_for

BANK = corpus.Corpus()


def one_clip(lang: str = "en", voice: str = "espeak:gmw/en-us") -> corpus.Clip:
    phrase = next(p for p in corpus.phrases(lang) if p.group == "numbers")
    return corpus.Clip(phrase, voice, 150)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_held_out_voices_are_not_the_tuning_ones(lang: str) -> None:
    tune, held_out = corpus.TUNE_VOICES[lang], corpus.HELD_OUT_VOICES[lang]
    assert not set(tune) & set(held_out)
    assert len(set(tune)) == len(tune) >= 4 and len(set(held_out)) == len(held_out) >= 4
    assert len(corpus.ALL_VOICES[lang]) >= 8
    assert set(corpus.VOICES[lang]) <= set(tune)  # the tests' voices tune, never report
    for voice in corpus.ALL_VOICES[lang]:
        corpus.parse_voice(voice)  # every shift is well formed
        assert "," not in voice  # the benchmark's --voices is a comma-separated list


def test_a_voice_id_names_its_shifts() -> None:
    assert corpus.parse_voice("espeak:zle/ru") == ("espeak:zle/ru", 0.0, 0.0)
    assert corpus.parse_voice("festival:msu_ru_nsh_clunits@pitch-3@tempo+10") == (
        "festival:msu_ru_nsh_clunits",
        -3.0,
        10.0,
    )
    with pytest.raises(ValueError, match="pitch"):
        corpus.parse_voice("espeak:zle/ru@loud+3")


def pitch(x: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.argmax(spectrum)) * RATE / len(x)


def test_a_pitch_shift_keeps_the_pace_and_a_tempo_shift_the_pitch() -> None:
    t = np.arange(RATE) / RATE
    tone = (0.5 * np.sin(2 * np.pi * 200 * t)).astype(np.float32)
    up = corpus.shifted(tone, 12.0, 0.0)
    assert len(up) == pytest.approx(len(tone), rel=0.01)
    assert pitch(up) == pytest.approx(400, rel=0.03)
    faster = corpus.shifted(tone, 0.0, 25.0)
    assert len(faster) == pytest.approx(len(tone) / 1.25, rel=0.01)
    assert pitch(faster) == pytest.approx(200, rel=0.03)


@pytest.mark.parametrize(
    "condition", corpus.all_conditions(), ids=lambda c: corpus.condition_name(*c)
)
def test_every_condition_gives_the_same_audio_every_time(
    condition: tuple[str, float | None],
) -> None:
    clip = dataclasses.replace(one_clip(), noise=condition[0], snr=condition[1])
    first = BANK.pcm(clip)
    corpus._speech.cache_clear()  # again from the files rendered, the noises made anew
    corpus._babble.cache_clear()
    corpus.knock_bed.cache_clear()
    corpus.room_response.cache_clear()
    assert BANK.pcm(clip) == first
    speech = BANK.speech("en", clip.phrase.text, clip.voice, 150)
    lead, tail = int(clip.lead_s * RATE), int(corpus.TAIL_S * RATE)
    assert len(first) == 2 * (lead + len(speech) + tail)


def test_room_and_babble_change_the_audio() -> None:
    clean = BANK.audio(one_clip())
    room = BANK.audio(dataclasses.replace(one_clip(), noise="room"))
    assert len(room) == len(clean)
    assert float(np.corrcoef(clean, room)[0, 1]) < 0.9  # the reverberation smears it
    # After the phrase, the room rings on where the clean clip is silent.
    end = int(BANK.speech_end(one_clip()) * RATE)
    after = slice(end + RATE // 20, end + RATE // 5)
    assert np.sqrt(np.mean(room[after] ** 2)) > 10 * np.sqrt(np.mean(clean[after] ** 2))
    for snr in (20.0, 10.0):
        clip = dataclasses.replace(one_clip(), noise="babble", snr=snr)
        babble = BANK.audio(clip)
        lead = babble[: int(corpus.NOISE_LEAD_S * RATE)]  # talk before the phrase
        assert np.sqrt(np.mean(lead**2)) > 10 * corpus.FLOOR
    quiet = BANK.audio(dataclasses.replace(one_clip(), noise="babble", snr=20.0))
    loud = BANK.audio(dataclasses.replace(one_clip(), noise="babble", snr=10.0))
    before = slice(0, int(corpus.NOISE_LEAD_S * RATE))
    assert np.sqrt(np.mean(loud[before] ** 2)) > 2 * np.sqrt(np.mean(quiet[before] ** 2))


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_chatter_with_numbers_is_in_the_corpus_and_taking_it_is_an_accept(lang: str) -> None:
    found = [p for p in corpus.phrases(lang) if p.group == "number chatter"]
    assert len(found) >= 4 and all(p.chatter and p.prompt == "seat" for p in found)
    lexicon = lexicon_for(lang)
    numbers = set(lexicon.numbers)
    assert sum(bool(numbers & set(p.text.split())) for p in found) >= 3
    chatter = found[0]
    assert corpus.outcome(chatter, lexicon.number_word(7)) == "accepted"
    assert corpus.outcome(chatter, ["[unk]", lexicon.number_word(3)]) == "accepted"
    assert corpus.outcome(chatter, ["[unk]"]) == "rejected"
    assert corpus.outcome(chatter, None) == "rejected"
    # Heard word for word, talk with a number in it is no answer: the grammar rejects it.
    for phrase in found:
        assert corpus.outcome(phrase, phrase.text.replace(",", "")) == "rejected", phrase.text


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_seat_with_its_carrier_words_is_that_seat(lang: str) -> None:
    found = [p for p in corpus.phrases(lang) if p.group == "seat phrases"]
    assert len(found) >= 4
    for phrase in found:
        assert corpus.outcome(phrase, phrase.text) == "right", phrase.text
    seven = found[0]
    assert corpus.outcome(seven, lexicon_for(lang).number_word(8)) == "wrong"
    assert corpus.outcome(seven, "[unk]") == "none"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_first_phrases_keep_their_order(lang: str) -> None:
    """Tests pick clips by index: new phrases come after the old ones."""
    groups = [p.group for p in corpus.phrases(lang)]
    first = groups.index("chatter")
    assert groups[:13] == ["numbers"] * 13
    assert set(groups[first : first + len(corpus.CHATTER[lang])]) == {"chatter"}
    assert groups[first + len(corpus.CHATTER[lang]) :] == sorted(
        groups[first + len(corpus.CHATTER[lang]) :], key=["seat phrases", "number chatter"].index
    )


def test_the_benchmark_takes_the_held_out_voices_and_the_four_conditions() -> None:
    clips = corpus.clips(
        "en", voices=corpus.HELD_OUT_VOICES["en"], speeds=(150,), conditions=corpus.CONDITIONS
    )
    assert {c.condition for c in clips} == {"clean", "room", "babble 20 dB", "babble 10 dB"}
    assert {c.voice for c in clips} == set(corpus.HELD_OUT_VOICES["en"])
    assert len(clips) == 4 * len(corpus.HELD_OUT_VOICES["en"]) * len(corpus.phrases("en"))
