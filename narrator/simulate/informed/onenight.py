"""Informed «Ночь оборотня»: the high inquisitor looks at a player's card and says what he
saw, the spirit says whose card he took (unless he became a werewolf), the werewolves
vote together against whoever exposes them; the vote is by pointing at once, so nobody
follows anybody (docs/games/onenight.md)."""

from __future__ import annotations

from typing import ClassVar

from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Secret
from narrator.rules.core import Timer
from narrator.rules.onenight import HIGH_INQUISITOR
from narrator.rules.onenight import SPIRIT
from narrator.rules.onenight import WEREWOLF
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.simulate.informed.base import Strategy
from narrator.simulate.informed.base import seats_of
from narrator.simulate.informed.knowledge import Claim
from narrator.simulate.informed.knowledge import Mind


class OneNight(Strategy):
    checker = HIGH_INQUISITOR
    witnesses = (SPIRIT,)
    evil = frozenset({WEREWOLF})
    team_windows = frozenset()  # the werewolves are shown each other (a lone one nobody)
    sequential_votes = False  # everybody points at once, on «три»

    def on_shown(self, mind: Mind, tag: Tag, secret: Secret) -> None:
        chosen = mind.own.get(tag.action)
        if tag.action == "werewolves" and secret.kind == "seats":
            mind.partners |= {int(seat) for seat in secret.values} - {mind.seat}
        elif tag.action == "high_inquisitor" and isinstance(chosen, SeatAnswer):
            card = secret.values[0]
            mind.roles[chosen.seat] = card
            mind.checks[chosen.seat] = card == WEREWOLF
            (mind.evil if card == WEREWOLF else mind.good).add(chosen.seat)
        elif tag.action == "spirit" and isinstance(chosen, SeatAnswer):
            card = secret.values[0]  # his new card: the one the other player held
            mind.roles[mind.seat], mind.roles[chosen.seat] = card, SPIRIT
            mind.good.add(chosen.seat)  # who now holds the spirit: the inquisition's
            if card == WEREWOLF:
                mind.evil_side = True  # he plays the werewolf now (docs/games/onenight.md §1.4)
                mind.partners.clear()
            else:
                mind.checks[chosen.seat] = False

    def wants_to_announce(self, mind: Mind, timer: Timer) -> bool:
        return True  # what he saw, whatever it is

    def announce(self, mind: Mind, timer: Timer) -> None:
        super().announce(mind, timer)
        chosen = mind.own.get("spirit")
        spirit = mind.card == SPIRIT and not mind.evil_side and isinstance(chosen, SeatAnswer)
        if spirit and not any(c.seat == mind.seat for c in self.board.claims):
            assert isinstance(chosen, SeatAnswer)
            verdicts = {chosen.seat: False}
            self.board.claims.append(Claim(mind.seat, SPIRIT, verdicts, timer.tag.phase))

    def look(self, prompt: Prompt) -> str | None:
        """The high inquisitor looks at a player's card (a card in play, not the centre)."""
        return self.random_seat(prompt)

    def swap(self, prompt: Prompt) -> str | None:
        """The spirit takes a player's card (and with it, perhaps, a werewolf's side)."""
        return self.random_seat(prompt)

    def random_seat(self, prompt: Prompt) -> str | None:
        mind = self.mind(prompt)
        choices = seats_of(prompt)
        return str(mind.rng.choice(choices)) if choices else None

    decisions: ClassVar[dict[str, str]] = {
        "high_inquisitor": "look",
        "spirit": "swap",
        "vote": "vote",
    }
