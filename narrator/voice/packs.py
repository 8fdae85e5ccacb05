"""Voice packs: a group's own host, recorded line by line, played instead of synthetic speech.

A pack is a folder (by default ``<user data>/narrator/voices/NAME``) holding
``pack.toml`` and one recording per line key or part::

    name = "vasya"
    lang = "ru"
    source = "recorded"
    [lines]
    "onenight.hi_wake" = "onenight.hi_wake.wav"
    "role.werewolf" = "role.werewolf.wav"
    [parts]
    "deal.call#0" = { file = "deal.call#0.wav", words = "Игрок номер" }
    "number.5" = { file = "number.5.wav", words = "пять" }

``[lines]`` are catalog lines said whole (the role names among them).  A line
with a seat number or a role («Игрок номер 5, возьмите карту.») has too many
forms to record whole, so it is spliced from ``[parts]`` (see ``splice``): the
text around its placeholders and the number words.  Each part keeps the words
it says, so a part recorded for another wording of the catalog is left out
rather than said wrong.  Whatever the pack cannot say, TTS says.  A pack of
plain lines only (no ``[parts]``, no ``source``) reads as it always did.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.sound.loudness import levelled
from narrator.voice import splice
from narrator.voice.catalog import LANGUAGES, load_catalog, placeholders
from narrator.voice.tts import require

_LOGGER = logging.getLogger(__name__)

MANIFEST = "pack.toml"
AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".aiff")
RECORD_RATE = 48000
# A take quieter than this at its loudest is a dead or muted microphone.
SILENT_PEAK = 0.01
_NAME = re.compile(r"[\w][\w.-]{0,63}")


def packs_folder() -> Path:
    """Where packs live unless a path is given."""
    platformdirs = require("platformdirs")
    folder: Path = platformdirs.user_data_path("narrator") / "voices"
    return folder


def pack_folder(name: str, root: Path | None = None) -> Path:
    """The folder of pack ``name``; a name with a path separator is the folder itself."""
    if "/" in name or os.sep in name:
        return Path(name).expanduser()
    if not _NAME.fullmatch(name):
        raise ConfigError(
            f"voice pack name {name!r}: use letters, digits, '-', '_' or '.' (at most 64)"
        )
    return (root or packs_folder()) / name


def _check_file(key: str, file: str) -> None:
    if Path(file).name != file or file.startswith(".") or "\\" in file:
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

    @field_validator("lang")
    @classmethod
    def _known_language(cls, lang: str) -> str:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; languages: {', '.join(LANGUAGES)}")
        return lang

    @field_validator("lines")
    @classmethod
    def _plain_files(cls, lines: dict[str, str]) -> dict[str, str]:
        for key, file in lines.items():
            if not key:
                raise ValueError("an empty line key")
            _check_file(key, file)
        return lines

    @field_validator("parts")
    @classmethod
    def _part_files(cls, parts: dict[str, PartFile]) -> dict[str, PartFile]:
        for key, part in parts.items():
            if not key:
                raise ValueError("an empty part key")
            _check_file(key, part.file)
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
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"voice pack {name!r} is incomplete: {path} is missing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"voice pack {name!r}: cannot read {path} ({error})") from None
    return parse_manifest(text, f"voice pack {name!r}: {path}")


def parse_manifest(text: str, where: str) -> PackManifest:
    """A manifest read from ``text``; a bad one is a ConfigError naming ``where`` and why."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{where} is not valid TOML ({error})") from None
    try:
        return PackManifest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        place = ".".join(str(p) for p in first["loc"]) or "manifest"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"{where}: {place}: {message}") from None


def _read_clip(path: Path) -> Clip:
    soundfile = require("soundfile")
    samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    return Clip(np.ascontiguousarray(samples, dtype=np.float32), int(rate))


