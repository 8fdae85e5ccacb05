"""Views of hidden state: the public view holds no role before the end; a seat sees its own."""

from __future__ import annotations

import random
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from narrator.drive import Headless
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.core import Deal
from narrator.rules.core import DealCard
from narrator.rules.core import Game
from narrator.rules.core import Outcome
from narrator.rules.core import PublicView
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Step
from narrator.rules.core import shuffled_deal
from narrator.rules.onenight import HIGH_INQUISITOR
from narrator.rules.onenight import INQUISITOR
from narrator.rules.onenight import ROLES
from narrator.rules.onenight import SPIRIT
from narrator.rules.onenight import WEREWOLF
from narrator.rules.phases import SETUP
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog

VARIANT = get_variant("onenight")
W, HI, S, I_ = WEREWOLF, HIGH_INQUISITOR, SPIRIT, INQUISITOR


def strings_in(value: object) -> list[str]:
    """Every string anywhere inside a view (fields, tuples, mapping keys and values)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for k, v in value.items() for s in (*strings_in(k), *strings_in(v))]
    if isinstance(value, tuple | list):
        return [s for item in value for s in strings_in(item)]
    if isinstance(value, PublicView):
        return [s for item in vars(value).values() for s in strings_in(item)]
    return []


class ViewWatchingTable(Headless):
    """A fake table that looks at the game's views after every step it carries out."""

    def __init__(self, deal: Deal, answers: Callable[[Prompt], list[str]]) -> None:
        super().__init__(load_catalog("ru"), GameRecord())
        self.deal = deal
        self.answers = answers
        self.game: Game | None = None
        self.expected_shown: dict[int, list[Secret]] = {s: [] for s in range(1, deal.players + 1)}
        self.phases: list[str] = []

    def run(self, game: Game) -> Outcome | None:
        self.game = game
        return super().run(game)

    def carry_out(self, step: Step) -> Answer | None:
        if isinstance(step, Show):
            for seat in step.to:
                self.expected_shown[seat].append(step.secret)
        elif isinstance(step, DealCard):
            self.expected_shown[step.seat].append(step.secret)
        reply = super().carry_out(step)
        self.check_views()
        return reply

    def check_views(self) -> None:
        assert self.game is not None
        view = self.game.public_view()
        self.phases.append(str(view.phase))
        assert view.revealed == {}
        assert view.players == self.deal.players
        assert not set(strings_in(view)) & set(ROLES), view
        gone = {seat for seat, _ in view.eliminated}
        assert set(view.alive) == set(range(1, self.deal.players + 1)) - gone
        for seat in range(1, self.deal.players + 1):
            mine = self.game.seat_view(seat)
            assert mine.seat == seat
            assert mine.dealt == self.deal.role_of(seat)
            assert list(mine.shown) == self.expected_shown[seat]

    def typed(self, prompt: Prompt) -> list[str]:
        return self.answers(prompt)


def play(deal: Deal, answers: Mapping[str, str], **options: Any) -> tuple[Game, ViewWatchingTable]:
    sw = make_switches(VARIANT, options)
    VARIANT.validate_deal(deal, sw)
    game = VARIANT.new_game(deal, sw, random.Random(0))
    table = ViewWatchingTable(
        deal, lambda prompt: [answers[prompt.id]] if prompt.id in answers else []
    )
    table.run(game)
    return game, table


A_T1 = Deal((W, W, HI, S, I_), (I_, I_, I_))
A_T1_ANSWERS = {
    "n1.high_inquisitor": "1",
    "n1.spirit": "1",
    "d1.vote.1": "4",
    "d1.vote.2": "3",
    "d1.vote.3": "1",
    "d1.vote.4": "3",
    "d1.vote.5": "1",
}


def test_a_new_game_shows_nothing_yet() -> None:
    sw = make_switches(VARIANT, {})
    game = VARIANT.new_game(A_T1, sw, random.Random(0))
    view = game.public_view()
    assert view.game == "onenight"
    assert view.phase == SETUP
    assert view.alive == (1, 2, 3, 4, 5)
    assert view.eliminated == ()
    assert view.revealed == {}
    assert game.seat_view(2).dealt == W
    assert game.seat_view(2).shown == ()


def test_a_t1_views_through_the_game() -> None:
    game, table = play(A_T1, A_T1_ANSWERS)
    assert table.phases[0] == "setup"
    assert "n1" in table.phases
    assert table.phases[-1] == "d1"
    # What each seat was entitled to know, and nothing else.
    assert game.seat_view(1).shown == (Secret.roles(W), Secret.seats((1, 2)))
    assert game.seat_view(2).shown == (Secret.roles(W), Secret.seats((1, 2)))
    assert game.seat_view(3).shown == (Secret.roles(HI), Secret.roles(W))
    assert game.seat_view(4).shown == (Secret.roles(S), Secret.roles(W))
    assert game.seat_view(5).shown == (Secret.roles(I_),)
    # The robbed player still sees the card he was dealt; the swap is not his to know.
    assert game.seat_view(1).dealt == W
    assert game.seat_view(4).dealt == S


def test_after_the_end_the_roles_are_public() -> None:
    game, _ = play(A_T1, A_T1_ANSWERS)
    view = game.public_view()
    assert view.eliminated == ((1, "burned"), (3, "burned"))
    assert view.alive == (2, 4, 5)
    assert view.revealed == {1: S, 2: W, 3: HI, 4: W, 5: I_}


def test_a_lone_wolf_peek_is_his_alone() -> None:
    deal = Deal((W, HI, S, I_, I_), (I_, W, I_))
    game, _ = play(deal, {"n1.werewolves": "center 2"}, lone_wolf_peek=True)
    assert game.seat_view(1).shown == (Secret.roles(W), Secret.seats(()), Secret.roles(W))
    for seat in (3, 4, 5):
        assert all(secret.kind == "roles" for secret in game.seat_view(seat).shown)
        assert len(game.seat_view(seat).shown) == 1


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@given(
    players=st.integers(3, 7),
    seed=st.integers(0, 2**32 - 1),
    peek=st.booleans(),
    data=st.data(),
)
def test_random_games_keep_their_views(
    players: int, seed: int, peek: bool, data: st.DataObject
) -> None:
    sw = make_switches(VARIANT, {"lone_wolf_peek": peek})
    deal = shuffled_deal(VARIANT.composition(players, sw), players, random.Random(seed))

    def answers(prompt: Prompt) -> list[str]:
        return data.draw(st.lists(st.sampled_from(prompt.options), max_size=2), label=prompt.id)

    game = VARIANT.new_game(deal, sw, random.Random(0))
    table = ViewWatchingTable(deal, answers)
    outcome = table.run(game)
    assert outcome is not None
    assert game.public_view().revealed == dict(outcome.reveal)
    assert set(game.public_view().revealed) == set(range(1, players + 1))
