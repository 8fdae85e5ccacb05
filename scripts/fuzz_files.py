#!/usr/bin/env python3
"""Feed every file reader of narrator hostile files, each case in its own process.

Readers: scenario files (``scenario run``), voice packs (``voice import``), game records
and their keys (``resume --list``, ``resume 1 --text``), remembered set-up files (the
full-screen set-up screen, in a pseudo-terminal), pronunciation overrides (``voice
build``), speech model folders (``mic-test --asr-model``) and output paths
(``demo --output``). Hostile classes: traversal names and members, links, bombs, floods,
deep nesting, huge and endless files, named pipes, folders, wrong encodings, byte-order
marks, Unicode digits, garbage.

Every case runs in a fresh sandbox (its own HOME, TMPDIR and a folder "outside" that
traversal names aim at) and passes when:
  - it exits 0, or 2 with one line on standard error (the set-up screen: it opens, a
    SIGTERM then ends it with 143), and no "Traceback" appears anywhere;
  - nothing in the sandbox changed outside the folders the reader may write (a pack
    import: the packs folder; a record: the records and keys folders; ...), and no
    temporary file is left;
  - its peak memory (VmHWM) is at most --memory-mb and it ends within --timeout seconds.
It prints one row per case and a summary per reader; exit status 1 when any case failed.

    .venv/bin/python scripts/fuzz_files.py [--quick] [--reader R ...] [--hostile C ...] [--jobs N]
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import io
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import warnings
import wave
import zipfile
from collections.abc import Callable
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SCENARIO = ROOT / "tests" / "scenarios" / "A-T1.toml"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")
FRAME = 1024  # narrator.host.journal.FRAME_BYTES
GB = 1024**3

DATA = Path(".local/share/narrator")
CONFIG = Path(".config/narrator")
CACHE = Path(".cache/narrator")
STATE = Path(".local/state/narrator")
GAMES, KEYS, PACKS = DATA / "games", STATE / "keys", DATA / "voices"
DAMAGED = r"повреждён|damaged|не читается|unreadable"  # how resume --list names a bad record
# PulseAudio's client folder when there is no XDG_RUNTIME_DIR; onnxruntime's session file
LIBRARY_TMP = ("pulse-*", ".ses")


@dataclass
class Sandbox:
    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def inbox(self) -> Path:
        return self.root / "in"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    def env(self) -> dict[str, str]:
        keep = ("PATH", "LANG", "LC_ALL", "PULSE_SERVER", "PULSE_RUNTIME_PATH", "PYTHONPATH")
        env = {name: os.environ[name] for name in keep if name in os.environ}
        env |= {"HOME": str(self.home), "TMPDIR": str(self.tmp), "TERM": "xterm-256color"}
        env["PATH"] = f"{Path(PYTHON).parent}:{env.get('PATH', '/usr/bin:/bin')}"
        return env


@dataclass(frozen=True)
class Case:
    reader: str
    hostile: str  # the class
    name: str
    place: Callable[[Sandbox], list[str]]  # puts the files, returns narrator's argv
    writes: tuple[Path, ...] = ()  # folders under HOME the reader may change
    screen: bool = False  # the full-screen set-up screen, in a pseudo-terminal
    must_refuse: bool = False  # exit 2 is the only good end
    must_say: str = ""  # a pattern its output must match (a damaged record is named)


@dataclass
class Result:
    case: Case
    verdict: str = "ok"
    code: int | None = None
    seconds: float = 0.0
    peak_mb: float = 0.0
    detail: str = ""
    problems: list[str] = field(default_factory=list)


# --- hostile contents -------------------------------------------------------------------


def nested(depth: int, toml: bool) -> str:
    return ("v = " if toml else "") + "[" * depth + "]" * depth + "\n"


def put(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def special(path: Path, what: str, outside: Path) -> Path:
    """``path`` made into something that is not a plain small file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if what == "fifo":
        os.mkfifo(path)
    elif what == "dev-zero":
        path.symlink_to("/dev/zero")
    elif what == "folder":
        path.mkdir()
    elif what == "sparse-2gb":
        with path.open("wb") as out:
            out.truncate(2 * GB)
    elif what == "link-outside":
        put(outside / "target", b"x = 1\n")
        path.symlink_to(outside / "target")
    elif what == "dangling":
        path.symlink_to(outside / "nothing-here")
    return path


SPECIALS = ("fifo", "dev-zero", "folder", "sparse-2gb", "dangling")


