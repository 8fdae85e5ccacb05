"""A voice pack on disk: its folder, its manifest (``pack.toml``) and writing them whole.

A pack is a folder (by default ``<user data>/narrator/voices/NAME``) holding
``pack.toml`` and one recording per line key or part (see ``packs`` for what
they mean).  Every file is written beside its place and renamed into it, so a
pack never holds half a file; a new pack is filled in a hidden folder and
moved in whole.
"""

from __future__ import annotations

import json
import os
import shutil
import unicodedata
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import Field
from pydantic import ValidationError
from pydantic import field_validator

from narrator import files
from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice.audio_file import write_clip
from narrator.voice.catalog import LANGUAGES
from narrator.voice.install import require

MANIFEST = "pack.toml"
AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".aiff")
LONGEST_NAME = 40
# Names Windows keeps for devices: a pack shared with a friend there must not be one.
_RESERVED = {"con", "prn", "aux", "nul", *(f"{d}{i}" for d in ("com", "lpt") for i in range(10))}


def packs_folder() -> Path:
    """Where packs live unless a path is given."""
    platformdirs = require("platformdirs")
    folder: Path = platformdirs.user_data_path("narrator") / "voices"
    return folder


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a pack (None when it can): a pack's name is its folder's
    name, so it is a plain word -- letters of any script, digits, '-' and '_' -- never
    a path, a hidden name or a device."""
    plain = unicodedata.normalize("NFC", name)
    if (
        not 1 <= len(plain) <= LONGEST_NAME
        or plain[0] == "-"
        or not all(c.isalpha() or c in "0123456789-_" for c in plain)
    ):
        return (
            f"use 1 to {LONGEST_NAME} letters, digits, '-' or '_' (not starting with '-'): "
            "a pack's name is a name, not a path"
        )
    if plain.casefold() in _RESERVED:
        return "a name the system keeps for a device"
    return None


def pack_name(name: str) -> str:
    """``name`` as the plain name of a pack (NFC), else a one-line ConfigError."""
    problem = name_problem(name)
    if problem is not None:
        raise ConfigError(f"voice pack name {name!r}: {problem}")
    return unicodedata.normalize("NFC", name)


def pack_folder(name: str, root: Path | None = None) -> Path:
    """The folder of pack ``name`` inside the packs folder (``root`` in tests)."""
    return (root or packs_folder()) / pack_name(name)


def _check_files(kind: str, files: dict[str, str]) -> None:
    """Every recording a file name inside the pack folder, of an audio format."""
    for key, file in files.items():
        if not key:
            raise ValueError(f"an empty {kind} key")
        if (
            Path(file).name != file
            or file.startswith(".")
            or any(c in file for c in "\\\0:")
            or len(file.encode()) > 200
        ):
            raise ValueError(f"{key}: {file!r} must be a file name inside the pack folder")
        if not file.lower().endswith(AUDIO_SUFFIXES):
            raise ValueError(f"{key}: {file!r} is not a {'/'.join(AUDIO_SUFFIXES)} file")


class PartFile(BaseModel):
    """A part of spliced lines: its recording and the words it says."""

    model_config = ConfigDict(extra="forbid")

    file: str
    words: str = Field(min_length=1)


class PackManifest(BaseModel):
    """``pack.toml``: which recording says which line or part."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    lang: str
    source: str | None = None  # who speaks: "recorded", or the engine voice it was built with
    lines: dict[str, str] = Field(default_factory=dict)
    parts: dict[str, PartFile] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        problem = name_problem(name)
        if problem is not None:
            raise ValueError(f"{name!r}: {problem}")
        return unicodedata.normalize("NFC", name)

    @field_validator("lang")
    @classmethod
    def _known_language(cls, lang: str) -> str:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
        return lang

    @field_validator("lines")
    @classmethod
    def _line_files(cls, lines: dict[str, str]) -> dict[str, str]:
        _check_files("line", lines)
        return lines

    @field_validator("parts")
    @classmethod
    def _part_files(cls, parts: dict[str, PartFile]) -> dict[str, PartFile]:
        _check_files("part", {key: part.file for key, part in parts.items()})
        return parts

    def files(self) -> list[str]:
        """Every recording the manifest names, lines first."""
        return [*self.lines.values(), *(part.file for part in self.parts.values())]

    def to_toml(self) -> str:
        def text(value: str) -> str:  # JSON strings are valid TOML basic strings
            return json.dumps(value, ensure_ascii=False)

        rows = [f"name = {text(self.name)}", f"lang = {text(self.lang)}"]
        if self.source is not None:
            rows.append(f"source = {text(self.source)}")
        rows += ["", "[lines]"]
        rows += [f"{text(key)} = {text(file)}" for key, file in self.lines.items()]
        if self.parts:
            rows += ["", "[parts]"]
            rows += [
                f"{text(key)} = {{ file = {text(part.file)}, words = {text(part.words)} }}"
                for key, part in self.parts.items()
            ]
        return "\n".join(rows) + "\n"


