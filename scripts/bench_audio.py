#!/usr/bin/env python3
"""Benchmark of the voice and the night's sound against their targets.

Prints a table of measured figures against their goals and the ratio
measured / goal (below 1.0 is within the goal). It starts its own PulseAudio
server with null devices (as the tests do) for the real-time measures.

    .venv/bin/python scripts/bench_audio.py [--minutes 10] [--lang ru] [--variant onenight]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from narrator.sound.clip import MIX_RATE  # noqa: E402
from narrator.sound.mixer import Mixer  # noqa: E402
from narrator.sound.mixer import MixSettings  # noqa: E402
from narrator.sound.output import OfflineOutput  # noqa: E402
from narrator.voice.catalog import load_catalog  # noqa: E402


def burn(seconds: float) -> None:
    """A competing CPU load on another core."""
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        x += 1


def mixer_cpu_percent(seconds: float = 60.0) -> float:
    """CPU time per second of audio, in % of one core: bed on, speech playing."""
    import numpy as np

    mixer = Mixer(MixSettings(density=4.0), seed=1)
    output = OfflineOutput(mixer)
    speech = np.sin(np.linspace(0, 2000, MIX_RATE * 3)).astype(np.float32) * 0.5
    from narrator.sound.clip import Clip

    mixer.night(True)
    start = time.process_time()
    for _ in range(int(seconds / 5)):
        mixer.say(Clip.from_mono(speech, MIX_RATE))
        output.advance(5.0)
    return 100 * (time.process_time() - start) / seconds


def cold_render(lang: str, variant: str) -> tuple[float, int]:
    from narrator.voice.game_lines import lines_to_render
    from narrator.voice.tts import SpeechCache

    lines = lines_to_render(lang, variant)
    with tempfile.TemporaryDirectory() as folder:
        cache = SpeechCache(lang, folder=Path(folder))
        start = time.perf_counter()
        cache.build(cache.missing(lines), lambda done, total: None)
        return time.perf_counter() - start, len(lines)


PROCESS_START = """
import sys
from narrator.settings import TableSettings
from narrator.speaking import speech_source
from narrator.sound.mixer import Mixer, MixSettings
from narrator.sound.output import OfflineOutput
from narrator.voice.catalog import load_catalog
source = speech_source(TableSettings(game=sys.argv[1], lang=sys.argv[2], voice="auto"), sys.argv[1])
mixer = Mixer(MixSettings())
output = OfflineOutput(mixer)
token = mixer.say(source.clip("onenight.night", load_catalog(sys.argv[2]).text("onenight.night")))
output.advance(0.01)
assert output.playback.started_at(token) == 0
"""


def process_start(lang: str, variant: str) -> float:
    """A new process: imports, the cache check of every line, the first line mixed (s)."""
    import subprocess

    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", PROCESS_START, variant, lang], check=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def realtime(minutes: float, lang: str, variant: str) -> tuple[float, float, float, int]:
    """Warm start to first sample (s), device open (s), say→first sample (ms), underruns."""
    from narrator.clocks import RealClock
    from narrator.host.audio import AudioVoice
    from narrator.host.audio import PackOrTTS
    from narrator.sound.output import DeviceOutput
    from narrator.voice.game_lines import lines_to_render
    from narrator.voice.tts import SpeechCache
    from tests.pulse import pulse_server

    catalog = load_catalog(lang)
    with pulse_server() as env:
        os.environ.update(env)
        import sounddevice

        sounddevice._terminate()
        sounddevice._initialize()
        warm = SpeechCache(lang)
        warm.build(warm.missing(lines_to_render(lang, variant)), lambda done, total: None)

        mixer = Mixer(MixSettings(), seed=1)
        device = DeviceOutput(mixer)
        opened = time.perf_counter()
        device.start()
        device.wait_started()  # a fresh null sink starts in 2-second blocks: not ours to time
        open_s = time.perf_counter() - opened
        start = time.perf_counter()  # warm start: a new cache, the check, line one mixed
        cache = SpeechCache(lang)
        cache.missing(lines_to_render(lang, variant))
        first = catalog.text("onenight.night")
        fresh = Mixer(MixSettings(), seed=2)
        offline = OfflineOutput(fresh)
        token = fresh.say(cache.clip(first))
        offline.advance(0.01)  # the mixer's first block: the line's first sample
        assert offline.playback.started_at(token) == 0
        warm_start = time.perf_counter() - start
        token = mixer.say(cache.clip(first))
        while device.playback.started_at(token) is None:
            time.sleep(0.0005)

        clock = RealClock()
        voice = AudioVoice(PackOrTTS(cache.clip), mixer, device.playback, clock, False)
        texts = [
            catalog.text(k) for k in ("onenight.hi_wake", "onenight.hi_sleep", "timer.time_up")
        ]
        latencies = []
        for i in range(60):
            device.playback.wait(token)
            time.sleep(0.05)
            asked = time.perf_counter()
            token = mixer.say(cache.clip(texts[i % len(texts)]))
            while device.playback.started_at(token) is None:
                time.sleep(0.0002)
            latencies.append((time.perf_counter() - asked) * 1000)
        del voice

        device.underruns = 0
        load = multiprocessing.Process(target=burn, args=(minutes * 60,))
        load.start()
        mixer.night(True)
        end = time.monotonic() + minutes * 60
        while time.monotonic() < end:
            token = mixer.say(cache.clip(texts[0]))
            device.playback.wait(token)
            time.sleep(2.0)
        load.join()
        underruns = device.underruns
        device.stop()
    return warm_start, open_s, statistics.median(latencies), underruns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="real-time underrun run")
    parser.add_argument("--lang", default="ru")
    parser.add_argument("--variant", default="onenight")
    args = parser.parse_args()

    rows = []
    cold_s, lines = cold_render(args.lang, args.variant)
    rows.append((f"cold render, {lines} {args.lang} lines of {args.variant} (s)", cold_s, 10.0))
    rows.append(("mixer CPU per second of audio (% of a core)", mixer_cpu_percent(), 2.0))
    warm_s, open_s, latency_ms, underruns = realtime(args.minutes, args.lang, args.variant)
    rows.append(
        (
            "warm start, new process to the first line mixed (s)",
            process_start(args.lang, args.variant),
            1.0,
        )
    )
    rows.append(("warm start, in process: cache check to first line (s)", warm_s, 1.0))
    rows.append(("opening the output, to its first pull (s)", open_s, 1.0))
    rows.append(("line asked → first sample mixed, median (ms)", latency_ms, 30.0))
    rows.append((f"underruns in {args.minutes:g} min with a CPU load", float(underruns), 0.0))

    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'measured':>9}  {'goal':>6}  {'ratio':>6}")
    for name, value, goal in rows:
        ratio = f"{value / goal:6.2f}" if goal else ("  0.00" if value == 0 else "   inf")
        print(f"{name:<{width}}  {value:9.3f}  {goal:6.1f}  {ratio}")


if __name__ == "__main__":
    main()
