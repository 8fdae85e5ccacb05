#!/usr/bin/env python3
"""Benchmark of the listening engines on the project's corpus: right, wrong seat, chatter, latency.

    .venv/bin/python scripts/bench_asr.py                      # every engine, ru and en
    .venv/bin/python scripts/bench_asr.py --engines sphinx --langs en --quick
    .venv/bin/python scripts/bench_asr.py --tune               # on the tuning voices
    .venv/bin/python scripts/bench_asr.py --json runs.json     # and every clip's result
    .venv/bin/python scripts/bench_asr.py --from-json runs.json  # its tables again

The corpus (``narrator.listen.corpus``: every answer phrase, seats said with
their carrier words, and chatter with and without numbers in it) is heard by
the held-out voices (``HELD_OUT_VOICES``, five per language, never used to
tune a threshold; ``--tune`` takes the tuning half, ``--voices`` any list) at
150 words per minute, in four conditions: clean, in a room (reverberation,
RT60 0.5 s), and with a babble of table talk at 20 and 10 dB. ``--quick``
takes the first two voices of the half. Each clip is streamed in 50 ms blocks
through the same recogniser, endpointer (``Stream``) and grammar of the open
prompt that a game uses. Each engine and language runs in its own process
(memory is its own); the one-threaded ones two at a time (``--jobs``),
Whisper alone and on the quick part (it takes about a second per answer)
unless ``--full-whisper``. An engine that cannot be used here (Vosk with no
downloaded model) has a row that says why.

For each engine, language and condition: of the answer clips, the share
right, wrong (another answer than the one said: the harm) and not understood;
of the chatter clips, the share taken for an answer (accepted). Latency is
end of speech → answer: the audio from the end of the spoken phrase to the
block where the endpointer (or the engine) ended the utterance, plus the
computing time of that last step: wall time (it depends on the machine's
load, printed) and the process's CPU time ("idle": about what free cores give
a one-threaded decoder; Whisper decodes on two threads, so its idle wall time
is about half its CPU time). The goal is judged on "idle". Synthetic speech
is harder than people: accuracy figures are pessimistic.

Goals: wrong answers ≤ 2 % and chatter accepted ≤ 3 % in every
condition; English right ≥ 90 % clean and ≥ 80 % in the room; latency median
≤ 800 ms for Whisper, ≤ 300 ms for the others.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.listen import corpus
from narrator.listen.engine import SpeechEngine
from narrator.listen.engines import ENGINES
from narrator.listen.engines import choices
from narrator.listen.engines import default_engine
from narrator.listen.models import default_models_dir
from narrator.listen.words import lexicon_for

LANGS = ("ru", "en")
SPEED = 150  # words per minute (the voices' tempo shifts vary the pace)
QUICK_VOICES = 2  # --quick: the first voices of the half
GOALS = {
    "wrong": 0.02,  # of answers, in every condition
    "accepted": 0.03,  # of chatter, in every condition
    "en clean": 0.90,  # English right
    "en room": 0.80,
    "latency_ms": 300.0,
    "whisper latency_ms": 800.0,
}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_clip(engine: SpeechEngine, bank: corpus.Corpus, clip: corpus.Clip) -> dict[str, Any]:
    """Stream one clip as the listener would: the text of each utterance, the outcome
    (the first utterance that means something counts, as at the table) and its latency."""
    found = corpus.heard(engine, bank, clip)
    texts = [utterance.text for utterance in found]
    meant = next(
        (u for u in found if corpus.outcome(clip.phrase, u.text) not in ("none", "rejected")),
        None,
    )
    latency = cpu = None
    if meant is not None:
        waited = meant.at_s - bank.speech_end(clip)
        latency, cpu = waited + meant.compute_s, waited + meant.cpu_s
    answer = not clip.phrase.chatter
    return {
        "group": clip.phrase.group,
        "condition": clip.condition,
        "voice": clip.voice,
        "said": clip.phrase.text,
        "expected": clip.phrase.expected,
        "chatter": clip.phrase.chatter,
        "outcome": corpus.outcome(clip.phrase, texts),
        "latency": latency if answer else None,
        "latency_cpu": cpu if answer else None,
        "text": texts,
        "id": clip.id,
    }


def chosen_voices(lang: str, tune: bool, voices: str | None, quick: bool) -> tuple[str, ...]:
    """The voices measured: ``--voices`` (those that are corpus voices of ``lang``; if none
    is, all of them: any voice id with its shifts), else the held-out or the tuning half;
    ``quick``: the first two."""
    if voices:
        named = tuple(filter(None, voices.split(",")))
        mine = tuple(v for v in named if v in corpus.ALL_VOICES[lang]) or named
        return mine[:QUICK_VOICES] if quick else mine
    half = (corpus.TUNE_VOICES if tune else corpus.HELD_OUT_VOICES)[lang]
    return half[:QUICK_VOICES] if quick else half


def corpus_clips(lang: str, voices: tuple[str, ...]) -> list[corpus.Clip]:
    """The clips measured: every phrase by ``voices`` at one speed in each condition."""
    return corpus.clips(lang, voices=voices, speeds=(SPEED,), conditions=corpus.CONDITIONS)


def measure(engine_name: str, lang: str, voices: tuple[str, ...]) -> dict[str, Any]:
    """One engine on one language's corpus (run in a process of its own)."""
    choice = next(c for c in choices(lang) if c.engine == engine_name)
    if not choice.usable:
        problem = str(choice.problem).replace(str(default_models_dir()), "models/")
        return {"engine": engine_name, "lang": lang, "problem": problem}
    bank = corpus.Corpus()
    clips = corpus_clips(lang, voices)
    started = time.perf_counter()
    for clip in clips:  # render first: rendering is not listening
        bank.pcm(clip)
    render_s = time.perf_counter() - started
    before = rss_mb()
    started = time.perf_counter()
    engine = choice.load()
    engine.check(lexicon_for(lang))
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    results = [run_clip(engine, bank, clip) for clip in clips]
    return {
        "engine": engine_name,
        "lang": lang,
        "experimental": choice.experimental,
        "load_s": load_s,
        "memory_mb": rss_mb() - before,
        "render_s": render_s,
        "decode_s": time.perf_counter() - started,
        "voices": list(voices),
        "clips": len(clips),
        "results": results,
    }


