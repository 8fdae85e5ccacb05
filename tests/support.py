"""Helpers that several test files share: a script of ``scripts/`` as a module, a tmux
server of a test's own.

Kept apart from ``tests/harness.py`` (the fake table and its checks).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported as the module ``name`` (scripts are no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Tmux:
    """One tmux server of a test's own, named by ``socket``, without the user's settings."""

    socket: str
    env: dict[str, str]

    def __call__(self, *args: str) -> str:
        """``tmux ARGS`` on this server; its standard output (a failure fails the test)."""
        done = subprocess.run(
            ["tmux", "-u", "-f", os.devnull, "-L", self.socket, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"tmux {args[0]}: {done.stderr.strip()}"
        return done.stdout

    def kill(self) -> None:
        """The server and every pane in it gone (it may be gone already)."""
        subprocess.run(
            ["tmux", "-f", os.devnull, "-L", self.socket, "kill-server"],
            env=self.env,
            capture_output=True,
            timeout=60,
        )

    def children(self, target: str) -> list[int]:
        """The processes the shell of pane ``target`` started."""
        shell = self("display-message", "-p", "-t", target, "#{pane_pid}").strip()
        found = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True)
        return [int(pid) for pid in found.stdout.split()]
