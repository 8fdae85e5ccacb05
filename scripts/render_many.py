#!/usr/bin/env python3
"""Render many demo games on the virtual clock and report every one that hangs.

Each game draws a variant, a player count, a language, a seed, a length for
every timed switch (wake windows, speeches, timers: 0.05–6 s with 0–3 decimals,
like ``window_s=3.2``) and a day answer time, then plays through the same path
as ``narrator demo GAME --output x.ogg``: demo players, the real mixer, the
offline output and its virtual clock. The mix is rendered and dropped (no file
is written). Speech is silence of a drawn length per line (``--speech silent``,
the default: no speech engine needed) or the real speech cache (``--speech tts``).

A game still running after ``--timeout`` seconds of machine time is a hang; it
is reported with its number, so ``--only N`` (with the same ``--master-seed``)
plays it again. Exit status 1 if any game hung or failed.

    .venv/bin/python scripts/render_many.py --games 1000 [--jobs 2]
"""

from __future__ import annotations

import argparse
import io
import random
import signal
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from narrator.demo import render_offline
from narrator.host.audio import SpeechSource
from narrator.host.terminal import Terminal
from narrator.prepared import prepare
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.settings import TableSettings
from narrator.sound.clip import Clip
from narrator.speaking import speech_source

SPEECH_RATE = 22050  # espeak-ng's own rate: the mixer resamples it, as it does real speech


class Hang(BaseException):
    """The per-game timeout fired (a BaseException: nothing in the game may catch it)."""


class SilentSpeech:
    """A speech source of silence: each line as long as it might be said, give or take."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def clip(self, key: str, text: str) -> Clip:
        rng = random.Random(f"{self.seed}:{key}:{text}")
        seconds = 0.2 + 0.05 * len(text) * rng.uniform(0.7, 1.3)
        frames = max(1, round(seconds * SPEECH_RATE) + rng.randrange(-7, 8))
        return Clip(np.zeros((frames, 1), dtype=np.float32), SPEECH_RATE)


@dataclass
class Game:
    number: int
    game: str
    players: int
    lang: str
    seed: int
    answer_s: float
    options: dict[str, Any] = field(default_factory=dict)
    ticks: bool = False

    def command(self) -> str:
        options = " ".join(f"-o {key}={value}" for key, value in self.options.items())
        return (
            f"narrator demo {self.game} --players {self.players} --lang {self.lang} "
            f"--seed {self.seed} {options}{' --ticks' if self.ticks else ''} --output x.ogg"
        )


def _length(rng: random.Random) -> float:
    """A wake window or timer length, often with a tenth or a thousandth that floats lack."""
    kind = rng.random()
    if kind < 0.1:
        return 0.05 + rng.randrange(5) * 0.05
    value = rng.uniform(0.1, 6.0)
    return round(value, rng.choice((0, 1, 1, 2, 3))) or 0.1


def draw_game(master: int, number: int) -> Game:
    rng = random.Random(f"{master}:{number}")
    name = rng.choice(known_names())
    variant = get_variant(name)
    seats = variant.seat_counts
    options: dict[str, Any] = {}
    for key, spec in variant.switches.model_fields.items():
        if key.endswith("_s") and rng.random() < 0.8:
            value = _length(rng)
            if key == "shot_call_s":
                value = min(value, 10.0)
            options[key] = value
        elif key == "window_s" and spec.default is None and rng.random() < 0.3:
            options[key] = _length(rng)
    return Game(
        number=number,
        game=name,
        players=rng.randrange(seats.start, seats.stop),
        lang=rng.choice(("ru", "en")),
        seed=rng.randrange(2**32),
        answer_s=_length(rng),
        options=options,
        ticks=rng.random() < 0.5,
    )


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise Hang


def play(game: Game, speech: str, timeout: float, records: Path, block: int) -> dict[str, Any]:
    """One game on the virtual clock; its outcome, machine time and virtual length."""
    settings = TableSettings(
        game=game.game,
        players=game.players,
        lang=game.lang,
        seed=game.seed,
        options=dict(game.options),
        answer_s=game.answer_s,
        demo=True,
        record_dir=records,
        voice="auto",
        ticks=game.ticks,
    )
    result: dict[str, Any] = {"number": game.number, "game": game.game, "command": game.command()}
    signal.signal(signal.SIGALRM, _alarm)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        prepared = prepare(settings)
        source: SpeechSource = (
            SilentSpeech(game.seed)
            if speech == "silent"
            else speech_source(settings, game.game, progress=None)
        )
        screen = Terminal(out=io.StringIO(), private=io.StringIO())  # shown, then dropped
        rendered = render_offline(settings, prepared, source, screen, keep_audio=False, block=block)
        result.update(status="ok", code=rendered.code, virtual_s=rendered.output.seconds)
    except Hang:
        result.update(status="hang")
    except Exception:
        result.update(status="error", error=traceback.format_exc(limit=6))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for path in records.glob("*.jsonl"):
            path.unlink()
    result["wall_s"] = time.perf_counter() - start
    return result


def _worker(job: tuple[int, list[int], str, float, int]) -> list[dict[str, Any]]:
    master, numbers, speech, timeout, block = job
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as folder:
        return [play(draw_game(master, n), speech, timeout, Path(folder), block) for n in numbers]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--master-seed", type=int, default=17, help="draws every game")
    parser.add_argument("--only", type=int, action="append", help="play only game number N")
    parser.add_argument("--timeout", type=float, default=120.0, help="machine seconds per game")
    parser.add_argument("--speech", choices=("silent", "tts"), default="silent")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--block", type=int, default=4800, help="most frames mixed at once (the file path: 480)"
    )
    args = parser.parse_args(argv)
    numbers = args.only or list(range(args.games))
    jobs = max(1, args.jobs)
    chunks = [
        (args.master_seed, numbers[i::jobs], args.speech, args.timeout, args.block)
        for i in range(jobs)
    ]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    if jobs == 1:
        results = _worker(chunks[0])
    else:
        with ProcessPoolExecutor(jobs) as pool:
            for part in pool.map(_worker, chunks):
                results.extend(part)
    elapsed = time.perf_counter() - started
    bad = [r for r in results if r["status"] != "ok"]
    for result in sorted(bad, key=lambda r: r["number"]):
        print(f"game {result['number']}: {result['status'].upper()}  {result['command']}")
        if "error" in result:
            print("  " + result["error"].strip().replace("\n", "\n  "))
    per_game: dict[str, list[float]] = {}
    for result in results:
        per_game.setdefault(result["game"], []).append(result["wall_s"])
    virtual = sum(r.get("virtual_s", 0.0) for r in results)
    print(
        f"{len(results)} games in {elapsed:.0f} s ({jobs} job(s)): "
        f"{sum(r['status'] == 'ok' for r in results)} ok, "
        f"{sum(r['status'] == 'hang' for r in results)} hung (> {args.timeout:g} s), "
        f"{sum(r['status'] == 'error' for r in results)} failed; "
        f"{virtual / 3600:.1f} h of game time rendered"
    )
    for name, times in sorted(per_game.items()):
        print(f"  {name:12} {len(times):5} games, slowest {max(times):6.2f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
