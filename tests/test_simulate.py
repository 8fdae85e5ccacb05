"""``narrator simulate``: reproducible figures, honest intervals, policies that only give
legal answers from what their seat could know, and one clear line for bad input.

No test depends on the machine's speed: the speed is scripts/bench_simulate.py's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from narrator import cli
from narrator.rules import halloween
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Eliminate
from narrator.rules.core import Say
from narrator.rules.core import Timer
from narrator.rules.core import shuffled_deal
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.simulate import run
from narrator.simulate.driver import IllegalPolicy
from narrator.simulate.driver import accept
from narrator.simulate.driver import game_rngs
from narrator.simulate.driver import play
from narrator.simulate.informed import STRATEGIES
from narrator.simulate.informed import informed_players
from narrator.simulate.informed.base import InformedPlayers
from narrator.simulate.informed.knowledge import Mind
from narrator.simulate.informed.sport_mafia import SportMafia
from narrator.simulate.players import RandomPlayers
from narrator.simulate.run import Setup
from narrator.simulate.run import check_setup
from narrator.simulate.run import simulate
from narrator.simulate.tally import Tally
from narrator.simulate.tally import wilson

GAMES = {"onenight": 5, "halloween": 9, "sport_mafia": 10, "alliance": 12}


def same(first: Tally, second: Tally) -> None:
    assert first.games == second.games
    assert first.wins == second.wins
    assert (first.nights, first.days) == (second.nights, second.days)
    assert first.causes == second.causes
    assert first.lengths == second.lengths


# --- reproducible, whatever the processes ---------------------------------------------------


@pytest.mark.parametrize(("game", "policy"), [("onenight", "random"), ("halloween", "informed")])
def test_the_same_seed_gives_the_same_figures_with_one_process_or_three(
    game: str, policy: str
) -> None:
    setup = Setup(game, GAMES[game], policy=policy)
    alone = simulate(setup, 240, seed=11, jobs=1)
    same(alone, simulate(setup, 240, seed=11, jobs=3))
    same(alone, simulate(setup, 240, seed=11, jobs=2))
    assert alone.wins != simulate(setup, 240, seed=12, jobs=1).wins  # the seed matters


def test_a_game_is_a_function_of_the_seed_and_its_index_alone() -> None:
    table = check_setup(Setup("alliance", 10, policy="informed"))
    first = [run.play_one(table, 5, index) for index in (3, 4, 5)]
    again = [run.play_one(table, 5, index) for index in (5, 3, 4)]
    assert first == [again[1], again[2], again[0]]


def test_parts_cover_every_game_once() -> None:
    for games, jobs in [(1, 4), (7, 2), (1000, 3), (5, 1)]:
        covered = [i for start, stop in run.parts(games, jobs) for i in range(start, stop)]
        assert covered == list(range(games))


# --- intervals ------------------------------------------------------------------------------


@pytest.mark.parametrize(("hits", "total"), [(0, 10), (10, 10), (1, 3), (500, 1000), (7, 1)])
def test_the_interval_contains_the_rate_and_stays_within_0_and_1(hits: int, total: int) -> None:
    if hits > total:
        with pytest.raises(ValueError):
            wilson(hits, total)
        return
    interval = wilson(hits, total)
    assert 0 <= interval.low <= interval.rate <= interval.high <= 1
    assert interval.rate == hits / total
    assert interval.high - interval.low > 0  # never degenerate, even at 0 or all hits


def test_the_wilson_interval_has_its_textbook_values() -> None:
    interval = wilson(50, 100)
    assert interval.low == pytest.approx(0.4038, abs=1e-4)
    assert interval.high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 20).high == pytest.approx(0.1611, abs=1e-4)


def test_every_rate_of_a_run_lies_in_its_interval_and_the_rates_add_up() -> None:
    tally = simulate(Setup("halloween", 7), 300, seed=2)
    assert sum(tally.rate(w).rate for w in tally.wins) == pytest.approx(1.0)
    for winner in tally.wins:
        interval = tally.rate(winner)
        assert interval.low <= interval.rate <= interval.high


# --- policies: legal answers only, from what the seat could know ------------------------------


class Watched:
    """Players whose every answer is checked to be one the prompt accepts."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.watching = inner.watching
        self.answers = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def answer(self, prompt: Prompt, alive: tuple[Seat, ...]) -> str | None:
        text: str | None = self.inner.answer(prompt, alive)
        if text is not None:
            accept(prompt, text, {})  # raises IllegalPolicy for an answer it does not take
            if isinstance(self.inner, RandomPlayers):
                assert text in prompt.options
            self.answers += 1
        return text


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("policy", ["random", "informed"])
def test_policies_give_only_answers_the_prompts_accept(game: str, policy: str) -> None:
    table = check_setup(Setup(game, GAMES[game], policy=policy))
    make = run.players_maker(table)
    answered = 0
    for index in range(25):
        chance, rules = game_rngs(7, index)
        deal = shuffled_deal(table.composition, table.setup.players, chance)
        players = Watched(make(chance))
        result = play(table.variant.new_game(deal, table.switches, rules), players)
        assert result.winner is not None
        answered += players.answers
    assert answered > 25


