"""One meaning per key: the keypad codec, and the table loop reading keys and spoken attempts.

The mismatches found before are pinned here: several seats need a separator
the keypad has, the sheriff's order is typed ``5+``, ``0`` is 0 hands at a count,
the call-mode shot is judged by the rules, and a spoken answer arrives as an
attempt for its prompt, never as simulated key presses.
"""

from __future__ import annotations

import pytest

from narrator.rules import codec
from narrator.rules import phases
from narrator.rules.alliance import badge_prompt
from narrator.rules.alliance import candidates_prompt
from narrator.rules.alliance import explode_prompt
from narrator.rules.alliance import order_prompt
from narrator.rules.answers import Abstain
from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import Destroy
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import Nobody
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.answers import YesNo
from narrator.rules.errors import NarratorError
from narrator.rules.halloween import vote_prompt as halloween_vote
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import high_inquisitor_prompt
from narrator.rules.onenight import vote_prompt as onenight_vote
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.sport_mafia import count_prompt
from narrator.rules.sport_mafia import shoot_prompt
from narrator.rules.sport_mafia import shots_of
from narrator.voice.catalog import load_catalog

LIVING = tuple(range(1, 13))


def keyed(prompt: Prompt, typed: str) -> object:
    return prompt.accept(codec.from_keys(typed, prompt))


def test_several_seats_are_separated_by_the_keypad_dot_or_a_space() -> None:
    prompt = candidates_prompt(1, LIVING, 12)
    assert keyed(prompt, "2.5") == SeatsAnswer((2, 5))
    assert keyed(prompt, "2 5") == SeatsAnswer((2, 5))
    assert keyed(prompt, "0") == Nobody()


def test_the_sheriffs_order_is_typed_with_its_direction() -> None:
    prompt = order_prompt(1, 5, (4, 6), 12)
    assert keyed(prompt, "4+") == OrderAnswer(4, 1)
    assert keyed(prompt, "6-") == OrderAnswer(6, -1)
    assert keyed(prompt, "6 -") == OrderAnswer(6, -1)


def test_zero_means_what_nothing_means_at_each_prompt() -> None:
    assert keyed(count_prompt(Tag(phases.day(1), "vote", 4), 9), "0") == CountAnswer(0)
    assert (
        keyed(halloween_vote(Tag(phases.day(1), "vote", 3), 3, (1, 2, 3), (1, 2), 7), "0")
        == Abstain()
    )
    assert keyed(badge_prompt(1, 5, LIVING, 12), "0") == Nobody()
    with pytest.raises(NarratorError) as refused:  # the onenight vote has no "nobody"
        keyed(onenight_vote(1, 5, OneNightSwitches()), "0")
    assert refused.value.key == "reason.no_such_seat"


def test_centre_cards_and_explosions_start_with_a_star() -> None:
    seer = high_inquisitor_prompt(1, 5, OneNightSwitches())
    assert keyed(seer, "*13") == CenterAnswer((1, 3))
    assert keyed(seer, "*1.3") == CenterAnswer((1, 3))
    explode = explode_prompt(Tag(phases.day(1), "speeches.explode"), 3, (1, 5), 12)
    assert codec.interrupt_from_keys("*5", explode) == "5 3"
    assert explode.accept("5 3") == ExplodeAnswer(5, 3)
    assert codec.interrupt_from_keys("5", explode) is None


@pytest.mark.parametrize(
    "prompt",
    [
        candidates_prompt(1, LIVING, 12),
        order_prompt(1, 5, (4, 6), 12),
        badge_prompt(1, 5, LIVING, 12),
        count_prompt(Tag(phases.day(1), "vote", 4), 9),
        halloween_vote(Tag(phases.day(1), "vote", 3), 3, (1, 2, 3), (1, 2), 7),
        high_inquisitor_prompt(1, 5, OneNightSwitches()),
        shoot_prompt(1, (3, 6, 9), LIVING[:10]),
    ],
    ids=lambda p: p.id,
)
def test_every_option_typed_as_a_player_types_it_means_the_same(prompt: Prompt) -> None:
    for option in prompt.options:
        entries = [codec.from_keys(keys, prompt) for keys in codec.to_keys(option, prompt)]
        typed, meant = prompt.accept(" ".join(entries)), prompt.accept(option)
        assert typed == meant or {typed, meant} <= NOTHING, option


NOTHING = {Nobody(), Destroy()}  # the badge: "none" (the keypad's 0) destroys it too


def test_the_rules_judge_a_call_mode_shot() -> None:
    prompt = shoot_prompt(1, (3, 6, 9), LIVING[:10], calls=True)
    assert prompt.calls and not prompt.spoken
    hit = prompt.accept(codec.presses([4, 4, 4]))
    assert shots_of(hit, 3) == (4, 4, 4)
    assert shots_of(prompt.accept(codec.presses([4, 4, 5])), 3) == (None, None, None)
    assert shots_of(prompt.accept(codec.presses([4, 4])), 3) == (None, None, None)
    assert shots_of(prompt.accept(codec.presses([None, 4, 4])), 3) == (None, None, None)


def test_accepted_answers_are_shown_in_words() -> None:
    ru = load_catalog("ru")

    def word(key: str, **params: object) -> str:
        return ru.text(key, params)

    assert codec.shown(Nobody(), word) == "никого"
    assert codec.shown(YesNo(True), word) == "да"
    assert codec.shown(Destroy(), word) == "уничтожить"
    assert codec.shown(SeatsAnswer((2, 5)), word) == "2, 5"
    assert codec.shown(OrderAnswer(5, 1), word) == "от игрока 5 по возрастанию номеров"
    assert codec.shown(CenterAnswer((1, 3)), word) == "центр 1, 3"
    assert codec.shown(SeatAnswer(7), word) == "7"


def test_a_prompt_says_through_which_channels_it_is_answered() -> None:
    night = high_inquisitor_prompt(1, 5, OneNightSwitches())
    day = onenight_vote(1, 5, OneNightSwitches())
    assert night.tag.by_night and not night.spoken
    assert day.spoken and not day.calls
    assert day.id == "d1.vote.1" and day.tag == Tag(phases.day(1), "vote", 1)