@dataclass
class VoicePack:
    """A loaded pack: the recordings that exist, by line key and by part key."""

    name: str
    lang: str
    folder: Path
    files: dict[str, Path]
    missing: tuple[str, ...] = ()
    parts: dict[str, Path] = field(default_factory=dict)
    source: str | None = None
    _clips: dict[str, Clip] = field(default_factory=dict, repr=False)
    _ready: dict[str, Clip] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, name: str, lang: str | None = None, root: Path | None = None) -> VoicePack:
        """Read and check a pack; lines whose recording is missing are reported and left to TTS."""
        folder = pack_folder(name, root)
        manifest = read_manifest(name, folder)
        if lang is not None and manifest.lang != lang:
            raise ConfigError(
                f"voice pack {name!r} speaks {manifest.lang!r}, but the game is in {lang!r}"
            )
        catalog = load_catalog(manifest.lang)
        files: dict[str, Path] = {}
        missing: list[str] = []
        ignored: list[str] = []
        for key, file in manifest.lines.items():
            template = catalog.lines.get(key)
            if template is None or placeholders(template):
                ignored.append(key)
            elif (folder / file).is_file():
                files[key] = folder / file
            else:
                missing.append(key)
        parts: dict[str, Path] = {}
        stale: list[str] = []
        for key, part in manifest.parts.items():
            words = splice.expected_words(manifest.lang, key)
            if words is None:
                ignored.append(key)
            elif words != part.words:
                stale.append(key)
            elif (folder / part.file).is_file():
                parts[key] = folder / part.file
            else:
                missing.append(key)
        _report(name, ignored, stale, missing)
        return cls(
            manifest.name,
            manifest.lang,
            folder,
            files,
            tuple(missing),
            parts=parts,
            source=manifest.source,
        )

    def clip(self, key: str, text: str | None = None) -> Clip | None:
        """The line ``key``: its whole recording, else (given its displayed ``text``) the line
        spliced from its parts; None when the pack cannot say it (the caller uses TTS)."""
        whole = self._recording(key, self.files)
        if whole is not None or text is None:
            return whole
        return self.spliced(key, text)

    def spliced(self, key: str, text: str) -> Clip | None:
        """The line assembled from parts; None unless the pack has every part it needs."""
        pieces = splice.plan(self.lang, key, text)
        if pieces is None:
            return None
        clips: dict[str, Clip] = {}
        for keys in splice.needed(pieces):
            chosen = next((k for k in keys if k in clips or self._has(k)), None)
            clip = self._joinable(chosen) if chosen is not None else None
            if chosen is None or clip is None:
                _LOGGER.debug("voice pack %s: %s lacks the part %s", self.name, key, keys[0])
                return None
            clips[chosen] = clip
        return splice.assemble(pieces, clips)

    def can_say(self, key: str, text: str) -> bool:
        """Whether the pack has the line whole or every part of it (nothing is read)."""
        if key in self.files:
            return True
        pieces = splice.plan(self.lang, key, text)
        return pieces is not None and all(
            any(self._has(k) for k in keys) for keys in splice.needed(pieces)
        )

    def unsaid(self, texts: Iterable[str]) -> list[str]:
        """The displayed lines among ``texts`` that this pack cannot say, in order.

        What TTS must render before a game with this pack: with a complete pack,
        nothing.  A text is matched to its line by its wording, so it needs no key.
        """
        catalog = load_catalog(self.lang)
        whole = {catalog.text(key) for key in self.files if key in catalog.lines}
        every = splice.templates(self.lang).values()
        return [
            text
            for text in texts
            if text not in whole
            and not any(t.values(text) is not None and self.can_say(t.key, text) for t in every)
        ]

    def _has(self, key: str) -> bool:
        return key in self.parts or key in self.files

    def _joinable(self, key: str) -> Clip | None:
        found = self._ready.get(key)
        if found is None:
            clip = self._recording(key, self.parts if key in self.parts else self.files)
            if clip is None:
                return None
            found = self._ready[key] = splice.joinable(clip)
        return found

    def _recording(self, key: str, where: dict[str, Path]) -> Clip | None:
        path = where.get(key)
        if path is None:
            return None
        found = self._clips.get(key)
        if found is not None:
            return found
        try:
            clip = _read_clip(path)
        except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
            _LOGGER.warning(
                "voice pack %s: %s is unreadable (%s); TTS says it", self.name, path, error
            )
            del where[key]
            return None
        # At the one loudness of every engine, whole lines and spliced ones alike.
        clip = self._clips[key] = levelled(clip)
        return clip


