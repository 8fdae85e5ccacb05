"""One reaction per key in every woken window, its role held or not.

A key typed in a night window must not tell whether the window's card is dealt: the
real table loop plays each game twice, under two deals with the same public facts, one
where a player holds the role and one where its card lies in the centre (onenight) or
its holder died the night before (the other games), and the same keys are typed in
every window. What the screen shows in reply (the digits typed, each refusal, each
«Принято», whether a card or a verdict appears) is the same in both; only what a card
says may differ, and it is masked.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from collections.abc import Sequence

import pytest

from narrator.host.table import TableDriver
from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.ports import Attempt
from narrator.ports import Live
from narrator.record import GameRecord
from narrator.rules.core import Deal
from narrator.rules.core import DealCard
from narrator.rules.core import PublicView
from narrator.rules.core import Wake
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog
from tests.harness import FakeClock


def typed(seat: str) -> list[str]:
    """A seat off the table, Backspace, ``seat``, three centre keys, one seat more."""
    return ["9", "9", ENTER, "5", BACKSPACE, seat, ENTER, "*", "1", ENTER, "3", ENTER]


SHOTS = ["2", ENTER] * 3  # sport mafia: each of three shooters enters seat 2


class PeekingKeys:
    """A fake keypad: what is queued comes at once, then the clock runs."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.queue: deque[str] = deque()
        self.typing = False  # a key of this window has been read

    def read(self, timeout: float) -> str | Attempt | None:
        if self.queue:
            self.typing = True
            return self.queue.popleft()
        self.clock.sleep(timeout)
        return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        pass


class ReactionScreen:
    """What the screen shows in reply to keys, window by window; a card's words masked."""

    def __init__(self, keys: PeekingKeys) -> None:
        self.keys = keys
        self.window: str | None = None
        self.reactions: dict[str, list[str]] = {}
        self.secrets: list[tuple[str | None, str]] = []  # every card shown, unmasked
        self.bar = ""  # the phase the bar names
        self._live: tuple[str, str, str] | None = None

    def open(self, window: str) -> None:
        self.window, self._live = window, None
        self.reactions[window] = []

    def _note(self, event: str) -> None:
        if self.window is not None and self.keys.typing:
            self.reactions[self.window].append(event)

    def said(self, text: str) -> None:
        pass

    def line(self, text: str) -> None:
        self._note(f"line: {text}")

    def live(self, view: Live | None) -> None:
        state = None if view is None else (view.label, view.typed, view.reason)
        if state != self._live:
            self._live = state
            self._note(f"live: {state}")

    def secret(self, text: str) -> None:
        self.secrets.append((self.window, text))
        self._note("a secret")

    def clear(self) -> None:
        self._note("clear")

    def table(self, view: PublicView, speaker: int | None) -> None:
        self.bar = "dawn" if view.dawn else str(view.phase)

    def end(self, title: str, lines: list[str]) -> None:
        pass


class BarVoice:
    """A silent voice that notes each line's key with the phase the bar names meanwhile."""

    def __init__(self, screen: ReactionScreen) -> None:
        self.screen = screen
        self.heard: list[tuple[str, str]] = []

    def say(self, key: str, text: str) -> None:
        self.heard.append((key, self.screen.bar))


class PeekingTable(TableDriver):
    """The real table loop, the same keys typed in every window of a kind (or of an id)."""

    def __init__(self, game: str, keys_for: Mapping[str, Sequence[str]]) -> None:
        clock = FakeClock()
        self.peeker = PeekingKeys(clock)
        self.reactions = ReactionScreen(self.peeker)
        self.listener = BarVoice(self.reactions)
        super().__init__(
            load_catalog("en"),
            GameRecord(),
            voice=self.listener,
            screen=self.reactions,
            keys=self.peeker,
            clock=clock,
            answer_s=2,
        )
        self.keys_for = keys_for
        self.game = game

    def wake(self, step: Wake) -> None:
        self.peeker.typing = False
        self.reactions.open(step.window)
        super().wake(step)
        keys = self.keys_for.get(step.window) or self.keys_for.get(step.tag.action)
        self.peeker.queue.extend(keys or typed("2"))

    def sleep(self) -> None:
        super().sleep()
        self.reactions.window = None
        self.peeker.queue.clear()

    def deal_card(self, step: DealCard) -> None:
        self.peeker.queue.extend([ENTER, ENTER])  # look at the card, hide it
        super().deal_card(step)


