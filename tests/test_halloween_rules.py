"""«Хэллоуинская мафия» rules tested directly: resolution, compositions, prompts, the script."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import pytest

from narrator.rules.answers import Abstain
from narrator.rules.answers import Nobody
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Deal
from narrator.rules.core import Eliminate
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import RoleName
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.errors import BadAnswerText
from narrator.rules.errors import ConfigError
from narrator.rules.halloween import DRAW
from narrator.rules.halloween import HUNTER
from narrator.rules.halloween import VAMPIRE
from narrator.rules.halloween import VAMPIRES
from narrator.rules.halloween import VILLAGER
from narrator.rules.halloween import VILLAGERS
from narrator.rules.halloween import WITCH
from narrator.rules.halloween import HalloweenSwitches
from narrator.rules.halloween import default_counts
from narrator.rules.halloween import first_voter
from narrator.rules.halloween import hunter_prompt
from narrator.rules.halloween import leaders
from narrator.rules.halloween import night_victim
from narrator.rules.halloween import vampires_prompt
from narrator.rules.halloween import vote_prompt
from narrator.rules.halloween import voting_order
from narrator.rules.halloween import win_line
from narrator.rules.halloween import winner_of
from narrator.rules.halloween import witch_prompt
from narrator.rules.phases import PhaseId
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Tag
from narrator.rules.registry import check_players
from narrator.rules.registry import get_variant
from tests.harness import rejected
from tests.harness import step_through
from tests.support import switches_maker

V, W, H, C = VAMPIRE, WITCH, HUNTER, VILLAGER
VARIANT = get_variant("halloween")
BASE = Deal((V, V, W, H, C, C, C))  # the table of docs/games/halloween.md §2.10


switches = switches_maker(VARIANT, HalloweenSwitches)


DEFAULT = switches()


# --- night resolution (docs/games/halloween.md §2.5) -----------------------------------------


@pytest.mark.parametrize(
    ("attack", "protected", "victim"),
    [
        (5, 6, 5),  # B-T1: the protection missed
        (5, 5, None),  # B-T2: the protection hit
        (None, 6, None),  # B-T3: no agreed attack
        (None, None, None),
        (7, None, 7),  # B-T4: nobody protected
        (3, 3, None),  # the witch protected herself and was attacked
    ],
)
def test_night_victim(attack: int | None, protected: int | None, victim: int | None) -> None:
    assert night_victim(attack, protected) == victim


# --- the vote (docs/games/halloween.md §2.6) ------------------------------------------------


def test_a_unique_leader() -> None:
    # B-T1: 1 has four votes, 3 has two.
    assert leaders({1: 3, 2: 3, 3: 1, 4: 1, 6: 1, 7: 1}) == (1,)


def test_one_vote_is_enough() -> None:
    # B-T8: voter 3 names 7, everybody else abstains.
    assert leaders({1: None, 2: None, 3: 7, 4: None, 5: None, 6: None, 7: None}) == (7,)


def test_a_tie_at_the_top_lists_the_leaders_in_seat_order() -> None:
    # B-T6 round 1: 5 and 1 have two votes each; 7 and 6 one each.
    assert leaders({1: 5, 2: 5, 3: 1, 4: 1, 5: None, 6: 7, 7: 6}) == (1, 5)


def test_everybody_abstaining_gives_no_leader() -> None:
    # B-T7 (b): no revote follows.
    assert leaders(dict.fromkeys(range(1, 8))) == ()
    assert leaders({}) == ()


def test_the_revote_of_b_t6_and_b_t7() -> None:
    assert leaders({1: 5, 5: 1, 2: 5, 3: 1, 4: 1, 6: None, 7: None}) == (1,)
    assert leaders({1: 5, 5: 1, 2: 5, 3: 1, 4: None, 6: None, 7: None}) == (1, 5)


def test_one_vote_each_is_a_tie_of_everybody() -> None:
    assert leaders({1: 2, 2: 3, 3: 1}) == (1, 2, 3)


def test_voting_order_day_1_starts_at_the_lowest_living_seat() -> None:
    assert first_voter(None, [2, 3, 4, 5, 6, 7], 7) == 2
    assert voting_order(2, [2, 3, 4, 5, 6, 7], 7) == (2, 3, 4, 5, 6, 7)


def test_voting_order_rotates_to_the_next_living_seat() -> None:
    assert first_voter(1, [1, 2, 3, 5, 6, 7], 7) == 2
    assert first_voter(2, [1, 2, 5, 6, 7], 7) == 5  # 3 and 4 have left
    assert first_voter(7, [1, 2, 5, 6, 7], 7) == 1  # wraps around
    assert first_voter(3, [1, 2, 5, 6, 7], 7) == 5  # the previous first voter has left
    assert voting_order(5, [1, 2, 5, 6, 7], 7) == (5, 6, 7, 1, 2)


def test_first_voter_needs_somebody_alive() -> None:
    with pytest.raises(ValueError, match="nobody"):
        first_voter(None, [], 7)


# --- win checks (docs/games/halloween.md §2.7) ----------------------------------------------


ROLES7 = (V, V, W, H, C, C, C)


@pytest.mark.parametrize(
    ("living", "winner"),
    [
        ((1, 2, 3, 4, 5, 6, 7), None),
        ((1, 2, 3, 4, 6, 7), None),  # B-T1 after the morning: 2 against 4
        ((2, 3, 4, 6, 7), None),  # B-T1 after the vote: 1 against 4
        ((1, 2, 3, 7), VAMPIRES),  # B-T9: 2 against 2
        ((1, 2, 3), VAMPIRES),
        ((1, 3), VAMPIRES),  # 1 against 1
        ((3, 4, 5), VILLAGERS),
        ((3,), VILLAGERS),
        ((1, 3, 4), None),  # 1 against 2
    ],
)
def test_winner_of(living: Sequence[int], winner: str | None) -> None:
    assert winner_of(ROLES7, living) == winner


def test_villagers_are_checked_first() -> None:
    assert winner_of(ROLES7, ()) == VILLAGERS  # no vampire left: the villagers' condition holds


@pytest.mark.parametrize(
    ("winner", "limit", "line"),
    [
        (VILLAGERS, 6, "halloween.win_villagers"),
        (VAMPIRES, 6, "halloween.win_vampires"),
        (DRAW, 6, "halloween.draw_6"),
        (DRAW, 3, "halloween.draw"),
    ],
)
def test_win_lines(winner: str, limit: int, line: str) -> None:
    assert win_line(winner, limit) == line


# --- switches (docs/rules.md §5) ------------------------------------------------------------


def test_default_switches() -> None:
    assert DEFAULT.allow_self_vote is False
    assert DEFAULT.cycle_limit == 6
    assert DEFAULT.witch_may_skip is False
    assert DEFAULT.call_dead_roles is False
    assert DEFAULT.discussion_s == 180
    assert DEFAULT.silence_s == 5
    assert (DEFAULT.window(V), DEFAULT.window(W), DEFAULT.window(H)) == (30, 20, 20)
    assert DEFAULT.window_s is None
    assert DEFAULT.roles is None


def test_window_s_overrides_every_window() -> None:
    sw = switches(window_s=3.0, vampires_s=25)
    assert (sw.window(V), sw.window(W), sw.window(H)) == (3.0, 3.0, 3.0)
    sw = switches(vampires_s=25, witch_s=10, hunter_s=12.5)
    assert (sw.window(V), sw.window(W), sw.window(H)) == (25, 10, 12.5)


# --- compositions (docs/games/halloween.md §2.2) ----------------------------------------------


@pytest.mark.parametrize(
    ("players", "vampires", "villagers"),
    [(7, 2, 3), (8, 2, 4), (9, 2, 5), (10, 3, 5), (11, 3, 6), (12, 3, 7)],
)
def test_default_table(players: int, vampires: int, villagers: int) -> None:
    counts = dict(VARIANT.composition(players, DEFAULT).counts)
    assert counts == {V: vampires, W: 1, H: 1, C: villagers}
    assert counts == default_counts(players)
    assert len(VARIANT.composition(players, DEFAULT).deck()) == players
    check_players(VARIANT, players)


@pytest.mark.parametrize("players", [6, 13, 5])
def test_seat_counts_outside_7_to_12(players: int) -> None:
    with pytest.raises(ConfigError, match="7–12 players"):
        check_players(VARIANT, players)
    with pytest.raises(ConfigError, match="7–12 players"):
        VARIANT.composition(players, DEFAULT)


# --- deals ----------------------------------------------------------------------------------


def test_the_base_deal_is_valid() -> None:
    VARIANT.validate_deal(BASE, DEFAULT)
    VARIANT.validate_deal(Deal((C, C, C, H, W, V, V)), DEFAULT)


@pytest.mark.parametrize(
    ("deal", "problem"),
    [
        (Deal((V, V, W, H, C, C, "werewolf")), r"deal\.7: unknown role 'werewolf'"),
        (Deal((V, V, V, H, C, C, C)), r"'vampire' card\(s\) \(seats 1, 2, 3\)"),
        (Deal((V, V, C, H, C, C, C)), "'witch'"),
        (Deal((V, V, W, H, C, C, C), (C,)), "no centre cards"),
    ],
)
def test_bad_deals(deal: Deal, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        VARIANT.validate_deal(deal, DEFAULT)


def test_a_deal_follows_the_roles_override() -> None:
    sw = switches(roles="vampire=3")
    VARIANT.validate_deal(Deal((V, V, V, W, H, C, C)), sw)
    with pytest.raises(ConfigError, match="'vampire'"):
        VARIANT.validate_deal(BASE, sw)


# --- prompts --------------------------------------------------------------------------------


LIVING = (1, 2, 3, 4, 6, 7)  # 5 has left


def test_every_option_of_every_prompt_is_accepted() -> None:
    prompts = [
        vampires_prompt(2, (1, 2), LIVING, 7),
        witch_prompt(2, 3, LIVING, 6, 7),
        witch_prompt(2, 3, LIVING, None, 7, may_skip=True),
        hunter_prompt(2, 4, LIVING, 7),
        vote_prompt(Tag(day(2), "vote", 3), 3, LIVING, LIVING, 7),
        vote_prompt(Tag(day(2), "vote", 3), 3, LIVING, LIVING, 7, allow_self=True),
        vote_prompt(Tag(day(2), "revote", 1), 1, LIVING, (1, 6), 7),
    ]
    for prompt in prompts:
        assert prompt.options
        for option in prompt.options:
            prompt.accept(option)


def test_vampires_choose_one_living_player_of_the_other_side() -> None:
    prompt = vampires_prompt(2, (1, 2), LIVING, 7)
    assert prompt.id == "n2.vampires"
    assert prompt.seats == (1, 2)
    assert prompt.default == Nobody()
    assert prompt.accept("7") == SeatAnswer(7)
    assert prompt.accept("none") == Nobody()
    error = rejected(prompt, "2")
    assert error.key == "reason.partner"
    assert str(error) == "seat 2 is a vampire: choose a player of the other side"
    assert rejected(prompt, "1").key == "reason.partner"
    error = rejected(prompt, "5")
    assert (error.key, dict(error.params)) == ("reason.dead", {"seat": 5})
    assert str(error) == "seat 5 is out of the game"
    assert prompt.options == ("3", "4", "6", "7", "none")
    with pytest.raises(BadAnswerText):
        prompt.accept("8")
    with pytest.raises(BadAnswerText):
        prompt.accept("2 7")  # one agreed seat only


def test_witch_protects_anyone_alive_but_not_last_nights_seat() -> None:
    prompt = witch_prompt(2, 3, LIVING, 6, 7)
    assert prompt.id == "n2.witch"
    assert prompt.seats == (3,)
    assert prompt.default == Nobody()  # timeout: no protection
    assert prompt.accept("3") == SeatAnswer(3)  # herself
    error = rejected(prompt, "6")
    assert error.key == "reason.repeat_protection"
    assert str(error) == "seat 6 was protected last night: choose another player"
    assert rejected(prompt, "5").key == "reason.dead"
    assert "6" not in prompt.options
    with pytest.raises(BadAnswerText):
        prompt.accept("none")  # no skip by default (witch_may_skip = false)


def test_witch_may_skip_with_the_switch() -> None:
    prompt = witch_prompt(1, 3, (1, 2, 3, 4, 5, 6, 7), None, 7, may_skip=True)
    assert prompt.accept("none") == Nobody()
    assert prompt.options[-1] == "none"


def test_hunter_checks_another_living_player() -> None:
    prompt = hunter_prompt(1, 4, LIVING, 7)
    assert prompt.id == "n1.hunter"
    assert prompt.accept("1") == SeatAnswer(1)
    assert rejected(prompt, "4").key == "reason.self"
    assert rejected(prompt, "5").key == "reason.dead"
    assert "4" not in prompt.options
    with pytest.raises(BadAnswerText):
        prompt.accept("none")


def test_vote_names_another_living_player_or_abstains() -> None:
    prompt = vote_prompt(Tag(day(1), "vote", 3), 3, LIVING, LIVING, 7)
    assert prompt.seats == (3,)
    assert prompt.default == Abstain()
    assert prompt.accept("7") == SeatAnswer(7)
    assert prompt.accept("abstain") == Abstain()
    error = rejected(prompt, "3")
    assert (error.key, str(error)) == ("reason.self_vote", "you cannot vote for yourself")
    assert rejected(prompt, "5").key == "reason.dead"
    assert prompt.options == ("1", "2", "4", "6", "7", "abstain")
    with pytest.raises(BadAnswerText):
        prompt.accept("none")


def test_self_vote_with_the_switch() -> None:
    prompt = vote_prompt(Tag(day(1), "vote", 3), 3, LIVING, LIVING, 7, allow_self=True)
    assert prompt.accept("3") == SeatAnswer(3)
    assert "3" in prompt.options


def test_revote_only_between_the_leaders_and_not_for_oneself() -> None:
    prompt = vote_prompt(Tag(day(1), "revote", 1), 1, LIVING, (1, 6), 7)
    assert prompt.accept("6") == SeatAnswer(6)
    assert prompt.accept("abstain") == Abstain()
    assert rejected(prompt, "1").key == "reason.self_vote"
    error = rejected(prompt, "3")
    assert error.key == "reason.not_in_revote"
    assert dict(error.params) == {"seat": 3, "seats": "1, 6"}
    assert str(error) == "seat 3 is not in the revote: choose one of 1, 6"
    assert prompt.options == ("6", "abstain")


# --- the script -----------------------------------------------------------------------------


def play(
    deal: Deal, answers: Mapping[str, str], stop_before: str | None = None, **options: Any
) -> tuple[list[Step], Outcome | None]:
    """All steps of one game; each prompt gets its answer from ``answers`` or its default."""
    stop = None if stop_before is None else PhaseId.parse(stop_before)
    return step_through(VARIANT, deal, switches(**options), answers, stop_before=stop)


def windows(steps: Sequence[Step]) -> list[tuple[str, float, tuple[int, ...]]]:
    return [(s.window, s.seconds, s.seats) for s in steps if isinstance(s, Wake)]


def said(steps: Sequence[Step]) -> list[str]:
    return [s.key for s in steps if isinstance(s, Say)]


def asked(steps: Sequence[Step]) -> list[str]:
    return [s.prompt.id for s in steps if isinstance(s, Ask)]


def test_the_composition_and_the_limit_are_announced_before_the_deal() -> None:
    steps, _ = play(BASE, {}, stop_before="n1")
    keys = said(steps)
    assert keys[:5] == [
        "halloween.intro",
        "halloween.table_7",
        "halloween.limit_6",
        "halloween.quiet",
        "deal.start",
    ]


def test_an_override_and_another_limit_are_announced_with_numbers() -> None:
    deal = Deal((V, V, V, W, H, C, C, C))
    steps, _ = play(deal, {}, stop_before="n1", roles="vampire=3", cycle_limit=4)
    says = [s for s in steps if isinstance(s, Say)]
    assert says[1] == Say(
        "halloween.table",
        {"players": 8, "vampires": 3, "witches": 1, "hunters": 1, "villagers": 3},
    )
    assert says[2] == Say("halloween.limit", {"cycles": 4})


def test_night_1_order_and_windows() -> None:
    steps, _ = play(BASE, {}, stop_before="d1")
    assert windows(steps) == [
        ("n1.vampires", 30, (1, 2)),
        ("n1.witch", 20, (3,)),
        ("n1.hunter", 20, (4,)),
    ]
    keys = said(steps)
    assert keys[keys.index("deal.done") + 1 :] == [
        "halloween.village_sleeps",
        "halloween.vampires_wake_first",
        "halloween.vampires_sleep",
        "halloween.witch_wake",
        "halloween.witch_sleep",
        "halloween.hunter_wake",
        "halloween.hunter_sleep",
        "halloween.morning",
        "halloween.all_survived",
    ]
    silence = [s for s in steps if isinstance(s, Timer)]
    assert silence == [Timer(Tag(night(1), "silence"), 5, warnings=())]
    shows = [s for s in steps if isinstance(s, Show)]
    assert shows == [Show(Tag(night(1), "vampires"), (1, 2), Secret.seats((1, 2)))]


def test_no_silence_timer_with_silence_s_0() -> None:
    steps, _ = play(BASE, {}, stop_before="d1", silence_s=0)
    assert not [s for s in steps if isinstance(s, Timer)]


def test_a_lone_vampire_learns_that_he_is_alone() -> None:
    deal = Deal((C, V, W, H, C, C, C))
    steps, _ = play(deal, {}, stop_before="d1", roles="vampire=1")
    assert [s for s in steps if isinstance(s, Show)] == [
        Show(Tag(night(1), "vampires"), (2,), Secret.seats(()))
    ]


def test_partners_are_shown_on_night_1_only() -> None:
    steps, _ = play(BASE, {}, stop_before="d2")
    assert [s.prompt for s in steps if isinstance(s, Show)] == ["n1.vampires"]
    assert "halloween.vampires_wake" in said(steps)


def test_the_hunter_sees_yes_for_a_vampire_and_no_otherwise() -> None:
    for target, token in (("2", "yes"), ("3", "no"), ("7", "no")):
        steps, _ = play(BASE, {"n1.hunter": target}, stop_before="d1")
        hunter = [s for s in steps if isinstance(s, Show) and s.prompt == "n1.hunter"]
        assert hunter == [Show(Tag(night(1), "hunter"), (4,), Secret.token(token))]


def test_the_morning_line_is_the_same_for_a_block_and_no_attack() -> None:
    blocked, _ = play(BASE, {"n1.vampires": "5", "n1.witch": "5"}, stop_before="d1")
    missing, _ = play(BASE, {"n1.witch": "5"}, stop_before="d1")
    assert said(blocked) == said(missing)
    assert said(blocked)[-1] == "halloween.all_survived"
    assert not [s for s in blocked if isinstance(s, Eliminate)]


def test_a_victim_is_named_and_the_card_turned_up() -> None:
    steps, _ = play(BASE, {"n1.vampires": "5"}, stop_before="d1")
    assert steps[-3:] == [
        Say("halloween.night_victim", {"seat": 5}),
        Eliminate(5, night(1), "attacked", shown_role=C),
        Say("halloween.card", {"seat": 5, "role": RoleName(C)}),
    ]


def test_the_witch_ban_lasts_one_night_and_a_timeout_clears_it() -> None:
    steps, _ = play(
        BASE, {"n1.witch": "5", "n3.witch": "5"}, stop_before="d3", call_dead_roles=False
    )
    prompts = {s.prompt.id: s.prompt for s in steps if isinstance(s, Ask)}
    assert "5" not in prompts["n2.witch"].options  # the ban of night 1
    assert "5" in prompts["n3.witch"].options  # night 2 timed out: no ban
    prompts["n3.witch"].accept("5")


def test_a_dead_witch_and_hunter_are_not_called_by_default() -> None:
    answers = {"n1.vampires": "3", "n2.vampires": "4"}
    steps, _ = play(BASE, answers, stop_before="d3")
    assert [w for w, _, _ in windows(steps)] == [
        "n1.vampires",
        "n1.witch",
        "n1.hunter",
        "n2.vampires",
        "n2.hunter",
        "n3.vampires",
    ]
    assert said(steps).count("halloween.witch_wake") == 1
    assert said(steps).count("halloween.hunter_wake") == 2


def test_call_dead_roles_keeps_the_words_and_a_silent_window() -> None:
    answers = {"n1.vampires": "3", "n2.vampires": "4"}
    steps, _ = play(BASE, answers, stop_before="d3", call_dead_roles=True)
    assert [(w, s, seats) for w, s, seats in windows(steps) if w.startswith("n3")] == [
        ("n3.vampires", 30, (1, 2)),
        ("n3.witch", 20, ()),
        ("n3.hunter", 20, ()),
    ]
    assert said(steps).count("halloween.witch_wake") == 3
    assert "n2.witch" not in asked(steps)
    assert "n3.hunter" not in asked(steps)


def test_an_attacked_hunter_still_checks() -> None:
    steps, _ = play(BASE, {"n1.vampires": "4", "n1.hunter": "1"}, stop_before="d1")
    assert Show(Tag(night(1), "hunter"), (4,), Secret.token("yes")) in steps
    assert Eliminate(4, night(1), "attacked", shown_role=H) in steps


def test_the_dead_do_not_vote() -> None:
    steps, _ = play(BASE, {"n1.vampires": "5"}, stop_before="n2")
    votes = [a for a in asked(steps) if a.startswith("d1.")]
    assert votes == [f"d1.vote.{s}" for s in (1, 2, 3, 4, 6, 7)]


def test_a_tie_leads_to_one_revote_of_everybody_alive() -> None:
    answers = {"d1.vote.1": "5", "d1.vote.2": "5", "d1.vote.3": "1", "d1.vote.4": "1"}
    steps, _ = play(BASE, answers, stop_before="n2")
    revotes = [a for a in asked(steps) if ".revote." in a]
    assert revotes == [f"d1.revote.{s}" for s in range(1, 8)]
    assert Say("halloween.tie", {"seats": (1, 5)}) in steps
    assert said(steps)[-1] == "halloween.all_abstained"  # everybody abstained in the revote


def test_the_day_ends_without_elimination_after_a_second_tie() -> None:
    answers = {
        "d1.vote.1": "5",
        "d1.vote.2": "5",
        "d1.vote.3": "1",
        "d1.vote.4": "1",
        "d1.revote.2": "1",
        "d1.revote.3": "5",
    }
    steps, _ = play(BASE, answers, stop_before="n2")
    assert said(steps)[-1] == "halloween.tie_again"
    assert not [s for s in steps if isinstance(s, Eliminate)]


def test_the_vote_ends_the_game_with_a_villager_win() -> None:
    deal = Deal((C, V, W, H, C, C, C))
    steps, outcome = play(deal, {"d1.vote.1": "2"}, roles="vampire=1")
    assert outcome == Outcome(VILLAGERS, day(1), reveal=dict(enumerate(deal.seats, start=1)))
    assert "halloween.win_villagers" in said(steps)
    assert said(steps)[-7:] == ["reveal.seat"] * 7


def test_a_draw_after_the_vote_of_the_last_cycle() -> None:
    steps, outcome = play(BASE, {}, cycle_limit=2)
    assert outcome is not None
    assert (outcome.winner, outcome.ended_at) == (DRAW, day(2))
    assert "halloween.draw" in said(steps)
    assert [s.id for s in steps if isinstance(s, Phase)] == [night(1), day(1), night(2), day(2)]


def test_a_vampire_win_at_dawn_ends_before_the_day() -> None:
    answers = {"n1.vampires": "5", "d1.vote.1": "4", "d1.vote.2": "4", "n2.vampires": "6"}
    steps, outcome = play(BASE, answers)
    assert outcome is not None
    assert (outcome.winner, outcome.ended_at) == (VAMPIRES, night(2))
    assert [s.id for s in steps if isinstance(s, Phase)] == [night(1), day(1), night(2)]


def test_discussion_lines_and_timer() -> None:
    steps, _ = play(BASE, {}, stop_before="n2")
    assert "halloween.discussion_3min" in said(steps)
    assert Timer(Tag(day(1), "discussion"), 180, expired="timer.time_up") in steps
    steps, _ = play(BASE, {}, stop_before="n2", discussion_s=60, allow_self_vote=True)
    assert "halloween.discussion" in said(steps)
    assert "halloween.vote_self_allowed" in said(steps)


# --- the registry ---------------------------------------------------------------------------


def test_halloween_is_played_by_7_to_12() -> None:
    assert VARIANT.seat_counts == range(7, 13)
