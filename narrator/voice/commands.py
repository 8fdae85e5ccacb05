"""What `narrator voices` and `narrator voice build|record|export|import` do.

Plain functions: the command line parses the arguments and calls them; they
raise ``ConfigError`` for anything a person can fix (the CLI prints one line).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice import voices
from narrator.voice.catalog import LANGUAGES
from narrator.voice.engines import SpanEngine
from narrator.voice.engines import VoiceInfo
from narrator.voice.game_lines import lines_to_render
from narrator.voice.install import language_hint
from narrator.voice.pack_file import export_pack
from narrator.voice.pack_file import import_pack
from narrator.voice.pack_manifest import new_pack_folder
from narrator.voice.pack_manifest import pack_name
from narrator.voice.pack_record import MicrophoneRecorder
from narrator.voice.pack_record import TerminalUI
from narrator.voice.pack_record import record_pack
from narrator.voice.pack_record import write_pack
from narrator.voice.splice import Part
from narrator.voice.splice import pack_parts
from narrator.voice.tts import SpeechCache
from narrator.voice.voices import choose_voice
from narrator.voice.voices import is_named


def voices_command(out: TextIO) -> int:
    """`narrator voices`: every engine, then every voice by language, best first.

    Each voice is written as ``--voice`` takes it (``ENGINE:VOICE``) with its
    quality rank; the default of a game language is starred; a missing engine
    says how to install it.
    """
    found = voices.survey()
    out.write("engines:\n")
    for name in voices.engine_names():
        if name in found.engines:
            count = found.engines[name]
            out.write(f"  {name:<9} {count} voice{'s' if count != 1 else ''}\n")
        else:
            out.write(f"  {name:<9} not available: {found.missing.get(name, 'not found')}\n")
    by_lang: dict[str, list[VoiceInfo]] = {}
    for voice in found.voices:
        by_lang.setdefault(voice.lang or "?", []).append(voice)
    out.write("voices (quality: higher is better), the game languages first:\n")
    for lang in sorted(by_lang, key=lambda code: (code not in LANGUAGES, code == "?", code)):
        ordered = voices.speaking(lang, by_lang[lang]) if lang != "?" else by_lang[lang]
        default = ordered[0] if lang in LANGUAGES else None
        out.write(f"{lang}:\n")
        for voice in ordered:
            star = "*" if voice is default else " "
            out.write(f"  {star} {voice.key:<34} {voice.quality:>3}  {voice.name}\n")
    out.write(
        "* the voice a game in that language uses unless --voice ENGINE:VOICE says otherwise\n"
    )
    for lang in LANGUAGES:
        if lang not in by_lang:
            out.write(f"no {lang} voice: {language_hint(lang)}\n")
    return 0


class ProgressBar:
    """A text progress bar on stderr: redrawn in place on a terminal, two lines in a log."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.width = width

    def __call__(self, done: int, total: int) -> None:
        if total == 0:
            return
        filled = round(self.width * done / total)
        bar = "#" * filled + "-" * (self.width - filled)
        text = f"{self.label} [{bar}] {done}/{total}"
        if self.stream.isatty():
            self.stream.write(f"\r{text}" + ("\n" if done == total else ""))
        elif done in (0, total):
            self.stream.write(text + "\n")
        self.stream.flush()


def build_command(
    lang: str,
    variant: str | None,
    voice: str | None,
    rate: int | None,
    out: TextIO,
    *,
    name: str | None = None,
    replace: bool = False,
    root: Path | None = None,
    cache_folder: Path | None = None,
) -> int:
    """`narrator voice build`: pre-render every line of a language (and variant).

    With ``name`` it writes a whole voice pack in that voice instead: every plain
    line, every part of the lines with numbers and roles, the number words and the
    role names, so a game speaks in one voice from start to end.
    """
    if replace and name is None:
        raise ConfigError("--replace goes with --name: it replaces the voice pack of that name")
    if name is not None:
        return _build_pack(lang, variant, voice, rate, out, name, replace, root, cache_folder)
    started = time.perf_counter()
    texts = lines_to_render(lang, variant)
    cache = SpeechCache(lang, voice=voice, rate=rate, folder=cache_folder)
    missing = cache.missing(texts)
    rendered = cache.build(missing, ProgressBar(f"speech {lang}"))
    seconds = time.perf_counter() - started
    out.write(
        f"{lang} ({variant or 'all games'}), voice {cache.voice.id}, {cache.rate} wpm: "
        f"rendered {rendered}, cached {len(texts) - len(missing)}, {seconds:.1f} s "
        f"({cache.folder})\n"
    )
    return 0


