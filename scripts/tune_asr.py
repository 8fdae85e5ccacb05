#!/usr/bin/env python3
"""Where an engine's "not understood" threshold goes, tuned on the tuning half of the corpus.

    .venv/bin/python scripts/tune_asr.py --engine whisper --lang en
    .venv/bin/python scripts/tune_asr.py --engine sphinx --lang ru --json ru.json
    .venv/bin/python scripts/tune_asr.py --from-json ru.json      # the sweep again

Every clip of the tuning voices (``corpus.TUNE_VOICES``; never the held-out
ones, which ``scripts/bench_asr.py`` reports on) is decoded through the live
path (``endpoint.Stream``) with the engine's rejection turned off, keeping for
each utterance what it said and how sure the engine was (``evidence``). The
sweep then puts each threshold back: an utterance below it reads as "not
understood" (``[unk]``). For each threshold it prints, per condition, right %,
wrong seat % and chatter accepted %, and it proposes the loosest threshold
whose wrong seats and accepted chatter stay under the goals (2 % and 3 %) with
a margin (1.5 % and 2 %) in every condition: the most right answers, summed
over the conditions, that keep the harm away.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Callable
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.listen import corpus
from narrator.listen import sphinx_asr
from narrator.listen import whisper_asr
from narrator.listen.engines import choices
from narrator.listen.words import UNKNOWN

WRONG_MAX, CHATTER_MAX = 0.015, 0.02  # under the goals (2 %, 3 %) with a margin

Rule = dict[str, float]


def loosen(engine: str) -> None:
    """Turn the engine's own rejection off: every answer comes back with its evidence."""
    if engine == "sphinx":
        sphinx_asr.REJECT.update({lang: -math.inf for lang in sphinx_asr.REJECT})
    if engine == "whisper":
        whisper_asr.LOGPROB = whisper_asr.LOGPROB_EXACT = -math.inf
        whisper_asr.NO_SPEECH = 1.0


def tuning_voices(lang: str) -> tuple[str, ...]:
    voices: dict[str, tuple[str, ...]] = getattr(corpus, "TUNE_VOICES", corpus.VOICES)
    return voices[lang]


def measure(engine_name: str, lang: str, speeds: tuple[int, ...]) -> list[dict[str, Any]]:
    loosen(engine_name)
    choice = next(c for c in choices(lang) if c.engine == engine_name)
    engine = choice.load()
    bank = corpus.Corpus()
    rows = []
    for clip in corpus.clips(lang, voices=tuning_voices(lang), speeds=speeds):
        found = corpus.heard(engine, bank, clip)
        rows.append(
            {
                "lang": lang,
                "engine": engine_name,
                "text": clip.phrase.text,
                "prompt": clip.phrase.prompt,
                "expected": clip.phrase.expected,
                "group": clip.phrase.group,
                "condition": clip.condition,
                "heard": [[d.text, dict(d.evidence)] for d in found],
            }
        )
    return rows


def rules(engine: str) -> list[Rule]:
    if engine == "sphinx":
        return [{"margin": m} for m in [-math.inf, *range(-60, 1, 2)]]
    # Whisper: one log-probability bound for a transcript that is exactly an allowed
    # phrase (``exact_logprob``) and a stricter one for a transcript matched to the
    # closest phrase (``logprob``); the same bound for both is among the rules.
    return [
        {"logprob": lp / 10, "exact_logprob": ex / 10, "no_speech": ns / 10}
        for lp, ns in itertools.product(range(-15, -1), (2, 3, 4, 6, 8, 10))
        for ex in range(-20, lp + 1)
    ]


def passes(evidence: dict[str, float], rule: Rule) -> bool:
    """Whether an utterance's evidence meets the rule: no-speech at most its bound, every
    other measure at least its own. ``exact_logprob`` stands in for ``logprob`` when the
    transcript was an allowed phrase as it was (``alike`` 1)."""
    exact = evidence.get("alike", 0.0) >= 1.0
    for key, bound in rule.items():
        name = "logprob" if key == "exact_logprob" else key
        if name == "logprob" and "exact_logprob" in rule and exact != (key == "exact_logprob"):
            continue
        value = evidence.get(name)
        if value is None:
            continue
        if (value > bound) if name == "no_speech" else (value < bound):
            return False
    return True


def outcome(row: dict[str, Any], rule: Rule) -> str:
    phrase = corpus.Phrase(row["lang"], row["text"], row["prompt"], row["expected"], row["group"])
    texts = [text if passes(evidence, rule) else UNKNOWN for text, evidence in row["heard"]]
    return corpus.outcome(phrase, texts)


def table(rows: list[dict[str, Any]], rule: Rule) -> dict[str, dict[str, float]]:
    """Per condition: right and wrong (of the answers), accepted (of the chatter)."""
    out: dict[str, dict[str, float]] = {}
    for condition in sorted({r["condition"] for r in rows}):
        answers = [r for r in rows if r["condition"] == condition and r["expected"] is not None]
        chatter = [r for r in rows if r["condition"] == condition and r["expected"] is None]
        got = [outcome(r, rule) for r in answers]
        taken = [outcome(r, rule) for r in chatter]
        out[condition] = {
            "right": got.count("right") / max(1, len(got)),
            "wrong": got.count("wrong") / max(1, len(got)),
            "accepted": taken.count("accepted") / max(1, len(taken)),
        }
    return out


def safe(cells: dict[str, dict[str, float]]) -> bool:
    return all(c["wrong"] <= WRONG_MAX and c["accepted"] <= CHATTER_MAX for c in cells.values())


def sweep(rows: list[dict[str, Any]], engine: str, show: Callable[[str], None]) -> Rule | None:
    conditions = sorted({r["condition"] for r in rows})
    show("rule | " + " | ".join(f"{c}: right/wrong/chatter" for c in conditions))
    best: tuple[float, Rule] | None = None
    for rule in rules(engine):
        cells = table(rows, rule)
        line = " | ".join(
            f"{cells[c]['right']:.0%}/{cells[c]['wrong']:.1%}/{cells[c]['accepted']:.1%}"
            for c in conditions
        )
        mark = " *" if safe(cells) else ""
        show(f"{rule} | {line}{mark}")
        right = sum(c["right"] for c in cells.values())  # the most right answers in all
        if safe(cells) and (best is None or right > best[0]):
            best = (right, rule)
    return None if best is None else best[1]


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("sphinx", "whisper"))
    parser.add_argument("--lang", choices=("en", "ru"))
    parser.add_argument("--json", type=Path, help="write every clip's evidence here")
    parser.add_argument("--quick", action="store_true", help="one speed, not both")
    parser.add_argument("--from-json", type=Path, help="sweep a file --json wrote")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.from_json:
        rows = json.loads(args.from_json.read_text("utf-8"))
    elif args.engine and args.lang:
        speeds = corpus.SPEEDS[:1] if args.quick else corpus.SPEEDS
        rows = measure(args.engine, args.lang, tuple(speeds))
        if args.json:
            args.json.write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    else:
        parser.error("--engine and --lang, or --from-json")
    engine = rows[0]["engine"]
    print(f"{engine} {rows[0]['lang']}: {len(rows)} clips of the tuning voices")
    chosen = sweep(rows, engine, print)
    print(f"proposed: {chosen}" if chosen else "no threshold keeps the harm under the goals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
