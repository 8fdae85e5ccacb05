#!/usr/bin/env python3
"""Benchmark of the speech voices: cost (cold render, warm start, RTF, memory) and intelligibility.

Per voice and language, through the project's own speech cache (what a game plays):

- cold render: every line one game may say (``lines_to_render``) into an empty cache,
  in a fresh process; real-time factor = render time / seconds of speech rendered;
- warm start: a fresh process with the cache full, from opening the cache to every
  line of that game in memory;
- peak memory: the largest resident size of the process and its children (a Festival
  server runs as one) during the cold render, sampled every 20 ms;
- intelligibility: each voice's renders of (i) every seed phrase, (ii) «Игрок номер
  N, откройте глаза и посмотрите свою карту.» / "Player number N, …" for N = 1…12,
  (iii) every line said in one whole demo game of each variant (played headless on
  the virtual clock, lines taken from its record, each line as often as it was said;
  the default voice and its pack hear every variant, the other voices onenight unless
  ``--every-game``), transcribed by the judge of ``scripts/asr_judge.py`` (Whisper
  base; its limits are listed there) and scored as the character error rate over all
  characters of the set (edits / reference characters). The goal for the default
  voice (≤ 0.05 Russian, ≤ 0.03 English) is over every seed phrase and every line of
  one whole game, one corpus per game; each set's own figure is printed as well.

A spliced voice pack built from the default voice (``narrator voice build --name``)
is played as a game plays it (``PackOrTTS``) on the same lines: a line the pack holds
whole is the default voice's own render, so its score is taken over, and only the
lines spliced from parts are heard again; the goal is that the pack stays within
0.02 of the voice. Transcriptions are kept by clip in ``--heard`` so a second run
(after a quick one, or after only some lines changed) hears only what is new. Every
line heard with an error goes to ``--worst`` (by default a file in the temp folder),
worst first, with the text the engine was given: the list for whoever fixes the
pronunciation. The judge takes 1–3 s a line on one thread, so a full run (about
1,100 distinct clips) takes one to two hours on a shared machine.

    .venv/bin/python scripts/bench_voices.py --quick        # seeds, N = 1, 5, 12, onenight
    nice -n 10 .venv/bin/python scripts/bench_voices.py     # everything
    .venv/bin/python scripts/bench_voices.py --lang en --no-cost --voice hibari
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for entry in (ROOT, ROOT / "scripts"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from asr_judge import RECOGNISER  # noqa: E402
from asr_judge import Judge  # noqa: E402
from asr_judge import JudgeMissing  # noqa: E402
from asr_judge import Score  # noqa: E402
from asr_judge import corpus_cer  # noqa: E402
from asr_judge import score  # noqa: E402

from narrator.rules.registry import GAMES  # noqa: E402
from narrator.sound.clip import Clip  # noqa: E402
from narrator.voice.catalog import load_catalog  # noqa: E402

# The seed phrases (tests/test_catalog.py SEED_LINES); English says the same keys.
SEED_KEYS = (
    "onenight.hi_wake",
    "onenight.hi_sleep",
    "onenight.wolves_wake",
    "onenight.wolves_sleep",
    "onenight.spirit_wake",
    "onenight.spirit_sleep",
    "onenight.morning",
    "onenight.vote_time",
    "onenight.win_peace",
)
CALL_KEY = "deal.call"
SEATS = range(1, 13)
QUICK_SEATS = (1, 5, 12)
GOALS = {"ru": 0.05, "en": 0.03}
# Heard by every voice; the other games only by the default voice and its pack (--every-game).
SHARED_GAME = "onenight"
OTHER_GAMES = frozenset(GAMES) - {SHARED_GAME}
PACK_MARGIN = 0.02
LOOP_RATIO = 2.0
WORST_PER_VOICE = 5
SAMPLE_S = 0.02
DEFAULT_WORST = Path(tempfile.gettempdir()) / "narrator-voices-worst.txt"
DEFAULT_HEARD = Path(tempfile.gettempdir()) / "narrator-voices-heard.jsonl"


# --- the lines ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A displayed line as a game says it: its catalog key and its text."""

    key: str
    text: str


def seed_lines(lang: str) -> list[Line]:
    catalog = load_catalog(lang)
    return [Line(key, catalog.lines[key]) for key in SEED_KEYS]


