"""Demo players: a fake keyboard that answers like a table of random players.

Used when nobody is at the keyboard (the main job on a headless machine) so the
whole game still runs, windows and all, with legal answers and the odd mistake.
"""

from __future__ import annotations

import random
from collections import deque

from narrator.ports import ENTER
from narrator.ports import Clock
from narrator.rules import codec
from narrator.rules.prompts import Prompt


class DemoKeys:
    """Types one answer per open prompt after a short think, sometimes a wrong one first."""

    def __init__(self, rng: random.Random, clock: Clock, think: float = 0.4) -> None:
        self.rng = rng
        self.clock = clock
        self.think = think
        self._queue: deque[str] = deque()
        self._waited = 0.0

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self._queue.clear()
        self._waited = 0.0
        if prompt is None:
            self._queue.extend(ENTER)  # deal steps and timers: just press Enter
            return
        if self.rng.random() < 0.15 and prompt.seats and prompt.entries == 1:
            self._queue.extend(str(prompt.seats[0]) + ENTER)  # a typo: choosing oneself
        answer = self.rng.choice(prompt.options)
        for entry in codec.to_keys(answer, prompt):  # several shooters type one entry each
            self._queue.extend(entry + ENTER)
        self._queue.append(ENTER)  # an empty Enter ends a speech («Спасибо»)

    def read(self, timeout: float) -> str | None:
        if not self._queue:
            self.clock.sleep(max(timeout, 0))
            return None
        if self._waited < self.think:
            pause = min(timeout, self.think - self._waited)
            self.clock.sleep(max(pause, 0))
            self._waited += pause
            return None
        return self._queue.popleft()
