"""Real speech engines behind one port: Festival, hibari and espeak-ng, and choosing among them."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from narrator.rules.errors import ConfigError
from narrator.sound import loudness
from narrator.sound.clip import Clip
from narrator.voice import engines
from narrator.voice import voices
from narrator.voice.audio_file import read_clip
from narrator.voice.commands import voices_command
from narrator.voice.engines import EngineInfo
from narrator.voice.engines import VoiceInfo
from narrator.voice.engines.festival import FestivalEngine
from narrator.voice.engines.festival import prepared
from narrator.voice.engines.festival import scheme_string
from narrator.voice.engines.system import SystemEngine
from narrator.voice.engines.system import voice_info
from narrator.voice.engines.tempo import at_speed
from narrator.voice.tts import SpeechCache
from narrator.voice.voices import VoiceRequest
from narrator.voice.voices import choose_voice
from narrator.voice.voices import is_named
from narrator.voice.voices import list_voices

ROOT = Path(__file__).resolve().parent.parent
RU_LINE = "Игрок номер 5, откройте глаза и посмотрите свою карту."
EN_LINE = "Player number 5, open your eyes and look at your card."
RU_HOSTILE = 'Он сказал: "(да)" и \\ ушёл — «Шериф»… (100%) [sic]; C:\\путь\\"x"'
EN_HOSTILE = 'He said "stop" \\ (now); C:\\path\\"x" (a) ((b)) ) "" \\\\ end.'
FESTIVAL_RU = "festival:msu_ru_nsh_clunits"
FESTIVAL_EN = "festival:cmu_us_slt_arctic_hts"


def rms(clip: Clip) -> float:
    return float(np.sqrt(np.mean(np.square(clip.samples))))


def assert_speech(clip: Clip, shortest: float = 1.0, longest: float = 8.0) -> None:
    """Real speech: loud enough, long enough for the words, and not an endless buzz."""
    assert clip.channels == 1
    assert shortest <= clip.seconds <= longest, clip.seconds
    assert rms(clip) > 0.01
    assert float(np.abs(clip.samples).max()) > 0.05
    # Speech comes and goes: a tenth of its 20 ms frames at least are much quieter
    # than the loudest ones (a tone or noise would be flat).
    size = clip.rate // 50
    frames = clip.samples[: clip.frames // size * size, 0].reshape(-1, size)
    energy = np.sqrt(np.mean(np.square(frames), axis=1))
    assert np.mean(energy < 0.2 * energy.max()) > 0.1


def festival_children() -> list[int]:
    """The festival processes this test process started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and command.endswith(b"festival"):
            found.append(int(entry.name))
    return found


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "speech"


# --- the port: audio with its format, and what each engine says about itself -------------------

# Each engine (voice) speaks at its own sample rate; the port hands it over with the samples.
ENGINE_RATES = {"espeak": {22050}, "festival": {16000, 32000}, "hibari": {24000}}
SPOKEN = {"espeak": ("ru", "en"), "festival": ("ru", "en"), "hibari": ("en",)}


@pytest.mark.parametrize("name", sorted(ENGINE_RATES))
def test_an_engine_returns_audio_with_its_format_and_describes_itself(name: str) -> None:
    engine = voices.engine(name)
    info = engine.info()
    assert isinstance(info, EngineInfo)
    assert info.name == name == engine.name
    assert info.version == engine.version and info.version
    assert set(SPOKEN[name]) <= set(info.languages)
    assert list(info.voices) == engine.voices()
    assert all(v.driver == name and v.lang in info.languages for v in info.voices if v.lang)
    for lang in SPOKEN[name]:
        voice = choose_voice(lang, name)
        assert voice.driver == name
        said = engine.renders
        clip = engine.synthesize(RU_LINE if lang == "ru" else EN_LINE, voice, 170)
        assert isinstance(clip, Clip)
        assert clip.rate in ENGINE_RATES[name]
        assert clip.samples.dtype == np.float32 and clip.samples.ndim == 2
        assert clip.channels == 1
        assert float(np.abs(clip.samples).max()) <= 1.0
        assert_speech(clip)
        assert engine.renders == said + 1


