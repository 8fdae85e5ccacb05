"""Property tests of «Свердловск Мафия Клуб»: random playouts, the dead, leaks, public nights.

Every game is played through a fake table (a small Driver subclass) whose
attempts come from hypothesis: the prompt's own legal options, garbage, or
nothing at all (the window or the speech expires).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from narrator.drive import ALREADY_ANSWERED, NIGHT_LIMIT, Driver
from narrator.record import GameRecord
from narrator.rules.answers import Answer, CountAnswer, SeatAnswer
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
from narrator.rules.registry import get_variant, make_switches
from narrator.rules.sport_mafia import (
    BLACK,
    DON,
    RED,
    ROLES,
    SHERIFF,
    SportMafiaSwitches,
    is_black,
    winner_of,
)
from narrator.voice.catalog import LANGUAGES, load_catalog

VARIANT = get_variant("sport_mafia")
SEATS = tuple(range(1, 11))

PROPERTIES = settings(
    max_examples=40,
    derandomize=True,  # the same examples on every run: CI is stable
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    # No shrinking: a game is hundreds of draws and the shrinker spends minutes on one;
    # the failing example still lists every draw under its prompt id.
    phases=(Stage.explicit, Stage.reuse, Stage.generate),
)

GARBAGE = (
    "",
    "seven",
    "11",
    "0",
    "-1",
    "99",
    "abstain",
    "yes",
    "none none",
    "7 7 7 7",
    "center 1 2",
    "4 +",
    "²",
)

# The fixed night calls: said whatever the roles (the Don and the Sheriff even when
# out, call_dead_roles), they name roles but never a player.
NAMING_LINES = frozenset(
    {
        "sport.mafia_wake",
        "sport.mafia_sleep",
        "sport.mafia_walks",
        "sport.mafia_thanks",
        "sport.don_wake",
        "sport.don_sleep",
        "sport.sheriff_wake",
        "sport.sheriff_sleep",
        "sport.sheriff_look",
        "sport.sheriff_look_sleep",
    }
)

Choose = Callable[[Prompt], list[str]]


class FakeTable(Driver):
    """A fake table: attempts come from ``choose``, windows and speeches pass at once.

    It follows who is alive and asserts as it goes that the dead never act and
    that secrets stay inside the windows of the seats awake in them.
    """

    def __init__(self, lang: str, deal: Deal, choose: Choose) -> None:
        super().__init__(load_catalog(lang), GameRecord())
        self.deal = deal
        self.choose = choose
        self.steps: list[Step] = []
        self.spoken: list[tuple[Say, str]] = []
        self.alive = set(SEATS)
        self.awake: frozenset[int] | None = None  # None: no window is open
        self.outcome: Outcome | None = None
        self.replies: list[tuple[str, Answer]] = []  # every prompt's answer, in order

    def carry_out(self, step: Step) -> Answer | None:
        self.steps.append(step)
        if isinstance(step, Say):
            self.spoken.append((step, self.catalog.text(step.key, step.params)))
        elif isinstance(step, Eliminate):
            assert step.seat in self.alive, f"{step.seat} leaves twice"
            self.alive.discard(step.seat)
        return super().carry_out(step)

    def say(self, key: str, text: str) -> None:
        pass

    def wake(self, step: Wake) -> None:
        assert self.awake is None, f"{step.window} opens inside another window"
        assert set(step.seats) <= self.alive, f"the dead are woken: {step}"
        self.awake = frozenset(step.seats)
        for cue in step.cues:
            self.carry_out(cue)

    def ask(self, prompt: Prompt) -> Answer:
        assert set(prompt.seats) <= self.alive, f"the dead are asked: {prompt.id}"
        if prompt.id.startswith("n"):
            assert self.awake is not None, f"night prompt {prompt.id} outside a window"
            assert set(prompt.seats) <= self.awake, prompt
        accepted: Answer | None = None
        for text in self.choose(prompt):
            answer = self.attempt(prompt, text, answered=accepted is not None)
            if accepted is None:
                accepted = answer
        reply = accepted if accepted is not None else self.expire(prompt)
        self.replies.append((prompt.id, reply))
        return reply

    def show(self, step: Show) -> None:
        assert self.awake is not None, f"secret {step} shown outside a wake window"
        assert step.to and set(step.to) <= self.awake, f"secret {step} shown to seats asleep"

    def sleep(self) -> None:
        assert self.awake is not None, "a window closes that was never opened"
        self.awake = None

    def deal_card(self, step: DealCard) -> None:
        assert self.awake is None and self.phase == "n0"
        assert step.secret == Secret.roles(self.deal.role_of(step.seat))

    def timer(self, step: Timer) -> Answer | None:
        assert self.awake is None
        if ".last_word." in step.id:
            assert step.seat is not None and step.seat not in self.alive  # just left
        else:
            assert step.seat is None or step.seat in self.alive, f"a dead seat speaks: {step}"
        answer = None
        if step.prompt is not None:
            answer = self.ask(step.prompt)
            if isinstance(answer, SeatAnswer):
                assert answer.seat in self.alive, f"a dead seat is nominated: {answer}"
            self.confirm(step, answer)
        for _, key in self.timer_warnings(step):
            self.carry_out(Say(key))
        return answer

    def finished(self, outcome: Outcome) -> None:
        assert self.awake is None
        self.outcome = outcome

    # --- what the game showed -------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        return self.record.result("sport_mafia")

    def before_the_end(self) -> list[tuple[Say, str]]:
        """Every spoken line before the win line (all of them if the run stopped)."""
        for index, (say, _) in enumerate(self.spoken):
            if say.key.startswith("sport.win_"):
                return self.spoken[:index]
        return list(self.spoken)


# --- strategies -------------------------------------------------------------------------------


@st.composite
def rule_switches(draw: st.DrawFn, call_dead_roles: bool | None = None) -> SportMafiaSwitches:
    options: dict[str, Any] = {
        "call_dead_roles": draw(st.booleans()) if call_dead_roles is None else call_dead_roles,
        "night0_sheriff_call": draw(st.booleans()),
        "single_candidate_day1_skip": draw(st.booleans()),
        "unvoted_to_last": draw(st.booleans()),
        "allow_self_nomination": draw(st.booleans()),
        "perestrelka_subset_loop": draw(st.booleans()),
        "shooting": draw(st.sampled_from(("enter", "call"))),
    }
    sw = make_switches(VARIANT, options)
    assert isinstance(sw, SportMafiaSwitches)
    return sw


def attempts(prompt: Prompt) -> st.SearchStrategy[list[str]]:
    """Up to three attempts: legal options, known garbage, random text; [] = no answer."""
    one = st.one_of(
        st.sampled_from(prompt.options),  # twice: half of all attempts are legal
        st.sampled_from(prompt.options),
        st.sampled_from(GARBAGE),
        st.text(max_size=5),
        # any seat, alive or not, once per keypad entry ("7 7 7" for three shooters)
        st.integers(1, 10).map(lambda seat: " ".join([str(seat)] * prompt.entries)),
    )
    return st.lists(one, max_size=3)


def drawn_by(data: st.DataObject) -> Choose:
    def choose(prompt: Prompt) -> list[str]:
        return data.draw(attempts(prompt), label=prompt.id)

    return choose


def deal_for(sw: SportMafiaSwitches, seed: int) -> Deal:
    deal = shuffled_deal(VARIANT.composition(10, sw), 10, random.Random(seed))
    VARIANT.validate_deal(deal, sw)
    return deal


def play(lang: str, deal: Deal, sw: SportMafiaSwitches, choose: Choose) -> FakeTable:
    table = FakeTable(lang, deal, choose)
    table.run(VARIANT.new_game(deal, sw, random.Random(0)))
    return table


def phases(steps: Sequence[Step]) -> Iterator[tuple[str, list[Step], tuple[int, ...]]]:
    """Each phase with its steps and the seats alive when it began."""
    alive = set(SEATS)
    current: tuple[str, list[Step], tuple[int, ...]] | None = None
    for step in steps:
        if isinstance(step, Phase):
            if current is not None:
                yield current
            current = (step.id, [], tuple(sorted(alive)))
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
        together = (
            previous is not None
            and entry["cause"] == previous["cause"] == "all_leave"
            and entry["phase"] == previous["phase"]
        )
        if together:
            groups[-1].append(entry["seat"])
        else:
            groups.append([entry["seat"]])
        previous = entry
    return groups


# --- (a) random playouts end well -------------------------------------------------------------


@PROPERTIES
@given(
    sw=rule_switches(),
    seed=st.integers(0, 2**32 - 1),
    lang=st.sampled_from(LANGUAGES),
    data=st.data(),
)
def test_random_playouts_end_with_a_winner_or_at_the_night_limit(
    sw: SportMafiaSwitches, seed: int, lang: str, data: st.DataObject
) -> None:
    deal = deal_for(sw, seed)
    table = play(lang, deal, sw, drawn_by(data))
    result = table.result()
    outcome = table.outcome
    last_phase = [s.id for s in table.steps if isinstance(s, Phase)][-1]
    assert result["ended_at"] == last_phase
    if outcome is None:  # the run stopped after night 30
        assert result["winner"] is None
        assert last_phase == f"n{NIGHT_LIMIT}"
    else:
        assert outcome.winner in {RED, BLACK}
        assert result["winner"] == outcome.winner
        assert outcome.ended_at == last_phase
        assert dict(outcome.reveal) == {s: deal.role_of(s) for s in SEATS}

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
    assert alive == table.alive

    # The end: the win line, then every seat's role, and nothing else.
    if outcome is not None:
        said = table.spoken[len(table.before_the_end()) :]
        assert [s.key for s, _ in said] == [f"sport.win_{outcome.winner}"] + ["reveal.seat"] * 10
        revealed = [v.id for s, _ in said for v in s.params.values() if isinstance(v, RoleName)]
        assert revealed == list(deal.seats)

    # Hands: each living player raises his hand at most once per round; with
    # unvoted_to_last the last candidate gets exactly the hands not raised before.
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

    # Once a prompt has accepted an answer, every later attempt is "already answered".
    answered: set[str] = set()
    for event in table.record.events:
        if event["event"] == "answer":
            if event["prompt"] in answered:
                assert not event["accepted"]
                assert event["reason"] == ALREADY_ANSWERED
            elif event["accepted"]:
                answered.add(event["prompt"])


# --- (b) the dead never act -------------------------------------------------------------------


@PROPERTIES
@given(sw=rule_switches(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_the_dead_never_act(sw: SportMafiaSwitches, seed: int, data: st.DataObject) -> None:
    deal = deal_for(sw, seed)
    # FakeTable asserts it while it plays; here every step is checked once more.
    table = play("ru", deal, sw, drawn_by(data))
    for phase, steps, alive_at_start in phases(table.steps):
        alive = set(alive_at_start)
        for step in steps:
            if isinstance(step, Eliminate):
                alive.discard(step.seat)
            elif isinstance(step, Wake):
                assert set(step.seats) <= alive, (phase, step)
                role = step.window.split(".")[1]
                if role in (DON, SHERIFF):
                    assert step.seats == tuple(s for s in deal.seats_with(role) if s in alive)
                elif role == "shoot":
                    black = tuple(s for s in sorted(alive) if is_black(deal.role_of(s)))
                    assert step.seats == black
            elif isinstance(step, Ask):
                assert set(step.prompt.seats) <= alive, (phase, step.prompt.id)
            elif isinstance(step, Timer):
                if step.prompt is not None:
                    assert step.prompt.seats == (step.seat,)
                if ".last_word." not in step.id:
                    assert step.seat in alive, (phase, step.id)
            elif isinstance(step, Show) and phase != "n0":
                assert set(step.to) <= alive


# --- (c) no role is spoken before the end -----------------------------------------------------


@PROPERTIES
@given(
    sw=rule_switches(),
    seed=st.integers(0, 2**32 - 1),
    lang=st.sampled_from(LANGUAGES),
    data=st.data(),
)
def test_no_line_before_the_end_names_a_role(
    sw: SportMafiaSwitches, seed: int, lang: str, data: st.DataObject
) -> None:
    deal = deal_for(sw, seed)
    table = play(lang, deal, sw, drawn_by(data))
    names = [table.catalog.text(f"role.{role}").lower() for role in ROLES]
    for say, text in table.before_the_end():
        assert not say.key.startswith("reveal."), text
        assert not [v for v in say.params.values() if isinstance(v, RoleName)], say
        if say.key in NAMING_LINES:
            assert not say.params, say  # a fixed call: no player is named in it
        else:
            assert not [name for name in names if name in text.lower()], text


# --- (d) a night's windows depend only on public state ----------------------------------------


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
@given(sw=rule_switches(call_dead_roles=True), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_each_night_has_the_windows_of_its_living_seats(
    sw: SportMafiaSwitches, seed: int, data: st.DataObject
) -> None:
    deal = deal_for(sw, seed)
    table = play("ru", deal, sw, drawn_by(data))
    catalog = table.catalog
    fixed = [
        "sport.night_falls",
        "sport.mafia_walks",
        "sport.mafia_thanks",
        "sport.don_wake",
        "sport.don_sleep",
        "sport.sheriff_wake",
        "sport.sheriff_sleep",
        "sport.morning_comes",
    ]
    nights = 0
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
        numbers = [catalog.text(s.key, s.params) for s in lines if s.key == "sport.number"]
        assert numbers == [catalog.text("sport.number", {"seat": s}) for s in living]
        assert [s.key for s in lines if s.key != "sport.number"] == fixed
    windows = [(w["prompt"], w["seconds"]) for w in table.result()["windows"]]
    assert len(windows) == 1 + sw.night0_sheriff_call + 3 * nights


@PROPERTIES
@given(
    sw=rule_switches(call_dead_roles=True),
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    lang=st.sampled_from(LANGUAGES),
    data=st.data(),
)
def test_two_deals_with_the_same_public_play_sound_the_same(
    sw: SportMafiaSwitches, seeds: tuple[int, int], lang: str, data: st.DataObject
) -> None:
    """Same day answers, no hits: nothing said or timed may differ until someone wins."""
    deals = [deal_for(sw, seed) for seed in seeds]
    assume(deals[0] != deals[1])
    shared: dict[str, list[str]] = {}

    def choose(prompt: Prompt) -> list[str]:
        if prompt.id.endswith(".shoot"):
            return []  # a miss: the living stay the same in both games
        if prompt.id.startswith("n"):  # the Don's and the Sheriff's checks: their own
            return data.draw(attempts(prompt), label=prompt.id)
        if prompt.id not in shared:
            shared[prompt.id] = data.draw(attempts(prompt), label=prompt.id)
        return shared[prompt.id]

    played = [play(lang, deal, sw, choose) for deal in deals]
    said = [[text for _, text in fake.before_the_end()] for fake in played]
    common = min(len(said[0]), len(said[1]))
    assert said[0][:common] == said[1][:common]
    for key in ("windows", "eliminated"):
        first, second = (fake.result()[key] for fake in played)
        shorter = min(len(first), len(second))
        assert first[:shorter] == second[:shorter], key
    if played[0].outcome is None and played[1].outcome is None:  # both reached the limit
        assert said[0] == said[1]
        assert played[0].result()["windows"] == played[1].result()["windows"]


def test_a_silent_table_plays_to_the_night_limit() -> None:
    """Nobody nominates, nobody shoots: the run stops after night 30 with no winner."""
    sw = make_switches(VARIANT, {})
    assert isinstance(sw, SportMafiaSwitches)
    table = play("en", deal_for(sw, 2), sw, lambda prompt: [])
    result = table.result()
    assert table.outcome is None
    assert result["winner"] is None
    assert result["ended_at"] == f"n{NIGHT_LIMIT}"
    assert result["eliminated"] == []
    assert len(result["windows"]) == 1 + 3 * NIGHT_LIMIT
    firsts = [s.seat for s in table.steps if isinstance(s, Timer) and ".speech." in s.id]
    assert firsts[::10] == [(day - 1) % 10 + 1 for day in range(1, NIGHT_LIMIT + 1)]
