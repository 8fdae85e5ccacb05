"""``narrator hear``: recordings decoded as a live game decodes them, through the real CLI.

The speech is the corpus's own (``narrator.listen.corpus``), written as WAV, FLAC and
Ogg and heard by pocketsphinx (always installed). What the command gives is compared
with what the corpus's own streaming (``corpus.hear``: the listener's grammar,
endpointer and stream) gives for the same audio, so the test checks that the command is
the live path, not how well the recogniser hears. Bad input is one line and exit code 2.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import soundfile

from narrator.listen import corpus
from narrator.listen.engine import RATE
from narrator.listen.sphinx_asr import SphinxEngine
from narrator.listen.words import ARMED_S
from narrator.listen.words import lexicon_for
from tests.support import run_cli

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 60
BANK = corpus.Corpus()
VOICE = "hibari:heart"  # heard right by pocketsphinx, and rendered the same every time
FORMATS = ("wav", "flac", "ogg")
KEYS = {"file", "heard", "answer", "understood", "latency_s"}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("hear", *args, timeout=TIMEOUT_S)


def _clip(text: str, prompt: str) -> corpus.Clip:
    return corpus.Clip(corpus.Phrase("en", text, prompt, None, "test"), VOICE, corpus.SPEEDS[0])


def _write(folder: Path, name: str, clip: corpus.Clip, formats: tuple[str, ...]) -> list[Path]:
    samples = np.frombuffer(BANK.pcm(clip), dtype=np.int16)
    paths = [folder / f"{name}.{ending}" for ending in formats]
    for path in paths:
        soundfile.write(str(path), samples, RATE)
    return paths


def _json_lines(done: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _reference(clip: corpus.Clip, times: int) -> list[list[str]]:
    """What the live path's streaming gives, ``times`` over with one fresh engine (the
    command, too, hears its files one after another with one engine)."""
    engine = SphinxEngine.load("en")
    engine.check(lexicon_for("en"))
    return [corpus.hear(engine, BANK, clip) for _ in range(times)]


def _one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, f"exit {done.returncode}: {done.stdout}{done.stderr}"
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {done.stderr!r}"
    for word in words:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
    assert not done.stdout.strip(), "nothing decoded when any input is bad"
    return lines[0]


def test_a_seat_number_is_heard_as_the_live_path_hears_it_in_every_format(
    tmp_path: Path,
) -> None:
    clip = _clip("seven", "seat")
    paths = _write(tmp_path, "seven", clip, FORMATS)
    found = _json_lines(
        _cli(*map(str, paths), "--lang", "en", "--answer", "seat", "--asr", "sphinx", "--json")
    )
    assert [set(row) for row in found] == [KEYS] * 3
    assert [row["file"] for row in found] == [str(p) for p in paths]
    # WAV and FLAC are lossless: exactly the corpus's audio, so exactly its texts.
    reference = _reference(clip, 2)
    assert [row["heard"] for row in found[:2]] == [" ".join(texts) for texts in reference]
    assert corpus.outcome(corpus.Phrase("en", "seven", "seat", "7", "numbers"), reference[0]) == (
        "right"
    )
    for row in found:
        assert row["answer"] == "7"  # the keypad's form: what the table's seat prompt takes
        assert row["understood"] is True
        latency = row["latency_s"]
        assert isinstance(latency, float)
        assert 0.2 <= latency < 2.0  # the endpointer's 0.3 s of silence, then the decode


def test_the_human_line_names_the_file_what_was_heard_and_the_answer(tmp_path: Path) -> None:
    (path,) = _write(tmp_path, "seven", _clip("seven", "seat"), ("wav",))
    done = _cli(str(path), "--lang", "en", "--answer", "seat", "--asr", "sphinx")
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert line.startswith(f"{path}: heard «seven» → 7 (")
    assert line.endswith(" s)")


def test_chatter_is_not_understood(tmp_path: Path) -> None:
    clip = _clip("well i do not know", "seat")
    paths = _write(tmp_path, "chatter", clip, ("flac",))
    (row,) = _json_lines(
        _cli(*map(str, paths), "--lang", "en", "--answer", "seat", "--asr", "sphinx", "--json")
    )
    (reference,) = _reference(clip, 1)
    assert row["heard"] == " ".join(reference)
    assert row["answer"] is None
    assert row["understood"] is False


def test_a_nomination_gives_the_seat(tmp_path: Path) -> None:
    clip = _clip("i nominate player number seven", "nominate")
    paths = _write(tmp_path, "nominate", clip, ("ogg",))
    (row,) = _json_lines(
        _cli(*map(str, paths), "--lang", "en", "--answer", "nominate", "--asr", "sphinx", "--json")
    )
    assert row["answer"] == "7"
    assert row["understood"] is True
    # Said with no nomination phrase, at a seat question, the same words are no answer
    # at a nomination: talk about seven is not a nomination.
    bare = _write(tmp_path, "bare", _clip("seven", "seat"), ("wav",))
    (talk,) = _json_lines(
        _cli(*map(str, bare), "--lang", "en", "--answer", "nominate", "--asr", "sphinx", "--json")
    )
    assert talk["answer"] is None


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.wav"
    os.mkfifo(path)
    return path


def _big(tmp_path: Path) -> Path:
    path = tmp_path / "big.wav"
    with path.open("wb") as sparse:
        sparse.truncate(51 * 1024 * 1024)  # no bytes written: refused by its size alone
    return path


def _text(tmp_path: Path) -> Path:
    path = tmp_path / "notes.wav"
    path.write_text("not a sound at all\n", encoding="utf-8")
    return path


def _hours_of_silence(tmp_path: Path) -> Path:
    """An audio bomb: 11 minutes of stereo silence compress to about 120 KB of FLAC,
    and would decode to 200 MB of samples."""
    path = tmp_path / "long.flac"
    with soundfile.SoundFile(str(path), "w", 48000, 2, format="FLAC") as sound:
        for _ in range(11):
            sound.write(np.zeros((48000 * 60, 2), dtype=np.int16))
    return path


BAD_FILES: dict[str, tuple[Callable[[Path], Path], tuple[str, ...]]] = {
    "missing": (lambda tmp: tmp / "nowhere.wav", ("nowhere.wav", "cannot read")),
    "folder": (lambda tmp: tmp, ("a folder",)),
    "fifo": (_fifo, ("pipe.wav", "named pipe")),
    "too large": (_big, ("big.wav", "50 MB")),
    "not audio": (_text, ("notes.wav", "not a sound file")),
    "too long": (_hours_of_silence, ("long.flac", "longer than 10 minutes")),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_bad_file_is_one_line_and_nothing_is_decoded(tmp_path: Path, case: str) -> None:
    make, words = BAD_FILES[case]
    (good,) = _write(tmp_path, "seven", _clip("seven", "seat"), ("wav",))
    bad = make(tmp_path)
    done = _cli(str(good), str(bad), "--lang", "en", "--answer", "seat", "--asr", "sphinx")
    _one_line_error(done, *words)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--lang", "en", "--answer", "shout"), ("--answer", "shout")),
        (("--lang", "en", "--answer", "seat", "--asr", "nosuch"), ("--asr", "nosuch")),
        (("--lang", "ru", "--answer", "seat", "--asr", "whisper"), ("only English",)),
    ],
)
def test_a_bad_flag_is_one_line(tmp_path: Path, flags: tuple[str, ...], words: tuple[str]) -> None:
    (good,) = _write(tmp_path, "seven", _clip("seven", "seat"), ("wav",))
    _one_line_error(_cli(str(good), *flags), *words)


def test_thanks_ends_a_speech_as_the_keypad_s_empty_enter(tmp_path: Path) -> None:
    paths = _write(tmp_path, "thanks", _clip("thank you", "speech"), ("wav",))
    (row,) = _json_lines(
        _cli(*map(str, paths), "--lang", "en", "--answer", "thanks", "--asr", "sphinx", "--json")
    )
    assert (row["heard"], row["answer"], row["understood"]) == ("thank you", "", True)


def test_a_nomination_phrase_then_the_number_after_a_pause_counts_within_armed_s(
    tmp_path: Path,
) -> None:
    """«i nominate player number», a pause, «seven»: two utterances, taken together as the
    table takes them when the number comes within ``ARMED_S`` (of audio), not after."""
    lead = BANK.audio(_clip("i nominate player number", "nominate"))
    number = BANK.audio(_clip("seven", "nominate"))
    paths = []
    for name, pause_s in (("soon", 0.5), ("late", ARMED_S + 1.0)):
        path = tmp_path / f"{name}.wav"
        pause = np.zeros(int(pause_s * RATE), dtype=np.float32)
        soundfile.write(str(path), np.concatenate([lead, pause, number]), RATE)
        paths.append(str(path))
    soon, late = _json_lines(
        _cli(*paths, "--lang", "en", "--answer", "nominate", "--asr", "sphinx", "--json")
    )
    assert soon["heard"] == late["heard"] == "i nominate player number seven"
    assert (soon["answer"], late["answer"]) == ("7", None)
