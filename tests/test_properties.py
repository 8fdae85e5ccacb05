"""Property tests of «Ночь оборотня»: random legal playouts, leak-freeness, secret channels.

Every game is played through a fake table (a small Driver subclass) that takes
its attempts from hypothesis: the prompt's own legal options, garbage, or
nothing at all (the window expires).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from narrator.drive import ALREADY_ANSWERED, Driver
from narrator.record import GameRecord
from narrator.rules.answers import Answer, CenterAnswer, SeatAnswer
from narrator.rules.core import (
    Ask,
    Deal,
    DealCard,
    Outcome,
    Prompt,
    RoleName,
    Say,
    Secret,
    Show,
    Sleep,
    Step,
    Timer,
    Wake,
    shuffled_deal,
)
from narrator.rules.errors import ConfigError
from narrator.rules.onenight import (
    HIGH_INQUISITOR,
    INQUISITION,
    NOBODY_WINS,
    SPIRIT,
    WEREWOLF,
    WEREWOLVES,
    OneNightSwitches,
    burned_by,
    vote_prompt,
    win_line,
    winner_of,
)
from narrator.rules.registry import get_variant, make_switches
from narrator.voice.catalog import LANGUAGES, load_catalog

VARIANT = get_variant("onenight")

PROPERTIES = settings(
    max_examples=150,
    derandomize=True,  # the same examples on every run: CI is stable
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

GARBAGE = (
    "",
    "seven",
    "13",
    "0",
    "center",
    "center 1 1",
    "center 9 1",
    "center 1 2 3",
    "abstain",
    "yes",
    "none none",
    "7 7",
    "²",
)

# The lines that name a role before the reveal: the game's title and the night calls.
NAMING_LINES = frozenset(
    {
        "onenight.intro",
        "onenight.hi_wake",
        "onenight.hi_sleep",
        "onenight.wolves_wake",
        "onenight.wolves_sleep",
        "onenight.spirit_wake",
        "onenight.spirit_sleep",
    }
)

Choose = Callable[[Prompt], list[str]]


class FakeTable(Driver):
    """A fake table: attempts come from ``choose``, windows pass at once.

    It keeps every step and checks the secret channel as it goes: a secret is
    shown only inside a wake window and only to seats awake in it, or dealt to
    the seat that holds the card.
    """

    def __init__(self, lang: str, deal: Deal, choose: Choose) -> None:
        super().__init__(load_catalog(lang), GameRecord())
        self.deal = deal
        self.choose = choose
        self.steps: list[Step] = []
        self.spoken: list[tuple[Say, str]] = []
        self.accepted: dict[str, Answer] = {}
        self.awake: frozenset[int] | None = None  # None: no window is open
        self.outcome: Outcome | None = None

    def carry_out(self, step: Step) -> Answer | None:
        self.steps.append(step)
        if isinstance(step, Say):
            self.spoken.append((step, self.catalog.text(step.key, step.params)))
        return super().carry_out(step)

    def say(self, key: str, text: str) -> None:
        pass

    def wake(self, step: Wake) -> None:
        assert self.awake is None, f"{step.window} opens inside another window"
        self.awake = frozenset(step.seats)

    def ask(self, prompt: Prompt) -> Answer:
        if prompt.id.startswith("n"):
            assert self.awake is not None, f"night prompt {prompt.id} outside a window"
            assert set(prompt.seats) <= self.awake, prompt
        accepted: Answer | None = None
        for text in self.choose(prompt):
            answer = self.attempt(prompt, text, answered=accepted is not None)
            if accepted is None:
                accepted = answer
        if accepted is None:
            accepted = self.expire(prompt)
        self.accepted[prompt.id] = accepted
        return accepted

    def show(self, step: Show) -> None:
        assert self.awake is not None, f"secret {step} shown outside a wake window"
        assert step.to, step
        assert set(step.to) <= self.awake, f"secret {step} shown to seats asleep"

    def sleep(self) -> None:
        assert self.awake is not None, "a window closes that was never opened"
        self.awake = None

    def deal_card(self, step: DealCard) -> None:
        assert self.awake is None, "a card is dealt inside a wake window"
        assert self.phase == "setup"
        assert step.secret == Secret.roles(self.deal.role_of(step.seat))

    def timer(self, step: Timer) -> None:
        assert self.awake is None
        for _, key in self.timer_warnings(step):
            self.carry_out(Say(key))

    def finished(self, outcome: Outcome) -> None:
        assert self.awake is None
        self.outcome = outcome

    # --- what the game showed -------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        return self.record.result("onenight")

    def before_reveal(self) -> list[tuple[Say, str]]:
        """Every spoken line up to and including «Все раскрывают свои карты.»."""
        keys = [say.key for say, _ in self.spoken]
        return self.spoken[: keys.index("onenight.reveal_all") + 1]


# --- strategies -------------------------------------------------------------------------------


@st.composite
def setups(draw: st.DrawFn) -> tuple[int, OneNightSwitches]:
    """A player count and rule switches whose deck fits it."""
    players = draw(st.integers(3, 7))
    center = draw(st.sampled_from((3, 3, 1, 5)))
    options: dict[str, Any] = {
        "center_cards": center,
        "seer_center_count": draw(st.integers(1, min(3, center))),
        "lone_wolf_peek": draw(st.booleans()),
        "allow_self_vote": draw(st.booleans()),
        "discussion_s": draw(st.sampled_from((300.0, 30.0))),
    }
    roles = draw(st.sampled_from((None, None, "werewolf=1", "spirit=0", "high_inquisitor=0")))
    if roles is not None:
        options["roles"] = roles
    sw = make_switches(VARIANT, options)
    assert isinstance(sw, OneNightSwitches)
    try:
        VARIANT.composition(players, sw)
    except ConfigError:  # an override too big for a small deck: play the default table
        sw = sw.model_copy(update={"roles": None})
    return players, sw


def attempts(prompt: Prompt) -> st.SearchStrategy[list[str]]:
    """Up to three attempts: legal options, known garbage, random text; [] = no answer."""
    one = st.one_of(
        st.sampled_from(prompt.options),  # twice: half of all attempts are legal
        st.sampled_from(prompt.options),
        st.sampled_from(GARBAGE),
        st.text(max_size=6),
    )
    return st.lists(one, max_size=3)


def drawn_by(data: st.DataObject, votes: Mapping[str, list[str]] | None = None) -> Choose:
    def choose(prompt: Prompt) -> list[str]:
        if votes is not None and prompt.id in votes:
            return votes[prompt.id]
        return data.draw(attempts(prompt), label=prompt.id)

    return choose


def deal_for(players: int, sw: OneNightSwitches, seed: int) -> Deal:
    deal = shuffled_deal(VARIANT.composition(players, sw), players, random.Random(seed))
    VARIANT.validate_deal(deal, sw)
    return deal


def play(lang: str, deal: Deal, sw: OneNightSwitches, choose: Choose) -> FakeTable:
    table = FakeTable(lang, deal, choose)
    game = VARIANT.new_game(deal, sw, random.Random(0))
    table.run(game)
    return table


def final_cards(deal: Deal, accepted: Mapping[str, Answer]) -> list[str]:
    """The cards after the night, modelled independently: only the spirit moves one."""
    cards = list(deal.seats)
    for spirit in deal.seats_with(SPIRIT):
        swap = accepted.get("n1.spirit")
        if isinstance(swap, SeatAnswer):
            cards[spirit - 1], cards[swap.seat - 1] = cards[swap.seat - 1], cards[spirit - 1]
    return cards


# --- (a) random playouts end well -------------------------------------------------------------


@PROPERTIES
@given(
    setup=setups(),
    seed=st.integers(0, 2**32 - 1),
    lang=st.sampled_from(LANGUAGES),
    data=st.data(),
)
def test_random_playouts_end_with_a_consistent_result(
    setup: tuple[int, OneNightSwitches], seed: int, lang: str, data: st.DataObject
) -> None:
    players, sw = setup
    deal = deal_for(players, sw, seed)
    table = play(lang, deal, sw, drawn_by(data))
    outcome = table.outcome
    assert outcome is not None
    assert outcome.winner in {INQUISITION, WEREWOLVES, NOBODY_WINS}
    assert outcome.ended_at == "d1"
    result = table.result()
    assert result["winner"] == outcome.winner
    assert result["ended_at"] == "d1"

    # Every voter was asked once; the accepted vote (or none) is what counts.
    votes: dict[int, int | None] = {}
    for voter in range(1, players + 1):
        vote = table.accepted[f"d1.vote.{voter}"]
        votes[voter] = vote.seat if isinstance(vote, SeatAnswer) else None
        if not sw.allow_self_vote:
            assert votes[voter] != voter
    burned = burned_by(votes)
    assert result["eliminated"] == [{"seat": s, "phase": "d1", "cause": "burned"} for s in burned]

    cards = final_cards(deal, table.accepted)
    assert dict(outcome.reveal) == {s: cards[s - 1] for s in range(1, players + 1)}
    assert outcome.winner == winner_of(cards, burned)
    keys = [say.key for say, _ in table.spoken]
    assert win_line(outcome.winner, WEREWOLF in cards) in keys

    # Once a prompt has accepted an answer, every later attempt is "already answered".
    answered: set[str] = set()
    for event in table.record.events:
        if event["event"] == "answer":
            if event["prompt"] in answered:
                assert not event["accepted"]
                assert event["reason"] == ALREADY_ANSWERED
            elif event["accepted"]:
                answered.add(event["prompt"])


@PROPERTIES
@given(
    setup=setups(),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_secrets_show_the_true_cards(
    setup: tuple[int, OneNightSwitches], seed: int, data: st.DataObject
) -> None:
    players, sw = setup
    deal = deal_for(players, sw, seed)
    table = play("ru", deal, sw, drawn_by(data))
    shows = [s for s in table.steps if isinstance(s, Show)]
    expected: list[Show] = []
    for seat in deal.seats_with(HIGH_INQUISITOR):
        seen = table.accepted["n1.high_inquisitor"]
        if isinstance(seen, SeatAnswer):
            expected.append(
                Show("n1.high_inquisitor", (seat,), Secret.roles(deal.role_of(seen.seat)))
            )
        elif isinstance(seen, CenterAnswer):
            roles = tuple(deal.center[i - 1] for i in seen.cards)
            expected.append(Show("n1.high_inquisitor", (seat,), Secret.roles(*roles)))
    wolves = deal.seats_with(WEREWOLF)
    if wolves:
        partners = wolves if len(wolves) > 1 else ()
        expected.append(Show("n1.werewolves", wolves, Secret.seats(partners)))
    if len(wolves) == 1 and sw.lone_wolf_peek:
        peek = table.accepted["n1.werewolves"]
        if isinstance(peek, CenterAnswer):
            expected.append(
                Show("n1.werewolves", wolves, Secret.roles(deal.center[peek.cards[0] - 1]))
            )
    else:
        assert "n1.werewolves" not in table.accepted
    cards = final_cards(deal, table.accepted)
    for seat in deal.seats_with(SPIRIT):
        if isinstance(table.accepted["n1.spirit"], SeatAnswer):
            expected.append(Show("n1.spirit", (seat,), Secret.roles(cards[seat - 1])))
    assert shows == expected


# --- (b) the spoken lines leak nothing --------------------------------------------------------


@PROPERTIES
@given(
    setup=setups(),
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    lang=st.sampled_from(LANGUAGES),
    data=st.data(),
)
def test_the_spoken_night_depends_only_on_public_inputs(
    setup: tuple[int, OneNightSwitches],
    seeds: tuple[int, int],
    lang: str,
    data: st.DataObject,
) -> None:
    players, sw = setup
    votes = {
        f"d1.vote.{voter}": data.draw(attempts(vote_prompt(voter, players, sw)), label="vote")
        for voter in range(1, players + 1)
    }
    deals = [deal_for(players, sw, seed) for seed in seeds]
    assume(deals[0] != deals[1])
    played = [play(lang, deal, sw, drawn_by(data, votes)) for deal in deals]

    prefixes = [[text for _, text in fake.before_reveal()] for fake in played]
    assert prefixes[0] == prefixes[1]
    assert played[0].result()["windows"] == played[1].result()["windows"]
    assert played[0].result()["eliminated"] == played[1].result()["eliminated"]

    for fake in played:
        catalog = fake.catalog
        prefix = fake.before_reveal()
        afterwards = fake.spoken[len(prefix) :]
        # The reveal lines come only after «Все раскрывают свои карты.».
        assert not [say for say, _ in prefix if say.key.startswith("reveal.")]
        assert [say.key for say, _ in afterwards if say.key.startswith("reveal.")] == (
            ["reveal.seat"] * players + ["reveal.center"] * sw.center_cards
        )
        revealed = [
            value.id
            for say, _ in afterwards
            for value in say.params.values()
            if isinstance(value, RoleName)
        ]
        assert revealed == [*final_cards(fake.deal, fake.accepted), *fake.deal.center]
        names = {catalog.text(f"role.{role}") for role in revealed}
        reveal_texts = {text for say, text in afterwards if say.key.startswith("reveal.")}
        for say, text in prefix:
            assert not [v for v in say.params.values() if isinstance(v, RoleName)], say
            assert not [r for r in reveal_texts if r in text], text
            if any(name in text for name in names):
                # Only the title and the fixed night calls name a role; their
                # parameters, if any, are public numbers.
                assert say.key in NAMING_LINES, text
                assert all(isinstance(v, int) for v in say.params.values()), say


# --- (c) secrets go only to the seats entitled to them ----------------------------------------


@PROPERTIES
@given(
    setup=setups(),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_secrets_reach_only_awake_or_dealt_seats(
    setup: tuple[int, OneNightSwitches], seed: int, data: st.DataObject
) -> None:
    players, sw = setup
    deal = deal_for(players, sw, seed)
    # FakeTable asserts the channel rules while it plays; here the whole order is checked.
    table = play("en", deal, sw, drawn_by(data))
    awake: frozenset[int] | None = None
    dealt: list[int] = []
    for step in table.steps:
        if isinstance(step, Wake):
            assert awake is None
            assert step.seconds == sw.window_s
            awake = frozenset(step.seats)
        elif isinstance(step, Sleep):
            assert awake is not None
            awake = None
        elif isinstance(step, Show):
            assert awake is not None and set(step.to) <= awake, step
        elif isinstance(step, DealCard):
            assert awake is None
            dealt.append(step.seat)
        elif isinstance(step, Ask) and step.prompt.id.startswith("n"):
            assert awake is not None and set(step.prompt.seats) <= awake
    assert awake is None
    assert dealt == list(range(1, players + 1))
    secrets = table.result()["secrets"]
    assert [s["prompt"] for s in secrets[:players]] == [f"deal.{s}" for s in range(1, players + 1)]
    assert [s["to"] for s in secrets[:players]] == [[s] for s in range(1, players + 1)]
    assert [s["shown"] for s in secrets[:players]] == list(deal.seats)
    windows = [w["prompt"] for w in table.result()["windows"]]
    assert windows == ["n1.high_inquisitor", "n1.werewolves", "n1.spirit"]


def test_the_fake_table_plays_a_t1() -> None:
    """RULES.md A-T1 through the fake table: the spirit steals a wolf, the tie burns 1 and 3."""
    sw = make_switches(VARIANT, {})
    assert isinstance(sw, OneNightSwitches)
    deal = Deal((WEREWOLF, WEREWOLF, HIGH_INQUISITOR, SPIRIT, "inquisitor"), ("inquisitor",) * 3)
    answers = {
        "n1.high_inquisitor": ["1"],
        "n1.spirit": ["1"],
        "d1.vote.1": ["4"],
        "d1.vote.2": ["3"],
        "d1.vote.3": ["1"],
        "d1.vote.4": ["3"],
        "d1.vote.5": ["1"],
    }
    table = play("ru", deal, sw, lambda prompt: answers.get(prompt.id, []))
    result = table.result()
    assert result["winner"] == WEREWOLVES
    assert [e["seat"] for e in result["eliminated"]] == [1, 3]
    assert {"prompt": "n1.spirit", "to": [4], "shown": WEREWOLF} in result["secrets"]
    assert "Все раскрывают свои карты." in result["spoken"]
