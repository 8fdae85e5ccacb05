#!/usr/bin/env python3
"""Regenerate the golden transcripts: the ``--text`` transcript of every acceptance scenario.

Each ``tests/scenarios/X.toml`` has ``tests/golden/X.txt`` beside the tests; a
change to what the narrator says or does shows up as a diff of these files for a
reviewer to read. ``tests/test_scenarios.py`` fails while they are out of date.

    .venv/bin/python scripts/golden.py           # rewrite the files that changed
    .venv/bin/python scripts/golden.py --check   # only compare; exit 1 if any differ
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from narrator.scenario import load_scenario
from narrator.scenario import run_scenario

TESTS = Path(__file__).resolve().parent.parent / "tests"
SCENARIOS = TESTS / "scenarios"
GOLDEN = TESTS / "golden"


def transcript(scenario: Path) -> str:
    """The scenario's transcript as ``narrator scenario run FILE --text`` prints it."""
    _, lines = run_scenario(load_scenario(scenario))
    return "\n".join(lines) + "\n"


def golden_file(scenario: Path) -> Path:
    return GOLDEN / f"{scenario.stem}.txt"


def stale() -> list[Path]:
    """The golden files that are missing, out of date, or left without a scenario."""
    scenarios = sorted(SCENARIOS.glob("*.toml"))
    wanted = {golden_file(s) for s in scenarios}
    out = [
        golden_file(s)
        for s in scenarios
        if not golden_file(s).is_file()
        or golden_file(s).read_text(encoding="utf-8") != transcript(s)
    ]
    return out + sorted(set(GOLDEN.glob("*.txt")) - wanted)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a diff")
    args = parser.parse_args()
    changed = stale()
    for path in changed:
        print(path.relative_to(TESTS.parent))
        if args.check:
            continue
        scenario = SCENARIOS / f"{path.stem}.toml"
        if scenario.is_file():
            path.write_text(transcript(scenario), encoding="utf-8")
        else:
            path.unlink()
    if args.check and changed:
        print(f"{len(changed)} golden file(s) out of date: run scripts/golden.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
