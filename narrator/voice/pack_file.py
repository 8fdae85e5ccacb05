"""A voice pack as one file, so a group can share its voice: a zip of ``pack.toml`` and audio.

The audio inside is compressed (FLAC, lossless, by default; Ogg Vorbis, about
a third of that) and stored as is, the manifest deflated.  Reading one back
trusts nothing: the archive, the manifest, every recording it names and the
language are checked before anything lands in the packs folder, and the pack
is written beside its place and moved in whole.
"""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import stat
import struct
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from narrator import files
from narrator.outputs import check_writable
from narrator.rules.errors import ConfigError
from narrator.voice.install import require
from narrator.voice.pack_manifest import MANIFEST
from narrator.voice.pack_manifest import PackManifest
from narrator.voice.pack_manifest import PartFile
from narrator.voice.pack_manifest import pack_folder
from narrator.voice.pack_manifest import pack_name
from narrator.voice.pack_manifest import parse_manifest
from narrator.voice.pack_manifest import read_manifest
from narrator.voice.pack_manifest import write_atomically

_LOGGER = logging.getLogger(__name__)

AUDIO_FORMATS = {"flac": ("FLAC", "PCM_16"), "ogg": ("OGG", "VORBIS")}
# A friend's pack is bounded before it is read: a file larger than PACK_FILE, more members
# than a pack has, a member or a whole pack larger than a pack's, or a member compressed
# more than audio and text compress (a zip bomb: 600 MB of zeros fit in 600 KB) is refused.
PACK_FILE = files.Kind("voice pack file", 500 * files.MB)
MAX_MEMBERS = 5_000  # a full pack has about 270
MAX_DIRECTORY = 2 * files.MB  # the archive's table of members: ~100 bytes an entry
MAX_MEMBER = 20 * files.MB  # one recording: minutes of FLAC
MAX_TOTAL = 300 * files.MB
MAX_RATIO = 100  # FLAC and Ogg hardly compress; a text manifest about 10 to 1
RATIO_FLOOR = 1 * files.MB  # below this a member may compress as it likes
LONGEST_RECORDING_S = 600
LARGEST_SOURCE = 64 * files.MB  # a recording of the pack's own folder, read to export it
CHUNK = 64 * files.KB  # also what zipfile reads ahead of the stream: the ratio's error
BLOCK = 65_536  # frames of audio checked at a time
_DRIVE = re.compile(r"[A-Za-z]:")
_END_SIGNATURE, _END_SIZE = b"PK\x05\x06", 22
_LOCATOR_SIGNATURE, _LOCATOR_SIZE = b"PK\x06\x07", 20
_END64_SIGNATURE, _END64_SIZE = b"PK\x06\x06", 56
_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, OSError)


@dataclass(frozen=True)
class Shared:
    """What an export or an import did."""

    name: str
    lang: str
    recordings: int
    path: Path  # the file written, or the pack folder filled
    size: int  # bytes of the file


def export_pack(name: str, file: Path, *, audio: str = "flac", root: Path | None = None) -> Shared:
    """Pack ``name`` as one file; recordings that are missing or unreadable are left out."""
    if audio not in AUDIO_FORMATS:
        raise ConfigError(f"audio format {audio!r}: use {' or '.join(AUDIO_FORMATS)}")
    folder = pack_folder(name, root)
    manifest = read_manifest(name, folder)
    check_writable(file, "voice export")  # before the recordings are encoded
    shared = PackManifest(name=manifest.name, lang=manifest.lang, source=manifest.source)
    entries: dict[str, bytes] = {}
    left_out: list[str] = []
    for key, stored in manifest.lines.items():
        data = _encoded(folder / stored, audio)
        if data is None:
            left_out.append(key)
            continue
        shared.lines[key] = _renamed(stored, audio)
        entries[shared.lines[key]] = data
    for key, part in manifest.parts.items():
        data = _encoded(folder / part.file, audio)
        if data is None:
            left_out.append(key)
            continue
        shared.parts[key] = PartFile(file=_renamed(part.file, audio), words=part.words)
        entries[shared.parts[key].file] = data
    if left_out:
        _LOGGER.warning(
            "voice pack %s: %d recordings are missing or unreadable and are not exported: %s",
            name,
            len(left_out),
            ", ".join(left_out[:5]) + (" …" if len(left_out) > 5 else ""),
        )
    _write_zip(file, shared, entries)
    return Shared(shared.name, shared.lang, len(entries), file, file.stat().st_size)