def test_an_answer_a_prompt_does_not_take_is_a_bug_not_a_game_event() -> None:
    from narrator.rules.halloween import vote_prompt

    prompt = vote_prompt(Tag(day(1), "vote", 3), 3, (1, 2, 3, 4, 5, 6, 7), (1, 2, 3, 4, 5, 6, 7), 7)
    with pytest.raises(IllegalPolicy, match=r"d1\.vote\.3"):
        accept(prompt, "3", {})  # a vote for oneself


class Sealed:
    """Another seat's mind: touching it is reading what this seat cannot know."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a decision read the private knowledge of seat {self.seat}")


class Blindfolded:
    """Informed players whose every decision may read only the minds of the seats that
    make it: the others are sealed while it is made."""

    def __init__(self, inner: InformedPlayers) -> None:
        self.inner = inner
        self.watching = True
        self.decisions = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @contextmanager
    def only(self, seats: tuple[Seat, ...]) -> Iterator[None]:
        strategy = self.inner.strategy
        minds = strategy.minds
        strategy.minds = {s: m if s in seats else Sealed(s) for s, m in minds.items()}  # type: ignore[misc]
        try:
            yield
        finally:
            strategy.minds = minds

    def answer(self, prompt: Prompt, alive: tuple[Seat, ...]) -> str | None:
        seats = prompt.seats or alive  # a whole-table count: each living seat its own hand
        self.decisions += bool(prompt.seats)
        with self.only(tuple(seats)):
            return self.inner.answer(prompt, alive)

    def talk(self, timer: Timer, alive: tuple[Seat, ...]) -> None:
        speakers = (timer.seat,) if timer.seat is not None else alive
        with self.only(tuple(speakers)):
            self.inner.talk(timer, alive)


@pytest.mark.parametrize("game", GAMES)
def test_an_informed_decision_reads_only_the_minds_of_the_seats_making_it(game: str) -> None:
    table = check_setup(Setup(game, GAMES[game], policy="informed"))
    decisions = 0
    for index in range(15):
        chance, rules = game_rngs(3, index)
        deal = shuffled_deal(table.composition, table.setup.players, chance)
        players = Blindfolded(informed_players(game, table.setup.players, table.counts, chance))
        play(table.variant.new_game(deal, table.switches, rules), players)
        decisions += players.decisions
    assert decisions > 15


def villager_vote(cards: Mapping[Seat, str]) -> str | None:
    """Seat 5, a villager, votes on day 1 after the same public night, whatever the others hold."""
    counts = {halloween.VAMPIRE: 2, halloween.WITCH: 1, halloween.HUNTER: 1, halloween.VILLAGER: 5}
    players = informed_players("halloween", 9, counts, random.Random(4))
    for seat, card in cards.items():
        players.dealt(seat, card)
    players.phase(night(1))
    players.eliminated(Eliminate(2, night(1), "attacked", shown_role=cards[2]))
    players.phase(day(1))
    players.said(Say("halloween.vote"))
    prompt = halloween.vote_prompt(
        Tag(day(1), "vote", 5), 5, (1, 3, 4, 5, 6, 7, 8, 9), (1, 3, 4, 5, 6, 7, 8, 9), 9
    )
    return players.answer(prompt, (1, 3, 4, 5, 6, 7, 8, 9))


def test_a_villager_votes_the_same_whoever_holds_the_other_cards() -> None:
    v, w, h, c = halloween.VAMPIRE, halloween.WITCH, halloween.HUNTER, halloween.VILLAGER
    one = villager_vote(dict(enumerate((v, c, v, w, c, h, c, c, c), start=1)))
    other = villager_vote(dict(enumerate((c, c, w, h, c, v, v, c, c), start=1)))
    assert one == other
    assert one is not None and one != "5"


def test_a_mind_knows_only_what_it_was_told() -> None:
    players = informed_players("halloween", 7, {"vampire": 2}, random.Random(1))
    players.dealt(3, halloween.HUNTER)
    prompt = halloween.hunter_prompt(1, 3, (1, 2, 3, 4, 5, 6, 7), 7)
    players.answered(prompt, SeatAnswer(6))
    from narrator.rules.core import Secret

    players.shown(Tag(night(1), "hunter"), (3,), Secret.token("yes"))
    hunter, other = players.minds[3], players.minds[4]
    assert hunter.checks == {6: True} and 6 in hunter.evil
    assert other.card is None and not other.checks and not other.evil
    assert isinstance(other, Mind)


# --- informed play differs from random play where it must -----------------------------------


def test_informed_black_players_hit_every_shot_random_ones_not() -> None:
    """Random shooters pick any listed shot (some miss); informed ones agree every night."""
    informed = simulate(Setup("sport_mafia", 10, policy="informed"), 300, seed=1)
    randomly = simulate(Setup("sport_mafia", 10, policy="random"), 300, seed=1)
    hit_informed = informed.causes["shot"] / informed.nights
    hit_random = randomly.causes["shot"] / randomly.nights
    assert hit_informed > 0.95
    assert hit_random < hit_informed - 0.1


class SilentSheriff(SportMafia):
    """The same table, except that the sheriff keeps what he found to himself."""

    def wants_to_announce(self, mind: Mind, timer: Timer) -> bool:
        return False

    def check(self, prompt: Prompt) -> str | None:
        return self.any_option(prompt)


def red_wins(strategy: type[SportMafia], games: int) -> Tally:
    table = check_setup(Setup("sport_mafia", 10, policy="informed"))
    tally = Tally()
    for index in range(games):
        chance, rules = game_rngs(21, index)
        deal = shuffled_deal(table.composition, 10, chance)
        players = InformedPlayers(strategy, 10, table.counts, chance)
        tally.add(play(table.variant.new_game(deal, table.switches, rules), players))
    return tally


def test_the_sheriffs_checks_help_the_town() -> None:
    talking, silent = red_wins(SportMafia, 1500), red_wins(SilentSheriff, 1500)
    assert talking.rate("red").low > silent.rate("red").high


def test_the_town_votes_out_more_vampires_when_the_hunter_speaks() -> None:
    informed = simulate(Setup("halloween", 9, policy="informed"), 400, seed=5)
    randomly = simulate(Setup("halloween", 9, policy="random"), 400, seed=5)
    assert informed.rate("villagers").low > randomly.rate("villagers").high


def test_every_game_has_an_informed_strategy() -> None:
    assert set(STRATEGIES) == set(GAMES)


# --- the command --------------------------------------------------------------------------


def test_the_command_prints_rates_with_intervals_lengths_and_causes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(["simulate", "halloween", "--players", "8", "--games", "300", "--lang", "en"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Halloween mafia, 8 players" in out
    assert "The villagers win: " in out and "The vampires win: " in out
    assert "% (" in out and "–" in out  # rate (low–high %)
    assert "nights and" in out and "days on average" in out
    assert "voted out" in out or "attacked at night" in out
    assert "Games: 300" in out


def test_the_command_speaks_russian_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "onenight", "--games", "50"]) == 0
    out = capsys.readouterr().out
    assert "Победила инквизиция" in out and "Победили оборотни" in out and "сожжён" in out


def test_the_chart_is_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chart = tmp_path / "win.png"
    args = ["simulate", "onenight", "--games", "60", "--plot", str(chart), "--lang", "en"]
    assert cli.main(args) == 0
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"Chart: {chart}" in capsys.readouterr().out


BAD = [
    (["halloween", "-o", "roles=vampire=6"], "evil team must be fewer"),
    (["halloween", "-o", "roles=werewolf=2"], "unknown role"),
    (["halloween", "-o", "no_such_switch=1"], "unknown option for halloween"),
    (["halloween", "-o", "cycle_limit=0"], "cycle_limit"),
    (["halloween", "--players", "5"], "7–12 players, not 5"),
    (["sport_mafia", "-o", "roles=mafia=2"], "fixed composition"),
    (["halloween", "--games", "0"], "--games 0"),
    (["halloween", "--games", "-5"], "--games -5"),
    (["halloween", "--jobs", "0"], "--jobs 0"),
    (["nosuchgame"], "unknown game"),
    (["halloween", "--plot", "/nonexistent-folder/win.png"], "does not exist"),
    (["halloween", "--plot", "win.svg"], "PNG"),
    (["halloween", "--plot", "/proc/win.png"], "cannot write there"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_input_is_one_line_and_exit_2_before_any_game(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    def no_game(*args: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(run, "play_range", no_game)
    assert cli.main(["simulate", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and err.startswith("narrator: ")


def test_an_unwritable_plot_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        code = cli.main(["simulate", "onenight", "--games", "5", "--plot", str(folder / "w.png")])
    finally:
        folder.chmod(0o700)
    err = capsys.readouterr().err
    if code == 0:  # root writes anywhere: nothing to refuse
        pytest.skip("this user can write in a read-only folder")
    assert code == 2 and "cannot write there" in err


def test_a_plot_path_that_is_a_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "chart.png"
    folder.mkdir()
    assert cli.main(["simulate", "onenight", "--plot", str(folder)]) == 2
    assert "a folder, not a file to write" in capsys.readouterr().err


def test_a_missing_matplotlib_is_one_line_naming_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    code = cli.main(["simulate", "onenight", "--plot", str(tmp_path / "w.png")])
    err = capsys.readouterr().err
    assert code == 2 and "pip install matplotlib" in err


def test_the_informed_policy_refuses_a_game_it_does_not_know() -> None:
    with pytest.raises(Exception, match="informed policy knows how to play"):
        check_setup(Setup("toy", 3, policy="informed"))


def test_the_toy_game_plays_randomly() -> None:
    variant = get_variant("toy")
    seats = variant.seat_counts.start
    tally = simulate(Setup("toy", seats), 20, seed=1)
    assert tally.games == 20
    assert make_switches(variant, {}) is not None


# --- the recommended compositions: the set-up screen's default ------------------------------


def test_every_recommended_composition_is_one_the_rules_allow() -> None:
    from narrator.rules.recommended import HALLOWEEN
    from narrator.rules.recommended import recommended_roles

    variant = get_variant("halloween")
    assert set(HALLOWEEN) == set(variant.seat_counts)
    for players, cards in HALLOWEEN.items():
        roles = ",".join(f"{r}={n}" for r, n in cards.items() if r != "villager")
        assert recommended_roles("halloween", players) in {roles, None}  # None: the seed's
        counts = variant.composition(players, make_switches(variant, {"roles": roles})).counts
        assert {r: n for r, n in counts.items() if n} == {r: n for r, n in cards.items() if n}


def test_a_composition_of_ones_own_wins_over_the_recommended_one() -> None:
    from narrator.rules.recommended import with_recommended

    assert with_recommended("halloween", 9, {})["roles"] == "vampire=1,witch=1,hunter=0"
    assert with_recommended("halloween", 9, {"roles": "vampire=3"}) == {"roles": "vampire=3"}
    assert with_recommended("onenight", 5, {"center_cards": 3}) == {"center_cards": 3}
    assert with_recommended("halloween", 13, {}) == {}  # no table: the rules say no anyway


def test_the_seeds_own_composition_stays_the_default_where_the_seed_fixes_it() -> None:
    """The seed's worked example deals 7 players 2 vampires, a witch and a hunter: there the
    recommendation is advice only, the rules' table (docs/games/halloween.md §2.2) is dealt."""
    from narrator.rules.recommended import HALLOWEEN
    from narrator.rules.recommended import with_recommended

    assert 7 in HALLOWEEN  # advice exists ...
    assert with_recommended("halloween", 7, {}) == {}  # ... but the seed's deal stays
    variant = get_variant("halloween")
    counts = variant.composition(7, make_switches(variant, {})).counts
    assert {r: n for r, n in counts.items() if n} == {
        "vampire": 2,
        "witch": 1,
        "hunter": 1,
        "villager": 3,
    }