def call_lines(lang: str, seats: Sequence[int]) -> list[Line]:
    catalog = load_catalog(lang)
    return [Line(CALL_KEY, catalog.text(CALL_KEY, {"seat": seat})) for seat in seats]


class _Placeholder:
    """A speech source for the headless game: silence as long as the line would take."""

    def clip(self, key: str, text: str) -> Clip:
        return Clip.silence(0.065 * len(text) + 0.3, 16000, 1)


def game_lines(lang: str, game: str, seed: int) -> list[Line]:
    """Every line said in one demo game (the CLI's demo players), in order, repeats kept."""
    from narrator.demo import render_offline
    from narrator.host.terminal import Terminal
    from narrator.prepared import prepare
    from narrator.settings import TableSettings

    with tempfile.TemporaryDirectory() as records:
        settings = TableSettings(
            game=game,
            lang=lang,
            seed=seed,
            answer_s=10.0,
            demo=True,
            record_dir=Path(records),
            voice="auto",
        )
        prepared = prepare(settings)
        screen = Terminal(out=io.StringIO(), private=io.StringIO())
        rendered = render_offline(settings, prepared, _Placeholder(), screen)
    return [Line(e["key"], e["text"]) for e in rendered.record.events if e["event"] == "say"]


# --- the voices -----------------------------------------------------------------------------------

# The voices compared, per language, by their project names (``narrator voices``).
VOICES = {
    "ru": [("espeak-ng", "espeak:zle/ru"), ("festival ru", "festival:msu_ru_nsh_clunits")],
    "en": [
        ("espeak-ng", "espeak:gmw/en-us"),
        ("festival slt", "festival:cmu_us_slt_arctic_hts"),
        ("hibari", "hibari:heart"),
    ],
}


@dataclass(frozen=True)
class Candidate:
    """One voice under test, by its project name; ``pack``: a spliced pack built from it."""

    label: str
    lang: str
    voice: str
    pack: bool = False

    @property
    def slug(self) -> str:
        return slug(f"{self.lang}-{self.label}")


def slug(text: str) -> str:
    """``text`` as a file name."""
    return "".join(c if c.isalnum() else "-" for c in text)


Source = Callable[[Line], Clip]


def default_voice(lang: str) -> str:
    """The voice ``SpeechCache(lang)`` speaks with, as ``ENGINE:VOICE``."""
    from narrator.voice.tts import SpeechCache

    with tempfile.TemporaryDirectory() as folder:
        key: str = SpeechCache(lang, folder=Path(folder)).voice.key
        return key


def installed(voice: str, lang: str) -> bool:
    from narrator.voice.voices import is_named
    from narrator.voice.voices import list_voices

    return any(is_named(v, voice) and v.lang == lang for v in list_voices())


def candidates(lang: str, default: str) -> list[Candidate]:
    """espeak-ng, Festival, hibari (en) as installed, and a spliced pack of the default voice."""
    found = [Candidate(label, lang, voice) for label, voice in VOICES[lang]]
    missing = [c.voice for c in found if not installed(c.voice, lang)]
    for voice in missing:
        _say(f"{lang}: {voice} is not installed here; left out")
    found = [c for c in found if c.voice not in missing]
    base = next((c.label for c in found if c.voice == default), default)
    pack = Candidate(f"pack of {base}", lang, default, pack=True)
    first = [c for c in found if c.voice == default]
    return [*first, pack, *(c for c in found if c.voice != default)]


@dataclass
class Spoken:
    """A voice's source of audio, and how many lines a pack left to TTS."""

    source: Source
    engine_text: Callable[[str], str] = str  # what the engine is given (stress marks, …)
    # A pack's lines said whole or by TTS: the same render as the voice's own (16-bit).
    as_voice: Callable[[Line], bool] = lambda line: False
    spliced: set[str] = field(default_factory=set)  # texts a pack assembled from parts
    fell_back: set[str] = field(default_factory=set)  # texts a pack could not say


def tts_source(candidate: Candidate, folder: Path) -> Spoken:
    """The project's cache for the candidate's voice, in ``folder``: what a game plays."""
    from narrator.voice.tts import SpeechCache

    cache = SpeechCache(candidate.lang, voice=candidate.voice, folder=folder)
    return Spoken(lambda line: cache.clip(line.text), cache.engine_text)


