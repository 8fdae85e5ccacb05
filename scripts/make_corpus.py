#!/usr/bin/env python3
"""Write the listening corpus as WAV files with a manifest (``narrator.listen.corpus``).

    .venv/bin/python scripts/make_corpus.py OUT                # both languages, everything
    .venv/bin/python scripts/make_corpus.py OUT --langs en --clean

Every answer phrase and the chatter of each language, by the corpus voices at
its speeds, clean and with the knock bed and babble at 20/10/5 dB: 16 kHz mono
16-bit WAV files and ``manifest.jsonl`` (one line per clip: id, file,
language, text, prompt, expected answer, group, voice, speed, noise, SNR, and
where the speech ends). The tests and the benchmark do not need these files:
they render the same clips (cached) and mix them in memory.
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
    args = parser.parse_args()
    conditions = [("clean", None)] if args.clean else corpus.all_conditions()
    clips = [
        clip for lang in args.langs.split(",") for clip in corpus.clips(lang, conditions=conditions)
    ]
    manifest = corpus.Corpus().write(args.out, clips)
    print(f"{len(clips)} clips and {manifest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
