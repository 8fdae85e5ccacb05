"""Every scenario file in tests/scenarios/, played in-process, and a few through the CLI.

Each ``X.toml`` has an ``X.expected.json`` beside it. The keys ``winner``,
``ended_at``, ``eliminated``, ``rejected``, ``secrets`` and ``windows`` must
equal the runner's result exactly; ``sheriff``, when given, too. Two optional keys
check the spoken lines:
``spoken_contains`` (each must be one whole line of ``spoken``) and
``spoken_excludes`` (no line of ``spoken`` may contain any of them).
The ``--text`` transcript of each must equal its golden file ``tests/golden/X.txt``
(``scripts/golden.py`` rewrites them after an intended change).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from narrator.scenario import load_scenario
from narrator.scenario import run_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"
GOLDEN = ROOT / "tests" / "golden"
FILES = sorted(SCENARIOS.glob("*.toml"))
EXACT_KEYS = ("winner", "ended_at", "eliminated", "rejected", "secrets", "windows")
OPTIONAL_KEYS = ("sheriff", "spoken_contains", "spoken_excludes")
IDS = [p.stem for p in FILES]


@cache
def played(path: Path) -> tuple[dict[str, Any], list[str]]:
    return run_scenario(load_scenario(path))


def expected(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        path.with_suffix(".expected.json").read_text(encoding="utf-8")
    )
    return loaded


def test_there_are_scenarios() -> None:
    assert FILES, f"no scenario files in {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_every_scenario_has_an_expected_result_and_a_comment(path: Path) -> None:
    expected_path = path.with_suffix(".expected.json")
    assert expected_path.is_file(), f"{expected_path.name} is missing"
    keys = set(expected(path))
    assert not set(EXACT_KEYS) - keys, f"{expected_path.name} lacks {set(EXACT_KEYS) - keys}"
    unknown = keys - set(EXACT_KEYS) - set(OPTIONAL_KEYS)
    assert not unknown, f"{expected_path.name} has unknown keys {sorted(unknown)}"
    first = path.read_text(encoding="utf-8").lstrip().splitlines()[0]
    assert first.startswith("#"), f"{path.name}: the first line should name the test"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_scenario_result(path: Path) -> None:
    wanted = expected(path)
    result, _ = played(path)
    for key in EXACT_KEYS:
        assert result[key] == wanted[key], f"{path.stem}: {key}"
    if "sheriff" in wanted:  # also in a run stopped before the end: the badge at the stop
        assert result["sheriff"] == wanted["sheriff"], f"{path.stem}: sheriff"
    spoken: list[str] = result["spoken"]
    for line in wanted.get("spoken_contains", []):
        assert line in spoken, f"{path.stem}: not spoken: {line!r}"
    for text in wanted.get("spoken_excludes", []):
        said = [line for line in spoken if text in line]
        assert not said, f"{path.stem}: must not be spoken: {said}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_the_transcript_matches_its_golden_file(path: Path) -> None:
    golden = GOLDEN / f"{path.stem}.txt"
    assert golden.is_file(), f"{golden.name} is missing: run scripts/golden.py"
    _, transcript = played(path)
    text = "\n".join(transcript) + "\n"
    assert text == golden.read_text(encoding="utf-8"), (
        f"{path.stem}: the transcript changed; if that is intended, run scripts/golden.py "
        "and review the diff of tests/golden/"
    )


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_scenario_is_deterministic(path: Path) -> None:
    assert run_scenario(load_scenario(path)) == played(path)


# --- the command line: exit codes, JSON, --text (bad files: test_cli_errors.py) -------------


def narrator(*args: str, hash_seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    command = [sys.executable, "-m", "narrator.cli", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False, env=env)


def test_the_command_prints_the_result_as_json() -> None:
    path = SCENARIOS / "C-T6.toml"
    done = narrator("scenario", "run", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == played(path)[0]


def test_the_command_prints_the_transcript_with_text() -> None:
    path = SCENARIOS / "D-T2.toml"
    done = narrator("scenario", "run", str(path), "--text")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (GOLDEN / "D-T2.txt").read_text(encoding="utf-8")


def test_the_command_gives_the_same_game_under_any_hash_seed() -> None:
    """Set and dict order must not leak into a game: two processes, two hash seeds."""
    path = SCENARIOS / "D-T1.toml"
    first, second = (narrator("scenario", "run", str(path), hash_seed=s) for s in ("1", "2"))
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout


def test_a_malformed_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('game = "chess"\n[deal\n', encoding="utf-8")
    done = narrator("scenario", "run", str(path))
    assert done.returncode == 2
    assert "bad.toml" in done.stderr and "Traceback" not in done.stderr
