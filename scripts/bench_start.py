#!/usr/bin/env python3
"""Benchmark of the first minute: cold start, undo and resume on the full-screen table.

For every game and language, with an empty speech cache (a fresh cache folder of
its own), the real full-screen app runs headless (textual's pilot) with the
default voice (Festival in Russian, hibari in English) into a PulseAudio null
sink started here, as the tests start theirs. A scripted keypad plays the game
(answers drawn from the prompt, Enter for cards and speeches):

- cold start: «Начать» pressed on the set-up screen → the first sample of the
  first line mixed for the sound card;
- waits: lines after the first whose audio was not ready when the game said them
  (each waited longer than 0.1 s for rendering), and the longest such wait;
- undo: at the second question by day the keypad takes back the last answer
  (/ 3, then 1 to confirm) → the question it took back is open again;
- resume: the game stopped (Esc, 1) two questions later, then a new process runs
  ``narrator resume`` on the full screen: process start → the first line mixed.

Prints a table against the targets (5 s, 0 waits, 2 s, 3 s) and the ratios
measured / target (below 1 is within the target). Not a test: figures depend on
the machine and its load; run it alone, or say what else ran.

    .venv/bin/python scripts/bench_start.py [--games onenight,halloween] [--langs ru,en] [--busy]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

STARTED = time.monotonic()  # a child's own start (resume is timed from here)
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAMES = ("onenight", "halloween", "sport_mafia", "alliance")
LANGS = ("ru", "en")
SEED = 11
START_GOAL_S = 5.0
UNDO_GOAL_S = 2.0
RESUME_GOAL_S = 3.0
WAITED_S = 0.1  # a line that waited longer than this for its audio waited for rendering
WAIT_S = 900.0  # the longest any one phase of a run may take before it counts as hung
UNDO_AT = 2  # the day question at which the keypad takes back the answer before it
STOP_AFTER = 2  # day questions after the one asked again: then the game is stopped


class Marks:
    """When things happened, from the mixer's thread and the game's."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.mixed: dict[int, float] = {}  # mixer token → its first sample mixed
        self.waits: list[tuple[float, str]] = []  # (seconds waited for audio, line)
        self.said: list[tuple[float, str]] = []  # (when handed to the mixer, line)

    def first_mixed(self) -> float | None:
        with self.lock:
            return min(self.mixed.values()) if self.mixed else None


def hook(marks: Marks) -> None:
    """Note when each line is first mixed and how long the game waited for its audio."""
    from narrator.host.audio import AudioVoice
    from narrator.sound.output import Playback

    started = Playback._on_started

    def on_started(self: Playback, token: int, frame: int) -> None:
        with marks.lock:
            marks.mixed.setdefault(token, time.monotonic())
        started(self, token, frame)

    Playback._on_started = on_started  # type: ignore[method-assign]
    say = AudioVoice.say

    def timed_say(self: AudioVoice, key: str, text: str) -> None:
        clip_of = self.speech.clip
        asked = time.monotonic()

        class Timed:
            def clip(self, key: str, text: str) -> Any:
                begun = time.monotonic()
                clip = clip_of(key, text)
                with marks.lock:
                    marks.waits.append((time.monotonic() - begun, text))
                    marks.said.append((asked, text))
                return clip

        speech, self.speech = self.speech, Timed()
        try:
            say(self, key, text)
        finally:
            self.speech = speech

    AudioVoice.say = timed_say  # type: ignore[method-assign]


