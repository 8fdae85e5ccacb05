"""The bounded run of scripts/fuzz_files.py, one case of each danger per reader.

Each case runs the real command line in its own sandbox (fresh HOME, TMPDIR, a folder
"outside" that traversal names aim at). The verdict does not depend on the machine's
speed: the per-case limit here only catches a hang (the ≤ 10 s figure is the script's
own default run, reported in the closing note), memory is measured, not timed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_reader_refuses_the_hostile_files_without_harm() -> None:
    command = [sys.executable, str(ROOT / "scripts" / "fuzz_files.py"), "--quick"]
    command += ["--jobs", "1", "--timeout", "90", "--memory-mb", "300"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert " 0 failed, 0 wrote outside their folder, 0 tracebacks" in summary, summary
    readers = {line.split()[0] for line in run.stdout.splitlines()[1:] if line.strip()}
    expected = {"scenario", "pack", "record", "settings", "pronunciation", "model", "sound"}
    expected.add("output")
    assert expected <= readers, readers
