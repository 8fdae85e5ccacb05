"""The one meaning of every answer on the keypad and on the screen.

Each answer kind owns its text both ways here: which keys make it (the table's
numeric keypad: 0–9, Enter, + − * / . and Backspace), which keys a demo player
types for it, and how an accepted answer is shown in words. The table screen,
the text host, the demo players and the voice input all go through it, so they
cannot disagree. Spoken words live beside the line catalogs (``words.*``) and
are read by :mod:`narrator.listen.words`.

The keypad forms are ``KEYPAD`` below: the README's and docs/keypad.md's table
is written from it by ``scripts/docs.py`` (checked in the test suite).
"""

from __future__ import annotations

from typing import Protocol

from narrator.rules.answers import Abstain
from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import Destroy
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import PressesAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.answers import YesNo
from narrator.rules.answers import parse_answer
from narrator.rules.errors import BadAnswerText
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat

# The keypad, one row a form: the keys, what they mean, where. The README's and
# docs/keypad.md's table is written from it by scripts/docs.py (checked in the suite).
KEYPAD: tuple[tuple[str, str, str], ...] = (
    ("`7` Enter", "seat 7, or 7 raised hands", "any seat or count"),
    (
        "`0` Enter",
        'nobody / no shot / abstain / no badge; 0 hands at a count; "no" at a yes/no',
        "",
    ),
    ("`1` Enter", '"yes"', "a yes/no question (the witch's antidote)"),
    (
        "`2.5` Enter (or `2 5`)",
        "seats 2 and 5",
        "several seats: alliance candidates, withdrawals, cupid",
    ),
    ("`7` Enter `7` Enter `7` Enter", "one shot per black player", "sport mafia shooting"),
    ("`*13` or `*1.3` Enter", "centre cards 1 and 3", "onenight high inquisitor"),
    (
        "`5+` / `5-` Enter",
        "start next to seat 5, ascending / descending",
        "alliance sheriff's speaking order",
    ),
    ("`*8` Enter", "werewolf 8 explodes", "during an alliance speech"),
    (
        "Enter with nothing typed",
        "«Спасибо»: the speech is over",
        "speeches, last words, discussions",
    ),
    ("Backspace", "correct before Enter", ""),
)
SEPARATORS = " ."  # between seats: the keypad's dot, or a space in the text host
CENTER_MARK = "*"  # before centre-card numbers, and before an exploding werewolf


def _nothing(accepts: frozenset[AnswerKind]) -> str | None:
    """What the keypad's 0 means at a prompt, if it means a word there."""
    if AnswerKind.COUNT in accepts:
        return None  # no hands raised: the number 0
    if AnswerKind.YES_NO in accepts:
        return "no"
    for kind, word in (
        (AnswerKind.NOBODY, "none"),
        (AnswerKind.ABSTAIN, "abstain"),
        (AnswerKind.DESTROY, "destroy"),
    ):
        if kind in accepts:
            return word
    return None


def _pieces(text: str) -> list[str]:
    for separator in SEPARATORS[1:]:
        text = text.replace(separator, SEPARATORS[0])
    return text.split()


def from_keys(typed: str, prompt: Prompt) -> str:
    """Turn what was typed at the keypad into the canonical answer text.

    Text that is already canonical (``none``, ``center 1 3`` typed in the text
    host) passes unchanged; the prompt then judges it.
    """
    text = typed.strip()
    accepts = prompt.accepts
    if not text:
        return text
    if text.startswith(CENTER_MARK):
        rest = text[1:].strip()
        if AnswerKind.EXPLODE in accepts and prompt.speaker is not None:
            return f"{rest} {prompt.speaker}"
        if AnswerKind.CENTER in accepts:
            cards = _pieces(rest)
            if len(cards) == 1:
                cards = list(cards[0])  # "*13": centre cards are single digits
            return " ".join(["center", *cards])
        return text
    if AnswerKind.ORDER in accepts and text[-1:] in {"+", "-"}:
        return f"{text[:-1].strip()} {text[-1]}"
    pieces = _pieces(text)
    if AnswerKind.YES_NO in accepts and pieces == ["1"]:
        return "yes"
    nothing = _nothing(accepts)
    if nothing is not None:
        pieces = [nothing if p == "0" else p for p in pieces]
    return " ".join(pieces)


