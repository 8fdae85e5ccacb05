#!/usr/bin/env python3
"""Write the listening corpus as WAV files with a manifest (``narrator.listen.corpus``).

    .venv/bin/python scripts/make_corpus.py OUT                # both languages, everything
    .venv/bin/python scripts/make_corpus.py OUT --langs en --clean

Every answer phrase and the chatter of each language, by the corpus voices
(the held-out half by default; ``--tune``: the tuning half; ``--all``: both),
at 150 words per minute, clean, in a room (reverberation), with a babble of
table talk at 20 and 10 dB and with the knock bed at 10 dB: 16 kHz mono 16-bit
WAV files and ``manifest.jsonl`` (one line per clip: id, file, language,
text, prompt, expected answer, group, voice, speed, noise, SNR, and where the
speech ends). The tests and the benchmark do not need these files: they
render the same clips (cached) and mix them in memory.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.listen import corpus


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the WAV files and manifest.jsonl")
    parser.add_argument("--langs", default="ru,en")
    parser.add_argument("--clean", action="store_true", help="clean clips only")
    half = parser.add_mutually_exclusive_group()
    half.add_argument("--tune", action="store_true", help="the tuning voices")
    half.add_argument("--all", action="store_true", help="the tuning and held-out voices")
    args = parser.parse_args()
    conditions = [corpus.CLEAN] if args.clean else corpus.all_conditions()
    voices = (
        corpus.ALL_VOICES
        if args.all
        else corpus.TUNE_VOICES
        if args.tune
        else corpus.HELD_OUT_VOICES
    )
    clips = [
        clip
        for lang in args.langs.split(",")
        for clip in corpus.clips(lang, voices=voices[lang], speeds=(150,), conditions=conditions)
    ]
    manifest = corpus.Corpus().write(args.out, clips)
    print(f"{len(clips)} clips and {manifest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
