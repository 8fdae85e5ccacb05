"""Helpers that several test files share: a script of ``scripts/`` as a module, a Python
process of its own, an espeak-ng speech cache, a game's rule switches, a tmux server of a
test's own.

Kept apart from ``tests/harness.py`` (the fake table and its checks).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeVar

from narrator.rules.core import Switches
from narrator.rules.registry import Variant
from narrator.rules.registry import make_switches

if TYPE_CHECKING:
    from narrator.voice.tts import SpeechCache

ROOT = Path(__file__).resolve().parent.parent
S = TypeVar("S", bound=Switches)


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported as the module ``name`` (scripts are no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_python(code: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``python -c CODE ARGS`` in a process of its own, in the checkout, nothing on its
    standard input; what it printed, as text."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def run_cli(
    *args: str, timeout: float, stdin: int | None = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    """``python -m narrator.cli ARGS`` from the checkout (this tree's package first), as the
    console command runs it; what it printed, as UTF-8 text."""
    return subprocess.run(
        [sys.executable, "-m", "narrator.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        check=False,
        stdin=stdin,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


ESPEAK = {"en": "espeak:gmw/en-us", "ru": "espeak:zle/ru"}  # the quickest voice of each


def espeak_cache(lang: str, folder: Path) -> SpeechCache:
    """A speech cache of espeak-ng in ``lang`` in a test's own ``folder``."""
    from narrator.voice.tts import SpeechCache  # only the tests that speak load the voice

    return SpeechCache(lang, voice=ESPEAK[lang], folder=folder)


def switches_maker(variant: Variant, kind: type[S]) -> Callable[..., S]:
    """``switches(**options)``: the rule switches of ``variant``, checked as the command line
    and scenario files are (a bad option is a ConfigError), typed as its own model."""

    def switches(**options: Any) -> S:
        made = make_switches(variant, options)
        assert isinstance(made, kind)
        return made

    return switches


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
