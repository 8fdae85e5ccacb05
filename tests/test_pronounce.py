"""Pronunciation: stress, respellings and number forms, written the way each engine reads them.

The converters and the file reader are pure and tested on strings; the stress itself
is tested on the real Festival Russian voice (one ``festival`` process per test for
all its lines), espeak-ng and hibari's own phonemiser.
"""

from __future__ import annotations

import logging
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from narrator.voice import pronounce
from narrator.voice.catalog import load_catalog
from narrator.voice.game_lines import spoken_keys
from narrator.voice.number_forms import NumberForm
from narrator.voice.number_forms import read_russian_number
from narrator.voice.number_forms import russian_number
from narrator.voice.numbers import LARGEST
from narrator.voice.numbers import russian
from narrator.voice.numbers import spoken
from narrator.voice.pronounce import Pronunciation
from narrator.voice.pronounce import bundled_text
from narrator.voice.pronounce import pronunciation
from tests.support import load_script
from tests.test_catalog import SEED_LINES

ACUTE = "\u0301"


stress_report = load_script("stress_report")
needs_festival = pytest.mark.skipif(
    shutil.which("festival") is None, reason="festival is not installed (scripts/setup.sh)"
)


def bundled(lang: str) -> Pronunciation:
    """The shipped corrections alone: the user's own file must not change what is tested."""
    return Pronunciation.from_texts(lang, [(f"{lang}.toml", bundled_text(lang))])


def made(text: str, lang: str = "ru", name: str = "test.toml") -> Pronunciation:
    return Pronunciation.from_texts(lang, [(name, text)])


RU = bundled("ru")
EN = bundled("en")


# --- engine forms ----------------------------------------------------------------------------


def test_festival_takes_a_plus_before_the_stressed_vowel() -> None:
    said = RU.apply("Игрок номер пять, откройте глаза и посмотрите свою карту.", "festival")
    assert said == "Игрок, номер пять, откр+ойте глаз+а и посмотр+ите свою карту."


@pytest.mark.parametrize("engine", ["espeak", "sapi5", "nsss", "hibari", "some-new-engine"])
def test_engines_without_a_stress_mark_get_the_plain_respelled_text(engine: str) -> None:
    said = RU.apply("Подтвердите: Enter. Откройте глаза!", engine)
    assert said == "Подтвердите: Энтер. Откройте глаза!"
    assert ACUTE not in said and "+" not in said


def test_festival_gets_punctuation_it_can_read() -> None:
    # «», “”, — and … stop Festival's Russian voice with an LTS error; a plus would stress.
    said = RU.apply("На счёт «три» — раз… «ночь + день» 2 + 2", "festival")
    assert said == "На счёт три, раз... ночь-д+ень 2 2"
    assert not set(said) & set("«»“”—…")


def test_festival_english_is_ascii() -> None:
    catalog = load_catalog("en")
    for key in spoken_keys("en", None):
        said = EN.apply(spoken(catalog.lines[key], "en"), "festival")
        assert said.isascii(), (key, said)


def test_hibari_takes_phonemes_in_its_own_link_syntax() -> None:
    said = EN.apply("Use the antidote? Use the poison — on whom?", "hibari")
    assert said == "Use the antidote? [Use the poison](/jˈuz ðə pˈYzᵊn/) — on whom?"


def test_engine_tables_apply_only_to_their_engine() -> None:
    line = "The werewolves wake up. Everyone close your eyes."
    assert EN.apply(line, "festival") == "The wear wolves wake up. Everyone close your eyes."
    assert EN.apply(line, "espeak") == "The werewolves wake up. Everyone cloze your eyes."
    assert EN.apply(line, "hibari") == line


def test_an_engine_entry_wins_over_the_general_one() -> None:
    both = made('[say]\nглаза = "глаза́"\n[espeak]\nглаза = "глоза"\n')
    assert both.apply("глаза", "festival") == "глаз+а"
    assert both.apply("глаза", "espeak") == "глоза"