def build_pack(candidate: Candidate, folder: Path, cache_folder: Path) -> tuple[Path, float]:
    """``narrator voice build --lang L --voice V --name FOLDER``: seconds it took."""
    from narrator.voice.commands import build_command

    started = time.perf_counter()
    build_command(
        candidate.lang,
        None,
        candidate.voice,
        None,
        io.StringIO(),
        name=str(folder),
        replace=True,
        cache_folder=cache_folder,
    )
    return folder, time.perf_counter() - started


def pack_source(candidate: Candidate, pack_folder: Path, cache_folder: Path) -> Spoken:
    """The pack played as a game plays it (``PackOrTTS``), TTS for what it lacks."""
    from narrator.host.audio import PackOrTTS
    from narrator.voice.packs import VoicePack
    from narrator.voice.tts import SpeechCache

    pack = VoicePack.load(str(pack_folder), lang=candidate.lang)
    cache = SpeechCache(candidate.lang, voice=candidate.voice, folder=cache_folder)
    played = PackOrTTS(cache.clip, pack.clip)
    spoken = Spoken(lambda line: played.clip(line.key, line.text), cache.engine_text)
    spoken.source = _counting(spoken, pack, played)
    spoken.as_voice = lambda line: line.key in pack.files or not pack.can_say(line.key, line.text)
    return spoken


def _counting(spoken: Spoken, pack: Any, played: Any) -> Source:
    def clip(line: Line) -> Clip:
        if line.key not in pack.files:
            if pack.can_say(line.key, line.text):
                spoken.spliced.add(line.text)
            else:
                spoken.fell_back.add(line.text)
        result: Clip = played.clip(line.key, line.text)
        return result

    return clip


# --- memory ---------------------------------------------------------------------------------------


def _rss_kb(pid: int) -> int:
    try:
        for row in Path(f"/proc/{pid}/status").read_text().splitlines():
            if row.startswith("VmRSS:"):
                return int(row.split()[1])
    except OSError:
        pass
    return 0


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def tree_rss_mb(root: int) -> float:
    """Resident memory of ``root`` and every process below it, in MB."""
    tree = _children()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _rss_kb(pid)
        todo.extend(tree.get(pid, []))
    return total / 1024


class PeakMemory:
    """The largest resident size of this process and its children while the block runs."""

    def __init__(self) -> None:
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            self.peak_mb = max(self.peak_mb, tree_rss_mb(os.getpid()))

    def __enter__(self) -> PeakMemory:
        self.peak_mb = tree_rss_mb(os.getpid())
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.peak_mb = max(self.peak_mb, own)


# --- cost: one fresh process per measurement ------------------------------------------------------


def worker(mode: str, lang: str, voice: str, game: str, folder: Path) -> dict[str, Any]:
    """One cost measurement in this (fresh) process; the figures as a dict."""
    from narrator.voice.game_lines import lines_to_render
    from narrator.voice.tts import SpeechCache

    texts = lines_to_render(lang, game)
    start = time.perf_counter()
    with PeakMemory() as memory:
        cache = SpeechCache(lang, voice=voice, folder=folder)
        opened = time.perf_counter() - start
        if mode == "cold":
            cache.build(texts)
        audio_s = sum(cache.clip(text).seconds for text in texts)
        seconds = time.perf_counter() - start
    return {
        "voice": cache.voice.key,
        "lines": len(texts),
        "seconds": seconds,
        "opened": opened,
        "audio_s": audio_s,
        "peak_mb": memory.peak_mb,
        "rendered": cache.rendered,
    }


