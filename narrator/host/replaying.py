"""The steps a resumed or undone game replays (narrator.resume), met in order: each
must be the step the script asks for next, with an answer its rules allow now."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from collections.abc import Sequence

from narrator.resume import Done
from narrator.resume import Mismatch
from narrator.rules.answers import Answer
from narrator.rules.errors import NarratorError
from narrator.rules.prompts import Prompt


class Replay:
    """What the record says was played, step by step."""

    def __init__(self, steps: Iterable[Done]) -> None:
        self._steps = deque(steps)

    def __bool__(self) -> bool:
        return bool(self._steps)

    def next(self, kind: str, step_id: str) -> Answer | None:
        """The recorded outcome of the step being replayed; the record must fit the script."""
        expected = self._steps.popleft() if self._steps else None
        if expected is None or expected.kind != kind or expected.id != step_id:
            raise Mismatch(
                f"the record does not fit the game at {step_id}"
                f" (it says {expected.id if expected else 'nothing more'})"
            )
        return expected.answer


def legal(prompts: Sequence[Prompt], answer: Answer) -> Answer:
    """A recorded answer is judged again by the rules as they stand now: a record
    cannot give a role an action its prompt does not allow (the dead, a seat off
    the table, a second potion). Its expiry default is always allowed."""
    for prompt in prompts:
        if answer == prompt.default:
            return answer
        try:
            if prompt.accept(str(answer)) == answer:
                return answer
        except NarratorError:
            continue
    raise Mismatch(f"the record's answer {answer} is not allowed at {prompts[0].id}")