def read_manifest(name: str, folder: Path) -> PackManifest:
    path = folder / MANIFEST
    if not folder.is_dir():
        raise ConfigError(
            f"voice pack {name!r} not found ({folder} does not exist): record one with "
            f"`narrator voice record --lang ru --pack {name}`"
        )
    if not os.path.lexists(path):
        raise ConfigError(f"voice pack {name!r} is incomplete: {path} is missing")
    try:
        text = files.read_text(path, files.MANIFEST)
    except files.BadFile as error:
        raise files.BadFile(f"voice pack {name!r}: {error}") from None
    return parse_manifest(text, f"voice pack {name!r}: {path}")


def parse_manifest(text: str, where: str) -> PackManifest:
    """A manifest read from ``text`` within the bounds of ``files.MANIFEST`` (size, nesting,
    values); a bad one is a ConfigError naming ``where`` and why."""
    data = files.parse_toml(text, files.MANIFEST, where)
    try:
        return PackManifest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(p) for p in first["loc"]) or "manifest"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"{where}: {place}: {message}") from None


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """``write`` a file beside ``path``, then rename it into place; ConfigError if it fails."""
    try:
        files.write_beside(path, write, path.with_name(f".{path.name}.partial{path.suffix}"))
    except OSError as error:
        raise ConfigError(f"cannot write {path} ({error.strerror or error})") from None


def write_audio(path: Path, clip: Clip) -> None:
    """``clip`` to ``path`` in the format its name ends with (.wav, .flac, .ogg)."""
    write_atomically(path, lambda target: write_clip(target, clip, path.suffix))


def write_manifest(folder: Path, manifest: PackManifest) -> None:
    text = manifest.to_toml()
    write_atomically(folder / MANIFEST, lambda target: target.write_text(text, "utf-8"))


def existing_manifest(name: str, lang: str, folder: Path) -> PackManifest:
    """The manifest of the pack in ``folder`` (a new, empty one if none), checked to be ``lang``."""
    if not (folder / MANIFEST).exists():
        return PackManifest(name=name, lang=lang)
    manifest = read_manifest(name, folder)
    if manifest.lang != lang:
        raise ConfigError(f"voice pack {name!r} speaks {manifest.lang!r}, not {lang!r}")
    return manifest


def new_pack_folder(lang: str, name: str, root: Path | None, *, replace: bool) -> Path:
    """Where a new pack ``name`` goes; an existing one only if ``replace`` (and of ``lang``).

    Asked before anything is rendered, so a name clash costs no time.
    """
    folder = pack_folder(name, root)
    if folder.exists() and not replace:
        raise ConfigError(
            f"voice pack {name!r} already exists ({folder}): choose another --name, or --replace it"
        )
    if folder.exists() and (folder / MANIFEST).exists():
        existing_manifest(name, lang, folder)  # replacing a pack of another language: no
    return folder


def move_into_place(partial: Path, folder: Path) -> None:
    """Put the complete pack ``partial`` where ``folder`` is, the old one out of the way."""
    old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
    try:
        if folder.exists():
            os.replace(folder, old)
        os.replace(partial, folder)
    except OSError as error:
        if old.exists() and not folder.exists():
            os.replace(old, folder)
        raise ConfigError(f"cannot put the voice pack in {folder} ({error})") from None
    shutil.rmtree(old, ignore_errors=True)
