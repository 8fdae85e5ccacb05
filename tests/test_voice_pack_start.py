"""A game with a voice pack renders with TTS, before it starts, only what the pack cannot say.

The speech engine is the real espeak-ng (pinned, so the test does not wait for a
bigger voice) behind a wrapper that counts what it is asked to render; the pack is
written here with a tone for every part a complete pack of the game holds
(``splice.pack_parts``): whole lines, the literal parts of the spliced lines, the
numbers and the role names.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from narrator.rules.core import Param
from narrator.rules.core import RoleName
from narrator.settings import TableSettings
from narrator.sound.clip import Clip
from narrator.speaking import speech_source
from narrator.voice import splice
from narrator.voice import voices
from narrator.voice.catalog import load_catalog
from narrator.voice.game_lines import lines_to_render
from narrator.voice.pack_record import write_pack
from narrator.voice.packs import VoicePack
from narrator.voice.tts import SpeechCache
from tests.watched_engine import WatchedEngine
from tests.watched_engine import install

GAME = "onenight"
LANG = "en"
VOICE = "espeak:gmw/en-us"
LEFT_OUT = "onenight.night"  # a plain line («Night falls. Everyone close your eyes.»)


@pytest.fixture
def espeak(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> WatchedEngine:
    """espeak-ng, watched, rendering into an empty speech cache of this test."""
    return install(monkeypatch, tmp_path, WatchedEngine(voices.engine("espeak")))


def tone(words: str) -> Clip:
    """A recording of ``words``: a tone as long as they would take to say."""
    rate = 48000
    t = np.arange(int(rate * (0.3 + 0.05 * len(words)))) / rate
    samples = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    return Clip(samples.reshape(-1, 1), rate)


def pack_without(tmp_path: Path, left_out: set[str]) -> Path:
    parts = [p for p in splice.pack_parts(LANG, GAME) if p.key not in left_out]
    assert len(parts) == len(splice.pack_parts(LANG, GAME)) - len(left_out)
    return write_pack(
        LANG,
        f"tones-{len(left_out)}",
        parts,
        lambda part: tone(part.words),
        source="test tones",
        root=tmp_path / "packs",
    )


def settings_with(pack: Path) -> TableSettings:
    return TableSettings(game=GAME, lang=LANG, voice=VOICE, voice_pack=str(pack))


def test_a_complete_pack_renders_nothing_before_the_game(
    espeak: WatchedEngine, tmp_path: Path
) -> None:
    pack = pack_without(tmp_path, set())
    assert VoicePack.load(str(pack), lang=LANG).unsaid(lines_to_render(LANG, GAME)) == []
    fallbacks: list[str] = []
    progress: list[tuple[int, int]] = []
    source = speech_source(
        settings_with(pack), GAME, lambda *step: progress.append(step), fallbacks
    )
    assert fallbacks == []
    assert espeak.said == []
    assert progress == []  # no progress bar either: nothing to render
    # And the game's lines come from the pack, spliced ones included, with nothing rendered.
    catalog = load_catalog(LANG)
    lines: list[tuple[str, dict[str, Param]]] = [
        ("deal.call", {"seat": 5}),
        ("deal.call", {"seat": 7}),
        ("reveal.seat", {"seat": 3, "role": RoleName("werewolf")}),
        ("onenight.intro", {"players": 5, "center": 3}),
        (LEFT_OUT, {}),
    ]
    for key, params in lines:
        assert source.clip(key, catalog.text(key, params)).seconds > 0.3
    assert espeak.said == []


def test_a_pack_without_one_line_renders_just_that_line(
    espeak: WatchedEngine, tmp_path: Path
) -> None:
    pack = pack_without(tmp_path, {LEFT_OUT})
    line = load_catalog(LANG).text(LEFT_OUT)
    assert line in lines_to_render(LANG, GAME)
    source = speech_source(settings_with(pack), GAME, None, [])
    # The engine is given the line as it is spoken (numbers spelled, pronunciation applied).
    said = SpeechCache(LANG, voice=VOICE, folder=tmp_path / "unused").engine_text(line)
    assert espeak.said == [said]
    # At the table TTS says it from the cache; the spliced lines still come from the pack.
    assert source.clip(LEFT_OUT, line).seconds > 0.3
    catalog = load_catalog(LANG)
    assert source.clip("deal.call", catalog.text("deal.call", {"seat": 3})).seconds > 0.3
    assert espeak.said == [said]


def test_without_a_pack_every_line_of_the_game_is_rendered(
    espeak: WatchedEngine, tmp_path: Path
) -> None:
    """The counter sees every render: the same game with no pack renders all its lines."""
    settings = TableSettings(game=GAME, lang=LANG, voice=VOICE)
    speech_source(settings, GAME, None, [])
    assert len(espeak.said) == len(lines_to_render(LANG, GAME))