# --- matching ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "festival"),
    [
        ("глаза", "глаз+а"),
        ("Глаза", "Глаз+а"),
        ("ГЛАЗА", "ГЛАЗ+А"),
        ("Откройте ГЛАЗА, глаза и Глаза.", "Откр+ойте ГЛАЗ+А, глаз+а и Глаз+а."),
    ],
)
def test_the_case_of_the_line_is_kept(text: str, festival: str) -> None:
    assert RU.apply(text, "festival") == festival


def test_only_whole_words_match() -> None:
    # «глазами» and «приглаза» contain «глаза» but are other words.
    assert RU.apply("глазами приглаза глаза", "festival") == "глазами приглаза глаз+а"


def test_a_phrase_wins_over_its_words_and_keeps_each_words_case() -> None:
    line = "Никто не получил больше Одного Голоса. Остальные голоса"
    assert RU.apply(line, "festival") == (
        "Никто не получил больше Одног+о Г+олоса. Остальные голос+а"
    )


def test_a_respelling_with_more_words_takes_the_case_of_the_first() -> None:
    assert EN.apply("Werewolves, wake up!", "festival") == "Wear wolves, wake up!"
    assert EN.apply("WEREWOLVES", "festival") == "WEAR WOLVES"


def test_a_line_with_nothing_to_correct_is_unchanged() -> None:
    line = "Все карты розданы."
    assert RU.apply(line, "espeak") == line
    assert made("").apply(line, "festival") == line


# --- number forms ------------------------------------------------------------------------------


def test_the_catalog_lines_that_count_feminine_things_say_the_feminine() -> None:
    said = RU.apply(spoken("Играем в «Ночь оборотня». Игроков: 5. Карт в центре: 2.", "ru"), "x")
    assert said.endswith("Игроков: пять. Карт в центре: две.")
    said = RU.apply(spoken("Ведьма — 1. Охотник — 1. Вампиры — 2.", "ru"), "espeak")
    assert said == "Ведьма — одна. Охотник — один. Вампиры — два."


def test_a_seat_number_stays_nominative() -> None:
    line = spoken("Игрок номер 21, откройте глаза. Карта в центре номер 2: Дух.", "ru")
    assert RU.apply(line, "espeak") == line


def test_number_rules_in_a_file() -> None:
    rules = made(
        '[numbers]\n"из #" = "genitive"\n"# карты" = "feminine"\n'
        '"вижу # игроков" = "accusative animate"\n'
    )
    said = rules.apply("Двое из двадцати... один из двадцать один, два карты", "espeak")
    assert said == "Двое из двадцати... один из двадцати одного, две карты"
    assert rules.apply("вижу два игроков", "espeak") == "вижу двух игроков"
    assert rules.number_form("Один из") == NumberForm("genitive")
    assert rules.number_form("Игрок номер") is None


def test_the_bundled_number_form_for_a_spliced_part() -> None:
    assert RU.number_form("Играем. Карт в центре:", ".") == NumberForm(gender="feminine")
    assert RU.number_form("Состав. Игроки — ") is None


@pytest.mark.parametrize(
    ("n", "form", "words"),
    [
        (1, "feminine", "одна"),
        (2, "feminine", "две"),
        (21, "feminine", "двадцать одна"),
        (5, "genitive", "пяти"),
        (8, "instrumental", "восемью"),
        (40, "dative", "сорока"),
        (21, "genitive", "двадцати одного"),
        (2, "genitive feminine", "двух"),
        (1, "accusative feminine", "одну"),
        (2, "accusative animate", "двух"),
        (22, "accusative animate", "двадцать два"),
        (21, "accusative animate", "двадцать одного"),
        (50, "instrumental", "пятьюдесятью"),
        (300, "prepositional", "трёхстах"),
        (2000, "genitive", "двух тысяч"),
        (1000, "accusative", "тысячу"),
        (0, "genitive", "нуля"),
    ],
)
def test_russian_number_forms(n: int, form: str, words: str) -> None:
    assert russian_number(n, NumberForm.parse(form)) == words


