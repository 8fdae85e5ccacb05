"""The game-length estimate of the set-up screen (narrator/estimate.py).

Bounds here come from the rules and the estimate's documented assumptions (a
window or a timer lasts its full length, a day answer takes ANSWER_TYPING_S, a
dealt card DEAL_CARD_S), never from a figure the estimate once printed. Speed is
measured by scripts/bench_estimate.py, not here.
"""

from __future__ import annotations

from typing import Any

import pytest

from narrator.estimate import ANSWER_TYPING_S
from narrator.estimate import DEAL_CARD_S
from narrator.estimate import GAMES
from narrator.estimate import Length
from narrator.estimate import clear_cache
from narrator.estimate import expected_length
from narrator.estimate import percentile
from narrator.rules.errors import ConfigError
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches

# Each game at the seat count `narrator play` starts it with.
DEFAULT_TABLES = {"onenight": 5, "halloween": 10, "sport_mafia": 10, "alliance": 11}

# A switch of each game that lengthens a wake window, and one that lengthens talk.
LONGER_WINDOWS = {
    "onenight": {"window_s": 60},
    "halloween": {"window_s": 60},
    "sport_mafia": {"check_s": 30},
    "alliance": {"window_s": 60},
}
LONGER_TALK = {
    "onenight": {"discussion_s": 600},
    "halloween": {"discussion_s": 600},
    "sport_mafia": {"speech_s": 120},
    "alliance": {"speech_s": 180},
}


def figures(length: Length) -> tuple[float, float, float]:
    return length.low_min, length.median_min, length.high_min


@pytest.mark.parametrize("game", DEFAULT_TABLES)
def test_the_same_seed_gives_the_same_estimate(game: str) -> None:
    players = DEFAULT_TABLES[game]
    first = expected_length(game, players, {}, seed=3)
    expected_length(game, players, {}, seed=4)  # another game in between changes nothing
    clear_cache()
    again = expected_length(game, players, {}, seed=3)
    assert again is not first  # played again, not served from the cache
    assert again == first


@pytest.mark.parametrize("game", DEFAULT_TABLES)
def test_percentiles_are_in_order(game: str) -> None:
    length = expected_length(game, DEFAULT_TABLES[game], {})
    assert 0 < length.low_min <= length.median_min <= length.high_min
    assert length.games == GAMES
    assert length.nights >= 1


def test_the_same_arguments_are_answered_from_the_cache() -> None:
    first = expected_length("halloween", 9, {"discussion_s": 120.0})
    assert expected_length("halloween", 9, {"discussion_s": 120.0}) is first


def test_onenight_discussion_counts_in_full() -> None:
    """600 s instead of 60 s of discussion: the same games, nine minutes longer each."""
    short = expected_length("onenight", 5, {"discussion_s": 60})
    long = expected_length("onenight", 5, {"discussion_s": 600})
    for shorter, longer in zip(figures(short), figures(long), strict=True):
        assert longer - shorter == pytest.approx(9.0, abs=1e-9)


@pytest.mark.parametrize("longer_parts", [LONGER_WINDOWS, LONGER_TALK], ids=["windows", "talk"])
@pytest.mark.parametrize("game", DEFAULT_TABLES)
def test_longer_windows_or_speeches_and_discussions_make_a_longer_game(
    game: str, longer_parts: dict[str, dict[str, float]]
) -> None:
    players = DEFAULT_TABLES[game]
    usual = expected_length(game, players, {})
    longer = expected_length(game, players, longer_parts[game])
    for before, after in zip(figures(usual), figures(longer), strict=True):
        assert after > before


def test_a_day_answer_takes_typing_time_at_most_the_answer_time() -> None:
    """Votes take ANSWER_TYPING_S whatever the answer time, unless the answer time is shorter."""
    usual = expected_length("halloween", 10, {}, answer_s=60)
    assert expected_length("halloween", 10, {}, answer_s=600) == usual
    hurried = expected_length("halloween", 10, {}, answer_s=ANSWER_TYPING_S / 2)
    assert hurried.median_min < usual.median_min


def test_sport_mafia_at_ten_seats_takes_an_evening_hour() -> None:
    """No game ends before the vote of day 1 (docs/games/sport_mafia.md), which comes after
    ten one-minute speeches, the card night (ten cards dealt) and the one-minute mafia
    meeting: 12 min. A win needs three black players out or four red ones, and at most
    one seat leaves per night and, but for a perestrelka, per day, so a typical game has
    at least two full days of speeches (10 + 8 minutes) besides the deal and the nights:
    20 min. At the other end, four red seats shot on four nights end the game by day 5
    even if nobody is voted out: 10 + 9 + 8 + 7 one-minute speeches, last words and
    nights come to under an hour; two hours leave room for missed shots and
    perestrelkas."""
    length = expected_length("sport_mafia", 10, {})
    first_vote_min = (10 * 60 + 60 + 10 * DEAL_CARD_S) / 60
    assert length.low_min >= first_vote_min
    assert 20 <= length.median_min <= 120
    assert length.high_min <= 120


def test_onenight_ends_after_one_night_and_is_short() -> None:
    """One night, one discussion, one vote (docs/games/onenight.md). Its fixed part is the
    discussion, the three windows, the deal and every player's vote; the lines said around
    them (about 35 for five players, none longer than a few seconds) add minutes, not
    more."""
    length = expected_length("onenight", 5, {})
    fixed_min = (300 + 3 * 10 + 5 * DEAL_CARD_S + 5 * ANSWER_TYPING_S) / 60
    assert length.nights == 1
    assert fixed_min <= length.low_min <= length.high_min <= fixed_min + 5
    assert length.high_min < expected_length("sport_mafia", 10, {}).low_min


def test_both_languages_are_estimated() -> None:
    for game, players in DEFAULT_TABLES.items():
        ru = expected_length(game, players, {}, lang="ru")
        en = expected_length(game, players, {}, lang="en")
        assert en.nights == ru.nights  # the same games, only said in other words
        assert en.median_min == pytest.approx(ru.median_min, rel=0.1)


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("sport_mafia", 9, {}),
        ("sport_mafia", 10, {"roles": "mafia=3"}),
        ("halloween", 13, {}),
        ("halloween", 7, {"roles": "vampire=4"}),
        ("onenight", 5, {"roles": "werewolf=9"}),
        ("alliance", 8, {}),
    ],
)
def test_a_table_that_does_not_fit_raises_the_variant_error(
    game: str, players: int, options: dict[str, Any]
) -> None:
    variant = get_variant(game)
    with pytest.raises(ConfigError) as wanted:
        variant.composition(players, make_switches(variant, options))
    with pytest.raises(ConfigError) as got:
        expected_length(game, players, options)
    assert str(got.value) == str(wanted.value)


def test_unknown_names_and_values_are_configuration_errors() -> None:
    with pytest.raises(ConfigError, match="unknown game 'chess'"):
        expected_length("chess", 5, {})
    with pytest.raises(ConfigError, match="unknown option for onenight"):
        expected_length("onenight", 5, {"speed": 2})
    with pytest.raises(ConfigError, match="unknown language 'de'"):
        expected_length("onenight", 5, {}, lang="de")
    with pytest.raises(ConfigError, match="answer time"):
        expected_length("onenight", 5, {}, answer_s=0)
    with pytest.raises(ConfigError, match="at least one game"):
        expected_length("onenight", 5, {}, games=0)


def test_percentile_interpolates_between_neighbours() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert percentile([0.0, 10.0], 0.1) == pytest.approx(1.0)
    assert percentile([7.0], 0.9) == 7.0
