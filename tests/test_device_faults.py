"""Device faults never lose a game: real PulseAudio, real espeak-ng, real Vosk.

Each test starts its own PulseAudio server (``tests/pulse.py``) and plays the toy
game (``tests/toy_variant.py``) through the app's own wiring (``speaking`` and
``spoken_game``) on a thread, then breaks the sound under it: the server
stopped and started again, ``pactl exit``, the sink suspended, the microphone's
source suspended. A game is stopped by the table (Esc, then 1) as soon as its
recovery has been seen; the server that goes away and comes back plays on to the
game's end. The tests poll for the states they check with generous limits and
never time anything: the machine is loaded.

The people at the table are a fake (``Players``): the demo players' answers,
plus the keys a test presses on the pause page.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from narrator.clocks import RealClock
from narrator.host.audio import Silence
from narrator.host.demo import DemoKeys
from narrator.host.outage import SoundWatch
from narrator.listen.keys import VoiceKeys
from narrator.listen.listener import Listener
from narrator.listen.mic import FileSource
from narrator.listen.vosk_asr import VoskLoader as ModelLoader
from narrator.listen.words import lexicon_for
from narrator.ports import INTERRUPT
from narrator.ports import Attempt
from narrator.ports import Clock
from narrator.ports import Live
from narrator.prepared import Prepared
from narrator.prepared import prepare
from narrator.rules.core import PublicView
from narrator.rules.prompts import Prompt
from narrator.session import spoken_game
from narrator.settings import TableSettings
from narrator.sound.clip import MIX_RATE
from narrator.sound.clip import Clip
from narrator.sound.mixer import Mixer
from narrator.sound.output import DeviceOutput
from narrator.speaking import Speaking
from narrator.speaking import demo_keys
from narrator.speaking import speaking
from narrator.speaking import speech_source
from narrator.speaking import voice_input
from narrator.voice.catalog import load_catalog
from tests.harness import events
from tests.harness import record_in
from tests.pulse import PulseServer
from tests.pulse import missing_tools
from tests.pulse import portaudio_on
from tests.test_audio_device import Recorder
from tests.test_listen_vosk import korean_model_path
from tests.test_listen_vosk import silence

GAME_S = 240  # the most a whole toy game may take here, pauses included
STATE_S = 60  # the most a test waits for one state
RU = load_catalog("ru")
QUESTION = RU.text("screen.confirm_quit")
KO = lexicon_for("ko")  # listening: the only real Vosk model on this machine is Korean


def wait_for(condition: Callable[[], bool], what: str, seconds: float = STATE_S) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def pulse() -> Iterator[PulseServer]:
    """A PulseAudio server of this test alone, which it may stop and start again."""
    problem = missing_tools()
    if problem is not None:
        pytest.fail(problem)
    server = PulseServer()
    server.start()
    try:
        with portaudio_on(server.env):
            yield server
    finally:
        server.close()


class Screen:
    """A fake screen that keeps what it was told, in order, for the test thread."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []
        self.window_open = False

    def said(self, text: str) -> None:
        self.shown.append(("said", text))

    def line(self, text: str) -> None:
        self.shown.append(("line", text))

    def live(self, view: Live | None) -> None:
        if view is not None and view.kind == "window":
            self.window_open = True

    def secret(self, text: str) -> None:
        self.shown.append(("secret", text))

    def clear(self) -> None:
        pass

    def table(self, view: PublicView, speaker: int | None) -> None:
        pass

    def end(self, title: str, lines: list[str]) -> None:
        self.shown.append(("end", title))

    def texts(self) -> list[str]:
        return [text for _, text in list(self.shown)]

    def count(self, text: str) -> int:
        return self.texts().count(text)

    def shows(self, text: str) -> Callable[[], bool]:
        """Whether ``text`` has been shown: a condition to wait for."""
        return lambda: text in self.texts()

    def index(self, text: str) -> int:
        return self.texts().index(text)


class Players:
    """A fake table: the demo players answer; on the pause page only the test's keys count."""

    def __init__(self, demo: DemoKeys, waiting: Callable[[], bool]) -> None:
        self.demo = demo
        self.waiting = waiting
        self.pressed: deque[str] = deque()

    def press(self, key: str) -> None:
        self.pressed.append(key)

    def read(self, timeout: float) -> str | Attempt | None:
        if self.pressed:
            return self.pressed.popleft()
        if self.waiting():
            time.sleep(max(timeout, 0))
            return None
        return self.demo.read(timeout)

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self.demo.expect(prompt)


