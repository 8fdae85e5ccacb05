"""Voice packs: a group's own host, recorded line by line, played instead of synthetic speech.

A pack is a folder (by default ``<user data>/narrator/voices/NAME``) holding
``pack.toml`` and one recording per line key::

    name = "vasya"
    lang = "ru"
    [lines]
    "onenight.hi_wake" = "onenight.hi_wake.wav"

Only lines without placeholders are recorded: a line with a seat number or a
role («Игрок номер 5, возьмите карту.») has too many forms to record, so it is
always spoken by TTS, like any line the pack lacks or whose file is missing.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
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


class PackManifest(BaseModel):
    """``pack.toml``: which recording says which line."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    lang: str
    lines: dict[str, str] = Field(default_factory=dict)

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
            if Path(file).name != file or file.startswith(".") or "\\" in file:
                raise ValueError(f"{key}: {file!r} must be a file name inside the pack folder")
            if not file.lower().endswith(AUDIO_SUFFIXES):
                raise ValueError(f"{key}: {file!r} is not a {'/'.join(AUDIO_SUFFIXES)} file")
        return lines

    def to_toml(self) -> str:
        # JSON strings are valid TOML basic strings.
        rows = [f"name = {json.dumps(self.name, ensure_ascii=False)}"]
        rows.append(f"lang = {json.dumps(self.lang)}")
        rows.append("")
        rows.append("[lines]")
        rows += [
            f"{json.dumps(key, ensure_ascii=False)} = {json.dumps(file, ensure_ascii=False)}"
            for key, file in self.lines.items()
        ]
        return "\n".join(rows) + "\n"


def _read_manifest(name: str, folder: Path) -> PackManifest:
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
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"voice pack {name!r}: {path} is not valid TOML ({error})") from None
    try:
        return PackManifest.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "manifest"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"voice pack {name!r}: {path}: {where}: {message}") from None


def _read_clip(path: Path) -> Clip:
    soundfile = require("soundfile")
    samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    return Clip(np.ascontiguousarray(samples, dtype=np.float32), int(rate))


@dataclass
class VoicePack:
    """A loaded pack: the recordings that exist, by line key."""

    name: str
    lang: str
    folder: Path
    files: dict[str, Path]
    missing: tuple[str, ...] = ()
    _clips: dict[str, Clip] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, name: str, lang: str | None = None, root: Path | None = None) -> VoicePack:
        """Read and check a pack; lines whose recording is missing are reported and left to TTS."""
        folder = pack_folder(name, root)
        manifest = _read_manifest(name, folder)
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
        if ignored:
            _LOGGER.warning(
                "voice pack %s: %d lines are not recordable lines of the catalog and are "
                "ignored: %s",
                name,
                len(ignored),
                _some(ignored),
            )
        if missing:
            _LOGGER.warning(
                "voice pack %s: %d recordings are missing, TTS says them instead: %s",
                name,
                len(missing),
                _some(missing),
            )
        return cls(manifest.name, manifest.lang, folder, files, tuple(missing))

    def clip(self, key: str) -> Clip | None:
        """The recording of ``key``; None when the pack lacks it (the caller uses TTS)."""
        found = self._clips.get(key)
        if found is not None:
            return found
        path = self.files.get(key)
        if path is None:
            return None
        try:
            clip = _read_clip(path)
        except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
            _LOGGER.warning(
                "voice pack %s: %s is unreadable (%s); TTS says it", self.name, path, error
            )
            del self.files[key]
            return None
        self._clips[key] = clip
        return clip


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
    manifest = _read_manifest(name, folder)
    if manifest.lang != lang:
        raise ConfigError(f"voice pack {name!r} speaks {manifest.lang!r}, not {lang!r}")
    return manifest


def record_pack(
    lang: str,
    name: str,
    keys_and_texts: Iterable[tuple[str, str]],
    recorder: Recorder,
    ui: PromptUI,
    *,
    root: Path | None = None,
    redo_existing: bool = False,
) -> RecordSummary:
    """Walk a person through every line: show, record, play back, keep / redo / skip.

    The recording and the manifest are written after each kept line, so a session
    stopped half-way (q, Ctrl-C) keeps everything recorded so far; lines already in
    the pack are passed over unless ``redo_existing``.
    """
    folder = pack_folder(name, root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot create the voice pack folder {folder} ({error})") from None
    manifest = _existing_manifest(name, lang, folder)
    summary = RecordSummary(folder)
    todo = list(keys_and_texts)
    for number, (key, text) in enumerate(todo, start=1):
        if not redo_existing and (folder / manifest.lines.get(key, "-")).is_file():
            summary.kept.append(key)
            continue
        ui.show(f"[{number}/{len(todo)}] {key}\n    {text}")
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
        manifest.lines[key] = file
        _write_manifest(folder, manifest)
        summary.recorded.append(key)
    if not (folder / MANIFEST).exists():
        _write_manifest(folder, manifest)
    return summary


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
