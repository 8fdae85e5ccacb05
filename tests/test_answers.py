"""Reading answers: the text forms of the scenario contract and the errors for everything else."""

from __future__ import annotations

import pytest

from narrator.rules.answers import Abstain
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import Destroy
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.answers import YesNo
from narrator.rules.answers import describe
from narrator.rules.answers import parse_answer
from narrator.rules.errors import BadAnswerText
from narrator.rules.errors import NarratorError

K = AnswerKind
SEAT_OR_NONE = frozenset({K.SEAT, K.NOBODY})
VOTE = frozenset({K.SEAT, K.ABSTAIN})
SHOOT = frozenset({K.SEATS, K.NOBODY})
SEER = frozenset({K.SEAT, K.CENTER, K.NOBODY})
EVERYTHING = frozenset(K)


def read(text: str, accepts: frozenset[AnswerKind], seats: int = 10) -> object:
    return parse_answer(text, accepts, seats)


def bad(text: str, accepts: frozenset[AnswerKind], seats: int = 10) -> BadAnswerText:
    with pytest.raises(BadAnswerText) as caught:
        parse_answer(text, accepts, seats)
    return caught.value


# --- the accepted forms -----------------------------------------------------------------------


@pytest.mark.parametrize("seat", [1, 7, 10])
def test_a_seat_number(seat: int) -> None:
    assert read(str(seat), SEAT_OR_NONE) == SeatAnswer(seat)


def test_words() -> None:
    assert read("none", SEAT_OR_NONE) == Nobody()
    assert read("abstain", VOTE) == Abstain()
    assert read("yes", frozenset({K.YES_NO})) == YesNo(True)
    assert read("no", frozenset({K.YES_NO})) == YesNo(False)
    assert read("destroy", frozenset({K.SEAT, K.DESTROY})) == Destroy()


def test_seat_lists() -> None:
    assert read("7 7 7", SHOOT) == SeatsAnswer((7, 7, 7))
    assert read("7 none 7", SHOOT) == SeatsAnswer((7, None, 7))
    assert read("4 8", frozenset({K.SEATS})) == SeatsAnswer((4, 8))
    # One seat where only lists are taken is a list of one.
    assert read("4", frozenset({K.SEATS})) == SeatsAnswer((4,))
    # A lone "none" is the word, not a list.
    assert read("none", SHOOT) == Nobody()


def test_centre_cards() -> None:
    assert read("center 1 3", SEER) == CenterAnswer((1, 3))
    assert read("center 2", SEER) == CenterAnswer((2,))
    # Parsing keeps what was typed; the prompt's check judges count and range.
    assert read("center 1 2 3", SEER) == CenterAnswer((1, 2, 3))
    assert read("center 9 9", SEER) == CenterAnswer((9, 9))


def test_order_and_explode() -> None:
    assert read("4 +", frozenset({K.ORDER})) == OrderAnswer(4, 1)
    assert read("4 -", frozenset({K.ORDER})) == OrderAnswer(4, -1)
    assert read("8 2", frozenset({K.EXPLODE, K.NOBODY})) == ExplodeAnswer(8, 2)


def test_counts_are_not_seats() -> None:
    count = frozenset({K.COUNT})
    assert read("0", count) == CountAnswer(0)
    assert read("6", count) == CountAnswer(6)
    # A count of hands is not limited by the seat numbers' range check.
    assert read("12", count, seats=10) == CountAnswer(12)


@pytest.mark.parametrize("text", ["  7  ", "\t7\n", "7 "])
def test_whitespace_around_a_seat(text: str) -> None:
    assert read(text, SEAT_OR_NONE) == SeatAnswer(7)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("NONE", Nobody()),
        ("  None ", Nobody()),
        ("Abstain", Abstain()),
        ("CENTER 1  3", CenterAnswer((1, 3))),
        ("7   NONE\t7", SeatsAnswer((7, None, 7))),
        ("YES", YesNo(True)),
    ],
)
def test_case_and_inner_whitespace(text: str, expected: object) -> None:
    assert read(text, EVERYTHING - {K.COUNT, K.EXPLODE, K.ORDER}) == expected


