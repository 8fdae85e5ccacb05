"""The roles, the tables (docs/games/alliance.md §4.2) and the rule switches of «Альянс
дедукции»."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal
from typing import Self

from pydantic import Field
from pydantic import model_validator

from narrator.rules.core import MaybeSeconds
from narrator.rules.core import Role
from narrator.rules.core import Seconds
from narrator.rules.core import Switches
from narrator.rules.core import parse_roles
from narrator.rules.kit import override_counts
from narrator.rules.kit import teams

WEREWOLF = "werewolf"
SEER = "seer"
WITCH = "witch"
HUNTER = "hunter"
GUARD = "guard"
VILLAGER = "villager"
CUPID = "cupid"

ROLES: Mapping[str, Role] = teams(
    "werewolves", werewolves=(WEREWOLF,), good=(SEER, WITCH, HUNTER, GUARD, VILLAGER, CUPID)
)
SPECIAL_ROLES = (SEER, WITCH, HUNTER, GUARD, CUPID)

# Winners of docs/games/alliance.md §4.12.
GOOD = "good"
WEREWOLVES = "werewolves"
LOVERS = "lovers"

# Causes of departure (docs/scenarios.md).
WOLVES = "wolves"
POISON = "poison"
LOVE = "love"
SHOT = "hunter"
EXILED = "exiled"
EXPLODED = "exploded"

SHERIFF_WEIGHT = 1.5
UP, DOWN = 1, -1

# docs/games/alliance.md §4.2: werewolves, villagers and the special roles per table size.
TABLES: Mapping[int, tuple[int, int, tuple[str, ...]]] = {
    9: (3, 3, (SEER, WITCH, HUNTER)),
    10: (3, 3, (SEER, WITCH, HUNTER, GUARD)),
    11: (3, 4, (SEER, WITCH, HUNTER, GUARD)),
    12: (4, 4, (SEER, WITCH, HUNTER, GUARD)),
}
SEAT_COUNTS = range(9, 13)

# The election's progress (4.6-9): due on day 1, postponed once by an explosion.
DUE, POSTPONED, OVER = "due", "postponed", "over"


class AllianceSwitches(Switches):
    allow_self_vote: bool = Field(False, description="a player may vote to exile himself")
    call_dead_roles: bool = Field(True, description="call a dead role with the same words/pause")
    witch_self_save: Literal["night1", "never", "always"] = Field(
        "night1", description="when the witch may use the antidote on herself"
    )
    witch_both_same_night: bool = Field(False, description="both potions in one night")
    witch_sees_victim_after_antidote: bool = Field(
        False, description="the witch still sees the victim once the antidote is spent"
    )
    hunter_status_call: bool = Field(True, description="the hunter's nightly shooting status")
    hunter_shoots_on_love_death: bool = Field(False, description="a hunter dying of love shoots")
    white_wolf_king: bool = Field(False, description="an exploding wolf takes one player along")
    cupid_enabled: bool = Field(False, description="Cupid replaces a villager, binds two lovers")
    cupid_s: Seconds = Field(20, gt=0, le=120, description="Cupid's window, seconds")
    lovers_s: Seconds = Field(10, gt=0, le=120, description="the lovers' window, seconds")
    guard_s: Seconds = Field(15, gt=0, le=120, description="the guard's window, seconds")
    wolves_first_s: Seconds = Field(40, gt=0, le=120, description="the wolves' window, night 1")
    wolves_s: Seconds = Field(30, gt=0, le=120, description="the wolves' window, later nights")
    witch_s: Seconds = Field(20, gt=0, le=120, description="the witch's window, seconds")
    seer_s: Seconds = Field(15, gt=0, le=120, description="the seer's window, seconds")
    hunter_status_s: Seconds = Field(5, gt=0, le=120, description="the hunter's status window")
    window_s: MaybeSeconds = Field(
        None, gt=0, le=120, description="every night window, seconds (overrides the above)"
    )
    election_speech_s: Seconds = Field(60, gt=0, le=600, description="a candidate's speech")
    speech_s: Seconds = Field(90, gt=0, le=600, description="a day speech (the sheriff's too)")
    pk_speech_s: Seconds = Field(60, gt=0, le=600, description="a speech on the exile stand")
    last_words_s: Seconds = Field(60, gt=0, le=600, description="last words, seconds")
    badge_s: Seconds = Field(15, gt=0, le=120, description="the badge decision, seconds")
    hunter_s: Seconds = Field(15, gt=0, le=120, description="the pause after a death announcement")

    @model_validator(mode="after")
    def _roles_parse(self) -> Self:
        if self.roles is not None:
            counts = parse_roles(self.roles, ROLES)
            if CUPID in counts and (counts[CUPID] > 0) != self.cupid_enabled:
                raise ValueError(
                    f"roles: cupid={counts[CUPID]} contradicts cupid_enabled = "
                    f"{str(self.cupid_enabled).lower()}"
                )
        return self

    def window(self, seconds: float) -> float:
        return self.window_s if self.window_s is not None else seconds


def default_counts(players: int, cupid: bool = False) -> dict[str, int]:
    """The table of docs/games/alliance.md §4.2; with Cupid he takes a villager's place."""
    wolves, villagers, specials = TABLES[players]
    counts = {role: 0 for role in ROLES}
    counts.update({WEREWOLF: wolves, VILLAGER: villagers})
    counts.update({role: 1 for role in specials})
    if cupid:
        counts[VILLAGER] -= 1
        counts[CUPID] = 1
    return counts


def composition_counts(players: int, sw: AllianceSwitches) -> dict[str, int]:
    """The role counts for ``players`` seats, with the ``roles`` override validated."""
    return override_counts(
        default_counts(players, sw.cupid_enabled),
        sw.roles,
        ROLES,
        rest=VILLAGER,
        singles=SPECIAL_ROLES,
        players=players,
    )
