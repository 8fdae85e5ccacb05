"""Property tests of «Хэллоуинская мафия»: random playouts, the dead never act, nothing leaks.

Every game is played through a fake table (a small Driver subclass) whose
attempts come from hypothesis: legal options, dead or own seats, garbage, or
nothing at all (the window expires).  The fake table checks the secret channel
as it goes; the tests then check the result against an independent model.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from narrator.drive import ALREADY_ANSWERED, Driver
from narrator.record import GameRecord
from narrator.rules.answers import Abstain, Answer, Nobody, SeatAnswer
from narrator.rules.core import (
    Ask,
    Deal,
    DealCard,
    Eliminate,
    Outcome,
    Phase,
    Prompt,
    RoleName,
    Say,
    Secret,
    Show,
    Step,
    Timer,
    Wake,
    shuffled_deal,
)
from narrator.rules.errors import ConfigError, NarratorError
from narrator.rules.halloween import (
    DRAW,
    HUNTER,
    VAMPIRE,
    VAMPIRES,
    VILLAGERS,
    WITCH,
    HalloweenSwitches,
)
from narrator.rules.registry import get_variant, make_switches
from narrator.voice.catalog import LANGUAGES, Catalog, load_catalog, placeholders

VARIANT = get_variant("halloween")
RU = load_catalog("ru")
EN = load_catalog("en")

PROPERTIES = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

GARBAGE = ("", "seven", "13", "0", "none", "abstain", "yes", "center 1 2", "4 4", "²")
END_LINES = frozenset(
    {
        "halloween.win_villagers",
        "halloween.win_vampires",
        "halloween.draw",
        "halloween.draw_6",
    }
)

Choose = Callable[[Prompt], list[str]]


class FakeTable(Driver):
    """A table whose windows pass at once; it asserts the channel rules while it plays.

    A secret is shown only inside a window to seats awake in it, or dealt to its
    own seat; no prompt, window or option ever involves a seat that has left.
    """

    def __init__(self, lang: str, deal: Deal, choose: Choose) -> None:
        super().__init__(load_catalog(lang), GameRecord())
        self.deal = deal
        self.choose = choose
        self.steps: list[Step] = []
        self.spoken: list[tuple[Say, str]] = []
        self.accepted: dict[str, Answer] = {}
        self.dead: dict[int, str] = {}  # seat -> the role turned face up
        self.awake: frozenset[int] | None = None
        self.outcome: Outcome | None = None
        self.reasons: list[tuple[str, dict[str, object]]] = []

    def carry_out(self, step: Step) -> Answer | None:
        self.steps.append(step)
        if isinstance(step, Say):
            self.spoken.append((step, self.catalog.text(step.key, step.params)))
        if isinstance(step, Eliminate):
            assert step.seat not in self.dead, f"{step.seat} leaves twice"
            assert step.shown_role == self.deal.role_of(step.seat)
            self.dead[step.seat] = step.shown_role
        return super().carry_out(step)

    def say(self, key: str, text: str) -> None:
        assert text.strip(), key

    def wake(self, step: Wake) -> None:
        assert self.awake is None, f"{step.window} opens inside another window"
        assert not set(step.seats) & set(self.dead), f"the dead wake in {step.window}"
        self.awake = frozenset(step.seats)

    def ask(self, prompt: Prompt) -> Answer:
        assert prompt.seats, prompt.id
        assert not set(prompt.seats) & set(self.dead), f"{prompt.id} asks the dead"
        dead_options = {str(s) for s in self.dead} & set(prompt.options)
        assert not dead_options, f"{prompt.id} offers dead seats {dead_options}"
        if prompt.id.startswith("n"):
            assert self.awake is not None, f"night prompt {prompt.id} outside a window"
            assert set(prompt.seats) <= self.awake, prompt
        else:
            assert self.awake is None
        accepted: Answer | None = None
        for text in self.choose(prompt):
            answer = self.attempt(prompt, text, answered=accepted is not None)
            if accepted is None:
                accepted = answer
        if accepted is None:
            accepted = self.expire(prompt)
        if isinstance(accepted, SeatAnswer):
            assert accepted.seat not in self.dead, f"{prompt.id} accepted a dead seat"
        self.accepted[prompt.id] = accepted
        return accepted

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        self.reasons.append((error.key, dict(error.params)))

    def show(self, step: Show) -> None:
        assert self.awake is not None, f"secret {step} shown outside a wake window"
        assert step.to and set(step.to) <= self.awake, f"secret {step} shown to seats asleep"

    def sleep(self) -> None:
        assert self.awake is not None
        self.awake = None

    def deal_card(self, step: DealCard) -> None:
        assert self.awake is None and self.phase == "setup"
        assert step.secret == Secret.roles(self.deal.role_of(step.seat))

    def timer(self, step: Timer) -> None:
        assert self.awake is None
        for _, key in self.timer_warnings(step):
            self.carry_out(Say(key))

    def finished(self, outcome: Outcome) -> None:
        assert self.awake is None
        self.outcome = outcome

    def result(self) -> dict[str, Any]:
        return self.record.result("halloween")

    def before_end(self) -> list[tuple[Say, str]]:
        """The spoken lines before the result is announced."""
        keys = [say.key for say, _ in self.spoken]
        end = next((i for i, key in enumerate(keys) if key in END_LINES), len(keys))
        return self.spoken[:end]


# --- strategies --------------------------------------------------------------------------------

ROLE_OVERRIDES = (None, None, None, "vampire=1", "vampire=3", "witch=0", "hunter=0,vampire=1")


@st.composite
def setups(draw: st.DrawFn) -> tuple[int, HalloweenSwitches]:
    players = draw(st.integers(7, 12))
    options: dict[str, Any] = {
        "cycle_limit": draw(st.sampled_from((6, 6, 1, 2, 3))),
        "call_dead_roles": draw(st.booleans()),
        "witch_may_skip": draw(st.booleans()),
        "allow_self_vote": draw(st.booleans()),
        "discussion_s": draw(st.sampled_from((180.0, 30.0))),
    }
    roles = draw(st.sampled_from(ROLE_OVERRIDES))
    if roles is not None:
        options["roles"] = roles
    sw = make_switches(VARIANT, options)
    assert isinstance(sw, HalloweenSwitches)
    try:
        VARIANT.composition(players, sw)
    except ConfigError:
        sw = sw.model_copy(update={"roles": None})
    return players, sw


def attempts(prompt: Prompt, players: int) -> st.SearchStrategy[list[str]]:
    """Up to three attempts: legal options (often), any seat, own seat, garbage."""
    one = st.one_of(
        st.sampled_from(prompt.options),
        st.sampled_from(prompt.options),
        st.sampled_from(prompt.options),
        st.integers(1, players).map(str),
        st.sampled_from([str(s) for s in prompt.seats]),
        st.sampled_from(GARBAGE),
    )
    return st.lists(one, max_size=3)


def drawn_by(data: st.DataObject, players: int, passive_nights: bool = False) -> Choose:
    def choose(prompt: Prompt) -> list[str]:
        if passive_nights and prompt.id.startswith("n"):
            return []
        return data.draw(attempts(prompt, players), label=prompt.id)

    return choose


def deal_for(players: int, sw: HalloweenSwitches, seed: int) -> Deal:
    deal = shuffled_deal(VARIANT.composition(players, sw), players, random.Random(seed))
    VARIANT.validate_deal(deal, sw)
    return deal


def play(lang: str, deal: Deal, sw: HalloweenSwitches, choose: Choose) -> FakeTable:
    table = FakeTable(lang, deal, choose)
    table.run(VARIANT.new_game(deal, sw, random.Random(0)))
    return table


def seat_of(answer: Answer | None) -> int | None:
    return answer.seat if isinstance(answer, SeatAnswer) else None


# --- (a) random playouts end well and follow the rules ----------------------------------------


@PROPERTIES
@given(
    setup=setups(), seed=st.integers(0, 2**32 - 1), lang=st.sampled_from(LANGUAGES), data=st.data()
)
def test_random_playouts_end_with_a_consistent_result(
    setup: tuple[int, HalloweenSwitches], seed: int, lang: str, data: st.DataObject
) -> None:
    players, sw = setup
    deal = deal_for(players, sw, seed)
    table = play(lang, deal, sw, drawn_by(data, players))
    outcome = table.outcome
    assert outcome is not None
    assert outcome.winner in {VILLAGERS, VAMPIRES, DRAW}
    assert dict(outcome.reveal) == dict(enumerate(deal.seats, start=1))
    result = table.result()
    assert (result["winner"], result["ended_at"]) == (outcome.winner, outcome.ended_at)

    # Replay the game on an independent model of RULES.md 2.4-2.7.
    roles = deal.seats
    living = list(range(1, players + 1))
    banned: int | None = None
    expected: list[dict[str, Any]] = []
    end: tuple[str, str] | None = None
    for k in range(1, sw.cycle_limit + 1):
        attack = seat_of(table.accepted.get(f"n{k}.vampires"))
        if attack is not None:
            assert attack in living and roles[attack - 1] != VAMPIRE
        protected = seat_of(table.accepted.get(f"n{k}.witch"))
        if protected is not None:
            assert protected in living and protected != banned
        banned = protected
        victim = attack if attack != protected else None
        if victim is not None:
            living.remove(victim)
            expected.append({"seat": victim, "phase": f"n{k}", "cause": "attacked"})
        if (winner := _winner(roles, living)) is not None:
            end = (winner, f"n{k}")
            break
        votes = {
            v: seat_of(table.accepted.get(f"d{k}.vote.{v}")) for v in living
        }  # every living player voted once
        for voter, target in votes.items():
            assert f"d{k}.vote.{voter}" in table.accepted
            assert target is None or target in living
            assert sw.allow_self_vote or target != voter
        tally = _tally(votes)
        out: int | None = None
        if len(tally) == 1:
            out = tally[0]
        elif len(tally) > 1:
            revotes = {v: seat_of(table.accepted.get(f"d{k}.revote.{v}")) for v in living}
            assert all(t is None or t in tally for t in revotes.values())
            again = _tally(revotes)
            out = again[0] if len(again) == 1 else None
        else:
            assert not [p for p in table.accepted if p.startswith(f"d{k}.revote.")]
        if out is not None:
            living.remove(out)
            expected.append({"seat": out, "phase": f"d{k}", "cause": "voted"})
        if (winner := _winner(roles, living)) is not None:
            end = (winner, f"d{k}")
            break
    if end is None:
        end = (DRAW, f"d{sw.cycle_limit}")
    assert (outcome.winner, outcome.ended_at) == end
    assert result["eliminated"] == expected

    # The hunter's answers are the truth; the vampires see their partners on night 1.
    for secret in result["secrets"][players:]:
        prompt = secret["prompt"]
        if prompt.endswith(".hunter"):
            checked = seat_of(table.accepted[prompt])
            assert checked is not None
            assert secret["shown"] == ("yes" if roles[checked - 1] == VAMPIRE else "no")
        else:
            vampires = list(deal.seats_with(VAMPIRE))
            assert prompt == "n1.vampires"
            assert secret["to"] == vampires
            partners = vampires if len(vampires) > 1 else []
            assert secret["shown"] == " ".join(["seats", *map(str, partners)])

    # Once a prompt has accepted an answer, every later attempt is "already answered".
    answered: set[str] = set()
    for event in table.record.events:
        if event["event"] == "answer":
            if event["prompt"] in answered:
                assert not event["accepted"] and event["reason"] == ALREADY_ANSWERED
            elif event["accepted"]:
                answered.add(event["prompt"])


def _winner(roles: tuple[str, ...], living: list[int]) -> str | None:
    """An independent RULES.md 2.7."""
    vampires = [s for s in living if roles[s - 1] == VAMPIRE]
    if not vampires:
        return VILLAGERS
    return VAMPIRES if 2 * len(vampires) >= len(living) else None


def _tally(votes: Mapping[int, int | None]) -> list[int]:
    """An independent count: the seats with the most votes, if anybody got one."""
    counts: dict[int, int] = {}
    for target in votes.values():
        if target is not None:
            counts[target] = counts.get(target, 0) + 1
    if not counts:
        return []
    top = max(counts.values())
    return sorted(seat for seat, count in counts.items() if count == top)


# --- (b) nothing hidden is spoken; windows follow public facts only ---------------------------


@PROPERTIES
@given(
    setup=setups(), seed=st.integers(0, 2**32 - 1), lang=st.sampled_from(LANGUAGES), data=st.data()
)
def test_no_line_before_the_end_names_a_living_players_role(
    setup: tuple[int, HalloweenSwitches], seed: int, lang: str, data: st.DataObject
) -> None:
    players, sw = setup
    deal = deal_for(players, sw, seed)
    table = play(lang, deal, sw, drawn_by(data, players))
    catalog = table.catalog
    dead: set[int] = set()
    names = {role: catalog.text(f"role.{role}") for role in set(deal.seats)}
    prefix = table.before_end()
    position = 0
    for step in table.steps:
        if isinstance(step, Eliminate):
            dead.add(step.seat)
        if not isinstance(step, Say):
            continue
        if position >= len(prefix):
            break
        say, text = prefix[position]
        assert say is step
        position += 1
        roles = [v for v in say.params.values() if isinstance(v, RoleName)]
        if roles:  # only the card of a player who has just left is named
            assert say.key == "halloween.card", say
        about = say.params.get("seat")
        if roles:
            assert isinstance(about, int) and about in dead
            assert roles == [RoleName(deal.role_of(about))]
        elif isinstance(about, int) and about not in dead:
            named = [r for r, name in names.items() if name in text]
            assert not named, f"{text!r} names {named} next to a living seat"
    assert [say.key for say, _ in table.spoken[len(prefix) :] if say.key == "reveal.seat"] == (
        ["reveal.seat"] * players
    )


@PROPERTIES
@given(setup=setups(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_night_windows_follow_only_public_facts(
    setup: tuple[int, HalloweenSwitches], seed: int, data: st.DataObject
) -> None:
    """Each night's windows are predicted from the composition, the switches and the cards
    turned face up so far: nothing else the table does not know."""
    players, sw = setup
    deal = deal_for(players, sw, seed)
    table = play("ru", deal, sw, drawn_by(data, players))
    composition = VARIANT.composition(players, sw).counts
    revealed: list[str] = []
    night: list[tuple[str, float]] = []
    nights: list[list[tuple[str, float]]] = []
    predicted: list[list[tuple[str, float]]] = []
    for step in table.steps:
        if isinstance(step, Phase):
            if night:
                nights.append(night)
            night = []
            if step.id.startswith("n"):
                k = step.id[1:]
                windows = [(f"n{k}.vampires", sw.window(VAMPIRE))]
                for role in (WITCH, HUNTER):
                    public_dead = role in revealed
                    if composition.get(role, 0) and (sw.call_dead_roles or not public_dead):
                        windows.append((f"n{k}.{role}", sw.window(role)))
                predicted.append(windows)
        elif isinstance(step, Wake):
            night.append((step.window, step.seconds))
        elif isinstance(step, Eliminate):
            assert step.shown_role is not None
            revealed.append(step.shown_role)
    if night:
        nights.append(night)
    assert nights == predicted


@PROPERTIES
@given(
    setup=setups(),
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    lang=st.sampled_from(LANGUAGES),
    data=st.data(),
)
def test_the_spoken_game_does_not_depend_on_the_deal(
    setup: tuple[int, HalloweenSwitches],
    seeds: tuple[int, int],
    lang: str,
    data: st.DataObject,
) -> None:
    """Two deals, the same day answers and silent nights, dead roles called: until the
    game ends the table hears, times and is asked the same things (the names on the
    cards turned up aside)."""
    players, sw = setup
    sw = sw.model_copy(update={"call_dead_roles": True})
    drawn: dict[str, list[str]] = {}

    def choose(prompt: Prompt) -> list[str]:
        if prompt.id.startswith("n"):
            return []
        if prompt.id not in drawn:
            drawn[prompt.id] = data.draw(attempts(prompt, players), label=prompt.id)
        return drawn[prompt.id]

    traces = []
    for seed in seeds:
        table = play(lang, deal_for(players, sw, seed), sw, choose)
        trace: list[object] = []
        for step in table.steps:
            if isinstance(step, Say) and step.key in END_LINES:
                break
            if isinstance(step, Say):  # a card turned up is public, but differs by deal
                params = {k: v for k, v in step.params.items() if not isinstance(v, RoleName)}
                trace.append((step.key, params))
            elif isinstance(step, Wake):
                trace.append(("window", step.window, step.seconds))
            elif isinstance(step, Timer):
                trace.append(("timer", step.id, step.seconds))
            elif isinstance(step, Ask) and step.prompt.id.startswith("d"):
                trace.append(("ask", step.prompt.id, step.prompt.options))
        traces.append(trace)
    shortest = min(len(trace) for trace in traces)
    assert traces[0][:shortest] == traces[1][:shortest]


# --- (c) every line and reason the script emits is in both catalogs ---------------------------


def _random_games() -> list[FakeTable]:
    rng = random.Random(31)
    tables = []
    option_sets: list[dict[str, object]] = [
        {"cycle_limit": limit, "call_dead_roles": dead, "witch_may_skip": skip}
        for limit, dead, skip in itertools.product((6, 2), (False, True), (False, True))
    ]
    option_sets += [
        {"allow_self_vote": True, "discussion_s": 30.0},
        {"roles": "vampire=1"},
        {"roles": "vampire=3,hunter=0"},
    ]
    for options, players, _ in itertools.product(option_sets, range(7, 13), range(3)):
        sw = make_switches(VARIANT, options)
        assert isinstance(sw, HalloweenSwitches)
        deal = shuffled_deal(VARIANT.composition(players, sw), players, rng)

        def choose(prompt: Prompt, players: int = players) -> list[str]:
            if prompt.id.startswith("d") and rng.random() < 0.3:
                return ["abstain"]
            pool = [*prompt.options, *prompt.options, *GARBAGE, str(prompt.seats[0])]
            pool += [str(rng.randint(1, players))]
            return [rng.choice(pool) for _ in range(rng.choice((0, 1, 1, 2, 3)))]

        tables.append(play("ru", deal, sw, choose))
    return tables


@pytest.fixture(scope="module")
def games() -> list[FakeTable]:
    return _random_games()


def test_the_random_games_reach_every_line_and_result(games: list[FakeTable]) -> None:
    said = {say.key for table in games for say, _ in table.spoken}
    script_keys = {key for key in RU.lines if key.startswith("halloween.")} - {"halloween.title"}
    assert script_keys - said == set(), "lines never reached by the random games"
    winners = {table.outcome.winner for table in games if table.outcome is not None}
    assert winners == {VILLAGERS, VAMPIRES, DRAW}


@pytest.mark.parametrize("catalog", [RU, EN], ids=lambda c: c.lang)
def test_every_spoken_key_and_reason_is_in_both_catalogs(
    catalog: Catalog, games: list[FakeTable]
) -> None:
    said = {say.key: say.params for table in games for say, _ in table.spoken}
    reasons = {key: params for table in games for key, params in table.reasons}
    expected_reasons = {
        "reason.dead",
        "reason.partner",
        "reason.repeat_protection",
        "reason.not_in_revote",
        "reason.self",
        "reason.self_vote",
        "reason.already_answered",
        "reason.no_such_seat",
    }
    assert expected_reasons <= set(reasons)
    for key, params in [*said.items(), *reasons.items()]:
        assert key in catalog.lines, f"{key} missing from {catalog.lang}"
        assert set(params) == placeholders(catalog.lines[key]), key
        assert catalog.text(key, params).strip()


def test_both_catalogs_have_the_same_halloween_keys_and_placeholders() -> None:
    ours = {key for key in RU.lines if key.startswith("halloween.")}
    assert ours == {key for key in EN.lines if key.startswith("halloween.")}
    for key in ours:
        assert placeholders(RU.lines[key]) == placeholders(EN.lines[key]), key


SEED_LINES = {
    "halloween.village_sleeps": "Деревня закрывает глаза. До моего сигнала никто не подглядывает",
    "halloween.vampires_wake_first": "Вампиры просыпаются, узнают друг друга и выбирают одну цель",
    "halloween.vampires_sleep": "Вампиры засыпают",
    "halloween.witch_wake": "Ведьма просыпается и выбирает защиту",
    "halloween.witch_sleep": "Ведьма засыпает",
    "halloween.hunter_wake": "Охотник просыпается и показывает, кого проверить",
    "halloween.hunter_sleep": "Охотник засыпает",
    "halloween.morning": "Деревня открывает глаза. Наступило утро",
    "halloween.all_survived": "Эту ночь пережили все",
}


@pytest.mark.parametrize(("key", "line"), SEED_LINES.items())
def test_seed_lines_are_verbatim(key: str, line: str) -> None:
    assert RU.lines[key] == line


def test_a_no_answer_game_is_the_same_in_both_languages() -> None:
    sw = make_switches(VARIANT, {})
    assert isinstance(sw, HalloweenSwitches)
    deal = deal_for(9, sw, 5)
    ru, en = (play(lang, deal, sw, lambda prompt: []) for lang in ("ru", "en"))
    assert [say for say, _ in ru.spoken] == [say for say, _ in en.spoken]
    assert ru.outcome == en.outcome
    assert ru.outcome is not None and ru.outcome.winner == DRAW
    for prompt, answer in ru.accepted.items():
        assert answer == (Nobody() if prompt.startswith("n") else Abstain())