def _renamed(file: str, audio: str) -> str:
    return f"{Path(file).stem}.{audio}"


def _encoded(path: Path, audio: str) -> bytes | None:
    """The recording at ``path`` in ``audio``; None when it is not a regular file of a
    spoken line's size (a named pipe or ``/dev/zero`` put in the pack is never opened),
    cannot be read, or would be too large for a pack to import."""
    soundfile = require("soundfile")
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > LARGEST_SOURCE:
            _LOGGER.debug("%s: not a regular file of at most %d bytes", path, LARGEST_SOURCE)
            return None
        samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
        _LOGGER.debug("%s: %s", path, error)
        return None
    kind, subtype = AUDIO_FORMATS[audio]
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, int(rate), format=kind, subtype=subtype)
    data = buffer.getvalue()
    return data if len(data) <= MAX_MEMBER else None


def _write_zip(file: Path, manifest: PackManifest, entries: dict[str, bytes]) -> None:
    def write(part: Path) -> None:
        with zipfile.ZipFile(part, "w") as archive:
            archive.writestr(MANIFEST, manifest.to_toml(), compress_type=zipfile.ZIP_DEFLATED)
            for member, data in entries.items():  # already compressed audio: stored
                archive.writestr(member, data, compress_type=zipfile.ZIP_STORED)

    write_atomically(file, write)


def import_pack(
    file: Path, *, name: str | None = None, lang: str | None = None, root: Path | None = None
) -> Shared:
    """The pack in ``file`` installed as ``name`` (default: its own name).

    The archive is a friend's, so nothing in it is trusted: its members are checked
    (names, types, count, sizes) before one is unpacked, each is unpacked within its caps
    as it streams, and the pack is filled in a hidden folder beside its place and moved
    there whole -- a refused pack leaves nothing behind.
    """
    if name is not None:
        pack_name(name)  # a bad --name costs no reading
    if not os.path.lexists(file):
        raise ConfigError(f"{file} does not exist")
    with files.open_regular(file, PACK_FILE) as raw:
        size = os.fstat(raw.fileno()).st_size
        _check_directory(raw, size, file)
        try:
            archive = zipfile.ZipFile(raw)
        except _DAMAGE as error:
            raise ConfigError(
                f"{file} is not a voice pack file: not a zip archive, or cut short ({error})"
            ) from None
        with archive:
            members = _checked_members(archive, file)
            manifest = _manifest_of(archive, members, file)
            _check_listed(manifest, members, file)
            if lang is not None and manifest.lang != lang:
                raise ConfigError(f"{file} is a {manifest.lang!r} voice pack, not {lang!r}")
            folder = pack_folder(name or manifest.name, root)
            _unpack(archive, members, manifest, folder, file)
    return Shared(folder.name, manifest.lang, len(set(manifest.files())), folder, size)


def _check_directory(raw: BinaryIO, size: int, file: Path) -> None:
    """The archive's table of members, from its end record, no longer than a pack's can be
    (zipfile reads that table whole and makes an object of every entry in it)."""
    tail = min(size, _END_SIZE + 0xFFFF)
    raw.seek(size - tail)
    data = raw.read(tail)
    at = data.rfind(_END_SIGNATURE)
    if at < 0 or len(data) - at < _END_SIZE:
        return  # not a zip: zipfile says so
    entries, directory = struct.unpack_from("<10xHL", data, at)
    before = size - tail + at  # where the end record starts in the file
    if before >= _LOCATOR_SIZE + _END64_SIZE:
        raw.seek(before - _LOCATOR_SIZE)
        if raw.read(4) == _LOCATOR_SIGNATURE:
            raw.seek(before - _LOCATOR_SIZE - _END64_SIZE)
            record = raw.read(_END64_SIZE)
            if record[:4] == _END64_SIGNATURE:
                entries, directory = struct.unpack_from("<32xQQ", record)
    raw.seek(0)
    if entries > MAX_MEMBERS:
        raise ConfigError(
            f"{file} is not a voice pack file: {entries} members, more than {MAX_MEMBERS}"
        )
    if directory > MAX_DIRECTORY:
        raise ConfigError(
            f"{file} is not a voice pack file: its table of members is {_mb(directory)}, "
            f"more than {_mb(MAX_DIRECTORY)}"
        )


