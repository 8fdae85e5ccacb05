"""Property tests of «Ночь оборотня» against an independent
model of docs/games/onenight.md.

The invariants every game keeps (the dead, leaks, public facts, catalogs) are in
test_invariants.py; here random games on the harness' fake table are checked
against the votes, the spirit's swap and the win table, over the numeric switches
and role overrides the generic harness leaves at their defaults.
"""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from narrator.rules.answers import Answer
from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Deal
from narrator.rules.core import RoleName
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.onenight import HIGH_INQUISITOR
from narrator.rules.onenight import SPIRIT
from narrator.rules.onenight import WEREWOLF
from narrator.rules.onenight import WEREWOLVES
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import burned_by
from narrator.rules.onenight import win_line
from narrator.rules.onenight import winner_of
from narrator.rules.phases import day
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import LANGUAGES
from tests.harness import FakeTable
from tests.harness import games
from tests.harness import play
from tests.harness import properties
from tests.harness import scripted
from tests.harness import switches_of

VARIANT = get_variant("onenight")

PROPERTIES = properties(100)


@st.composite
def setups(draw: st.DrawFn) -> tuple[int, dict[str, object]]:
    """A player count and rule switches (an override too big for the deck is dropped)."""
    center = draw(st.sampled_from((3, 3, 1, 5)))
    return draw(st.integers(3, 7)), {
        "center_cards": center,
        "seer_center_count": draw(st.integers(1, min(3, center))),
        "lone_wolf_peek": draw(st.booleans()),
        "allow_self_vote": draw(st.booleans()),
        "discussion_s": draw(st.sampled_from((300.0, 30.0))),
        "roles": draw(st.sampled_from((None, None, "werewolf=1", "spirit=0", "high_inquisitor=0"))),
    }


def final_cards(deal: Deal, accepted: Mapping[str, Answer]) -> list[str]:
    """The cards after the night, modelled independently: only the spirit moves one."""
    cards = list(deal.seats)
    for spirit in deal.seats_with(SPIRIT):
        swap = accepted.get("n1.spirit")
        if isinstance(swap, SeatAnswer):
            cards[spirit - 1], cards[swap.seat - 1] = cards[swap.seat - 1], cards[spirit - 1]
    return cards


@PROPERTIES
@given(table=games(VARIANT, setups(), langs=LANGUAGES))
def test_random_games_follow_the_votes_the_swap_and_the_win_table(table: FakeTable) -> None:
    sw, deal, players = switches_of(table, OneNightSwitches), table.deal, table.deal.players
    outcome, result = table.outcome, table.result()
    assert outcome is not None and outcome.ended_at == day(1)

    votes: dict[int, int | None] = {}
    for voter in range(1, players + 1):
        vote = table.accepted[f"d1.vote.{voter}"]
        votes[voter] = vote.seat if isinstance(vote, SeatAnswer) else None
        assert sw.allow_self_vote or votes[voter] != voter
    burned = burned_by(votes)
    assert result["eliminated"] == [{"seat": s, "phase": "d1", "cause": "burned"} for s in burned]

    cards = final_cards(deal, table.accepted)
    assert dict(outcome.reveal) == {s: cards[s - 1] for s in range(1, players + 1)}
    assert outcome.winner == winner_of(cards, burned)
    keys = [line.say.key for line in table.spoken]
    closing = table.spoken[keys.index("onenight.reveal_all") :]
    assert closing[1].say.key == win_line(outcome.winner, WEREWOLF in cards)
    keys = [line.say.key for line in closing[2:]]
    assert keys == ["reveal.seat"] * players + ["reveal.center"] * sw.center_cards
    named = [v.id for line in closing for v in line.say.params.values() if isinstance(v, RoleName)]
    assert named == [*cards, *deal.center]

    windows = [(w["prompt"], w["seconds"]) for w in result["windows"]]
    assert windows == [
        (f"n1.{role}", sw.window_s) for role in ("high_inquisitor", "werewolves", "spirit")
    ]


@PROPERTIES
@given(table=games(VARIANT, setups()))
def test_secrets_show_the_true_cards(table: FakeTable) -> None:
    sw, deal, accepted = switches_of(table, OneNightSwitches), table.deal, table.accepted
    expected: list[tuple[str, tuple[int, ...], Secret]] = []
    for seat in deal.seats_with(HIGH_INQUISITOR):
        seen = accepted["n1.high_inquisitor"]
        if isinstance(seen, SeatAnswer):
            expected.append(("n1.high_inquisitor", (seat,), Secret.roles(deal.role_of(seen.seat))))
        elif isinstance(seen, CenterAnswer):
            roles = tuple(deal.center[i - 1] for i in seen.cards)
            expected.append(("n1.high_inquisitor", (seat,), Secret.roles(*roles)))
    wolves = deal.seats_with(WEREWOLF)
    if wolves:
        expected.append(("n1.werewolves", wolves, Secret.seats(wolves if len(wolves) > 1 else ())))
    if len(wolves) == 1 and sw.lone_wolf_peek:
        peek = accepted["n1.werewolves"]
        if isinstance(peek, CenterAnswer):
            card = Secret.roles(deal.center[peek.cards[0] - 1])
            expected.append(("n1.werewolves", wolves, card))
    else:
        assert "n1.werewolves" not in accepted
    cards = final_cards(deal, accepted)
    for seat in deal.seats_with(SPIRIT):
        if isinstance(accepted["n1.spirit"], SeatAnswer):
            expected.append(("n1.spirit", (seat,), Secret.roles(cards[seat - 1])))
    shows = [(s.prompt, s.to, s.secret) for s in table.steps if isinstance(s, Show)]
    assert shows == expected


def test_the_fake_table_plays_a_t1() -> None:
    """A-T1 (docs/games/onenight.md §1.10) through the fake table: the spirit steals a wolf,
    the tie burns 1 and 3."""
    deal = Deal((WEREWOLF, WEREWOLF, HIGH_INQUISITOR, SPIRIT, "inquisitor"), ("inquisitor",) * 3)
    answers = {"n1.high_inquisitor": "1", "n1.spirit": "1"}
    answers |= {f"d1.vote.{voter}": str(target) for voter, target in enumerate((4, 3, 1, 3, 1), 1)}
    table = play(VARIANT, deal, make_switches(VARIANT, {}), scripted(answers))
    result = table.result()
    assert result["winner"] == WEREWOLVES
    assert [e["seat"] for e in result["eliminated"]] == [1, 3]
    assert {"prompt": "n1.spirit", "to": [4], "shown": WEREWOLF} in result["secrets"]
    assert "Все раскрывают свои карты." in result["spoken"]