@pytest.mark.parametrize(
    "answer",
    [
        SeatAnswer(7),
        SeatsAnswer((7, None, 7)),
        CenterAnswer((1, 3)),
        Nobody(),
        Abstain(),
        YesNo(True),
        YesNo(False),
        Destroy(),
        ExplodeAnswer(8, 2),
        OrderAnswer(4, 1),
        OrderAnswer(4, -1),
    ],
)
def test_str_is_the_canonical_text(answer: object) -> None:
    kinds = {
        SeatAnswer: K.SEAT,
        SeatsAnswer: K.SEATS,
        CenterAnswer: K.CENTER,
        Nobody: K.NOBODY,
        Abstain: K.ABSTAIN,
        YesNo: K.YES_NO,
        Destroy: K.DESTROY,
        ExplodeAnswer: K.EXPLODE,
        OrderAnswer: K.ORDER,
    }
    accepts = frozenset({kinds[type(answer)]})
    assert read(str(answer), accepts) == answer


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_empty(text: str) -> None:
    error = bad(text, SEAT_OR_NONE)
    assert error.key == "reason.empty"
    assert "empty" in str(error)


@pytest.mark.parametrize(
    ("text", "accepts", "key", "said"),
    [
        ("seven", SEAT_OR_NONE, "reason.not_an_answer", ("'seven'", "a seat number", "'none'")),
        ("center", SEER, "reason.center_cards", ("center 1 3",)),  # no cards
        ("center one two", SEER, "reason.not_a_number", ("'one'",)),  # words for cards
    ],
)
def test_a_bad_answer_says_why_and_what_is_expected(
    text: str, accepts: frozenset[AnswerKind], key: str, said: tuple[str, ...]
) -> None:
    error = bad(text, accepts)
    assert error.key == key
    for words in said:
        assert words in str(error)


def test_a_seat_off_the_table() -> None:
    error = bad("13", SEAT_OR_NONE, seats=10)
    assert str(error) == "seat 13 does not exist: this table has seats 1–10"
    assert error.key == "reason.no_such_seat"
    assert error.params == {"seat": 13, "last": 10}


@pytest.mark.parametrize("text", ["0", "11", "7 11", "7 none 0"])
def test_off_the_table_in_lists_too(text: str) -> None:
    assert bad(text, SHOOT, seats=10).key == "reason.no_such_seat"


@pytest.mark.parametrize("text", ["4 +", "8 2"])
def test_off_the_table_in_order_and_explode(text: str) -> None:
    accepts = frozenset({K.ORDER, K.EXPLODE})
    error = bad(text, accepts, seats=3)
    assert error.key == "reason.no_such_seat"
    assert "this table has seats 1–3" in str(error)


@pytest.mark.parametrize(
    ("text", "accepts"),
    [
        ("abstain", SEAT_OR_NONE),
        ("none", VOTE),
        ("yes", SEAT_OR_NONE),
        ("destroy", SEAT_OR_NONE),
        ("center 1 3", SEAT_OR_NONE),
        ("7 7", SEAT_OR_NONE),
        ("4 +", SEAT_OR_NONE),
        ("7", frozenset({K.YES_NO})),
    ],
)
def test_words_the_prompt_does_not_take(text: str, accepts: frozenset[AnswerKind]) -> None:
    error = bad(text, accepts)
    assert error.key == "reason.not_an_answer"
    assert error.params == {"input": text}
    assert f"expected {describe(accepts)}" in str(error)


@pytest.mark.parametrize("text", ["²", "7²", "٣", "center ²", "-1", "7 x", "+", "7.5", "1e3"])
def test_strange_text_is_a_bad_answer_not_a_crash(text: str) -> None:
    with pytest.raises(BadAnswerText):
        parse_answer(text, EVERYTHING, 10)


def test_describe_lists_what_a_prompt_takes() -> None:
    assert describe(SEAT_OR_NONE) == "a seat number, 'none'"
    assert describe(SEER) == "a seat number, 'center i j', 'none'"


def test_bad_text_is_a_narrator_error_and_a_value_error() -> None:
    error = bad("seven", SEAT_OR_NONE)
    assert isinstance(error, NarratorError)
    assert isinstance(error, ValueError)