def interrupt_from_keys(typed: str, interrupt: Prompt | None) -> str | None:
    """``*8`` typed during a speech with an interrupt open: its answer text, else None."""
    text = typed.strip()
    if interrupt is None or not text.startswith(CENTER_MARK):
        return None
    return from_keys(text, interrupt)


def claimant(text: str, interrupt: Prompt) -> Seat:
    """The seat that makes a claim (``8`` in the explosion ``8 3``), read without judging it.

    Raises BadAnswerText for text that names no seat; never looks at hidden roles.
    """
    answer = parse_answer(text, interrupt.accepts, interrupt.seat_count)
    if isinstance(answer, ExplodeAnswer):
        return answer.wolf
    if isinstance(answer, SeatAnswer):
        return answer.seat
    raise BadAnswerText(f"{text!r} names no seat", "reason.not_an_answer", {"input": text})


def presses(called: list[Seat | None]) -> str:
    """The answer of a call-mode prompt: the seat being called at each Space press."""
    return " ".join(["presses", *("none" if s is None else str(s) for s in called)])


def to_keys(text: str, prompt: Prompt) -> list[str]:
    """The keypad entries a player types for the canonical answer ``text``.

    One entry per Enter: several for a prompt answered in separate entries
    (one shot per shooter), else one.
    """
    tokens = text.split()
    if not tokens:
        return [""]
    head = tokens[0]
    if head == "center":
        return [CENTER_MARK + ".".join(tokens[1:])]
    if AnswerKind.EXPLODE in prompt.accepts and len(tokens) == 2:
        return [CENTER_MARK + head]
    if len(tokens) == 2 and tokens[1] in {"+", "-"}:
        return [head + tokens[1]]
    if tokens == ["yes"]:
        return ["1"]
    keys = ["0" if t in {"none", "abstain", "destroy", "no"} else t for t in tokens]
    if prompt.entries > 1:
        return keys
    return [".".join(keys)]


class Words(Protocol):
    def __call__(self, key: str, **params: object) -> str: ...


def shown(answer: Answer, word: Words) -> str:
    """An accepted answer as the screen shows it, in the table's language.

    ``word`` gives the catalog text of a key with its parameters
    (``answer.none`` → «никого»).
    """
    match answer:
        case SeatAnswer(seat=seat):
            return str(seat)
        case CountAnswer(count=count):
            return str(count)
        case Nobody():
            return word("answer.none")
        case Abstain():
            return word("answer.abstain")
        case Destroy():
            return word("answer.destroy")
        case YesNo(yes=yes):
            return word("answer.yes" if yes else "answer.no")
        case SeatsAnswer(seats=seats) | PressesAnswer(seats=seats):
            return ", ".join(word("answer.none") if s is None else str(s) for s in seats)
        case CenterAnswer(cards=cards):
            return word("answer.center", cards=", ".join(str(c) for c in cards))
        case OrderAnswer(anchor=anchor, step=step):
            key = "answer.order_up" if step > 0 else "answer.order_down"
            return word(key, seat=anchor)
        case ExplodeAnswer(wolf=wolf):
            return word("answer.explode", seat=wolf)
    return str(answer)


def numbers(prompt: Prompt, largest: int) -> list[int]:
    """The numbers that are legal answers now (living seats, hand counts), 0 for nobody."""
    values = {
        int(token)
        for option in prompt.options
        for token in option.split()
        if token.isascii() and token.isdigit()
    }
    if _nothing(prompt.accepts) is not None or AnswerKind.COUNT in prompt.accepts:
        values.add(0)  # the keypad's 0: nobody, abstain, no hands
    return sorted(v for v in values if 0 <= v <= largest)
