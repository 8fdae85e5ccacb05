"""Property tests of «Альянс дедукции»: random playouts end well, the dead never act, nothing leaks.

Every game is played through a fake table (a small Driver subclass) whose attempts
come from hypothesis: the prompt's legal options, garbage, or nothing at all (the
window expires); during speeches a werewolf may try to explode.  The fake table
checks the secret channel as it goes; the tests then check the record.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from narrator.drive import ALREADY_ANSWERED, Driver
from narrator.record import GameRecord
from narrator.rules.alliance import (
    CUPID,
    GOOD,
    GUARD,
    HUNTER,
    LOVERS,
    SEER,
    WEREWOLF,
    WEREWOLVES,
    WITCH,
    AllianceSwitches,
    winner_of,
)
from narrator.rules.answers import Answer
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
    Show,
    Sleep,
    Step,
    Timer,
    Wake,
    shuffled_deal,
)
from narrator.rules.errors import ConfigError, NarratorError
from narrator.rules.registry import get_variant, make_switches
from narrator.voice.catalog import LANGUAGES, load_catalog, placeholders

VARIANT = get_variant("alliance")

PROPERTIES = settings(
    max_examples=40,
    derandomize=True,  # the same examples on every run: CI is stable
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

GARBAGE = ("", "seven", "13", "0", "yes", "destroy", "abstain", "none none", "7 7", "3 +", "²")

# Lines that name a role before the end: the night calls (no parameters), and the
# public reveals of a dead role holder, with the parameter that names him.
NIGHT_CALLS = frozenset(
    f"alliance.{role}_{when}"
    for role in ("cupid", "lovers", "guard", "wolves", "witch", "seer", "hunter")
    for when in ("wake", "sleep")
) | {"alliance.wolves_wake_first"}
REVEALS = {"alliance.exploded": "seat", "alliance.hunter_shot": "hunter"}
AFTER_DEATH = frozenset({"alliance.white_wolf_takes"})
# Prompts a dead player answers by rule: the badge, the hunter's shot, the white wolf king.
DEAD_MAY_ANSWER = ("badge", "hunter", "white_wolf")

Choose = Callable[[Prompt], list[str]]


class FakeTable(Driver):
    """Windows and timers pass at once; it checks the channels while it plays."""

    def __init__(self, lang: str, choose: Choose, explode: Callable[[Prompt], str | None]):
        super().__init__(load_catalog(lang), GameRecord())
        self.choose = choose
        self.explode = explode
        self.steps: list[Step] = []
        self.spoken: list[tuple[Say, str, frozenset[int]]] = []  # line, text, dead so far
        self.gone: set[int] = set()
        self.awake: frozenset[int] | None = None
        self.outcome: Outcome | None = None

    def carry_out(self, step: Step) -> Answer | None:
        self.steps.append(step)
        if isinstance(step, Say):
            text = self.catalog.text(step.key, step.params)
            self.spoken.append((step, text, frozenset(self.gone)))
        if isinstance(step, Eliminate):
            assert step.seat not in self.gone, f"{step.seat} leaves twice"
            self.gone.add(step.seat)
        return super().carry_out(step)

    def say(self, key: str, text: str) -> None:
        assert text.strip(), key

    def wake(self, step: Wake) -> None:
        assert self.awake is None, f"{step.window} opens inside another window"
        assert not set(step.seats) & self.gone, f"the dead wake in {step.window}"
        self.awake = frozenset(step.seats)

    def _acts(self, prompt: Prompt) -> None:
        action = prompt.id.split(".")[1]
        if action not in DEAD_MAY_ANSWER:
            assert not set(prompt.seats) & self.gone, f"the dead answer {prompt.id}"
        if prompt.id.startswith("n"):
            assert self.awake is not None and set(prompt.seats) <= self.awake, prompt.id

    def ask(self, prompt: Prompt) -> Answer:
        self._acts(prompt)
        accepted: Answer | None = None
        for text in self.choose(prompt):
            answer = self.attempt(prompt, text, answered=accepted is not None)
            if accepted is None:
                accepted = answer
        return accepted if accepted is not None else self.expire(prompt)

    def show(self, step: Show) -> None:
        assert self.awake is not None, f"secret {step} shown outside a wake window"
        assert step.to and set(step.to) <= self.awake, f"secret {step} shown to seats asleep"

    def sleep(self) -> None:
        assert self.awake is not None
        self.awake = None

    def deal_card(self, step: DealCard) -> None:
        assert self.awake is None and self.phase == "setup"

    def timer(self, step: Timer) -> Answer | None:
        assert self.awake is None
        action = step.id.split(".")[1]
        if action in {"speech", "candidate", "candidate_again", "pk"}:
            assert step.seat is not None and step.seat not in self.gone, step.id
        if action == "last_word":
            assert step.seat in self.gone, step.id
        if step.interrupt is not None:
            text = self.explode(step.interrupt)
            if text is not None:
                answer = self.attempt(step.interrupt, text, answered=False)
                if answer is not None:
                    return answer
        answer = None
        if step.prompt is not None:
            answer = self.ask(step.prompt)
        for _, key in self.timer_warnings(step):
            self.carry_out(Say(key))
        return answer

    def finished(self, outcome: Outcome) -> None:
        assert self.awake is None
        self.outcome = outcome


# --- strategies ----------------------------------------------------------------------------------


@st.composite
def setups(draw: st.DrawFn) -> tuple[int, AllianceSwitches]:
    players = draw(st.integers(9, 12))
    options: dict[str, Any] = {
        "cupid_enabled": draw(st.booleans()),
        "white_wolf_king": draw(st.booleans()),
        "hunter_shoots_on_love_death": draw(st.booleans()),
        "witch_self_save": draw(st.sampled_from(("night1", "never", "always"))),
        "witch_both_same_night": draw(st.booleans()),
        "witch_sees_victim_after_antidote": draw(st.booleans()),
        "hunter_status_call": draw(st.booleans()),
        "allow_self_vote": draw(st.booleans()),
    }
    roles = draw(st.sampled_from((None, None, None, "werewolf=2", "guard=0", "seer=0,witch=0")))
    if roles is not None:
        options["roles"] = roles
    sw = make_switches(VARIANT, options)
    assert isinstance(sw, AllianceSwitches)
    try:
        VARIANT.composition(players, sw)
    except ConfigError:
        sw = sw.model_copy(update={"roles": None})
    return players, sw


def attempts(prompt: Prompt) -> st.SearchStrategy[list[str]]:
    """Up to three attempts: mostly legal options, some garbage; [] = no answer."""
    one = st.one_of(
        st.sampled_from(prompt.options),
        st.sampled_from(prompt.options),
        st.sampled_from(prompt.options),
        st.sampled_from(GARBAGE),
    )
    return st.lists(one, max_size=3)


def drawn_by(data: st.DataObject) -> tuple[Choose, Callable[[Prompt], str | None]]:
    def choose(prompt: Prompt) -> list[str]:
        return data.draw(attempts(prompt), label=prompt.id)

    def explode(prompt: Prompt) -> str | None:
        if data.draw(st.integers(0, 24), label="explode?") != 0:
            return None
        speaker = prompt.options[0].split()[1] if prompt.options else "1"
        fake = f"{data.draw(st.integers(1, prompt.seat_count))} {speaker}"
        return data.draw(st.sampled_from((*prompt.options, fake)), label=prompt.id)

    return choose, explode


def play(
    lang: str, players: int, sw: AllianceSwitches, seed: int, data: st.DataObject
) -> tuple[FakeTable, Deal]:
    rng = random.Random(seed)
    deal = shuffled_deal(VARIANT.composition(players, sw), players, rng)
    VARIANT.validate_deal(deal, sw)
    choose, explode = drawn_by(data)
    table = FakeTable(lang, choose, explode)
    table.run(VARIANT.new_game(deal, sw, rng))
    return table, deal


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


def lovers_of(table: FakeTable) -> tuple[int, int] | None:
    for event in table.record.events:
        if event["event"] == "secret" and event["prompt"] == "n1.lovers":
            lover = event["to"][0]
            partner = int(event["shown"].split()[1])
            first, second = sorted((lover, partner))
            return first, second
    return None


# --- (a) random playouts end with a winner or the night-30 stop ---------------------------------


@PROPERTIES
@given(setup=setups(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_playouts_end_with_a_consistent_winner(
    setup: tuple[int, AllianceSwitches], seed: int, data: st.DataObject
) -> None:
    players, sw = setup
    table, deal = play("ru", players, sw, seed, data)
    result = table.record.result("alliance")
    if table.outcome is None:  # the run stops after night 30
        assert result["winner"] is None and result["ended_at"] == "n30"
        return
    outcome = table.outcome
    assert outcome.winner in {GOOD, WEREWOLVES, LOVERS}
    assert result["winner"] == outcome.winner
    assert outcome.ended_at.startswith("d")
    living = [s for s in range(1, players + 1) if s not in table.gone]
    assert winner_of(deal.seats, living, lovers_of(table)) == outcome.winner
    assert dict(outcome.reveal) == dict(enumerate(deal.seats, start=1))
    assert outcome.sheriff is None or outcome.sheriff in living
    # One answer per asking: later attempts are "already answered".  The pause after a
    # death announcement (and the badge) can be asked again the same day.
    answered: set[str] = set()
    for event in table.record.events:
        if event["event"] == "prompt":
            answered.discard(event["id"])
        elif event["event"] == "answer":
            if event["prompt"] in answered:
                assert not event["accepted"] and event["reason"] == ALREADY_ANSWERED
            elif event["accepted"]:
                answered.add(event["prompt"])


# --- (b) the dead never act; secrets only to the awake -------------------------------------------


@PROPERTIES
@given(setup=setups(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_the_dead_never_act_and_secrets_reach_only_the_awake(
    setup: tuple[int, AllianceSwitches], seed: int, data: st.DataObject
) -> None:
    players, sw = setup
    table, deal = play("en", players, sw, seed, data)  # FakeTable asserts as it plays
    gone: set[int] = set()
    awake: frozenset[int] | None = None
    for step in table.steps:
        if isinstance(step, Eliminate):
            gone.add(step.seat)
        elif isinstance(step, Wake):
            awake = frozenset(step.seats)
            assert not awake & gone
        elif isinstance(step, Sleep):
            awake = None
        elif isinstance(step, Show):
            assert awake is not None and set(step.to) <= awake
        elif (
            isinstance(step, Ask)
            and step.prompt.id.startswith("d")
            and step.prompt.id.split(".")[1] not in DEAD_MAY_ANSWER
        ):
            assert not set(step.prompt.seats) & gone, step.prompt.id
    # Every explosion was a werewolf's, and he got no last words.
    for event in table.record.result("alliance")["eliminated"]:
        if event["cause"] == "exploded":
            assert deal.role_of(event["seat"]) == WEREWOLF
            last_word = Say("alliance.last_words", {"seat": event["seat"]})
            assert last_word not in table.steps


# --- (c) no role of a living player is spoken before the end -------------------------------------


@PROPERTIES
@given(
    setup=setups(),
    seed=st.integers(0, 2**32 - 1),
    lang=st.sampled_from(LANGUAGES),
    data=st.data(),
)
def test_no_role_of_a_living_player_is_spoken_before_the_end(
    setup: tuple[int, AllianceSwitches], seed: int, lang: str, data: st.DataObject
) -> None:
    players, sw = setup
    table, deal = play(lang, players, sw, seed, data)
    catalog = table.catalog
    names = {catalog.text(f"role.{role}").lower() for role in set(deal.seats)}
    keys = [say.key for say, _, _ in table.spoken]
    end = next((i for i, key in enumerate(keys) if key.startswith("alliance.win_")), len(keys))
    for say, text, dead in table.spoken[:end]:
        assert not [v for v in say.params.values() if isinstance(v, RoleName)], say
        if not any(name in text.lower() for name in names):
            continue
        if say.key in NIGHT_CALLS:
            assert not say.params, say
        elif say.key in REVEALS:
            holder = say.params[REVEALS[say.key]]
            assert holder in dead or next_departure(table, say) == holder, say
        else:
            assert say.key in AFTER_DEATH, text
    reveal = [say for say, _, _ in table.spoken[end:] if say.key == "reveal.seat"]
    if table.outcome is not None:
        assert len(reveal) == players
    else:
        assert not reveal


def next_departure(table: FakeTable, say: Say) -> int | None:
    """The seat that leaves right after a line («… совершает самоподрыв!» names the wolf)."""
    index = next(i for i, step in enumerate(table.steps) if step is say)
    return next((s.seat for s in table.steps[index:] if isinstance(s, Eliminate)), None)


# --- (d) night windows do not depend on who is alive among hidden roles ---------------------------


@PROPERTIES
@given(setup=setups(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_night_windows_depend_only_on_the_composition(
    setup: tuple[int, AllianceSwitches], seed: int, data: st.DataObject
) -> None:
    players, sw = setup
    sw = sw.model_copy(update={"call_dead_roles": True})
    table, deal = play("ru", players, sw, seed, data)
    windows = [(w["prompt"], w["seconds"]) for w in table.record.result("alliance")["windows"]]
    nights = [step.id for step in table.steps if isinstance(step, Phase) and step.id[0] == "n"]
    expected = [w for n in nights for w in expected_night(int(n[1:]), deal, sw)]
    assert windows == expected
    # The spoken night is the same too: the witch's words never change.
    witch_lines = {text for say, text, _ in table.spoken if say.key == "alliance.witch_wake"}
    assert len(witch_lines) <= 1


def test_the_fake_table_plays_d_t2() -> None:
    """RULES.md D-T2 through the fake table: the werewolves win at the dawn of day 2."""
    deal = Deal(("werewolf", "seer", "witch", "hunter", "werewolf", "guard", "villager",
                 "werewolf", "villager", "villager", "werewolf", "villager"))  # fmt: skip
    answers = {
        "n1.wolves": ["7"],
        "n1.witch_save": ["no"],
        **{f"d1.vote.{v}": ["9"] for v in (1, 5, 8, 11)},
        "n2.guard": ["10"],
        "n2.wolves": ["12"],
        "n2.witch_poison": ["10"],
    }
    sw = make_switches(VARIANT, {})
    assert isinstance(sw, AllianceSwitches)
    table = FakeTable("ru", lambda p: answers.get(p.id, []), lambda p: None)
    table.run(VARIANT.new_game(deal, sw, random.Random(0)))
    assert table.outcome is not None and table.outcome.winner == WEREWOLVES
    assert sorted(table.gone) == [7, 9, 10, 12]
    assert dict(table.outcome.reveal) == dict(enumerate(deal.seats, start=1))


# --- (e) the catalog: every line of the script is reached and renders in both languages --------


class LineCollector(Driver):
    """Plays instantly with random legal answers; remembers every line and rejection."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(load_catalog("ru"), GameRecord())
        self.rng = rng
        self.said: dict[str, dict[str, object]] = {}
        self.reasons: dict[str, dict[str, object]] = {}

    def carry_out(self, step: Step) -> Answer | None:
        if isinstance(step, Say):
            self.said[step.key] = dict(step.params)
        return super().carry_out(step)

    def say(self, key: str, text: str) -> None:
        pass

    def wake(self, step: Wake) -> None:
        pass

    def ask(self, prompt: Prompt) -> Answer:
        pool = [*prompt.options, *GARBAGE]
        for _ in range(self.rng.choice((0, 1, 1, 2))):
            answer = self.attempt(prompt, self.rng.choice(pool), answered=False)
            if answer is not None:
                return answer
        return self.expire(prompt)

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        self.reasons[error.key] = dict(error.params)

    def show(self, step: Show) -> None:
        pass

    def sleep(self) -> None:
        pass

    def deal_card(self, step: DealCard) -> None:
        pass

    def timer(self, step: Timer) -> Answer | None:
        interrupt = step.interrupt
        if interrupt is not None and interrupt.options and self.rng.random() < 0.08:
            answer = self.attempt(interrupt, self.rng.choice(interrupt.options), answered=False)
            if answer is not None:
                return answer
        return self.ask(step.prompt) if step.prompt is not None else None


