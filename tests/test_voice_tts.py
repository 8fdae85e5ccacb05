"""Real speech rendered into a cache folder: the default voices and pyttsx3 + espeak-ng.

The default voices are the best installed ones (Festival's msu for ru, hibari for en,
see tests/test_voice_engines.py); the tests of pyttsx3 and espeak-ng behaviour name an
espeak voice (``espeak:zle/ru``, ``espeak:gmw/en-us``), so they keep testing it.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path

import numpy as np
import pytest

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice import tts
from narrator.voice.commands import build_command
from narrator.voice.commands import voices_command
from narrator.voice.engines import VoiceInfo
from narrator.voice.engines.system import voice_info
from narrator.voice.game_lines import lines_to_render
from narrator.voice.game_lines import spoken_keys
from narrator.voice.tts import SpeechCache
from narrator.voice.voices import choose_voice
from narrator.voice.voices import list_voices

RU_LINE = "Игрок номер 5, возьмите карту."
EN_LINE = "Player number 5, open your eyes and look at your card."
# The voices a game speaks with unless --voice says otherwise, and the espeak ones.
DEFAULT_VOICES = {"ru": "festival:msu_ru_nsh_clunits", "en": "hibari:heart"}
ESPEAK_VOICES = {"ru": "espeak:zle/ru", "en": "espeak:gmw/en-us"}
# Each engine writes at its own sample rate.
ENGINE_RATES = {"espeak": 22050, "festival": 16000, "hibari": 24000}


def rms(clip: Clip) -> float:
    return float(np.sqrt(np.mean(np.square(clip.samples))))


def assert_speech(clip: Clip, cache: SpeechCache) -> None:
    """``clip`` is speech as ``cache``'s engine writes it (at that engine's sample rate)."""
    assert clip.rate == ENGINE_RATES[cache.voice.driver]
    assert clip.channels == 1
    assert clip.samples.dtype == np.float32
    assert 0.3 <= clip.seconds <= 6.0, clip.seconds
    assert rms(clip) > 0.01
    assert float(np.abs(clip.samples).max()) > 0.1


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "speech"


@pytest.mark.parametrize(
    ("lang", "line", "voice"),
    [
        ("ru", RU_LINE, ESPEAK_VOICES["ru"]),
        ("en", EN_LINE, ESPEAK_VOICES["en"]),
        ("ru", RU_LINE, None),
        ("en", EN_LINE, None),
    ],
)
def test_a_line_renders_to_speech(
    lang: str, line: str, voice: str | None, folder: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    cache = SpeechCache(lang, voice=voice, folder=folder)
    assert cache.voice.key == (voice or DEFAULT_VOICES[lang])
    clip = cache.clip(line)
    assert_speech(clip, cache)
    assert cache.path(line).is_file()
    assert cache.path(line).parent == folder
    # pyttsx3's espeak driver prints "Audio saved to …", Festival's process talks on its
    # own pipes; the table's stdout stays clean whichever engine speaks.
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err == ""


def test_a_warm_line_is_not_rendered_again(folder: Path) -> None:
    cache = SpeechCache("ru", folder=folder)
    first = cache.clip(RU_LINE)
    renders = cache.renderer.renders
    assert cache.clip(RU_LINE) is first
    assert cache.renderer.renders == renders
    # A new cache (a new game) reads the file instead of rendering it.
    again = SpeechCache("ru", folder=folder)
    clip = again.clip(RU_LINE)
    assert cache.renderer.renders == renders
    assert again.rendered == 0
    np.testing.assert_array_equal(clip.samples, first.samples)


def test_digits_and_words_share_one_file(folder: Path) -> None:
    cache = SpeechCache("ru", folder=folder)
    assert cache.path("Игрок номер 5.") == cache.path("Игрок номер пять.")
    assert cache.path("Игрок номер 5.") != cache.path("Игрок номер 6.")


@pytest.mark.parametrize("voice", [ESPEAK_VOICES["ru"], None])
def test_the_rate_is_part_of_the_key(voice: str | None, folder: Path) -> None:
    slow = SpeechCache("ru", voice=voice, rate=110, folder=folder)
    fast = SpeechCache("ru", voice=voice, rate=260, folder=folder)
    assert slow.voice.key == fast.voice.key == (voice or DEFAULT_VOICES["ru"])
    assert slow.path(RU_LINE) != fast.path(RU_LINE)
    slow_clip, fast_clip = slow.clip(RU_LINE), fast.clip(RU_LINE)
    assert slow.path(RU_LINE).is_file() and fast.path(RU_LINE).is_file()
    assert slow_clip.seconds > 1.3 * fast_clip.seconds


def test_the_voice_is_part_of_the_key(folder: Path) -> None:
    us = SpeechCache("en", voice="gmw/en-us", folder=folder)
    gb = SpeechCache("en", voice="gmw/en", folder=folder)
    assert us.voice.key == "espeak:gmw/en-us" and gb.voice.key == "espeak:gmw/en"
    assert us.path(EN_LINE) != gb.path(EN_LINE)


def test_missing_and_build(folder: Path) -> None:
    cache = SpeechCache("en", folder=folder)
    texts = [f"Player number {n} leaves the game." for n in range(1, 5)]
    texts.append("Player number 1 leaves the game.")  # said twice, rendered once
    assert cache.missing(texts) == texts[:4]
    steps: list[tuple[int, int]] = []
    assert cache.build(texts, lambda done, total: steps.append((done, total))) == 4
    assert steps == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert cache.missing(texts) == []
    assert cache.build(texts) == 0
    renders = cache.renderer.renders
    assert_speech(cache.clip(texts[2]), cache)
    assert cache.renderer.renders == renders


def test_every_onenight_line_renders(folder: Path) -> None:
    texts = lines_to_render("en", "onenight")
    cache = SpeechCache("en", folder=folder)
    assert cache.build(texts) == len(texts)
    for text in texts:
        clip = cache.clip(text)
        assert clip.seconds > 0.3 and rms(clip) > 0.01, text


def test_an_unknown_language_names_what_to_install() -> None:
    with pytest.raises(ConfigError, match="espeak-ng"):
        choose_voice("xx")
    with pytest.raises(ConfigError, match="xx"):
        SpeechCache("xx")


@pytest.mark.parametrize("wanted", ["no-such-voice", "espeak:no-such-voice"])
def test_an_unknown_voice_falls_back_with_a_warning(
    wanted: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        voice = choose_voice("ru", wanted)
    assert voice.key == DEFAULT_VOICES["ru"]  # the best voice, not the engine asked for
    assert wanted in caplog.text


def test_voices_by_name_or_id() -> None:
    assert choose_voice("ru").key == DEFAULT_VOICES["ru"]
    assert choose_voice("en").key == DEFAULT_VOICES["en"]
    # An engine alone is its best voice of the language (the preferred region first).
    assert choose_voice("ru", "espeak").key == ESPEAK_VOICES["ru"]
    assert choose_voice("en", "espeak:default").key == ESPEAK_VOICES["en"]
    assert choose_voice("en", "English (Great Britain)").key == "espeak:gmw/en"
    assert choose_voice("ru", "ZLE/RU").key == "espeak:zle/ru"
    assert choose_voice("ru", "espeak:ZLE/RU").key == "espeak:zle/ru"
    langs = {voice.lang for voice in list_voices()}
    assert {"ru", "en"} <= langs


def test_a_rate_out_of_range_is_a_config_error(folder: Path) -> None:
    with pytest.raises(ConfigError, match="words per minute"):
        SpeechCache("ru", rate=5, folder=folder)


def test_an_unwritable_cache_falls_back_to_a_temporary_folder(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    with caplog.at_level(logging.WARNING):
        cache = SpeechCache("ru", folder=blocker / "speech")
    assert cache.folder != blocker / "speech"
    assert "not usable" in caplog.text
    assert_speech(cache.clip(RU_LINE), cache)
    assert cache.path(RU_LINE).parent == cache.folder


def test_a_full_disk_is_one_clear_error(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = SpeechCache("ru", folder=folder)
    # Every disk now counts as full: the cache folder and the temporary fallback alike.
    monkeypatch.setattr(tts, "MIN_FREE_BYTES", 1 << 62)
    with pytest.raises(ConfigError, match="free some disk space"):
        cache.clip(RU_LINE)


def test_a_broken_cache_file_is_rendered_again(folder: Path) -> None:
    cache = SpeechCache("ru", folder=folder)
    cache.clip(RU_LINE)
    cache.path(RU_LINE).write_bytes(b"RIFF broken")
    fresh = SpeechCache("ru", folder=folder)
    assert_speech(fresh.clip(RU_LINE), fresh)
    assert fresh.rendered == 1


def test_voice_ids_are_normalised_across_drivers() -> None:
    sapi = voice_info(
        "sapi5",
        "HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Speech\\Voices\\Tokens\\TTS_MS_RU-RU_IRINA_11.0",
        "Microsoft Irina Desktop - Russian",
        ["ru-RU"],
    )
    assert (sapi.id, sapi.lang) == ("tts_ms_ru-ru_irina_11.0", "ru")
    assert voice_info("sapi5", "T\\A", "A", ["419"]).lang == "ru"  # an LCID in hex
    assert voice_info("sapi5", "T\\B", "B", ["Unknown Locale: 1033"]).lang == "en"
    assert voice_info("sapi5", "T\\C", "Microsoft David - English", []).lang == "en"
    yuri = voice_info("nsss", "com.apple.speech.synthesis.voice.Yuri", "Yuri", ["ru_RU"])
    assert (yuri.id, yuri.lang, yuri.tag) == ("yuri", "ru", "ru-ru")
    milena = voice_info("nsss", "com.apple.voice.compact.ru-RU.Milena", "Milena", ["ru-RU"])
    assert (milena.id, milena.lang) == ("compact.ru-ru.milena", "ru")
    espeak = voice_info("espeak", "gmw/en-us", "English (America)", ["en-us"])
    assert (espeak.id, espeak.lang, espeak.tag) == ("gmw/en-us", "en", "en-us")


def test_choosing_among_another_drivers_voices() -> None:
    voices = [
        voice_info("nsss", "com.apple.speech.synthesis.voice.Alex", "Alex", ["en_GB"]),
        voice_info("nsss", "com.apple.speech.synthesis.voice.Samantha", "Samantha", ["en_US"]),
        voice_info("nsss", "com.apple.speech.synthesis.voice.Yuri", "Yuri", ["ru_RU"]),
    ]
    assert choose_voice("en", None, voices).name == "Samantha"
    assert choose_voice("en", "alex", voices).name == "Alex"
    assert choose_voice("ru", None, voices).name == "Yuri"
    with pytest.raises(ConfigError, match="no speech voice for language 'de'"):
        choose_voice("de", None, voices)


def test_voices_command_groups_by_language() -> None:
    out = io.StringIO()
    assert voices_command(out) == 0
    text = out.getvalue()
    assert "\nru:\n" in text and "\nen:\n" in text
    listed: dict[str, list[tuple[bool, str]]] = {}  # language → (starred, voice key), in order
    voices = text.split("game languages first:\n", 1)[1]
    for line in voices.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            lang = line.removesuffix(":")
            listed[lang] = []
        elif line.startswith("  "):
            listed[lang].append((line[2] == "*", line[4:].split()[0]))
    for lang in ("ru", "en"):
        # The default is starred, listed first, and the only starred voice of its language;
        # the espeak voice is still listed, after it.
        assert listed[lang][0] == (True, DEFAULT_VOICES[lang])
        assert [key for starred, key in listed[lang] if starred] == [DEFAULT_VOICES[lang]]
        assert (False, ESPEAK_VOICES[lang]) in listed[lang]


def test_build_command_renders_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    total = len(lines_to_render("ru", "onenight"))
    assert build_command("ru", "onenight", None, None, io.StringIO()) == 0
    first = capsys.readouterr()
    assert f"{total}/{total}" in first.err  # the progress bar
    out = io.StringIO()
    assert build_command("ru", "onenight", None, None, out) == 0
    assert f"rendered 0, cached {total}," in out.getvalue()
    assert str(tmp_path / "cache") in out.getvalue()


# --- which lines a game may say --------------------------------------------------------------


def test_onenight_lines() -> None:
    lines = lines_to_render("ru", "onenight")
    assert len(lines) == len(set(lines))
    assert "Игрок номер 7, откройте глаза и посмотрите свою карту." in lines
    assert "Игрок номер 8, откройте глаза и посмотрите свою карту." not in lines  # 3–7 players
    assert "Верховный инквизитор видит вещий сон!" in lines
    assert "Игрок номер 3: Оборотень." in lines  # reveal.seat with a role name
    assert "Карта в центре номер 5: Дух." in lines
    assert "Осталась одна минута." in lines
    assert not any("{" in line for line in lines)
    # Screen-only text and other games' lines are not spoken.
    assert not any(line.startswith(("Ваша карта", "Вампиры", "Мафия")) for line in lines)
    assert "Наступает ночь" not in lines  # sport_mafia's line
    assert not any("Enter —" in line for line in lines)
    # A tie names several seats: said on demand, not rendered ahead.
    assert not any(line.startswith("Голоса разделились") for line in lines)


def test_sport_mafia_lines_use_the_sport_section() -> None:
    lines = lines_to_render("ru", "sport_mafia")
    assert "Игрок номер 10, возьмите карту." in lines
    assert "10 принято" in lines
    assert "10…" in lines
    assert "Наступает ночь" in lines
    assert "Остальные голоса, 3, получает игрок номер 7." in lines
    assert not any(line.startswith("На голосование выставлены") for line in lines)
    assert not any(line.startswith("Сколько рук") for line in lines)  # prompts are shown


def test_every_variant_has_lines_in_both_languages() -> None:
    from narrator.rules.registry import known_names

    for name in known_names():
        ru, en = spoken_keys("ru", name), spoken_keys("en", name)
        assert ru and sorted(ru) == sorted(en)
        assert lines_to_render("ru", name) and lines_to_render("en", name)
    everything = set(lines_to_render("ru", None))
    for name in known_names():
        assert set(lines_to_render("ru", name)) <= everything


def test_the_stored_voice_info_type() -> None:
    voice = choose_voice("ru")
    assert isinstance(voice, VoiceInfo)
    assert voice.driver == "festival" and voice.native_id == "msu_ru_nsh_clunits"
    espeak = choose_voice("ru", ESPEAK_VOICES["ru"])
    assert isinstance(espeak, VoiceInfo)
    assert espeak.driver == "espeak" and espeak.native_id == "zle/ru"
