"""Property tests of «Альянс дедукции» against an independent
model of docs/games/alliance.md.

The invariants every game keeps (the dead, leaks, public facts, catalogs) are in
test_invariants.py; here random games on the harness' fake table, with werewolves
exploding now and then, are checked for the winner, the explosions, each night's
windows and the reach of the script.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from narrator.rules.alliance import CUPID
from narrator.rules.alliance import GOOD
from narrator.rules.alliance import GUARD
from narrator.rules.alliance import HUNTER
from narrator.rules.alliance import LOVERS
from narrator.rules.alliance import SEER
from narrator.rules.alliance import WEREWOLF
from narrator.rules.alliance import WEREWOLVES
from narrator.rules.alliance import WITCH
from narrator.rules.alliance import AllianceSwitches
from narrator.rules.alliance import winner_of
from narrator.rules.core import Deal
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Timer
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog
from tests.harness import FakeTable
from tests.harness import games
from tests.harness import play
from tests.harness import properties
from tests.harness import random_game
from tests.harness import scripted
from tests.harness import switches_of

VARIANT = get_variant("alliance")

PROPERTIES = properties(40)


OVERRIDES = (None, None, None, "werewolf=2", "guard=0", "seer=0,witch=0")
SETUPS = st.tuples(
    st.integers(9, 12),
    st.fixed_dictionaries(
        {
            "cupid_enabled": st.booleans(),
            "white_wolf_king": st.booleans(),
            "hunter_shoots_on_love_death": st.booleans(),
            "witch_self_save": st.sampled_from(("night1", "never", "always")),
            "witch_both_same_night": st.booleans(),
            "witch_sees_victim_after_antidote": st.booleans(),
            "hunter_status_call": st.booleans(),
            "allow_self_vote": st.booleans(),
            "roles": st.sampled_from(OVERRIDES),
        }
    ),
)
# Werewolves now and then try to explode during a speech.
EXPLODING = games(VARIANT, SETUPS, legal=0.75, silent=0.15, bursts=0.04)


def lovers_of(table: FakeTable) -> tuple[int, int] | None:
    for event in table.record.events:
        if event["event"] == "secret" and event["prompt"] == "n1.lovers":
            lover, partner = event["to"][0], int(event["shown"].split()[1])
            first, second = sorted((lover, partner))
            return first, second
    return None


@PROPERTIES
@given(table=EXPLODING)
def test_the_winner_and_the_explosions_follow_the_rules(table: FakeTable) -> None:
    deal, outcome, result = table.deal, table.outcome, table.result()
    # Every explosion was a werewolf's, and he got no last words.
    for event in result["eliminated"]:
        if event["cause"] == "exploded":
            assert deal.role_of(event["seat"]) == WEREWOLF
            assert Say("alliance.last_words", {"seat": event["seat"]}) not in table.steps
    if outcome is None:
        return
    assert outcome.winner in {GOOD, WEREWOLVES, LOVERS}
    assert outcome.ended_at.kind == "day"
    living = [s for s in range(1, deal.players + 1) if s not in table.gone]
    assert winner_of(deal.seats, living, lovers_of(table)) == outcome.winner
    assert outcome.sheriff is None or outcome.sheriff in living


def expected_night(night: int, deal: Deal, sw: AllianceSwitches) -> list[tuple[str, float]]:
    """The windows of one night from the composition and the switches alone (4.3)."""
    has = set(deal.seats)
    windows: list[tuple[str, float]] = []
    if night == 1 and CUPID in has:
        windows += [("n1.cupid", sw.cupid_s), ("n1.lovers", sw.lovers_s)]
    if GUARD in has:
        windows.append((f"n{night}.guard", sw.guard_s))
    windows.append((f"n{night}.wolves", sw.wolves_first_s if night == 1 else sw.wolves_s))
    if WITCH in has:
        windows.append((f"n{night}.witch_save", sw.witch_s))
    if SEER in has:
        windows.append((f"n{night}.seer", sw.seer_s))
    if HUNTER in has and sw.hunter_status_call:
        windows.append((f"n{night}.hunter", sw.hunter_status_s))
    return windows


@PROPERTIES
@given(table=games(VARIANT, SETUPS.map(lambda s: (s[0], {**s[1], "call_dead_roles": True}))))
def test_night_windows_depend_only_on_the_composition(table: FakeTable) -> None:
    sw = switches_of(table, AllianceSwitches)
    windows = [(w["prompt"], w["seconds"]) for w in table.result()["windows"]]
    nights = [
        step.id for step in table.steps if isinstance(step, Phase) and step.id.kind == "night"
    ]
    assert windows == [w for n in nights for w in expected_night(n.number, table.deal, sw)]
    # The spoken night is the same too: the witch's words never change.
    assert len({line.text for line in table.spoken if line.say.key == "alliance.witch_wake"}) <= 1


def test_the_fake_table_plays_d_t2() -> None:
    """D-T2 (docs/games/alliance.md §4.15) through the fake table: the werewolves win at the
    dawn of day 2."""
    deal = Deal(("werewolf", "seer", "witch", "hunter", "werewolf", "guard", "villager",
                 "werewolf", "villager", "villager", "werewolf", "villager"))  # fmt: skip
    answers = {
        "n1.wolves": "7",
        "n1.witch_save": "no",
        **{f"d1.vote.{v}": "9" for v in (1, 5, 8, 11)},
        "n2.guard": "10",
        "n2.wolves": "12",
        "n2.witch_poison": "10",
    }
    table = play(VARIANT, deal, make_switches(VARIANT, {}), scripted(answers))
    assert table.outcome is not None and table.outcome.winner == WEREWOLVES
    assert sorted(table.gone) == [7, 9, 10, 12]
    assert dict(table.outcome.reveal) == dict(enumerate(deal.seats, start=1))


def test_random_games_reach_every_line_of_the_script() -> None:
    said: set[str] = set()
    for game in range(200):
        sw = make_switches(
            VARIANT, {"cupid_enabled": game % 2 == 0, "white_wolf_king": game % 3 == 0}
        )
        table = random_game(VARIANT, 9 + game % 4, sw, game, bursts=0.1)
        said |= {line.say.key for line in table.spoken}
        claims = {s.interrupt.claim for s in table.steps if isinstance(s, Timer) and s.interrupt}
        said |= {f"{claim}{end}" for claim in claims if claim for end in ("", "_unconfirmed")}
    ru, en = load_catalog("ru"), load_catalog("en")
    script = {key for key in ru.lines if key.startswith("alliance.")}
    # «Остались только влюблённые» needs a long planned game: test_alliance_rules has one.
    assert script - said == {"alliance.win_lovers"}
    for action in ("candidates", "withdraw", "sheriff_vote", "sheriff_revote", "vote", "pk_vote"):
        assert f"prompt.alliance.{action}" in ru.lines and f"prompt.alliance.{action}" in en.lines
