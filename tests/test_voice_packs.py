"""Voice packs: recorded through a fake microphone, loaded back, checked at the boundary."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from narrator.host.audio import PackOrTTS
from narrator.rules.errors import ConfigError
from narrator.sound import loudness
from narrator.sound.clip import Clip
from narrator.voice import pack_record
from narrator.voice.pack_file import export_pack
from narrator.voice.pack_file import import_pack
from narrator.voice.pack_manifest import MANIFEST
from narrator.voice.pack_manifest import PackManifest
from narrator.voice.pack_record import MicrophoneRecorder
from narrator.voice.pack_record import record_pack
from narrator.voice.pack_record import trimmed
from narrator.voice.packs import VoicePack
from narrator.voice.splice import COMMA_S
from narrator.voice.splice import WORD_S
from narrator.voice.splice import Part
from narrator.voice.splice import pack_parts

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
        "from narrator.voice.pack_record import MicrophoneRecorder\n"
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


# --- parts: recorded, checked, spliced --------------------------------------------------------

CALL = "Игрок номер 5, откройте глаза и посмотрите свою карту."


def call_parts() -> list[Part]:
    """The recordings «Игрок номер 5, откройте глаза…» is put together from."""
    wanted = {"deal.call#0", "deal.call#1", "number.5"}
    return [p for p in pack_parts("ru", "onenight") if p.key in wanted]


def test_a_session_asks_for_the_parts_and_the_line_is_spliced(tmp_path: Path) -> None:
    parts = call_parts()
    assert [p.key for p in parts] == ["deal.call#0", "deal.call#1", "number.5"]
    recorder = FakeRecorder([tone(300), tone(400), tone(500)])
    ui = FakeUI(["", "", ""] * 3 + ["s"])  # three takes kept, the number skipped
    summary = record_pack("ru", "home", [LINES[0], *parts], recorder, ui, root=tmp_path)
    assert summary.recorded == ["onenight.night", "deal.call#0", "deal.call#1"]
    assert summary.skipped == ["number.5"]
    shown = "\n".join(ui.shown)
    # What to say, and where it belongs: the text around «…», each number as a word.
    assert "deal.call#0: a piece of a line, say only\n    Игрок номер\n" in shown
    assert "(the line: «Игрок номер …, откройте глаза и посмотрите свою карту.»" in shown
    assert "откройте глаза и посмотрите свою карту." in shown

    manifest = manifest_of(tmp_path / "home")
    assert manifest.source == "recorded"
    assert manifest.parts["deal.call#0"].words == "Игрок номер"
    assert set(manifest.lines) == {"onenight.night"}

    pack = VoicePack.load("home", root=tmp_path)
    assert pack.clip("deal.call", CALL) is None  # number.5 was not recorded yet
    assert not pack.can_say("deal.call", CALL)
    summary = record_pack(
        "ru", "home", parts, FakeRecorder([tone(600)]), FakeUI([""] * 3), root=tmp_path
    )
    assert summary.kept == ["deal.call#0", "deal.call#1"] and summary.recorded == ["number.5"]

    pack = VoicePack.load("home", root=tmp_path)
    assert pack.can_say("deal.call", CALL)
    line = pack.clip("deal.call", CALL)
    assert line is not None and line.rate == RATE and line.channels == 1
    # Three half-second tones with their silence cut to the loudness rule's margins,
    # a word gap and a comma pause.
    parts_s = 3 * (0.5 + 2 * loudness.MARGIN_S)
    assert abs(line.seconds - (parts_s + WORD_S + COMMA_S)) < 0.02
    assert pack.clip("deal.call", CALL.replace("5", "6")) is None  # no number.6
    assert pack.clip("deal.call") is None  # no text: nothing to splice


def test_the_number_prompt_says_the_word(tmp_path: Path) -> None:
    number = next(p for p in pack_parts("ru", "onenight") if p.key == "number.5")
    role = next(p for p in pack_parts("ru", "onenight") if p.key == "role.werewolf")
    ui = FakeUI(["s", "s"])
    record_pack("ru", "home", [number, role], FakeRecorder([]), ui, root=tmp_path)
    assert ui.shown[0] == "[1/2] number.5: a number, said on its own\n    пять"
    assert ui.shown[1] == "[2/2] role.werewolf: a role's name, said on its own\n    Оборотень"


def part_manifest(parts: str) -> str:
    return GOOD + "[parts]\n" + parts


def test_parts_of_another_wording_or_unknown_are_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    manifest = part_manifest(
        '"deal.call#0" = { file = "a.wav", words = "Игрок номер" }\n'
        '"deal.call#1" = { file = "b.wav", words = "возьмите карту." }\n'  # an older wording
        '"number.5" = { file = "c.wav", words = "пять" }\n'
        '"number.x" = { file = "c.wav", words = "икс" }\n'
        '"no.such#0" = { file = "c.wav", words = "нет" }\n'
        '"number.7" = { file = "gone.wav", words = "семь" }\n'
    )
    write_pack(tmp_path, manifest, ("night.wav", "a.wav", "b.wav", "c.wav"))
    with caplog.at_level(logging.WARNING):
        pack = VoicePack.load("p", root=tmp_path)
    assert set(pack.parts) == {"deal.call#0", "number.5"}
    assert pack.missing == ("number.7",)
    assert "1 parts were recorded for another wording" in caplog.text
    assert "number.x" in caplog.text and "no.such#0" in caplog.text
    assert pack.clip("deal.call", CALL) is None  # deal.call#1 is stale: TTS says the line


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ('"deal.call#0" = { file = "../a.wav", words = "Игрок номер" }\n', "file name inside"),
        ('"deal.call#0" = { file = "a.mp3", words = "Игрок номер" }\n', "is not a"),
        ('"deal.call#0" = { file = "a.wav" }\n', "words: Field required"),
        ('"deal.call#0" = { file = "a.wav", words = "" }\n', "words: String should have"),
        ('"deal.call#0" = "a.wav"\n', "parts.deal.call#0"),
    ],
)
def test_an_invalid_part_is_one_line(tmp_path: Path, parts: str, message: str) -> None:
    write_pack(tmp_path, part_manifest(parts))
    with pytest.raises(ConfigError, match=message) as caught:
        VoicePack.load("p", root=tmp_path)
    assert "\n" not in str(caught.value)


def test_an_old_plain_lines_pack_reads_as_before(tmp_path: Path) -> None:
    # Written by the narrator before packs had parts: no source, no [parts].
    old = 'name = "p"\nlang = "ru"\n\n[lines]\n"onenight.night" = "night.wav"\n'
    write_pack(tmp_path, old, ("night.wav",))
    pack = VoicePack.load("p", lang="ru", root=tmp_path)
    assert pack.source is None and pack.parts == {}
    assert pack.clip("onenight.night", "Наступает ночь. Все закрывают глаза.") is not None
    assert pack.clip("deal.call", CALL) is None
    assert pack.unsaid(["Наступает ночь. Все закрывают глаза.", CALL]) == [CALL]
    rendered: list[str] = []

    def tts(text: str) -> Clip:
        rendered.append(text)
        return tone(200)

    speech = PackOrTTS(tts, pack.clip)
    speech.clip("onenight.night", "Наступает ночь. Все закрывают глаза.")
    speech.clip("deal.call", CALL)
    assert rendered == [CALL]
    # The manifest written back keeps the old form.
    assert PackManifest.model_validate(tomllib.loads(old)).to_toml() == old


# --- one file to share ------------------------------------------------------------------------


def small_pack(root: Path, name: str = "home", lang: str = "ru") -> Path:
    """A pack written at once (as `voice build` writes one), of tones."""
    parts = [
        *call_parts(),
        Part("onenight.night", "Наступает ночь. Все закрывают глаза.", "", True),
    ]
    if lang == "en":
        parts = [Part("onenight.night", "Night falls. Everyone, close your eyes.", "", True)]
    tones = iter([tone(300 + 50 * i) for i in range(len(parts))])
    return pack_record.write_pack(
        lang, name, parts, lambda part: next(tones), source="tones", root=root
    )


def test_export_and_import_round_trip(tmp_path: Path) -> None:
    import soundfile

    small_pack(tmp_path / "packs")
    file = tmp_path / "home.zip"
    shared = export_pack("home", file, root=tmp_path / "packs")
    assert shared.recordings == 4 and shared.size == file.stat().st_size
    with zipfile.ZipFile(file) as archive:
        names = sorted(archive.namelist())
        assert names[0] == "deal.call#0.flac" and MANIFEST in names
        assert archive.getinfo(MANIFEST).compress_type == zipfile.ZIP_DEFLATED
    again = import_pack(file, name="guest", lang="ru", root=tmp_path / "packs")
    assert again.name == "guest" and again.recordings == 4
    before = VoicePack.load("home", root=tmp_path / "packs")
    after = VoicePack.load("guest", root=tmp_path / "packs")
    assert manifest_of(after.folder).name == "guest" and after.source == "tones"
    assert set(after.files) == set(before.files) and set(after.parts) == set(before.parts)
    one, two = before.clip("deal.call", CALL), after.clip("deal.call", CALL)
    assert one is not None and two is not None
    assert np.allclose(one.samples, two.samples, atol=1e-4)  # FLAC: lossless
    assert soundfile.info(str(after.parts["number.5"])).format == "FLAC"

    ogg = tmp_path / "home-ogg.zip"
    small = export_pack("home", ogg, audio="ogg", root=tmp_path / "packs")
    assert small.size < shared.size
    import_pack(ogg, name="ogg", root=tmp_path / "packs")
    line = VoicePack.load("ogg", root=tmp_path / "packs").clip("deal.call", CALL)
    assert line is not None and abs(line.seconds - one.seconds) < 0.15  # lossy: trims differ


def damaged(tmp_path: Path, how: str) -> Path:
    small_pack(tmp_path / "packs")
    file = tmp_path / "home.zip"
    export_pack("home", file, root=tmp_path / "packs")
    data = file.read_bytes()
    if how == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif how == "garbage":
        file.write_bytes(b"this is not a voice pack at all\n" * 40)
    elif how == "empty":
        file.write_bytes(b"")
    elif how == "no manifest":
        with zipfile.ZipFile(file, "w") as archive:
            archive.writestr("night.flac", data[:100])
    elif how == "bad audio":
        with zipfile.ZipFile(file) as archive:
            entries = {n: archive.read(n) for n in archive.namelist()}
        entries["number.5.flac"] = b"fLaC" + bytes(200)
        with zipfile.ZipFile(file, "w") as archive:
            for name, content in entries.items():
                archive.writestr(name, content)
    elif how == "missing audio":
        with zipfile.ZipFile(file) as archive:
            entries = {n: archive.read(n) for n in archive.namelist() if n != "number.5.flac"}
        with zipfile.ZipFile(file, "w") as archive:
            for name, content in entries.items():
                archive.writestr(name, content)
    elif how == "flipped":  # a byte of a stored recording changed: its checksum is wrong
        at = data.index(b"fLaC") + 300
        file.write_bytes(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :])
    elif how == "bad manifest":
        with zipfile.ZipFile(file, "w") as archive:
            archive.writestr(MANIFEST, 'name = "x"\nlang = "de"\n')
    return file


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("truncated", r"is not a voice pack file: not a zip archive, or cut short"),
        ("garbage", r"is not a voice pack file: not a zip archive, or cut short"),
        ("empty", r"is not a voice pack file: not a zip archive, or cut short"),
        ("no manifest", r"has no pack\.toml: it is not a voice pack file"),
        ("bad audio", r"is damaged: number\.5\.flac is not readable audio"),
        ("missing audio", r"is damaged: number\.5\.flac is missing from it"),
        ("flipped", r"is damaged: .* cannot be read \(Bad CRC-32"),
        ("bad manifest", r"pack\.toml: lang: unknown language 'de'"),
    ],
)
def test_a_damaged_pack_file_is_one_line(tmp_path: Path, how: str, message: str) -> None:
    file = damaged(tmp_path, how)
    with pytest.raises(ConfigError, match=message) as caught:
        import_pack(file, name="other", root=tmp_path / "packs")
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "packs" / "other").exists()
    assert [p.name for p in (tmp_path / "packs").iterdir()] == ["home"]  # nothing half-written


def test_a_pack_of_another_language_or_name_is_refused(tmp_path: Path) -> None:
    small_pack(tmp_path / "packs", "english", lang="en")
    file = tmp_path / "english.zip"
    export_pack("english", file, root=tmp_path / "packs")
    with pytest.raises(ConfigError, match=r"is a 'en' voice pack, not 'ru'"):
        import_pack(file, lang="ru", name="x", root=tmp_path / "packs")
    with pytest.raises(ConfigError, match=r"'english' already exists .*--name OTHER"):
        import_pack(file, root=tmp_path / "packs")
    with pytest.raises(ConfigError, match="does not exist"):
        import_pack(tmp_path / "nothing.zip", root=tmp_path / "packs")
    with pytest.raises(ConfigError, match=r"not a regular file \(a folder\)"):
        import_pack(tmp_path, root=tmp_path / "packs")
    with pytest.raises(ConfigError, match="voice pack name"):
        import_pack(file, name="a b!", root=tmp_path / "packs")
    with pytest.raises(ConfigError, match=r"not found"):
        export_pack("nobody", tmp_path / "x.zip", root=tmp_path / "packs")
    assert import_pack(file, name="english-2", root=tmp_path / "packs").lang == "en"


def test_a_built_pack_is_not_overwritten_unless_replaced(tmp_path: Path) -> None:
    small_pack(tmp_path)
    with pytest.raises(ConfigError, match=r"'home' already exists .*--replace"):
        small_pack(tmp_path)
    parts = [Part("onenight.night", "Наступает ночь. Все закрывают глаза.", "", True)]
    pack_record.write_pack(
        "ru", "home", parts, lambda part: tone(700), source="new", root=tmp_path, replace=True
    )
    pack = VoicePack.load("home", root=tmp_path)
    assert pack.source == "new" and set(pack.files) == {"onenight.night"} and not pack.parts
    assert [p.name for p in tmp_path.iterdir()] == ["home"]  # no partial or old folder left
    with pytest.raises(ConfigError, match="speaks 'ru', not 'en'"):
        pack_record.write_pack(
            "en", "home", [], lambda part: tone(700), source="x", root=tmp_path, replace=True
        )


# --- the command line -------------------------------------------------------------------------


def narrator(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    return subprocess.run(
        [sys.executable, "-m", "narrator.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def test_build_export_and_import_from_the_command_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    built = narrator(
        "voice",
        "build",
        "--lang",
        "en",
        "--variant",
        "onenight",
        "--voice",
        "gmw/en-us",
        "--name",
        "mine",
        data=data,
    )
    assert built.returncode == 0, built.stderr
    assert "voice pack 'mine' (en, onenight), voice espeak:gmw/en-us" in built.stdout
    pack = VoicePack.load("mine", lang="en", root=data / "narrator" / "voices")
    assert {p.key for p in pack_parts("en", "onenight")} == set(pack.files) | set(pack.parts)

    again = narrator(
        "voice", "build", "--lang", "en", "--variant", "onenight", "--name", "mine", data=data
    )
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "already exists" in again.stderr

    file = tmp_path / "mine.zip"
    exported = narrator("voice", "export", "mine", str(file), "--audio", "ogg", data=data)
    assert exported.returncode == 0, exported.stderr
    assert f"→ {file}" in exported.stdout
    imported = narrator("voice", "import", str(file), "--name", "theirs", "--lang", "en", data=data)
    assert imported.returncode == 0, imported.stderr
    assert "play with --voice-pack theirs" in imported.stdout

    file.write_bytes(file.read_bytes()[:1000])
    for args, words in [
        (("voice", "import", str(file)), "not a zip archive, or cut short"),
        (("voice", "import", str(tmp_path / "none.zip")), "does not exist"),
        (("voice", "export", "nobody", str(tmp_path / "x.zip")), "not found"),
        (("voice", "build", "--lang", "en", "--replace"), "--replace goes with --name"),
        (("voice", "build", "--voice", "nosuch", "--name", "z"), "'nosuch' not found"),
        (("voice", "build", "--voice", "gmw/en-us", "--name", "z"), "speaks 'en', not 'ru'"),
    ]:
        failed = narrator(*args, data=data)
        assert failed.returncode == 2, failed.stderr
        assert failed.stderr.count("\n") == 1 and words in failed.stderr, failed.stderr
        assert "Traceback" not in failed.stderr