class BenchKeys:
    """A keypad that answers every prompt from the prompt alone; by day it takes an answer
    back once (``undo_at``) and stops the game later (``stop_after``)."""

    def __init__(self, undo_at: int | None, stop_after: int | None) -> None:
        self.queue: deque[str] = deque()
        self.day = 0
        self.undo_at = undo_at
        self.stop_after = stop_after
        self.confirm_key: str | None = None
        self.confirmed: float | None = None
        self.asked_again: float | None = None
        self.asked_id: str | None = None
        self.stop_at: int | None = None
        self.stopped = False

    def expect(self, prompt: Any, *, speech: bool = False) -> None:
        from narrator.ports import INTERRUPT
        from narrator.ports import UNDO
        from narrator.rules import codec

        self.queue.clear()
        if prompt is None:
            return
        if self.confirmed is not None and self.asked_again is None:
            self.asked_again, self.asked_id = time.monotonic(), prompt.id
            self.stop_at = self.day + (self.stop_after or 0)
        if not prompt.tag.by_night and not prompt.calls:
            self.day += 1
            if self.day == self.undo_at and self.confirmed is None:
                self.queue.extend([UNDO, "1"])
                self.confirm_key = "1"
                return
            if self.stop_at is not None and self.day > self.stop_at and self.stop_after:
                self.queue.extend([INTERRUPT, "1"])
                self.stopped = True
                return
        if prompt.calls or not prompt.options:
            return
        digest = hashlib.sha256(f"bench/{prompt.id}".encode()).digest()
        option = prompt.options[digest[0] % len(prompt.options)]
        for entry in codec.to_keys(option, prompt):
            self.queue.extend([*entry, "\n"])

    def read(self, timeout: float) -> str | None:
        if self.queue:
            key = self.queue.popleft()
            if key == self.confirm_key and not self.queue:
                self.confirm_key = None
                self.confirmed = time.monotonic()
            return key
        if timeout <= 0:
            return None
        time.sleep(min(timeout, 0.3))
        return "\n"  # shows and hides a card, ends a speech; inert elsewhere


def settings_of(game: str, lang: str, records: Path) -> Any:
    from narrator.rules.registry import get_variant
    from narrator.settings import TableSettings

    options: dict[str, Any] = {}
    if "window_s" in get_variant(game).switches.model_fields:
        options["window_s"] = 3.0
    return TableSettings(
        game=game,
        lang=lang,
        seed=SEED,
        answer_s=30.0,
        record_dir=records,
        voice="auto",
        options=options,
        given=frozenset({"lang", "voice", "answer_s"}),
    )


async def drive(app: Any, until: Any, what: str, pilot: Any) -> None:
    deadline = time.monotonic() + WAIT_S
    while not until():
        if app.error is not None:
            raise RuntimeError(f"the game crashed while waiting for {what}") from app.error
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


def stop_sound(state: dict[str, Any]) -> Any:
    """The game's speech and sound, its output stopped (the app has closed)."""
    spoken = state.get("spoken")
    if spoken is not None and spoken.output is not None:
        spoken.output.stop()
    return spoken


def child_game(game: str, lang: str, records: Path, config: Path) -> dict[str, Any]:
    """One new game: «Начать», the first line, an undo, a stop."""
    from narrator.app import table_app
    from narrator.prepared import prepare

    marks = Marks()
    hook(marks)
    settings = settings_of(game, lang, records)
    app, state = table_app(settings, prepare(settings), config)
    keys = BenchKeys(UNDO_AT, STOP_AFTER)
    app.keys = keys  # type: ignore[assignment]
    figures: dict[str, Any] = {}

    async def run() -> None:
        async with app.run_test(size=(100, 32)) as pilot:
            await drive(
                app, lambda: app.screen.__class__.__name__ == "SetupScreen", "set-up", pilot
            )
            await pilot.pause(0.3)
            pressed = time.monotonic()
            await pilot.press("enter")  # Start has the focus
            await drive(app, lambda: marks.first_mixed() is not None, "the first line", pilot)
            figures["start_s"] = (marks.first_mixed() or 0) - pressed
            await drive(app, lambda: keys.asked_again is not None, "the undo", pilot)
            figures["undo_s"] = (keys.asked_again or 0) - (keys.confirmed or 0)
            figures["undo_id"] = keys.asked_id
            if os.environ.get("BENCH_START_DEBUG"):
                figures["undo_lines"] = [
                    (round(t - (keys.confirmed or 0), 2), text[:50])
                    for t, text in marks.said
                    if (keys.confirmed or 0) <= t <= (keys.asked_again or 0)
                ]
            await drive(app, lambda: app.finished, "the stop", pilot)
            await pilot.press("enter")

    asyncio.run(run())
    spoken = stop_sound(state)
    waits = [(s, text) for s, text in marks.waits[1:] if s > WAITED_S]
    figures["waited"] = len(waits)
    figures["lines"] = len(marks.waits)
    figures["longest_wait_s"] = max((s for s, _ in marks.waits[1:]), default=0.0)
    figures["worst_line"] = max(waits)[1][:60] if waits else ""
    cache = spoken.voice.speech.render.__self__ if spoken else None  # type: ignore[union-attr]
    figures["voice"] = cache.voice.key if cache is not None else "?"
    figures["rendered"] = cache.rendered if cache is not None else 0
    if not keys.stopped:
        raise RuntimeError("the game was not stopped")
    return figures


