"""Issue 29, item 2: a friend's voice pack cannot escape the packs folder, exhaust the
machine or crash the importer.

Each class here failed before the safe importer: a manifest's ``name`` was used as a
path (absolute, ``../..``, ``~/``, into the record folder) and the pack written there;
members were not checked (links, traversal, duplicates, floods, members the manifest
does not name); a zip of silence unpacked to 600 MB; a 60 MB manifest was parsed and
one nested 2,000 deep ended in a RecursionError; ``voice import /dev/zero`` filled
memory and a named pipe blocked for ever.  The command line cases run as a process of
their own with a fresh HOME: exit 2, one line, no traceback, nothing written outside
the packs folder and nothing left in it.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import unicodedata
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from narrator.rules.errors import ConfigError
from narrator.voice.pack_file import import_pack
from narrator.voice.pack_manifest import MANIFEST, pack_folder
from narrator.voice.packs import VoicePack

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 120  # a hang detector, never a speed target
MB = 1024 * 1024
NIGHT = "onenight.night"


def flac(seconds: float = 0.3, rate: int = 16000) -> bytes:
    import soundfile

    t = np.arange(round(seconds * rate)) / rate
    buffer = io.BytesIO()
    soundfile.write(buffer, 0.5 * np.sin(2 * np.pi * 440 * t), rate, format="FLAC")
    return buffer.getvalue()


def manifest(name: str = "friend", files: dict[str, str] | None = None, extra: str = "") -> str:
    rows = [f"name = {toml_text(name)}", 'lang = "ru"', extra, "[lines]"]
    rows += [f'"{key}" = "{file}"' for key, file in (files or {NIGHT: "night.flac"}).items()]
    return "\n".join(rows) + "\n"


def toml_text(text: str) -> str:
    escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in text)
    return f'"{escaped}"'


Entry = tuple[str | zipfile.ZipInfo, bytes | str]


def write_zip(path: Path, entries: list[Entry]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": that is the point
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for member, data in entries:
                archive.writestr(member, data)
    return path


def good(name: str = "friend") -> list[Entry]:
    return [(MANIFEST, manifest(name)), ("night.flac", flac())]


def tree(folder: Path) -> set[Path]:
    found: set[Path] = set()
    for top, dirs, names in os.walk(folder):
        found.update(Path(top, entry) for entry in (*dirs, *names))
    return found


class Home:
    """A fresh HOME with its own XDG folders, and a working folder deep inside it, so
    that ``../..`` written by the old importer still landed inside the test's folder."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path
        self.home = tmp_path / "home"
        self.data = self.home / "data"
        self.packs = self.data / "narrator" / "voices"
        self.cwd = tmp_path / "work" / "deep" / "down"
        self.cwd.mkdir(parents=True)
        self.home.mkdir(exist_ok=True)

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "XDG_DATA_HOME": str(self.data),
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_CACHE_HOME": str(self.home / "cache"),
            "XDG_STATE_HOME": str(self.home / "state"),
            "PYTHONPATH": str(ROOT),
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "narrator.cli", *args],
            cwd=self.cwd,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=HANG_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )

    def refused(self, *args: str, words: str) -> str:
        """Run ``args``: exit 2, one line naming ``words``, and no trace left anywhere."""
        before = tree(self.root)
        result = self.run(*args)
        assert "Traceback" not in result.stderr, result.stderr[-2000:]
        assert result.returncode == 2, (result.returncode, result.stdout, result.stderr[-2000:])
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr[-2000:]
        assert words in lines[0], lines[0]
        self.nothing_left(before)
        return lines[0]

    def nothing_left(self, before: set[Path]) -> None:
        new = tree(self.root) - before
        outside = [p for p in new if p != self.packs and self.packs not in p.parents]
        assert not outside, f"written outside the packs folder: {sorted(outside)[:5]}"
        left = list(self.packs.iterdir()) if self.packs.is_dir() else []
        assert not left, f"left in the packs folder: {left}"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


# --- a pack's name is a name -------------------------------------------------------------


def hostile_names(home: Home) -> list[str]:
    return [
        str(home.root / "escaped"),  # absolute
        "../../escaped",
        "~/escaped",
        "~escaped",
        "../../../home/data/narrator/games/escaped",  # into the game-record folder
        "a/b",
        ".",
        "..",
        "",
        ".hidden",
        "-rf",
        "nul\0byte",
        "CON",
        "x" * 41,
    ]


def test_a_manifest_name_that_is_a_path_is_refused(home: Home) -> None:
    for number, name in enumerate(hostile_names(home)):
        file = write_zip(home.root / f"evil-{number}.zip", good(name))
        line = home.refused("voice", "import", str(file), words="name")
        assert "pack.toml: name:" in line, line
    assert not (home.root / "escaped").exists() and not (home.home / "escaped").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("voice", "import", "{zip}", "--name", "{abs}"),
        ("voice", "import", "{zip}", "--name", "../../escaped"),
        ("voice", "import", "{zip}", "--name", "~/escaped"),
        ("voice", "export", "../../escaped", "{out}"),
        ("voice", "export", "{abs}", "{out}"),
        ("voice", "build", "--lang", "en", "--variant", "onenight", "--name", "../escaped"),
        ("voice", "record", "--lang", "ru", "--pack", "../../escaped"),
    ],
)
def test_a_pack_name_on_the_command_line_is_a_name(home: Home, args: tuple[str, ...]) -> None:
    file = write_zip(home.root / "good.zip", good())
    (home.root / "escaped").mkdir()
    (home.root / "escaped" / MANIFEST).write_text(manifest("escaped"))
    values = {"zip": str(file), "abs": str(home.root / "escaped"), "out": str(home.root / "o.zip")}
    line = home.refused(*(arg.format(**values) for arg in args), words="voice pack name")
    assert "not a path" in line
    assert not (home.root / "o.zip").exists()


def test_plain_names_of_any_script_are_names(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    shared = import_pack(write_zip(tmp_path / "a.zip", good("Вася_2-й")), root=packs)
    assert shared.name == "Вася_2-й" and (packs / "Вася_2-й" / "night.flac").is_file()
    decomposed = unicodedata.normalize("NFD", "Петя-й")
    again = import_pack(write_zip(tmp_path / "b.zip", good(decomposed)), root=packs)
    assert again.name == "Петя-й" == unicodedata.normalize("NFC", again.name)
    assert VoicePack.load("Петя-й", root=packs).clip(NIGHT) is not None
    assert sorted(p.name for p in packs.iterdir()) == ["Вася_2-й", "Петя-й"]  # nothing else
    for bad in ("a b", "a.b", "x" * 41, "AUX", "../x", "~x", ""):
        with pytest.raises(ConfigError, match="voice pack name"):
            pack_folder(bad, packs)
