"""«Ночь оборотня» rules tested directly: resolution, switches, compositions, deals, prompts."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import pytest

from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Deal
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Sleep
from narrator.rules.core import Step
from narrator.rules.core import Wake
from narrator.rules.errors import BadAnswerText
from narrator.rules.errors import ConfigError
from narrator.rules.onenight import HIGH_INQUISITOR
from narrator.rules.onenight import INQUISITION
from narrator.rules.onenight import INQUISITOR
from narrator.rules.onenight import NOBODY_WINS
from narrator.rules.onenight import SPIRIT
from narrator.rules.onenight import WEREWOLF
from narrator.rules.onenight import WEREWOLVES
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import burned_by
from narrator.rules.onenight import high_inquisitor_prompt
from narrator.rules.onenight import lone_wolf_prompt
from narrator.rules.onenight import spirit_prompt
from narrator.rules.onenight import vote_prompt
from narrator.rules.onenight import win_line
from narrator.rules.onenight import winner_of
from narrator.rules.phases import night
from narrator.rules.prompts import Tag
from narrator.rules.registry import get_variant
from tests.harness import rejected
from tests.harness import step_through
from tests.support import switches_maker

W, HI, S, I_ = WEREWOLF, HIGH_INQUISITOR, SPIRIT, INQUISITOR
VARIANT = get_variant("onenight")


switches = switches_maker(VARIANT, OneNightSwitches)


DEFAULT = switches()


# --- burned_by (docs/games/onenight.md §1.6) --------------------------------------------------


def test_a_clear_majority_burns_one() -> None:
    assert burned_by({1: 3, 2: 3, 3: 1, 4: 3, 5: 2}) == (3,)


def test_v1_everyone_gets_one_vote() -> None:
    assert burned_by({1: 2, 2: 3, 3: 4, 4: 5, 5: 1}) == ()


def test_v1_nobody_has_more_than_one_vote_with_votes_missing() -> None:
    assert burned_by({1: 2, 2: 3, 3: None, 4: None, 5: 1}) == ()


def test_no_votes_at_all_burn_nobody() -> None:
    assert burned_by({}) == ()
    assert burned_by({1: None, 2: None, 3: None}) == ()


def test_v2_a_tie_at_the_top_burns_all_tied_in_seat_order() -> None:
    # A-T1: v(1)=2, v(3)=2, v(4)=1.
    assert burned_by({1: 4, 2: 3, 3: 1, 4: 3, 5: 1}) == (1, 3)


def test_a3_equal_counts_below_the_top_do_not_burn() -> None:
    # v(1)=3; v(2)=1 and v(3)=1 are equal but not the maximum.
    assert burned_by({1: 2, 2: 1, 3: 1, 4: 1, 5: 3}) == (1,)
    # v(1)=3; v(2)=2 and v(3)=2 tie below the top.
    assert burned_by({1: 2, 2: 1, 3: 1, 4: 1, 5: 2, 6: 3, 7: 3}) == (1,)


def test_a4_all_one_overrides_the_tie_rule() -> None:
    # Everyone is "tied" at one vote: V1 wins over V2, nobody burns.
    assert burned_by({1: 3, 2: 1, 3: 2}) == ()


def test_missing_votes_do_not_count() -> None:
    assert burned_by({1: 2, 2: None, 3: 2}) == (2,)
    assert burned_by({1: 2, 2: 1, 3: None, 4: 1, 5: 2}) == (1, 2)


def test_a_three_way_tie() -> None:
    assert burned_by({1: 2, 2: 1, 3: 4, 4: 3, 5: 1, 6: 2, 7: 3, 8: 4}) == (1, 2, 3, 4)


# --- winner_of (docs/games/onenight.md §1.7) --------------------------------------------------


@pytest.mark.parametrize(
    ("final", "burned", "winner"),
    [
        # W any, B ∩ W ≠ ∅: the inquisition wins, even if inquisitors burned too.
        ((W, W, HI, S, I_), (1,), INQUISITION),
        ((W, W, HI, S, I_), (2, 5), INQUISITION),
        ((W, W, HI, S, I_), (1, 2), INQUISITION),
        # W ≠ ∅, B ∩ W = ∅ (including B = ∅): the werewolves win.
        ((S, W, HI, W, I_), (1, 3), WEREWOLVES),
        ((W, W, HI, S, I_), (), WEREWOLVES),
        ((HI, S, W), (1,), WEREWOLVES),
        # W = ∅, B = ∅: the inquisition wins (peace).
        ((HI, S, I_, I_, I_), (), INQUISITION),
        # W = ∅, B ≠ ∅: nobody wins.
        ((HI, S, I_, I_, I_), (1, 3), NOBODY_WINS),
        ((HI, S, I_), (2,), NOBODY_WINS),
    ],
)
def test_win_table(final: Sequence[str], burned: Sequence[int], winner: str) -> None:
    assert winner_of(final, burned) == winner


def test_the_final_card_decides_not_the_dealt_one() -> None:
    # A-T1: the spirit (4) took the werewolf card of 1; 1 and 3 burn.
    assert winner_of((S, W, HI, W, I_), (1, 3)) == WEREWOLVES
    # A-T8: the spirit (3) took the werewolf card of 1; 3 burns.
    assert winner_of((S, HI, W), (3,)) == INQUISITION


@pytest.mark.parametrize(
    ("winner", "wolves_among_players", "line"),
    [
        (INQUISITION, True, "onenight.win_burned_wolf"),
        (INQUISITION, False, "onenight.win_peace"),
        (WEREWOLVES, True, "onenight.win_werewolves"),
        (NOBODY_WINS, False, "onenight.win_nobody"),
    ],
)
def test_each_row_has_its_line(winner: str, wolves_among_players: bool, line: str) -> None:
    assert win_line(winner, wolves_among_players) == line


# --- switches (docs/rules.md §5) --------------------------------------------------------------


def test_default_switches() -> None:
    assert DEFAULT.center_cards == 3
    assert DEFAULT.seer_center_count == 2
    assert DEFAULT.lone_wolf_peek is False
    assert DEFAULT.allow_self_vote is False
    assert DEFAULT.discussion_s == 300
    assert DEFAULT.window_s == 10


def test_seer_may_not_look_at_more_cards_than_the_centre_holds() -> None:
    with pytest.raises(ConfigError) as caught:
        switches(center_cards=2, seer_center_count=3)
    message = str(caught.value)
    assert message.startswith("options: ")
    assert "seer_center_count 3 is more than center_cards 2" in message
    assert switches(center_cards=2, seer_center_count=2).center_cards == 2


def test_switches_are_frozen() -> None:
    with pytest.raises(ValueError, match="frozen"):
        DEFAULT.center_cards = 4  # type: ignore[misc]


# --- compositions (docs/games/onenight.md §1.2) -----------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_default_deck(players: int) -> None:
    composition = VARIANT.composition(players, DEFAULT)
    assert dict(composition.counts) == {W: 2, HI: 1, S: 1, I_: players - 1}
    assert composition.center == 3
    assert len(composition.deck()) == players + 3


def test_more_centre_cards_make_more_inquisitors() -> None:
    composition = VARIANT.composition(5, switches(center_cards=5))
    assert dict(composition.counts) == {W: 2, HI: 1, S: 1, I_: 6}
    assert composition.center == 5


def test_unknown_role_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        VARIANT.composition(5, switches(roles="vampire=1"))
    for role in (W, HI, S, I_):
        assert role in str(caught.value)


# --- deals ------------------------------------------------------------------------------------

A_T1 = Deal((W, W, HI, S, I_), (I_, I_, I_))


def test_a_default_deal_is_valid() -> None:
    VARIANT.validate_deal(A_T1, DEFAULT)
    VARIANT.validate_deal(Deal((HI, S, I_, I_, I_), (W, W, I_)), DEFAULT)
    VARIANT.validate_deal(Deal((W, HI, S), (W, I_, I_)), DEFAULT)


def test_an_unknown_role_names_its_seat() -> None:
    with pytest.raises(ConfigError, match=r"deal\.3: unknown role 'vampire'"):
        VARIANT.validate_deal(Deal((W, W, "vampire", S, I_), (I_, I_, I_)), DEFAULT)


def test_an_unknown_role_in_the_centre_names_the_card() -> None:
    with pytest.raises(ConfigError, match=r"deal\.center\[2\]: unknown role 'seer'"):
        VARIANT.validate_deal(Deal((W, W, HI, S, I_), (I_, "seer", I_)), DEFAULT)


@pytest.mark.parametrize("center", [(I_, I_), (I_, I_, I_, I_), ()])
def test_the_centre_must_hold_center_cards(center: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError, match=r"deal\.center: .* 3 centre cards"):
        VARIANT.validate_deal(Deal((W, W, HI, S, I_), center), DEFAULT)


def test_wrong_counts_name_the_role_and_its_seats() -> None:
    with pytest.raises(ConfigError) as caught:
        VARIANT.validate_deal(Deal((W, W, W, S, I_), (I_, I_, I_)), DEFAULT)
    message = str(caught.value)
    assert "'werewolf'" in message
    assert "seats 1, 2, 3" in message
    assert "has 2" in message


def test_a_role_only_in_the_centre_is_named_too() -> None:
    with pytest.raises(ConfigError) as caught:
        VARIANT.validate_deal(Deal((I_, I_, HI, S, I_), (W, W, W)), DEFAULT)
    assert "'werewolf'" in str(caught.value)
    assert "centre" in str(caught.value)


def test_a_deal_follows_the_roles_override() -> None:
    sw = switches(roles="werewolf=1")
    VARIANT.validate_deal(Deal((W, HI, S, I_, I_), (I_, I_, I_)), sw)
    with pytest.raises(ConfigError, match="'werewolf'"):
        VARIANT.validate_deal(A_T1, sw)


# --- prompts ----------------------------------------------------------------------------------


def test_every_option_of_every_prompt_is_accepted() -> None:
    for sw in (DEFAULT, switches(seer_center_count=1), switches(allow_self_vote=True)):
        for seat in (1, 3, 5):
            prompts = (
                high_inquisitor_prompt(seat, 5, sw),
                spirit_prompt(seat, 5),
                lone_wolf_prompt(seat, 5, sw),
                vote_prompt(seat, 5, sw),
            )
            for prompt in prompts:
                assert prompt.options
                for option in prompt.options:
                    prompt.accept(option)


def test_high_inquisitor_looks_at_another_player() -> None:
    prompt = high_inquisitor_prompt(3, 5, DEFAULT)
    assert prompt.id == "n1.high_inquisitor"
    assert prompt.seats == (3,)
    assert prompt.default == Nobody()
    assert prompt.accept("2") == SeatAnswer(2)
    assert prompt.accept("none") == Nobody()
    error = rejected(prompt, "3")
    assert error.key == "reason.self"
    assert "3" not in prompt.options


def test_high_inquisitor_centre_cards() -> None:
    prompt = high_inquisitor_prompt(3, 5, DEFAULT)
    assert prompt.accept("center 1 3") == CenterAnswer((1, 3))
    assert rejected(prompt, "center 1 2 3").key == "reason.center_count"
    assert rejected(prompt, "center 2").key == "reason.center_count"
    assert rejected(prompt, "center 2 2").key == "reason.center_twice"
    error = rejected(prompt, "center 1 4")
    assert error.key == "reason.no_such_center"
    assert str(error) == "centre card 4 does not exist: the centre has cards 1–3"
    assert error.params == {"card": 4, "last": 3}
    assert rejected(prompt, "center 0 1").key == "reason.no_such_center"
    with pytest.raises(BadAnswerText):
        prompt.accept("center")
    assert {o for o in prompt.options if o.startswith("center")} == {
        "center 1 2",
        "center 1 3",
        "center 2 3",
    }


def test_seer_center_count_changes_the_centre_choice() -> None:
    prompt = high_inquisitor_prompt(1, 4, switches(seer_center_count=1))
    assert prompt.accept("center 3") == CenterAnswer((3,))
    assert rejected(prompt, "center 1 2").key == "reason.center_count"
    big = high_inquisitor_prompt(1, 4, switches(center_cards=5, seer_center_count=3))
    assert big.accept("center 5 1 3") == CenterAnswer((5, 1, 3))
    assert rejected(big, "center 6 1 3").key == "reason.no_such_center"


def test_high_inquisitor_seat_off_the_table() -> None:
    with pytest.raises(BadAnswerText, match="seat 6 does not exist: this table has seats 1–5"):
        high_inquisitor_prompt(3, 5, DEFAULT).accept("6")


def test_spirit_swaps_with_another_player_only() -> None:
    prompt = spirit_prompt(4, 5)
    assert prompt.id == "n1.spirit"
    assert prompt.accept("1") == SeatAnswer(1)
    assert prompt.accept("none") == Nobody()
    assert rejected(prompt, "4").key == "reason.self"
    with pytest.raises(BadAnswerText):
        prompt.accept("center 1 2")  # the spirit never takes a centre card
    assert prompt.options == ("1", "2", "3", "5", "none")


def test_vote_for_yourself_is_forbidden_by_default() -> None:
    prompt = vote_prompt(2, 5, DEFAULT)
    assert prompt.id == "d1.vote.2"
    assert prompt.accept("3") == SeatAnswer(3)
    error = rejected(prompt, "2")
    assert error.key == "reason.self_vote"
    assert "2" not in prompt.options
    with pytest.raises(BadAnswerText):
        prompt.accept("none")  # voting is mandatory; silence is the only way not to vote
    assert prompt.default == Nobody()


def test_vote_for_yourself_with_allow_self_vote() -> None:
    prompt = vote_prompt(2, 5, switches(allow_self_vote=True))
    assert prompt.accept("2") == SeatAnswer(2)
    assert prompt.options == ("1", "2", "3", "4", "5")


def test_lone_wolf_prompt_takes_one_centre_card() -> None:
    prompt = lone_wolf_prompt(1, 5, DEFAULT)
    assert prompt.id == "n1.werewolves"
    assert prompt.accept("center 2") == CenterAnswer((2,))
    assert prompt.accept("none") == Nobody()
    assert rejected(prompt, "center 1 2").key == "reason.center_count"
    assert rejected(prompt, "center 4").key == "reason.no_such_center"
    with pytest.raises(BadAnswerText):
        prompt.accept("2")


# --- the lone wolf peek switch (docs/games/onenight.md §1.4, A-9) -----------------------------


def play(deal: Deal, answers: Mapping[str, str], **options: Any) -> list[Step]:
    """All steps of one game; each prompt gets its answer from ``answers`` or its default."""
    return step_through(VARIANT, deal, switches(**options), answers)[0]


def werewolf_window(steps: list[Step]) -> list[Step]:
    start = next(
        i for i, s in enumerate(steps) if isinstance(s, Wake) and s.window == "n1.werewolves"
    )
    end = next(i for i in range(start, len(steps)) if isinstance(steps[i], Sleep))
    return steps[start : end + 1]


LONE = Deal((W, HI, S, I_, I_), (I_, W, I_))


def test_a_lone_wolf_peeks_when_the_switch_is_on() -> None:
    window = werewolf_window(play(LONE, {"n1.werewolves": "center 2"}, lone_wolf_peek=True))
    asks = [s for s in window if isinstance(s, Ask)]
    assert [a.prompt.id for a in asks] == ["n1.werewolves"]
    assert asks[0].prompt.seats == (1,)
    shows = [s for s in window if isinstance(s, Show)]
    assert shows == [
        Show(Tag(night(1), "werewolves"), (1,), Secret.seats(())),
        Show(Tag(night(1), "werewolves"), (1,), Secret.roles(W)),
    ]
    assert shows[0].secret.shown == "seats"


def test_a_lone_wolf_may_decline_the_peek() -> None:
    window = werewolf_window(play(LONE, {}, lone_wolf_peek=True))
    assert [s.secret for s in window if isinstance(s, Show)] == [Secret.seats(())]


def test_no_peek_without_the_switch() -> None:
    window = werewolf_window(play(LONE, {"n1.werewolves": "center 2"}))
    assert not [s for s in window if isinstance(s, Ask)]
    assert [s.secret for s in window if isinstance(s, Show)] == [Secret.seats(())]


def test_two_wolves_get_no_peek_prompt() -> None:
    window = werewolf_window(play(A_T1, {"n1.werewolves": "center 2"}, lone_wolf_peek=True))
    assert not [s for s in window if isinstance(s, Ask)]
    assert [s for s in window if isinstance(s, Show)] == [
        Show(Tag(night(1), "werewolves"), (1, 2), Secret.seats((1, 2)))
    ]


def test_no_wolf_among_players_still_opens_the_window() -> None:
    window = werewolf_window(play(Deal((HI, S, I_, I_, I_), (W, W, I_)), {}, lone_wolf_peek=True))
    assert isinstance(window[0], Wake)
    assert window[0].seats == ()
    assert window[0].seconds == 10
    assert not [s for s in window if isinstance(s, Ask | Show)]
