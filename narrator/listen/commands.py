"""The listening commands: ``models download|list`` and ``mic-test``, for every engine."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import TextIO

from narrator.listen.endpoint import Stream
from narrator.listen.endpoint import level_db
from narrator.listen.engine import RATE
from narrator.listen.engine import SpeechEngine
from narrator.listen.engines import choices
from narrator.listen.engines import choose
from narrator.listen.engines import default_engine
from narrator.listen.engines import missing
from narrator.listen.mic import AudioSource
from narrator.listen.mic import Microphone
from narrator.listen.mic import input_devices
from narrator.listen.mic import parse_device
from narrator.listen.models import KNOWN
from narrator.listen.models import ModelSpec
from narrator.listen.models import default_models_dir
from narrator.listen.models import download
from narrator.listen.models import installed
from narrator.listen.models import spec_for
from narrator.listen.words import UNKNOWN
from narrator.listen.words import interpret
from narrator.listen.words import lexicon_for
from narrator.rules import phases
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import CountAnswer
from narrator.rules.errors import ConfigError
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag

BAR = 30
LANGS = ("ru", "en")  # the table languages


def bar(done: int, total: int | None, out: TextIO = sys.stderr) -> None:
    """A one-line download progress bar."""
    mb = done / 1e6
    if total:
        filled = min(BAR, BAR * done // total)
        text = f"\r[{'#' * filled}{'.' * (BAR - filled)}] {mb:6.1f} / {total / 1e6:.1f} MB"
    else:
        text = f"\r{mb:6.1f} MB"
    out.write(text)
    if total and done >= total:
        out.write("\n")
    out.flush()


def models_download(lang: str, folder: Path | None, url: str | None, out: TextIO) -> int:
    spec = spec_for(lang)
    if url is not None and not url.strip():  # "" would silently mean the default source
        raise ConfigError("--url: an empty address (give the archive's URL)")
    if url is not None:
        spec = ModelSpec(spec.lang, spec.name, spec.approx_mb, spec.size, spec.sha256, url)
    folder = folder or default_models_dir()
    out.write(f"{spec.name} ({spec.approx_mb} MB) from {spec.source} into {folder}\n")
    out.flush()
    line_open = False  # the progress bar's line, ended before an error is printed

    def progress(done: int, total: int | None) -> None:
        nonlocal line_open
        bar(done, total)
        line_open = not (total and done >= total)

    try:
        path = download(spec, folder, progress=progress)
    except ConfigError:
        if line_open:
            sys.stderr.write("\n")
        raise
    out.write(f"ready: {path} (play with --input voice --lang {lang})\n")
    return 0


def models_list(folder: Path | None, out: TextIO) -> int:
    """Every speech engine of each table language, the one a game uses marked ``*``."""
    folder = folder or default_models_dir()
    found = installed(folder)  # an unreadable folder: one ConfigError line, before anything
    out.write("speech engines (* the one a game uses; another with --asr ENGINE):\n")
    for lang in LANGS:
        used = default_engine(lang, folder)
        for choice in choices(lang, None, folder):
            mark = "*" if choice.engine == used else " "
            state = "ready" if choice.usable else f"unusable: {choice.problem}"
            extra = [x for x in ("experimental" if choice.experimental else "", choice.note) if x]
            detail = f" ({'; '.join(extra)})" if extra and choice.usable else ""
            out.write(f"  {lang} {mark} {choice.engine:8} {choice.source}: {state}{detail}\n")
        if used is None:
            out.write(f"  {lang} ! {missing(lang)}\n")
    out.write(f"Vosk models in {folder}:\n")
    for lang, spec in KNOWN.items():
        here = folder / spec.name
        state = "installed" if here in found else f"missing: narrator models download {lang}"
        out.write(f"  {lang}  {spec.name:32} {state}\n")
    for path in found:
        if path.name not in {s.name for s in KNOWN.values()}:
            out.write(f"  ..  {path.name:32} installed (use it with --asr-model {path})\n")
    return 0


# --- mic-test ---------------------------------------------------------------------------------


def _numbers_prompt(most: int = 12) -> Prompt:
    """Any number 0–12: the grammar of the microphone check."""
    return Prompt(
        tag=Tag(phases.day(0), "mic_test"),
        seats=(),
        accepts=frozenset({AnswerKind.COUNT}),
        seat_count=most,
        default=CountAnswer(0),
        options=tuple(str(n) for n in range(most + 1)),
        check=lambda answer: None,
    )


def _meter(db: float, width: int = 30) -> str:
    filled = max(0, min(width, round((db + 60) / 60 * width)))
    return "█" * filled + "░" * (width - filled)


def mic_test(
    lang: str,
    model_path: Path | None,
    device: str | None,
    out: TextIO,
    *,
    source: AudioSource | None = None,
    level_s: float = 3.0,
    listen_s: float = 25.0,
    folder: Path | None = None,
    asr: str | None = None,
) -> int:
    """Show the input level, ask for the numbers 1–10, print what was heard and advice.

    Its time is the audio's, not the wall clock's: ``level_s`` and ``listen_s``
    are seconds of audio read, so a file gives the same verdict on any machine.
    """
    lexicon = lexicon_for(lang)
    choice = choose(lang, asr, model_path, folder)
    out.write(f"loading {choice.engine}: {choice.source} …\n")
    out.flush()
    model = choice.load()
    model.check(lexicon)
    if choice.experimental:
        out.write(f"! {lexicon.message('experimental', engine=choice.engine)}\n")
    microphone = source
    if microphone is None:
        mic = Microphone(parse_device(device))
        mic.start()
        microphone = mic
    try:
        levels = _level(microphone, out, level_s)
        heard = _numbers(model, lexicon.lang, microphone, out, listen_s, levels)
    finally:
        microphone.stop()
    if not levels:
        raise ConfigError("the microphone gave no audio")
    expected = list(range(1, 11))
    matcher = difflib.SequenceMatcher(a=expected, b=heard)
    right = sum(block.size for block in matcher.get_matching_blocks())
    floor = sorted(levels)[len(levels) // 10]
    peak = max(levels)
    out.write(f"heard: {' '.join(map(str, heard)) or '—'}\n")
    out.write(f"accuracy: {right} of 10 ({right * 10}%) with {choice.engine}\n")
    for advice in _advice(right, floor, peak):
        out.write(f"- {advice}\n")
    return 0


READ_S = 0.2


def _seconds(block: bytes) -> float:
    return len(block) / 2 / RATE


def _level(source: AudioSource, out: TextIO, seconds: float) -> list[float]:
    out.write("input level (quiet, then say something):\n")
    levels: list[float] = []
    heard = 0.0
    while heard < seconds:
        block = source.read(READ_S)
        if block is None:
            problem = source.problem()
            if problem is not None:
                raise ConfigError(f"the microphone stopped: {problem}")
            heard += READ_S
            continue
        heard += _seconds(block)
        db = level_db(block)
        levels.append(db)
        out.write(f"\r{_meter(db)} {db:6.1f} dBFS")
        out.flush()
    out.write("\n")
    return levels


def _numbers(
    model: SpeechEngine,
    lang: str,
    source: AudioSource,
    out: TextIO,
    seconds: float,
    levels: list[float],
) -> list[int]:
    """The numbers heard in ``seconds`` of audio; each block's level is added to ``levels``
    (the advice judges the voice by its loudest block, the counting included)."""
    lexicon = lexicon_for(lang)
    prompt = _numbers_prompt()
    words = " ".join(lexicon.number_word(n) for n in range(1, 11))
    out.write(f"say the numbers one to ten, with a short pause after each: {words}\n")
    out.flush()
    phrases = [p for p, n in lexicon.numbers.items()] + [UNKNOWN]
    stream = Stream(model.recogniser(model.usable(phrases, lexicon)))
    heard: list[int] = []
    elapsed = 0.0
    while elapsed < seconds and len(heard) < 10:
        block = source.read(READ_S)
        if block is None:  # nothing came: as much silence, which ends an utterance
            elapsed += READ_S
            text = stream.cut()
            if source.problem() is not None:
                break
        else:
            elapsed += _seconds(block)
            levels.append(level_db(block))
            text = stream.push(block)
        if text is None:
            continue
        answer = interpret(text, prompt, lexicon).answer
        shown = answer if answer is not None else "?"
        out.write(f"  «{text}» → {shown}\n")
        out.flush()
        if answer is not None:
            heard.append(int(answer))
    return heard


def _advice(right: int, floor: float, peak: float) -> list[str]:
    advice: list[str] = []
    if peak < -35:
        advice.append(
            f"the voice is quiet (peak {peak:.0f} dBFS): "
            "speak louder or bring the microphone closer"
        )
    if floor > -45:
        advice.append(f"the room is noisy (background {floor:.0f} dBFS): quieter, or a headset")
    if right < 8:
        try:
            devices = "; ".join(input_devices()) or "none found"
        except ConfigError:
            devices = "unknown"
        advice.append("try another microphone with --input-device (input devices: " + devices + ")")
    if not advice:
        advice.append("good: play with --input voice")
    return advice