def test_every_nominative_reads_back() -> None:
    rng = random.Random(7)
    for n in [*range(0, 1200), *rng.sample(range(1200, LARGEST + 1), 2000)]:
        words = russian(n).split()
        assert russian_number(n) == russian(n)
        assert read_russian_number([*words, "игрок"]) == (n, len(words))


def test_a_list_of_numbers_reads_only_the_first() -> None:
    assert read_russian_number(["два", "пять"]) == (2, 1)
    assert read_russian_number(["двадцать", "двадцать"]) == (20, 1)
    assert read_russian_number(["игрок"]) is None


# --- bad input ---------------------------------------------------------------------------------

BAD = """\
[say]
глаза = "глаза́"
посмотрите = посмотри́те
"" = "пусто"
карту = ""
свою = "с́вою"
чтобы = 3
"откройте" = "откро́йте"
[numbers]
"карт #" = "женский"
"карт" = "feminine"
[colours]
синий = "си́ний"
"""


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_each_bad_line_is_one_warning_and_the_rest_applies(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="narrator.voice.pronounce")
    rules = made(BAD, name="mine.toml")
    said = rules.apply("откройте глаза и посмотрите свою карту", "festival")
    assert said == "откр+ойте глаз+а и посмотрите свою карту"
    warnings = _warnings(caplog)
    where = [w.split(":", 2)[1].split()[0] for w in warnings]
    assert where == ["3", "4", "5", "6", "7", "10", "11", "12"], warnings
    assert all(w.startswith("pronunciation mine.toml:") for w in warnings)
    assert "not `word" in warnings[0]
    assert "empty" in warnings[1]
    assert "nothing to say" in warnings[2]
    assert "must follow a vowel" in warnings[3]
    assert "not text in quotes" in warnings[4]
    assert "unknown number form 'женский'" in warnings[5]
    assert "mark the number's place" in warnings[6]
    assert "unknown table [colours]" in warnings[7]


def test_a_line_outside_any_table_is_skipped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="narrator.voice.pronounce")
    rules = made('глаза = "глаза́"\n[say]\nкарту = "ка́рту"\n')
    assert rules.apply("глаза карту", "festival") == "глаза к+арту"
    assert _warnings(caplog) == [
        "pronunciation test.toml:1: 'глаза = \"глаза́\"' is outside a table "
        "([say], [numbers], …); that entry is skipped"
    ]


def test_phonemes_outside_hibari_are_refused(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="narrator.voice.pronounce")
    rules = made('[espeak]\nuse = "/juz/"\n', lang="en")
    assert rules.apply("use", "espeak") == "use"
    assert "only in [hibari]" in _warnings(caplog)[0]


def test_an_unreadable_file_gives_a_warning_and_no_corrections(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="narrator.voice.pronounce")
    broken = tmp_path / "ru.toml"
    broken.write_bytes(b'[say]\n\xff\xfe = "x"\n')
    rules = Pronunciation.from_files("ru", [broken, tmp_path / "absent.toml"])
    assert rules.apply("глаза", "festival") == "глаза"
    (warning,) = _warnings(caplog)
    assert str(broken) in warning and "unreadable" in warning


# --- the user's own file -----------------------------------------------------------------------


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(pronounce, "user_file", lambda lang: tmp_path / f"{lang}.toml")
    pronunciation.cache_clear()
    yield tmp_path
    pronunciation.cache_clear()


def test_the_users_file_applies_over_the_bundled_one(user_folder: Path) -> None:
    before = pronunciation("ru")
    pronunciation.cache_clear()
    (user_folder / "ru.toml").write_text(
        '[say]\nглаза = "гла́за"\nкарту = "ка́рту"\n', encoding="utf-8"
    )
    mine = pronunciation("ru")
    said = mine.apply("откройте глаза и посмотрите свою карту", "festival")
    assert said == "откр+ойте гл+аза и посмотр+ите свою к+арту"
    assert mine.version != before.version
    assert pronunciation("ru") is mine  # cached per language


def test_a_language_without_a_file_says_its_lines_as_written(user_folder: Path) -> None:
    assert pronunciation("ko").apply("안녕", "espeak") == "안녕"


