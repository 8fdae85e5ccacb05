"""Russian numbers in the case and gender a line needs: «карт в центре: две», «из пяти».

``numbers.spoken`` spells every number in the nominative masculine, which keeps a
seat number («игрок номер пять») the same word everywhere.  A count of a feminine
noun («ведьма — одна») or a number governed by a preposition («из пяти») needs
another form; the pronunciation file names those places (its ``[numbers]``
table) and this module says the number in that form.  Every part of a compound
number is declined («двадцати одного»), as Russian does.

Only cardinals 0…999 999 (``numbers.LARGEST``) are covered; the accusative of an
animate noun is the genitive for 1–4 alone («вижу двух игроков») and the
nominative otherwise («двадцать два игрока»), the usual spoken rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from narrator.rules.errors import ConfigError
from narrator.voice.numbers import LARGEST

CASES = ("nominative", "genitive", "dative", "accusative", "instrumental", "prepositional")
GENDERS = ("masculine", "feminine", "neuter")

# Per case: nominative, genitive, dative, instrumental, prepositional (accusative is derived).
_NOM, _GEN, _DAT, _INS, _PRE = range(5)
_OBLIQUE = {"nominative": _NOM, "genitive": _GEN, "dative": _DAT}
_OBLIQUE.update({"instrumental": _INS, "prepositional": _PRE})

_ONE = {
    "masculine": ("один", "одного", "одному", "одним", "одном"),
    "feminine": ("одна", "одной", "одной", "одной", "одной"),
    "neuter": ("одно", "одного", "одному", "одним", "одном"),
}
_ONE_ACCUSATIVE = {"masculine": "один", "feminine": "одну", "neuter": "одно"}
_UNITS: dict[int, tuple[str, ...]] = {
    0: ("ноль", "нуля", "нулю", "нулём", "нуле"),
    2: ("два", "двух", "двум", "двумя", "двух"),
    3: ("три", "трёх", "трём", "тремя", "трёх"),
    4: ("четыре", "четырёх", "четырём", "четырьмя", "четырёх"),
    40: ("сорок", "сорока", "сорока", "сорока", "сорока"),
    90: ("девяносто", "девяноста", "девяноста", "девяноста", "девяноста"),
    100: ("сто", "ста", "ста", "ста", "ста"),
}
# Numbers declined like «пять»: the stem takes -и, and -ью in the instrumental.
_LIKE_FIVE = {
    5: "пят",
    6: "шест",
    7: "сем",
    8: "восьм",
    9: "девят",
    10: "десят",
    11: "одиннадцат",
    12: "двенадцат",
    13: "тринадцат",
    14: "четырнадцат",
    15: "пятнадцат",
    16: "шестнадцат",
    17: "семнадцат",
    18: "восемнадцат",
    19: "девятнадцат",
    20: "двадцат",
    30: "тридцат",
}
_NOMINATIVE = {
    5: "пять",
    6: "шесть",
    7: "семь",
    8: "восемь",
    9: "девять",
    10: "десять",
    11: "одиннадцать",
    12: "двенадцать",
    13: "тринадцать",
    14: "четырнадцать",
    15: "пятнадцать",
    16: "шестнадцать",
    17: "семнадцать",
    18: "восемнадцать",
    19: "девятнадцать",
    20: "двадцать",
    30: "тридцать",
    50: "пятьдесят",
    60: "шестьдесят",
    70: "семьдесят",
    80: "восемьдесят",
    200: "двести",
    300: "триста",
    400: "четыреста",
    500: "пятьсот",
    600: "шестьсот",
    700: "семьсот",
    800: "восемьсот",
    900: "девятьсот",
}
# 50–80: both halves decline («пятидесяти», «пятьюдесятью»).
_TENS_OBLIQUE = {50: "пяти", 60: "шести", 70: "семи", 80: "восьми"}
_TENS_INSTRUMENTAL = {50: "пятью", 60: "шестью", 70: "семью", 80: "восемью"}
# 200–900: the unit declines and «сот» takes the plural endings.
_HUNDREDS_UNIT = {5: "пят", 6: "шест", 7: "сем", 8: "восьм", 9: "девят"}
_HUNDREDS_ENDINGS = {
    2: ("двухсот", "двумстам", "двумястами", "двухстах"),
    3: ("трёхсот", "трёмстам", "тремястами", "трёхстах"),
    4: ("четырёхсот", "четырёмстам", "четырьмястами", "четырёхстах"),
}
_THOUSAND = {  # (one thousand, two–four, five and more), per case
    "nominative": ("тысяча", "тысячи", "тысяч"),
    "genitive": ("тысячи", "тысяч", "тысяч"),
    "dative": ("тысяче", "тысячам", "тысячам"),
    "accusative": ("тысячу", "тысячи", "тысяч"),
    "instrumental": ("тысячей", "тысячами", "тысячами"),
    "prepositional": ("тысяче", "тысячах", "тысячах"),
}


@dataclass(frozen=True)
class NumberForm:
    """A case and a gender (and, in the accusative, whether the noun is animate)."""

    case: str = "nominative"
    gender: str = "masculine"
    animate: bool = False

    @staticmethod
    def parse(text: str) -> NumberForm:
        """``"genitive feminine"``, ``"feminine"``, ``"accusative animate"`` → a form."""
        case, gender, animate = "nominative", "masculine", False
        words = text.replace(",", " ").replace(".", " ").lower().split()
        if not words:
            raise ConfigError(f"no number form in {text!r}: name a case or a gender")
        for word in words:
            if word in CASES:
                case = word
            elif word in GENDERS:
                gender = word
            elif word == "animate":
                animate = True
            else:
                known = ", ".join((*CASES, *GENDERS, "animate"))
                raise ConfigError(f"unknown number form {word!r}: use {known}")
        return NumberForm(case, gender, animate)

    @property
    def name(self) -> str:
        """A short stable name: ``"feminine"``, ``"genitive"``, ``"accusative.animate"``."""
        parts = [p for p in (self.case, self.gender) if p not in ("nominative", "masculine")]
        if self.animate:
            parts.append("animate")
        return ".".join(parts) or "nominative"


NOMINATIVE = NumberForm()


def _five(n: int, row: int) -> str:
    stem = _LIKE_FIVE[n]
    if row == _NOM:
        return _NOMINATIVE[n]
    if row == _INS:
        # восемью and восьмью are both in use; the dictionaries give восемью first.
        return "восемью" if n == 8 else f"{stem}ью"
    return f"{stem}и"


def _hundreds(h: int, row: int) -> str:
    if row == _NOM:
        return _NOMINATIVE[h * 100]
    if h in _HUNDREDS_ENDINGS:
        return _HUNDREDS_ENDINGS[h][row - 1]
    unit = _HUNDREDS_UNIT[h]
    instrumental = "восемью" if h == 8 else f"{unit}ью"
    return (f"{unit}исот", f"{unit}истам", f"{instrumental}стами", f"{unit}истах")[row - 1]


def _below_hundred(n: int, row: int, gender: str) -> list[str]:
    words: list[str] = []
    tens, units = divmod(n, 10)
    if n >= 20 and tens * 10 not in _LIKE_FIVE:
        if tens * 10 in _UNITS:
            words.append(_UNITS[tens * 10][row])
        elif row == _NOM:
            words.append(_NOMINATIVE[tens * 10])
        elif row == _INS:
            words.append(f"{_TENS_INSTRUMENTAL[tens * 10]}десятью")
        else:
            words.append(f"{_TENS_OBLIQUE[tens * 10]}десяти")
        n = units
    elif n >= 20:
        words.append(_five(tens * 10, row))
        n = units
    if n == 0:
        return words
    if n == 1:
        words.append(_ONE[gender][row])
    elif n == 2 and gender == "feminine" and row == _NOM:
        words.append("две")
    elif n in _UNITS:
        words.append(_UNITS[n][row])
    else:
        words.append(_five(n, row))
    return words


def _below_thousand(n: int, row: int, gender: str) -> list[str]:
    hundreds, rest = divmod(n, 100)
    words: list[str] = []
    if hundreds == 1:
        words.append(_UNITS[100][row])
    elif hundreds:
        words.append(_hundreds(hundreds, row))
    return words + _below_hundred(rest, row, gender)


def _thousand_word(count: int, case: str) -> str:
    one, few, many = _THOUSAND[case]
    if count % 10 == 1 and count % 100 != 11:
        return one
    if count % 10 in (2, 3, 4) and count % 100 not in (12, 13, 14):
        return few
    return many


def _accusative_below_thousand(n: int, gender: str, animate: bool) -> list[str]:
    words = _below_thousand(n, _NOM, gender)
    if n % 10 == 1 and n % 100 != 11:
        masculine = animate and gender == "masculine"
        words[-1] = _ONE[gender][_GEN] if masculine else _ONE_ACCUSATIVE[gender]
    return words


def _accusative(n: int, form: NumberForm) -> list[str]:
    if form.animate and 1 <= n <= 4:
        return _spell(n, NumberForm("genitive", form.gender))
    if n == 0:
        return [_UNITS[0][_NOM]]
    count, rest = divmod(n, 1000)
    words: list[str] = []
    if count:
        words += [] if count == 1 else _accusative_below_thousand(count, "feminine", False)
        words.append(_thousand_word(count, "accusative"))
    return words + _accusative_below_thousand(rest, form.gender, form.animate)


def _spell(n: int, form: NumberForm) -> list[str]:
    if form.case == "accusative":
        return _accusative(n, form)
    row = _OBLIQUE[form.case]
    if n == 0:
        return [_UNITS[0][row]]
    count, rest = divmod(n, 1000)
    words: list[str] = []
    if count:
        # «тысяча» is a feminine noun: «две тысячи», «двух тысяч», «одной тысячей».
        words += [] if count == 1 else _below_thousand(count, row, "feminine")
        words.append(_thousand_word(count, form.case))
    return words + _below_thousand(rest, row, form.gender)


def russian_number(n: int, form: NumberForm = NOMINATIVE) -> str:
    """``n`` (0…LARGEST) in words in ``form``: 5, genitive → «пяти»; 2, feminine → «две»."""
    if not 0 <= n <= LARGEST:
        raise ValueError(f"{n} is outside 0–{LARGEST}")
    return " ".join(_spell(n, form))


def _word_values() -> dict[str, tuple[int, bool]]:
    """Each nominative number word → (its value, whether it multiplies: «тысяч»)."""
    values: dict[str, tuple[int, bool]] = {"ноль": (0, False), "один": (1, False)}
    values.update({"одна": (1, False), "одно": (1, False), "две": (2, False)})
    values.update({"тысяча": (1000, True), "тысячи": (1000, True), "тысяч": (1000, True)})
    for n in (*range(2, 20), *range(20, 100, 10), *range(100, 1000, 100)):
        values[russian_number(n)] = (n, False)
    return values


_VALUES = _word_values()


def read_russian_number(words: Sequence[str]) -> tuple[int, int] | None:
    """The number the first words spell in the nominative, and how many words it took.

    ``["двадцать", "один", "игрок"]`` → (21, 2); None when the words start with no number.
    The words must be in the order ``russian_number`` writes them («двадцать один»).
    """
    total, group, used = 0, 0, 0
    last = 10_000  # the place value of the previous word: each must be smaller
    for word in words:
        found = _VALUES.get(word.lower())
        if found is None:
            break
        value, multiplies = found
        if multiplies:
            if total:
                break
            total, group, last = max(group, 1) * 1000, 0, 1000
        else:
            place = 100 if value >= 100 else 10 if value >= 20 else 1
            if place >= last or (value == 0 and used):
                break
            group += value
            last = place
            if value == 0:
                used += 1
                break
        used += 1
    if not used:
        return None
    return total + group, used
