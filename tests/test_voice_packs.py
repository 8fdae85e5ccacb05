"""Voice packs: recorded through a fake microphone, loaded back, checked at the boundary."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice.packs import (
    MANIFEST,
    MicrophoneRecorder,
    PackManifest,
    VoicePack,
    record_pack,
    trimmed,
)

RATE = 16000
LINES = [
    ("onenight.night", "Наступает ночь. Все закрывают глаза."),
    ("onenight.hi_wake", "Верховный инквизитор видит вещий сон!"),
    ("onenight.hi_sleep", "Верховный инквизитор засыпает!"),
]


def tone(hz: float, seconds: float = 0.5, pad: float = 0.3) -> Clip:
    """A take: silence, a tone (the 'voice'), silence."""
    t = np.arange(round(seconds * RATE)) / RATE
    voice = 0.5 * np.sin(2 * np.pi * hz * t)
    quiet = np.zeros(round(pad * RATE))
    return Clip.from_mono(np.concatenate([quiet, voice, quiet]), RATE)


class FakeRecorder:
    """A fake microphone: each take is the next synthetic clip; playback is remembered."""

    def __init__(self, takes: list[Clip]) -> None:
        self.takes = list(takes)
        self.recording = False
        self.played: list[Clip] = []

    def start(self) -> None:
        assert not self.recording
        self.recording = True

    def stop(self) -> Clip:
        assert self.recording
        self.recording = False
        return self.takes.pop(0)

    def play(self, clip: Clip) -> None:
        self.played.append(clip)


class FakeUI:
    """A fake person at the keyboard: answers from a script, remembers what was shown."""

    def __init__(self, answers: list[str]) -> None:
        self.answers: Iterator[str] = iter(answers)
        self.shown: list[str] = []
        self.asked: list[str] = []

    def show(self, text: str) -> None:
        self.shown.append(text)

    def ask(self, question: str) -> str:
        self.asked.append(question)
        return next(self.answers)


def manifest_of(folder: Path) -> PackManifest:
    return PackManifest.model_validate(tomllib.loads((folder / MANIFEST).read_text("utf-8")))


def test_record_keep_redo_skip(tmp_path: Path) -> None:
    recorder = FakeRecorder([tone(300), tone(400), tone(500)])
    answers = [
        *("", "", "r"),  # line 1: record, stop, hear it, record again
        *("", "", ""),  # … record, stop, keep
        "s",  # line 2: skip
        *("", "", ""),  # line 3: record, stop, keep
    ]
    ui = FakeUI(answers)
    summary = record_pack("ru", "home", LINES, recorder, ui, root=tmp_path)
    assert summary.recorded == ["onenight.night", "onenight.hi_sleep"]
    assert summary.skipped == ["onenight.hi_wake"]
    assert not summary.stopped
    assert len(recorder.played) == 3  # every take was played back
    assert any("Наступает ночь. Все закрывают глаза." in text for text in ui.shown)

    folder = tmp_path / "home"
    manifest = manifest_of(folder)
    assert manifest.name == "home" and manifest.lang == "ru"
    assert set(manifest.lines) == {"onenight.night", "onenight.hi_sleep"}

    pack = VoicePack.load("home", lang="ru", root=tmp_path)
    night = pack.clip("onenight.night")
    assert night is not None and night.rate == RATE and night.channels == 1
    # The second take (400 Hz) was kept, without most of the silence around it.
    spectrum = np.abs(np.fft.rfft(night.samples[:, 0]))
    assert abs(np.argmax(spectrum) * RATE / night.frames - 400) < 5
    assert 0.5 <= night.seconds < 0.8
    assert pack.clip("onenight.hi_wake") is None  # skipped: TTS says it
    assert pack.clip("onenight.hi_sleep") is not None
    assert pack.clip("deal.call") is None


def test_an_interrupted_session_keeps_what_was_recorded(tmp_path: Path) -> None:
    class Interrupted(Exception):
        pass

    class LeavingUI(FakeUI):
        def ask(self, question: str) -> str:
            if len(self.asked) == 3:  # the person leaves at the second line
                raise Interrupted
            return super().ask(question)

    recorder = FakeRecorder([tone(300)])
    with pytest.raises(Interrupted):
        record_pack("ru", "home", LINES, recorder, LeavingUI(["", "", ""]), root=tmp_path)
    assert set(manifest_of(tmp_path / "home").lines) == {"onenight.night"}

    # The next session passes over the recorded line and goes on.
    recorder = FakeRecorder([tone(500), tone(600)])
    ui = FakeUI(["", "", "", "", "", ""])
    summary = record_pack("ru", "home", LINES, recorder, ui, root=tmp_path)
    assert summary.kept == ["onenight.night"]
    assert summary.recorded == ["onenight.hi_wake", "onenight.hi_sleep"]
    assert len(VoicePack.load("home", root=tmp_path).files) == 3


def test_ctrl_c_while_recording_closes_the_microphone(tmp_path: Path) -> None:
    class CtrlC(FakeUI):
        def ask(self, question: str) -> str:
            if question.startswith("Recording") and len(self.asked) > 3:
                raise KeyboardInterrupt
            return super().ask(question)

    recorder = FakeRecorder([tone(300), tone(400)])
    summary = record_pack("ru", "home", LINES, recorder, CtrlC(["", "", ""] * 2), root=tmp_path)
    assert summary.stopped and summary.recorded == ["onenight.night"]
    assert not recorder.recording
    assert set(manifest_of(tmp_path / "home").lines) == {"onenight.night"}


def test_quitting_stops_the_session(tmp_path: Path) -> None:
    summary = record_pack("ru", "home", LINES, FakeRecorder([]), FakeUI(["q"]), root=tmp_path)
    assert summary.stopped and not summary.recorded
    assert manifest_of(tmp_path / "home").lines == {}


def test_a_silent_take_is_asked_again(tmp_path: Path) -> None:
    silent = Clip.from_mono(np.zeros(RATE), RATE)
    recorder = FakeRecorder([silent, tone(300)])
    ui = FakeUI(["", "", "", "", ""])
    summary = record_pack("ru", "home", LINES[:1], recorder, ui, root=tmp_path)
    assert summary.recorded == ["onenight.night"]
    assert any("Nothing was heard" in text for text in ui.shown)
    assert len(recorder.played) == 1


def test_trimming_keeps_a_margin() -> None:
    clip = trimmed(tone(300, seconds=0.5, pad=1.0))
    assert 0.5 <= clip.seconds <= 0.5 + 2 * 0.08 + 0.01
    silent = Clip.from_mono(np.zeros(100), RATE)
    assert trimmed(silent).frames == 100


# --- loading and checking --------------------------------------------------------------------


def write_pack(root: Path, manifest: str, files: tuple[str, ...] = ()) -> Path:
    import soundfile

    folder = root / "p"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST).write_text(manifest, "utf-8")
    for name in files:
        soundfile.write(str(folder / name), tone(300).samples, RATE)
    return folder


GOOD = 'name = "p"\nlang = "ru"\n[lines]\n"onenight.night" = "night.wav"\n'


def test_a_pack_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not found.*narrator voice record"):
        VoicePack.load("nobody", root=tmp_path)


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ('lang = "ru"\n', "name: Field required"),
        ('name = "p"\n', "lang: Field required"),
        ('name = "p"\nlang = "de"\n', "unknown language 'de'"),
        ('name = "p"\nlang = "ru"\nvoice = "x"\n', "voice: Extra inputs"),
        ('name = "p"\nlang = "ru"\n[lines]\n"onenight.night" = "../x.wav"\n', "file name inside"),
        ('name = "p"\nlang = "ru"\n[lines]\n"onenight.night" = "x.mp3"\n', "is not a"),
        ('name = "p"\nlang = "ru"\n[lines]\n"onenight.night" = 5\n', "string"),
        ('name = "p"\nlang = \n', "not valid TOML"),
    ],
)
def test_an_invalid_manifest_is_one_line(tmp_path: Path, manifest: str, message: str) -> None:
    write_pack(tmp_path, manifest)
    with pytest.raises(ConfigError, match=message) as caught:
        VoicePack.load("p", root=tmp_path)
    assert "\n" not in str(caught.value)


def test_a_pack_without_a_manifest_is_incomplete(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    with pytest.raises(ConfigError, match=r"incomplete: .*pack\.toml is missing"):
        VoicePack.load("p", root=tmp_path)


def test_a_pack_in_another_language(tmp_path: Path) -> None:
    write_pack(tmp_path, GOOD, ("night.wav",))
    with pytest.raises(ConfigError, match="speaks 'ru', but the game is in 'en'"):
        VoicePack.load("p", lang="en", root=tmp_path)


def test_missing_recordings_fall_back(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    manifest = GOOD + '"onenight.hi_wake" = "wake.wav"\n"deal.call" = "call.wav"\n'
    write_pack(tmp_path, manifest, ("night.wav", "call.wav"))
    with caplog.at_level(logging.WARNING):
        pack = VoicePack.load("p", root=tmp_path)
    assert pack.missing == ("onenight.hi_wake",)
    assert "1 recordings are missing" in caplog.text and "onenight.hi_wake" in caplog.text
    # deal.call has a {seat}: never recorded, always TTS.
    assert "deal.call" in caplog.text
    assert pack.clip("onenight.night") is not None
    assert pack.clip("onenight.hi_wake") is None
    assert pack.clip("deal.call") is None


def test_an_unreadable_recording_falls_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = write_pack(tmp_path, GOOD)
    (folder / "night.wav").write_bytes(b"not audio at all")
    pack = VoicePack.load("p", root=tmp_path)
    with caplog.at_level(logging.WARNING):
        assert pack.clip("onenight.night") is None
    assert "unreadable" in caplog.text
    assert pack.clip("onenight.night") is None


def test_a_bad_pack_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="voice pack name"):
        VoicePack.load("a b!", root=tmp_path)


def test_a_pack_given_as_a_path(tmp_path: Path) -> None:
    folder = write_pack(tmp_path, GOOD, ("night.wav",))
    assert VoicePack.load(str(folder)).clip("onenight.night") is not None


# --- the real microphone ---------------------------------------------------------------------


def test_no_microphone_is_one_line() -> None:
    # A fresh process without the test PulseAudio server: this machine has no sound card.
    code = (
        "from narrator.rules.errors import ConfigError\n"
        "from narrator.voice.packs import MicrophoneRecorder\n"
        "try:\n"
        "    print('device:', MicrophoneRecorder().device_name)\n"
        "except ConfigError as error:\n"
        "    print('error:', error)\n"
    )
    test_server = ("PULSE", "ALSA", "XDG_RUNTIME_DIR")  # the session's PulseAudio fixture
    env = {k: v for k, v in os.environ.items() if not k.startswith(test_server)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    if result.stdout.startswith("device:"):
        pytest.skip(f"this machine has a microphone ({result.stdout.strip()})")
    assert result.stdout.strip() == (
        "error: no microphone: this machine has no audio input device; plug one in"
    )


def test_recording_from_the_default_microphone(pulse_audio: dict[str, str]) -> None:
    """Speak into the virtual microphone (a tone played to micfeed) and record it."""
    import sounddevice as sd

    recorder = MicrophoneRecorder()
    said = tone(440, seconds=0.6, pad=0.0).to(48000, 1)
    recorder.start()
    time.sleep(0.3)
    done = threading.Event()

    def speak() -> None:
        sd.play(said.samples, said.rate, device="micfeed", blocking=True)
        done.set()

    threading.Thread(target=speak, daemon=True).start()
    assert done.wait(10)
    time.sleep(0.4)
    take = recorder.stop()
    assert take.rate == 48000 and take.channels == 1
    assert take.seconds > 1.0
    loud = trimmed(take)
    assert float(np.abs(loud.samples).max()) > 0.1
    spectrum = np.abs(np.fft.rfft(loud.samples[:, 0]))
    assert abs(np.argmax(spectrum) * loud.rate / loud.frames - 440) < 10
