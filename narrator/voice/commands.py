"""What `narrator voices`, `narrator voice build` and `narrator voice record` do.

Plain functions: the command line parses the arguments and calls them; they
raise ``ConfigError`` for anything a person can fix (the CLI prints one line).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from narrator.voice.catalog import LANGUAGES, load_catalog, placeholders
from narrator.voice.packs import MicrophoneRecorder, TerminalUI, record_pack
from narrator.voice.tts import (
    SpeechCache,
    VoiceInfo,
    choose_voice,
    default_driver,
    install_hint,
    lines_to_render,
    list_voices,
    spoken_keys,
)


def voices_command(out: TextIO) -> int:
    """`narrator voices`: the system voices, grouped by language."""
    voices = list_voices()
    by_lang: dict[str, list[VoiceInfo]] = {}
    for voice in voices:
        by_lang.setdefault(voice.lang or "?", []).append(voice)
    out.write(f"{len(voices)} voices ({voices[0].driver if voices else default_driver()}):\n")
    for lang in sorted(by_lang):
        marks = {choose_voice(lang, None, voices).id} if lang in LANGUAGES else set()
        out.write(f"{lang}:\n")
        for voice in sorted(by_lang[lang], key=lambda v: v.id):
            star = "*" if voice.id in marks else " "
            out.write(f"  {star} {voice.id:<28} {voice.name}\n")
    out.write("* the voice a game in that language uses unless --voice says otherwise\n")
    for lang in LANGUAGES:
        if lang not in by_lang:
            out.write(f"no {lang} voice: {install_hint(lang)}\n")
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
    lang: str, variant: str | None, voice: str | None, rate: int | None, out: TextIO
) -> int:
    """`narrator voice build`: pre-render every line of a language (and variant)."""
    started = time.perf_counter()
    texts = lines_to_render(lang, variant)
    cache = SpeechCache(lang, voice=voice, rate=rate)
    missing = cache.missing(texts)
    rendered = cache.build(missing, ProgressBar(f"speech {lang}"))
    seconds = time.perf_counter() - started
    out.write(
        f"{lang} ({variant or 'all games'}), voice {cache.voice.id}, {cache.rate} wpm: "
        f"rendered {rendered}, cached {len(texts) - len(missing)}, {seconds:.1f} s "
        f"({cache.folder})\n"
    )
    return 0


def record_command(lang: str, pack: str, variant: str | None) -> int:
    """`narrator voice record`: record a voice pack of every recordable line."""
    catalog = load_catalog(lang)
    keys = [k for k in spoken_keys(lang, variant) if not placeholders(catalog.lines[k])]
    recorder = MicrophoneRecorder()
    ui = TerminalUI()
    ui.show(
        f"Recording the voice pack {pack!r} ({lang}): {len(keys)} lines, microphone "
        f"{recorder.device_name!r}. Lines with numbers or roles stay synthetic."
    )
    summary = record_pack(lang, pack, [(k, catalog.text(k)) for k in keys], recorder, ui)
    ui.show(
        f"{len(summary.recorded)} recorded, {len(summary.kept)} kept from before, "
        f"{len(summary.skipped)} skipped{' (stopped early)' if summary.stopped else ''}: "
        f"{summary.folder}"
    )
    return 0