def toy_settings(tmp_path: Path, **changes: Any) -> TableSettings:
    settings = TableSettings(
        game="toy",
        players=3,
        lang="ru",
        seed=3,
        options={"window_s": 4},
        answer_s=8,
        record_dir=tmp_path / "records",
        voice="espeak:zle/ru",  # real espeak-ng at its fastest: shorter games
        rate=450,
        knock_density=6.0,
    )
    return settings.model_copy(update=changes)


@dataclass
class Table:
    """One toy game running on its own thread, as `narrator play` runs it."""

    prepared: Prepared
    spoken: Speaking
    screen: Screen
    thread: threading.Thread
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def device(self) -> DeviceOutput:
        assert isinstance(self.spoken.output, DeviceOutput)
        return self.spoken.output

    @property
    def watch(self) -> SoundWatch:
        assert self.spoken.watch is not None
        return self.spoken.watch

    def finish(self) -> None:
        self.thread.join(GAME_S)
        assert not self.thread.is_alive(), f"the game did not end: {self.screen.texts()[-8:]}"
        assert self.result == {"code": 0}, self.result

    def stop_after(self, players: Players | None, text: str) -> None:
        """The point is made once ``text`` is shown: the table stops the game (Esc, then 1)."""
        assert players is not None
        wait_for(lambda: text in self.screen.texts(), repr(text), GAME_S)
        players.press(INTERRUPT)
        wait_for(lambda: QUESTION in self.screen.texts(), "the stop question")
        players.press("1")
        self.thread.join(STATE_S)
        assert not self.thread.is_alive(), f"the game did not stop: {self.screen.texts()[-8:]}"
        assert self.result == {"code": 130}, self.result


def play_toy(
    settings: TableSettings,
    players: bool = False,
    *,
    listen: TableSettings | None = None,
) -> tuple[Table, Players | None]:
    """Start the game; ``players``: the fake table (not demo players), ``listen``: the
    settings voice input reads (the table speaks Russian, the microphone hears Korean)."""
    prepared = prepare(settings)
    screen = Screen()
    clock: Clock = RealClock()
    spoken = speaking(settings, prepared, screen, clock, progress=None)
    assert spoken.watch is not None
    watch = spoken.watch
    table_keys: Players | None = None
    keys: Any = demo_keys(prepared.seed, clock)
    if players:
        table_keys = keys = Players(keys, lambda: watch.clock.holding)
    result: dict[str, Any] = {}

    def game() -> None:
        try:
            result["code"] = spoken_game(listen or settings, prepared, screen, keys, spoken, clock)
        except BaseException as error:  # handed to the test thread
            result["error"] = error

    thread = threading.Thread(target=game, name="toy-game", daemon=True)
    thread.start()
    return Table(prepared, spoken, screen, thread, result), table_keys


def wake_window_opens(table: Table) -> None:
    wait_for(lambda: table.screen.window_open, "the wolf's window")


def the_game_waits(table: Table) -> None:
    wait_for(lambda: table.watch.clock.holding, "the game to wait for its sound")
    assert table.device.problem() is not None
    assert table.screen.count(RU.text("screen.sound_lost")) == 1
    now = table.watch.clock.now()
    time.sleep(0.5)
    assert table.watch.clock.now() == now, "the game clock moved while the sound was gone"


def the_window_ran_to_its_end(table: Table, tmp_path: Path, *, stopped: bool = False) -> None:
    """The wolf's window lasted its length in game time; the record ends with the game's
    end (or, ``stopped`` by the table after the point was made, with its stop)."""
    record = record_in(tmp_path / "records", "toy")
    (start,) = [e["t"] for e in record if e["event"] == "window"]
    (end,) = [e["t"] for e in record if e["event"] == "window_end"]
    assert end - start >= 4  # in game time: the pause is not part of it
    if stopped:
        assert record[-1]["event"] == "aborted"
    else:
        assert record[-1]["event"] == "end" and record[-1]["winner"] in {"villagers", "werewolves"}


# --- the sound device -------------------------------------------------------------------------


def test_the_server_goes_away_and_comes_back_and_the_game_finishes(
    pulse: PulseServer, tmp_path: Path
) -> None:
    settings = toy_settings(tmp_path, demo=True)
    table, _ = play_toy(settings)
    wake_window_opens(table)
    pulse.stop()
    the_game_waits(table)
    pulse.start()
    wait_for(lambda: table.screen.count(RU.text("screen.sound_back")) == 1, "the sound back")
    table.finish()
    texts = table.screen.texts()
    # The window went on after the sound came back: the wolf's time was not lost.
    assert texts.index(RU.text("screen.sound_back")) < texts.index(RU.text("toy.wolf_sleep"))
    assert table.device.losses == 1 and table.watch.pauses == 1
    assert table.screen.count(RU.text("screen.sound_silent")) == 0
    the_window_ran_to_its_end(table, tmp_path)