def share(results: list[dict[str, Any]], outcome: str) -> float | None:
    return sum(r["outcome"] == outcome for r in results) / len(results) if results else None


def percentile(values: list[float], q: float) -> float | None:
    """In ms; the median as ``statistics.median``, else the nearest rank below."""
    ordered = sorted(values)
    if not ordered:
        return None
    if q == 0.5:
        return statistics.median(ordered) * 1000
    return ordered[int(q * (len(ordered) - 1))] * 1000


def conditions_of(results: list[dict[str, Any]]) -> list[str]:
    """The conditions measured, in the corpus's order (then any other)."""
    known = [corpus.condition_name(n, s) for n, s in corpus.all_conditions()]
    found = {r["condition"] for r in results}
    return [c for c in known if c in found] + sorted(found - set(known))


def summary(run: dict[str, Any], condition: str | None) -> dict[str, Any]:
    """One row: ``run``'s results in ``condition`` (None: every condition)."""
    results = [r for r in run["results"] if condition in (None, r["condition"])]
    answers = [r for r in results if not r["chatter"]]
    chatter = [r for r in results if r["chatter"]]
    latencies = [r["latency"] for r in answers if r["latency"] is not None]
    on_cpu = [r["latency_cpu"] for r in answers if r.get("latency_cpu") is not None]
    return {
        "engine": run["engine"],
        "lang": run["lang"],
        "experimental": run["experimental"],
        "condition": condition or "all",
        "load_s": run["load_s"],
        "memory_mb": run["memory_mb"],
        "answers": len(answers),
        "chatter": len(chatter),
        "right": share(answers, "right"),
        "wrong": share(answers, "wrong"),
        "none": share(answers, "none"),
        "accepted": share(chatter, "accepted"),
        "p50_ms": percentile(latencies, 0.5),
        "p90_ms": percentile(latencies, 0.9),
        "cpu_p50_ms": percentile(on_cpu, 0.5),
        "cpu_p90_ms": percentile(on_cpu, 0.9),
    }


def groups(run: dict[str, Any]) -> dict[str, float | None]:
    """Every condition together, by group: answers right, chatter accepted."""
    found: dict[str, list[dict[str, Any]]] = {}
    for r in run["results"]:
        found.setdefault(r["group"], []).append(r)
    return {
        group: share(found[group], "accepted" if found[group][0]["chatter"] else "right")
        for group in found
    }


