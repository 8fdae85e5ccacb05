#!/usr/bin/env python3
"""Benchmark of the speech engines themselves: start-up, real-time factor, memory, pace.

Per voice, in a fresh process each (so memory and start-up are its own), straight
through the engine port (``narrator.voice.engines``), no cache:

- first line: the time to the first clip, start-up included (Festival's process
  and voice, hibari's model, pyttsx3's driver);
- RTF: render time / seconds of audio over a sample of one game's lines;
- memory: peak resident size of the Python process and of a festival process;
- pace: words a minute of the trimmed audio (``sound.loudness.trimmed``) at
  110, 170 and 260 wpm asked — the check that 170 is each voice's natural pace
  and that the rate mapping (``Duration_Stretch``/HTS ``-r``/WSOLA, hibari's
  ``speed``, espeak's own rate) moves it in proportion.

Not a test: figures depend on the machine; run it alone.

    .venv/bin/python scripts/bench_engines.py [--lines 30] [--voice festival:msu_ru_nsh_clunits]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

VOICES = {
    "festival:msu_ru_nsh_clunits": "ru",
    "espeak:zle/ru": "ru",
    "hibari:heart": "en",
    "festival:cmu_us_slt_arctic_hts": "en",
    "espeak:gmw/en-us": "en",
}
RATES = (110, 170, 260)


def _peak_kb(pid: int) -> int:
    try:
        for row in Path(f"/proc/{pid}/status").read_text().splitlines():
            if row.startswith("VmHWM:"):
                return int(row.split()[1])
    except OSError:
        pass
    return 0


def one(key: str, lines: int) -> dict[str, object]:
    """Measure one voice in this process."""
    from narrator.sound.loudness import trimmed
    from narrator.voice.game_lines import lines_to_render
    from narrator.voice.numbers import spoken
    from narrator.voice.pronounce import pronunciation
    from narrator.voice.voices import choose_voice
    from narrator.voice.voices import close_all
    from narrator.voice.voices import engine_for

    lang = VOICES.get(key) or key.rsplit("/", 1)[-1][:2]
    voice = choose_voice(lang, key)
    engine = engine_for(voice)
    every = lines_to_render(lang, "onenight")
    sample = random.Random(7).sample(every, min(lines, len(every)))
    texts = [pronunciation(lang).apply(spoken(t, lang).strip(), engine.name) for t in sample]
    result: dict[str, object] = {"voice": voice.key, "lang": lang, "lines": len(texts)}
    started = time.perf_counter()
    engine.synthesize(texts[0], voice, 170)
    result["first_line_s"] = time.perf_counter() - started
    for rate in RATES:
        words = audio = speech = spent = 0.0
        for text in texts:
            started = time.perf_counter()
            clip = engine.synthesize(text, voice, rate)
            spent += time.perf_counter() - started
            audio += clip.seconds
            speech += trimmed(clip).seconds
            words += len(re.findall(r"\w+", text.replace("+", "")))
        result[f"wpm_at_{rate}"] = words / speech * 60
        if rate == 170:
            result["rtf"] = spent / audio
    result["python_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    process = getattr(engine, "_process", None)
    if process is not None:
        result["festival_peak_mb"] = _peak_kb(process.popen.pid) / 1024
    close_all()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=30, help="lines of onenight per voice")
    parser.add_argument("--voice", action="append", help="ENGINE:VOICE (default: all five)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.lines)))
        return
    rows = []
    for key in args.voice or list(VOICES):
        done = subprocess.run(
            [sys.executable, __file__, "--one", key, "--lines", str(args.lines)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(f"{key}: failed\n{done.stderr}", file=sys.stderr)
            continue
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    header = f"{'voice':<32} {'first s':>7} {'RTF':>6} {'py MB':>6} {'fest MB':>7} " + " ".join(
        f"{'wpm@' + str(r):>7}" for r in RATES
    )
    print(header)
    for row in rows:
        festival = row.get("festival_peak_mb")
        print(
            f"{row['voice']:<32} {row['first_line_s']:7.2f} {row['rtf']:6.3f} "
            f"{row['python_peak_mb']:6.0f} {'-' if festival is None else str(round(festival)):>7} "
            + " ".join(f"{row[f'wpm_at_{r}']:7.1f}" for r in RATES)
        )


if __name__ == "__main__":
    main()