def text_floods(toml: bool) -> dict[str, str | bytes]:
    """Hostile contents of a text file (TOML or JSON), by class."""
    flood = (
        "".join(f"k{i} = {i}\n" for i in range(200_000))
        if toml
        else "{" + ",".join(f'"k{i}": {i}' for i in range(200_000)) + "}"
    )
    return {
        "nesting-2000": nested(2000, toml),
        "nesting-200000": nested(200_000, toml),
        "flood-keys": flood,
        "long-text": ('v = "' if toml else '{"v": "') + "x" * 3_000_000 + ('"\n' if toml else '"}'),
        "huge-int": ("v = " if toml else '{"v": ') + "9" * 5000 + ("\n" if toml else "}"),
        "latin-1": ("v = 'caf\xe9'\n" if toml else '{"v": "caf\xe9"}').encode("latin-1"),
        "utf-16": ("v = 1\n" if toml else '{"v": 1}').encode("utf-16"),
        "nul-bytes": b"\x00" * 4096,
        "garbage": os.urandom(65536),
        "empty": b"",
    }


# --- readers ----------------------------------------------------------------------------


def scenario_cases() -> Iterator[Case]:
    base = SCENARIO.read_text("utf-8")
    contents: dict[str, str | bytes] = dict(text_floods(toml=True))
    contents["bom"] = b"\xef\xbb\xbf" + base.encode("utf-8")
    contents["unicode-digits"] = re.sub(r"\b(\d)\b", lambda m: chr(0x0660 + int(m[1])), base)
    contents["fullwidth-digits"] = re.sub(r"\b(\d)\b", lambda m: chr(0xFF10 + int(m[1])), base)
    for hostile, data in contents.items():
        yield Case("scenario", hostile.split("-")[0], hostile, _scenario_file(data))
    for what in SPECIALS:
        yield Case("scenario", what.split("-")[0], what, _scenario_special(what), must_refuse=True)


def _scenario_file(data: str | bytes) -> Callable[[Sandbox], list[str]]:
    def place(box: Sandbox) -> list[str]:
        return ["scenario", "run", str(put(box.inbox / "case.toml", data))]

    return place


def _scenario_special(what: str) -> Callable[[Sandbox], list[str]]:
    def place(box: Sandbox) -> list[str]:
        return ["scenario", "run", str(special(box.inbox / "case.toml", what, box.outside))]

    return place


def _wav() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(struct.pack("<800h", *([1000, -1000] * 400)))
    return buffer.getvalue()


def manifest(name: str, lines: dict[str, str] | None = None) -> str:
    rows = [f"name = {_quoted(name)}", 'lang = "en"', "", "[lines]"]
    rows += [f"{_quoted(k)} = {_quoted(v)}" for k, v in (lines or {"night": "night.wav"}).items()]
    return "\n".join(rows) + "\n"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _zip(path: Path, members: list[tuple[zipfile.ZipInfo | str, bytes]], level: int = 6) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        for member, data in members:
            archive.writestr(member, data)
    return path