def reactions(
    game: str,
    deal: Deal,
    options: Mapping[str, object],
    *,
    stop_before: str,
    keys_for: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[str]]:
    variant = get_variant(game)
    sw = make_switches(variant, dict(options))
    variant.validate_deal(deal, sw)
    table = PeekingTable(game, keys_for or {})
    table.stop_before = PhaseId.parse(stop_before)
    table.run(variant.new_game(deal, sw, random.Random(1)))
    return table.reactions.reactions


def played(
    game: str, deal: Deal, options: Mapping[str, object], *, stop_before: str
) -> PeekingTable:
    """A game with the keys of :func:`typed` in every window."""
    variant = get_variant(game)
    table = PeekingTable(game, {})
    table.stop_before = PhaseId.parse(stop_before)
    table.run(variant.new_game(deal, make_switches(variant, dict(options)), random.Random(1)))
    return table


ONENIGHT = {"window_s": 8, "discussion_s": 1, "lone_wolf_peek": True}
HI, SPIRIT, WOLF, INQ = "high_inquisitor", "spirit", "werewolf", "inquisitor"
# Seat 1 holds the card of the window compared; the other deal has it in the centre.
ONENIGHT_PAIRS = [
    pytest.param(
        "n1.high_inquisitor",
        Deal((HI, INQ, INQ), (WOLF, WOLF, SPIRIT)),
        Deal((SPIRIT, INQ, INQ), (WOLF, WOLF, HI)),
        id="high_inquisitor",
    ),
    pytest.param(
        "n1.spirit",
        Deal((SPIRIT, INQ, INQ), (WOLF, WOLF, HI)),
        Deal((HI, INQ, INQ), (WOLF, WOLF, SPIRIT)),
        id="spirit",
    ),
    pytest.param(
        "n1.werewolves",
        Deal((WOLF, INQ, INQ), (WOLF, HI, SPIRIT)),
        Deal((HI, INQ, INQ), (WOLF, WOLF, SPIRIT)),
        id="lone_werewolf",
    ),
]


@pytest.mark.parametrize(("window", "held", "centre"), ONENIGHT_PAIRS)
def test_a_onenight_window_reacts_alike_with_its_card_in_the_centre(
    window: str, held: Deal, centre: Deal
) -> None:
    played = reactions("onenight", held, ONENIGHT, stop_before="d1")[window]
    unplayed = reactions("onenight", centre, ONENIGHT, stop_before="d1")[window]
    assert any("'99'" in event for event in played)  # the keys were typed
    assert "a secret" in played  # an answer was taken and showed a card
    assert played == unplayed


# The other games: seat 2 is killed in night 1 (in one deal it holds the role, which is
# then called in night 2 with nobody awake); in the other deal seat 4 holds it, alive.
HALLOWEEN = {"call_dead_roles": True, "discussion_s": 5}
VAMP, WITCH, HUNTER, VILL = "vampire", "witch", "hunter", "villager"
SPORT = {"call_dead_roles": True}
CIV, SHERIFF, MAFIA, DON = "civilian", "sheriff", "mafia", "don"
ALLIANCE = {"call_dead_roles": True}
SEER, AWOLF, AWITCH, AHUNTER, AVILL = "seer", "werewolf", "witch", "hunter", "villager"

DEAD_PAIRS = [
    pytest.param(
        "halloween",
        HALLOWEEN,
        "n2.hunter",
        (VILL, VILL, VILL, HUNTER, WITCH, VAMP, VAMP),
        (VILL, HUNTER, VILL, VILL, WITCH, VAMP, VAMP),
        {"witch": typed("4")},
        id="halloween-hunter",
    ),
    pytest.param(
        "sport_mafia",
        SPORT,
        "n2.sheriff",
        (CIV, CIV, CIV, SHERIFF, CIV, CIV, CIV, DON, MAFIA, MAFIA),
        (CIV, SHERIFF, CIV, CIV, CIV, CIV, CIV, DON, MAFIA, MAFIA),
        {"shoot": SHOTS},
        id="sport_mafia-sheriff",
    ),
    pytest.param(
        "alliance",
        ALLIANCE,
        "n2.seer",
        (AVILL, AVILL, AVILL, SEER, AWITCH, AHUNTER, AWOLF, AWOLF, AWOLF),
        (AVILL, SEER, AVILL, AVILL, AWITCH, AHUNTER, AWOLF, AWOLF, AWOLF),
        {},
        id="alliance-seer",
    ),
]


