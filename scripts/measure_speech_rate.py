#!/usr/bin/env python3
"""Measure how fast each speech engine speaks, for CHARS_PER_S in narrator/estimate.py.

Renders a fixed sample of real catalog lines (12 per game, drawn with a fixed seed
from every line the game may say) through the project's own speech cache
(``SpeechCache``: the voice's engine, then the loudness levelling that trims the
engine's silence, as a game plays it) at the default rate, into a temporary folder
so every line is really synthesised, and prints per voice: characters of the spoken
text (numbers spelled out, as the engine receives them) over seconds of audio, as a
ratio of sums, the median of the per-line ratios, and a least-squares line
``seconds = a + chars / cps``.  The voices are each language's default (Festival's
msu for ru, hibari for en), Festival's English and espeak-ng's, or those named with
``--voice`` (``ENGINE:VOICE``, repeated; ``LANG=ENGINE:VOICE`` for one language only).

Then it checks the model where it is used: it plays a few games of every variant
through narrator.estimate's Stopwatch, renders every line said outside a window or a
timer, and compares their real total with the total the constants predict.

    .venv/bin/python scripts/measure_speech_rate.py [--per-game 12] [--rate 170] \
        [--voice ru=espeak:zle/ru] [--check-games 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from pathlib import Path

from narrator.estimate import TimedLines
from narrator.estimate import chars_per_s
from narrator.rules.core import shuffled_deal
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog
from narrator.voice.game_lines import lines_to_render
from narrator.voice.numbers import spoken
from narrator.voice.rates import DEFAULT_RATE
from narrator.voice.tts import SpeechCache


def sample(lang: str, per_game: int, seed: int) -> list[str]:
    """``per_game`` distinct lines of every game, the same on every run."""
    chosen: dict[str, None] = {}
    for game in known_names():
        lines = [line for line in lines_to_render(lang, game) if line not in chosen]
        for line in random.Random(f"{seed}:{lang}:{game}").sample(lines, per_game):
            chosen[line] = None
    return list(chosen)


# Measured unless --voice names others: the default voices first, then the rest.
VOICES = {
    "ru": ("festival:msu_ru_nsh_clunits", "espeak:zle/ru"),
    "en": ("hibari:heart", "festival:cmu_us_slt_arctic_hts", "espeak:gmw/en-us"),
}


def measure(lang: str, voice: str, texts: list[str], rate: int, folder: Path) -> None:
    cache = SpeechCache(lang, voice=voice, rate=rate, folder=folder)
    chars = [len(spoken(text, lang).strip()) for text in texts]
    seconds = [cache.clip(text).seconds for text in texts]
    ratio = sum(chars) / sum(seconds)
    per_line = statistics.median(c / s for c, s in zip(chars, seconds, strict=True))
    slope, intercept = statistics.linear_regression(chars, seconds)
    print(
        f"{lang}: voice {cache.voice.key}, rate {rate} wpm, {len(texts)} lines, "
        f"{sum(chars)} chars in {sum(seconds):.1f} s"
    )
    print(f"  chars/s (sum over sum)      {ratio:6.2f}   (s/char {1 / ratio:.4f})")
    print(f"  chars/s (median per line)   {per_line:6.2f}")
    print(f"  fit: seconds = {intercept:.3f} + chars / {1 / slope:.2f}")
    print(f"  lines {min(chars)}–{max(chars)} chars, {min(seconds):.2f}–{max(seconds):.2f} s")


def check(lang: str, voice: str, rate: int, folder: Path, games: int) -> None:
    cache = SpeechCache(lang, voice=voice, rate=rate, folder=folder)
    speed = chars_per_s(lang, cache.voice.driver)
    for game in known_names():
        variant = get_variant(game)
        switches = make_switches(variant, {})
        players = (variant.seat_counts.start + variant.seat_counts.stop) // 2
        said: list[str] = []
        for seed in range(games):
            rng = random.Random(seed)
            deal = shuffled_deal(variant.composition(players, switches), players, rng)
            table = TimedLines(load_catalog(lang), rng, 60.0)
            table.run(variant.new_game(deal, switches, rng))
            said += table.lines
        real = sum(cache.clip(text).seconds for text in said)
        model = sum(len(spoken(text, lang).strip()) for text in said) / speed
        print(
            f"  check {game:<12} {len(said):5d} lines said: rendered {real / 60:6.2f} min, "
            f"model {model / 60:6.2f} min, model / rendered {model / real:5.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-game", type=int, default=12)
    parser.add_argument("--rate", type=int, default=DEFAULT_RATE)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-games", type=int, default=3, help="games per variant checked")
    parser.add_argument(
        "--voice", action="append", default=[], help="ENGINE:VOICE or LANG=ENGINE:VOICE"
    )
    args = parser.parse_args()
    wanted: dict[str, list[str]] = {}
    for item in args.voice:
        lang, _, voice = item.rpartition("=")
        for each in [lang] if lang else list(VOICES):
            wanted.setdefault(each, []).append(voice)
    with tempfile.TemporaryDirectory(prefix="narrator-rate-") as folder:
        for lang in wanted or VOICES:
            texts = sample(lang, args.per_game, args.seed)
            for voice in wanted.get(lang) or VOICES[lang]:
                measure(lang, voice, texts, args.rate, Path(folder))
                if args.check_games > 0:
                    check(lang, voice, args.rate, Path(folder), args.check_games)


if __name__ == "__main__":
    main()
