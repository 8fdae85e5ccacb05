"""The package as a wheel: every data file a game reads is inside it, and a fresh virtual
environment with nothing else installed renders a demo game from it (its dependencies come
from the package index, as `scripts/setup.sh` gets them: from pip's cache after set-up)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from narrator import __version__
from tests.support import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built as `pip wheel .` builds it, from a copy of the tracked files (the
    build writes beside its sources: never into the checkout)."""
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, tracked.split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(out)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    (built,) = out.glob("narrator-*.whl")
    return built


def test_the_wheel_holds_every_file_the_package_reads(wheel: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "narrator"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    with zipfile.ZipFile(wheel) as whole:
        inside = set(whole.namelist())
        meta = next(n for n in inside if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(whole.read(meta).decode())
        entry = next(n for n in inside if n.endswith(".dist-info/entry_points.txt"))
        entry_points = whole.read(entry).decode()
    missing = [name for name in tracked if name not in inside]
    assert not missing, missing  # data files (lines, pronunciation, phones) and code alike
    assert metadata["Version"] == __version__
    assert "narrator = narrator.cli:main" in entry_points


def test_a_fresh_environment_renders_a_demo_with_no_speech_engine_on_path(
    wheel: Path, tmp_path: Path
) -> None:
    """Installed from the wheel alone (its dependencies from the package index), with only
    the environment's own programs on PATH: no Festival, no espeak-ng program. A demo in
    English renders to a file with the voice that is a Python dependency (hibari)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        timeout=1200,
        capture_output=True,
    )
    env = {
        "PATH": str(venv / "bin"),
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
        **{k: os.environ[k] for k in ("PIP_INDEX_URL",) if k in os.environ},
    }
    out = tmp_path / "demo.ogg"

    def narrator(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
        command = [str(venv / "bin" / "narrator"), *args]
        return subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout
        )

    done = narrator(
        "demo", "onenight", "--lang", "en", "--seed", "3", "--output", str(out), timeout=1200
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.stat().st_size > 10_000
    doctor = narrator("doctor", timeout=120)
    assert doctor.returncode == 0 and "en:\n  voice:     hibari:heart" in doctor.stdout, doctor
