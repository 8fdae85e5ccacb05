"""«Игра в оборотней: Альянс дедукции» (docs/games/alliance.md): competitive werewolf.

The seed is only the chapter of special rules (sheriff, badge, speeches, last
words, votes, guard/witch conflicts); everything else is the standard 12-player
ruleset, every inferred rule a switch of :class:`AllianceSwitches`.

Where to look: the roles, tables and switches in :mod:`.roles`; who dies and who
wins, as plain functions, in :mod:`.resolution`; the state of a game in
:mod:`.table`; every question in :mod:`.prompts`; the night in :mod:`.night`; the
day in :mod:`.day`, with the sheriff election in :mod:`.election` and what
follows a death (badge, hunter, last words, the win check) in :mod:`.deaths`.

Choices where the rules leave room:

* Withdrawal from the election is one prompt, ``d<k>.withdraw``, after the
  candidates' speeches and before the vote (4.6-4 "until the vote is called").
* A win is checked right after each death batch (with its lovers), before the
  badge, the hunter's shot and the last words; an explosion during an election
  is followed at once by the night's announcement and one check of both (4.6-9).
* The witch's one window is named by its first prompt, ``n<k>.witch_save``, and
  so is the victim shown in it.  The hunter's status is «не можешь стрелять»
  exactly when he is tonight's poison target (4.4, to the letter).
* A werewolf who died tonight (not yet announced) cannot explode in the election.
* With Cupid in play he takes a villager's place at every table size.
* Prompts of its own (docs/scenarios.md): ``d<k>.ability`` (the pause's input when nobody
  may shoot; it refuses every seat), ``d<k>.white_wolf`` (``white_wolf_king``) and
  ``d<k>.election_again.explode`` (the speeches after an election tie).
* Every prompt id is asked once a game: a second badge or pause on one day is
  ``d<k>.badge.<sheriff>`` / ``d<k>.ability.<seat>`` (see :mod:`.deaths`).
"""

from __future__ import annotations

import random

from narrator.rules import kit
from narrator.rules.alliance.day import day_of
from narrator.rules.alliance.night import night_of
from narrator.rules.alliance.prompts import badge_prompt
from narrator.rules.alliance.prompts import candidates_prompt
from narrator.rules.alliance.prompts import choice_vote_prompt
from narrator.rules.alliance.prompts import cupid_prompt
from narrator.rules.alliance.prompts import explode_prompt
from narrator.rules.alliance.prompts import guard_prompt
from narrator.rules.alliance.prompts import hunter_prompt
from narrator.rules.alliance.prompts import no_shot_prompt
from narrator.rules.alliance.prompts import order_prompt
from narrator.rules.alliance.prompts import seer_prompt
from narrator.rules.alliance.prompts import white_wolf_prompt
from narrator.rules.alliance.prompts import witch_poison_prompt
from narrator.rules.alliance.prompts import witch_save_prompt
from narrator.rules.alliance.prompts import withdraw_prompt
from narrator.rules.alliance.prompts import wolves_prompt
from narrator.rules.alliance.resolution import exile_tally
from narrator.rules.alliance.resolution import is_cross_team
from narrator.rules.alliance.resolution import leaders
from narrator.rules.alliance.resolution import may_shoot
from narrator.rules.alliance.resolution import night_deaths
from narrator.rules.alliance.resolution import speaking_order
from narrator.rules.alliance.resolution import top_of
from narrator.rules.alliance.resolution import winner_of
from narrator.rules.alliance.roles import CUPID
from narrator.rules.alliance.roles import EXILED
from narrator.rules.alliance.roles import EXPLODED
from narrator.rules.alliance.roles import GOOD
from narrator.rules.alliance.roles import GUARD
from narrator.rules.alliance.roles import HUNTER
from narrator.rules.alliance.roles import LOVE
from narrator.rules.alliance.roles import LOVERS
from narrator.rules.alliance.roles import POISON
from narrator.rules.alliance.roles import ROLES
from narrator.rules.alliance.roles import SEAT_COUNTS
from narrator.rules.alliance.roles import SEER
from narrator.rules.alliance.roles import SHOT
from narrator.rules.alliance.roles import VILLAGER
from narrator.rules.alliance.roles import WEREWOLF
from narrator.rules.alliance.roles import WEREWOLVES
from narrator.rules.alliance.roles import WITCH
from narrator.rules.alliance.roles import WOLVES
from narrator.rules.alliance.roles import AllianceSwitches
from narrator.rules.alliance.roles import composition_counts
from narrator.rules.alliance.roles import default_counts
from narrator.rules.alliance.table import Death
from narrator.rules.alliance.table import Table
from narrator.rules.core import Composition
from narrator.rules.core import Deal
from narrator.rules.core import Script
from narrator.rules.kit import Rules
from narrator.rules.kit import around


def game_script(deal: Deal, sw: AllianceSwitches, rng: random.Random) -> Script:
    """The deal, then night and day until a side wins."""
    table = Table(deal.seats, sw)
    yield from kit.deal_cards(table.roles)
    night = 1
    while True:
        pending = yield from night_of(table, night)
        outcome = yield from day_of(table, night, pending)
        if outcome is not None:
            return outcome
        night += 1


class Alliance(Rules[AllianceSwitches]):
    def counts(self, players: int, sw: AllianceSwitches) -> Composition:
        counts = composition_counts(players, sw)
        return Composition({role: n for role, n in counts.items() if n})

    def script(self, deal: Deal, sw: AllianceSwitches, rng: random.Random) -> Script:
        return game_script(deal, sw, rng)


VARIANT = Alliance("alliance", ROLES, AllianceSwitches, SEAT_COUNTS)

__all__ = [
    "CUPID",
    "EXILED",
    "EXPLODED",
    "GOOD",
    "GUARD",
    "HUNTER",
    "LOVE",
    "LOVERS",
    "POISON",
    "ROLES",
    "SEER",
    "SHOT",
    "VARIANT",
    "VILLAGER",
    "WEREWOLF",
    "WEREWOLVES",
    "WITCH",
    "WOLVES",
    "AllianceSwitches",
    "Death",
    "Table",
    "around",
    "badge_prompt",
    "candidates_prompt",
    "choice_vote_prompt",
    "cupid_prompt",
    "default_counts",
    "exile_tally",
    "explode_prompt",
    "game_script",
    "guard_prompt",
    "hunter_prompt",
    "is_cross_team",
    "leaders",
    "may_shoot",
    "night_deaths",
    "no_shot_prompt",
    "order_prompt",
    "seer_prompt",
    "speaking_order",
    "top_of",
    "white_wolf_prompt",
    "winner_of",
    "witch_poison_prompt",
    "witch_save_prompt",
    "withdraw_prompt",
    "wolves_prompt",
]
