"""Splicing: every line with numbers and roles parses back from its text, and is put together.

The parsing is proven over every filling a game can say (the domains of
``lines_to_render``, plus seat lists and halloween's free composition, which it
leaves out); the assembly on synthetic tones, where lengths, rates, fades and
pauses can be measured exactly; then a pack built by the real espeak-ng voice
speaks spliced lines, and whole headless games, with no TTS at all.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import soundfile

from narrator.demo import render_offline
from narrator.host.audio import PackOrTTS
from narrator.host.terminal import Terminal
from narrator.prepared import prepare
from narrator.rules.core import Param
from narrator.rules.core import RoleName
from narrator.rules.registry import GAMES
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.settings import TableSettings
from narrator.sound import loudness
from narrator.sound.clip import Clip
from narrator.voice import game_lines
from narrator.voice import splice
from narrator.voice.catalog import LANGUAGES
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders
from narrator.voice.commands import build_command
from narrator.voice.engines.system import SystemEngine
from narrator.voice.game_lines import lines_to_render
from narrator.voice.game_lines import spoken_keys
from narrator.voice.packs import VoicePack
from narrator.voice.splice import COMMA_S
from narrator.voice.splice import DASH_S
from narrator.voice.splice import SENTENCE_S
from narrator.voice.splice import WORD_S
from narrator.voice.splice import Gap
from narrator.voice.splice import Literal
from narrator.voice.splice import Spoken
from narrator.voice.splice import assemble
from narrator.voice.splice import joinable
from narrator.voice.splice import pack_parts
from narrator.voice.splice import plan
from narrator.voice.splice import templates

VOICES = {"ru": "zle/ru", "en": "gmw/en-us"}  # espeak-ng: the fast voices of the tests
SEAT_LISTS: list[Param] = [(1,), (2, 5), (3, 7, 12), tuple(range(1, 13))]
QUICK: dict[str, dict[str, object]] = {
    "onenight": {"window_s": 1.0, "discussion_s": 1.0},
    "halloween": {"discussion_s": 1.0},
}


def fillings(lang: str) -> Iterator[tuple[str, dict[str, Param], str]]:
    """(key, values, displayed text) for every filling a game of any variant may say."""
    catalog = load_catalog(lang)
    for name in known_names():
        values_of: dict[str, Sequence[Param]] = dict(game_lines.domains(get_variant(name)))
        # What lines_to_render leaves to game time: seat lists, the hunter, halloween's counts.
        values_of["seats"] = SEAT_LISTS
        values_of["hunter"] = values_of["seat"]
        for count in ("vampires", "witches", "hunters", "villagers"):
            values_of[count] = range(0, 4)
        for key in spoken_keys(lang, name):
            wanted = placeholders(catalog.lines[key])
            if not wanted:
                continue
            if key == "halloween.table":  # every count once, not every combination
                rows = [{p: values_of[p][i % len(values_of[p])] for p in wanted} for i in range(12)]
            else:
                rows = list(game_lines.fillings(wanted, values_of))
            for values in rows:
                yield key, values, catalog.text(key, values)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_filling_parses_back_to_its_values(lang: str) -> None:
    catalog = load_catalog(lang)
    every = templates(lang)
    names = splice.role_names(lang)
    said: set[str] = set()
    for key, values, text in fillings(lang):
        found = every[key].values(text)
        assert found is not None, (key, text)
        assert catalog.text(key, found) == text
        for name, value in values.items():
            if isinstance(value, RoleName):  # «Мирный житель» is two roles: either will do
                assert isinstance(found[name], RoleName)
                assert names[found[name].id] == names[value.id]  # type: ignore[union-attr]
            else:
                assert found[name] == value, (key, text, name)
        said.add(text)
    plain = {catalog.text(k) for k in spoken_keys(lang, None) if k not in every}
    # Every line the cache warms for a game is either said whole or parses here.
    assert set(lines_to_render(lang, None)) <= said | plain


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_text_that_is_not_the_line_is_not_spliced(lang: str) -> None:
    catalog = load_catalog(lang)
    call = catalog.text("deal.call", {"seat": 5})
    assert plan(lang, "deal.call", call) is not None
    assert plan(lang, "deal.call", call.replace("5", "five")) is None
    assert plan(lang, "deal.call", call + " ") is None
    assert plan(lang, "deal.call", catalog.text("sport.take_card", {"seat": 5})) is None
    assert plan(lang, "onenight.night", catalog.text("onenight.night")) is None  # no template
    assert plan(lang, "no.such.key", call) is None
    seat = catalog.text("reveal.seat", {"seat": 2, "role": RoleName("werewolf")})
    assert plan(lang, "reveal.seat", seat.replace(catalog.text("role.werewolf"), "Nobody")) is None


def test_the_deal_line_is_said_from_three_parts() -> None:
    text = "Игрок номер 5, откройте глаза и посмотрите свою карту."
    assert plan("ru", "deal.call", text) == (
        Spoken(("deal.call#0",)),
        Gap(WORD_S),
        Spoken(("number.5",)),
        Gap(COMMA_S),
        Spoken(("deal.call#1",)),
    )
    parts = {p.key: p for p in templates("ru")["deal.call"].parts()}
    assert parts["deal.call#0"].words == "Игрок номер"
    assert parts["deal.call#1"].words == "откройте глаза и посмотрите свою карту."
    assert parts["deal.call#1"].hint == "«Игрок номер …, откройте глаза и посмотрите свою карту.»"


def test_seat_lists_roles_repeats_and_sentences() -> None:
    tie = plan(
        "en", "onenight.burn_tie", "The votes are tied: players number 2, 5, 7 go to the stake."
    )
    assert tie is not None
    assert [p.keys for p in tie if isinstance(p, Spoken)] == [
        ("onenight.burn_tie#0",),
        ("number.2",),
        ("number.5",),
        ("number.7",),
        ("onenight.burn_tie#1",),
    ]
    assert [p.seconds for p in tie if isinstance(p, Gap)] == [WORD_S, COMMA_S, COMMA_S, WORD_S]
    # Two roles share the Russian name «Мирный житель»: the line's own first, then the other.
    seat = plan("ru", "reveal.seat", "Игрок номер 4: Мирный житель.")
    assert seat is not None and seat[-1] == Spoken(("role.villager", "role.civilian"))
    # The same seat said twice: the same number twice.
    claim = plan(
        "ru",
        "alliance.explode_claim",
        load_catalog("ru").text("alliance.explode_claim", {"seat": 3}),
    )
    assert claim is not None
    said = [p.keys[0] for p in claim if isinstance(p, Spoken)]
    assert said == [
        "alliance.explode_claim#0",
        "number.3",
        "alliance.explode_claim#1",
        "number.3",
        "alliance.explode_claim#2",
    ]
    table = plan(
        "ru",
        "halloween.table",
        "Состав. Игроки — 9. Вампиры — 2. Ведьма — 1. Охотник — 1. Мирные жители — 5.",
    )
    assert table is not None
    gaps = [p.seconds for p in table if isinstance(p, Gap)]
    assert gaps == [DASH_S, SENTENCE_S] * 4 + [DASH_S]
    # «Карт в центре: две»: the form the pronunciation file asks for, where it differs.
    intro = "Играем в «Ночь оборотня». Игроков: 5. Карт в центре: {}."
    for center, word in ((2, "number.2.feminine"), (3, "number.3")):
        pieces = plan("ru", "onenight.intro", intro.format(center))
        assert pieces is not None and pieces[-1] == Spoken((word,))
    assert splice.number_words(2, "ru", "feminine") == "две"
    # A line that is only a number: the number alone.
    assert plan("ru", "sport.number", "7…") == (Spoken(("number.7",)),)


def test_literal_edges() -> None:
    assert Literal.parse(", откройте глаза.") == Literal(", ", "откройте глаза.", ".")
    assert Literal.parse("Игроки — ") == Literal("", "Игроки", " — ")
    assert Literal.parse(". Вампиры — ") == Literal(". ", "Вампиры", " — ")
    assert Literal.parse(": ") == Literal(": ", "", "")
    assert Literal.parse("") == Literal("", "", "")


# --- what a complete pack holds ---------------------------------------------------------------


def test_a_complete_pack_has_every_line_part_number_and_role() -> None:
    for lang in LANGUAGES:
        catalog = load_catalog(lang)
        parts = {p.key: p for p in pack_parts(lang)}
        assert len(parts) == len(pack_parts(lang))  # each once
        every = templates(lang)
        for key in spoken_keys(lang, None):
            if key in every:
                for part in every[key].parts():
                    assert parts[part.key].words == part.words
                    assert not parts[part.key].whole
            else:
                assert parts[key].whole and parts[key].words == catalog.text(key)
        for name in known_names():
            for role in get_variant(name).roles:
                assert parts[f"role.{role}"].whole
        numbers = [k.split(".")[1:] for k in parts if k.startswith("number.")]
        plain = sorted(int(n[0]) for n in numbers if len(n) == 1)
        assert plain == list(range(0, 31))  # counts from 0, seats to 12, cycles to 30
        # The pronunciation file's other forms, only where the words differ («две», not «три»).
        others = {".".join(n) for n in numbers if len(n) > 1}
        assert others == ({"1.feminine", "2.feminine"} if lang == "ru" else set())
        for key, part in parts.items():
            assert part.words.strip() == part.words and part.words
            if not part.whole:
                assert splice.expected_words(lang, key) == part.words
    # Both languages need the same lines, numbers and roles (the parts follow each word order).
    ru, en = ({p.key for p in pack_parts(lang) if "#" not in p.key} for lang in LANGUAGES)
    assert ru - {"number.1.feminine", "number.2.feminine"} == en
    assert {p.key for p in pack_parts("ru", "onenight")} < {p.key for p in pack_parts("ru")}


# --- the assembly -----------------------------------------------------------------------------


def voice(hz: float, seconds: float, rate: int, pad: float = 0.2) -> Clip:
    """A 'word': silence, a tone, silence."""
    t = np.arange(round(seconds * rate)) / rate
    quiet = np.zeros(round(pad * rate))
    return Clip.from_mono(np.concatenate([quiet, 0.5 * np.sin(2 * np.pi * hz * t), quiet]), rate)


def test_parts_are_levelled_faded_resampled_and_paused() -> None:
    first = joinable(voice(300, 0.5, 22050))
    number = joinable(voice(500, 0.3, 16000, pad=0.0))  # no silence to cut: faded anyway
    last = joinable(voice(400, 0.8, 22050))
    for part, seconds in ((first, 0.5), (number, 0.3), (last, 0.8)):
        # The silence around is cut to the loudness rule's margins, the level is its target.
        assert seconds <= part.seconds <= seconds + 2 * loudness.MARGIN_S + 0.01
        assert abs(loudness.loudness_dbfs(part) - loudness.TARGET_DBFS) < 0.5  # type: ignore[operator]
        assert abs(part.samples[0, 0]) < 1e-3 and abs(part.samples[-1, 0]) < 1e-3  # faded
    pieces = plan("ru", "deal.call", "Игрок номер 5, откройте глаза и посмотрите свою карту.")
    assert pieces is not None
    line = assemble(pieces, {"deal.call#0": first, "number.5": number, "deal.call#1": last})
    assert line.rate == 22050 and line.channels == 1
    expected = first.seconds + number.seconds + last.seconds + WORD_S + COMMA_S
    assert abs(line.seconds - expected) < 0.002
    # No click at any join: no step larger than the tones' own steepest slope.
    steps = np.abs(np.diff(line.samples[:, 0]))
    assert float(steps.max()) < 0.5 * 2 * np.pi * 500 / 16000 * 1.1
    # The number, at 16 kHz, is still a 500 Hz tone at 22 050 Hz.
    start = round((first.seconds + WORD_S) * line.rate)
    middle = line.samples[start + 500 : start + round(number.seconds * line.rate) - 500, 0]
    spectrum = np.abs(np.fft.rfft(middle))
    assert abs(np.argmax(spectrum) * line.rate / middle.size - 500) < 10


def test_a_silent_part_stays_whole() -> None:
    silent = Clip.from_mono(np.zeros(1000), 16000)
    assert joinable(silent).frames == 1000
    empty = Clip.from_mono(np.zeros(0), 16000)
    assert joinable(empty).frames == 0


# --- a pack built by a real voice -------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A complete pack per language (every game), built by espeak-ng into a temp folder."""
    root = tmp_path_factory.mktemp("packs")
    for lang in LANGUAGES:
        out = io.StringIO()
        code = build_command(
            lang,
            None,
            VOICES[lang],
            None,
            out,
            name=f"espeak-{lang}",
            root=root,
            cache_folder=root / "speech",
        )
        assert code == 0 and "voice pack" in out.getvalue()
    return {lang: root for lang in LANGUAGES}