def _report(name: str, ignored: list[str], stale: list[str], missing: list[str]) -> None:
    """What a pack cannot use, in the log: the game goes on, TTS says those lines."""
    if ignored:
        _LOGGER.warning(
            "voice pack %s: %d recordings are not of a line or part of the catalog, ignored: %s",
            name,
            len(ignored),
            _some(ignored),
        )
    if stale:
        _LOGGER.warning(
            "voice pack %s: %d parts were recorded for another wording of the catalog "
            "and are ignored: %s",
            name,
            len(stale),
            _some(stale),
        )
    if missing:
        _LOGGER.warning(
            "voice pack %s: %d recordings are missing, TTS says them instead: %s",
            name,
            len(missing),
            _some(missing),
        )


def _some(keys: Sequence[str], shown: int = 5) -> str:
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(keys[:shown]) + more


# --- recording -------------------------------------------------------------------------------


class Recorder(Protocol):
    """A microphone and a loudspeaker for the recording session."""

    def start(self) -> None:
        """Begin recording."""
        ...

    def stop(self) -> Clip:
        """End recording and hand over what was heard."""
        ...

    def play(self, clip: Clip) -> None:
        """Play a take back; returns when it has been played."""
        ...


class PromptUI(Protocol):
    """The person at the keyboard: reads what is shown, answers with a typed line."""

    def show(self, text: str) -> None: ...

    def ask(self, question: str) -> str:
        """The line typed in answer ('' for a bare Enter)."""
        ...


@dataclass
class RecordSummary:
    """What a recording session did."""

    folder: Path
    recorded: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    stopped: bool = False


def trimmed(clip: Clip, threshold: float = 0.02, margin_s: float = 0.08) -> Clip:
    """The take without the silence before and after the voice (and the Enter clicks' gaps)."""
    loud = np.flatnonzero(np.abs(clip.samples).max(axis=1) > threshold)
    if loud.size == 0:
        return clip
    margin = round(margin_s * clip.rate)
    start = max(0, int(loud[0]) - margin)
    end = min(clip.frames, int(loud[-1]) + margin + 1)
    return Clip(np.ascontiguousarray(clip.samples[start:end]), clip.rate)