def _checked_members(archive: zipfile.ZipFile, file: Path) -> dict[str, zipfile.ZipInfo]:
    """The archive's files by name, once every entry is known to be a plain file of a pack."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise ConfigError(
            f"{file} is not a voice pack file: {len(infos)} members, more than {MAX_MEMBERS}"
        )
    members: dict[str, zipfile.ZipInfo] = {}
    seen: set[str] = set()
    total = 0
    for info in infos:
        problem = _member_problem(info)
        if problem is not None:
            raise ConfigError(f"{file} is refused: member {info.filename!r} {problem}")
        folded = unicodedata.normalize(
            "NFC", unicodedata.normalize("NFC", info.filename).casefold()
        )
        if folded in seen:
            raise ConfigError(f"{file} is refused: member {info.filename!r} is in it twice")
        seen.add(folded)
        if not info.is_dir():
            members[info.filename] = info
            total += info.file_size
    if total > MAX_TOTAL:
        raise ConfigError(
            f"{file} is refused: it unpacks to {_mb(total)}, more than {_mb(MAX_TOTAL)}"
        )
    return members


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why one entry of the archive cannot be part of a pack, or None."""
    name = info.filename
    parts = name.removesuffix("/").split("/")
    kind = stat.S_IFMT(info.external_attr >> 16)
    if "\0" in name or "\\" in name:
        return "has a NUL or a backslash in its name"
    if name.startswith("/") or _DRIVE.match(name):
        return "is an absolute path"
    if ".." in parts:
        return "climbs out with '..'"
    if any(part in ("", ".") for part in parts) or len(name.encode()) > 255:
        return "is not a plain file name"
    if kind == stat.S_IFLNK:
        return "is a symbolic link"
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "is not a plain file"
    if info.flag_bits & 0x1:
        return "is encrypted"
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return "is compressed in a way packs are not (only stored or deflated)"
    if info.is_dir():
        return "is a folder with data in it" if info.file_size or info.compress_size > 8 else None
    cap = files.MANIFEST.max_bytes if name == MANIFEST else MAX_MEMBER
    if info.file_size > cap:
        return f"unpacks to {_mb(info.file_size)}, more than {_mb(cap)}"
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * info.compress_size:
        return f"is compressed more than {MAX_RATIO} to 1 (a zip bomb)"
    return None


def _check_listed(manifest: PackManifest, members: dict[str, zipfile.ZipInfo], file: Path) -> None:
    """Every file of the archive named by the manifest, every recording it names there."""
    entries = len(manifest.lines) + len(manifest.parts)
    if entries > MAX_MEMBERS:
        raise ConfigError(
            f"{file} is refused: its {MANIFEST} names {entries} recordings, more than {MAX_MEMBERS}"
        )
    listed = set(manifest.files())
    extra = sorted(member for member in members if member != MANIFEST and member not in listed)
    if extra:
        raise ConfigError(
            f"{file} is refused: {extra[0]!r} is not named in its {MANIFEST}"
            + (f" (nor {len(extra) - 1} more)" if len(extra) > 1 else "")
        )
    for member in dict.fromkeys(manifest.files()):
        if member not in members:
            raise ConfigError(f"{file} is damaged: {member} is missing from it")