def _link_member(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (0o120777 << 16) & 0xFFFF0000
    return info


def _bomb(path: Path, size: int) -> Path:
    """One member of ``size`` zero bytes, streamed in (not held in memory)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("pack.toml", manifest("bomb"))
        with archive.open("night.wav", "w", force_zip64=True) as member:
            block = bytes(1 << 20)
            for _ in range(size >> 20):
                member.write(block)
    return path


def pack_cases() -> Iterator[Case]:
    wav = _wav()
    record_folder = "~/.local/share/narrator/games/evil"

    def names(name_of: Callable[[Sandbox], str]) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            members = [("pack.toml", manifest(name_of(box)).encode()), ("night.wav", wav)]
            return ["voice", "import", str(_zip(box.inbox / "pack.zip", members))]

        return place

    def members(
        make: Callable[[Sandbox], list[tuple[zipfile.ZipInfo | str, bytes]]],
    ) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            return ["voice", "import", str(_zip(box.inbox / "pack.zip", make(box)))]

        return place

    def special_zip(what: str) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            return ["voice", "import", str(special(box.inbox / "pack.zip", what, box.outside))]

        return place

    def bomb(size: int) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            return ["voice", "import", str(_bomb(box.inbox / "pack.zip", size))]

        return place

    def manifest_text(text: str | bytes) -> Callable[[Sandbox], list[str]]:
        data = text.encode("utf-8") if isinstance(text, str) else text
        return members(lambda _box: [("pack.toml", data), ("night.wav", wav)])

    w = (PACKS,)
    yield Case("pack", "control", "a good pack", names(lambda _b: "good"), w)
    traversal = {
        "absolute": lambda b: str(b.outside / "evil"),
        "dotdot": lambda _b: "../../../../outside/evil",
        "tilde": lambda _b: "~/evil",
        "records": lambda _b: record_folder,
        "dot": lambda _b: ".",
        "empty": lambda _b: "",
        "nul": lambda _b: "a\x00b",
        "long": lambda _b: "n" * 300,
    }
    for label, name_of in traversal.items():
        yield Case("pack", "traversal", f"name {label}", names(name_of), w, must_refuse=True)
    evil = {
        "absolute": lambda b: [("pack.toml", manifest("m").encode()), (f"{b.outside}/x.wav", wav)],
        "dotdot": lambda _b: [
            ("pack.toml", manifest("m", {"night": "../../x.wav"}).encode()),
            ("../../x.wav", wav),
        ],
        "link": lambda b: [
            ("pack.toml", manifest("m").encode()),
            (_link_member("night.wav", str(b.outside)), str(b.outside).encode()),
        ],
        "duplicates-20000": lambda _b: (
            [("pack.toml", manifest("m").encode())] + [("night.wav", b"")] * 20_000
        ),
        "members-100000": lambda _b: (
            [("pack.toml", manifest("m").encode())] + [(f"f{i}.wav", b"") for i in range(100_000)]
        ),
        "backslash": lambda _b: [("pack.toml", manifest("m").encode()), ("..\\..\\x.wav", wav)],
    }
    for label, make in evil.items():
        klass = label.split("-")[0] if label[0] in "dm" else "traversal"
        klass = {"duplicates": "flood", "members": "flood"}.get(klass, klass)
        yield Case("pack", klass, f"member {label}", members(make), w, must_refuse=True)
    yield Case("pack", "bomb", "600 MB of zeros", bomb(600 << 20), w, must_refuse=True)
    big = manifest("m") + "".join(f'"k{i}" = "night.wav"\n' for i in range(2_000_000))
    yield Case("pack", "flood", "60 MB manifest", manifest_text(big), w, must_refuse=True)
    yield Case(
        "pack",
        "nesting",
        "manifest 2000 deep",
        manifest_text(nested(2000, True)),
        w,
        must_refuse=True,
    )
    yield Case(
        "pack",
        "encoding",
        "manifest latin-1",
        manifest_text("name = 'caf\xe9'".encode("latin-1")),
        w,
        must_refuse=True,
    )
    yield Case(
        "pack",
        "bom",
        "manifest with a BOM",
        manifest_text(b"\xef\xbb\xbf" + manifest("bom").encode()),
        w,
    )
    for what in SPECIALS:
        yield Case("pack", what.split("-")[0], what, special_zip(what), w, must_refuse=True)
    yield Case("pack", "garbage", "not a zip", _garbage_zip, w, must_refuse=True)


def _garbage_zip(box: Sandbox) -> list[str]:
    return ["voice", "import", str(put(box.inbox / "pack.zip", os.urandom(100_000)))]


# A real sealed record and its key, made once by a real game stopped in its first night.
_RECORD: dict[str, bytes] = {}


def make_record(work: Path) -> None:
    import pexpect

    box = Sandbox(work / "record-maker")
    for folder in (box.home, box.tmp):
        folder.mkdir(parents=True, exist_ok=True)
    argv = ["-m", "narrator.cli", "play", "onenight", "--text", "--silent", "--players", "3"]
    argv += ["--lang", "en", "--demo", "--window", "5"]
    child = pexpect.spawn(PYTHON, argv, cwd=ROOT, env=box.env(), encoding="utf-8", timeout=60)
    child.expect("The High Inquisitor has a prophetic dream")
    time.sleep(2.0)
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    child.close()
    (record,) = (box.home / GAMES).glob("*.sealed")
    (key,) = (box.home / KEYS).glob("*.key")
    _RECORD.update(name=record.name.encode(), record=record.read_bytes(), key=key.read_bytes())
    _RECORD["key_name"] = key.name.encode()


def record_cases() -> Iterator[Case]:
    def tampered(change: Callable[[bytes], bytes], key: Callable[[bytes], bytes] | None = None):
        def place(box: Sandbox) -> list[str]:
            put(box.home / GAMES / _RECORD["name"].decode(), change(_RECORD["record"]))
            key_path = box.home / KEYS / _RECORD["key_name"].decode()
            if key is None:
                put(key_path, _RECORD["key"])
            elif (made := key(_RECORD["key"])) != b"<missing>":
                put(key_path, made)
            return ["resume", "--list"]

        return place

    def frames(data: bytes) -> list[bytes]:
        return [data[i : i + FRAME] for i in range(0, len(data), FRAME)]

    def flip(data: bytes) -> bytes:
        middle = len(data) // 2
        return data[:middle] + bytes([data[middle] ^ 0x10]) + data[middle + 1 :]

    def zero_middle(data: bytes) -> bytes:
        parts = frames(data)
        parts[len(parts) // 2] = bytes(FRAME)
        return b"".join(parts)

    def swap(data: bytes) -> bytes:
        parts = frames(data)
        parts[1], parts[2] = parts[2], parts[1]
        return b"".join(parts)

    def duplicate(data: bytes) -> bytes:
        parts = frames(data)
        return b"".join([*parts[:2], parts[1], *parts[2:]])

    def special_record(what: str, on_key: bool) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            record = box.home / GAMES / _RECORD["name"].decode()
            key = box.home / KEYS / _RECORD["key_name"].decode()
            if on_key:
                put(record, _RECORD["record"])
                special(key, what, box.outside)
            else:
                put(key, _RECORD["key"])
                special(record, what, box.outside)
            return ["resume", "--list"]

        return place

    w = (GAMES, KEYS)
    same = lambda data: data  # noqa: E731
    yield Case("record", "control", "an unfinished game", tampered(same), w)
    yield Case("record", "tamper", "a torn last frame", tampered(lambda d: d[:-300]), w)
    yield Case("record", "tamper", "a flipped bit", tampered(flip), w, must_say=DAMAGED)
    yield Case(
        "record", "tamper", "a zeroed middle frame", tampered(zero_middle), w, must_say=DAMAGED
    )
    yield Case("record", "tamper", "swapped frames", tampered(swap), w, must_say=DAMAGED)
    yield Case("record", "tamper", "a duplicated frame", tampered(duplicate), w, must_say=DAMAGED)
    yield Case(
        "record",
        "tamper",
        "garbage appended",
        tampered(lambda d: d + os.urandom(3000)),
        w,
        must_say=DAMAGED,
    )
    yield Case(
        "record", "garbage", "garbage", tampered(lambda _d: os.urandom(8192)), w, must_say=DAMAGED
    )
    yield Case(
        "record",
        "key",
        "the key missing",
        tampered(same, lambda _k: b"<missing>"),
        w,
        must_say=DAMAGED,
    )
    yield Case(
        "record",
        "key",
        "the key damaged",
        tampered(same, lambda k: k[:-5] + b"zzzzz"),
        w,
        must_say=DAMAGED,
    )
    yield Case(
        "record",
        "key",
        "the key garbage",
        tampered(same, lambda _k: os.urandom(600)),
        w,
        must_say=DAMAGED,
    )
    yield Case(
        "record",
        "nesting",
        "the key 2000 deep",
        tampered(same, lambda _k: nested(2000, False).encode()),
        w,
        must_say=DAMAGED,
    )
    yield Case(
        "record",
        "huge",
        "the key 50 MB",
        tampered(same, lambda _k: b" " * (50 << 20)),
        w,
        must_say=DAMAGED,
    )
    for what in SPECIALS:
        klass = what.split("-")[0]
        yield Case(
            "record", klass, f"record {what}", special_record(what, False), w, must_say=DAMAGED
        )
        yield Case("record", klass, f"key {what}", special_record(what, True), w, must_say=DAMAGED)

    def resume_damaged(box: Sandbox) -> list[str]:
        tampered(zero_middle)(box)
        return ["resume", "1", "--text", "--silent", "--lang", "en"]

    yield Case("record", "tamper", "resume a zeroed frame", resume_damaged, w, must_refuse=True)


def settings_cases() -> Iterator[Case]:
    contents: dict[str, str | bytes] = {
        f"json {k}": v for k, v in text_floods(toml=False).items() if k != "nesting-200000"
    }
    contents |= {
        "bad lang": '{"game": "onenight", "lang": "xx"}',
        "bad input": '{"game": "onenight", "input": "telepathy"}',
        "wrong types": '{"game": 7, "lang": ["ru"], "players": "many", "options": 3}',
        "unicode digits": '{"game": "onenight", "players": "٥"}',
        "a list": "[1, 2, 3]",
        "bom": b'\xef\xbb\xbf{"game": "onenight", "lang": "en"}',
    }

    def at(data: str | bytes) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            put(box.home / CONFIG / "last" / "onenight.json", data)
            return ["play", "onenight"]

        return place

    def made(what: str) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            special(box.home / CONFIG / "last" / "onenight.json", what, box.outside)
            return ["play", "onenight"]

        return place

    w = (CONFIG, CACHE, DATA, STATE)  # the set-up screen looks for stopped games
    for label, data in contents.items():
        klass = label.split()[-1].split("-")[0] if label.startswith("json") else label.split()[0]
        yield Case("settings", klass, label, at(data), w, screen=True)
    for what in SPECIALS:
        yield Case("settings", what.split("-")[0], what, made(what), w, screen=True)


def pronunciation_cases() -> Iterator[Case]:
    expanding = "".join(f'"{w}" = "{(w + " ") * 60}"\n' for w in _COMMON) * 1
    filler = "".join(f'"w{i}" = "{"long " * 20}"\n' for i in range(1200))
    contents: dict[str, str | bytes] = dict(text_floods(toml=True))
    contents["expanding 126 KB"] = "[say]\n" + expanding + filler
    contents["bom"] = b'\xef\xbb\xbf"night" = "nite"\n'

    def at(data: str | bytes) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            put(box.home / CONFIG / "pronunciation" / "en.toml", data)
            return _BUILD

        return place

    def made(what: str) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            special(box.home / CONFIG / "pronunciation" / "en.toml", what, box.outside)
            return _BUILD

        return place

    w = (CACHE,)
    for label, data in contents.items():
        yield Case("pronunciation", label.split()[0].split("-")[0], label, at(data), w)
    for what in SPECIALS:
        yield Case("pronunciation", what.split("-")[0], what, made(what), w)


_COMMON = ("the", "a", "player", "number", "night", "wakes", "up", "is", "of", "and", "to")
_BUILD = ["voice", "build", "--lang", "en", "--variant", "onenight", "--voice", "espeak:gmw/en-us"]


def model_cases() -> Iterator[Case]:
    def model(break_it: Callable[[Sandbox, Path], None]) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            folder = box.inbox / "vosk-model-small-en-us-0.15"
            for part in ("am/final.mdl", "graph/HCLr.fst", "graph/Gr.fst", "conf/model.conf"):
                put(folder / part, os.urandom(4096))
            break_it(box, folder)
            return ["mic-test", "--lang", "en", "--asr", "vosk", "--asr-model", str(folder)]

        return place

    def replace(part: str, what: str) -> Callable[[Sandbox, Path], None]:
        def break_it(box: Sandbox, folder: Path) -> None:
            (folder / part).unlink()
            special(folder / part, what, box.outside)

        return break_it

    yield Case("model", "garbage", "garbage weights", model(lambda _b, _f: None), must_refuse=True)
    for part in ("am/final.mdl", "conf/model.conf"):
        for what in ("fifo", "dev-zero", "folder", "dangling"):
            yield Case(
                "model",
                what.split("-")[0],
                f"{part} {what}",
                model(replace(part, what)),
                must_refuse=True,
            )


def sound_cases() -> Iterator[Case]:
    """Recordings given to ``narrator hear``: every one must be refused in one line."""

    def hear(make: Callable[[Sandbox, Path], Path]) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            path = make(box, box.inbox / "answer.flac")
            return ["hear", str(path), "--lang", "en", "--answer", "seat", "--asr", "sphinx"]

        return place

    def silence_bomb(_box: Sandbox, path: Path) -> Path:
        """Two hours of stereo silence: a few hundred KB of FLAC, gigabytes decoded."""
        import numpy as np
        import soundfile

        path.parent.mkdir(parents=True, exist_ok=True)
        minute = np.zeros((48000 * 60, 2), dtype=np.int16)
        with soundfile.SoundFile(str(path), "w", 48000, 2, format="FLAC") as sound:
            for _ in range(120):
                sound.write(minute)
        return path

    def data(content: bytes) -> Callable[[Sandbox, Path], Path]:
        return lambda _box, path: put(path, content)

    yield Case("sound", "bomb", "hours of silence", hear(silence_bomb), must_refuse=True)
    yield Case("sound", "garbage", "garbage", hear(data(os.urandom(65536))), must_refuse=True)
    yield Case("sound", "missing", "empty", hear(data(b"")), must_refuse=True)

    def made_into(what: str) -> Callable[[Sandbox, Path], Path]:
        return lambda box, path: special(path, what, box.outside)

    for what in SPECIALS:
        made = hear(made_into(what))
        yield Case("sound", what.split("-")[0], f"sound {what}", made, must_refuse=True)


def output_cases() -> Iterator[Case]:
    def demo(path_of: Callable[[Sandbox], Path]) -> Callable[[Sandbox], list[str]]:
        def place(box: Sandbox) -> list[str]:
            return ["demo", "onenight", "--lang", "en", "--output", str(path_of(box))]

        return place

    paths: dict[str, Callable[[Sandbox], Path]] = {
        "/proc": lambda _b: Path("/proc/narrator-fuzz.ogg"),
        "missing folder": lambda b: b.outside / "no" / "such" / "x.ogg",
        "a folder": lambda b: _mkdir(b.outside / "x.ogg"),
        "a fifo": lambda b: special(b.outside / "x.ogg", "fifo", b.outside),
        "a device": lambda b: _linked(b.outside / "x.ogg", "/dev/null"),
        "a file as folder": lambda b: put(b.outside / "file", b"x") / "x.ogg",
        "unknown ending": lambda b: b.outside / "x.exe",
    }
    for label, path_of in paths.items():
        yield Case("output", "path", label, demo(path_of), must_refuse=True)


def _linked(path: Path, target: str) -> Path:
    path.symlink_to(target)
    return path


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


CLASSES = (  # the hostile classes, by words of a case's name (first match)
    ("link", ("link", "dangling")),
    ("traversal", ("absolute", "dotdot", "tilde", "records", "backslash", "name dot", "/proc")),
    ("bomb", ("zeros",)),
    ("flood", ("flood", "duplicates", "members", "MB manifest", "expanding")),
    ("nesting", ("nesting", "deep")),
    ("huge", ("sparse", "long", "huge", "50 MB")),
    ("endless", ("dev-zero", "device")),
    ("fifo", ("fifo",)),
    ("encoding", ("latin-1", "utf-16", "nul", "BOM", "bom")),
    ("digits", ("digits",)),
    ("tamper", ("bit", "frame", "garbage appended", "key damaged")),
    ("missing", ("missing", "empty")),
)


def hostile_class(case: Case) -> str:
    for klass, words in CLASSES:
        if any(word in case.name for word in words):
            return klass
    return case.hostile


READERS: dict[str, Callable[[], Iterator[Case]]] = {
    "scenario": scenario_cases,
    "pack": pack_cases,
    "record": record_cases,
    "settings": settings_cases,
    "pronunciation": pronunciation_cases,
    "model": model_cases,
    "sound": sound_cases,
    "output": output_cases,
}
QUICK = {  # one case of each kind of danger, for the test suite
    "scenario": ("nesting-2000", "fifo", "dev-zero", "sparse-2gb"),
    "pack": ("name dotdot", "member link", "600 MB of zeros", "dev-zero"),
    "record": ("a zeroed middle frame", "the key missing", "record sparse-2gb", "record fifo"),
    "settings": ("bad lang", "dev-zero"),
    "pronunciation": ("nesting-2000",),
    "model": ("am/final.mdl fifo",),
    "sound": ("hours of silence", "sound fifo"),
    "output": ("/proc", "missing folder"),
}


# --- running ----------------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, tuple[str, int, int]]:
    found: dict[str, tuple[str, int, int]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            info = path.lstat()
            kind = "d" if path.is_dir() and not path.is_symlink() else "f"
            size = 0 if kind == "d" or not path.is_file() else info.st_size
            found[str(path.relative_to(root))] = (
                kind,
                size,
                info.st_mtime_ns if kind == "f" else 0,
            )
    return found


def changes(
    before: dict[str, tuple[str, int, int]],
    after: dict[str, tuple[str, int, int]],
    box: Sandbox,
    case: Case,
) -> list[str]:
    allowed = [str(Path("home") / w) for w in case.writes]
    ours = [str(Path("home") / f) for f in (DATA, CONFIG, CACHE, STATE)]
    changed = [p for p in set(before) | set(after) if before.get(p) != after.get(p)]
    problems: list[str] = []
    for path in sorted(changed):
        if _under(path, allowed) or any(a.startswith(path + "/") for a in allowed + ours):
            continue  # the reader's own folder, or a parent made for it
        if path.startswith("tmp/"):
            if not any(fnmatch.fnmatch(path.split("/")[1], t) for t in LIBRARY_TMP):
                problems.append(f"left behind: {path}")
        elif path.startswith("home/") and not _under(path, ours):
            continue  # a library's own dot-folder in HOME (PulseAudio, onnxruntime)
        else:
            problems.append(f"written outside: {path}")
    return _grouped(problems)


def _under(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f + "/") for f in folders)


def _grouped(problems: list[str]) -> list[str]:
    """One entry per kind of problem: the first path and how many more."""
    kinds: dict[str, list[str]] = {}
    for problem in problems:
        kind, _, path = problem.partition(": ")
        kinds.setdefault(kind, []).append(path)
    return [
        f"{kind}: {paths[0]}" + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")
        for kind, paths in kinds.items()
    ]


def run_case(case: Case, work: Path, timeout: float, memory_mb: float) -> Result:
    box = Sandbox(Path(tempfile.mkdtemp(prefix="case-", dir=work)))
    for folder in (box.home, box.inbox, box.outside, box.tmp):
        folder.mkdir()
    if case.reader == "pronunciation":
        shutil.copytree(work / "warm-cache", box.home / CACHE, dirs_exist_ok=True)
    result = Result(case)
    try:
        argv = case.place(box)
    except Exception as error:
        result.verdict, result.detail = "unmade", f"{type(error).__name__}: {error}"
        return result
    before = snapshot(box.root)
    command = [PYTHON, "-m", "narrator.cli", *argv]
    start = time.monotonic()
    if case.screen:
        output, code, peak, hung = _run_screen(command, box, timeout)
        stderr = output
    else:
        output, stderr, code, peak, hung = _run_plain(command, box, timeout)
    result.seconds = time.monotonic() - start
    result.code, result.peak_mb = code, peak
    text = ANSI.sub("", output + stderr)
    lines = [line for line in stderr.splitlines() if line.strip()]
    last = lines[-1] if lines else ANSI.sub("", output).strip()[-120:]
    result.detail = " ".join(last.split())[:140]
    if case.screen:
        result.detail = "the set-up screen opened" if code == 128 + signal.SIGTERM else ""
    result.problems += _exit_problems(case, code, lines, text, hung, timeout)
    if peak > memory_mb:
        result.problems.append(f"peak memory {peak:.0f} MB")
    result.problems += changes(before, snapshot(box.root), box, case)
    if result.problems:
        result.verdict = "FAIL"
    shutil.rmtree(box.root, ignore_errors=True)
    return result


def _exit_problems(
    case: Case, code: int | None, lines: list[str], text: str, hung: bool, timeout: float
) -> list[str]:
    """What is wrong with how the case ended: a hang, a traceback, another exit."""
    problems = [f"no end within {timeout:g} s"] if hung else []
    if "Traceback" in text:
        problems.append("a traceback")
    if case.screen:
        if not hung and code != 128 + signal.SIGTERM:
            problems.append(f"the set-up screen did not open (exit {code})")
    elif code == 2:
        if len(lines) != 1:
            problems.append(f"exit 2 with {len(lines)} lines on stderr")
    elif code != 0 or case.must_refuse:
        problems.append(f"exit {code}" + (" (must be refused: 2)" if case.must_refuse else ""))
    if case.must_say and not re.search(case.must_say, text, re.IGNORECASE):
        problems.append(f"its output does not match {case.must_say!r}")
    return problems


def _peak(pid: int, peak: float) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return peak
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return max(peak, int(found[1]) / 1024) if found else peak


def _run_plain(
    command: list[str], box: Sandbox, timeout: float
) -> tuple[str, str, int | None, float, bool]:
    out, err = box.root / "stdout", box.root / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        child = subprocess.Popen(
            command,
            cwd=box.root,
            env=box.env(),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        peak, hung, deadline = 0.0, False, time.monotonic() + timeout
        while child.poll() is None:
            peak = _peak(child.pid, peak)
            if time.monotonic() > deadline or peak > 2048:
                hung = time.monotonic() > deadline
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                break
            time.sleep(0.05)
    with _quietly():
        os.killpg(child.pid, signal.SIGKILL)  # a child it left behind
    stdout_text = out.read_bytes().decode("utf-8", "replace")
    stderr_text = err.read_bytes().decode("utf-8", "replace")
    out.unlink()
    err.unlink()
    return stdout_text, stderr_text, child.returncode, peak, hung


def _run_screen(
    command: list[str], box: Sandbox, timeout: float
) -> tuple[str, int | None, float, bool]:
    import pexpect

    child = pexpect.spawn(
        command[0],
        command[1:],
        cwd=box.root,
        env=box.env(),
        dimensions=(40, 120),
        encoding="utf-8",
        codec_errors="replace",
        timeout=timeout,
    )
    peak = _peak(child.pid, 0.0)
    seen = child.expect([r"Начать|Start", "Traceback", pexpect.EOF, pexpect.TIMEOUT])
    peak = _peak(child.pid, peak)
    output = (child.before or "") + (child.after if isinstance(child.after, str) else "")
    hung = seen == 3
    if seen in (0, 1):
        child.kill(signal.SIGTERM)
        with _quietly():
            child.expect(pexpect.EOF, timeout=timeout)
        output += child.before or ""
    child.close(force=True)
    code = child.exitstatus if child.exitstatus is not None else 128 + (child.signalstatus or 0)
    return output, code, peak, hung


class _quietly:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True


def warm_cache(work: Path) -> None:
    """The speech cache of one build with no override, so a case that falls back to the
    bundled pronunciation renders nothing and ends in its time."""
    box = Sandbox(work / "cache-maker")
    for folder in (box.home, box.tmp):
        folder.mkdir(parents=True, exist_ok=True)
    command = [PYTHON, "-m", "narrator.cli", *_BUILD]
    subprocess.run(command, cwd=ROOT, env=box.env(), capture_output=True, check=True)
    shutil.copytree(box.home / CACHE, work / "warm-cache")


def main(argv: list[str] | None = None) -> int:
    warnings.filterwarnings("ignore", "Duplicate name", UserWarning)  # made on purpose
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one case of each kind of danger")
    parser.add_argument("--reader", action="append", choices=sorted(READERS))
    parser.add_argument("--hostile", action="append", help="only cases of this class")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per case")
    parser.add_argument("--memory-mb", type=float, default=300.0)
    args = parser.parse_args(argv)
    cases = [case for name in args.reader or READERS for case in READERS[name]()]
    cases = [dataclasses.replace(case, hostile=hostile_class(case)) for case in cases]
    if args.quick:
        cases = [case for case in cases if case.name in QUICK.get(case.reader, ())]
    if args.hostile:
        cases = [case for case in cases if case.hostile in args.hostile]
    work = Path(tempfile.mkdtemp(prefix="narrator-fuzz-files-"))
    try:
        if any(case.reader == "record" for case in cases):
            make_record(work)
        if any(case.reader == "pronunciation" for case in cases):
            warm_cache(work)
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = list(
                pool.map(lambda c: run_case(c, work, args.timeout, args.memory_mb), cases)
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report(results)


def report(results: list[Result]) -> int:
    print(f"{'reader':<14}{'class':<11}{'case':<26}{'exit':>5}{'s':>6}{'MB':>6}  verdict")
    for r in results:
        code = "-" if r.code is None else str(r.code)
        line = f"{r.case.reader:<14}{r.case.hostile:<11}{r.case.name[:25]:<26}{code:>5}"
        line += f"{r.seconds:>6.1f}{r.peak_mb:>6.0f}  {r.verdict}"
        print(line + (f": {'; '.join(r.problems)}" if r.problems else f"  {r.detail[:60]}"))
    print()
    print(f"{'reader':<14}{'cases':>6}{'failed':>7}{'max s':>7}{'max MB':>8}")
    for reader in dict.fromkeys(r.case.reader for r in results):
        mine = [r for r in results if r.case.reader == reader]
        bad = sum(r.verdict != "ok" for r in mine)
        slowest, peak = max(r.seconds for r in mine), max(r.peak_mb for r in mine)
        print(f"{reader:<14}{len(mine):>6}{bad:>7}{slowest:>7.1f}{peak:>8.0f}")
    failed = [r for r in results if r.verdict != "ok"]
    outside = sum(any(p.startswith("written outside") for p in r.problems) for r in results)
    tracebacks = sum("a traceback" in r.problems for r in results)
    print(
        f"\n{len(results)} cases: {len(failed)} failed, {outside} wrote outside their folder, "
        f"{tracebacks} tracebacks, peak {max((r.peak_mb for r in results), default=0):.0f} MB, "
        f"slowest {max((r.seconds for r in results), default=0):.1f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