def _write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    partial = path.with_name(f".{path.name}.partial{path.suffix}")
    try:
        write(partial)
        os.replace(partial, path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {path} ({error.strerror or error})") from None


def _write_wav(path: Path, clip: Clip) -> None:
    soundfile = require("soundfile")

    def write(target: Path) -> None:
        soundfile.write(str(target), clip.samples, clip.rate, subtype="PCM_16", format="WAV")

    _write_atomically(path, write)


def _write_manifest(folder: Path, manifest: PackManifest) -> None:
    def write(target: Path) -> None:
        target.write_text(manifest.to_toml(), "utf-8")

    _write_atomically(folder / MANIFEST, write)


def _existing_manifest(name: str, lang: str, folder: Path) -> PackManifest:
    if not (folder / MANIFEST).exists():
        return PackManifest(name=name, lang=lang)
    manifest = read_manifest(name, folder)
    if manifest.lang != lang:
        raise ConfigError(f"voice pack {name!r} speaks {manifest.lang!r}, not {lang!r}")
    return manifest


def record_pack(
    lang: str,
    name: str,
    items: Iterable[tuple[str, str] | splice.Part],
    recorder: Recorder,
    ui: PromptUI,
    *,
    root: Path | None = None,
    redo_existing: bool = False,
) -> RecordSummary:
    """Walk a person through every line and part: show, record, play back, keep / redo / skip.

    ``items`` are whole lines as (key, text) or ``splice.Part``s (see ``splice.pack_parts``).
    The recording and the manifest are written after each kept take, so a session
    stopped half-way (q, Ctrl-C) keeps everything recorded so far; what the pack
    already has is passed over unless ``redo_existing``.
    """
    folder = pack_folder(name, root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot create the voice pack folder {folder} ({error})") from None
    manifest = _existing_manifest(name, lang, folder)
    if manifest.source is None and not manifest.lines and not manifest.parts:
        manifest.source = "recorded"
    summary = RecordSummary(folder)
    todo = [_as_part(item) for item in items]
    for number, part in enumerate(todo, start=1):
        key = part.key
        if not redo_existing and _has_take(manifest, folder, part):
            summary.kept.append(key)
            continue
        ui.show(f"[{number}/{len(todo)}] {_shown(part)}")
        try:
            outcome = _record_line(recorder, ui)
        except KeyboardInterrupt:
            outcome = "quit"
        if outcome == "quit":
            summary.stopped = True
            break
        if isinstance(outcome, str):
            summary.skipped.append(key)
            continue
        file = f"{key}.wav"
        _write_wav(folder / file, outcome)
        _enter(manifest, part, file)
        _write_manifest(folder, manifest)
        summary.recorded.append(key)
    if not (folder / MANIFEST).exists():
        _write_manifest(folder, manifest)
    return summary


def _as_part(item: tuple[str, str] | splice.Part) -> splice.Part:
    if isinstance(item, splice.Part):
        return item
    key, text = item
    return splice.Part(key, text, "", whole=True)


def _has_take(manifest: PackManifest, folder: Path, part: splice.Part) -> bool:
    if part.whole:
        return (folder / manifest.lines.get(part.key, "-")).is_file()
    entry = manifest.parts.get(part.key)
    return entry is not None and entry.words == part.words and (folder / entry.file).is_file()


def _enter(manifest: PackManifest, part: splice.Part, file: str) -> None:
    """Name ``file`` in the manifest as the recording of ``part``."""
    if part.whole:
        manifest.lines[part.key] = file
    else:
        manifest.parts[part.key] = PartFile(file=file, words=part.words)


def _shown(part: splice.Part) -> str:
    """What the speaker reads: the words to say, and where a part belongs."""
    if part.key.startswith(splice.NUMBER_PREFIX):
        return f"{part.key}: a number, said on its own\n    {part.words}"
    if part.key.startswith(splice.ROLE_PREFIX):
        return f"{part.key}: a role's name, said on its own\n    {part.words}"
    if part.whole:
        return f"{part.key}\n    {part.words}"
    return (
        f"{part.key}: a piece of a line, say only\n    {part.words}\n"
        f"    (the line: {part.hint}; each «…» is a number or a name, recorded apart)"
    )


# --- a pack from a speech engine --------------------------------------------------------------


def write_pack(
    lang: str,
    name: str,
    parts: Sequence[splice.Part],
    clip_of: Callable[[splice.Part], Clip],
    *,
    source: str,
    root: Path | None = None,
    replace: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """A whole pack written at once: ``clip_of(part)`` for every part, as FLAC files.

    The pack is written into a hidden folder beside its place and moved there when
    complete, so a build stopped half-way leaves no half pack; an existing pack of
    that name stays unless ``replace``.
    """
    folder = new_pack_folder(lang, name, root, replace=replace)
    partial = folder.with_name(f".{folder.name}.partial-{os.getpid()}")
    try:
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
    except OSError as error:
        raise ConfigError(f"cannot create the voice pack folder {partial} ({error})") from None
    try:
        manifest = PackManifest(name=folder.name, lang=lang, source=source)
        if progress is not None:
            progress(0, len(parts))
        for done, part in enumerate(parts, start=1):
            file = f"{part.key}.flac"
            write_audio(partial / file, clip_of(part))
            _enter(manifest, part, file)
            if progress is not None:
                progress(done, len(parts))
        _write_manifest(partial, manifest)
        move_into_place(partial, folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return folder


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
        _existing_manifest(name, lang, folder)  # replacing a pack of another language: no
    return folder


def write_audio(path: Path, clip: Clip) -> None:
    """``clip`` to ``path`` in the format its name ends with (.wav, .flac, .ogg)."""
    soundfile = require("soundfile")
    formats = {".wav": ("WAV", "PCM_16"), ".flac": ("FLAC", "PCM_16"), ".ogg": ("OGG", "VORBIS")}
    kind, subtype = formats[path.suffix.lower()]

    def write(target: Path) -> None:
        soundfile.write(str(target), clip.samples, clip.rate, subtype=subtype, format=kind)

    _write_atomically(path, write)


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


def _record_line(recorder: Recorder, ui: PromptUI) -> Clip | str:
    """One line: a kept take, or 'skip' / 'quit'."""
    while True:
        answer = ui.ask("Enter — start recording, s — skip, q — stop the session: ")
        if answer.strip().lower() in ("s", "q"):
            return "skip" if answer.strip().lower() == "s" else "quit"
        recorder.start()
        try:
            ui.ask("Recording… Enter — stop: ")
        finally:  # Ctrl-C while recording still closes the microphone
            take = trimmed(recorder.stop())
        if take.frames == 0 or float(np.abs(take.samples).max()) < SILENT_PEAK:
            ui.show("Nothing was heard: check the microphone and try again.")
            continue
        recorder.play(take)
        answer = ui.ask("Enter — keep, r — record again, s — skip, q — stop: ").strip().lower()
        if answer in ("s", "q"):
            return "skip" if answer == "s" else "quit"
        if answer != "r":
            return take


# --- the real microphone and terminal --------------------------------------------------------


def _sounddevice() -> Any:
    try:
        return require("sounddevice")
    except OSError as error:  # the PortAudio library itself is missing
        raise ConfigError(
            f"PortAudio is missing ({error}): apt-get install libportaudio2"
        ) from None


class MicrophoneRecorder:
    """The default input device through sounddevice; playback on the default output."""

    def __init__(self, rate: int = RECORD_RATE) -> None:
        sd = _sounddevice()
        try:
            device = sd.query_devices(kind="input")
        except (sd.PortAudioError, ValueError):
            raise ConfigError(
                "no microphone: this machine has no audio input device; plug one in"
            ) from None
        self._sd = sd
        self.rate = rate
        self.device_name = str(device["name"])
        self._blocks: list[Any] = []
        self._stream: Any = None
        self._can_play = True

    def start(self) -> None:
        self._blocks = []

        def keep(data: Any, _frames: int, _time: Any, _status: Any) -> None:
            self._blocks.append(data.copy())

        try:
            self._stream = self._sd.InputStream(
                samplerate=self.rate, channels=1, dtype="float32", callback=keep
            )
            self._stream.start()
        except self._sd.PortAudioError as error:
            raise ConfigError(f"the microphone does not open ({error})") from None

    def stop(self) -> Clip:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()
            stream.close()
        if not self._blocks:
            return Clip(np.zeros((0, 1), dtype=np.float32), self.rate)
        return Clip(np.concatenate(self._blocks).astype(np.float32), self.rate)

    def play(self, clip: Clip) -> None:
        if not self._can_play:
            return
        try:
            self._sd.play(clip.samples, clip.rate)
            self._sd.wait()
        except (self._sd.PortAudioError, ValueError) as error:
            self._can_play = False
            _LOGGER.warning("takes are not played back: no audio output (%s)", error)


class TerminalUI:
    """The recording session on a plain terminal."""

    def __init__(self, ask: Callable[[str], str] = input, show: Callable[[str], None] = print):
        self._ask = ask
        self._show = show

    def show(self, text: str) -> None:
        self._show(text)

    def ask(self, question: str) -> str:
        try:
            return self._ask(question)
        except EOFError:
            return "q"
