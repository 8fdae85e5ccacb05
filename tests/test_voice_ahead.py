"""A game speaks at once: its lines are rendered in the background, in a public order.

The speech engine is the real espeak-ng behind a wrapper that
writes down what it renders and, where a test says so, holds the background
thread (``speech-ahead``) inside its render until the test lets it go: what the
game could say meanwhile is then known exactly, with nothing timed. Item 10's
undo is counted the same way: what it renders, not how long it takes.
"""

from __future__ import annotations

import shlex
import threading
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from narrator.cli import main as cli_main
from narrator.clocks import RealClock
from narrator.host.audio import PackOrTTS
from narrator.ports import UNDO
from narrator.prepared import Prepared
from narrator.prepared import prepare
from narrator.record import GameRecord
from narrator.rules.prompts import Prompt
from narrator.session import RewindingTable
from narrator.session import TablePorts
from narrator.settings import TableSettings
from narrator.speaking import Speaking
from narrator.speaking import speaking
from narrator.voice import voices
from narrator.voice.catalog import load_catalog
from narrator.voice.engines import Engine
from narrator.voice.game_lines import lines_to_render
from narrator.voice.order import needed_order
from narrator.voice.tts import SpeechCache
from tests.harness import FakeClock
from tests.harness import RecordingScreen
from tests.test_resume import PolicyKeys
from tests.test_resume import setup
from tests.watched_engine import WatchedEngine
from tests.watched_engine import install

ROOT = Path(__file__).resolve().parent.parent
VOICE = "espeak:zle/ru"
AHEAD = "speech-ahead"  # the background thread's name (SpeechCache.render_ahead)


class GatedEngine(WatchedEngine):
    """The real espeak-ng, watched; the background thread held at the start of a render
    while ``gate`` is closed."""

    def __init__(self, real: Engine) -> None:
        super().__init__(real)
        self.gate = threading.Event()
        self.gate.set()
        self.held = threading.Event()  # the background thread waits at the gate

    def before(self, text: str) -> None:
        if threading.current_thread().name == AHEAD and not self.gate.is_set():
            self.held.set()
            assert self.gate.wait(120), "the test never let the background go"


