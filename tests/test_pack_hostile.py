"""A friend's voice pack cannot escape the packs folder, exhaust the
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
import stat
import struct
import subprocess
import sys
import unicodedata
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from narrator.rules.errors import ConfigError
from narrator.voice import pack_file
from narrator.voice.pack_file import import_pack
from narrator.voice.pack_manifest import MANIFEST
from narrator.voice.pack_manifest import pack_folder
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


# --- members -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "words"),
    [
        ("../../escaped.flac", "climbs out with '..'"),
        ("sub/../../escaped.flac", "climbs out with '..'"),
        ("/tmp/escaped.flac", "is an absolute path"),
        ("C:escaped.flac", "is an absolute path"),
        ("..\\..\\escaped.flac", "backslash"),
        ("sub//night.flac", "not a plain file name"),
        ("./night.flac", "not a plain file name"),
        ("notes.txt", "is not named in its pack.toml"),
        ("sub/night.flac", "is not named in its pack.toml"),
    ],
)
def test_members_that_climb_out_or_are_not_listed_are_refused(
    home: Home, member: str, words: str
) -> None:
    file = write_zip(home.root / "evil.zip", [*good(), (member, flac())])
    home.refused("voice", "import", str(file), words=words)


def test_a_link_or_a_folder_with_data_is_refused(home: Home) -> None:
    link = zipfile.ZipInfo("night.flac")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    file = write_zip(home.root / "link.zip", [(MANIFEST, manifest()), (link, "/etc/passwd")])
    home.refused("voice", "import", str(file), words="is a symbolic link")
    fifo = zipfile.ZipInfo("night.flac")
    fifo.external_attr = (stat.S_IFIFO | 0o644) << 16
    file = write_zip(home.root / "fifo.zip", [(MANIFEST, manifest()), (fifo, flac())])
    home.refused("voice", "import", str(file), words="is not a plain file")
    folder = zipfile.ZipInfo("sub/")
    file = write_zip(home.root / "folder.zip", [*good(), (folder, b"hidden data")])
    home.refused("voice", "import", str(file), words="is a folder with data in it")


@pytest.mark.parametrize(
    "twin",
    ["night.flac", "NIGHT.flac", "Night.FLAC"],
)
def test_a_member_twice_is_refused(home: Home, twin: str) -> None:
    file = write_zip(home.root / "twice.zip", [*good(), (twin, flac(0.5))])
    home.refused("voice", "import", str(file), words="is in it twice")


def test_a_member_twice_after_unicode_normalisation_is_refused(home: Home) -> None:
    composed = unicodedata.normalize("NFC", "ёжик.flac")
    decomposed = unicodedata.normalize("NFD", "ёжик.flac")
    assert composed != decomposed
    entries: list[Entry] = [
        (MANIFEST, manifest(files={NIGHT: composed})),
        (composed, flac()),
        (decomposed, flac(0.5)),
    ]
    file = write_zip(home.root / "nfd.zip", entries)
    home.refused("voice", "import", str(file), words="is in it twice")


def test_one_member_20000_times_is_refused(home: Home) -> None:
    entries: list[Entry] = [(MANIFEST, manifest())]
    entries += [("night.flac", b"x")] * 20_000
    file = write_zip(home.root / "dup.zip", entries)
    home.refused("voice", "import", str(file), words="members, more than 5000")
    with pytest.raises(ConfigError, match="members, more than"):
        import_pack(file, root=home.packs)


def test_a_manifest_naming_one_member_20000_times_is_refused(home: Home) -> None:
    """Each name was unpacked and decoded again: 22 s of CPU for a 58 KB file."""
    lines = {f"line.{n}": "night.flac" for n in range(20_000)}
    file = write_zip(
        home.root / "many.zip", [(MANIFEST, manifest(files=lines)), ("night.flac", flac())]
    )
    home.refused("voice", "import", str(file), words="names 20000 recordings, more than 5000")


def test_100000_members_are_refused(home: Home) -> None:
    with zipfile.ZipFile(home.root / "flood.zip", "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, manifest())
        for number in range(100_000):
            archive.writestr(f"{number}.flac", b"")
    home.refused("voice", "import", str(home.root / "flood.zip"), words="members, more than 5000")


def test_a_central_directory_that_lies_about_its_count_is_refused(tmp_path: Path) -> None:
    """The table is bounded by its size as zipfile reads it, whatever count it gives."""
    file = tmp_path / "lying.zip"
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, manifest())
        for number in range(40_000):
            archive.writestr(f"{number:05}.flac", b"")
    data = bytearray(file.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", data, end + 8, 3, 3)  # "3 members"
    file.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match=r"table of members is [\d.]+ MB"):
        import_pack(file, root=tmp_path / "packs")


# --- bombs -----------------------------------------------------------------------------------


def silent_wav_header(frames: int, rate: int = 16000) -> bytes:
    size = 2 * frames
    return (
        b"RIFF"
        + struct.pack("<I", 36 + size)
        + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, rate, 2 * rate, 2, 16)
        + b"data"
        + struct.pack("<I", size)
    )


def write_silence(archive: zipfile.ZipFile, member: str, size: int) -> None:
    """A WAV of ``size`` bytes of digital silence: real audio, ~1000 to 1 deflated."""
    info = zipfile.ZipInfo(member)
    info.compress_type = zipfile.ZIP_DEFLATED
    with archive.open(info, "w") as out:
        out.write(silent_wav_header((size - 44) // 2))
        zeros = bytes(MB)
        for _ in range(size // MB):
            out.write(zeros)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The audit's bomb: a zip of about 600 KB holding ten 60 MB recordings of silence."""
    file = tmp_path_factory.mktemp("bomb") / "bomb.zip"
    files = {f"line.{n}": f"silence{n}.wav" for n in range(10)}
    with zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr(MANIFEST, manifest(files=files))
        for member in files.values():
            write_silence(archive, member, 60 * MB)
    assert file.stat().st_size < 5 * MB
    return file