def test_an_engine_leaves_no_file_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What an engine writes for itself (Festival's and pyttsx3's files) is gone once it has
    handed the audio over: the speech cache alone keeps files."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for name in ("festival", "espeak"):
        engine = voices.engine(name)
        engine.close()
        engine.synthesize("Раз.", choose_voice("ru", name), 170)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


# --- rendering -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "voice", "line"), [("ru", FESTIVAL_RU, RU_LINE), ("en", FESTIVAL_EN, EN_LINE)]
)
def test_festival_renders_a_line(lang: str, voice: str, line: str, tmp_path: Path) -> None:
    festival = voices.engine("festival")
    chosen = choose_voice(lang, voice)
    assert chosen.key == voice
    clip = festival.synthesize(line, chosen, 170)
    assert clip.rate in (16000, 32000, 48000)
    assert_speech(clip)


def test_hibari_renders_english() -> None:
    hibari = voices.engine("hibari")
    clip = hibari.synthesize(EN_LINE, choose_voice("en", "hibari:heart"), 170)
    assert clip.rate == 24000
    assert_speech(clip)
    # The same text renders to the same samples: a cache file can be trusted.
    again = hibari.synthesize(EN_LINE, choose_voice("en", "hibari"), 170)
    np.testing.assert_array_equal(again.samples, clip.samples)


def test_hibari_offers_only_the_voice_in_its_package(caplog: pytest.LogCaptureFixture) -> None:
    offered = voices.engine("hibari").voices()
    assert [(v.id, v.lang, v.quality) for v in offered] == [("heart", "en", engines.BEST)]
    # Another hibari voice would be a download: it is not offered, the best voice speaks.
    with caplog.at_level(logging.WARNING):
        assert choose_voice("en", "hibari:emma").key == "hibari:heart"
    assert "hibari has no voice 'emma'" in caplog.text


@pytest.mark.parametrize(("lang", "text"), [("ru", RU_HOSTILE), ("en", EN_HOSTILE)])
def test_scheme_hostile_text_renders(lang: str, text: str, folder: Path) -> None:
    voice = FESTIVAL_RU if lang == "ru" else FESTIVAL_EN
    cache = SpeechCache(lang, voice=voice, folder=folder)
    assert cache.voice.key == voice
    assert_speech(cache.clip(text), shortest=0.8, longest=12.0)
    # The engine takes it as it is too, without the pronunciation step before it.
    direct = voices.engine("festival").synthesize(text, cache.voice, 170)
    assert_speech(direct, shortest=0.8, longest=12.0)


def test_festival_text_preparation() -> None:
    assert prepared("«Шериф» — да… ё") == '"Шериф", да... ё'
    assert prepared("a \\ b — , c") == "a b, c"
    assert prepared("глаз+а 5+3 + ") == "глаз+а 53"
    assert prepared("Ünïcödé 100% ☺") == "Unicode 100"
    assert prepared(" ... ") == ""
    assert scheme_string('say "x" \\ y') == '"say \\"x\\" \\\\ y"'


def test_the_rate_changes_festivals_pace(folder: Path) -> None:
    for voice in (FESTIVAL_RU, FESTIVAL_EN):
        lang = "ru" if voice == FESTIVAL_RU else "en"
        line = RU_LINE if lang == "ru" else EN_LINE
        slow = SpeechCache(lang, voice=voice, rate=110, folder=folder).clip(line)
        natural = SpeechCache(lang, voice=voice, folder=folder).clip(line)
        fast = SpeechCache(lang, voice=voice, rate=260, folder=folder).clip(line)
        assert slow.seconds > 1.3 * natural.seconds > 1.3 * 1.3 * fast.seconds, voice