def _build_pack(
    lang: str,
    variant: str | None,
    voice: str | None,
    rate: int | None,
    out: TextIO,
    name: str,
    replace: bool,
    root: Path | None,
    cache_folder: Path | None,
) -> int:
    started = time.perf_counter()
    new_pack_folder(lang, name, root, replace=replace)
    parts = pack_parts(lang, variant)
    chosen = _pack_voice(lang, voice)
    # One engine throughout: a pack that changed voice half-way is not one voice.
    cache = SpeechCache(
        lang, voice=voice, rate=rate, folder=cache_folder, renderer=voices.engine_for(chosen)
    )
    if not isinstance(cache.renderer, SpanEngine):
        # Every part is said on its own: render them all first, in one run of the engine.
        cache.build([part.words for part in parts], ProgressBar(f"speech {lang}"))

    def said(part: Part) -> Clip:
        """A part in its line where the engine can cut it out (``Part.context``), else alone."""
        if part.context is None:
            return cache.clip(part.words)
        return cache.clip_in(part.context[0], part.words, part.context[1])

    folder = write_pack(
        lang,
        name,
        parts,
        said,
        source=f"{cache.voice.key}, {cache.rate} wpm",
        root=root,
        replace=replace,
        progress=ProgressBar(f"pack {name}"),
    )
    lines = sum(part.whole for part in parts)
    seconds = time.perf_counter() - started
    out.write(
        f"voice pack {name!r} ({lang}, {variant or 'all games'}), voice {cache.voice.key}, "
        f"{cache.rate} wpm: {lines} lines and {len(parts) - lines} parts "
        f"({cache.rendered} rendered now), {seconds:.1f} s ({folder})\n"
    )
    return 0


def _pack_voice(lang: str, voice: str | None) -> VoiceInfo:
    """The voice a pack is built with: the one named, or no pack (not the next best)."""
    found = voices.survey().voices
    if voice is not None:
        named = [v for v in found if is_named(v, voice)]
        if not named:
            raise ConfigError(f"voice {voice!r} not found (see `narrator voices`): no pack built")
        if all(v.lang != lang for v in named):
            raise ConfigError(
                f"voice {named[0].key} speaks {named[0].lang!r}, not {lang!r}: no pack built"
            )
    return choose_voice(lang, voice, found)


def record_command(lang: str, pack: str, variant: str | None) -> int:
    """`narrator voice record`: record a voice pack of every line and every part."""
    pack = pack_name(pack)  # a bad name before the microphone opens
    parts = pack_parts(lang, variant)
    recorder = MicrophoneRecorder()
    ui = TerminalUI()
    lines = sum(part.whole for part in parts)
    ui.show(
        f"Recording the voice pack {pack!r} ({lang}), microphone {recorder.device_name!r}: "
        f"{lines} lines, then {len(parts) - lines} parts — the words around the numbers and "
        "names, and each number on its own — from which the lines with numbers are put "
        "together."
    )
    summary = record_pack(lang, pack, parts, recorder, ui)
    ui.show(
        f"{len(summary.recorded)} recorded, {len(summary.kept)} kept from before, "
        f"{len(summary.skipped)} skipped{' (stopped early)' if summary.stopped else ''}: "
        f"{summary.folder}"
    )
    return 0


def export_command(
    name: str, file: Path, audio: str, out: TextIO, *, root: Path | None = None
) -> int:
    """`narrator voice export NAME FILE`: the pack as one file to share."""
    shared = export_pack(name, file, audio=audio, root=root)
    out.write(
        f"voice pack {shared.name!r} ({shared.lang}): {shared.recordings} recordings, "
        f"{shared.size / 1e6:.1f} MB → {shared.path}\n"
    )
    return 0


def import_command(
    file: Path,
    name: str | None,
    lang: str | None,
    out: TextIO,
    *,
    root: Path | None = None,
) -> int:
    """`narrator voice import FILE`: install a shared pack (`--voice-pack NAME` plays it)."""
    shared = import_pack(file, name=name, lang=lang, root=root)
    out.write(
        f"voice pack {shared.name!r} ({shared.lang}): {shared.recordings} recordings → "
        f"{shared.path}; play with --voice-pack {shared.name}\n"
    )
    return 0
