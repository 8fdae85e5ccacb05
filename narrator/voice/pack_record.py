"""Making a voice pack: a person recording it line by line, or a speech engine at once.

``record_pack`` walks a person through every line and part (show, record, play
back, keep / redo / skip) with a microphone (``MicrophoneRecorder``) at a
terminal (``TerminalUI``); ``write_pack`` writes a whole pack from an engine's
clips.  Either way the pack's files are written whole (``pack_manifest``).
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Protocol

import numpy as np

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice import splice
from narrator.voice.install import sounddevice
from narrator.voice.pack_manifest import MANIFEST
from narrator.voice.pack_manifest import PackManifest
from narrator.voice.pack_manifest import PartFile
from narrator.voice.pack_manifest import existing_manifest
from narrator.voice.pack_manifest import move_into_place
from narrator.voice.pack_manifest import new_pack_folder
from narrator.voice.pack_manifest import pack_folder
from narrator.voice.pack_manifest import write_audio
from narrator.voice.pack_manifest import write_manifest

_LOGGER = logging.getLogger(__name__)

RECORD_RATE = 48000
# A take quieter than this at its loudest is a dead or muted microphone.
SILENT_PEAK = 0.01


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
    manifest = existing_manifest(name, lang, folder)
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
        write_audio(folder / file, outcome)
        _enter(manifest, part, file)
        write_manifest(folder, manifest)
        summary.recorded.append(key)
    if not (folder / MANIFEST).exists():
        write_manifest(folder, manifest)
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
        write_manifest(partial, manifest)
        move_into_place(partial, folder)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return folder


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


class MicrophoneRecorder:
    """The default input device through sounddevice; playback on the default output."""

    def __init__(self, rate: int = RECORD_RATE) -> None:
        sd = sounddevice()
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
