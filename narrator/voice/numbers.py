"""Numbers in displayed lines become words, so speech says «игрок номер пять».

The screen shows digits («Игрок номер 5»); a speech engine left to itself may
read them in a case of its own choosing or as a date.  Every standalone integer
is spelled out in the nominative (masculine where Russian has genders), which
keeps a seat number the same word in every line.  Parts of decimals («1,5»,
"2.5") and numbers glued to letters ("n1", «5й») are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from narrator.rules.errors import ConfigError

# The largest number spelled out; bigger ones are left to the speech engine.
LARGEST = 999_999

_STANDALONE = re.compile(r"(?<![\w.,])\d+(?![.,]\d)(?!\w)")

_RU_UNITS = [
    "ноль",
    "один",
    "два",
    "три",
    "четыре",
    "пять",
    "шесть",
    "семь",
    "восемь",
    "девять",
    "десять",
    "одиннадцать",
    "двенадцать",
    "тринадцать",
    "четырнадцать",
    "пятнадцать",
    "шестнадцать",
    "семнадцать",
    "восемнадцать",
    "девятнадцать",
]
_RU_TENS = [
    "-",
    "-",
    "двадцать",
    "тридцать",
    "сорок",
    "пятьдесят",
    "шестьдесят",
    "семьдесят",
    "восемьдесят",
    "девяносто",
]
_RU_HUNDREDS = [
    "-",
    "сто",
    "двести",
    "триста",
    "четыреста",
    "пятьсот",
    "шестьсот",
    "семьсот",
    "восемьсот",
    "девятьсот",
]

_EN_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_EN_TENS = ["-", "-", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _ru_below_thousand(n: int, feminine: bool = False) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words.append(_RU_HUNDREDS[hundreds])
    if rest >= 20:
        tens, rest = divmod(rest, 10)
        words.append(_RU_TENS[tens])
    if rest:
        word = _RU_UNITS[rest]
        if feminine and rest in (1, 2):
            word = "одна" if rest == 1 else "две"
        words.append(word)
    return words


def _thousands_ru(n: int) -> str:
    if n % 10 == 1 and n % 100 != 11:
        return "тысяча"
    if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
        return "тысячи"
    return "тысяч"


def _ru_thousands(thousands: int) -> list[str]:
    if thousands == 1:
        return ["тысяча"]
    return [*_ru_below_thousand(thousands, feminine=True), _thousands_ru(thousands)]


def russian(n: int) -> str:
    """``n`` (0…LARGEST) in words, nominative, masculine: 21 → «двадцать один»."""
    return _spell(n, _RU_UNITS[0], _ru_thousands, _ru_below_thousand)


def _en_below_thousand(n: int) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [_EN_UNITS[hundreds], "hundred"]
    if rest >= 20:
        tens, units = divmod(rest, 10)
        words.append(f"{_EN_TENS[tens]}-{_EN_UNITS[units]}" if units else _EN_TENS[tens])
    elif rest:
        words.append(_EN_UNITS[rest])
    return words


def english(n: int) -> str:
    """``n`` (0…LARGEST) in words: 21 → "twenty-one", 105 → "one hundred five"."""
    return _spell(
        n, _EN_UNITS[0], lambda t: [*_en_below_thousand(t), "thousand"], _en_below_thousand
    )


def _spell(
    n: int,
    zero: str,
    thousands: Callable[[int], list[str]],
    below_thousand: Callable[[int], list[str]],
) -> str:
    """One language's number words: the thousands, then the rest."""
    if not 0 <= n <= LARGEST:
        raise ValueError(f"{n} is outside 0–{LARGEST}")
    if n == 0:
        return zero
    count, rest = divmod(n, 1000)
    return " ".join([*(thousands(count) if count else []), *below_thousand(rest)])


_SPELLERS: dict[str, Callable[[int], str]] = {"ru": russian, "en": english}


def spoken(text: str, lang: str) -> str:
    """``text`` with every standalone integer spelled out: «Игрок номер 5» → «Игрок номер пять»."""
    try:
        speller = _SPELLERS[lang]
    except KeyError:
        known = ", ".join(_SPELLERS)
        raise ConfigError(f"no number words for language {lang!r}; languages: {known}") from None

    def words(match: re.Match[str]) -> str:
        value = int(match.group())
        return speller(value) if value <= LARGEST else match.group()

    return _STANDALONE.sub(words, text)
