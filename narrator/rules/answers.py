"""Answers: what a person types or says at a prompt, parsed into typed values.

The canonical text forms are the ones of the scenario contract: ``"7"``,
``"none"``, ``"abstain"``, ``"yes"``/``"no"``, lists ``"7 7 7"``,
``"center 1 3"``, ``"destroy"``, ``"8 2"`` (werewolf 8 explodes during the
speech of 2) and ``"4 +"`` (start next to seat 4, ascending).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from typing import ClassVar
from typing import TypeVar
from typing import dataclass_transform

from narrator.rules.errors import BadAnswerText
from narrator.rules.frozen import quick_init

T = TypeVar("T")


@dataclass_transform(frozen_default=True)
def _answer(cls: type[T]) -> type[T]:
    """Every answer kind: a frozen dataclass with the quick ``__init__``."""
    return quick_init(dataclass(frozen=True)(cls))


class AnswerKind(StrEnum):
    SEAT = "seat"
    SEATS = "seats"
    CENTER = "center"
    NOBODY = "none"
    ABSTAIN = "abstain"
    YES_NO = "yes/no"
    COUNT = "count"
    DESTROY = "destroy"
    EXPLODE = "explode"
    ORDER = "order"
    PRESSES = "presses"


def _seats_text(seats: tuple[int | None, ...]) -> list[str]:
    return ["none" if s is None else str(s) for s in seats]


@_answer
class _Number:
    """An answer that is one number and reads as it."""

    def __str__(self) -> str:
        (number,) = vars(self).values()
        return str(number)


@_answer
class SeatAnswer(_Number):
    seat: int


@_answer
class SeatsAnswer:
    """Several seats at once; ``None`` stands for a ``none`` entry (a missed shot)."""

    seats: tuple[int | None, ...]

    def __str__(self) -> str:
        return " ".join(_seats_text(self.seats))


@_answer
class CenterAnswer:
    cards: tuple[int, ...]

    def __str__(self) -> str:
        return "center " + " ".join(str(c) for c in self.cards)


@_answer
class _Word:
    """An answer that is one word of the scenario contract."""

    word: ClassVar[str]

    def __str__(self) -> str:
        return self.word


@_answer
class Nobody(_Word):
    word = "none"


@_answer
class Abstain(_Word):
    word = "abstain"


@_answer
class YesNo:
    yes: bool

    def __str__(self) -> str:
        return "yes" if self.yes else "no"


@_answer
class CountAnswer(_Number):
    """A number of raised hands; 0 is a count too (nobody raised a hand)."""

    count: int


@_answer
class Destroy(_Word):
    word = "destroy"


@_answer
class ExplodeAnswer:
    wolf: int
    during: int

    def __str__(self) -> str:
        return f"{self.wolf} {self.during}"


@_answer
class OrderAnswer:
    anchor: int
    step: int  # +1 ascending seat numbers, -1 descending

    def __str__(self) -> str:
        return f"{self.anchor} {'+' if self.step > 0 else '-'}"


@_answer
class PressesAnswer:
    """Space presses in a call-mode shooting: the seat being called at each press.

    ``None`` is a press before the first number was called. The rules judge
    whether the presses make a hit (docs/rules.md §0.5), not the host.
    """

    seats: tuple[int | None, ...]

    def __str__(self) -> str:
        return " ".join(["presses", *_seats_text(self.seats)])


Answer = (
    SeatAnswer
    | SeatsAnswer
    | CenterAnswer
    | Nobody
    | Abstain
    | YesNo
    | CountAnswer
    | Destroy
    | ExplodeAnswer
    | OrderAnswer
    | PressesAnswer
)

_WORDS = {"none": AnswerKind.NOBODY, "abstain": AnswerKind.ABSTAIN, "destroy": AnswerKind.DESTROY}
_YES_NO = {"yes": True, "no": False}


def describe(accepts: frozenset[AnswerKind]) -> str:
    """A short English list of what a prompt takes, for error messages."""
    texts = {
        AnswerKind.SEAT: "a seat number",
        AnswerKind.SEATS: "seat numbers",
        AnswerKind.CENTER: "'center i j'",
        AnswerKind.NOBODY: "'none'",
        AnswerKind.ABSTAIN: "'abstain'",
        AnswerKind.YES_NO: "'yes' or 'no'",
        AnswerKind.COUNT: "a number of hands",
        AnswerKind.DESTROY: "'destroy'",
        AnswerKind.EXPLODE: "'W S'",
        AnswerKind.ORDER: "'S +' or 'S -'",
        AnswerKind.PRESSES: "'presses S S'",
    }
    return ", ".join(texts[k] for k in AnswerKind if k in accepts)


MAX_DIGITS = 4  # no seat, card or hand count has more; longer is not a number here


def _is_number(token: str) -> bool:
    """Short ASCII digits only: ``str.isdigit`` also takes "²" and "٣", and ``int``
    refuses (with a plain ValueError) a number of more than 4,300 digits."""
    return token.isascii() and token.isdigit() and len(token) <= MAX_DIGITS


def _shortened(text: str, most: int = 24) -> str:
    """What a message quotes of the input: enough to recognise it, never a screenful."""
    return text if len(text) <= most else text[: most - 1] + "…"


def _integer(token: str, text: str) -> int:
    if not _is_number(token):
        raise BadAnswerText(
            f"cannot read {_shortened(text)!r}: {_shortened(token)!r} is not a number",
            "reason.not_a_number",
            {"token": _shortened(token)},
        )
    return int(token)


def _seat(token: str, text: str, seat_count: int) -> int:
    seat = _integer(token, text)
    if not 1 <= seat <= seat_count:
        raise BadAnswerText(
            f"seat {seat} does not exist: this table has seats 1–{seat_count}",
            "reason.no_such_seat",
            {"seat": seat, "last": seat_count},
        )
    return seat


class _Wrong:
    """The error of an answer of a kind the prompt does not take, made only when raised
    (most answers are right, and its message lists every kind the prompt takes)."""

    def __init__(self, shown: str, accepts: frozenset[AnswerKind]) -> None:
        self.shown, self.accepts = shown, accepts

    def __call__(self) -> BadAnswerText:
        return BadAnswerText(
            f"{self.shown!r} is not an answer here: expected {describe(self.accepts)}",
            "reason.not_an_answer",
            {"input": self.shown},
        )


def parse_answer(text: str, accepts: frozenset[AnswerKind], seat_count: int) -> Answer:
    """Read ``text`` as one of the answer kinds a prompt ``accepts``.

    Raises BadAnswerText naming what was wrong and what the prompt takes.
    """
    tokens = text.strip().lower().split()
    shown = _shortened(text.strip())
    wrong = _Wrong(shown, accepts)
    if not tokens:
        raise BadAnswerText("empty answer", "reason.empty")
    answer = _worded(tokens, text, accepts, seat_count, wrong)
    if answer is None:
        answer = _numbered(tokens, text, accepts, seat_count, wrong)
    if answer is not None:
        return answer
    bad = next((t for t in tokens if not _is_number(t) and t not in {"none", "+", "-"}), None)
    if bad is None:  # known pieces in a shape this prompt does not take ("4 +", "7 7")
        raise wrong()
    raise BadAnswerText(
        f"cannot read {shown!r}: {_shortened(bad)!r} is not a seat number or a known word; "
        f"expected {describe(accepts)}",
        "reason.not_an_answer",
        {"input": shown},
    )


def _worded(
    tokens: list[str], text: str, accepts: frozenset[AnswerKind], seat_count: int, wrong: _Wrong
) -> Answer | None:
    """The answers that begin with a word: one of the word answers, presses, center."""
    head = tokens[0]
    if len(tokens) == 1 and head in _WORDS:
        kind = _WORDS[head]
        if kind not in accepts:
            raise wrong()
        if kind is AnswerKind.NOBODY:
            return Nobody()
        return Abstain() if kind is AnswerKind.ABSTAIN else Destroy()
    if len(tokens) == 1 and head in _YES_NO:
        if AnswerKind.YES_NO not in accepts:
            raise wrong()
        return YesNo(_YES_NO[head])
    if head == "presses":
        if AnswerKind.PRESSES not in accepts:
            raise wrong()
        return PressesAnswer(
            tuple(None if t == "none" else _seat(t, text, seat_count) for t in tokens[1:])
        )
    if head == "center":
        if AnswerKind.CENTER not in accepts:
            raise wrong()
        if len(tokens) == 1:
            raise BadAnswerText("'center' needs card numbers: 'center 1 3'", "reason.center_cards")
        return CenterAnswer(tuple(_integer(t, text) for t in tokens[1:]))
    return None


def _numbered(
    tokens: list[str], text: str, accepts: frozenset[AnswerKind], seat_count: int, wrong: _Wrong
) -> Answer | None:
    """The answers made of numbers: an order, a seat or a count, an explosion, seats."""
    head = tokens[0]
    if len(tokens) == 2 and tokens[1] in {"+", "-"} and AnswerKind.ORDER in accepts:
        return OrderAnswer(_seat(head, text, seat_count), 1 if tokens[1] == "+" else -1)
    if len(tokens) == 1 and _is_number(head):
        if AnswerKind.COUNT in accepts:
            return CountAnswer(int(head))
        if AnswerKind.SEAT in accepts:
            return SeatAnswer(_seat(head, text, seat_count))
        if AnswerKind.SEATS in accepts:
            return SeatsAnswer((_seat(head, text, seat_count),))
        raise wrong()
    if len(tokens) == 2 and AnswerKind.EXPLODE in accepts:
        return ExplodeAnswer(_seat(tokens[0], text, seat_count), _seat(tokens[1], text, seat_count))
    if AnswerKind.SEATS in accepts and all(t == "none" or _is_number(t) for t in tokens):
        seats = tuple(None if t == "none" else _seat(t, text, seat_count) for t in tokens)
        return SeatsAnswer(seats)
    return None


_KINDS: dict[str, type[Answer]] = {
    kind.__name__: kind
    for kind in (
        SeatAnswer,
        SeatsAnswer,
        CenterAnswer,
        Nobody,
        Abstain,
        YesNo,
        CountAnswer,
        Destroy,
        ExplodeAnswer,
        OrderAnswer,
        PressesAnswer,
    )
}


def answer_to_json(answer: Answer | None) -> dict[str, object] | None:
    """An answer as JSON-able data (a game record), exactly as :func:`answer_from_json` reads it."""
    if answer is None:
        return None
    data: dict[str, object] = {"kind": type(answer).__name__}
    for name, value in vars(answer).items():
        data[name] = list(value) if isinstance(value, tuple) else value
    return data


def answer_from_json(data: object) -> Answer | None:
    """The answer written by :func:`answer_to_json`; BadAnswerText if it is not one."""
    if data is None:
        return None
    if not isinstance(data, dict) or data.get("kind") not in _KINDS:
        raise BadAnswerText(f"not a recorded answer: {str(data)[:60]}")
    kind = _KINDS[str(data["kind"])]
    fields: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k != "kind"
    }
    try:
        return kind(**fields)
    except TypeError as error:
        raise BadAnswerText(f"not a recorded {kind.__name__}: {error}") from None