def test_the_table_chooses_silence_and_the_game_goes_on(pulse: PulseServer, tmp_path: Path) -> None:
    table, players = play_toy(toy_settings(tmp_path), players=True)
    assert players is not None
    wake_window_opens(table)
    pulse.pactl("exit")
    wait_for(pulse.exited, "the server to exit")
    the_game_waits(table)
    players.press("0")  # on the pause page: play on without sound
    table.stop_after(players, RU.text("toy.morning"))  # the server never comes back
    texts = table.screen.texts()
    assert texts.index(RU.text("screen.sound_silent")) < texts.index(RU.text("toy.wolf_sleep"))
    assert table.device.silent and table.device.problem() is None
    assert table.screen.count(RU.text("screen.sound_back")) == 0
    the_window_ran_to_its_end(table, tmp_path, stopped=True)


def test_the_pause_is_the_same_for_every_deal(pulse: PulseServer, tmp_path: Path) -> None:
    """The pause depends on the device only: the same lines whoever holds which card.

    Each game is then stopped from the pause page (Esc, then 1), as the page says.
    """
    seen = []
    for seed in (3, 4):
        folder = tmp_path / str(seed)
        table, players = play_toy(toy_settings(folder, seed=seed), players=True)
        assert players is not None
        wake_window_opens(table)
        pulse.pactl("suspend-sink", "speaker", "1")
        the_game_waits(table)
        players.press(INTERRUPT)
        wait_for(table.screen.shows(QUESTION), "the stop question")
        players.press("1")
        table.thread.join(GAME_S)
        assert table.result == {"code": 130}, table.result
        lines = [text for kind, text in table.screen.shown if kind == "line"]
        quit_line = lines.index(RU.text("screen.quit"))  # then the record's own path
        seen.append(lines[lines.index(RU.text("screen.sound_lost")) : quit_line + 1])
        assert record_in(folder / "records", "toy")[-1]["event"] == "aborted"
        pulse.pactl("suspend-sink", "speaker", "0")
    assert seen[0] == seen[1]
    assert seen[0] == [RU.text(f"screen.{key}") for key in ("sound_lost", "confirm_quit", "quit")]


def test_a_line_cut_by_the_device_is_heard_again_from_its_start(pulse: PulseServer) -> None:
    """A suspended sink: the mixer stands still, and the cut line starts again when it is back."""
    mixer = Mixer()
    device = DeviceOutput(mixer)
    recorder = Recorder()
    recorder.stream.start()
    assert recorder.started.wait(10), "the monitor never delivered audio"
    device.start()
    rate = MIX_RATE
    times = np.arange(3 * rate) / rate
    chirp = (0.5 * np.sin(2 * np.pi * (300 + 400 * times) * times)).astype(np.float32)
    token = mixer.say(Clip(chirp[:, None], rate))
    try:
        wait_for(lambda: mixer.frame > rate * 2, "a second of the line to play")
        pulse.pactl("suspend-sink", "speaker", "1")
        wait_for(lambda: device.problem() is not None, "the device to be missed")
        frame = mixer.frame
        time.sleep(0.5)
        assert mixer.frame == frame, "the mixer moved on with nobody listening"
        assert device.playback.finished_at(token) is None
        pulse.pactl("suspend-sink", "speaker", "0")
        wait_for(lambda: device.problem() is None, "the device back")
        assert device.playback.wait(token, STATE_S)
        time.sleep(1.0)  # the end of the line reaches the monitor
    finally:
        device.stop()
        recorder.stream.stop()
        recorder.stream.close()
    recording = recorder.mono()
    # The start of the line, in five pieces of 0.1 s, each found on its own: a block the
    # loaded machine drops (on the way out or into the recorder) shifts what follows it,
    # and can spoil one piece, never the line heard again. A line that went on where it
    # was cut, or started anywhere else, has none of its start twice.
    piece = rate // 10
    twice = [
        heard_twice(recording, chirp[k * piece : (k + 1) * piece] * 0.9, rate) for k in range(5)
    ]
    assert sum(twice) >= 4, f"the start of the line heard twice, by pieces of 0.1 s: {twice}"


