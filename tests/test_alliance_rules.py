"""«Альянс дедукции» rules tested directly (docs/games/alliance.md).

The plain resolution functions (night resolution, weighted tally, win check,
speaking orders), every prompt's check, the compositions and switches, and the
script's behaviour under each switch. Acceptance tests D-T1 … D-T10 live in
tests/scenarios/; the orders they cannot state in JSON are checked here.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from narrator.rules.alliance import CUPID
from narrator.rules.alliance import EXILED
from narrator.rules.alliance import GOOD
from narrator.rules.alliance import GUARD
from narrator.rules.alliance import HUNTER
from narrator.rules.alliance import LOVE
from narrator.rules.alliance import LOVERS
from narrator.rules.alliance import POISON
from narrator.rules.alliance import SEER
from narrator.rules.alliance import VILLAGER
from narrator.rules.alliance import WEREWOLF
from narrator.rules.alliance import WEREWOLVES
from narrator.rules.alliance import WITCH
from narrator.rules.alliance import WOLVES
from narrator.rules.alliance import AllianceSwitches
from narrator.rules.alliance import around
from narrator.rules.alliance import badge_prompt
from narrator.rules.alliance import candidates_prompt
from narrator.rules.alliance import choice_vote_prompt
from narrator.rules.alliance import cupid_prompt
from narrator.rules.alliance import default_counts
from narrator.rules.alliance import exile_tally
from narrator.rules.alliance import explode_prompt
from narrator.rules.alliance import guard_prompt
from narrator.rules.alliance import hunter_prompt
from narrator.rules.alliance import is_cross_team
from narrator.rules.alliance import leaders
from narrator.rules.alliance import may_shoot
from narrator.rules.alliance import night_deaths
from narrator.rules.alliance import no_shot_prompt
from narrator.rules.alliance import order_prompt
from narrator.rules.alliance import seer_prompt
from narrator.rules.alliance import speaking_order
from narrator.rules.alliance import top_of
from narrator.rules.alliance import white_wolf_prompt
from narrator.rules.alliance import winner_of
from narrator.rules.alliance import witch_poison_prompt
from narrator.rules.alliance import witch_save_prompt
from narrator.rules.alliance import withdraw_prompt
from narrator.rules.alliance import wolves_prompt
from narrator.rules.answers import Abstain
from narrator.rules.answers import Destroy
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.answers import YesNo
from narrator.rules.chance import Chance
from narrator.rules.core import Ask
from narrator.rules.core import Deal
from narrator.rules.core import Eliminate
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.errors import BadAnswerText
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NotNow
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.registry import check_players
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.scenario import ScenarioFile
from narrator.scenario import load_scenario
from narrator.scenario import run_scenario
from narrator.simulate.driver import drawn
from tests.harness import rejected
from tests.support import switches_maker

VARIANT = get_variant("alliance")
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
W, S, WI, H, G, V, C = WEREWOLF, SEER, WITCH, HUNTER, GUARD, VILLAGER, CUPID
# The base deal of docs/games/alliance.md §4.15: wolves 1, 5, 8, 11; seer 2; witch 3;
# hunter 4; guard 6; villagers.
BASE = (W, S, WI, H, W, G, V, W, V, V, W, V)
WITH_CUPID = (*BASE[:11], C)
ALL = tuple(range(1, 13))


switches = switches_maker(VARIANT, AllianceSwitches)


def without(*seats: int) -> tuple[int, ...]:
    return tuple(s for s in ALL if s not in seats)


def run(
    answers: Mapping[str, Any], deal: tuple[str, ...] = BASE, **top: Any
) -> tuple[dict[str, Any], list[str]]:
    seats = {str(seat): role for seat, role in enumerate(deal, start=1)}
    scenario = ScenarioFile.model_validate(
        {"game": "alliance", "deal": seats, "answers": dict(answers), **top}
    )
    return run_scenario(scenario)


def gone(result: Mapping[str, Any]) -> list[tuple[int, str, str]]:
    return [(e["seat"], e["phase"], e["cause"]) for e in result["eliminated"]]


# --- night resolution (4.5) -------------------------------------------------------------------


def test_an_unprotected_victim_dies() -> None:
    assert night_deaths(7, None, False, None) == ((7, WOLVES),)


def test_the_guard_alone_or_the_antidote_alone_saves() -> None:
    assert night_deaths(7, 7, False, None) == ()
    assert night_deaths(7, 3, True, None) == ()


def test_guard_and_antidote_together_kill() -> None:
    assert night_deaths(7, 7, True, None) == ((7, WOLVES),)  # D-T1


def test_poison_beats_everything() -> None:
    assert night_deaths(None, 10, False, 10) == ((10, POISON),)
    assert night_deaths(12, 10, False, 10) == ((10, POISON), (12, WOLVES))  # D-T2
    assert night_deaths(7, 7, False, 7) == ((7, POISON),)  # attacked + guarded + poisoned


def test_attacked_and_poisoned_dies_once_of_poison() -> None:
    assert night_deaths(7, None, False, 7) == ((7, POISON),)


def test_an_empty_knife_and_no_poison_is_a_peaceful_night() -> None:
    assert night_deaths(None, 4, False, None) == ()


def test_a_lover_dies_of_love_the_same_night() -> None:
    assert night_deaths(None, None, False, 8, (4, 8)) == ((4, LOVE), (8, POISON))  # D-T10
    assert night_deaths(4, None, False, None, (4, 8)) == ((4, WOLVES), (8, LOVE))
    assert night_deaths(4, None, False, 8, (4, 8)) == ((4, WOLVES), (8, POISON))
    assert night_deaths(7, None, False, None, (4, 8)) == ((7, WOLVES),)


# --- win check (4.12) ---------------------------------------------------------------------------


def test_nobody_wins_at_the_start() -> None:
    assert winner_of(BASE, ALL) is None


def test_good_wins_with_no_werewolf_alive() -> None:
    assert winner_of(BASE, without(1, 5, 8, 11)) == GOOD


def test_werewolves_win_when_all_villagers_are_dead() -> None:
    assert winner_of(BASE, without(7, 9, 10, 12)) == WEREWOLVES  # D-T2


def test_werewolves_win_when_all_special_roles_are_dead() -> None:
    assert winner_of(BASE, without(2, 3, 4, 6)) == WEREWOLVES


def test_one_of_each_class_alive_plays_on() -> None:
    assert winner_of(BASE, (1, 2, 7)) is None


def test_simultaneous_fulfilment_goes_to_good() -> None:
    # The poison kills the last wolf while the wolves kill the last villager.
    assert winner_of(BASE, (2, 3, 4, 6)) == GOOD


def test_good_wins_even_when_everybody_is_dead() -> None:
    assert winner_of(BASE, ()) == GOOD


def test_cross_team_lovers() -> None:
    lovers = (4, 8)
    assert is_cross_team(WITH_CUPID, lovers)
    assert not is_cross_team(WITH_CUPID, (4, 7))
    assert not is_cross_team(WITH_CUPID, (1, 8))
    assert not is_cross_team(WITH_CUPID, None)
    # The living pair blocks both sides: no wolf but the lover, villagers all dead.
    assert winner_of(WITH_CUPID, (2, 3, 4, 8), lovers) is None
    assert winner_of(WITH_CUPID, (4, 8, 2), lovers) is None
    # Only «Влюблённые» (both lovers and Cupid) left.
    assert winner_of(WITH_CUPID, (4, 8, 12), lovers) == LOVERS
    assert winner_of(WITH_CUPID, (4, 8), lovers) == LOVERS
    # The pair dead: the usual sides, without the lovers and Cupid.
    assert winner_of(WITH_CUPID, (1, 2, 7), lovers) is None
    assert winner_of(WITH_CUPID, (2, 3, 6, 7), lovers) == GOOD


def test_the_good_lover_does_not_count_as_a_special_role() -> None:
    # Seer, witch, guard dead; the hunter lives only as a lover whose pair is dead? No:
    # with the pair alive nobody wins; with it dead the specials are all dead.
    assert winner_of(WITH_CUPID, (1, 7), (4, 8)) == WEREWOLVES
    # Same-team lovers stay in their teams: the hunter lover counts as a special role.
    assert winner_of(WITH_CUPID, (1, 4, 7), (4, 7)) is None


def test_a_class_absent_from_the_start_is_not_all_dead() -> None:
    no_villagers = (W, S, WI, H, G, S, WI, H, W)
    assert winner_of(no_villagers, (1, 2)) is None


# --- tallies and orders (4.6, 4.8, 4.10) ------------------------------------------------------


def test_the_sheriff_weighs_one_and_a_half() -> None:
    votes = {2: 5, 7: 5, 9: 8, 10: 8, 12: 8, 1: None}  # D-T7
    assert exile_tally(votes, 2) == {5: 2.5, 8: 3.0}
    assert leaders(exile_tally(votes, 2)) == (8,)
    votes = {2: 5, 7: 5, 9: 5, 10: 8, 12: 8, 6: 8}  # D-T7 alternative
    assert leaders(exile_tally(votes, 2)) == (5,)
    assert leaders(exile_tally(votes, None)) == (5, 8)


def test_no_votes_no_leaders_but_an_all_zero_field_is_all_tied() -> None:
    assert leaders(exile_tally({1: None, 2: None}, 1)) == ()
    assert top_of({2: 0.0, 9: 0.0}) == (2, 9)  # D-16
    assert top_of({2: 5.0, 9: 4.0}) == (2,)


def test_around_the_table() -> None:
    assert around(5, 1, (2, 5, 9), 12) == (5, 9, 2)
    assert around(5, -1, (2, 5, 9), 12) == (5, 2, 9)
    assert around(12, 1, ALL, 12)[:3] == (12, 1, 2)


def test_speaking_order_next_to_the_anchor_with_the_sheriff_last() -> None:
    order = speaking_order(12, 1, without(12), 12, 6)  # D-T9a
    assert order == (1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 6)
    assert speaking_order(6, -1, without(12), 12, 6) == (5, 4, 3, 2, 1, 11, 10, 9, 8, 7, 6)
    assert speaking_order(3, 1, (1, 3, 4), 12, None, anchor_speaks_first=True) == (3, 4, 1)
    assert speaking_order(3, 1, (1, 3, 4), 12, None) == (4, 1, 3)


def test_the_hunter_shoots_when_killed_by_wolves_or_exiled() -> None:
    assert may_shoot(WOLVES, False) and may_shoot(EXILED, False)
    assert not may_shoot(POISON, False) and not may_shoot(POISON, True)
    assert not may_shoot(LOVE, False) and may_shoot(LOVE, True)


# --- prompts: bad input is rejected with a reason ---------------------------------------------


def test_the_guard_cannot_repeat_last_nights_target() -> None:
    prompt = guard_prompt(3, 6, ALL, 9, 12)
    error = rejected(prompt, "9")
    assert error.key == "reason.repeat_protection" and error.params == {"seat": 9}
    assert prompt.accept("none") == Nobody()
    assert prompt.accept("6") == SeatAnswer(6)  # himself
    assert "9" not in prompt.options


def test_a_skip_clears_the_guards_ban() -> None:
    assert guard_prompt(4, 6, ALL, None, 12).accept("9") == SeatAnswer(9)


def test_the_guard_cannot_protect_a_dead_seat() -> None:
    assert rejected(guard_prompt(2, 6, without(7), None, 12), "7").key == "reason.dead"


def test_the_wolves_may_knife_a_wolf_or_nobody_but_not_the_dead() -> None:
    prompt = wolves_prompt(1, (1, 5, 8, 11), without(7), 12)
    assert prompt.accept("5") == SeatAnswer(5)
    assert prompt.accept("none") == Nobody()
    assert rejected(prompt, "7").key == "reason.dead"
    assert prompt.seats == (1, 5, 8, 11)


def test_the_witch_has_one_antidote() -> None:
    error = rejected(witch_save_prompt(2, 3, 7, False, "night1", 12), "yes")
    assert error.key == "reason.antidote_used"
    assert witch_save_prompt(2, 3, 7, True, "night1", 12).accept("yes") == YesNo(True)


def test_the_witch_saves_herself_on_night_one_only() -> None:
    assert witch_save_prompt(1, 3, 3, True, "night1", 12).accept("yes") == YesNo(True)
    assert rejected(witch_save_prompt(2, 3, 3, True, "night1", 12), "yes").key == (
        "reason.self_save"
    )
    assert rejected(witch_save_prompt(1, 3, 3, True, "never", 12), "yes").key == (
        "reason.self_save"
    )
    assert witch_save_prompt(5, 3, 3, True, "always", 12).accept("yes") == YesNo(True)
    assert witch_save_prompt(2, 3, 3, True, "night1", 12).accept("no") == YesNo(False)


def test_the_antidote_needs_a_victim() -> None:
    assert rejected(witch_save_prompt(1, 3, None, True, "night1", 12), "yes").key == (
        "reason.no_victim"
    )


def test_the_witch_cannot_use_both_potions_in_one_night() -> None:
    prompt = witch_poison_prompt(1, 3, ALL, True, True, False, 12)
    assert rejected(prompt, "1").key == "reason.one_potion"
    assert prompt.accept("none") == Nobody()
    assert prompt.options == ("none",)
    both = witch_poison_prompt(1, 3, ALL, True, True, True, 12)
    assert both.accept("1") == SeatAnswer(1)


def test_the_witch_cannot_poison_herself_the_dead_or_twice() -> None:
    prompt = witch_poison_prompt(2, 3, without(7), True, False, False, 12)
    assert rejected(prompt, "3").key == "reason.self"
    assert rejected(prompt, "7").key == "reason.dead"
    assert "3" not in prompt.options
    spent = witch_poison_prompt(3, 3, ALL, False, False, False, 12)
    assert rejected(spent, "1").key == "reason.poison_used"


def test_the_seer_checks_another_living_player() -> None:
    prompt = seer_prompt(2, 2, without(7), 12)
    assert rejected(prompt, "2").key == "reason.self"
    assert rejected(prompt, "7").key == "reason.dead"
    with pytest.raises(BadAnswerText):
        prompt.accept("none")


def test_cupid_names_two_different_players() -> None:
    prompt = cupid_prompt(12, 12, (3, 9))
    assert prompt.accept("4 8") == SeatsAnswer((4, 8))
    assert prompt.accept("12 4") == SeatsAnswer((12, 4))  # himself
    for text in ("4 4", "4", "4 8 9"):
        assert rejected(prompt, text).key == "reason.two_seats"
    assert prompt.default == SeatsAnswer((3, 9))


def test_an_explosion_by_a_non_werewolf_is_rejected() -> None:
    prompt = explode_prompt(Tag(day(1), "election.explode"), 2, (1, 5, 8, 11), 12)
    error = rejected(prompt, "7 2")
    assert error.key == "reason.not_werewolf" and not isinstance(error, NotNow)
    assert prompt.accept("8 2") == ExplodeAnswer(8, 2)
    assert prompt.seats == ()  # anyone may try: the prompt names nobody


def test_an_explosion_for_another_speech_is_not_now() -> None:
    prompt = explode_prompt(Tag(day(1), "speeches.explode"), 2, (1, 5, 8, 11), 12)
    with pytest.raises(NotNow):
        prompt.accept("8 9")
    with pytest.raises(NotNow):
        prompt.accept("7 9")  # judged at the speech it names


def test_a_sheriff_candidate_does_not_vote() -> None:
    voters = (1, 3, 4, 6, 7, 8, 10, 11, 12)
    prompt = choice_vote_prompt(
        Tag(day(1), "sheriff_vote", 5), 5, voters, (2, 9), 12, outside="candidate"
    )
    error = rejected(prompt, "2")
    assert error.key == "reason.no_vote" and error.params == {"seat": 5}
    assert prompt.options == ("abstain",)
    voter = choice_vote_prompt(
        Tag(day(1), "sheriff_vote", 1), 1, voters, (2, 9), 12, outside="candidate"
    )
    assert rejected(voter, "5").key == "reason.not_candidate"
    assert voter.accept("abstain") == Abstain()
    assert voter.accept("9") == SeatAnswer(9)


def test_a_pk_voter_on_the_stand_is_rejected() -> None:
    stand = (5, 8)
    voters = without(5, 8)
    prompt = choice_vote_prompt(Tag(day(1), "pk_vote", 5), 5, voters, stand, 12, outside="revote")
    assert rejected(prompt, "8").key == "reason.no_vote"
    voter = choice_vote_prompt(Tag(day(1), "pk_vote", 9), 9, voters, stand, 12, outside="revote")
    error = rejected(voter, "10")
    assert error.key == "reason.not_in_revote" and error.params == {"seat": 10, "seats": "5, 8"}
    assert voter.accept("5") == SeatAnswer(5)


def test_the_exile_vote_forbids_oneself_and_the_dead() -> None:
    living = without(7)
    prompt = choice_vote_prompt(
        Tag(day(2), "vote", 6), 6, living, living, 12, outside="living", allow_self=False
    )
    assert rejected(prompt, "6").key == "reason.self_vote"
    assert rejected(prompt, "7").key == "reason.dead"
    free = choice_vote_prompt(Tag(day(2), "vote", 6), 6, living, living, 12, outside="living")
    assert free.accept("6") == SeatAnswer(6)


def test_candidates_and_withdrawals() -> None:
    prompt = candidates_prompt(1, ALL, 12)
    assert prompt.accept("2 5 9") == SeatsAnswer((2, 5, 9))
    assert prompt.accept("none") == Nobody()
    assert rejected(prompt, "2 2").key == "reason.twice"
    assert rejected(prompt, "2 none").key == "reason.not_an_answer"
    assert rejected(candidates_prompt(2, without(7), 12), "7").key == "reason.dead"
    withdraw = withdraw_prompt(1, (2, 5, 9), 12)
    assert withdraw.accept("5") == SeatsAnswer((5,))
    assert rejected(withdraw, "3").key == "reason.not_candidate"


def test_the_badge_goes_to_a_living_player_or_is_destroyed() -> None:
    prompt = badge_prompt(1, 12, without(12), 12)
    assert prompt.accept("6") == SeatAnswer(6)
    assert prompt.accept("destroy") == Destroy()
    assert prompt.accept("none") == Nobody()  # keypad 0: destroyed
    assert rejected(prompt, "12").key == "reason.dead"
    assert prompt.default == Destroy()


def test_the_hunter_shoots_another_living_player() -> None:
    prompt = hunter_prompt(1, 4, without(4, 7), 12)
    assert rejected(prompt, "4").key == "reason.self"
    assert rejected(prompt, "7").key == "reason.dead"
    assert prompt.accept("5") == SeatAnswer(5)
    pause = no_shot_prompt(1, 12)
    assert rejected(pause, "5").key == "reason.cannot_shoot"
    assert pause.accept("none") == Nobody()
    assert pause.accepts == prompt.accepts  # the same input field either way


def test_the_white_wolf_king_takes_another_living_player() -> None:
    prompt = white_wolf_prompt(2, 8, without(8, 7), 12)
    assert rejected(prompt, "8").key == "reason.self"
    assert rejected(prompt, "7").key == "reason.dead"
    assert prompt.accept("2") == SeatAnswer(2)
    assert prompt.accept("none") == Nobody()


def test_the_speech_order_starts_next_to_the_sheriff_or_a_dead_player() -> None:
    prompt = order_prompt(1, 6, (6, 12), 12)
    assert prompt.accept("12 +") == OrderAnswer(12, 1)
    assert prompt.accept("6 -") == OrderAnswer(6, -1)
    assert rejected(prompt, "5 +").key == "reason.order_anchor"
    assert prompt.default == OrderAnswer(6, 1)


@pytest.mark.parametrize(
    "prompt",
    [
        guard_prompt(2, 6, without(7), 9, 12),
        wolves_prompt(2, (1, 5), without(7), 12),
        witch_save_prompt(1, 3, 7, True, "night1", 12),
        witch_poison_prompt(1, 3, ALL, True, False, False, 12),
        seer_prompt(1, 2, ALL, 12),
        cupid_prompt(12, 12, (1, 2)),
        candidates_prompt(1, ALL, 12),
        withdraw_prompt(1, (2, 5, 9), 12),
        choice_vote_prompt(
            Tag(day(1), "vote", 1), 1, ALL, ALL, 12, outside="living", allow_self=False
        ),
        explode_prompt(Tag(day(1), "speeches.explode"), 3, (1, 5), 12),
        badge_prompt(1, 12, without(12), 12),
        hunter_prompt(1, 4, without(4), 12),
        no_shot_prompt(1, 12),
        order_prompt(1, 6, (6, 12), 12),
    ],
    ids=lambda p: p.id,
)
def test_every_listed_option_is_accepted(prompt: Prompt) -> None:
    assert prompt.options
    for text in prompt.options:
        prompt.accept(text)
    prompt.check(prompt.default)


# --- compositions and switches (4.2, section 5) ----------------------------------------------


@pytest.mark.parametrize(
    ("players", "wolves", "villagers", "specials"),
    [
        (9, 3, 3, {S, WI, H}),
        (10, 3, 3, {S, WI, H, G}),
        (11, 3, 4, {S, WI, H, G}),
        (12, 4, 4, {S, WI, H, G}),
    ],
)
def test_the_default_tables(players: int, wolves: int, villagers: int, specials: set[str]) -> None:
    counts = VARIANT.composition(players, switches()).counts
    assert counts[W] == wolves and counts[V] == villagers
    assert {role for role, n in counts.items() if role not in {W, V} and n} == specials
    assert sum(counts.values()) == players


def test_cupid_takes_a_villagers_place() -> None:
    counts = VARIANT.composition(12, switches(cupid_enabled=True)).counts
    assert counts[C] == 1 and counts[V] == 3 and counts[W] == 4
    assert default_counts(9, cupid=True)[V] == 2


@pytest.mark.parametrize("players", [8, 13])
def test_other_table_sizes_are_not_supported(players: int) -> None:
    with pytest.raises(ConfigError, match="9–12"):
        check_players(VARIANT, players)
    with pytest.raises(ConfigError):
        VARIANT.composition(players, switches())


def test_a_full_roles_override() -> None:
    full = "werewolf=3,seer=1,witch=1,hunter=1,guard=1,villager=5"
    assert VARIANT.composition(12, switches(roles=full)).counts[V] == 5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"roles": "vampire=2"}, "unknown role"),
        ({"roles": "cupid=1"}, "contradicts cupid_enabled"),
        ({"roles": "cupid=0", "cupid_enabled": True}, "contradicts cupid_enabled"),
        ({"witch_self_save": "sometimes"}, "witch_self_save"),
        ({"speech_s": 0}, "speech_s"),
        ({"unvoted_to_last": True}, "unknown option"),
    ],
)
def test_bad_switches(options: Mapping[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_switches(VARIANT, options)


def test_default_switches() -> None:
    sw = switches()
    assert sw.witch_self_save == "night1"
    assert sw.call_dead_roles and sw.hunter_status_call
    assert not (
        sw.allow_self_vote
        or sw.witch_both_same_night
        or sw.witch_sees_victim_after_antidote
        or sw.hunter_shoots_on_love_death
        or sw.white_wolf_king
        or sw.cupid_enabled
    )
    timing = {name for name in AllianceSwitches.model_fields if name.endswith("_s")}
    assert timing >= {"guard_s", "wolves_first_s", "wolves_s", "witch_s", "speech_s"}


def test_deals_are_validated() -> None:
    VARIANT.validate_deal(Deal(BASE), switches())
    VARIANT.validate_deal(Deal(WITH_CUPID), switches(cupid_enabled=True))
    with pytest.raises(ConfigError, match="3 'villager'"):
        VARIANT.validate_deal(Deal(WITH_CUPID), switches())
    with pytest.raises(ConfigError, match="unknown role 'mafia'"):
        VARIANT.validate_deal(Deal((*BASE[:11], "mafia")), switches())
    with pytest.raises(ConfigError, match="'werewolf'"):
        VARIANT.validate_deal(Deal((*BASE[:11], W)), switches())
    with pytest.raises(ConfigError, match="no centre cards"):
        VARIANT.validate_deal(Deal(BASE, (V,)), switches())


# --- the script ---------------------------------------------------------------------------------


def test_d_t1_elects_before_announcing_the_deaths() -> None:
    result, _ = run_scenario(load_scenario(SCENARIOS / "D-T1.toml"))
    spoken: list[str] = result["spoken"]
    elected = spoken.index("Шерифом становится игрок номер 2.")
    assert spoken.index("Кто выдвигается в шерифы — поднимите руку.") < elected
    assert elected < spoken.index("Этой ночью погиб игрок номер 7.")
    assert spoken.count("Заключительное слово шерифа, игрока номер 2.") == 3  # days 1–3


def test_the_result_names_the_living_sheriff_at_the_end() -> None:
    answers = {
        "d1.candidates": "2",
        "n1.wolves": "7",
        "n1.witch_poison": "9",
        "n2.wolves": "10",
        **{f"d2.vote.{v}": "12" for v in (1, 5, 8, 11)},
    }
    result, _ = run(answers)
    assert (result["winner"], result["ended_at"], result["sheriff"]) == (WEREWOLVES, "d2", 2)


def test_d_t6_has_no_election_after_the_badge_burns() -> None:
    result, transcript = run_scenario(load_scenario(SCENARIOS / "D-T6.toml"))
    assert result["spoken"].count("Кто выдвигается в шерифы — поднимите руку.") == 2
    assert not [line for line in transcript if line.startswith("[d3]") and "candidates" in line]
    assert result["sheriff"] is None


def test_d_t9_the_badge() -> None:
    passed, _ = run_scenario(load_scenario(SCENARIOS / "D-T9a.toml"))
    assert "Заключительное слово шерифа, игрока номер 6." in passed["spoken"]
    destroyed, _ = run_scenario(load_scenario(SCENARIOS / "D-T9b.toml"))
    assert not [line for line in destroyed["spoken"] if line.startswith("Заключительное")]
    assert "Шериф, выберите, с кого начинаются выступления." not in destroyed["spoken"]
    first = [line for line in destroyed["spoken"] if line.startswith("Выступления начинаются")]
    assert first in (
        ["Выступления начинаются с игрока номер 1, по возрастанию номеров."],
        ["Выступления начинаются с игрока номер 11, по убыванию номеров."],
    )


def test_the_order_of_the_night() -> None:
    _, transcript = run({}, WITH_CUPID, options={"cupid_enabled": True}, stop_before="d1")
    windows = [line.split()[2].rstrip(":") for line in transcript if " window n" in line]
    assert windows == [
        "n1.cupid",
        "n1.lovers",
        "n1.guard",
        "n1.wolves",
        "n1.witch_save",
        "n1.seer",
        "n1.hunter",
    ]


def test_cupid_picks_at_random_when_he_does_not_answer() -> None:
    result, _ = run({}, WITH_CUPID, options={"cupid_enabled": True}, stop_before="d1", seed=4)
    lovers = [s for s in result["secrets"] if s["prompt"] == "n1.lovers"]
    assert len(lovers) == 2
    (a,), (b,) = lovers[0]["to"], lovers[1]["to"]
    assert a != b and lovers[0]["shown"] == f"seats {b}" and lovers[1]["shown"] == f"seats {a}"


def test_dead_roles_are_called_with_the_same_window() -> None:
    answers = {"n1.wolves": "2", "n1.witch_poison": "6", "n2.seer": "1", "n2.guard": "1"}
    result, transcript = run(answers, stop_before="d2")
    assert gone(result) == [(2, "n1", WOLVES), (6, "n1", POISON)]
    night2 = [w for w in result["windows"] if w["prompt"].startswith("n2.")]
    assert [w["prompt"] for w in night2] == [
        "n2.guard",
        "n2.wolves",
        "n2.witch_save",
        "n2.seer",
        "n2.hunter",
    ]
    assert "[n2] window n2.seer: 15 s, awake []" in transcript
    assert not [line for line in transcript if "n2.seer ←" in line or "n2.guard ←" in line]


def test_dead_roles_are_skipped_without_call_dead_roles() -> None:
    answers = {"n1.wolves": "2", "n1.witch_poison": "6"}
    result, _ = run(answers, options={"call_dead_roles": False}, stop_before="d2")
    night2 = [w["prompt"] for w in result["windows"] if w["prompt"].startswith("n2.")]
    assert night2 == ["n2.wolves", "n2.witch_save", "n2.hunter"]


def test_hunter_status_call_off() -> None:
    result, _ = run({}, options={"hunter_status_call": False}, stop_before="d1")
    assert "n1.hunter" not in [w["prompt"] for w in result["windows"]]


def test_the_witch_sees_the_victim_after_the_antidote_with_the_switch() -> None:
    answers = {"n1.wolves": "7", "n1.witch_save": "yes", "n2.wolves": "9"}
    plain, _ = run(answers, stop_before="d2")
    assert "n2.witch_save" not in [s["prompt"] for s in plain["secrets"]]
    shown, _ = run(answers, options={"witch_sees_victim_after_antidote": True}, stop_before="d2")
    assert {"prompt": "n2.witch_save", "to": [3], "shown": "seats 9"} in shown["secrets"]


def test_both_potions_in_one_night_with_the_switch() -> None:
    answers = {"n1.wolves": "7", "n1.witch_save": "yes", "n1.witch_poison": "1"}
    result, _ = run(answers, options={"witch_both_same_night": True}, stop_before="n2")
    assert gone(result) == [(1, "n1", POISON)]


def test_the_witch_saves_herself_always_with_the_switch() -> None:
    answers = {"n2.wolves": "3", "n2.witch_save": "yes"}
    night1, _ = run(answers, stop_before="n3")
    assert gone(night1) == [(3, "n2", WOLVES)]
    always, _ = run(answers, options={"witch_self_save": "always"}, stop_before="n3")
    assert gone(always) == []


def test_a_hunter_dying_of_love_shoots_with_the_switch() -> None:
    answers = {"n1.cupid": "4 8", "n2.witch_poison": "8", "d2.hunter": "5"}
    options = {"cupid_enabled": True, "hunter_shoots_on_love_death": True}
    result, _ = run(answers, WITH_CUPID, options=options, stop_before="n3")
    assert gone(result) == [(4, "n2", LOVE), (8, "n2", POISON), (5, "d2", "hunter")]


def test_a_poisoned_hunter_is_never_asked() -> None:
    result, transcript = run({"n2.witch_poison": "4", "d2.hunter": "5"}, stop_before="n3")
    assert gone(result) == [(4, "n2", POISON)]
    assert "[d2]   d2.ability: no valid answer, taken as none" in transcript


def test_the_white_wolf_king_takes_one_player_along() -> None:
    answers = {"d1.speeches.explode": ["8 1", "8 2", "8 3", "8 4"], "d1.white_wolf": "2"}
    result, _ = run(answers, options={"white_wolf_king": True}, stop_before="n2")
    assert gone(result) == [(8, "d1", "exploded"), (2, "d1", WOLVES)]
    plain, _ = run(answers, stop_before="n2")
    assert gone(plain) == [(8, "d1", "exploded")]


def test_the_white_wolf_king_may_take_tonights_victim_once() -> None:
    answers = {
        "n1.wolves": "7",
        "d1.candidates": "2 9",
        "d1.election.explode": ["8 2", "8 9"],
        "d1.white_wolf": "7",
    }
    result, _ = run(answers, options={"white_wolf_king": True}, stop_before="n2")
    assert gone(result) == [(8, "d1", "exploded"), (7, "d1", WOLVES)]


def test_an_explosion_during_speeches_ends_the_day_without_a_vote() -> None:
    answers = {"d1.candidates": "2", "d1.speeches.explode": ["5 9"], "d1.vote.1": "7"}
    result, transcript = run(answers, stop_before="n2")
    assert gone(result) == [(5, "d1", "exploded")]
    assert "Голосование на изгнание. Три, два, один — укажите." not in result["spoken"]
    assert not [line for line in transcript if "d1.vote." in line]


def test_an_exploding_sheriff_passes_the_badge() -> None:
    answers = {
        "d1.candidates": "8",
        "d2.speeches.explode": ["8 1", "8 2", "8 3", "8 4", "8 5", "8 6", "8 7"],
        "d2.badge": "6",
    }
    result, _ = run(answers, stop_before="n3")
    assert gone(result) == [(8, "d2", "exploded")]
    assert "Значок шерифа получает игрок номер 6." in result["spoken"]


def test_a_wolf_killed_tonight_cannot_explode_in_the_election() -> None:
    answers = {
        "n1.wolves": "8",
        "d1.candidates": "2 9",
        "d1.election.explode": ["8 9", "8 2"],  # 9 speaks before 2
    }
    result, _ = run(answers, stop_before="n2")
    assert [r["input"] for r in result["rejected"]] == ["8 9", "8 2"]
    assert gone(result) == [(8, "n1", WOLVES)]


def test_an_explosion_in_the_second_election_speeches_postpones_the_election() -> None:
    # A scenario cannot aim at the second speeches (every tied candidate spoke once
    # before), so the script is driven directly: 5 explodes in 9's second speech.
    answers = {"n1.wolves": "7", "d1.candidates": "2 9", "d1.sheriff_vote.1": "2"}
    answers |= {"d1.sheriff_vote.3": "9", "d2.candidates": "3"}
    game = VARIANT.new_game(Deal(BASE), switches(), random.Random(1))
    steps: list[Step] = []
    reply: Any = None
    while not any(isinstance(s, Phase) and s.id == night(3) for s in steps):
        step = game.script.send(reply)
        steps.append(step)
        reply = None
        if isinstance(step, Chance):
            reply = drawn(step, game)
        elif isinstance(step, Timer) and step.id == "d1.candidate_again.9":
            assert step.interrupt is not None
            reply = step.interrupt.accept("5 9")
        elif isinstance(step, Ask | Timer) and step.prompt is not None:
            given = answers.get(step.prompt.id)
            reply = step.prompt.accept(given) if given else step.prompt.default
    said = [s.key for s in steps if isinstance(s, Say)]
    assert said.index("alliance.election_tie") < said.index("alliance.exploded")
    assert "alliance.election_postponed" in said and "alliance.sheriff_elected" in said
    assert [(s.seat, s.cause) for s in steps if isinstance(s, Eliminate)] == [
        (5, "exploded"),
        (7, WOLVES),
    ]


def test_a_single_candidate_is_elected_and_nobody_running_means_no_sheriff() -> None:
    sole, _ = run({"d1.candidates": "5"}, stop_before="n2")
    assert "Шерифом становится игрок номер 5." in sole["spoken"]
    assert "Кандидаты в шерифы: игроки номер 5." not in sole["spoken"]  # no speech, no vote
    everybody, _ = run({"d1.candidates": " ".join(map(str, ALL))}, stop_before="n3")
    assert (
        "Выдвинулись все — голосовать некому. Шерифа в этой игре не будет." in (everybody["spoken"])
    )
    assert everybody["spoken"].count("Кто выдвигается в шерифы — поднимите руку.") == 1
    assert not [line for line in everybody["spoken"] if line.startswith("Заключительное")]


def test_a_second_election_tie_elects_nobody() -> None:
    answers = {"d1.candidates": "2 9", "d1.sheriff_vote.1": "2", "d1.sheriff_vote.3": "9"}
    result, _ = run(answers, stop_before="n2")
    assert "Снова ничья — шериф не выбран." in result["spoken"]
    assert not [line for line in result["spoken"] if line.startswith("Шерифом становится")]


def test_all_withdrawn_means_no_sheriff_and_one_left_is_elected() -> None:
    nobody, _ = run({"d1.candidates": "2 9", "d1.withdraw": "2 9"}, stop_before="n2")
    assert "Кандидатов не осталось. Шерифа в этой игре не будет." in nobody["spoken"]
    one, _ = run({"d1.candidates": "2 9", "d1.withdraw": "9"}, stop_before="n2")
    assert "Шерифом становится игрок номер 2." in one["spoken"]


def test_the_hunters_target_who_is_sheriff_passes_the_badge() -> None:
    answers = {"d1.candidates": "7", "n1.wolves": "4", "d1.hunter": "7", "d1.badge": "2"}
    result, _ = run(answers, stop_before="n2")
    assert gone(result) == [(4, "n1", WOLVES), (7, "d1", "hunter")]
    assert "Значок шерифа получает игрок номер 2." in result["spoken"]
    assert "Последние слова игрока номер 7." in result["spoken"]


def test_a_win_ends_the_game_before_the_last_words() -> None:
    answers = {
        "n1.wolves": "7",
        "n1.witch_poison": "9",
        "n2.wolves": "10",
        **{f"d2.vote.{v}": "12" for v in (1, 5, 8, 11)},
    }
    result, _ = run(answers)
    assert result["winner"] == WEREWOLVES and result["ended_at"] == "d2"
    assert gone(result)[-1] == (12, "d2", EXILED)
    assert "Последние слова игрока номер 12." not in result["spoken"]
    assert "Погибший может использовать свою способность." in result["spoken"]
    assert result["spoken"][-13] == "Погибли все жители (или все особые роли) — победа оборотней!"


def test_the_lovers_win_when_only_they_are_left() -> None:
    # Cupid 12 links 4 and 8; the table empties itself around them over a few days.
    answers: dict[str, Any] = {"n1.cupid": "4 8", "n1.witch_poison": "1"}
    kills = {2: 5, 3: 7, 4: 9, 5: 10, 6: 11}
    exiles = {1: 2, 2: 3, 3: 6, 4: 5, 5: 12}
    for n, seat in kills.items():
        answers[f"n{n}.wolves"] = str(seat)
    for d, seat in exiles.items():
        for voter in ALL:
            answers[f"d{d}.vote.{voter}"] = str(seat) if voter != seat else "abstain"
    result, _ = run(answers, WITH_CUPID, options={"cupid_enabled": True})
    alive = set(ALL) - {e["seat"] for e in result["eliminated"]}
    assert alive == {4, 8}
    assert result["winner"] == LOVERS
