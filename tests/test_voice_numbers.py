"""Numbers in displayed lines become nominative words for speech."""

from __future__ import annotations

import pytest

from narrator.rules.errors import ConfigError
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders
from narrator.voice.numbers import english
from narrator.voice.numbers import russian
from narrator.voice.numbers import spoken

RUSSIAN_LINES = [
    ("Игрок номер 5, возьмите карту.", "Игрок номер пять, возьмите карту."),
    ("10 принято", "десять принято"),
    ("1, 3", "один, три"),
    ("Игроки номер 1, 3, 12.", "Игроки номер один, три, двенадцать."),
    ("места 13 нет: за столом места 1–10", "места тринадцать нет: за столом места один–десять"),
    ("7…", "семь…"),
    ("Игроков: 0.", "Игроков: ноль."),
    ("осталось 100 с", "осталось сто с"),
]
ENGLISH_LINES = [
    ("Player number 5 goes to the stake.", "Player number five goes to the stake."),
    ("Players number 1, 3, 12.", "Players number one, three, twelve."),
    ("10 accepted", "ten accepted"),
    ("Cards in the centre: 3.", "Cards in the centre: three."),
]


@pytest.mark.parametrize(
    ("lang", "text", "words"),
    [("ru", *line) for line in RUSSIAN_LINES] + [("en", *line) for line in ENGLISH_LINES],
)
def test_the_numbers_of_a_line_are_said_in_words(lang: str, text: str, words: str) -> None:
    assert spoken(text, lang) == words


def test_only_standalone_integers_change() -> None:
    # Decimals and numbers glued to letters are left to the speech engine.
    assert spoken("1,5 и 2.5, n1, 5й, x2", "ru") == "1,5 и 2.5, n1, 5й, x2"
    assert spoken("", "ru") == ""
    assert spoken("без чисел", "ru") == "без чисел"


@pytest.mark.parametrize(
    ("n", "ru", "en"),
    [
        (0, "ноль", "zero"),
        (1, "один", "one"),
        (2, "два", "two"),
        (11, "одиннадцать", "eleven"),
        (19, "девятнадцать", "nineteen"),
        (20, "двадцать", "twenty"),
        (21, "двадцать один", "twenty-one"),
        (40, "сорок", "forty"),
        (42, "сорок два", "forty-two"),
        (90, "девяносто", "ninety"),
        (99, "девяносто девять", "ninety-nine"),
        (100, "сто", "one hundred"),
        (105, "сто пять", "one hundred five"),
        (212, "двести двенадцать", "two hundred twelve"),
        (1000, "тысяча", "one thousand"),
        (2001, "две тысячи один", "two thousand one"),
        (5000, "пять тысяч", "five thousand"),
        (21000, "двадцать одна тысяча", "twenty-one thousand"),
        (999_999, "девятьсот девяносто девять тысяч девятьсот девяносто девять", None),
    ],
)
def test_number_words(n: int, ru: str, en: str | None) -> None:
    assert russian(n) == ru
    if en is not None:
        assert english(n) == en


def test_every_number_to_a_hundred_is_words() -> None:
    for n in range(101):
        for lang in ("ru", "en"):
            words = spoken(f"x {n} y", lang)
            assert not any(c.isdigit() for c in words), words
            assert words.startswith("x ") and words.endswith(" y")


def test_big_numbers_stay_digits() -> None:
    assert spoken("1000000", "ru") == "1000000"


def test_unknown_language_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="xx"):
        spoken("5", "xx")


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_catalog_lines_with_seats_have_no_digits_when_spoken(lang: str) -> None:
    catalog = load_catalog(lang)
    for key, template in catalog.lines.items():
        if "{seat}" in template:
            text = catalog.text(key, {name: 7 for name in placeholders(template)})
            assert "7" not in spoken(text, lang), key