def test_the_version_follows_the_files() -> None:
    assert made('[say]\na = "b"\n').version == made('[say]\na = "b"\n').version
    assert made('[say]\na = "b"\n').version != made('[say]\na = "c"\n').version
    assert len(RU.version) == 12


# --- real engines ------------------------------------------------------------------------------

# The seed phrases as a Russian speaker stresses them (words of one syllable left out).
SEED_STRESS = {
    "onenight.hi_wake": "верхо́вный инквизи́тор ви́дит ве́щий",
    "onenight.hi_sleep": "верхо́вный инквизи́тор засыпа́ет",
    # «оборотни» reaches Festival as «оборо́тьни» ([festival]), except in «Оборотни засыпают!»,
    # and «от оборотней» as «от оборо́тьней» (phrases there): the stress stays.
    "onenight.wolves_wake": "просыпа́ются оборо́тьни",
    "onenight.wolves_sleep": "оборо́тни засыпа́ют",
    "onenight.spirit_wake": "перевоплоща́ется",
    "onenight.spirit_sleep": "засыпа́ет",
    "onenight.morning": "наступи́ло у́тро просну́лись",
    "onenight.vote_time": "вре́мя голосова́ть",
    "onenight.win_peace": "госуда́рство свобо́дно оборо́тьней тепе́рь пра́вит споко́йствие",
}
DEAL_CALL = "Игрок номер пять, откройте глаза и посмотрите свою карту."
DEAL_STRESS = "игро́к но́мер откро́йте глаза́ посмотри́те свою́ ка́рту"


@needs_festival
def test_every_seed_phrase_is_stressed_right_by_festival() -> None:
    lines = [*SEED_LINES.values(), DEAL_CALL]
    wanted = [*(SEED_STRESS[key] for key in SEED_LINES), DEAL_STRESS]
    said = stress_report.festival_words([RU.apply(line, "festival") for line in lines])
    for line, words, want in zip(lines, said, wanted, strict=True):
        assert words is not None, f"festival failed on {line!r}"
        got = [stress_report.marked(name, stress) for name, stress in words]
        got = [w for w in got if w is not None and not stress_report.is_monosyllable(w)]
        assert " ".join(got) == want, line


@needs_festival
def test_without_the_file_festival_gets_the_deal_line_wrong() -> None:
    """The reason for the file: «гла́за», «посмо́трите» (as a listener heard it)."""
    (words,) = stress_report.festival_words([made("").apply(DEAL_CALL, "festival")])
    assert words is not None
    got = {stress_report.marked(name, stress) for name, stress in words}
    assert {"гла́за", "посмо́трите"} <= got


@needs_festival
def test_every_word_of_every_spoken_russian_line_is_stressed_as_reviewed() -> None:
    """All spoken lines through one festival process, against tests/stress/ru.txt."""
    reference = stress_report.read_reference()
    found, failed = stress_report.findings(RU, reference)
    assert not failed, f"festival failed on: {failed[:3]}"
    missing = sorted({f.word for f in found if f.want is None})
    assert not missing, f"not in tests/stress/ru.txt (review, then add): {missing}"
    wrong = sorted({(f.word, f.got, f.want) for f in found if f.got != f.want})
    assert not wrong, f"said otherwise than reviewed (word, said, wanted): {wrong}"


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_espeak_says_close_your_eyes_with_a_z_after_the_file() -> None:
    line = "Night falls. Everyone close your eyes."

    def phonemes(text: str) -> str:
        done = subprocess.run(
            ["espeak-ng", "-v", "en-us", "-x", "-q", text],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    assert "kl'oUs" in phonemes(line)
    assert "kl'oUz" in phonemes(EN.apply(line, "espeak"))


def test_hibari_says_use_the_poison_with_a_z_after_the_file() -> None:
    g2p = pytest.importorskip("hibari.g2p")
    reader = g2p.G2P()
    line = "Use the antidote? Use the poison — on whom?"
    assert "jˈus ðə" in reader(line)
    fixed = reader(EN.apply(line, "hibari"))
    assert "jˈus" not in fixed and fixed.count("jˈuz") == 2