def _unpack(
    archive: zipfile.ZipFile,
    members: dict[str, zipfile.ZipInfo],
    manifest: PackManifest,
    folder: Path,
    file: Path,
) -> None:
    """The pack unpacked into a hidden folder beside ``folder``, then moved there whole."""
    packs = folder.parent
    if os.path.lexists(folder):
        raise ConfigError(
            f"a voice pack called {folder.name!r} already exists ({folder}): "
            "import it with --name OTHER"
        )
    try:
        packs.mkdir(parents=True, exist_ok=True)  # the packs folder itself, nothing below
        partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.partial-", dir=packs))
    except OSError as error:
        raise ConfigError(f"cannot write the voice pack {folder} ({error})") from None
    try:
        files.inside(packs, partial)
        budget = [MAX_TOTAL]
        recordings = list(dict.fromkeys(manifest.files()))
        for member in recordings:
            with _created(files.inside(packs, partial / member)) as out:
                for chunk in _chunks(archive, members[member], MAX_MEMBER, budget, file):
                    out.write(chunk)
        for member in recordings:
            _check_audio(partial / member, member, file)
        renamed = manifest.model_copy(update={"name": folder.name})
        with _created(files.inside(packs, partial / MANIFEST)) as out:
            out.write(renamed.to_toml().encode())
        os.rename(partial, files.inside(packs, folder))
    except OSError as error:
        raise ConfigError(f"cannot write the voice pack {folder} ({error})") from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def _created(path: Path) -> BinaryIO:
    """A new file at ``path``, never through a link or over a file already there."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    return os.fdopen(os.open(path, flags, 0o644), "wb")


def _chunks(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int, budget: list[int], file: Path
) -> Iterator[bytes]:
    """A member's bytes as they unpack, stopped as soon as one cap is passed: its size,
    what is left of the whole pack's (``budget``) and its compression ratio -- counted on
    the bytes unpacked and the compressed bytes read from the file, whatever its header says."""
    raw = archive.fp
    size = 0
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(min(CHUNK, cap + 1 - size)):
                size += len(chunk)
                budget[0] -= len(chunk)
                if size > cap:
                    raise ConfigError(
                        f"{file} is refused: {info.filename} unpacks to more than {_mb(cap)}"
                    )
                if budget[0] < 0:
                    raise ConfigError(
                        f"{file} is refused: it unpacks to more than {_mb(MAX_TOTAL)}"
                    )
                read = raw.tell() - info.header_offset if raw is not None else info.compress_size
                if size > RATIO_FLOOR and size > MAX_RATIO * max(read, 1):
                    raise ConfigError(
                        f"{file} is refused: {info.filename} is compressed more than "
                        f"{MAX_RATIO} to 1 (a zip bomb)"
                    )
                yield chunk
    except _DAMAGE as error:
        raise ConfigError(f"{file} is damaged: {info.filename} cannot be read ({error})") from None


def _manifest_of(
    archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], file: Path
) -> PackManifest:
    info = members.get(MANIFEST)
    if info is None:
        raise ConfigError(f"{file} has no {MANIFEST}: it is not a voice pack file")
    cap = files.MANIFEST.max_bytes
    data = b"".join(_chunks(archive, info, cap, [cap], file))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: {MANIFEST} is not UTF-8 text") from None
    return parse_manifest(text, f"{file}: {MANIFEST}")


def _check_audio(path: Path, member: str, file: Path) -> None:
    """A recording of the pack, checked to be whole audio of a spoken line's length."""
    soundfile = require("soundfile")
    frames = 0
    try:
        with soundfile.SoundFile(str(path)) as sound:
            rate = sound.samplerate
            while block := len(sound.read(BLOCK, dtype="float32", always_2d=True)):
                frames += block
                if frames > LONGEST_RECORDING_S * rate:
                    raise ConfigError(
                        f"{file} is refused: {member} is longer than "
                        f"{LONGEST_RECORDING_S} s, not a spoken line"
                    )
    except (RuntimeError, OSError, ValueError) as error:
        raise ConfigError(f"{file} is damaged: {member} is not readable audio ({error})") from None
    if frames == 0 or rate <= 0:
        raise ConfigError(f"{file} is damaged: {member} holds no sound")


def _mb(count: int) -> str:
    return f"{count / files.MB:.1f} MB"