def heard_twice(recording: np.ndarray, clip: np.ndarray, apart: int) -> bool:
    """The clip matches two stretches of the recording at least ``apart`` samples apart."""
    heard = correlations(recording, clip)
    first = int(np.argmax(heard))
    best = float(heard[first])
    heard[max(0, first - apart) : first + apart] = 0
    return min(best, float(np.max(heard))) > 0.8


def correlations(recording: np.ndarray, clip: np.ndarray) -> np.ndarray:
    """The normalised correlation of ``clip`` with every stretch of the recording."""
    size = len(recording) + len(clip)
    spectrum = np.fft.rfft(recording, size) * np.conj(np.fft.rfft(clip, size))
    raw = np.fft.irfft(spectrum, size)[: len(recording)]
    running = np.concatenate([[0.0], np.cumsum(np.square(recording, dtype=np.float64))])
    ends = np.minimum(np.arange(len(recording)) + len(clip), len(recording))
    energy = running[ends] - running[: len(recording)]  # of each stretch as long as the clip
    own = float(np.sum(np.square(clip)))
    norm = np.sqrt(np.maximum(energy, own / 10) * own)  # near-silence: no match, not noise
    result: np.ndarray = raw / norm
    return result


QUIETED = """
import ctypes, sys
from narrator.sound.output import quiet_native_stderr
libc = ctypes.CDLL(None)
stderr = ctypes.c_void_p.in_dll(libc, "stderr")
libc.fputs.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
libc.fflush.argtypes = [ctypes.c_void_p]

def native(text):
    libc.fputs(text.encode() + b"\\n", stderr.value)
    libc.fflush(stderr.value)

native("before")
quiet_native_stderr(True)
native("PortAudio: Expression failed")
sys.stderr.write("python\\n")
sys.stderr.flush()
quiet_native_stderr(False)
native("after")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the C library's stderr")
def test_portaudio_messages_are_kept_off_the_table_while_a_device_is_open() -> None:
    """What C code prints to stderr would be drawn across the full-screen table."""
    run = subprocess.run(
        [sys.executable, "-c", QUIETED], capture_output=True, text=True, check=True
    )
    assert run.stderr.splitlines() == ["before", "python", "after"]


# --- the microphone ----------------------------------------------------------------------------


def voice_settings(tmp_path: Path) -> tuple[TableSettings, TableSettings]:
    """The table's settings, and the ones voice input reads: the same, listening in Korean."""
    table = toy_settings(tmp_path, input="voice")
    return table, table.model_copy(update={"lang": "ko", "asr_model": korean_model_path()})


def test_the_microphone_goes_away_and_the_keypad_goes_on(
    pulse: PulseServer, tmp_path: Path
) -> None:
    settings, listen = voice_settings(tmp_path)
    table, players = play_toy(settings, players=True, listen=listen)
    wake_window_opens(table)
    pulse.pactl("suspend-source", "mic", "1")  # the microphone delivers nothing more
    lost = "the microphone is gone (no audio for 2 s); keypad only from now on"
    wait_for(lambda: table.screen.count(lost) == 1, "the microphone to be missed")
    told = KO.message("say_lost")
    table.stop_after(players, told)
    said = [text for kind, text in table.screen.shown if kind == "said"]
    assert said.count(told) == 1
    # Said by day, not into the night window it was noticed in.
    assert said.index(RU.text("toy.morning")) < said.index(told)
    assert table.watch.pauses == 0  # the sound itself was never gone


def test_the_server_goes_away_with_the_microphone(pulse: PulseServer, tmp_path: Path) -> None:
    settings, listen = voice_settings(tmp_path)
    table, players = play_toy(settings, players=True, listen=listen)
    wake_window_opens(table)
    pulse.stop()
    the_game_waits(table)
    pulse.start()
    table.stop_after(players, KO.message("say_lost"))
    texts = table.screen.texts()
    assert texts.count(RU.text("screen.sound_back")) == 1
    assert texts.count(KO.message("say_lost")) == 1  # keypad only from then on, said once
    assert texts.index(RU.text("screen.sound_back")) < texts.index(KO.message("say_lost"))


# --- what is missing at the start --------------------------------------------------------------


