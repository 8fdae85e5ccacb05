"""``narrator doctor``: per language the voice and the listener a game would use, what is
missing with the command that gets it, and whether there is a sound device and a microphone."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from narrator.doctor import doctor
from narrator.listen import models
from narrator.rules.errors import ConfigError
from narrator.voice import install
from narrator.voice import voices
from narrator.voice.catalog import LANGUAGES
from narrator.voice.engines import FESTIVAL


def _said(monkeypatch: pytest.MonkeyPatch, folder: Path) -> list[str]:
    monkeypatch.setattr(models, "default_models_dir", lambda: folder)  # no Vosk model here
    out = io.StringIO()
    assert doctor(out) == 0
    return out.getvalue().splitlines()


def test_each_language_has_its_voice_and_listener_or_the_command_that_gets_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = _said(monkeypatch, tmp_path)
    found = voices.survey()
    for lang in LANGUAGES:
        at = lines.index(f"{lang}:")
        voice, listening = lines[at + 1], lines[at + 2]
        best = voices.speaking(lang, found.voices)
        assert voice.startswith(f"  voice:     {best[0].key} ") if best else "none" in voice
        assert listening.startswith("  listening: "), lines
    assert "whisper (Whisper tiny.en" in lines[lines.index("en:") + 2], lines
    ru = lines[lines.index("ru:") + 2]
    assert "none, the keypad answers" in ru and "narrator models download ru" in ru, lines


def test_a_missing_voice_engine_is_named_with_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = voices.survey

    def without_festival(names: object = None) -> voices.Survey:
        found = real()
        kept = [v for v in found.voices if not v.key.startswith("festival:")]
        why = "festival is not installed: apt-get install festival festvox-ru"
        return voices.Survey(kept, found.engines, {**found.missing, "festival": why})

    monkeypatch.setattr(voices, "survey", without_festival)
    lines = _said(monkeypatch, tmp_path)
    assert "missing voice engine festival: festival is not installed: apt-get install" in (
        "\n".join(lines)
    )
    assert not any("festival:" in line for line in lines if line.startswith("  voice:"))


def test_the_sound_device_and_the_microphone_by_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pulse_audio: dict[str, str]
) -> None:
    """Through the suite's PulseAudio null devices: both are there, by name."""
    lines = _said(monkeypatch, tmp_path)
    sound = next(line for line in lines if line.startswith("sound:"))
    microphone = next(line for line in lines if line.startswith("microphone:"))
    assert "none" not in sound and "none" not in microphone, lines


def test_without_portaudio_what_a_game_does_instead(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import narrator.doctor

    def no_portaudio() -> None:
        raise ConfigError("PortAudio is missing (no libportaudio): apt-get install libportaudio2")

    monkeypatch.setattr(narrator.doctor, "sounddevice", no_portaudio)
    lines = _said(monkeypatch, tmp_path)
    assert "sound:      none: a game is shown only" in "\n".join(lines), lines
    assert any(
        line.startswith("microphone: none: voice input is off") and "libportaudio2" in line
        for line in lines
    ), lines


@pytest.mark.parametrize(
    ("platform", "festival", "espeak"),
    [
        ("linux", "apt-get install festival", "apt-get install espeak-ng"),
        ("darwin", "brew install festival", "brew install espeak-ng"),
        ("win32", "does not run on Windows", ".msi installer"),
    ],
)
def test_each_missing_engine_gets_this_system_s_command(
    monkeypatch: pytest.MonkeyPatch, platform: str, festival: str, espeak: str
) -> None:
    monkeypatch.setattr("sys.platform", platform)
    assert festival in install.engine_hint(FESTIVAL)
    assert espeak in install.engine_hint("espeak")
    assert install.engine_hint("hibari") == "pip install hibari-tts"  # pip: the same everywhere