@pytest.fixture
def espeak(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> GatedEngine:
    """espeak-ng, written down, rendering into an empty speech cache of this test."""
    return install(monkeypatch, tmp_path, GatedEngine(voices.engine("espeak")))


def settings(game: str = "onenight", players: int = 5, seed: int = 1) -> TableSettings:
    return TableSettings(game=game, players=players, lang="ru", seed=seed, voice=VOICE)


def cache_of(spoken: Speaking) -> SpeechCache:
    speech = getattr(spoken.voice, "speech", None)
    assert isinstance(speech, PackOrTTS)
    cache = getattr(speech.render, "__self__", None)
    assert isinstance(cache, SpeechCache)
    return cache


def stopped(spoken: Speaking) -> None:
    cache_of(spoken).stop_ahead()
    if spoken.output is not None:
        spoken.output.stop()


def wanted_order(table: TableSettings, prepared: Prepared) -> list[str]:
    """The lines as the engine gets them, in the order a game of these settings needs them."""
    cache = SpeechCache("ru", voice=VOICE, folder=Path("unused"))
    order = needed_order("ru", prepared.variant, prepared.players, prepared.switches)
    lines = dict.fromkeys([*order, *lines_to_render("ru", table.game)])
    return [cache.engine_text(text) for text in lines if cache.engine_text(text)]


def test_the_game_starts_with_its_first_line_and_the_rest_renders_behind(
    espeak: GatedEngine, pulse_audio: dict[str, str]
) -> None:
    """With an empty cache the table gets its voice once the first line is rendered; the
    game says that line while the others wait, then they come in the game's order."""
    table = settings()
    prepared = prepare(table)
    catalog = load_catalog("ru")
    first = catalog.text("onenight.intro", {"players": 5, "center": 3})
    espeak.gate.clear()  # the background renders nothing until the first line is said
    spoken = speaking(table, prepared, RecordingScreen(), RealClock(), progress=None)
    try:
        cache = cache_of(spoken)
        assert espeak.said == [cache.engine_text(first)]  # one line before the game
        assert cache.rendering_ahead and espeak.held.wait(60)
        assert spoken.voice.speech.clip("onenight.intro", first).seconds > 1  # type: ignore[attr-defined]
        assert espeak.said == [cache.engine_text(first)]  # said from the cache
        espeak.gate.set()
        assert cache.wait_ahead(300)
        assert espeak.said == wanted_order(table, prepared)
        deal = catalog.text("deal.start")
        assert espeak.said.index(cache.engine_text(deal)) == 1  # the deal's line next
    finally:
        espeak.gate.set()
        stopped(spoken)


def test_a_line_the_game_is_about_to_say_goes_before_the_rest(espeak: GatedEngine) -> None:
    """The background holds the engine (the gate); the game asks for the last line of the
    order: it is rendered as soon as the line in hand is done, before all the others."""
    cache = SpeechCache("ru", voice=VOICE)
    lines = lines_to_render("ru", "onenight")[:12]
    espeak.gate.clear()
    assert cache.render_ahead(lines) == len(lines)
    assert espeak.held.wait(60)

    def let_go() -> None:  # once the game waits for its line
        while not cache.waiting:
            threading.Event().wait(0.01)
        espeak.gate.set()

    helper = threading.Thread(target=let_go, name="let-go")
    helper.start()
    assert cache.clip(lines[-1]).seconds > 0.3
    helper.join(60)
    assert cache.wait_ahead(120)
    said = [cache.engine_text(text) for text in lines]
    assert espeak.said == [said[0], said[-1], *said[1:-1]]


def test_the_order_lines_are_rendered_in_does_not_depend_on_the_deal(
    espeak: GatedEngine,
    pulse_audio: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Two deals of the same public settings, one with the High Inquisitor dealt and one
    with it in the centre: the same lines, in the same order, into two empty caches."""
    orders = []
    centres = []
    for seed in (3, 1):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{seed}"))
        espeak.said.clear()
        table = settings(players=3, seed=seed)
        prepared = prepare(table)
        centres.append("high_inquisitor" in prepared.deal.center)
        spoken = speaking(table, prepared, RecordingScreen(), RealClock(), progress=None)
        try:
            assert cache_of(spoken).wait_ahead(300)
        finally:
            stopped(spoken)
        orders.append(list(espeak.said))
    assert centres == [True, False]  # the deals differ where it matters
    assert orders[0] == orders[1] and len(orders[0]) == len(lines_to_render("ru", "onenight"))


def test_run_sh_renders_the_default_game_so_its_first_game_renders_nothing(
    espeak: GatedEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    """scripts/run.sh's set-up renders the lines of the game it then plays (play's default
    language): that game starts with nothing to render, before or during it."""
    script = (ROOT / "scripts" / "run.sh").read_text(encoding="utf-8")
    build = next(line for line in script.splitlines() if "voice build" in line)
    args = shlex.split(build.split("||")[0])[1:]
    assert args[:2] == ["voice", "build"] and "play onenight" in script
    assert args[args.index("--variant") + 1] == "onenight"
    assert args[args.index("--lang") + 1] == TableSettings(game="onenight").lang
    assert cli_main([*args, "--voice", VOICE]) == 0  # here in espeak-ng, to be quick
    capsys.readouterr()
    espeak.said.clear()
    table = TableSettings(game="onenight", lang="ru", voice=VOICE)
    prepared = prepare(table)
    spoken = speaking(table, prepared, RecordingScreen(), RealClock(), progress=None)
    try:
        assert not cache_of(spoken).rendering_ahead
        assert espeak.said == []
    finally:
        stopped(spoken)


class ClipVoice:
    """The voice port over the speech cache, with no sound card: each line's audio is had."""

    def __init__(self, cache: SpeechCache) -> None:
        self.cache = cache

    def say(self, key: str, text: str) -> None:
        self.cache.clip(text)


def test_an_undo_renders_nothing_with_the_lines_rendered_ahead(espeak: GatedEngine) -> None:
    """The line an undo says is one a game renders ahead; from the confirm to
    the question asked again nothing is rendered (a line naming the answer was)."""
    game, players, seed = "sport_mafia", 10, 5
    variant, switches, deal = setup(game, players, seed)
    cache = SpeechCache("ru", voice=VOICE)
    cache.build(lines_to_render("ru", game))
    clock = FakeClock()
    keys = PolicyKeys(clock, "undo-renders")
    seen: dict[str, Any] = {}
    original = keys.expect

    def expect(prompt: Prompt | None, *, speech: bool = False) -> None:
        original(prompt, speech=speech)
        if prompt is None or prompt.tag.by_night:
            return
        seen["asked"] = seen.get("asked", 0) + 1
        if seen["asked"] == 3:
            seen["before"] = len(espeak.said)
            keys.queue = deque([UNDO, "1"])
        elif "before" in seen and "after" not in seen:
            seen["after"] = len(espeak.said)

    keys.expect = expect  # type: ignore[method-assign]
    table = TableSettings(game=game, players=players, answer_s=5)
    prepared = Prepared(variant, switches, deal, load_catalog("ru"), seed, players)
    ports = TablePorts(keys=keys, voice=ClipVoice(cache), sound=None, clock=clock)  # type: ignore[arg-type]
    record = GameRecord()
    RewindingTable(table, prepared, record, RecordingScreen(), ports).play()
    assert any(event["event"] == "undo" for event in record.events)
    assert seen["after"] == seen["before"], espeak.said[seen["before"] : seen["after"]]