def test_a_stretch_keeps_the_pitch() -> None:
    rate = 16000
    tone = (0.5 * np.sin(2 * np.pi * 220 * np.arange(rate) / rate)).astype(np.float32)
    for speed in (0.5, 0.8, 1.6, 2.5):
        out = at_speed(tone, rate, speed)
        assert abs(out.size - tone.size / speed) <= 1
        spectrum = np.abs(np.fft.rfft(out))
        assert np.fft.rfftfreq(out.size, 1 / rate)[np.argmax(spectrum)] == pytest.approx(220, abs=3)
        middle = out[out.size // 4 : 3 * out.size // 4]
        assert float(np.sqrt(np.mean(middle**2))) == pytest.approx(0.5 / np.sqrt(2), rel=0.05)
    assert at_speed(tone, rate, 1.0) is tone
    with pytest.raises(ValueError, match="speed"):
        at_speed(tone, rate, 10.0)


# --- one process, restarted once --------------------------------------------------------------


def test_one_festival_process_for_every_cache(folder: Path) -> None:
    first = SpeechCache("ru", voice=FESTIVAL_RU, folder=folder)
    second = SpeechCache("en", voice=FESTIVAL_EN, folder=folder / "other")
    assert first.engine is second.engine is voices.engine("festival")
    first.clip("Первая строка.")
    second.clip("The second line.")
    assert len(festival_children()) == 1
    first.engine.close()
    assert festival_children() == []
    first.clip("Снова первая строка.")  # started again on demand
    assert len(festival_children()) == 1


def test_a_dead_festival_is_started_again() -> None:
    festival = voices.engine("festival")
    assert isinstance(festival, FestivalEngine)
    voice = choose_voice("ru", FESTIVAL_RU)
    festival.synthesize("Раз.", voice, 170)
    (before,) = festival_children()
    os.kill(before, 9)
    two = festival.synthesize("Два.", voice, 170)
    (after,) = festival_children()
    assert after != before
    assert_speech(two, shortest=0.2)


def test_a_festival_gone_wrong_inside_is_started_again(caplog: pytest.LogCaptureFixture) -> None:
    """A process whose Scheme state broke fails every line: the line is said by a fresh
    process instead, and the engine keeps Festival's voice."""
    festival = voices.engine("festival")
    assert isinstance(festival, FestivalEngine)
    voice = choose_voice("ru", FESTIVAL_RU)
    festival.synthesize("Раз.", voice, 170)
    (before,) = festival_children()
    process = festival._process
    assert process is not None
    # From now on every synthesis in this process fails.
    process.ask("(define (utt.synth utt) ((lambda (a b) a) utt))", 99, 10)
    with caplog.at_level(logging.WARNING):
        two = festival.synthesize("Два.", voice, 170)
    (after,) = festival_children()
    assert after != before
    assert "festival failed" in caplog.text and "starting it again" in caplog.text
    assert_speech(two, shortest=0.2)


def test_a_festival_that_cannot_start_is_a_clear_error() -> None:
    broken = FestivalEngine(program="/bin/false")
    voice = choose_voice("ru", FESTIVAL_RU)
    with pytest.raises(OSError, match="festival does not start"):
        broken.synthesize("Раз.", voice, 170)


def test_a_failing_engine_hands_over_to_the_next_voice(
    folder: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cache = SpeechCache("ru", folder=folder)
    assert cache.voice.key == FESTIVAL_RU
    festival = voices.engine("festival")
    assert isinstance(festival, FestivalEngine)
    festival.close()
    monkeypatch.setattr(festival, "_program", "/bin/false")  # Festival is gone mid-game
    with caplog.at_level(logging.WARNING):
        clip = cache.clip(RU_LINE)
    assert cache.voice.key == "espeak:zle/ru"
    assert "the festival engine fails" in caplog.text
    assert_speech(clip)


# --- choosing a voice ------------------------------------------------------------------------


def test_the_best_installed_voice_is_the_default(folder: Path) -> None:
    assert choose_voice("ru").key == FESTIVAL_RU
    assert choose_voice("en").key == "hibari:heart"
    assert SpeechCache("ru", folder=folder).voice.key == FESTIVAL_RU
    assert SpeechCache("en", folder=folder).voice.key == "hibari:heart"
    ranks = {v.key: v.quality for v in list_voices()}
    assert ranks[FESTIVAL_RU] == ranks["hibari:heart"] > ranks[FESTIVAL_EN] > ranks["espeak:zle/ru"]
    assert ranks["espeak:zle/ru"] > ranks.get("espeak:mb/mb-en1", 0)


def test_voice_requests_parse() -> None:
    assert VoiceRequest.parse("festival:msu_ru_nsh_clunits") == VoiceRequest(
        "festival", "msu_ru_nsh_clunits"
    )
    assert VoiceRequest.parse(" Hibari : default ") == VoiceRequest("hibari", "default")
    assert VoiceRequest.parse("hibari") == VoiceRequest("hibari", "")
    assert VoiceRequest.parse("espeak:zle/ru") == VoiceRequest("espeak", "zle/ru")
    assert VoiceRequest.parse("system:zle/ru") == VoiceRequest(engines.system_driver(), "zle/ru")
    assert VoiceRequest.parse("zle/ru") == VoiceRequest(None, "zle/ru")
    assert VoiceRequest.parse("English (Great Britain)") == VoiceRequest(
        None, "English (Great Britain)"
    )
    assert VoiceRequest.parse("nope:x") == VoiceRequest("nope", "x")


@pytest.mark.parametrize(
    ("lang", "wanted", "key"),
    [
        ("ru", "festival:msu_ru_nsh_clunits", FESTIVAL_RU),
        ("ru", "espeak:zle/ru", "espeak:zle/ru"),
        ("ru", "zle/ru", "espeak:zle/ru"),
        ("ru", "ZLE/RU", "espeak:zle/ru"),
        ("ru", "festival", FESTIVAL_RU),
        ("en", "festival", FESTIVAL_EN),
        ("en", "festival:default", FESTIVAL_EN),
        ("en", "hibari:default", "hibari:heart"),
        ("en", "heart", "hibari:heart"),
        ("en", "espeak", "espeak:gmw/en-us"),
        ("en", "English (Great Britain)", "espeak:gmw/en"),
    ],
)
def test_a_named_voice_is_used(lang: str, wanted: str, key: str) -> None:
    voice = choose_voice(lang, wanted)
    assert voice.key == key
    assert is_named(voice, wanted)


@pytest.mark.parametrize(
    ("wanted", "why"),
    [
        ("no-such-voice", "no such voice"),
        ("festival:no_such_voice", "festival has no voice 'no_such_voice'"),
        ("loudspeaker:bob", "no speech engine 'loudspeaker'"),
        ("hibari", "hibari has no ru voice"),
    ],
)
def test_a_missing_voice_falls_back_to_the_best_with_a_warning(
    wanted: str, why: str, folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        cache = SpeechCache("ru", voice=wanted, folder=folder)
    assert cache.voice.key == FESTIVAL_RU
    assert not is_named(cache.voice, wanted)
    (record,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    message = record.getMessage()
    assert repr(wanted) in message and why in message and FESTIVAL_RU in message


def test_choosing_among_given_voices_never_asks_the_engines() -> None:
    given = [
        voice_info("nsss", "com.apple.speech.synthesis.voice.Yuri", "Yuri", ["ru_RU"]),
        VoiceInfo("msu", "Festival msu", "ru", "ru", "msu", "festival", engines.BEST),
    ]
    assert choose_voice("ru", None, given).key == "festival:msu"
    assert choose_voice("ru", "nsss", given).name == "Yuri"
    assert given[0].quality == engines.PLATFORM
    with pytest.raises(ConfigError, match="no speech voice for language 'de'"):
        choose_voice("de", None, given)


# --- the cache -------------------------------------------------------------------------------


def test_the_cache_key_names_engine_voice_rate_text_and_versions(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ru = SpeechCache("ru", folder=folder)
    espeak = SpeechCache("ru", voice="espeak:zle/ru", folder=folder)
    fast = SpeechCache("ru", rate=200, folder=folder)
    paths = {ru.path(RU_LINE), espeak.path(RU_LINE), fast.path(RU_LINE), ru.path("Да.")}
    assert len(paths) == 4
    assert ru.path("Игрок номер 5.") == ru.path("Игрок номер пять.")
    before = ru.path(RU_LINE)
    monkeypatch.setattr(loudness, "VERSION", "another")
    assert ru.path(RU_LINE) != before
    monkeypatch.undo()
    monkeypatch.setattr(ru.pronunciation, "version", "another")
    assert ru.path(RU_LINE) != before


def test_the_engine_is_given_the_pronounced_text(folder: Path) -> None:
    cache = SpeechCache("ru", folder=folder)
    said = cache.engine_text(RU_LINE)
    assert "пять" in said and "5" not in said
    assert "+" in said  # Festival's stress marks from the pronunciation file
    assert "+" not in SpeechCache("ru", voice="espeak:zle/ru", folder=folder).engine_text(RU_LINE)


def test_clips_from_the_cache_are_levelled(folder: Path) -> None:
    cache = SpeechCache("en", folder=folder)
    clip = cache.clip(EN_LINE)
    raw = read_clip(cache.path(EN_LINE))
    assert clip.seconds < raw.seconds  # hibari's silence at both ends is trimmed
    level = loudness.loudness_dbfs(clip)
    assert level is not None and abs(level - loudness.TARGET_DBFS) < 1.5
    fresh = SpeechCache("en", folder=folder).clip(EN_LINE)  # read back, levelled the same
    np.testing.assert_array_equal(fresh.samples, clip.samples)


# --- a machine without Festival ------------------------------------------------------------

_WITHOUT_FESTIVAL = """
import logging, sys
from pathlib import Path
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
from narrator.voice.tts import SpeechCache
first = SpeechCache("ru", folder=Path(sys.argv[1]))
second = SpeechCache("ru", folder=Path(sys.argv[1]))
english = SpeechCache("en", folder=Path(sys.argv[1]))
clip = first.clip("Игрок номер пять.")
print(first.voice.key, second.voice.key, english.voice.key, clip.seconds > 0.3)
"""


def _without_festival(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": str(empty), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )


def test_without_festival_russian_falls_back_to_espeak_with_one_warning(tmp_path: Path) -> None:
    done = _without_festival(tmp_path, "-c", _WITHOUT_FESTIVAL, str(tmp_path / "speech"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["espeak:zle/ru", "espeak:zle/ru", "hibari:heart", "True"]
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1, done.stderr
    assert "Festival is not installed" in warnings[0]
    assert "apt-get install festival festvox-ru" in warnings[0]
    assert "espeak:zle/ru" in warnings[0]


def test_voices_lists_every_engine_and_says_what_is_missing(tmp_path: Path) -> None:
    out = io.StringIO()
    assert voices_command(out) == 0
    text = out.getvalue()
    for name in ("festival", "hibari", engines.system_driver()):
        assert f"\n  {name} " in text
    assert "* festival:msu_ru_nsh_clunits" in text and "* hibari:heart" in text
    assert f"{FESTIVAL_EN} " in text and "espeak:zle/ru " in text
    assert "\nru:\n" in text and "\nen:\n" in text
    # The language, quality and name of each voice on its line.
    (line,) = [row for row in text.splitlines() if FESTIVAL_RU in row]
    assert " 90 " in line and "Russian" in line
    done = _without_festival(tmp_path, "-m", "narrator.cli", "voices")
    assert done.returncode == 0, done.stderr
    assert "festival  not available: Festival is not installed: apt-get install" in done.stdout
    assert "* espeak:zle/ru" in done.stdout


def test_espeak_is_told_the_size_of_the_text_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyttsx3 tells espeak-ng ten times the text's length, and espeak copies that many
    bytes: a read past the text's end that crashed a test worker once (SIGSEGV inside
    Synth). The system engine tells it the text's own size, and still speaks the line."""
    import pyttsx3.drivers._espeak as espeak

    engine = SystemEngine.shared("espeak")
    engine.voices()  # started: pyttsx3's modules are loaded and patched
    told: list[tuple[bytes, int]] = []
    real = espeak.cSynth

    def spy(text: bytes, size: int, *rest: object) -> object:
        told.append((text, size))
        return real(text, size, *rest)

    monkeypatch.setattr(espeak, "cSynth", spy)
    line = "Игрок номер пять."
    clip = engine.synthesize(line, None, 170)
    assert told and all(size == len(text) + 1 for text, size in told), told
    assert any(text == line.encode() for text, _ in told)
    assert clip.seconds > 0.5
