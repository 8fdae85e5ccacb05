"""Informed «Хэллоуинская мафия»: the hunter announces a vampire he found, the witch
guards him, the vampires go for him and vote together (docs/games/halloween.md)."""

from __future__ import annotations

from typing import ClassVar

from narrator.rules.core import Secret
from narrator.rules.halloween import HUNTER
from narrator.rules.halloween import VAMPIRE
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.simulate.informed.base import Strategy
from narrator.simulate.informed.base import seats_of
from narrator.simulate.informed.knowledge import Mind


class Halloween(Strategy):
    checker = HUNTER
    night_kills = frozenset({"attacked"})
    evil = frozenset({VAMPIRE})
    team_windows = frozenset({"vampires"})

    def on_shown(self, mind: Mind, tag: Tag, secret: Secret) -> None:
        if tag.action == "vampires":  # night 1: the other vampires' seats
            mind.partners |= {int(seat) for seat in secret.values}
        elif tag.action == "hunter":
            self.learn_check(mind, "hunter", secret.values == ("yes",))

    def attack(self, prompt: Prompt) -> str | None:
        """The vampires together: the hunter who exposes them, else an agreed victim."""
        victim = self.victim(prompt, seats_of(prompt), "attack")
        return None if victim is None else str(victim)

    def protect(self, prompt: Prompt) -> str | None:
        """The witch guards the hunter she believes (the likely victim), else anybody
        she does not take for a vampire (herself included)."""
        mind = self.mind(prompt)
        choices = seats_of(prompt)
        beliefs = self.beliefs(mind)
        for seat in beliefs.trusted:
            if seat in choices and seat != mind.seat:
                return str(seat)
        pool = [s for s in choices if s not in beliefs.evil] or choices
        return str(mind.rng.choice(pool)) if pool else None

    decisions: ClassVar[dict[str, str]] = {
        "vampires": "attack",
        "witch": "protect",
        "hunter": "check",
        "vote": "vote",
        "revote": "vote",
    }
