"""``scripts/asr_judge.py``: the score is pure and tested here; the recogniser only when installed.

The recogniser needs the ``bench`` extra (faster-whisper and the two wheels that
carry Whisper base); without it that test is skipped, saying so. Nothing is
downloaded: the model is joined from the installed wheels into a temp folder.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.support import load_script

judge = load_script("asr_judge")


@pytest.mark.parametrize(
    ("lang", "text", "normal"),
    [
        ("ru", "Игрок номер 5, откройте глаза!", "игрок номер пять откройте глаза"),
        ("ru", "Ещё раз… «Ночь оборотня»", "еще раз ночь оборотня"),
        ("ru", "ИГРОК №12", "игрок номер двенадцать"),
        ("ru", "На счёт «три» — раз,  два,\nтри!", "на счет три раз два три"),
        ("en", "Player number 21, open your eyes.", "player number twenty one open your eyes"),
        ("en", "Let's vote — now!", "lets vote now"),
        ("ru", "Слово игроку No. 3", "слово игроку номер три"),
        ("en", "Player No. 5", "player number five"),
        ("en", "No. No, wait.", "no no wait"),
        ("en", "  ", ""),
    ],
)
def test_normalise_lowers_spells_numbers_and_drops_punctuation(
    lang: str, text: str, normal: str
) -> None:
    assert judge.normalise(text, lang) == normal


def test_the_numbers_are_spelled_the_way_the_narrator_says_them() -> None:
    assert judge.normalise("Карт в центре: 3", "ru") == judge.normalise("карт в центре три", "ru")
    assert judge.normalise("twenty-one", "en") == judge.normalise("21", "en")


def test_edit_distance_counts_insertions_deletions_and_substitutions() -> None:
    assert judge.edit_distance("", "") == 0
    assert judge.edit_distance("глаза", "глаза") == 0
    assert judge.edit_distance("глаза", "глаз") == 1
    assert judge.edit_distance("kitten", "sitting") == 3
    assert judge.edit_distance("", "abc") == 3


def test_score_is_the_character_error_rate_after_normalising() -> None:
    same = judge.score("Игрок номер 5.", "игрок номер пять", "ru")
    assert (same.edits, same.cer) == (0, 0.0)
    wrong = judge.score("Оборотни засыпают!", "Обратни засыпают.", "ru")
    assert wrong.length == len("оборотни засыпают")
    assert wrong.edits == 2
    assert wrong.cer == pytest.approx(2 / 17)
    assert judge.score("", "", "en").cer == 0.0
    assert judge.score("", "noise", "en").cer == 1.0
    # A recogniser stuck in a loop says more than was said: the rate passes 1.
    assert judge.score("Сон.", "сон сон сон", "ru").cer > 1


def test_corpus_cer_weighs_each_line_by_its_length() -> None:
    long = judge.score("a" * 90, "a" * 90, "en")
    short = judge.score("b" * 10, "", "en")
    assert judge.corpus_cer([long, short]) == pytest.approx(0.1)
    assert judge.corpus_cer([]) == 0.0


def test_a_run_of_words_placed_after_the_speech_ended_is_not_heard() -> None:
    said = [(" Игроки", 0.0, 0.6), (" 1,", 0.7, 1.0), (" 7,", 1.1, 1.4)]
    loop = [(" 9,", 1.45, 1.45), (" 10,", 1.45, 1.45), (" 10", 1.45, 1.45)]
    assert judge.within_the_audio([*said, *loop]) == said
    squeezed = [*said, (" три", 1.45, 1.45)]  # one last word the alignment left no room
    assert judge.within_the_audio(squeezed) == squeezed
    inside = [(" 9,", 0.5, 0.5), (" 9,", 0.5, 0.5), *said]  # only a run at the end is cut
    assert judge.within_the_audio(inside) == inside
    assert judge.within_the_audio([]) == []


def test_the_judge_hears_a_clear_line(tmp_path: Path) -> None:
    missing = judge.is_installed()
    if missing is not None:
        pytest.skip(f"the speech recogniser of the voice benchmark is absent: {missing}")
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    wav = subprocess.run(
        [espeak, "-v", "en-us", "--stdout", "Player number five, open your eyes."],
        capture_output=True,
        check=True,
    ).stdout
    samples, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
    listener = judge.Judge(folder=tmp_path / "whisper-base", threads=1)
    assert judge.sha256(tmp_path / "whisper-base" / "model.bin") == judge.SHA256["model.bin"]
    result = listener.score(
        "Player number 5, open your eyes.", np.asarray(samples), int(rate), "en"
    )
    assert result.cer <= 0.1, result
