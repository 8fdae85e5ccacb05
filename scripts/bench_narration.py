#!/usr/bin/env python3
"""Benchmark of the narration file formats: size, encoding cost, what reads back.

Renders one demo game on the virtual clock with real speech (as ``narrator demo``
does), keeps the mix in memory, then writes it once per format through the same
writer the program uses, in the blocks the program writes (10 ms), and reads each
file back. ``--minutes`` repeats the game's mix up to that length, to try the
encoders on a long file. Prints a table:

    format  MB/minute  encode s per audio minute (CPU)  size vs WAV  read back (SNR)

    .venv/bin/python scripts/bench_narration.py [--game sport_mafia] [--lang ru] [--minutes 30]
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from narrator.demo import render_offline  # noqa: E402
from narrator.host.terminal import Terminal  # noqa: E402
from narrator.prepared import prepare  # noqa: E402
from narrator.settings import TableSettings  # noqa: E402
from narrator.sound.clip import MIX_RATE  # noqa: E402
from narrator.sound.clip import Samples  # noqa: E402
from narrator.sound.narration import FORMATS  # noqa: E402
from narrator.sound.narration import NarrationFile  # noqa: E402
from narrator.sound.narration import NarrationFormat  # noqa: E402
from narrator.sound.output import BLOCK  # noqa: E402
from narrator.speaking import speech_source  # noqa: E402


def render_demo(game: str, lang: str, seed: int, records: Path) -> Samples:
    """The mix of one demo game (the CLI's demo settings), in memory."""
    settings = TableSettings(
        game=game, lang=lang, seed=seed, answer_s=10.0, demo=True, record_dir=records, voice="auto"
    )
    prepared = prepare(settings)
    source = speech_source(settings, game, progress=None)
    screen = Terminal(out=io.StringIO(), private=io.StringIO())
    rendered = render_offline(settings, prepared, source, screen, keep_audio=True)
    return rendered.output.samples()


def encode(samples: Samples, path: Path) -> float:
    """CPU seconds to write ``samples`` to ``path`` in the program's blocks."""
    start = time.process_time()
    file = NarrationFile.open(path, MIX_RATE)
    for first in range(0, len(samples), BLOCK):
        file.write(samples[first : first + BLOCK])
    file.close()
    return time.process_time() - start


def read_back(samples: Samples, path: Path) -> str:
    """Whether the file holds the mix: every frame, and how close (signal to error)."""
    import soundfile

    back, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    if rate != MIX_RATE or back.shape != samples.shape:
        return f"WRONG: {back.shape} at {rate} Hz, expected {samples.shape}"
    error = float(np.mean(np.square(back - samples)))
    snr = 10 * np.log10(float(np.mean(np.square(samples))) / max(error, 1e-20))
    return f"all frames, SNR {snr:.0f} dB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="sport_mafia")
    parser.add_argument("--lang", default="ru", choices=["ru", "en"])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument(
        "--minutes", type=float, default=None, help="repeat the mix up to this length"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        samples = render_demo(args.game, args.lang, args.seed, Path(folder))
        if args.minutes is not None:
            frames = round(args.minutes * 60 * MIX_RATE)
            samples = np.resize(samples, (frames, samples.shape[1]))
        minutes = len(samples) / MIX_RATE / 60
        print(
            f"{args.game} ({args.lang}, seed {args.seed}): {minutes:.2f} minutes of 48 kHz stereo"
        )
        print(f"{'format':<8} {'MB/minute':>10} {'encode s/min':>13} {'vs WAV':>8}  read back")
        rows: list[tuple[str, float, float, str]] = []
        suffixes: dict[NarrationFormat, str] = {}  # one suffix per format (.ogg, not .oga)
        for suffix, kind in FORMATS.items():
            suffixes.setdefault(kind, suffix)
        for suffix in suffixes.values():
            path = Path(folder) / f"narration{suffix}"
            cpu = encode(samples, path)
            mb = path.stat().st_size / 1e6
            rows.append((suffix, mb / minutes, cpu / minutes, read_back(samples, path)))
            path.unlink()
        wav = next(row[1] for row in rows if row[0] == ".wav")
        for name, per_minute, cpu, back in rows:
            print(f"{name:<8} {per_minute:>10.2f} {cpu:>13.3f} {per_minute / wav:>8.3f}  {back}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
