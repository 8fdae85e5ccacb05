"""What the rules leave to chance, as a step of the script: alliance's lovers when Cupid
names none and its speaking orders (docs/games/alliance.md §4.4, §4.6 item 3, §4.8).

A script never draws from a random stream itself: it yields a :class:`Chance`, and
the driver answers it like a prompt nobody at the table answers. The driver draws
it from the game's seeded stream, always and in the script's order, so that the
same seed gives the same draws; it writes the outcome into the game record, under
the chance's id (``d2.order_drawn``), as text in the form of an answer
(``"3 +"``). A replay reads the recorded outcome back, so a record made before a
variant added a draw still replays to the same game; a scenario file pins one in
its ``[answers]``, under that id, like the answer of a prompt.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from narrator.rules.answers import Answer
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import parse_answer
from narrator.rules.errors import IllegalAction
from narrator.rules.frozen import quick_init

UP_DOWN = ("+", "-")  # a direction round the table, as an order answer writes it (4 +)


@quick_init
@dataclass(frozen=True)
class Draw:
    """One call on the stream: ``picks`` different values of ``of``, each as likely
    (one pick is ``random.choice``, more are ``random.sample``: the calls the scripts made
    before chance was a step, so that a seed still gives the games it gave)."""

    of: tuple[str, ...]
    picks: int = 1


@quick_init
@dataclass(frozen=True)
class Chance:
    """A draw the script waits for: ``draws`` drawn in order, their values joined by
    spaces into the text of an answer of one of the kinds ``accepts``.

    ``id`` is built like a prompt id (``<phase>.<action>``) and is never one of them.
    """

    id: str
    draws: tuple[Draw, ...]
    accepts: frozenset[AnswerKind]
    seat_count: int

    def draw(self, stream: random.Random) -> str:
        """The outcome drawn from ``stream``, as text."""
        values: list[str] = []
        for draw in self.draws:
            if draw.picks == 1:
                values.append(stream.choice(draw.of))
            else:
                values.extend(stream.sample(draw.of, draw.picks))
        return " ".join(values)

    def read(self, text: str) -> Answer:
        """The answer a drawn, recorded or pinned outcome stands for; a NarratorError when
        the text is no outcome this chance can have."""
        answer = parse_answer(text, self.accepts, self.seat_count)
        tokens = str(answer).split()
        for draw in self.draws:
            group, tokens = tokens[: draw.picks], tokens[draw.picks :]
            if len(group) < draw.picks or len(set(group)) < draw.picks or set(group) - set(draw.of):
                break
        else:
            if not tokens:
                return answer
        raise IllegalAction(
            f"{text!r} is not an outcome of {self.id}", "reason.not_an_answer", {"input": text}
        )


def drawn_order(chance_id: str, anchors: Iterable[int], seat_count: int) -> Chance:
    """One of ``anchors`` (a seat), then a direction up or down: an order answer (``3 +``)."""
    seats = tuple(str(seat) for seat in anchors)
    draws = (Draw(seats), Draw(UP_DOWN))
    return Chance(chance_id, draws, frozenset({AnswerKind.ORDER}), seat_count)


def drawn_seats(chance_id: str, seats: Iterable[int], picks: int, seat_count: int) -> Chance:
    """``picks`` different seats of ``seats``, in the order drawn: a seats answer (``5 2``)."""
    draws = (Draw(tuple(str(seat) for seat in seats), picks),)
    return Chance(chance_id, draws, frozenset({AnswerKind.SEATS}), seat_count)
