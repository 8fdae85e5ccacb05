"""Informed sport mafia: the sheriff names a black player he found in his speech (and all
his checks in his last word), the Don hunts for him, the black players shoot and vote
together, every hand goes to whom its owner takes for black (docs/games/sport_mafia.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from collections.abc import Sequence
from typing import ClassVar

from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Secret
from narrator.rules.core import Timer
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.sport_mafia import DON
from narrator.rules.sport_mafia import MAFIA
from narrator.rules.sport_mafia import SHERIFF
from narrator.simulate.informed.base import Strategy
from narrator.simulate.informed.base import seats_of
from narrator.simulate.informed.knowledge import Board
from narrator.simulate.informed.knowledge import Mind

NOMINATE_CHANCE = 0.5  # a player with no suspect still nominates somebody this often


class SportMafia(Strategy):
    checker = SHERIFF
    night_kills = frozenset({"shot"})
    evil = frozenset({MAFIA, DON})
    team_windows = frozenset({"mafia", "shoot"})

    def __init__(self, board: Board, minds: Mapping[Seat, Mind], rng: random.Random) -> None:
        super().__init__(board, minds, rng)
        self.hands: dict[tuple[PhaseId, str], dict[Seat, Seat | None]] = {}

    def on_shown(self, mind: Mind, tag: Tag, secret: Secret) -> None:
        checked = mind.own.get(tag.action)
        if tag.action == "mafia":  # night 0: the black players meet
            mind.partners |= {int(seat) for seat in secret.values} - {mind.seat}
        elif tag.action == "sheriff" and isinstance(checked, SeatAnswer):
            mind.checks[checked.seat] = secret.values == ("mafia",)
            (mind.evil if mind.checks[checked.seat] else mind.good).add(checked.seat)
        elif tag.action == "don" and isinstance(checked, SeatAnswer):
            found = SHERIFF if secret.values == ("sheriff",) else "red"
            for seat in {mind.seat, *mind.partners}:  # the Don tells his team
                self.minds[seat].roles[checked.seat] = found

    def wants_to_announce(self, mind: Mind, timer: Timer) -> bool:
        """In a speech once he found a black player; in his last word, everything."""
        return timer.tag.action == "last_word" or any(mind.checks.values())

    def announce(self, mind: Mind, timer: Timer) -> None:
        if mind.card == SHERIFF:
            super().announce(mind, timer)

    def shoot(self, prompt: Prompt) -> str | None:
        """Every black player the same seat: the sheriff who exposes them, the sheriff
        the Don found, else an agreed victim."""
        shooters = prompt.seats
        if not shooters:
            return None
        minds = [self.minds[seat] for seat in shooters]
        found = {s for m in minds for s, role in m.roles.items() if role == SHERIFF}
        target = self.victim(prompt, sorted(self.board.alive), "shot", sorted(found))
        if target is None:
            return None
        return " ".join([str(target)] * len(shooters))

    def don_check(self, prompt: Prompt) -> str | None:
        mind = self.mind(prompt)
        pool = [s for s in seats_of(prompt) if s not in mind.partners and s not in mind.roles]
        pool = pool or [s for s in seats_of(prompt) if s not in mind.partners]
        return str(mind.rng.choice(pool)) if pool else None

    def nominate(self, prompt: Prompt) -> str | None:
        """In one's own speech: whom one takes for black (evil: the sheriff who exposes
        the team), else now and then somebody not taken for the other side."""
        mind = self.mind(prompt)
        choices = seats_of(prompt)
        if mind.evil_side:
            team = self.partners([mind])
            exposers = [s for s in self.exposers(team) if s in choices]
            if exposers:
                return str(exposers[-1])
            pool = [s for s in choices if s not in team]
        else:
            beliefs = self.beliefs(mind)
            suspects = [s for s in choices if s in beliefs.evil]
            if suspects:
                return str(suspects[0])
            pool = [s for s in choices if s not in beliefs.good]
        if pool and mind.rng.random() < NOMINATE_CHANCE:
            return str(mind.rng.choice(pool))
        return "none"

    def preferences(self, prompt: Prompt, candidates: Sequence[Seat]) -> dict[Seat, Seat | None]:
        """Each living player's one vote in this round (asked once, then kept)."""
        key = (prompt.tag.phase, prompt.tag.action)
        if key not in self.hands:
            hands: dict[Seat, Seat | None] = {}
            for seat in sorted(self.board.alive):
                mind = self.minds[seat]
                hands[seat] = self.vote_for(mind, prompt, candidates)
            self.hands[key] = hands
        return self.hands[key]

    def hands_for(self, prompt: Prompt) -> str | None:
        """The hands raised for the candidate the prompt is about: every living player
        whose vote goes to him (each votes once; the last candidate gets the rest)."""
        candidate = prompt.tag.about
        round_key = "sport.candidates" if prompt.tag.action == "vote" else "sport.perestrelka"
        announced = self.board.said.get(round_key, {}).get("seats")
        if candidate is None or not isinstance(announced, tuple):
            return self.any_option(prompt)
        hands = self.preferences(prompt, announced)
        count = sum(1 for target in hands.values() if target == candidate)
        most = max(int(option) for option in prompt.options)
        return str(min(count, most))

    def all_leave(self, prompt: Prompt) -> str | None:
        """«ЗА»: a red player if he takes one of them for black and none for red; a
        black player if none of them is black."""
        tied = self.board.said.get("sport.perestrelka", {}).get("seats")
        if not isinstance(tied, tuple):
            return self.any_option(prompt)
        hands = 0
        for seat in self.board.alive:
            mind = self.minds[seat]
            if mind.evil_side:
                hands += not (set(tied) & self.partners([mind]))
            else:
                beliefs = self.beliefs(mind)
                hands += bool(set(tied) & beliefs.evil) and not set(tied) & beliefs.good
        return str(hands)

    decisions: ClassVar[dict[str, str]] = {
        "shoot": "shoot",
        "don": "don_check",
        "sheriff": "check",
        "nominate": "nominate",
        "vote": "hands_for",
        "revote": "hands_for",
        "all_leave": "all_leave",
    }