def measure(mode: str, lang: str, voice: str, game: str, folder: Path) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", mode, "--lang", lang, "--game", game]
    command += ["--folder", str(folder), "--voice", voice]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} {voice}: {done.stderr.strip()[-2000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if figures["voice"] != voice:
        raise RuntimeError(f"{mode} {voice}: the cache spoke with {figures['voice']} instead")
    return figures


@dataclass
class Cost:
    candidate: Candidate
    cold: dict[str, Any]
    warm: dict[str, Any]


def cost_table(costs: Sequence[Cost], game: str, defaults: dict[str, str]) -> list[str]:
    rows = [
        f"Cost of one {game} game's lines (lines_to_render), each figure from a fresh process;",
        "cold: render them all into an empty cache and read them; warm: cache full, open it (open:",
        "find the voices, start the engine) and have every line in memory; RTF = cold / audio;",
        "peak: resident memory of the process and its children (the Festival server) during the",
        "cold render. ×: against espeak-ng of the same language. * the default voice.",
        f"{'lang':<4} {'voice':<14} {'lines':>5} {'audio s':>8} {'cold s':>7} {'RTF':>6} "
        f"{'warm s':>7} {'open s':>7} {'peak MB':>8} {'cold ×':>7} {'warm ×':>7} {'MB ×':>6}",
    ]
    base: dict[str, Cost] = {}
    for cost in sorted(costs, key=lambda c: not c.candidate.voice.startswith("espeak:")):
        base.setdefault(cost.candidate.lang, cost)
    for cost in costs:
        cand, cold, warm = cost.candidate, cost.cold, cost.warm
        ref = base[cand.lang]
        mark = "*" if defaults.get(cand.lang) == cand.voice else ""
        rtf = cold["seconds"] / max(cold["audio_s"], 1e-9)
        rows.append(
            f"{cand.lang:<4} {cand.label + mark:<14} {cold['lines']:>5} {cold['audio_s']:>8.0f} "
            f"{cold['seconds']:>7.1f} {rtf:>6.3f} {warm['seconds']:>7.2f} {warm['opened']:>7.2f} "
            f"{cold['peak_mb']:>8.0f} {cold['seconds'] / ref.cold['seconds']:>7.1f} "
            f"{warm['seconds'] / ref.warm['seconds']:>7.1f} "
            f"{cold['peak_mb'] / ref.cold['peak_mb']:>6.1f}"
        )
    return rows


# --- intelligibility ----------------------------------------------------------------------------


@dataclass
class Heard:
    """Every scored line of one voice, by set name."""

    candidate: Candidate
    spoken: Spoken
    sets: dict[str, list[Score]] = field(default_factory=dict)
    render_s: float = 0.0
    judge_s: float = 0.0

    def cer(self, name: str, only: set[str] | None = None) -> float:
        return corpus_cer([s for s in self.sets[name] if only is None or s.reference in only])

    def all_scores(self) -> list[Score]:
        return [s for scores in self.sets.values() for s in scores]


class HeardStore:
    """Transcriptions kept across runs, by the audio itself: the same clip is heard once.

    One JSON line per clip (the language and the SHA-256 of the judge's name and the
    clip → what was heard), appended as each is transcribed, so a run that stops keeps
    what it did and a later run (the full one after a quick one, or after a voice
    changed only some lines) reuses it.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.heard: dict[str, str] = {}
        if path is not None and path.is_file():
            for row in path.read_text("utf-8").splitlines():
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    entry = json.loads(row)
                    self.heard[entry["clip"]] = entry["heard"]

    @staticmethod
    def key(clip: Clip, lang: str) -> str:
        digest = hashlib.sha256(RECOGNISER.encode("utf-8"))  # another judge hears anew
        digest.update(np.ascontiguousarray(clip.samples).tobytes())
        return f"{lang}:{clip.rate}:{digest.hexdigest()}"

    def add(self, key: str, heard: str) -> None:
        self.heard[key] = heard
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as file:
                file.write(json.dumps({"clip": key, "heard": heard}, ensure_ascii=False) + "\n")


def listen(
    candidate: Candidate,
    spoken: Spoken,
    sets: dict[str, list[Line]],
    judge: Judge,
    store: HeardStore,
    voice: Heard | None = None,
) -> Heard:
    """Every line of every set said and transcribed (a repeated line is looked up).

    For a pack, ``voice`` is the voice it was built from, already heard: a line the
    pack says whole (or leaves to TTS) is that voice's own render, and its score is
    taken over; only the spliced lines are said and heard again.
    """
    heard = Heard(candidate, spoken)
    known: dict[str, Score] = {}
    if voice is not None:
        theirs = {s.reference: s for s in voice.all_scores()}
        for group in sets.values():
            for line in group:
                if line.text in theirs and spoken.as_voice(line):
                    known[line.text] = theirs[line.text]
    for name, lines in sets.items():
        scores: list[Score] = []
        for line in lines:
            result = known.get(line.text)
            if result is None:
                started = time.perf_counter()
                clip = spoken.source(line)
                rendered = time.perf_counter()
                key = HeardStore.key(clip, candidate.lang)
                said = store.heard.get(key)
                if said is None:
                    said = judge.transcribe(clip.samples, clip.rate, candidate.lang)
                    store.add(key, said)
                result = score(line.text, said, candidate.lang)
                heard.render_s += rendered - started
                heard.judge_s += time.perf_counter() - rendered
                known[line.text] = result
            scores.append(result)
        heard.sets[name] = scores
        _say(f"{candidate.lang} {candidate.label}: {name} CER {heard.cer(name):.3f}")
    return heard


def cer_table(
    results: Sequence[Heard], set_names: Sequence[str], defaults: dict[str, str]
) -> list[str]:
    width = max(8, *(len(n) for n in set_names))
    rows = [
        f"Character error rate: the judge is {RECOGNISER};",
        "edits / reference characters over each set (a game: every line said in one demo game,",
        "as often as it was said; all: every set the voice was heard on; — not heard on it).",
        "* the language's default voice.",
        f"{'lang':<4} {'voice':<24} " + " ".join(f"{n:>{width}}" for n in [*set_names, "all"]),
    ]
    for heard in results:
        cand = heard.candidate
        mark = "*" if defaults.get(cand.lang) == cand.voice and not cand.pack else ""
        cells = [
            f"{heard.cer(n):>{width}.3f}" if n in heard.sets else f"{'—':>{width}}"
            for n in set_names
        ]
        cells.append(f"{corpus_cer(heard.all_scores()):>{width}.3f}")
        rows.append(f"{cand.lang:<4} {cand.label + mark:<24} " + " ".join(cells))
    return rows


def is_loop(result: Score) -> bool:
    """The recogniser ran on («…7, 8, 8, 8, 8»): it heard over twice as much as was said."""
    return len(result.heard) > LOOP_RATIO * max(len(result.reference), 1) + 10


def goals(results: Sequence[Heard], defaults: dict[str, str], games: Sequence[str]) -> list[str]:
    """The goals, each with its figure and whether it is met."""
    rows = ["Goals:"]
    for heard in results:
        cand = heard.candidate
        if cand.voice != defaults.get(cand.lang):
            continue
        if not cand.pack:
            goal = GOALS[cand.lang]
            # The goal is over every seed phrase and every line of one whole game: one corpus.
            for game in games:
                if "seeds" in heard.sets and game in heard.sets:
                    value = corpus_cer([*heard.sets["seeds"], *heard.sets[game]])
                    verdict = "met" if value <= goal else "NOT met"
                    rows.append(
                        f"  {cand.lang} default {cand.voice}, the seed phrases with one game "
                        f"of {game}: CER {value:.3f} (goal ≤ {goal:.2f}) {verdict}"
                    )
            rows.append(f"  {cand.lang} default {cand.voice}, each set alone (stricter):")
            for name in ["seeds", *games]:
                if name in heard.sets:
                    value = heard.cer(name)
                    within = "within" if value <= goal else "ABOVE"
                    rows.append(f"    {name}: CER {value:.3f}, {within} {goal:.2f}")
                    looped = [s for s in heard.sets[name] if is_loop(s)]
                    if looped:
                        rest = corpus_cer([s for s in heard.sets[name] if not is_loop(s)])
                        rows.append(
                            f"    without the {len(looped)} line(s) where the recogniser "
                            f"ran on in a loop: CER {rest:.3f}"
                        )
            continue
        plain = next(
            (h for h in results if h.candidate.voice == cand.voice and not h.candidate.pack),
            None,
        )
        if plain is None:
            continue
        spliced = heard.spoken.spliced
        for label, only in (("every line", None), ("the spliced lines", spliced)):
            ours = corpus_cer(
                [s for s in heard.all_scores() if only is None or s.reference in only]
            )
            theirs = corpus_cer(
                [s for s in plain.all_scores() if only is None or s.reference in only]
            )
            verdict = "met" if ours <= theirs + PACK_MARGIN else "NOT met"
            rows.append(
                f"  {cand.lang} {cand.label}, {label}: CER {ours:.3f} against {theirs:.3f} "
                f"unspliced (goal ≤ +{PACK_MARGIN:.2f}) {verdict}"
            )
        rows.append(
            f"  {cand.lang} {cand.label}: {len(spliced)} distinct lines spliced from parts, "
            f"{len(heard.spoken.fell_back)} left to TTS"
        )
    return rows


def worst_lines(results: Sequence[Heard]) -> list[str]:
    """Every line heard with an error, worst first, per voice: for the pronunciation file."""
    rows: list[str] = []
    for heard in results:
        cand = heard.candidate
        unique = {s.reference: s for s in heard.all_scores()}
        ranked = sorted(unique.values(), key=lambda s: (s.cer, s.edits), reverse=True)
        wrong = [s for s in ranked if s.edits]
        rows.append(
            f"== {cand.lang} {cand.label} ({cand.voice}): {len(wrong)} of {len(unique)} "
            f"distinct lines heard with an error, worst first"
        )
        for s in wrong:
            spliced = ", spliced" if s.reference in heard.spoken.spliced else ""
            rows.append(f"CER {s.cer:.2f}{spliced}")
            rows.append(f"  said:   {s.reference}")
            given = heard.spoken.engine_text(s.reference)
            if given != s.reference:
                rows.append(f"  engine: {given}")
            rows.append(f"  heard:  {s.heard}")
        rows.append("")
    return rows


def worst_summary(results: Sequence[Heard], count: int) -> list[str]:
    """The few worst lines of each voice, for the end of the report."""
    rows: list[str] = []
    for heard in results:
        unique = {s.reference: s for s in heard.all_scores() if s.edits}
        ranked = sorted(unique.values(), key=lambda s: (s.cer, s.edits), reverse=True)[:count]
        rows.append(f"{heard.candidate.lang} {heard.candidate.label}:")
        rows += [f"  {s.cer:.2f}  «{s.reference}» → «{s.heard}»" for s in ranked]
    return rows


# --- the run --------------------------------------------------------------------------------------


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def report_rows(
    results: Sequence[Heard],
    set_names: Sequence[str],
    defaults: dict[str, str],
    games: Sequence[str],
    notes: Sequence[str],
    worst: Path,
) -> list[str]:
    """The intelligibility table, the goals, the worst lines (all of them to ``worst``)."""
    worst.write_text("\n".join(worst_lines(results)), "utf-8")
    rows = ["", *cer_table(results, set_names, defaults), "", *goals(results, defaults, games)]
    rows += ["", f"Worst lines (all of them, with the engine's text: {worst}):"]
    rows += worst_summary(results, WORST_PER_VOICE)
    return [*rows, "", *notes]


def line_sets(lang: str, quick: bool, seed: int) -> dict[str, list[Line]]:
    seats = QUICK_SEATS if quick else SEATS
    label = "N=1…12" if not quick else "N=" + ",".join(map(str, seats))
    sets = {"seeds": seed_lines(lang), label: call_lines(lang, seats)}
    for game in ["onenight"] if quick else list(GAMES):
        sets[game] = game_lines(lang, game, seed)
    return sets


def _heard(
    cand: Candidate,
    sets: dict[str, list[Line]],
    judge: Judge,
    store: HeardStore,
    scratch: Path,
    notes: list[str],
    heard_so_far: Sequence[Heard],
) -> Heard:
    """One voice (or a pack built from it) said and heard over every set."""
    cache_folder = scratch / "speech" / slug(f"{cand.lang}-{cand.voice}")
    if cand.pack:
        folder, seconds = build_pack(cand, scratch / cand.slug, cache_folder)
        notes.append(f"{cand.lang} {cand.label}: built in {seconds:.0f} s")
        spoken = pack_source(cand, folder, cache_folder)
    else:
        spoken = tts_source(cand, cache_folder)
    voice = next((h for h in heard_so_far if h.candidate.voice == cand.voice), None)
    heard = listen(cand, spoken, sets, judge, store, voice if cand.pack else None)
    distinct = len({s.reference for s in heard.all_scores()})
    notes.append(
        f"{cand.lang} {cand.label}: {distinct} distinct lines, {heard.render_s:.0f} s to say, "
        f"{heard.judge_s:.0f} s to transcribe"
    )
    return heard


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=["ru", "en"], action="append", help="default: both")
    parser.add_argument("--voice", action="append", help="only voices whose label has this")
    parser.add_argument("--quick", action="store_true", help="seeds, N = 1, 5, 12, one game")
    parser.add_argument("--game", default="onenight", help="the game whose lines are costed")
    parser.add_argument("--seed", type=int, default=1, help="of the demo games")
    parser.add_argument("--no-cost", action="store_true", help="skip the cost table")
    parser.add_argument("--no-asr", action="store_true", help="skip the intelligibility table")
    parser.add_argument("--no-pack", action="store_true", help="leave the spliced pack out")
    parser.add_argument(
        "--every-game",
        action="store_true",
        help="every variant's game for every voice (default: for the default voice and its "
        "pack; the other voices are heard on the seeds, N = 1…12 and onenight)",
    )
    parser.add_argument("--worst", type=Path, default=DEFAULT_WORST, help="the worst lines file")
    parser.add_argument("--report", type=Path, default=None, help="the tables so far, as made")
    parser.add_argument(
        "--heard",
        type=Path,
        default=DEFAULT_HEARD,
        help="transcriptions kept between runs, by clip (--heard '' keeps none)",
    )
    parser.add_argument("--worker", choices=["cold", "warm"], help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        figures = worker(args.worker, args.lang[0], args.voice[0], args.game, args.folder)
        print(json.dumps(figures))
        return 0

    langs = args.lang or ["ru", "en"]
    defaults = {lang: default_voice(lang) for lang in langs}
    chosen = [
        c
        for lang in langs
        for c in candidates(lang, defaults[lang])
        if (not args.voice or any(v in c.label or v == c.voice for v in args.voice))
        and not (c.pack and args.no_pack)
    ]
    out: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-voices-") as scratch:
        if not args.no_cost:
            costs: list[Cost] = []
            for cand in (c for c in chosen if not c.pack):
                folder = Path(scratch) / "cost" / cand.slug
                try:
                    cold = measure("cold", cand.lang, cand.voice, args.game, folder)
                    warm = measure("warm", cand.lang, cand.voice, args.game, folder)
                except RuntimeError as error:
                    _say(f"{cand.lang} {cand.label}: FAILED ({error})")
                    continue
                _say(
                    f"{cand.lang} {cand.label}: cold {cold['seconds']:.1f} s, "
                    f"warm {warm['seconds']:.2f} s, {cold['peak_mb']:.0f} MB"
                )
                costs.append(Cost(cand, cold, warm))
            out += cost_table(costs, args.game, defaults)
            print("\n".join(out), flush=True)  # the cost table first: the rest takes long
            out = []
        if not args.no_asr:
            try:
                judge = Judge(threads=1)
            except JudgeMissing as error:
                print(f"bench_voices: {error}", file=sys.stderr)
                return 2
            results: list[Heard] = []
            set_names: list[str] = []
            games: list[str] = []
            store = HeardStore(args.heard if str(args.heard) not in {"", "."} else None)
            notes: list[str] = []
            for lang in langs:
                sets = line_sets(lang, args.quick, args.seed)
                set_names += [n for n in sets if n not in set_names]
                games += [n for n in sets if n in GAMES and n not in games]
                for cand in (c for c in chosen if c.lang == lang):
                    voice_sets = sets
                    if cand.voice != defaults[lang] and not args.every_game:
                        voice_sets = {n: v for n, v in sets.items() if n not in OTHER_GAMES}
                    try:
                        heard = _heard(
                            cand, voice_sets, judge, store, Path(scratch), notes, results
                        )
                    except Exception as error:  # one voice failing leaves the others' figures
                        traceback.print_exc()
                        notes.append(f"{cand.lang} {cand.label}: FAILED ({error})")
                        continue
                    results.append(heard)
                    report = report_rows(results, set_names, defaults, games, notes, args.worst)
                    if args.report is not None:  # so far, in case the run is cut short
                        args.report.write_text("\n".join([*out, *report]) + "\n", "utf-8")
            out += report_rows(results, set_names, defaults, games, notes, args.worst)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