def test_the_set_up_screen_deals_the_recommended_composition(tmp_path: Path) -> None:
    from collections import Counter

    from narrator.app import chosen_game
    from narrator.prepared import prepare
    from narrator.rules.recommended import HALLOWEEN
    from narrator.settings import TableSettings
    from narrator.voice.catalog import load_catalog
    from tests.test_setup_screen import run_setup
    from tests.test_setup_screen import setup_of

    settings = TableSettings(game="halloween", players=9, lang="en", record_dir=tmp_path)
    shown: list[str] = []

    async def steps(pilot: Any, app: Any) -> None:
        from textual.widgets import Static

        await pilot.pause()
        shown.append(str(setup_of(app).query_one("#composition", Static).render()))

    (values,) = run_setup(settings, tmp_path, steps)
    catalog = load_catalog("en")
    cards = {r: n for r, n in HALLOWEEN[9].items() if n}
    roles = ", ".join(f"{catalog.text(f'role.{r}')} × {n}" for r, n in cards.items())
    assert catalog.text("setup.composition", {"players": 9, "roles": roles}) in shown[0]
    _, prepared = chosen_game(values, settings, prepare(settings))
    assert dict(Counter(prepared.deal.seats)) == cards
    # without the set-up screen (--text, a demo, a scenario) the rules' own table is dealt
    assert Counter(prepare(settings).deal.seats)["vampire"] == 2