def fmt(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "—"
    return f"{value * 100:.1f} %" if percent else f"{value:.0f}"


def goal_ratios(run: dict[str, Any]) -> list[tuple[str, float | None]]:
    """Each goal's ratio, below 1 within the goal: for accuracy the share of errors over the
    share allowed (85 % right against ≥ 90 %: 0.15 / 0.10 = 1.5), else measured / goal;
    the "every condition" goals are judged on the worst condition."""
    rows = [summary(run, c) for c in conditions_of(run["results"])]
    by_name = {row["condition"]: row for row in rows}

    def worst(key: str) -> float | None:
        values = [row[key] for row in rows if row[key] is not None]
        return max(values) / GOALS[key] if values else None

    def errors(condition: str) -> float | None:
        row = by_name.get(condition)
        if run["lang"] != "en" or row is None or row["right"] is None:
            return None
        right: float = row["right"]
        return (1 - right) / (1 - GOALS[f"en {condition}"])

    whisper = run["engine"] == "whisper"
    latency = GOALS["whisper latency_ms" if whisper else "latency_ms"]
    idle = summary(run, None)["cpu_p50_ms"]
    return [
        ("wrong ≤ 2 % (worst condition)", worst("wrong")),
        ("chatter accepted ≤ 3 % (worst)", worst("accepted")),
        ("en right ≥ 90 % clean", errors("clean")),
        ("en right ≥ 80 % room", errors("room")),
        (f"idle p50 ≤ {latency:.0f} ms", None if idle is None else idle / latency),
    ]


def print_tables(runs: list[dict[str, Any]], problems: list[dict[str, Any]], out: Any) -> None:
    head = [
        "engine",
        "lang",
        "condition",
        "right",
        "wrong",
        "not understood",
        "chatter accepted",
        "latency p50",
        "p90",
        "idle p50",
        "idle p90",
        "load",
        "memory",
    ]
    out.write("| " + " | ".join(head) + " |\n")
    out.write("|" + "---|" * len(head) + "\n")
    for run in runs:
        name = run["engine"] + (" (experimental)" if run["experimental"] else "")
        for condition in conditions_of(run["results"]):
            row = summary(run, condition)
            cells = [
                name,
                run["lang"],
                f"{condition} ({row['answers']} + {row['chatter']})",
                fmt(row["right"]),
                fmt(row["wrong"]),
                fmt(row["none"]),
                fmt(row["accepted"]),
                f"{fmt(row['p50_ms'], False)} ms",
                f"{fmt(row['p90_ms'], False)} ms",
                f"{fmt(row['cpu_p50_ms'], False)} ms",
                f"{fmt(row['cpu_p90_ms'], False)} ms",
                f"{row['load_s']:.2f} s",
                f"{row['memory_mb']:.0f} MB",
            ]
            out.write("| " + " | ".join(cells) + " |\n")
    for problem in problems:
        out.write(
            f"| {problem['engine']} | {problem['lang']} | not measured: {problem['problem']} |"
            + " |" * (len(head) - 3)
            + "\n"
        )
    out.write(
        "\n(condition (answer clips + chatter clips); right / wrong / not understood: of "
        "the answers; chatter accepted: of the chatter.)\n\nBy group, every condition "
        "together (answers: right; chatter: accepted):\n\n"
    )
    names = list(dict.fromkeys(g for run in runs for g in groups(run)))
    out.write("| engine | lang | " + " | ".join(names) + " |\n")
    out.write("|" + "---|" * (len(names) + 2) + "\n")
    for run in runs:
        found = groups(run)
        cells = [fmt(found.get(name)) for name in names]
        out.write(f"| {run['engine']} | {run['lang']} | " + " | ".join(cells) + " |\n")
    out.write(
        "\nAgainst the goals. Ratio below 1: within the goal (accuracy: errors / errors "
        "allowed; else measured / goal):\n\n"
    )
    names = [name for name, _ in goal_ratios(runs[0])] if runs else []
    names = [n.replace(f"{GOALS['whisper latency_ms']:.0f}", "300 (800 whisper)") for n in names]
    out.write("| engine | lang | " + " | ".join(names) + " |\n")
    out.write("|" + "---|" * (len(names) + 2) + "\n")
    for run in runs:
        cells = [
            "—" if ratio is None else f"{ratio:.2f} {'met' if ratio <= 1 else 'NOT met'}"
            for _, ratio in goal_ratios(run)
        ]
        out.write(f"| {run['engine']} | {run['lang']} | " + " | ".join(cells) + " |\n")
    for problem in problems:
        out.write(f"| {problem['engine']} | {problem['lang']} | not measured |" + " |" * len(names))
        out.write("\n")
    out.write("\nThe engine a game uses with no --asr (narrator models list): ")
    out.write(", ".join(f"{lang} {default_engine(lang) or 'none'}" for lang in LANGS) + ".\n")


def _started(args: argparse.Namespace) -> Any:
    def start(pair: tuple[str, str]) -> subprocess.Popen[str]:
        engine, lang = pair
        quick = args.quick or (engine == "whisper" and not args.full_whisper)
        voices = chosen_voices(lang, args.tune, args.voices, quick)
        command = [sys.executable, __file__, "--one", engine, lang, "--voices", ",".join(voices)]
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    return start


def _finished(pair: tuple[str, str], process: subprocess.Popen[str]) -> dict[str, Any]:
    """The run of one engine and language, once its process has ended."""
    engine, lang = pair
    stdout, stderr = process.communicate()
    if process.returncode != 0:
        sys.stderr.write(stderr)
        return {"engine": engine, "lang": lang, "problem": "crashed"}
    run: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    if "problem" not in run:
        sys.stderr.write(
            f"{engine} {lang}: {run['clips']} clips, rendered in {run['render_s']:.0f} s, "
            f"decoded in {run['decode_s']:.0f} s\n"
        )
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument(
        "--quick", action="store_true", help=f"the first {QUICK_VOICES} voices of the half"
    )
    parser.add_argument(
        "--tune", action="store_true", help="the tuning voices, not the held-out ones"
    )
    parser.add_argument(
        "--voices", default=None, help="these corpus voices (comma-separated), not a half"
    )
    parser.add_argument(
        "--full-whisper", action="store_true", help="whisper on every voice of the half"
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="one-threaded engines measured at once (default 2)"
    )
    parser.add_argument(
        "--json", type=Path, default=None, help="also write every clip's result (text, outcome)"
    )
    parser.add_argument("--from-json", type=Path, default=None, help="print the tables of a --json")
    parser.add_argument("--one", nargs=2, metavar=("ENGINE", "LANG"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        engine, lang = args.one
        voices = tuple(args.voices.split(",")) if args.voices else corpus.HELD_OUT_VOICES[lang]
        print(json.dumps(measure(engine, lang, voices), ensure_ascii=False))
        return 0

    if args.from_json is not None:
        runs = json.loads(args.from_json.read_text("utf-8"))
        print_tables(
            [r for r in runs if "problem" not in r], [r for r in runs if "problem" in r], sys.stdout
        )
        return 0
    started = time.perf_counter()
    pairs = [(e, lang) for e in args.engines.split(",") for lang in args.langs.split(",")]
    # Whisper decodes on two threads: it is measured alone, after the others.
    batches = [[p for p in pairs if p[0] != "whisper"], [p for p in pairs if p[0] == "whisper"]]
    done: dict[tuple[str, str], dict[str, Any]] = {}
    for batch in batches:
        width = max(1, args.jobs) if batch and batch[0][0] != "whisper" else 1
        for start in range(0, len(batch), width):
            group = batch[start : start + width]
            for pair, run in zip(group, [*map(_started(args), group)], strict=True):
                done[pair] = _finished(pair, run)
    every = [done[pair] for pair in pairs]
    runs = [run for run in every if "problem" not in run]
    problems = [run for run in every if "problem" in run]
    took = time.perf_counter() - started
    load = os.getloadavg()
    out = sys.stdout
    half = "chosen" if args.voices else "tuning" if args.tune else "held-out"
    heard = "; ".join(f"{run['lang']} {run['engine']}: {', '.join(run['voices'])}" for run in runs)
    out.write(
        f"Corpus: {half} voices ({heard}); {SPEED} wpm; "
        + ", ".join(corpus.condition_name(n, s) for n, s in corpus.CONDITIONS)
        + f". {took:.0f} s, {args.jobs} one-threaded engines at a time; machine load "
        f"{load[0]:.1f} ({os.cpu_count()} cores).\n\n"
    )
    print_tables(runs, problems, out)
    if args.json is not None:
        args.json.write_text(json.dumps(every, ensure_ascii=False, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
