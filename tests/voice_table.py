"""Shared set-up of the listening tests: fakes, waits, and a day vote by voice at a real table.

Used by test_listen_sphinx.py and test_listen_vosk.py. The live pieces speak into the
PulseAudio virtual microphone of ``tests/pulse.py`` (the ``pulse_audio`` fixture).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.listen.engine import RATE
from narrator.listen.keys import VoiceKeys
from narrator.ports import ENTER
from narrator.rules.core import Ask
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Script
from narrator.rules.core import Timer
from narrator.rules.phases import day
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from tests.test_listen_readback import as_keys

if TYPE_CHECKING:
    from narrator.record import GameRecord
    from narrator.voice.catalog import Catalog
    from narrator.voice.tts import SpeechCache


class Keypad:
    """A keypad nobody touches; it keeps the prompts it was told to expect."""

    def __init__(self) -> None:
        self.expected: list[Prompt | None] = []

    def read(self, timeout: float) -> str | None:
        time.sleep(max(timeout, 0))
        return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self.expected.append(prompt)


class Screen:
    """A screen nobody looks at; the lines are kept for the test."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, text: str) -> None:
        self.lines.append(text)

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None  # the rest of the Screen port: nothing to see


def silence(seconds: float) -> bytes:
    """``seconds`` of digital silence as 16 kHz mono int16 PCM."""
    return bytes(int(RATE * seconds) * 2)


def typed(keys: VoiceKeys, seconds: float) -> str:
    """Everything typed for the table until an ENTER, or until ``seconds`` pass."""
    out = ""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        key = keys.read(0.1)
        if key is None:
            continue
        out += as_keys(key)
        if out.endswith(ENTER):
            break
    return out


def wait_until(condition: Callable[[], bool], seconds: float) -> None:
    """Return once ``condition`` holds; fail the test if ``seconds`` pass first."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def play_into_microphone(pcm: bytes, env: dict[str, str], folder: Path) -> None:
    """Speak into the virtual microphone: play to the ``micfeed`` sink."""
    import numpy as np
    import soundfile

    path = folder / f"say-{time.monotonic_ns()}.wav"
    soundfile.write(str(path), np.frombuffer(pcm, dtype=np.int16), RATE)
    subprocess.run(["paplay", "--device=micfeed", str(path)], env={**os.environ, **env}, check=True)


# --- a day vote by voice at a real table --------------------------------------------------


def day_vote(answers: list[object], vote: Prompt) -> Script:
    """A sport_mafia day: seat 3's speech (a timer), then ``vote``; the answers are kept."""
    yield Phase(day(1))
    yield Say("sport.day_one", dawn=True)  # the day begins: «thanks» may be heard
    answer = yield Timer(Tag(day(1), "speech", 3), 20.0, 3, ())
    answers.append(answer)
    answer = yield Ask(vote)
    answers.append(answer)
    yield Say("sport.leaves", {"seat": 4})
    return Outcome(None, day(1))


def render_the_day(catalog: Catalog, cache: SpeechCache) -> None:
    """Speak the day's lines into ``cache`` before the game, so the table never waits."""
    for key in ("sport.day_one", "sport.leaves"):
        cache.clip(catalog.text(key, {"seat": 4}))


def speak_at_the_vote(
    keys: VoiceKeys, thanks: bytes, count: bytes, env: dict[str, str], folder: Path, vote_s: float
) -> None:
    """The table's part, into the virtual microphone: ``thanks`` once the engine is loaded
    and the speech is listened to, then ``count`` once the vote is asked (within ``vote_s``)."""
    wait_until(lambda: keys.listener.loader.done(), 20)
    wait_until(lambda: keys.listening and keys.may_listen() and keys.prompt is None, 20)
    play_into_microphone(silence(0.2) + thanks + silence(0.3), env, folder)
    wait_until(lambda: keys.listening and keys.prompt is not None and keys.may_listen(), vote_s)
    play_into_microphone(silence(0.2) + count + silence(0.3), env, folder)


def vote_by_voice(
    keys: VoiceKeys,
    screen: Screen,
    catalog: Catalog,
    cache: SpeechCache,
    *,
    vote: Prompt,
    answer_s: float,
    speak: Callable[[], None],
) -> tuple[list[object], GameRecord]:
    """Run ``day_vote`` on a real table (the sound device, the voice, ``keys``) while
    ``speak`` talks in another thread; the answers the script got, and the record."""
    answers: list[object] = []
    record = play_by_voice(
        keys, screen, catalog, cache, day_vote(answers, vote), answer_s=answer_s, speak=speak
    )
    return answers, record


def play_by_voice(
    keys: VoiceKeys,
    screen: Screen,
    catalog: Catalog,
    cache: SpeechCache,
    script: Script,
    *,
    answer_s: float,
    speak: Callable[[], None],
) -> GameRecord:
    """Run ``script`` (a sport_mafia table of ten) on a real table: the sound device, the
    voice, ``keys``, while ``speak`` talks in another thread; the record."""
    from narrator.clocks import RealClock
    from narrator.host.audio import AudioVoice
    from narrator.host.audio import NightSound
    from narrator.host.audio import PackOrTTS
    from narrator.host.table import TableDriver
    from narrator.record import GameRecord
    from narrator.rules.core import Deal
    from narrator.rules.core import Game
    from narrator.sound.mixer import Mixer
    from narrator.sound.output import DeviceOutput

    mixer = Mixer()
    device = DeviceOutput(mixer)
    device.start()
    clock = RealClock()
    voice = keys.watch_voice(
        AudioVoice(PackOrTTS(cache.clip), mixer, device.playback, clock, False)
    )
    sound = keys.watch_sound(NightSound(mixer))
    record = GameRecord()
    driver = TableDriver(
        catalog,
        record,
        voice=voice,
        screen=screen,
        keys=keys,
        clock=clock,
        answer_s=answer_s,
        sound=sound,
    )
    keys.start()
    speaker = threading.Thread(target=speak, daemon=True)
    speaker.start()
    try:
        driver.run(Game("sport_mafia", Deal(("citizen",) * 10), script))
    finally:
        keys.close()
        device.stop()
    speaker.join(5)
    return record