def child_resume(records: Path) -> dict[str, Any]:
    """``narrator resume`` of the stopped game in a new process: its first line."""
    from narrator.app import table_app
    from narrator.unfinished import prepare_resumed
    from narrator.unfinished import unfinished_games

    marks = Marks()
    hook(marks)
    game = unfinished_games(records)[0]
    prepared = prepare_resumed(game)
    settings = settings_of(game.game, game.lang, records)
    app, state = table_app(settings, prepared, None)
    keys = BenchKeys(None, None)
    app.keys = keys  # type: ignore[assignment]
    figures: dict[str, Any] = {}

    async def run() -> None:
        async with app.run_test(size=(100, 32)) as pilot:
            await drive(app, lambda: marks.first_mixed() is not None, "the first line", pilot)
            figures["resume_s"] = (marks.first_mixed() or 0) - STARTED
            figures["resume_first"] = marks.said[0][1][:50] if marks.said else ""
            figures["resume_said_at"] = marks.said[0][0] - STARTED if marks.said else 0
            from narrator.ports import INTERRUPT

            keys.queue.extend([INTERRUPT, "1"])
            await drive(app, lambda: app.finished, "the stop", pilot)
            await pilot.press("enter")

    asyncio.run(run())
    stop_sound(state)
    return figures


def measure(game: str, lang: str, env: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="narrator-bench-start-") as folder:
        base = Path(folder)
        child_env = {
            **os.environ,
            **env,
            "XDG_CACHE_HOME": str(base / "cache"),  # an empty speech cache
            "XDG_CONFIG_HOME": str(base / "config"),
            "XDG_DATA_HOME": str(base / "data"),
        }
        records = base / "records"
        figures: dict[str, Any] = {}
        for mode in ("game", "resume"):
            done = subprocess.run(
                [sys.executable, __file__, "--child", mode, game, lang, str(records)],
                env=child_env,
                capture_output=True,
                text=True,
                timeout=WAIT_S * 2,
            )
            if done.returncode != 0:
                raise RuntimeError(f"{game} {lang} {mode} failed:\n{done.stderr[-3000:]}")
            figures.update(json.loads(done.stdout.strip().splitlines()[-1]))
        return figures


def keep_sink_busy(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """An idle null sink runs in 2-second blocks; silence played to it keeps it running, so
    the figures are the program's, not the null sink's (a sound card has no such delay)."""
    return subprocess.Popen(
        ["pacat", "--playback", "--raw", "--volume=0", "/dev/zero"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument(
        "--busy", action="store_true", help="hold one core busy meanwhile (a loaded machine)"
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, game, lang, records = args.child
        if mode == "game":
            result = child_game(game, lang, Path(records), Path(records).parent / "config")
        else:
            result = child_resume(Path(records))
        print(json.dumps(result))
        return

    from tests.pulse import pulse_server

    rows = []
    burner = None
    if args.busy:
        burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    with pulse_server() as env:
        busy = keep_sink_busy(env)
        try:
            for game in args.games.split(","):
                for lang in args.langs.split(","):
                    figures = measure(game, lang, env)
                    rows.append((game, lang, figures))
                    print(
                        f"{game} {lang}: {json.dumps(figures, ensure_ascii=False)}", file=sys.stderr
                    )
        finally:
            busy.terminate()
            busy.wait(timeout=10)
            if burner is not None:
                burner.terminate()
                burner.wait(timeout=10)
    print(
        "| game | lang | voice | cold start s | × 5 s | lines waited | longest wait s "
        "| undo s | × 2 s | resume s | × 3 s |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for game, lang, f in rows:
        print(
            f"| {game} | {lang} | {f['voice']} "
            f"| {f['start_s']:.2f} | {f['start_s'] / START_GOAL_S:.2f} "
            f"| {f['waited']}/{f['lines']} | {f['longest_wait_s']:.2f} "
            f"| {f['undo_s']:.2f} | {f['undo_s'] / UNDO_GOAL_S:.2f} "
            f"| {f['resume_s']:.2f} | {f['resume_s'] / RESUME_GOAL_S:.2f} |"
        )


if __name__ == "__main__":
    main()
