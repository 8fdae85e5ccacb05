"""Every scenario file in tests/scenarios/ through the real command line.

Each ``X.toml`` has an ``X.expected.json`` beside it. The keys ``winner``,
``ended_at``, ``eliminated``, ``rejected``, ``secrets`` and ``windows`` must
equal the runner's result exactly. Two optional keys check the spoken lines:
``spoken_contains`` (each must be one whole line of ``spoken``) and
``spoken_excludes`` (no line of ``spoken`` may contain any of them).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(SCENARIOS.glob("*.toml"))
EXACT_KEYS = ("winner", "ended_at", "eliminated", "rejected", "secrets", "windows")
OPTIONAL_KEYS = ("spoken_contains", "spoken_excludes")
TIMEOUT_S = 60


def _run(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "narrator.cli", "scenario", "run", str(path), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT_S,
        check=False,
    )


def _result(path: Path) -> dict[str, Any]:
    done = _run(path)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _expected(path: Path) -> dict[str, Any]:
    expected: dict[str, Any] = json.loads(
        path.with_suffix(".expected.json").read_text(encoding="utf-8")
    )
    return expected


def test_there_are_scenarios() -> None:
    assert FILES, f"no scenario files in {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_scenario_has_an_expected_result(path: Path) -> None:
    expected_path = path.with_suffix(".expected.json")
    assert expected_path.is_file(), f"{expected_path.name} is missing"
    expected = _expected(path)
    missing = [key for key in EXACT_KEYS if key not in expected]
    assert not missing, f"{expected_path.name} lacks {missing}"
    unknown = set(expected) - set(EXACT_KEYS) - set(OPTIONAL_KEYS)
    assert not unknown, f"{expected_path.name} has unknown keys {sorted(unknown)}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_scenario_starts_with_a_comment(path: Path) -> None:
    first = path.read_text(encoding="utf-8").lstrip().splitlines()[0]
    assert first.startswith("#"), f"{path.name}: the first line should name the test"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_result(path: Path) -> None:
    if not path.with_suffix(".expected.json").is_file():
        pytest.fail(f"{path.stem}.expected.json is missing")
    expected = _expected(path)
    result = _result(path)
    for key in EXACT_KEYS:
        assert result[key] == expected[key], f"{path.stem}: {key}"
    spoken: list[str] = result["spoken"]
    for line in expected.get("spoken_contains", []):
        assert line in spoken, f"{path.stem}: not spoken: {line!r}"
    for text in expected.get("spoken_excludes", []):
        said = [line for line in spoken if text in line]
        assert not said, f"{path.stem}: must not be spoken: {said}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_text_transcript(path: Path) -> None:
    done = _run(path, "--text")
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr}"
    assert done.stdout.strip()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_is_deterministic(path: Path) -> None:
    first, second = _run(path), _run(path)
    assert first.returncode == second.returncode == 0
    assert json.loads(first.stdout) == json.loads(second.stdout)
    assert first.stdout == second.stdout