def test_random_games_reach_every_line_and_it_renders_in_both_languages() -> None:
    said: dict[str, dict[str, object]] = {}
    reasons: dict[str, dict[str, object]] = {}
    for game in range(200):
        rng = random.Random(game)
        options = {"cupid_enabled": game % 2 == 0, "white_wolf_king": game % 3 == 0}
        sw = make_switches(VARIANT, options)
        players = rng.choice((9, 10, 11, 12))
        deal = shuffled_deal(VARIANT.composition(players, sw), players, rng)
        driver = LineCollector(rng)
        driver.run(VARIANT.new_game(deal, sw, rng))
        said |= driver.said
        reasons |= driver.reasons
    ru, en = load_catalog("ru"), load_catalog("en")
    script = {key for key in ru.lines if key.startswith("alliance.")}
    # «Остались только влюблённые» needs a long planned game: test_alliance_rules has one.
    assert script - set(said) == {"alliance.win_lovers"}
    for key, params in (*said.items(), *reasons.items()):
        for catalog in (ru, en):
            assert key in catalog.lines, f"{key} missing from {catalog.lang}"
            assert set(params) == placeholders(catalog.lines[key]), key
            assert catalog.text(key, params).strip()
    for action in ("candidates", "withdraw", "sheriff_vote", "sheriff_revote", "vote", "pk_vote"):
        assert f"prompt.alliance.{action}" in ru.lines and f"prompt.alliance.{action}" in en.lines
