"""Property tests of «Свердловск Мафия Клуб» against an independent
model of docs/games/sport_mafia.md.

The invariants every game keeps (the dead, leaks, public facts, catalogs) are in
test_invariants.py; here random games on the harness' fake table are checked for
the win check after every departure, the hands of each vote, who is woken each
night and the fixed shape of a night.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Sequence
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from narrator.drive import NIGHT_LIMIT
from narrator.rules.answers import CountAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Eliminate
from narrator.rules.core import Phase
from narrator.rules.core import RoleName
from narrator.rules.core import Say
from narrator.rules.core import Step
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.rules.sport_mafia import DON
from narrator.rules.sport_mafia import SHERIFF
from narrator.rules.sport_mafia import SportMafiaSwitches
from narrator.rules.sport_mafia import is_black
from narrator.rules.sport_mafia import winner_of
from narrator.voice.catalog import LANGUAGES
from tests.harness import FakeTable
from tests.harness import deal_for
from tests.harness import games
from tests.harness import play
from tests.harness import properties
from tests.harness import switches_of

VARIANT = get_variant("sport_mafia")
SEATS = tuple(range(1, 11))

PROPERTIES = properties(40)


def rule_switches(call_dead_roles: bool | None = None) -> st.SearchStrategy[tuple[int, Any]]:
    """Ten players and random values of every yes/no and one-of switch."""
    dead = st.booleans() if call_dead_roles is None else st.just(call_dead_roles)
    flags = (
        "night0_sheriff_call",
        "single_candidate_day1_skip",
        "unvoted_to_last",
        "allow_self_nomination",
        "perestrelka_subset_loop",
    )
    options = st.fixed_dictionaries(
        {
            "call_dead_roles": dead,
            "shooting": st.sampled_from(("enter", "call")),
            **{flag: st.booleans() for flag in flags},
        }
    )
    return st.tuples(st.just(10), options)


def phases(steps: Sequence[Step]) -> Iterator[tuple[str, list[Step], tuple[int, ...]]]:
    """Each phase with its steps and the seats alive when it began."""
    alive = set(SEATS)
    current: tuple[str, list[Step], tuple[int, ...]] | None = None
    for step in steps:
        if isinstance(step, Phase):
            if current is not None:
                yield current
            current = (str(step.id), [], tuple(sorted(alive)))
        elif current is not None:
            current[1].append(step)
        if isinstance(step, Eliminate):
            alive.discard(step.seat)
    if current is not None:
        yield current


def departures(eliminated: Sequence[dict[str, Any]]) -> list[list[int]]:
    """Eliminations grouped as the win check sees them: an all-leave is one departure."""
    groups: list[list[int]] = []
    previous: dict[str, Any] | None = None
    for entry in eliminated:
        if (
            previous is not None
            and entry["cause"] == previous["cause"] == "all_leave"
            and entry["phase"] == previous["phase"]
        ):
            groups[-1].append(entry["seat"])
        else:
            groups.append([entry["seat"]])
        previous = entry
    return groups


@PROPERTIES
@given(table=games(VARIANT, rule_switches(), langs=LANGUAGES))
def test_the_win_check_the_hands_and_the_end(table: FakeTable) -> None:
    sw, deal, outcome = switches_of(table, SportMafiaSwitches), table.deal, table.outcome
    result = table.result()

    # The win check runs after every departure and ends the game at the first win.
    alive = set(SEATS)
    groups = departures(result["eliminated"])
    for index, group in enumerate(groups):
        alive -= set(group)
        winner = winner_of(deal.seats, alive)
        if index < len(groups) - 1 or outcome is None:
            assert winner is None, f"the game went on after {group} left"
        else:
            assert winner == outcome.winner

    # The end: the win line, then every seat's role, and nothing else.
    if outcome is not None:
        said = table.closing()
        keys = [line.say.key for line in said]
        assert keys[-11:] == [f"sport.win_{outcome.winner}"] + ["reveal.seat"] * 10
        named = [v.id for line in said for v in line.say.params.values() if isinstance(v, RoleName)]
        assert named == list(deal.seats)

    # Each living player raises his hand at most once per round; with unvoted_to_last
    # the last candidate gets exactly the hands not raised before.
    replies = iter(table.replies)
    alive, hands = set(SEATS), 0
    for step in table.steps:
        if isinstance(step, Eliminate):
            alive.discard(step.seat)
        elif isinstance(step, Say) and step.key in ("sport.candidates", "sport.perestrelka"):
            hands = 0
        elif isinstance(step, Say) and step.key == "sport.rest_of_hands":
            assert sw.unvoted_to_last
            assert step.params["count"] == len(alive) - hands
        elif isinstance(step, Ask | Timer) and step.prompt is not None:
            prompt_id, reply = next(replies)
            assert prompt_id == step.prompt.id
            if isinstance(reply, CountAnswer) and ".all_leave" not in prompt_id:
                hands += reply.count
                assert hands <= len(alive), prompt_id


@PROPERTIES
@given(table=games(VARIANT, rule_switches()))
def test_each_night_wakes_exactly_the_living_holders(table: FakeTable) -> None:
    deal = table.deal
    for phase, steps, alive_at_start in phases(table.steps):
        alive = set(alive_at_start)
        for step in steps:
            if isinstance(step, Eliminate):
                alive.discard(step.seat)
            elif isinstance(step, Wake):
                role = step.tag.action
                if role in (DON, SHERIFF):
                    assert step.seats == tuple(s for s in deal.seats_with(role) if s in alive)
                elif role == "shoot":
                    black = tuple(s for s in sorted(alive) if is_black(deal.role_of(s)))
                    assert step.seats == black, phase
            elif isinstance(step, Timer) and step.prompt is not None:
                assert step.prompt.seats == (step.seat,)


def expected_night(
    night: str, living: Sequence[int], sw: SportMafiaSwitches
) -> list[tuple[str, float]]:
    if night == "n0":
        meeting = [("n0.mafia", sw.meeting_s)]
        return meeting + ([("n0.sheriff", sw.check_s)] if sw.night0_sheriff_call else [])
    return [
        (f"{night}.shoot", sw.shot_call_s * len(living)),
        (f"{night}.don", sw.check_s),
        (f"{night}.sheriff", sw.check_s),
    ]


@PROPERTIES
@given(table=games(VARIANT, rule_switches(call_dead_roles=True)))
def test_each_night_has_the_windows_and_lines_of_its_living_seats(table: FakeTable) -> None:
    sw, nights = switches_of(table, SportMafiaSwitches), 0
    fixed: list[list[str]] = []
    for phase, steps, living in phases(table.steps):
        if not phase.startswith("n"):
            continue
        wakes = [s for s in steps if isinstance(s, Wake)]
        assert [(w.window, w.seconds) for w in wakes] == expected_night(phase, living, sw)
        if phase == "n0":
            continue
        nights += 1
        assert wakes[0].cues == tuple(Say("sport.number", {"seat": s}) for s in living)
        lines = [s for s in steps if isinstance(s, Say)]
        assert [s.params["seat"] for s in lines if s.key == "sport.number"] == list(living)
        # Every night says the same fixed lines (test_sport_mafia_rules lists them).
        fixed.append([s.key for s in lines if s.key != "sport.number"])
        assert fixed[-1] == fixed[0]
    assert len(table.result()["windows"]) == 1 + sw.night0_sheriff_call + 3 * nights


def test_a_silent_table_plays_to_the_night_limit() -> None:
    """Nobody nominates, nobody shoots: the run stops after night 30 with no winner."""
    sw = make_switches(VARIANT, {})
    table = play(VARIANT, deal_for(VARIANT, 10, sw, 2), sw, lang="en")
    result = table.result()
    assert table.outcome is None
    assert (result["winner"], result["ended_at"]) == (None, f"n{NIGHT_LIMIT}")
    assert result["eliminated"] == []
    assert len(result["windows"]) == 1 + 3 * NIGHT_LIMIT
    firsts = [s.seat for s in table.steps if isinstance(s, Timer) and s.tag.action == "speech"]
    assert firsts[::10] == [(day - 1) % 10 + 1 for day in range(1, NIGHT_LIMIT + 1)]