@pytest.mark.parametrize(("game", "options", "window", "alive", "dead", "keys"), DEAD_PAIRS)
def test_a_window_reacts_alike_when_its_role_died(
    game: str,
    options: Mapping[str, object],
    window: str,
    alive: tuple[str, ...],
    dead: tuple[str, ...],
    keys: Mapping[str, Sequence[str]],
) -> None:
    held = reactions(game, Deal(alive), options, stop_before="d3", keys_for=keys)
    nobody = reactions(game, Deal(dead), options, stop_before="d3", keys_for=keys)
    assert window in held and window in nobody
    assert "a secret" in held[window]  # seat 3 was checked
    assert held[window] == nobody[window]


def test_the_alliance_witchs_two_questions_react_alike_when_she_died() -> None:
    """Her save answered yes, then a poison: «one potion a night» either way."""
    keys = {"n2.witch_save": ["9", "9", ENTER, "1", ENTER, "3", ENTER, "4", ENTER]}
    alive = (AVILL, AVILL, AVILL, SEER, AWITCH, AHUNTER, AWOLF, AWOLF, AWOLF)
    dead = (AVILL, AWITCH, AVILL, SEER, AVILL, AHUNTER, AWOLF, AWOLF, AWOLF)
    held = reactions("alliance", Deal(alive), ALLIANCE, stop_before="d3", keys_for=keys)
    nobody = reactions("alliance", Deal(dead), ALLIANCE, stop_before="d3", keys_for=keys)
    assert held["n2.witch_save"] == nobody["n2.witch_save"]
    assert any("one potion" in event for event in held["n2.witch_save"])


def test_the_witch_sees_which_question_the_keypad_answers() -> None:
    """«Используешь целебное зелье? Используешь яд — и на кого?» in one line: the live
    area names the question open, the potion first, then the poison."""
    keys = {"n1.witch_save": ["0", ENTER, "3", ENTER]}  # no potion; the poison on seat 3
    deal = Deal((AVILL, AVILL, AVILL, SEER, AWITCH, AHUNTER, AWOLF, AWOLF, AWOLF))
    window = reactions("alliance", deal, ALLIANCE, stop_before="d1", keys_for=keys)["n1.witch_save"]
    labels = [event for event in window if event.startswith("live: (") and "'0'" in event]
    assert labels == ["live: ('The healing potion:', '0', '')"]
    assert "line: The healing potion: no — Accepted." in window
    assert "line: The poison: 3 — Accepted." in window


def test_the_alliance_werewolves_see_each_other_on_night_1() -> None:
    """«Оборотни, проснитесь и узнайте друг друга»: the screen of their window names them
    all, as halloween's vampires and sport mafia's black team see theirs."""
    deal = Deal((AVILL, AVILL, AVILL, SEER, AWITCH, AHUNTER, AWOLF, AWOLF, AWOLF))
    shown = played("alliance", deal, ALLIANCE, stop_before="d3").reactions.secrets
    assert ("n1.wolves", "Werewolves: players number 7, 8, 9") in shown
    assert [text for window, text in shown if window == "n2.wolves"] == []


MORNINGS = [
    pytest.param(
        "halloween",
        Deal((VILL, VILL, VILL, HUNTER, WITCH, VAMP, VAMP)),
        "halloween.morning",
        "dawn",
        id="halloween",
    ),
    pytest.param(
        "sport_mafia",
        Deal((CIV, CIV, CIV, SHERIFF, CIV, CIV, CIV, DON, MAFIA, MAFIA)),
        "sport.morning_comes",
        "dawn",
        id="sport_mafia",
    ),
    pytest.param(
        "onenight",
        Deal((HI, INQ, INQ), (WOLF, WOLF, SPIRIT)),
        "onenight.morning",
        "d1",
        id="onenight",
    ),
]


@pytest.mark.parametrize(("game", "deal", "line", "bar"), MORNINGS)
def test_the_morning_line_is_said_under_morning_not_the_night(
    game: str, deal: Deal, line: str, bar: str
) -> None:
    """«Наступило утро» with «Ночь 1» on the bar: the bar names the morning,
    or the day when the day has already begun."""
    table = played(game, deal, {"discussion_s": 1} if game == "onenight" else {}, stop_before="d3")
    assert (line, bar) in table.listener.heard
    assert all(phase != "dawn" for key, phase in table.listener.heard if "wake" in key)
