"""«Свердловск Мафия Клуб» rules tested directly (docs/games/sport_mafia.md).

The plain resolution functions, the prompts' checks, the switches, the deal, and
the script's behaviour under each switch. Acceptance tests C-T1 … C-T10 live in
tests/scenarios/; the speaking order of C-T9 is checked here from those files.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from narrator.rules import phases
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Deal
from narrator.rules.core import Eliminate
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Sleep
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.errors import BadAnswerText
from narrator.rules.errors import ConfigError
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.registry import get_variant
from narrator.rules.sport_mafia import BLACK
from narrator.rules.sport_mafia import CIVILIAN
from narrator.rules.sport_mafia import DON
from narrator.rules.sport_mafia import MAFIA
from narrator.rules.sport_mafia import RED
from narrator.rules.sport_mafia import SHERIFF
from narrator.rules.sport_mafia import SportMafiaSwitches
from narrator.rules.sport_mafia import all_leave
from narrator.rules.sport_mafia import count_prompt
from narrator.rules.sport_mafia import first_speaker
from narrator.rules.sport_mafia import leaders
from narrator.rules.sport_mafia import shoot_prompt
from narrator.rules.sport_mafia import shot_hits
from narrator.rules.sport_mafia import speaking_order
from narrator.rules.sport_mafia import winner_of
from narrator.scenario import ScenarioFile
from narrator.scenario import load_scenario
from narrator.scenario import run_scenario
from narrator.voice.catalog import load_catalog
from tests.harness import rejected
from tests.harness import step_through
from tests.support import switches_maker

VARIANT = get_variant("sport_mafia")
SCENARIOS = Path(__file__).resolve().parent / "scenarios"
C, S, M, D = CIVILIAN, SHERIFF, MAFIA, DON
# The base deal of docs/games/sport_mafia.md §3.12: Don 3, mafia 6 and 9, sheriff 7,
# civilians 1, 2, 4, 5, 8, 10.
BASE = Deal((C, C, D, C, C, M, S, C, M, C))
ALL = tuple(range(1, 11))


switches = switches_maker(VARIANT, SportMafiaSwitches)


DEFAULT = switches()


def without(*seats: int) -> tuple[int, ...]:
    return tuple(s for s in ALL if s not in seats)


# --- shot_hits (3.4) ------------------------------------------------------------------------


def test_every_living_black_player_on_the_same_living_seat_hits() -> None:
    assert shot_hits([7, 7, 7], 3, ALL) == 7  # C-T6
    assert shot_hits([5, 5], 2, without(3)) == 5  # C-T8: the Don is out, two shooters


@pytest.mark.parametrize(
    "entries",
    [
        [7, 7, 8],  # C-T7: one shoots another number
        [7, 7, None],  # C-T7: one does not shoot
        [None, None, None],
        [7, 7],  # fewer entries than living black players
        [7, 7, 7, 7],
        [],
    ],
)
def test_anything_else_is_a_miss(entries: Sequence[int | None]) -> None:
    assert shot_hits(entries, 3, ALL) is None


def test_a_dead_seat_cannot_be_hit() -> None:
    assert shot_hits([2, 2, 2], 3, without(2)) is None


def test_the_mafia_may_hit_its_own_team() -> None:
    assert shot_hits([3, 3, 3], 3, ALL) == 3
    assert shot_hits([6, 6, 6], 3, ALL) == 6


def test_no_shooters_no_hit() -> None:
    assert shot_hits([], 0, ALL) is None


# --- winner_of (3.9) --------------------------------------------------------------------------


def test_nobody_wins_at_the_start() -> None:
    assert winner_of(BASE.seats, ALL) is None


def test_red_wins_when_no_black_is_left() -> None:
    assert winner_of(BASE.seats, without(3, 6, 9)) == RED


def test_black_wins_at_equality() -> None:
    assert winner_of(BASE.seats, (1, 3, 6, 7)) == BLACK
    assert winner_of(BASE.seats, (3, 6, 9, 1, 2, 4)) == BLACK


def test_black_wins_when_an_all_leave_skips_equality() -> None:
    # C-T10: red 4, 5 vs black 3, 6 after 1 and 2 left together.
    assert winner_of(BASE.seats, (3, 4, 5, 6)) == BLACK
    assert winner_of(BASE.seats, (3, 6, 5)) == BLACK


def test_one_black_among_more_red_plays_on() -> None:
    assert winner_of(BASE.seats, (1, 2, 3)) is None
    assert winner_of(BASE.seats, (1, 2, 4, 5, 3, 6)) is None  # C-T10 before day 3's vote


def test_the_don_counts_as_black() -> None:
    assert winner_of(BASE.seats, (3, 7)) == BLACK
    assert winner_of(BASE.seats, (1, 2, 7)) == RED


# --- leaders, all_leave (3.7, 3.8) --------------------------------------------------------


def test_leaders() -> None:
    assert leaders({4: 6, 9: 4}) == (4,)  # C-T3
    assert leaders({4: 5, 9: 5}) == (4, 9)  # C-T4
    assert leaders({4: 3, 9: 7}) == (9,)
    assert leaders({9: 3, 4: 3, 5: 1}) == (9, 4)  # in the tally's (nomination) order
    assert leaders({4: 0, 9: 0}) == ()  # nobody raised a hand
    assert leaders({}) == ()


@pytest.mark.parametrize(
    ("hands", "living", "leave"),
    [
        (6, 10, True),  # C-T5 a
        (5, 10, False),  # C-T5 b: an even split keeps everyone in
        (4, 10, False),  # C-T5 c
        (4, 6, True),  # C-T10
        (3, 6, False),  # C-T10: ЗА 3 = ПРОТИВ 3
        (10, 10, True),
        (0, 10, False),
        (5, 9, True),
        (4, 9, False),
    ],
)
def test_all_leave_needs_more_for_than_against(hands: int, living: int, leave: bool) -> None:
    assert all_leave(hands, living) is leave


# --- speaking order (3.3) ----------------------------------------------------------------


def test_day_one_starts_at_seat_one() -> None:
    assert first_speaker(None, ALL) == 1
    assert first_speaker(None, without(1)) == 2


def test_each_later_day_starts_after_the_previous_first_speaker() -> None:
    assert first_speaker(1, ALL) == 2
    assert first_speaker(2, ALL) == 3
    assert first_speaker(10, ALL) == 1  # wraps around


def test_a_dead_seat_is_skipped() -> None:
    assert first_speaker(1, without(2)) == 3  # C-T9 b
    assert first_speaker(3, without(2)) == 4
    assert first_speaker(9, without(10, 1)) == 2


def test_nobody_alive_is_an_error() -> None:
    with pytest.raises(ValueError, match="nobody"):
        first_speaker(1, ())


def test_speaking_order_goes_round_the_table_skipping_the_dead() -> None:
    assert speaking_order(1, ALL) == list(ALL)
    assert speaking_order(3, without(2)) == [3, 4, 5, 6, 7, 8, 9, 10, 1]
    assert speaking_order(9, (1, 4, 9, 10)) == [9, 10, 1, 4]


# --- playing the script ------------------------------------------------------------------

Answers = Mapping[str, str | Sequence[str]]


def play(deal: Deal, answers: Answers, **options: Any) -> list[Step]:
    """Every step of a game; each prompt takes its first answer in ``answers``.

    A list gives the answers of successive askings of the same prompt id (the
    revote of a second perestrelka round); a missing answer is the default.
    """
    return step_through(VARIANT, deal, switches(**options), answers)[0]


def keys(steps: Sequence[Step]) -> list[str]:
    return [s.key for s in steps if isinstance(s, Say)]


def phase_steps(steps: Sequence[Step], phase: str) -> list[Step]:
    start = steps.index(Phase(PhaseId.parse(phase)))
    end = next((i for i in range(start + 1, len(steps)) if isinstance(steps[i], Phase)), len(steps))
    return list(steps[start:end])


def prompt_in(steps: Sequence[Step], prompt_id: str) -> Prompt:
    for step in steps:
        prompt = step.prompt if isinstance(step, Ask | Timer) else None
        if prompt is not None and prompt.id == prompt_id:
            return prompt
    raise AssertionError(f"{prompt_id} was never asked")


def asked(steps: Sequence[Step]) -> list[str]:
    return [
        step.prompt.id
        for step in steps
        if isinstance(step, Ask | Timer) and step.prompt is not None
    ]


def eliminated(steps: Sequence[Step]) -> list[tuple[int, str, str]]:
    return [(s.seat, str(s.phase), s.cause) for s in steps if isinstance(s, Eliminate)]


# --- nominations (3.5) -------------------------------------------------------------------


def test_a_nomination_of_an_already_nominated_seat() -> None:
    steps = play(BASE, {"d1.nominate.1": "4"})
    prompt = prompt_in(steps, "d1.nominate.2")
    error = rejected(prompt, "4")
    assert str(error) == "already nominated"
    assert error.key == "reason.already_nominated"
    assert "4" not in prompt.options
    assert prompt.accept("9") == SeatAnswer(9)


def test_a_nomination_of_a_dead_seat() -> None:
    steps = play(BASE, {"n1.shoot": "7 7 7"})
    prompt = prompt_in(steps, "d2.nominate.2")
    error = rejected(prompt, "7")
    assert error.key == "reason.dead"
    assert "7" not in prompt.options


def test_self_nomination_is_forbidden_by_default() -> None:
    prompt = prompt_in(play(BASE, {}), "d1.nominate.5")
    assert prompt.seats == (5,)
    assert rejected(prompt, "5").key == "reason.self"
    assert "5" not in prompt.options


def test_self_nomination_with_the_switch() -> None:
    steps = play(BASE, {"d1.nominate.5": "5"}, allow_self_nomination=True)
    prompt = prompt_in(steps, "d1.nominate.5")
    assert prompt.accept("5") == SeatAnswer(5)
    assert "5" in prompt.options
    assert Say("sport.candidates", {"seats": (5,)}) in steps


def test_nomination_options_are_all_accepted() -> None:
    steps = play(BASE, {"d1.nominate.1": "4", "n1.shoot": "7 7 7"})
    for prompt_id in ("d1.nominate.2", "d1.nominate.10", "d2.nominate.3"):
        prompt = prompt_in(steps, prompt_id)
        assert prompt.options[-1] == "none"
        for option in prompt.options:
            prompt.accept(option)


def test_a_nomination_is_made_only_in_ones_own_speech_and_confirmed() -> None:
    steps = play(BASE, {"d1.nominate.1": "4"})
    speeches = [s for s in steps if isinstance(s, Timer) and s.id.startswith("d1.speech.")]
    assert [s.seat for s in speeches] == list(ALL)
    for speech in speeches:
        assert speech.prompt is not None
        assert speech.prompt.id == f"d1.nominate.{speech.seat}"
        assert speech.prompt.seats == (speech.seat,)
        assert speech.prompt.default == Nobody()
        assert speech.seconds == 60
        assert speech.warnings == ((10.0, "timer.ten_seconds"),)
        assert speech.confirm == "sport.accepted"


def run(answers: Mapping[str, Any], **top: Any) -> dict[str, Any]:
    deal = {str(seat): role for seat, role in enumerate(BASE.seats, start=1)}
    scenario = ScenarioFile.model_validate(
        {"game": "sport_mafia", "deal": deal, "answers": dict(answers), **top}
    )
    result, _ = run_scenario(scenario)
    return result


def test_a_second_nomination_after_an_accepted_one_is_already_answered() -> None:
    result = run({"d1.nominate.1": ["4", "6"], "d1.nominate.2": ["x", "9"]}, stop_before="n1")
    assert result["rejected"] == [
        {"prompt": "d1.nominate.1", "input": "6", "reason": "already answered"},
        {
            "prompt": "d1.nominate.2",
            "input": "x",
            "reason": "cannot read 'x': 'x' is not a seat number or a known word; "
            "expected a seat number, 'none'",
        },
    ]
    assert "4 принято" in result["spoken"]
    assert "9 принято" in result["spoken"]
    assert "6 принято" not in result["spoken"]
    assert "На голосование выставлены игроки номер 4, 9." in result["spoken"]


def test_none_closes_the_nomination_without_a_confirmation() -> None:
    result = run({"d1.nominate.1": ["none", "4"]}, stop_before="n1")
    assert result["rejected"] == [
        {"prompt": "d1.nominate.1", "input": "4", "reason": "already answered"}
    ]
    assert not [line for line in result["spoken"] if "принято" in line]
    assert "Никто не выставлен. Голосования не будет." in result["spoken"]


# --- hand counts (3.7) --------------------------------------------------------------------


def test_a_hand_count_larger_than_the_voters_left() -> None:
    answers = {"d1.nominate.1": "4", "d1.nominate.2": "9", "d1.nominate.3": "5", "d1.vote.4": "6"}
    steps = play(BASE, answers)
    first = prompt_in(steps, "d1.vote.4")
    assert first.seats == ()
    assert first.default == CountAnswer(0)
    assert first.accept("10") == CountAnswer(10)
    assert rejected(first, "11").key == "reason.too_many_hands"
    second = prompt_in(steps, "d1.vote.9")
    assert second.accept("4") == CountAnswer(4)
    error = rejected(second, "5")
    assert error.key == "reason.too_many_hands"
    assert error.params == {"count": 5, "most": 4}
    assert second.options == ("0", "1", "2", "3", "4")
    # With unvoted_to_last the last candidate (5) is not asked.
    assert "d1.vote.5" not in asked(steps)


def test_count_prompt_takes_only_counts() -> None:
    prompt = count_prompt(Tag(phases.day(1), "all_leave"), 10)
    assert prompt.accept("0") == CountAnswer(0)
    with pytest.raises(BadAnswerText):
        prompt.accept("none")
    with pytest.raises(BadAnswerText):
        prompt.accept("abstain")


def test_the_all_leave_count_is_of_the_living() -> None:
    # Nine alive: 4, 9 and 5 tie at 3 hands twice, then the question.
    answers = {
        "n1.shoot": "7 7 7",
        "d2.nominate.2": "4",
        "d2.nominate.3": "9",
        "d2.nominate.4": "5",
        "d2.vote.4": "3",
        "d2.vote.9": "3",
        "d2.revote.4": "3",
        "d2.revote.9": "3",
    }
    steps = play(BASE, answers)
    prompt = prompt_in(steps, "d2.all_leave")
    assert prompt.accept("9") == CountAnswer(9)
    assert rejected(prompt, "10").key == "reason.too_many_hands"


# --- night checks (3.4) ------------------------------------------------------------------


def test_a_check_of_oneself_or_of_a_dead_seat() -> None:
    steps = play(BASE, {"n1.shoot": "5 5 5"})
    don = prompt_in(steps, "n2.don")
    sheriff = prompt_in(steps, "n2.sheriff")
    assert don.seats == (3,)
    assert sheriff.seats == (7,)
    assert rejected(don, "3").key == "reason.self"
    assert rejected(sheriff, "7").key == "reason.self"
    assert rejected(don, "5").key == "reason.dead"
    assert rejected(sheriff, "5").key == "reason.dead"
    assert don.accept("none") == Nobody()
    assert don.default == Nobody()
    assert don.options == ("1", "2", "4", "6", "7", "8", "9", "10", "none")
    for option in sheriff.options:
        sheriff.accept(option)


def shows(steps: Sequence[Step]) -> list[Show]:
    return [s for s in steps if isinstance(s, Show)]


@pytest.mark.parametrize(
    ("don_checks", "don_sees", "sheriff_checks", "sheriff_sees"),
    [
        ("7", "sheriff", "3", "mafia"),  # the Don is mafia for the Sheriff
        ("1", "not_sheriff", "6", "mafia"),
        ("6", "not_sheriff", "1", "not_mafia"),
    ],
)
def test_checks_show_the_truth_to_the_checker_only(
    don_checks: str, don_sees: str, sheriff_checks: str, sheriff_sees: str
) -> None:
    steps = play(BASE, {"n1.don": don_checks, "n1.sheriff": sheriff_checks})
    assert shows(phase_steps(steps, "n1")) == [
        Show(Tag(phases.night(1), "don"), (3,), Secret.token(don_sees)),
        Show(Tag(phases.night(1), "sheriff"), (7,), Secret.token(sheriff_sees)),
    ]


def test_the_sheriff_shot_tonight_still_checks() -> None:
    # C-T6: the sheriff (7) is hit tonight and still checks the Don (3).
    steps = play(BASE, {"n1.shoot": "7 7 7", "n1.don": "7", "n1.sheriff": "3"})
    night = phase_steps(steps, "n1")
    assert Wake(Tag(phases.night(1), "sheriff"), 10, (7,)) in night
    assert Show(Tag(phases.night(1), "sheriff"), (7,), Secret.token("mafia")) in night
    assert not [s for s in night if isinstance(s, Eliminate)]  # the kill waits for morning
    morning = phase_steps(steps, "d2")
    assert morning[1] == Say("sport.bad_morning", {"seat": 7})
    assert morning[2] == Eliminate(7, phases.night(1), "shot")
    assert (
        Timer(Tag(phases.day(2), "last_word", 7), 30, 7, ((10.0, "timer.ten_seconds"),)) in morning
    )


def test_the_don_shot_tonight_still_checks() -> None:
    steps = play(BASE, {"n1.shoot": "3 3 3", "n1.don": "7"})
    assert Show(Tag(phases.night(1), "don"), (3,), Secret.token("sheriff")) in phase_steps(
        steps, "n1"
    )
    assert eliminated(steps)[0] == (3, "n1", "shot")


# --- dead roles are still called (3.3, C-12) ---------------------------------------------


C_T8 = {"n1.shoot": "none none none", "d2.nominate.2": "3", "n2.shoot": "5 5", "n2.don": "7"}


def window(steps: Sequence[Step], name: str) -> list[Step]:
    """The steps from the line before the window ``name`` to the line after it closes."""
    start = next(i for i, s in enumerate(steps) if isinstance(s, Wake) and s.window == name)
    end = next(i for i in range(start, len(steps)) if isinstance(steps[i], Sleep))
    return list(steps[start - 1 : end + 2])


def test_the_dead_don_is_called_with_a_full_window_and_no_prompt() -> None:
    steps = play(BASE, C_T8)
    assert (3, "d2", "voted") in eliminated(steps)
    assert window(steps, "n2.don") == [
        Say("sport.don_wake"),
        Wake(Tag(phases.night(2), "don"), 10, ()),
        Sleep(),
        Say("sport.don_sleep"),
    ]
    assert "n2.don" not in asked(steps)
    assert (5, "n2", "shot") in eliminated(steps)


def test_the_dead_don_is_skipped_without_call_dead_roles() -> None:
    steps = play(BASE, C_T8, call_dead_roles=False)
    night = phase_steps(steps, "n2")
    assert "sport.don_wake" not in keys(night)
    assert "sport.don_sleep" not in keys(night)
    assert [s.window for s in night if isinstance(s, Wake)] == ["n2.shoot", "n2.sheriff"]
    # Alive, the Don is called as usual.
    assert "sport.don_wake" in keys(phase_steps(steps, "n1"))


def test_the_dead_sheriff_is_called_with_a_full_window_and_no_prompt() -> None:
    steps = play(BASE, {"n1.shoot": "7 7 7", "n2.sheriff": "3"})
    assert window(steps, "n2.sheriff") == [
        Say("sport.sheriff_wake"),
        Wake(Tag(phases.night(2), "sheriff"), 10, ()),
        Sleep(),
        Say("sport.sheriff_sleep"),
    ]
    assert "n2.sheriff" not in asked(steps)


def test_the_dead_sheriff_is_skipped_without_call_dead_roles() -> None:
    steps = play(BASE, {"n1.shoot": "7 7 7"}, call_dead_roles=False)
    night = phase_steps(steps, "n2")
    assert "sport.sheriff_wake" not in keys(night)
    assert [s.window for s in night if isinstance(s, Wake)] == ["n2.shoot", "n2.don"]


# --- the night's shape (3.3) ---------------------------------------------------------------


def test_night_zero() -> None:
    steps = phase_steps(play(BASE, {}), "n0")
    assert keys(steps) == [
        "sport.night_falls",
        *["sport.take_card"] * 10,
        "sport.night_goes_on",
        "sport.mafia_wake",
        "sport.mafia_sleep",
    ]
    assert [s for s in steps if isinstance(s, Wake)] == [
        Wake(Tag(phases.night(0), "mafia"), 60, (3, 6, 9))
    ]
    assert shows(steps) == [Show(Tag(phases.night(0), "mafia"), (3, 6, 9), Secret.seats((3, 6, 9)))]
    assert not asked(steps)


def test_night_zero_sheriff_call_is_off_by_default() -> None:
    steps = play(BASE, {})
    assert "sport.sheriff_look" not in keys(steps)
    assert [s.window for s in phase_steps(steps, "n0") if isinstance(s, Wake)] == ["n0.mafia"]


def test_night_zero_sheriff_call_with_the_switch() -> None:
    steps = phase_steps(play(BASE, {}, night0_sheriff_call=True), "n0")
    assert steps[-4:] == [
        Say("sport.sheriff_look"),
        Wake(Tag(phases.night(0), "sheriff"), 10, (7,)),
        Sleep(),
        Say("sport.sheriff_look_sleep"),
    ]
    assert not asked(steps)
    assert len(shows(steps)) == 1  # only the mafia meeting shows anything


def test_a_night_calls_every_living_number() -> None:
    steps = play(BASE, {"n1.shoot": "2 2 2"})
    living = without(2)
    (shoot,) = [s for s in phase_steps(steps, "n2") if isinstance(s, Wake) and s.cues]
    assert shoot.window == "n2.shoot"
    assert shoot.seats == (3, 6, 9)
    assert shoot.seconds == 1.5 * len(living)
    assert shoot.cue_every == 1.5
    assert shoot.cues == tuple(Say("sport.number", {"seat": s}) for s in living)
    assert keys(phase_steps(steps, "n2")) == [
        "sport.night_falls",
        "sport.mafia_walks",
        "sport.mafia_thanks",
        "sport.don_wake",
        "sport.don_sleep",
        "sport.sheriff_wake",
        "sport.sheriff_sleep",
        "sport.morning_comes",
    ]


def test_shoot_prompt_entries() -> None:
    prompt = shoot_prompt(1, (3, 6, 9), ALL)
    assert prompt.id == "n1.shoot"
    assert prompt.seats == (3, 6, 9)
    assert prompt.entries == 3
    assert prompt.default == Nobody()
    assert prompt.accept("7 7 7") == SeatsAnswer((7, 7, 7))
    assert prompt.accept("7 7 8") == SeatsAnswer((7, 7, 8))  # legal, a miss
    assert prompt.accept("7 none 7") == SeatsAnswer((7, None, 7))
    assert prompt.accept("none") == Nobody()
    for text in ("7 7", "7", "7 7 7 7"):
        error = rejected(prompt, text)
        assert error.key == "reason.shots"
        assert error.params == {"count": 3}
    with pytest.raises(BadAnswerText):
        prompt.accept("7 7 11")
    for option in prompt.options:
        prompt.accept(option)
    assert not prompt.calls
    assert shoot_prompt(1, (3, 6, 9), ALL, calls=True).calls


def test_shoot_prompt_refuses_dead_seats() -> None:
    prompt = shoot_prompt(2, (6, 9), without(2, 3))
    assert prompt.entries == 2
    assert prompt.accept("5 5") == SeatsAnswer((5, 5))
    error = rejected(prompt, "2 2")
    assert error.key == "reason.dead"
    assert rejected(prompt, "5 3").key == "reason.dead"
    assert "2 2" not in prompt.options
    for option in prompt.options:
        prompt.accept(option)


def test_the_shooting_switch_marks_the_prompt_as_called() -> None:
    steps = play(BASE, {"n1.shoot": "7 7 7"}, shooting="call")
    assert prompt_in(steps, "n1.shoot").calls
    assert (7, "n1", "shot") in eliminated(steps)


# --- the vote and the perestrelka (3.7, 3.8) ---------------------------------------------

THREE_WAY = {
    "d1.nominate.1": "4",
    "d1.nominate.2": "5",
    "d1.nominate.3": "8",
    "d1.nominate.4": "9",
    "d1.vote.4": "3",
    "d1.vote.5": "3",
    "d1.vote.8": "3",  # 9 gets the last hand: 4, 5, 8 tie at 3
    "d1.revote.4": "5",
    "d1.revote.5": "5",  # 8 gets 0: 4 and 5 tie again, a smaller set
    "d1.revote_2.4": "7",  # with perestrelka_subset_loop: the second round
    "d1.all_leave": "6",
}


def timers(steps: Sequence[Step], kind: str) -> list[Timer]:
    return [s for s in steps if isinstance(s, Timer) and s.tag.action == kind]


def test_perestrelka_defences_in_seat_order_then_revote_in_nomination_order() -> None:
    answers = {"d1.nominate.1": "9", "d1.nominate.2": "4", "d1.vote.9": "5", "d1.revote.9": "6"}
    steps = phase_steps(play(BASE, answers), "d1")
    assert Say("sport.perestrelka", {"seats": (4, 9)}) in steps
    assert [(t.seat, t.seconds) for t in timers(steps, "defence")] == [(4, 30), (9, 30)]
    assert [p for p in asked(steps) if ".revote." in p] == ["d1.revote.9"]
    assert Say("sport.rest_of_hands", {"seat": 4, "count": 4}) in steps
    assert eliminated(steps) == [(9, "d1", "voted")]


def test_a_smaller_second_tie_goes_to_the_question_by_default() -> None:
    steps = phase_steps(play(BASE, THREE_WAY), "d1")
    assert [t.seat for t in timers(steps, "defence")] == [4, 5, 8]
    assert [p for p in asked(steps) if ".revote." in p] == ["d1.revote.4", "d1.revote.5"]
    assert "sport.all_leave_question" in keys(steps)
    assert eliminated(steps) == [(4, "d1", "all_leave"), (5, "d1", "all_leave")]
    assert [t.seat for t in timers(steps, "last_word")] == [4, 5]


def test_a_smaller_second_tie_gets_a_new_round_with_perestrelka_subset_loop() -> None:
    steps = phase_steps(play(BASE, THREE_WAY, perestrelka_subset_loop=True), "d1")
    assert [t.seat for t in timers(steps, "defence")] == [4, 5, 8]
    assert [t.seat for t in timers(steps, "defence_2")] == [4, 5]  # prompt ids stay unique
    assert [p for p in asked(steps) if ".revote" in p] == [
        "d1.revote.4",
        "d1.revote.5",
        "d1.revote_2.4",
    ]
    assert "sport.all_leave_question" not in keys(steps)
    assert [s.params for s in steps if isinstance(s, Say) and s.key == "sport.perestrelka"] == [
        {"seats": (4, 5, 8)},
        {"seats": (4, 5)},
    ]
    # Second revote: 7 hands for 4, the other 3 go to 5.
    assert eliminated(steps) == [(4, "d1", "voted")]


def test_the_same_tie_twice_goes_to_the_question_even_with_the_loop() -> None:
    answers = {
        "d1.nominate.1": "4",
        "d1.nominate.2": "9",
        "d1.vote.4": "5",
        "d1.revote.4": "5",
        "d1.all_leave": "5",
    }
    steps = phase_steps(play(BASE, answers, perestrelka_subset_loop=True), "d1")
    assert len(timers(steps, "defence")) == 2
    assert "sport.all_leave_question" in keys(steps)
    assert "sport.all_stay" in keys(steps)
    assert eliminated(steps) == []


def test_unvoted_to_last_false_asks_the_last_candidate_and_allows_abstention() -> None:
    answers = {"d1.nominate.1": "4", "d1.nominate.2": "9", "d1.vote.4": "3", "d1.vote.9": "2"}
    steps = phase_steps(play(BASE, answers, unvoted_to_last=False), "d1")
    assert [p for p in asked(steps) if ".vote." in p] == ["d1.vote.4", "d1.vote.9"]
    assert prompt_in(steps, "d1.vote.9").options[-1] == "7"  # 3 hands are gone
    assert "sport.rest_of_hands" not in keys(steps)
    assert Say("sport.who_is_for", {"seat": 9}) in steps
    assert eliminated(steps) == [(4, "d1", "voted")]


def test_unvoted_to_last_false_a_tie_still_goes_to_the_perestrelka() -> None:
    answers = {
        "d1.nominate.1": "4",
        "d1.nominate.2": "9",
        "d1.vote.4": "3",
        "d1.vote.9": "3",
        "d1.revote.4": "1",
        "d1.revote.9": "4",
    }
    steps = phase_steps(play(BASE, answers, unvoted_to_last=False), "d1")
    assert [t.seat for t in timers(steps, "defence")] == [4, 9]
    assert eliminated(steps) == [(9, "d1", "voted")]


def test_unvoted_to_last_false_nobody_leaves_without_a_single_hand() -> None:
    # A choice where docs/games/sport_mafia.md §3.7 is silent: no hands at all is not a "majority".
    answers = {"d1.nominate.1": "4", "d1.nominate.2": "9"}
    steps = phase_steps(play(BASE, answers, unvoted_to_last=False), "d1")
    assert "sport.nobody_leaves" in keys(steps)
    assert "sport.perestrelka" not in keys(steps)
    assert eliminated(steps) == []


def test_a_lone_day_one_candidate_leaves_without_single_candidate_day1_skip() -> None:
    steps = phase_steps(play(BASE, {"d1.nominate.1": "4"}, single_candidate_day1_skip=False), "d1")
    assert "sport.single_day1" not in keys(steps)
    assert "sport.who_is_for" not in keys(steps)
    assert eliminated(steps) == [(4, "d1", "voted")]
    assert [t.seat for t in timers(steps, "last_word")] == [4]


def test_a_lone_day_one_candidate_stays_by_default() -> None:
    steps = phase_steps(play(BASE, {"d1.nominate.1": "4"}), "d1")
    assert "sport.single_day1" in keys(steps)
    assert eliminated(steps) == []


def test_a_game_ending_vote_skips_the_last_word() -> None:
    # Red wins: the last black player is voted out on day 3.
    answers = {
        "d1.nominate.1": "3",
        "d1.nominate.2": "1",
        "d1.vote.3": "10",  # 1 gets 0: the Don leaves
        "n1.shoot": "none none",
        "d2.nominate.2": "6",
        "n2.shoot": "none",
        "d3.nominate.4": "9",  # day 3 starts at 4: seat 3 is out
    }
    steps = play(BASE, answers)
    assert eliminated(steps) == [(3, "d1", "voted"), (6, "d2", "voted"), (9, "d3", "voted")]
    assert keys(steps)[-12:] == ["sport.leaves", "sport.win_red"] + ["reveal.seat"] * 10
    assert [t.seat for t in timers(steps, "last_word")] == [3, 6]


def test_a_game_ending_shot_skips_the_last_word() -> None:
    # Red 1, 2, 7, 10 vs black 3, 6, 9 before night 2; the hit on 10 makes it 3 vs 3.
    answers = {
        "d1.nominate.1": "4",
        "d1.nominate.2": "5",
        "d1.vote.4": "10",
        "n1.shoot": "8 8 8",
        "d2.nominate.2": "5",
        "n2.shoot": "10 10 10",
    }
    steps = play(BASE, answers)
    assert eliminated(steps) == [
        (4, "d1", "voted"),
        (8, "n1", "shot"),
        (5, "d2", "voted"),
        (10, "n2", "shot"),
    ]
    morning = phase_steps(steps, "d3")
    assert keys(morning) == ["sport.bad_morning", "sport.win_black"] + ["reveal.seat"] * 10
    assert not timers(morning, "last_word")


# --- switches (docs/rules.md §5) ---------------------------------------------------------


def test_default_switches() -> None:
    assert DEFAULT.call_dead_roles is True
    assert DEFAULT.night0_sheriff_call is False
    assert DEFAULT.single_candidate_day1_skip is True
    assert DEFAULT.unvoted_to_last is True
    assert DEFAULT.allow_self_nomination is False
    assert DEFAULT.perestrelka_subset_loop is False
    assert DEFAULT.shooting == "enter"
    assert DEFAULT.roles is None
    assert (DEFAULT.speech_s, DEFAULT.last_word_s, DEFAULT.defence_s) == (60, 30, 30)
    assert (DEFAULT.meeting_s, DEFAULT.check_s, DEFAULT.shot_call_s) == (60, 10, 1.5)


def test_both_shooting_forms_are_accepted() -> None:
    assert switches(shooting="call").shooting == "call"
    assert switches(shooting="enter").shooting == "enter"


@pytest.mark.parametrize("roles", ["civilian=6,sheriff=1,mafia=2,don=1", "mafia=3", ""])
def test_a_roles_override_is_rejected_the_composition_is_fixed(roles: str) -> None:
    with pytest.raises(ConfigError, match=r"options\.roles: sport_mafia has a fixed composition"):
        VARIANT.composition(10, switches(roles=roles))
    with pytest.raises(ConfigError, match="fixed composition"):
        VARIANT.validate_deal(BASE, switches(roles=roles))


def test_the_composition() -> None:
    composition = VARIANT.composition(10, DEFAULT)
    assert dict(composition.counts) == {C: 6, S: 1, M: 2, D: 1}
    assert composition.center == 0


# --- deals (3.1, 3.2) ----------------------------------------------------------------------


def test_the_base_deal_is_valid() -> None:
    VARIANT.validate_deal(BASE, DEFAULT)
    VARIANT.validate_deal(Deal((D, M, M, S, C, C, C, C, C, C)), DEFAULT)


def test_a_wrong_count_names_the_role_and_its_seats() -> None:
    with pytest.raises(ConfigError) as caught:  # seat 1 holds a second Don
        VARIANT.validate_deal(Deal((D, C, D, C, C, M, S, C, M, C)), DEFAULT)
    message = str(caught.value)
    assert "'civilian'" in message
    assert "seats 2, 4, 5, 8, 10" in message
    assert "has 6" in message


def test_a_missing_sheriff_is_named() -> None:
    with pytest.raises(ConfigError) as caught:  # the sheriff's seat holds a third mafia
        VARIANT.validate_deal(Deal((C, C, D, C, C, M, M, C, M, C)), DEFAULT)
    message = str(caught.value)
    assert "'sheriff'" in message
    assert "seats none" in message
    assert "has 1" in message


def test_an_unknown_role_names_its_seat() -> None:
    with pytest.raises(ConfigError, match=r"deal\.4: unknown role 'villager'"):
        VARIANT.validate_deal(Deal((C, C, D, "villager", C, M, S, C, M, C)), DEFAULT)


def test_there_are_no_centre_cards() -> None:
    with pytest.raises(ConfigError, match=r"deal\.center"):
        VARIANT.validate_deal(Deal(BASE.seats, (C,)), DEFAULT)


def scenario_text(seats: Sequence[str], **extra: str) -> str:
    lines = ['game = "sport_mafia"', *(f"{k} = {v}" for k, v in extra.items()), "[deal]"]
    lines += [f'{seat} = "{role}"' for seat, role in enumerate(seats, start=1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "seats",
    [(C, C, D, C, C, M, S, C, M), (C, C, D, C, C, M, S, C, M, C, C)],
    ids=["nine", "eleven"],
)
def test_a_scenario_with_nine_or_eleven_seats_is_invalid(
    seats: Sequence[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(scenario_text(seats), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert "10" in message
    assert f"not {len(seats)}" in message


def test_a_scenario_with_a_roles_override_is_invalid(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        scenario_text(BASE.seats).replace("[deal]", '[options]\nroles = "mafia=3"\n[deal]'),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="fixed composition"):
        load_scenario(path)


# --- C-T9: the speaking order of the scenario files -------------------------------------


def first_speakers(path: Path) -> list[int]:
    result, _ = run_scenario(load_scenario(path))
    days: list[list[int]] = []
    for line in result["spoken"]:
        if line in ("Доброе утро. Наступает первый день.", "Наступает утро."):
            days.append([])
        elif line.startswith("Слово игроку номер "):
            days[-1].append(int(line.removeprefix("Слово игроку номер ").rstrip(".")))
    assert all(sorted(day) == sorted(set(day)) for day in days)
    return [day[0] for day in days]


def test_c_t9a_days_start_at_seats_1_2_3() -> None:
    assert first_speakers(SCENARIOS / "C-T9a.toml") == [1, 2, 3]


def test_c_t9b_days_start_at_seats_1_3_4() -> None:
    assert first_speakers(SCENARIOS / "C-T9b.toml") == [1, 3, 4]


def test_c_t10_day_three_starts_at_seat_3() -> None:
    assert first_speakers(SCENARIOS / "C-T10b.toml") == [1, 2, 3]


# --- the catalog (3.3: narrator lines of the seed, verbatim) -----------------------------

SEED_LINES = {
    "sport.night_falls": "Наступает ночь",
    "sport.night_goes_on": "А у нас продолжается ночь!",
    "sport.mafia_wake": "Просыпается мафия",
    "sport.mafia_sleep": "Мафия засыпает",
    "sport.mafia_walks": "Внимание Мафия! Мафия проходит мимо игроков...",
    "sport.mafia_thanks": "Спасибо Мафия! Мафия засыпает",
    "sport.don_wake": "Просыпается Дон, Дон ищет Шерифа",
    "sport.don_sleep": "Спасибо Дон! Дон засыпает",
    "sport.sheriff_wake": "Просыпается Шериф, Шериф ищет Мафию",
    "sport.sheriff_sleep": "Спасибо Шериф! Шериф засыпает",
    "sport.all_leave_question": "Кто «ЗА» то, чтобы все голосуемые покинули игру?",
}


def test_the_seed_lines_are_verbatim() -> None:
    ru = load_catalog("ru")
    for key, text in SEED_LINES.items():
        assert ru.text(key) == text
    assert ru.text("sport.accepted", {"seat": 10}) == "10 принято"
    assert ru.text("sport.good_morning") == "Утро у нас доброе."
    assert (
        ru.text("sport.bad_morning", {"seat": 7})
        == "Утро у нас не доброе, нас покидает игрок номер 7."
    )
    assert ru.text("sport.floor", {"seat": 3}) == "Слово игроку номер 3."
    assert (
        ru.text("sport.candidates", {"seats": (4, 9)})
        == "На голосование выставлены игроки номер 4, 9."
    )
    assert (
        ru.text("sport.who_is_for", {"seat": 4}) == "Кто за то, чтобы игрок номер 4 покинул игру?"
    )
    assert ru.text("sport.win_red") == "Вся мафия устранена — победа мирных жителей!"
    assert ru.text("sport.win_black") == "Мафии столько же, сколько мирных, — победа мафии!"


def test_the_defence_line_names_thirty_seconds_only_when_it_is_thirty() -> None:
    answers = {"d1.nominate.1": "9", "d1.nominate.2": "4", "d1.vote.9": "5", "d1.revote.9": "6"}
    seed = phase_steps(play(BASE, answers), "d1")
    assert Say("sport.defence", {"seat": 4}) in seed
    other = phase_steps(play(BASE, answers, defence_s=45), "d1")
    assert Say("sport.defence", {"seat": 4}) not in other
    assert Say("sport.defence_any", {"seat": 4}) in other