def read(path: Path) -> Clip:
    samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    return Clip(samples, int(rate))


def no_tts(text: str) -> Clip:
    raise AssertionError(f"TTS was asked for {text!r}: the pack should have said it")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_built_pack_says_the_deal_line_from_parts(lang: str, built: dict[str, Path]) -> None:
    pack = VoicePack.load(f"espeak-{lang}", lang=lang, root=built[lang])
    assert pack.source == f"espeak:{VOICES[lang]}, 170 wpm"
    assert {p.key for p in pack_parts(lang)} == set(pack.files) | set(pack.parts)
    # Nothing of any game is left for TTS to render before a game starts.
    assert pack.unsaid(lines_to_render(lang, None)) == []
    renderer = SystemEngine.shared()
    renders = renderer.renders
    source = PackOrTTS(no_tts, pack.clip)
    catalog = load_catalog(lang)
    five = source.clip("deal.call", catalog.text("deal.call", {"seat": 5}))
    seven = source.clip("deal.call", catalog.text("deal.call", {"seat": 7}))
    assert renderer.renders == renders  # nothing rendered: all of it came from the pack
    parts = [pack.clip(k) for k in ("deal.call#0", "number.5", "deal.call#1")]
    assert all(p is None for p in parts)  # parts are not lines
    pieces = [joinable(read(pack.parts[k])) for k in ("deal.call#0", "number.5", "deal.call#1")]
    expected = sum(p.seconds for p in pieces) + WORD_S + COMMA_S
    assert abs(five.seconds - expected) < 0.01
    assert 1.5 < five.seconds < 6.0
    assert float(np.sqrt(np.mean(np.square(five.samples)))) > 0.01
    assert five.frames != seven.frames or not np.array_equal(five.samples, seven.samples)
    # Plain lines come whole, the same recording as the pack file.
    night = source.clip("onenight.night", catalog.text("onenight.night"))
    assert night is pack.clip("onenight.night")
    # A line said again without its key is still the pack's.
    assert source.clip("", catalog.text("deal.call", {"seat": 5})).frames == five.frames
    assert renderer.renders == renders


@pytest.mark.parametrize(
    ("game", "lang"), list(zip(GAMES, itertools.cycle(LANGUAGES), strict=False))
)
def test_a_whole_game_is_said_by_the_pack(game: str, lang: str, built: dict[str, Path]) -> None:
    pack = VoicePack.load(f"espeak-{lang}", lang=lang, root=built[lang])
    settings = TableSettings(
        game=game,
        players=None,
        lang=lang,
        seed=3,
        answer_s=1.0,
        demo=True,
        record_dir=built[lang] / "records",
        voice="auto",
        options=dict(QUICK.get(game, {})),
    )
    said: list[str] = []

    def from_pack(key: str, text: str) -> Clip | None:
        said.append(key)
        return pack.clip(key, text)

    rendered = render_offline(
        settings, prepare(settings), PackOrTTS(no_tts, from_pack), Terminal(io.StringIO())
    )
    keys = [line.key for line in rendered.voice.timeline]
    assert keys and said == keys
    spliced = [k for k in keys if k in templates(lang)]
    assert any(k == "deal.call" or k == "sport.take_card" for k in spliced), spliced
