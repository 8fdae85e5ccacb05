"""Informed «Альянс дедукции»: the seer runs for sheriff and announces the werewolves he
found, the guard and the witch keep him alive, the witch poisons a werewolf she is sure
of, the hunter shoots one, the werewolves kill and vote together (docs/games/alliance.md)."""

from __future__ import annotations

from typing import ClassVar

from narrator.rules.alliance.roles import SEER
from narrator.rules.alliance.roles import WEREWOLF
from narrator.rules.core import Secret
from narrator.rules.core import Timer
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.simulate.informed.base import Strategy
from narrator.simulate.informed.base import seats_of
from narrator.simulate.informed.knowledge import Mind

RUN_CHANCE = 0.2  # a player other than the seer runs for sheriff this often


class Alliance(Strategy):
    checker = SEER
    night_kills = frozenset({"wolves"})
    evil = frozenset({WEREWOLF})
    team_windows = frozenset({"wolves"})

    def on_shown(self, mind: Mind, tag: Tag, secret: Secret) -> None:
        if tag.action == "seer":
            self.learn_check(mind, "seer", secret.values == ("werewolf",))
        elif tag.action == "witch_save":  # tonight's victim, while the antidote lasts
            victim = int(secret.values[0]) if secret.kind == "seats" else None
            mind.own["victim"] = victim

    def wants_to_announce(self, mind: Mind, timer: Timer) -> bool:
        """As a sheriff candidate, in his last words, or once he found a werewolf."""
        return timer.tag.action in {"candidate", "last_word"} or any(mind.checks.values())

    def protected(self, mind: Mind) -> list[Seat]:
        """Whom a good player would keep alive: the seer he believes, the sheriff."""
        beliefs = self.beliefs(mind)
        keep = [s for s in sorted(beliefs.trusted) if s != mind.seat]
        sheriff = self.board.sheriff
        if sheriff is not None and sheriff not in beliefs.evil and sheriff not in keep:
            keep.append(sheriff)
        return keep

    def guard(self, prompt: Prompt) -> str | None:
        """The seer (or the sheriff), else himself, else nobody (a skip clears his ban)."""
        mind = self.mind(prompt)
        choices = seats_of(prompt)
        for seat in [*self.protected(mind), mind.seat]:
            if seat in choices:
                return str(seat)
        return "none"

    def kill(self, prompt: Prompt) -> str | None:
        """The werewolves together: the seer who exposes them, the sheriff, else a victim."""
        sheriff = self.board.sheriff
        preferred = () if sheriff is None else (sheriff,)
        victim = self.victim(prompt, seats_of(prompt), "kill", preferred)
        return None if victim is None else str(victim)

    def save(self, prompt: Prompt) -> str | None:
        """The antidote: on the first victim, later on the seer or the sheriff only."""
        if "yes" not in prompt.options:
            return "no"
        mind = self.mind(prompt)
        victim = mind.own.get("victim")
        if not isinstance(victim, int):
            return "no"
        if prompt.tag.phase.number == 1:
            return "yes"
        return "yes" if victim in self.protected(mind) else "no"

    def poison(self, prompt: Prompt) -> str | None:
        """The poison on a werewolf she is sure of (her belief in the seer), else none."""
        mind = self.mind(prompt)
        suspects = [s for s in seats_of(prompt) if s in self.beliefs(mind).evil]
        return str(suspects[0]) if suspects else "none"

    def shoot(self, prompt: Prompt) -> str | None:
        """The dead hunter shoots a werewolf he believes in, or nobody."""
        if not prompt.seats:
            return None
        mind = self.mind(prompt)
        suspects = [s for s in seats_of(prompt) if s in self.beliefs(mind).evil]
        return str(suspects[0]) if suspects else "none"

    def run(self, prompt: Prompt) -> str | None:
        """Who raises a hand for sheriff: the seer, and now and then anybody else."""
        running = []
        for seat in sorted(self.board.alive):
            mind = self.minds[seat]
            if (mind.card == SEER and not mind.evil_side) or mind.rng.random() < RUN_CHANCE:
                running.append(seat)
        return " ".join(map(str, running)) if running else "none"

    def elect(self, prompt: Prompt) -> str | None:
        """A voter in the election: the seer he believes (the werewolves: one of them),
        else a candidate he does not take for evil."""
        mind = self.mind(prompt)
        choices = seats_of(prompt)
        if not choices:
            return "abstain"
        if mind.evil_side:
            team = self.partners([mind])
            ours = [s for s in choices if s in team]
            pool = ours or [s for s in choices if s not in self.exposers(team)] or choices
            chosen = self.agreed((prompt.tag.phase, prompt.tag.action), pool)
            return "abstain" if chosen is None else str(chosen)
        beliefs = self.beliefs(mind)
        trusted = [s for s in choices if s in beliefs.trusted]
        if trusted:
            return str(trusted[0])
        pool = [s for s in choices if s not in beliefs.evil]
        return str(mind.rng.choice(pool)) if pool else "abstain"

    def pass_badge(self, prompt: Prompt) -> str | None:
        """The dying sheriff: to the seer he believes or a player he takes for good (a
        werewolf: to another werewolf), else the badge is destroyed."""
        mind = self.mind(prompt)
        choices = [s for s in seats_of(prompt) if s != mind.seat]
        if mind.evil_side:
            ours = [s for s in choices if s in mind.partners]
            return str(ours[0]) if ours else "destroy"
        beliefs = self.beliefs(mind)
        for group in (sorted(beliefs.trusted), sorted(beliefs.good)):
            heirs = [s for s in group if s in choices]
            if heirs:
                return str(heirs[0])
        return "destroy"

    decisions: ClassVar[dict[str, str]] = {
        "guard": "guard",
        "wolves": "kill",
        "witch_save": "save",
        "witch_poison": "poison",
        "seer": "check",
        "candidates": "run",
        "withdraw": "nobody",
        "sheriff_vote": "elect",
        "sheriff_revote": "elect",
        "badge": "pass_badge",
        "hunter": "shoot",
        "ability": "nothing",
        "order": "nothing",
        "vote": "vote",
        "pk_vote": "vote",
        "white_wolf": "nobody",
    }
