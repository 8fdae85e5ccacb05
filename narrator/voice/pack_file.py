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
import shutil
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from narrator.rules.errors import ConfigError
from narrator.voice.install import require
from narrator.voice.pack_manifest import (
    MANIFEST,
    PackManifest,
    PartFile,
    move_into_place,
    pack_folder,
    parse_manifest,
    read_manifest,
)

_LOGGER = logging.getLogger(__name__)

AUDIO_FORMATS = {"flac": ("FLAC", "PCM_16"), "ogg": ("OGG", "VORBIS")}
# One recording larger than this unpacked is not a spoken line: the file is not a pack.
LARGEST_MEMBER = 64 * 1024 * 1024
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
    soundfile = require("soundfile")
    try:
        samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
        _LOGGER.debug("%s: %s", path, error)
        return None
    kind, subtype = AUDIO_FORMATS[audio]
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, int(rate), format=kind, subtype=subtype)
    return buffer.getvalue()


def _write_zip(file: Path, manifest: PackManifest, entries: dict[str, bytes]) -> None:
    partial = file.with_name(f".{file.name}.partial")
    try:
        with zipfile.ZipFile(partial, "w") as archive:
            archive.writestr(MANIFEST, manifest.to_toml(), compress_type=zipfile.ZIP_DEFLATED)
            for member, data in entries.items():  # already compressed audio: stored
                archive.writestr(member, data, compress_type=zipfile.ZIP_STORED)
        os.replace(partial, file)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {file} ({error.strerror or error})") from None


def import_pack(
    file: Path, *, name: str | None = None, lang: str | None = None, root: Path | None = None
) -> Shared:
    """The pack in ``file`` installed as ``name`` (default: its own name)."""
    try:
        archive = zipfile.ZipFile(file)
    except FileNotFoundError:
        raise ConfigError(f"{file} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"{file} is a folder, not a voice pack file") from None
    except _DAMAGE as error:
        raise ConfigError(
            f"{file} is not a voice pack file: not a zip archive, or cut short ({error})"
        ) from None
    with archive:
        manifest = _manifest_of(archive, file)
        if lang is not None and manifest.lang != lang:
            raise ConfigError(f"{file} is a {manifest.lang!r} voice pack, not {lang!r}")
        wanted = name or manifest.name
        folder = pack_folder(wanted, root)
        if folder.exists():
            raise ConfigError(
                f"a voice pack called {wanted!r} already exists ({folder}): "
                "import it with --name OTHER"
            )
        manifest = manifest.model_copy(update={"name": folder.name})
        partial = folder.with_name(f".{folder.name}.partial-{os.getpid()}")
        try:
            partial.mkdir(parents=True)
            for member in manifest.files():
                (partial / member).write_bytes(_recording(archive, member, file))
            (partial / MANIFEST).write_text(manifest.to_toml(), "utf-8")
            move_into_place(partial, folder)
        except OSError as error:
            raise ConfigError(f"cannot write the voice pack {folder} ({error})") from None
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    count = len(manifest.files())
    return Shared(manifest.name, manifest.lang, count, folder, file.stat().st_size)


def _read_member(archive: zipfile.ZipFile, member: str, file: Path) -> bytes:
    info = archive.getinfo(member)  # KeyError when it is not there
    if info.file_size > LARGEST_MEMBER:
        raise ConfigError(f"{file} is not a voice pack file: {member} is {info.file_size} bytes")
    try:
        return archive.read(info)
    except _DAMAGE as error:
        raise ConfigError(f"{file} is damaged: {member} cannot be read ({error})") from None


def _manifest_of(archive: zipfile.ZipFile, file: Path) -> PackManifest:
    try:
        data = _read_member(archive, MANIFEST, file)
    except KeyError:
        raise ConfigError(f"{file} has no {MANIFEST}: it is not a voice pack file") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: {MANIFEST} is not UTF-8 text") from None
    return parse_manifest(text, f"{file}: {MANIFEST}")


def _recording(archive: zipfile.ZipFile, member: str, file: Path) -> bytes:
    """A recording the manifest names, checked to be whole audio."""
    try:
        data = _read_member(archive, member, file)
    except KeyError:
        raise ConfigError(f"{file} is damaged: {member} is missing from it") from None
    soundfile = require("soundfile")
    try:
        samples, rate = soundfile.read(io.BytesIO(data), dtype="float32", always_2d=True)
    except (RuntimeError, OSError, ValueError) as error:
        raise ConfigError(f"{file} is damaged: {member} is not readable audio ({error})") from None
    if len(samples) == 0 or rate <= 0:
        raise ConfigError(f"{file} is damaged: {member} holds no sound")
    return data