def test_a_zip_bomb_is_refused_before_it_unpacks(home: Home, bomb: Path) -> None:
    home.refused("voice", "import", str(bomb), words="member 'silence0.wav' unpacks to 60.0 MB")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every byte the importer unpacks from any member, counted."""
    counted = [0]
    read = zipfile.ZipExtFile.read

    def counting(self: zipfile.ZipExtFile, n: int = -1) -> bytes:
        data = read(self, n)
        counted[0] += len(data)
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting)
    yield counted


def fake_compressed_size(file: Path, member: str, size: int) -> None:
    """Make the central directory claim ``member`` is ``size`` bytes compressed, so that
    its header shows a modest ratio: only the bytes themselves can tell."""
    data = bytearray(file.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + length].decode() == member:
            struct.pack_into("<I", data, at + 20, size)
        at = data.find(b"PK\x01\x02", at + 4)
    file.write_bytes(bytes(data))


def test_a_bomb_with_a_lying_header_stops_at_its_cap(tmp_path: Path, reads: list[int]) -> None:
    """19 MB of silence in ~19 KB that claims to be 1 MB compressed: the header's ratio is
    19 to 1, the stream's a thousand; it is stopped once it passes 100 to 1 on the bytes
    read (which run ahead of the stream by at most a chunk), long before its 19 MB."""
    file = tmp_path / "liar.zip"
    noise = np.random.default_rng(5).integers(0, 256, 2 * MB, dtype=np.uint8).tobytes()
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, manifest(files={NIGHT: "night.wav", "onenight.day": "x.wav"}))
        write_silence(archive, "night.wav", 19 * MB)
        archive.writestr("x.wav", noise)  # the bytes the lie reaches into
    fake_compressed_size(file, "night.wav", 1 * MB)
    with zipfile.ZipFile(file) as archive:
        assert archive.getinfo("night.wav").compress_size == 1 * MB
    with pytest.raises(ConfigError, match=r"night\.wav is compressed more than 100 to 1"):
        import_pack(file, root=tmp_path / "packs")
    assert reads[0] <= 100 * (30 * 1024 + pack_file.CHUNK) + pack_file.CHUNK
    assert reads[0] < 10 * MB
    assert list((tmp_path / "packs").iterdir()) == []


@pytest.mark.parametrize(("cap", "budget"), [(2 * MB, 300 * MB), (20 * MB, 2 * MB)])
def test_unpacking_stops_at_the_cap_as_it_streams(
    tmp_path: Path, reads: list[int], cap: int, budget: int
) -> None:
    """Counted on the bytes as they come, not on the header: stopped one chunk past the
    member's cap or what is left of the pack's."""
    file = tmp_path / "big.zip"
    noise = np.random.default_rng(5).integers(0, 256, 5 * MB, dtype=np.uint8).tobytes()
    write_zip(file, [("night.wav", noise)])
    with zipfile.ZipFile(file) as archive, pytest.raises(ConfigError, match="unpacks to more"):
        for _ in pack_file._chunks(archive, archive.getinfo("night.wav"), cap, [budget], file):
            pass
    assert reads[0] <= min(cap, budget) + pack_file.CHUNK


# --- the manifest ---------------------------------------------------------------------------


def huge_manifest() -> str:
    padding = "# " + "x" * 98 + "\n"
    return manifest() + padding * (60 * MB // len(padding))


def deep_manifest() -> str:
    return manifest(extra="source = " + "[" * 2000 + "]" * 2000)


def test_a_60_mb_manifest_in_a_zip_is_refused(home: Home) -> None:
    file = write_zip(home.root / "huge.zip", [(MANIFEST, huge_manifest()), ("night.flac", flac())])
    home.refused(
        "voice",
        "import",
        str(file),
        words="member 'pack.toml' unpacks to 60.0 MB, more than 1.0 MB",
    )


def test_a_manifest_nested_2000_deep_in_a_zip_is_one_line(home: Home) -> None:
    file = write_zip(home.root / "deep.zip", [(MANIFEST, deep_manifest()), ("night.flac", flac())])
    home.refused("voice", "import", str(file), words="nested more than")


@pytest.mark.parametrize(("how", "words"), [("huge", "larger than"), ("deep", "nested more than")])
def test_a_hostile_manifest_on_disk_is_one_line(home: Home, how: str, words: str) -> None:
    folder = home.packs / "mine"
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_text(huge_manifest() if how == "huge" else deep_manifest())
    (folder / "night.flac").write_bytes(flac())
    result = home.run("voice", "export", "mine", str(home.root / "mine.zip"))
    assert "Traceback" not in result.stderr and result.returncode == 2, result.stderr[-2000:]
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr
    assert not (home.root / "mine.zip").exists()


# --- the file itself ------------------------------------------------------------------------


def test_a_device_a_pipe_or_a_folder_is_refused_without_reading(home: Home) -> None:
    fifo = home.root / "pipe.zip"
    os.mkfifo(fifo)
    home.refused("voice", "import", "/dev/zero", words="not a regular file (a device)")
    home.refused("voice", "import", str(fifo), words="not a regular file (a named pipe)")
    home.refused("voice", "import", str(home.root), words="not a regular file (a folder)")
    (home.root / "text.zip").write_text("not a zip\n" * 100)
    home.refused("voice", "import", str(home.root / "text.zip"), words="not a zip archive")


def test_a_file_larger_than_a_pack_is_refused_unread(tmp_path: Path, reads: list[int]) -> None:
    file = tmp_path / "sparse.zip"
    with file.open("wb") as out:
        out.truncate(pack_file.PACK_FILE.max_bytes + 1)  # sparse: no disk used
    with pytest.raises(ConfigError, match="too large for a voice pack file"):
        import_pack(file, root=tmp_path / "packs")
    assert reads[0] == 0


def test_export_leaves_out_a_pipe_or_a_device_in_the_pack(home: Home) -> None:
    """Anyone at the laptop can put anything in the pack folder: a named pipe or a link to
    /dev/zero in place of a recording is left out (it blocked, or read for ever)."""
    folder = home.packs / "mine"
    folder.mkdir(parents=True)
    files = {NIGHT: "night.flac", "onenight.day": "pipe.flac", "onenight.end": "zero.flac"}
    (folder / MANIFEST).write_text(manifest("mine", files))
    (folder / "night.flac").write_bytes(flac())
    os.mkfifo(folder / "pipe.flac")
    (folder / "zero.flac").symlink_to("/dev/zero")
    result = home.run("voice", "export", "mine", str(home.root / "mine.zip"))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "2 recordings are missing or unreadable" in result.stderr
    with zipfile.ZipFile(home.root / "mine.zip") as archive:
        assert sorted(archive.namelist()) == ["night.flac", MANIFEST]
