"""``scripts/tune_asr.py``: how a threshold turns the evidence of each utterance into outcomes."""

from __future__ import annotations

import math
from typing import Any

from tests.support import load_script

tune = load_script("tune_asr")


def row(text: str, expected: str | None, heard: list[tuple[str, dict[str, float]]]) -> Any:
    group = "chatter" if expected is None else "numbers"
    return {
        "lang": "en",
        "engine": "whisper",
        "text": text,
        "prompt": "seat",
        "expected": expected,
        "group": group,
        "condition": "clean",
        "heard": [[t, e] for t, e in heard],
    }


def test_an_utterance_below_the_threshold_is_not_understood() -> None:
    sure = {"logprob": -0.2, "no_speech": 0.1}
    unsure = {"logprob": -1.2, "no_speech": 0.1}
    silent = {"logprob": -0.2, "no_speech": 0.9}
    rows = [
        row("seven", "7", [("seven", sure)]),
        row("three", "3", [("eight", unsure)]),  # a wrong seat, unsure
        row("well i do not know", None, [("two", silent)]),  # chatter taken, unsure
    ]
    loose = tune.table(rows, {"logprob": -math.inf, "no_speech": 1.0})["clean"]
    assert loose == {"right": 0.5, "wrong": 0.5, "accepted": 1.0}
    strict = tune.table(rows, {"logprob": -0.8, "no_speech": 0.5})["clean"]
    assert strict == {"right": 0.5, "wrong": 0.0, "accepted": 0.0}
    assert tune.safe({"clean": strict}) and not tune.safe({"clean": loose})


def test_the_sweep_proposes_the_safe_rule_with_the_most_right_answers() -> None:
    rows = [row("seven", "7", [("seven", {"margin": -5.0})])] * 3 + [
        row("three", "3", [("eight", {"margin": -20.0})])
    ]
    lines: list[str] = []
    chosen = tune.sweep(rows, "sphinx", lines.append)
    assert chosen is not None and -20.0 < chosen["margin"] <= -5.0
    assert any(line.endswith(" *") for line in lines)


def test_an_exact_phrase_may_pass_a_looser_bound_than_a_matched_one() -> None:
    exact = {"logprob": -0.9, "no_speech": 0.1, "alike": 1.0}  # said "seven", wrote "seven"
    matched = {"logprob": -0.9, "no_speech": 0.1, "alike": 0.8}  # wrote "sevens": matched
    rule = {"logprob": -0.5, "exact_logprob": -1.0, "no_speech": 0.4}
    assert tune.passes(exact, rule) and not tune.passes(matched, rule)
    same = {"logprob": -0.5, "exact_logprob": -0.5, "no_speech": 0.4}
    assert not tune.passes(exact, same) and not tune.passes(matched, same)
    assert tune.passes({**matched, "logprob": -0.4}, rule)
    assert not tune.passes({**exact, "no_speech": 0.5}, rule)  # no-speech holds for both
    assert all(r["exact_logprob"] <= r["logprob"] for r in tune.rules("whisper"))
