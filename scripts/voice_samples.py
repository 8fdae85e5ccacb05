#!/usr/bin/env python3
"""Render the README's voice samples: a few lines of each language's default voice, as Ogg.

Each sample is four catalog lines said by the voice ``SpeechCache(lang)`` chooses
(the best installed one, as a game would speak), levelled by the cache like every
line of a game, with a pause between lines, written through the narration writer
as Ogg Vorbis: ``docs/samples/ru.ogg`` and ``docs/samples/en.ogg``, and the text of
both in ``docs/samples/README.md``. Run it again when a voice, the pronunciation
or the levelling changes:

    .venv/bin/python scripts/voice_samples.py [--lang ru] [--out docs/samples]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from narrator.sound.clip import Clip  # noqa: E402
from narrator.sound.narration import NarrationFile  # noqa: E402
from narrator.voice.catalog import load_catalog  # noqa: E402
from narrator.voice.tts import SpeechCache  # noqa: E402

# Night falls, a seat is called at the deal (a number), two seed phrases.
LINES: tuple[tuple[str, dict[str, object]], ...] = (
    ("onenight.night", {}),
    ("deal.call", {"seat": 7}),
    ("onenight.hi_wake", {}),
    ("onenight.morning", {}),
)
PAUSE_S = 0.7
LEAD_S = 0.3
RATE = 24000  # hibari's own rate; Festival's 16 kHz is raised to it


def sample_lines(lang: str) -> list[str]:
    catalog = load_catalog(lang)
    return [catalog.text(key, params) for key, params in LINES]


def render(lang: str, texts: Sequence[str], cache_folder: Path) -> tuple[Clip, str]:
    """The lines said one after another by the default voice; the voice's name."""
    cache = SpeechCache(lang, folder=cache_folder)
    pause = np.zeros((round(PAUSE_S * RATE), 1), dtype=np.float32)
    lead = np.zeros((round(LEAD_S * RATE), 1), dtype=np.float32)
    pieces = [lead]
    for text in texts:
        pieces += [cache.clip(text).to(RATE, 1).samples, pause]
    return Clip(np.concatenate(pieces), RATE), cache.voice.key


def write(clip: Clip, path: Path) -> None:
    file = NarrationFile.open(path, clip.rate, channels=1)
    try:
        file.write(np.clip(clip.samples, -1.0, 1.0))
    finally:
        file.close()


def readme(samples: Sequence[tuple[str, str, float, list[str]]]) -> str:
    rows = [
        "# Voice samples",
        "",
        "What the narrator sounds like out of the box: each language's default voice",
        "(the best one installed, see `narrator voices`), four lines of a game, levelled as",
        "in a game. Rendered by `scripts/voice_samples.py`; run it again after a change to",
        "the voices, the pronunciation files or the levelling.",
        "",
    ]
    for lang, voice, seconds, texts in samples:
        name = {"ru": "Russian", "en": "English"}.get(lang, lang)
        rows += [f"## {name}: [{lang}.ogg]({lang}.ogg)", "", f"`{voice}`, {seconds:.0f} s:", ""]
        rows += [f"1. {text}" for text in texts]
        rows.append("")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=["ru", "en"], action="append", help="default: both")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "samples")
    args = parser.parse_args(argv)
    made: list[tuple[str, str, float, list[str]]] = []
    with tempfile.TemporaryDirectory(prefix="voice-samples-") as scratch:
        for lang in args.lang or ["ru", "en"]:
            texts = sample_lines(lang)
            clip, voice = render(lang, texts, Path(scratch))
            path = args.out / f"{lang}.ogg"
            write(clip, path)
            made.append((lang, voice, clip.seconds, texts))
            size = path.stat().st_size / 1000
            print(f"{path.name}: {voice}, {clip.seconds:.1f} s, {size:.0f} kB")
    if not args.lang:
        (args.out / "README.md").write_text(readme(made), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