def test_a_missing_voice_pack_and_model_at_the_start(pulse: PulseServer, tmp_path: Path) -> None:
    """--voice, --voice-pack and --asr-model all missing: the next best, each said once."""
    settings, _ = voice_settings(tmp_path)
    settings = settings.but(
        voice="no-such-voice",
        voice_pack=str(tmp_path / "no-such-pack"),
        asr_model=tmp_path / "no-such-model",
    )
    table, _ = play_toy(settings, players=True)
    table.finish()
    said = [text for kind, text in table.screen.shown if kind == "said"]
    ru_words = lexicon_for("ru")
    for line in (
        RU.text("notice.voice_missing"),
        RU.text("notice.pack_missing"),
        ru_words.message("say_off"),
    ):
        assert said.count(line) == 1, (line, said[:6])
    lines = [text for kind, text in table.screen.shown if kind == "line"]
    assert any("no-such-model" in line for line in lines), lines[:6]
    assert events(record_in(tmp_path / "records", "toy"), "end", "winner")


def test_a_voice_that_does_not_exist_gives_another_of_the_language() -> None:
    fallbacks: list[str] = []
    settings = TableSettings(game="toy", lang="ru", voice="no-such-voice")
    source = speech_source(settings, "toy", None, fallbacks)
    assert fallbacks == ["notice.voice_missing"]
    assert source.clip("toy.night", RU.text("toy.night")).seconds > 0.5
    fallbacks.clear()
    speech_source(settings.model_copy(update={"voice": "zle/ru"}), "toy", None, fallbacks)
    assert fallbacks == []


def test_a_broken_voice_pack_gives_the_system_voice(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "pack.toml").write_text('name = "p"\nlang = "en"\n')  # a pack of another language
    fallbacks: list[str] = []
    settings = TableSettings(game="toy", lang="ru", voice_pack=str(pack))
    source = speech_source(settings, "toy", None, fallbacks)
    assert fallbacks == ["notice.pack_missing"]
    assert source.clip("toy.night", RU.text("toy.night")).seconds > 0.5


class NoEngine:
    """A fake speech engine that cannot start (nothing real can be uninstalled here)."""

    def __call__(self, *args: object, **kwargs: object) -> Any:
        from narrator.rules.errors import ConfigError

        raise ConfigError("the espeak speech driver does not start (a fake)")


def test_no_speech_engine_gives_printed_lines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import narrator.speaking

    monkeypatch.setattr(narrator.speaking, "speech_source", NoEngine())
    settings = toy_settings(tmp_path)
    prepared = prepare(settings)
    screen = Screen()
    spoken = speaking(settings, prepared, screen, RealClock(), progress=None)
    assert spoken.output is None and isinstance(spoken.sound, Silence)
    reason = "the espeak speech driver does not start (a fake)"
    assert screen.shown == [("said", RU.text("screen.speech_off", {"reason": reason}))]


def nobody() -> Players:
    """A fake table whose players only answer what they are asked."""
    return Players(DemoKeys(random.Random(1), RealClock()), lambda: False)


class Voice:
    """A fake voice that keeps what it was asked to say."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def say(self, key: str, text: str) -> None:
        self.said.append(text)


@pytest.mark.parametrize("problem", ["missing", "not a model"])
def test_a_model_folder_that_is_not_there_leaves_the_keypad(tmp_path: Path, problem: str) -> None:
    model = tmp_path / "model"
    if problem == "not a model":
        model.mkdir()
        (model / "README").write_text("an unpacked archive of something else")
    keys, voice, sound, screen = nobody(), Voice(), Silence(), Screen()
    settings = TableSettings(game="toy", lang="ru", input="voice", asr_model=model)
    got = voice_input(settings, screen, keys, voice, sound)
    assert got[:3] == (keys, voice, sound)
    assert voice.said == [lexicon_for("ru").message("say_off")]
    (line,) = screen.texts()
    assert str(model) in line


def test_a_corrupt_model_is_said_once_and_leaves_the_keypad(tmp_path: Path) -> None:
    """A model folder that looks right but does not load (its files are garbage)."""
    model = tmp_path / "model"
    for name in ("am/final.mdl", "graph/HCLr.fst", "graph/Gr.fst", "conf/mfcc.conf"):
        (model / name).parent.mkdir(parents=True, exist_ok=True)
        (model / name).write_bytes(b"not a model")
    lexicon = lexicon_for("ru")
    listener = Listener(FileSource(silence(5), realtime=True), ModelLoader(model, lexicon), lexicon)
    screen, voice = Screen(), Voice()
    keys = VoiceKeys(nobody(), listener, lexicon, screen)
    keys.watch_voice(voice)
    keys.start()
    try:
        wait_for(lambda: keys.read(0.05) is None and bool(voice.said), "the model to fail")
        for _ in range(5):
            keys.read(0.05)
    finally:
        keys.close()
    assert not keys.enabled
    assert voice.said == [lexicon.message("say_off")]
    assert any("does not load" in line for line in screen.texts()), screen.texts()
