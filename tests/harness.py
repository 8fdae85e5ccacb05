"""What the tests share: one fake table for every game, attempt policies, the public trace.

``FakeTable`` plays any registered variant instantly and asserts the channel rules
while it plays; ``test_invariants.py`` runs it over every game of the registry and
the variant tests reuse it for their own models.  The end holds the helpers of the
real-terminal tests (``test_*_e2e.py``).
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import NamedTuple
from typing import TypeVar

import pexpect
import pytest
from hypothesis import HealthCheck
from hypothesis import Phase as HypothesisPhase
from hypothesis import settings
from hypothesis import strategies as st

from narrator.drive import NIGHT_LIMIT
from narrator.drive import Headless
from narrator.host.journal import read_journal
from narrator.host.journal import unfinished_records
from narrator.ports import Live
from narrator.record import GameRecord
from narrator.rules.answers import MAX_DIGITS
from narrator.rules.answers import Answer
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.chance import Chance
from narrator.rules.core import Ask
from narrator.rules.core import Deal
from narrator.rules.core import DealCard
from narrator.rules.core import Eliminate
from narrator.rules.core import Phase
from narrator.rules.core import PublicView
from narrator.rules.core import RoleName
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Sleep
from narrator.rules.core import Step
from narrator.rules.core import Switches
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.core import shuffled_deal
from narrator.rules.errors import ConfigError
from narrator.rules.errors import IllegalAction
from narrator.rules.errors import NarratorError
from narrator.rules.phases import PhaseId
from narrator.rules.phases import night
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.registry import Variant
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.simulate.driver import drawn
from narrator.voice.catalog import LANGUAGES
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders

if TYPE_CHECKING:
    from narrator.rules.core import Game
    from narrator.rules.core import Outcome

Choose = Callable[[Prompt], list[str]]

# Line parameters that name a player (the rest are counts, indexes, role names).
SEAT_PARAMS = frozenset({"seat", "seats", "hunter"})

GARBAGE = (
    "",
    "seven",
    "²",
    "-1",
    "0",
    "99",
    "none none",
    "center",
    "center 1 2",
    "center 9",
    "yes",
    "abstain",
    "destroy",
    "4 +",
    "7 7",
)


def seats_of(answer: Answer) -> tuple[Seat | None, ...]:
    """The seats an answer names."""
    if isinstance(answer, SeatAnswer):
        return (answer.seat,)
    if isinstance(answer, SeatsAnswer):
        return answer.seats
    if isinstance(answer, ExplodeAnswer):
        return (answer.wolf, answer.during)
    return ()


def is_number(token: str) -> bool:
    """A token the answers read as a number (never "²", nor 5,000 digits)."""
    return token.isascii() and token.isdigit() and len(token) <= MAX_DIGITS


def never(prompt: Prompt) -> list[str]:
    """Nobody answers: every window and speech expires."""
    return []


class Line(NamedTuple):
    say: Say
    text: str


class FakeTable(Headless):
    """A fake table: windows and timers pass at once; attempts come from ``choose``.

    It asserts the channel rules as it plays: windows never nest; a secret is shown
    only inside a window to seats awake in it, or dealt to its own seat before the
    first day; a night prompt is asked only inside a window, of seats awake in it,
    never by voice; the dead never wake, and act or speak only in the phase in which
    they left (last words, a dying hunter's shot, the badge); no accepted answer
    names a seat that has left.  ``interject`` gives the attempts at an interrupt
    (a werewolf exploding during a speech); by default nobody interrupts.
    ``on_prompt`` sees every prompt when it is asked (the harness checks its options).
    """

    def __init__(
        self,
        variant: Variant | str,
        deal: Deal,
        choose: Choose = never,
        *,
        lang: str = "ru",
        interject: Choose = never,
        on_prompt: Callable[[Prompt, FakeTable], None] | None = None,
    ) -> None:
        super().__init__(load_catalog(lang), GameRecord())
        self.variant = get_variant(variant) if isinstance(variant, str) else variant
        self.deal = deal
        self.choose = choose
        self.interject = interject
        self.on_prompt = on_prompt
        self.steps: list[Step] = []
        self.spoken: list[Line] = []
        self.gone: dict[Seat, PhaseId] = {}  # seat -> the phase in which it left
        self.awake: frozenset[Seat] | None = None  # None: no window is open
        self.dealt: list[Seat] = []
        self.days = 0
        self.accepted: dict[str, Answer] = {}  # the last answer of each prompt id
        self.replies: list[tuple[str, Answer]] = []  # every prompt's answer, in order
        self.reasons: list[tuple[str, dict[str, object]]] = []  # rejection keys and params
        self.tried: dict[tuple[str, int], list[str]] = {}  # (prompt id, n-th asking) -> texts
        self.named: set[Seat] = set()  # seats that acted or were named at night or in a burst
        self.screen: list[object] = []  # what the table shows between windows, in order
        self.outcome: Outcome | None = None
        self.game: Game | None = None
        self.switches: Switches | None = None  # set by play(), with the game's seed
        self.seed = 0
        self._asked: Counter[str] = Counter()
        self._public = False  # the prompt being asked is answered in public

    def __repr__(self) -> str:  # what a failing property example shows: enough to replay it
        return (
            f"FakeTable({self.variant.name!r}, players={self.deal.players}, seed={self.seed}, "
            f"lang={self.catalog.lang!r}, switches={self.switches!r})"
        )

    # --- the loop -------------------------------------------------------------------

    def run(self, game: Game) -> Outcome | None:
        self.game = game
        return super().run(game)

    def carry_out(self, step: Step) -> Answer | None:
        self.steps.append(step)
        if isinstance(step, Say):
            text = self.catalog.text(step.key, step.params)
            self.spoken.append(Line(step, text))
        elif isinstance(step, Eliminate):
            assert step.seat not in self.gone, f"seat {step.seat} leaves twice"
            self.gone[step.seat] = self.phase
        return super().carry_out(step)

    def enter_phase(self, phase: PhaseId) -> None:
        assert self.awake is None, f"{phase} begins inside a window"
        if phase.kind == "day":
            self.days += 1
        self._show_table(None)

    def _show_table(self, speaker: Seat | None) -> None:
        assert self.game is not None
        self.screen.append(("table", self.game.public_view(), speaker))

    def say(self, key: str, text: str) -> None:
        assert text.strip(), key

    def wake(self, step: Wake) -> None:
        assert self.awake is None, f"{step.window} opens inside another window"
        assert not set(step.seats) & set(self.gone), f"the dead wake in {step.window}"
        self.awake = frozenset(step.seats)
        super().wake(step)

    def sleep(self) -> None:
        assert self.awake is not None, "a window closes that was never opened"
        self.awake = None

    def show(self, step: Show) -> None:
        assert self.awake is not None, f"secret {step} shown outside a wake window"
        assert step.to and set(step.to) <= self.awake, f"secret {step} shown to seats asleep"

    def deal_card(self, step: DealCard) -> None:
        assert self.awake is None and not self.days, "a card is dealt in a window or by day"
        assert step.seat not in self.dealt, f"seat {step.seat} is dealt twice"
        assert step.secret == Secret.roles(self.deal.role_of(step.seat)), step
        self.dealt.append(step.seat)

    def finished(self, outcome: Outcome) -> None:
        assert self.awake is None, "the game ends inside a window"
        self.outcome = outcome

    # --- prompts and timers ---------------------------------------------------------------

    def _acts(self, prompt: Prompt) -> None:
        for seat in prompt.seats:
            left = self.gone.get(seat, self.phase)
            assert left == self.phase, (
                f"{prompt.id}: seat {seat} left in {left}, acts in {self.phase}"
            )
        if self.awake is not None:
            assert set(prompt.seats) <= self.awake, f"{prompt.id} asks seats asleep"
            assert not prompt.spoken, f"{prompt.id} may be answered aloud at night"
        else:
            assert not prompt.tag.by_night, f"night prompt {prompt.id} outside a window"
        if self.on_prompt is not None:
            self.on_prompt(prompt, self)

    def _texts(self, prompt: Prompt, choose: Choose, secret: bool) -> list[str]:
        key = (prompt.id, self._asked[prompt.id])
        self._asked[prompt.id] += 1
        texts = choose(prompt)
        self.tried[key] = texts
        if secret and texts:  # what a hidden role did or chose: kept by a permuted deal
            self.named |= set(prompt.seats)
            self.named |= {int(t) for text in texts for t in text.split() if is_number(t)}
        return texts

    def ask(self, prompt: Prompt) -> Answer:
        self._acts(prompt)
        public = self.awake is None and not prompt.blind  # the screen reacts to each attempt
        if self.awake is None:
            self.screen.append(
                ("ask", prompt.id, *((prompt.seats, prompt.options) if public else ()))
            )
        self._public = public
        reply = super().ask(prompt)
        self._names_the_living(prompt, reply)
        if not public:  # a default chosen for a hidden role (Cupid's random lovers) too
            self.named |= {seat for seat in seats_of(reply) if seat is not None}
        self.accepted[prompt.id] = reply
        self.replies.append((prompt.id, reply))
        return reply

    def typed(self, prompt: Prompt) -> list[str]:
        return self._texts(prompt, self.choose, secret=not self._public)

    def took(self, prompt: Prompt, text: str) -> None:
        if self._public:
            self.screen.append(("accepted", prompt.id, text))

    def _names_the_living(self, prompt: Prompt, answer: Answer) -> None:
        dead = {seat for seat in seats_of(answer) if seat in self.gone}
        assert not dead, f"{prompt.id} accepted {answer}, naming seats that left: {dead}"

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        self.reasons.append((error.key, dict(error.params)))
        if self.awake is None and not prompt.blind:
            self.screen.append(("rejected", prompt.id, text, error.key, dict(error.params)))

    def timer(self, step: Timer) -> Answer | None:
        assert self.awake is None, f"timer {step.id} inside a window"
        if step.seat is not None:
            left = self.gone.get(step.seat, self.phase)
            assert left == self.phase, f"{step.id}: seat {step.seat} left in {left}"
        self._show_table(step.seat)
        return super().timer(step)

    def interjections(self, timer: Timer, prompt: Prompt) -> list[str]:
        self._acts(prompt)
        return self._texts(prompt, self.interject, secret=True)

    def interrupted(self, timer: Timer) -> Answer | None:
        answer = super().interrupted(timer)
        if answer is not None and timer.interrupt is not None:
            self._names_the_living(timer.interrupt, answer)
            self.replies.append((timer.interrupt.id, answer))
        return answer

    # --- what the game showed ------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        return self.record.result(self.variant.name)

    def closing_start(self) -> int:
        """Where the closing announcement (the winner, every card) begins in ``steps``:
        the run of lines after the last other step of a finished game."""
        if self.outcome is None:
            return len(self.steps)
        start = len(self.steps)
        while start and isinstance(self.steps[start - 1], Say):
            start -= 1
        return start

    def before_closing(self) -> list[Line]:
        closing = sum(1 for step in self.steps[self.closing_start() :] if isinstance(step, Say))
        return self.spoken[: len(self.spoken) - closing]

    def closing(self) -> list[Line]:
        return self.spoken[len(self.before_closing()) :]


# --- playing a game -------------------------------------------------------------------------


def deal_for(variant: Variant, players: int, sw: Switches, seed: int) -> Deal:
    deal = shuffled_deal(variant.composition(players, sw), players, random.Random(seed))
    variant.validate_deal(deal, sw)
    return deal


def play(
    variant: Variant | str,
    deal: Deal,
    sw: Switches,
    choose: Choose = never,
    *,
    lang: str = "ru",
    seed: int = 0,
    interject: Choose = never,
    on_prompt: Callable[[Prompt, FakeTable], None] | None = None,
) -> FakeTable:
    """Play one game on a fake table; ``seed`` is the game's own chance (speech orders)."""
    table = FakeTable(variant, deal, choose, lang=lang, interject=interject, on_prompt=on_prompt)
    table.switches, table.seed = sw, seed
    table.run(table.variant.new_game(deal, sw, random.Random(seed)))
    return table


def properties(max_examples: int) -> settings:
    """Hypothesis settings for games: the same examples on every run, no deadline, and no
    shrinking (a failing game is reported with the values that replay it)."""
    return settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        phases=(HypothesisPhase.explicit, HypothesisPhase.reuse, HypothesisPhase.generate),
    )


S = TypeVar("S", bound=Switches)


def fitting(variant: Variant, players: int, options: Mapping[str, Any]) -> Switches:
    """The switches of ``options``; a role override the deck cannot hold is dropped."""
    sw = make_switches(variant, options)
    try:
        variant.composition(players, sw)
    except ConfigError:
        sw = sw.model_copy(update={"roles": None})
    return sw


def switches_of(table: FakeTable, kind: type[S]) -> S:
    assert isinstance(table.switches, kind)
    return table.switches


def random_game(
    variant: Variant | str,
    players: int,
    sw: Switches,
    seed: int,
    *,
    lang: str = "ru",
    legal: float = 0.6,
    silent: float = 0.2,
    bursts: float = 0.0,
    on_prompt: Callable[[Prompt, FakeTable], None] | None = None,
) -> FakeTable:
    """A game dealt and answered at random from ``seed`` (see random_attempts)."""
    if isinstance(variant, str):
        variant = get_variant(variant)
    rng = random.Random(seed)
    deal = deal_for(variant, players, sw, rng.randrange(2**32))
    choose = random_attempts(rng, players, legal=legal, silent=silent)
    interject = random_bursts(rng, players, bursts) if bursts else never
    return play(
        variant, deal, sw, choose, lang=lang, seed=seed, interject=interject, on_prompt=on_prompt
    )


def games(
    variant: Variant,
    setups: st.SearchStrategy[tuple[int, dict[str, Any]]],
    *,
    langs: Sequence[str] = ("ru",),
    legal: float = 0.6,
    silent: float = 0.2,
    bursts: float = 0.0,
) -> st.SearchStrategy[FakeTable]:
    """Random games played to the end: a seat count and switch values from ``setups``,
    a seed and a language, answered as random_game does."""

    def game(setup: tuple[int, dict[str, Any]], seed: int, lang: str) -> FakeTable:
        players, options = setup
        sw = fitting(variant, players, options)
        return random_game(
            variant, players, sw, seed, lang=lang, legal=legal, silent=silent, bursts=bursts
        )

    return st.builds(game, setups, st.integers(0, 2**32 - 1), st.sampled_from(langs))


def rejected(prompt: Prompt, text: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        prompt.accept(text)
    return caught.value


def step_through(
    variant: Variant,
    deal: Deal,
    sw: Switches,
    answers: Mapping[str, str | Sequence[str]],
    *,
    stop_before: PhaseId | None = None,
) -> tuple[list[Step], Outcome | None]:
    """Every step of a game's script, with no driver at all (the rules tests).

    Each prompt, asked or open during a timer, takes the next of its answers (a list
    gives the successive askings of one id), else its default. The run stops before
    the phase ``stop_before`` and once night 30 begins; the outcome, if it ended.
    """
    variant.validate_deal(deal, sw)
    game = variant.new_game(deal, sw, random.Random(0))
    script = game.script
    queues = {
        key: [value] if isinstance(value, str) else list(value) for key, value in answers.items()
    }
    steps: list[Step] = []
    reply: Answer | None = None
    while True:
        try:
            step = script.send(reply)
        except StopIteration as stop:
            return steps, stop.value
        if isinstance(step, Phase) and step.id == stop_before:
            return steps, None
        steps.append(step)
        if isinstance(step, Phase) and step.id == night(NIGHT_LIMIT):
            return steps, None
        if isinstance(step, Chance):
            reply = drawn(step, game)
            continue
        prompt = step.prompt if isinstance(step, Ask | Timer) else None
        queue = queues.get(prompt.id, []) if prompt is not None else []
        reply = None if prompt is None else prompt.accept(queue.pop(0)) if queue else prompt.default


def scripted(answers: Mapping[str, str | list[str]]) -> Choose:
    """Attempts from a fixed table of prompt ids, as a scenario file gives them."""

    def choose(prompt: Prompt) -> list[str]:
        given = answers.get(prompt.id, [])
        return [given] if isinstance(given, str) else list(given)

    return choose


def wrong_inputs(prompt: Prompt) -> list[str]:
    """Texts a prompt must refuse: garbage, seats off the table, kinds it does not take."""
    kinds = {"none": "none", "abstain": "abstain", "yes/no": "yes", "destroy": "destroy"}
    texts = ["", "seven", "²", "-1", "99", str(prompt.seat_count + 1), "1 x"]
    texts += [word for kind, word in kinds.items() if kind not in prompt.accepts]
    if "center" not in prompt.accepts:
        texts.append("center 1 2")
    return [text for text in texts if text not in prompt.options]


def random_attempts(rng: random.Random, players: int, *, legal: float, silent: float) -> Choose:
    """Up to three attempts a prompt: its legal options (with probability ``legal``),
    else garbage, any seat (dead or one's own) or a wrong kind; none at all with
    probability ``silent`` (the window or the speech expires)."""

    def choose(prompt: Prompt) -> list[str]:
        if rng.random() < silent:
            return []
        texts = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            if prompt.options and rng.random() < legal:
                texts.append(rng.choice(prompt.options))
            elif rng.random() < 0.5:
                seat = str(rng.randint(1, players))
                texts.append(" ".join([seat] * prompt.entries))
            else:
                texts.append(rng.choice(GARBAGE))
        return texts

    return choose


def random_bursts(rng: random.Random, players: int, chance: float) -> Choose:
    """Now and then somebody tries to interrupt a speech: a real option or any seat."""

    def interject(prompt: Prompt) -> list[str]:
        if rng.random() >= chance:
            return []
        speaker = prompt.speaker if prompt.speaker is not None else 1
        fake = f"{rng.randint(1, players)} {speaker}"
        return [rng.choice((*prompt.options, fake))]

    return interject


class Replay:
    """The attempts another table made, prompt by prompt, in the same order."""

    def __init__(self, tried: Mapping[tuple[str, int], list[str]]) -> None:
        self.tried = tried
        self._asked: Counter[str] = Counter()

    def __call__(self, prompt: Prompt) -> list[str]:
        key = (prompt.id, self._asked[prompt.id])
        self._asked[prompt.id] += 1
        return list(self.tried.get(key, []))


def permuted(deal: Deal, keep: set[Seat], rng: random.Random) -> Deal:
    """The same deal with the cards of the seats outside ``keep`` shuffled among them."""
    free = [seat for seat in range(1, deal.players + 1) if seat not in keep]
    cards = [deal.role_of(seat) for seat in free]
    rng.shuffle(cards)
    seats = list(deal.seats)
    for seat, card in zip(free, cards, strict=True):
        seats[seat - 1] = card
    return Deal(tuple(seats), deal.center)


def public_trace(table: FakeTable) -> list[object]:
    """Everything the table hears, sees and is asked between windows, in order.

    Windows count by name and length only; inside them only the public cues are
    heard. The closing announcement counts without its cards.
    """
    trace: list[object] = []
    closing = table.closing_start()
    in_window = False
    for index, step in enumerate(table.steps):
        match step:
            case Phase(id=phase):
                trace.append(("phase", phase))
            case Say(key=key, params=params) if index >= closing:
                trace.append(("closing", key, without_roles(params)))
            case Say(key=key, params=params):
                trace.append(("say", key, table.catalog.text(key, params)))
            case Wake():
                in_window = True
                trace.append(("window", step.window, step.seconds, step.cue_every))
            case Sleep():
                in_window = False
                trace.append(("sleep",))
            case Ask(prompt=prompt) if not in_window and not prompt.blind:
                trace.append(("ask", prompt.id, prompt.seats, prompt.options))
            case Ask(prompt=prompt) if not in_window:  # blind: who may answer is hidden
                trace.append(("ask", prompt.id))
            case DealCard(seat=seat):
                trace.append(("deal", seat))
            case Timer():
                asked = step.prompt.id if step.prompt is not None else None  # blind or not
                burst = step.interrupt.id if step.interrupt is not None else None
                trace.append(("timer", step.id, step.seconds, step.seat, asked, burst))
            case Eliminate(seat=seat, phase=phase, cause=cause, shown_role=shown):
                trace.append(("out", seat, phase, cause, shown))
    outcome = table.outcome
    if outcome is not None:
        trace.append(("end", outcome.winner, outcome.ended_at, outcome.sheriff))
    return trace


def without_roles(params: Mapping[str, object]) -> dict[str, object]:
    return {name: value for name, value in params.items() if not isinstance(value, RoleName)}


def seats_named(say: Say) -> set[Seat]:
    """The players a line names through its parameters."""
    named: set[Seat] = set()
    for name, value in say.params.items():
        if name in SEAT_PARAMS:
            named |= {value} if isinstance(value, int) else set(value)  # type: ignore[arg-type]
    return named


def departing(table: FakeTable, index: int) -> set[Seat]:
    """The seats that leave right after ``steps[index]``, before anything but a line."""
    seats: set[Seat] = set()
    for step in table.steps[index + 1 :]:
        if isinstance(step, Eliminate):
            seats.add(step.seat)
        elif not isinstance(step, Say):
            break
    return seats


# --- the invariants of every game (test_invariants.py, scripts/fuzz_games.py) ----------------

CATALOGS = tuple(load_catalog(lang) for lang in LANGUAGES)


def has_line(catalog: Catalog, key: str, params: frozenset[str] = frozenset()) -> None:
    assert key in catalog.lines, f"{key} is missing from the {catalog.lang} catalog"
    assert placeholders(catalog.lines[key]) == params, f"{key}: placeholders in {catalog.lang}"


def check_prompt(prompt: Prompt, table: FakeTable) -> None:
    """Its options are accepted; other inputs are refused with a reason the catalogs have."""
    for text in prompt.options:
        try:
            prompt.accept(text)
        except NarratorError as error:
            raise AssertionError(f"{prompt.id} refuses its own option {text!r}: {error}") from None
    wrong = wrong_inputs(prompt)
    if {"seat", "seats"} & prompt.accepts and "count" not in prompt.accepts:
        wrong += [" ".join([str(seat)] * prompt.entries) for seat in table.gone]
    for text in wrong:
        if text in prompt.options:
            continue
        try:
            answer = prompt.accept(text)
        except NarratorError as error:
            assert error.key, f"{prompt.id} refuses {text!r} without a reason key"
            for catalog in CATALOGS:
                has_line(catalog, error.key, frozenset(error.params))
        else:
            raise AssertionError(f"{prompt.id} accepts {text!r} ({answer}), not an option")


def check_the_end(table: FakeTable) -> None:
    result = table.result()
    phases = [str(step.id) for step in table.steps if isinstance(step, Phase)]
    assert sorted(table.dealt) == list(range(1, table.deal.players + 1)), "not every seat dealt"
    outcome = table.outcome
    if outcome is None:  # the run stops after night 30
        assert (result["winner"], result["ended_at"]) == (None, phases[-1])
        assert phases[-1] == f"n{NIGHT_LIMIT}", f"stopped at {phases[-1]}"
        return
    assert (result["winner"], result["ended_at"]) == (outcome.winner, str(outcome.ended_at))
    assert str(outcome.ended_at) in phases
    assert set(outcome.reveal) == set(range(1, table.deal.players + 1))
    assert outcome.sheriff is None or outcome.sheriff not in table.gone
    for catalog in CATALOGS:
        has_line(catalog, f"winner.{outcome.winner}")


def check_nothing_hidden_is_spoken(table: FakeTable) -> None:
    names = {role: table.catalog.text(f"role.{role}").lower() for role in table.variant.roles}
    revealed: dict[int, str] = {}  # seat -> the card turned up when it left
    gone: set[int] = set()
    for index, step in enumerate(table.steps[: table.closing_start()]):
        if isinstance(step, Eliminate):
            gone.add(step.seat)
            if step.shown_role is not None:
                revealed[step.seat] = step.shown_role
        if not isinstance(step, Say):
            continue
        text = table.catalog.text(step.key, step.params)
        assert not step.key.startswith("reveal."), f"{text!r} before the end"
        named = seats_named(step)
        for value in step.params.values():
            if isinstance(value, RoleName):
                shown = {seat for seat in named if revealed.get(seat) == value.id}
                assert shown, f"{text!r} names a card nobody turned up"
        if any(name in text.lower() for name in names.values()):
            hidden = named - gone - departing(table, index)
            assert not hidden, f"{text!r} names a role next to living seats {hidden}"


def check_catalogs(table: FakeTable) -> None:
    keys = {(line.say.key, frozenset(line.say.params)) for line in table.spoken}
    keys |= {(key, frozenset(params)) for key, params in table.reasons}
    keys |= {(f"role.{role}", frozenset()) for role in table.variant.roles}
    for step in table.steps:
        for prompt in asked_in(step):
            if prompt.claim is not None:  # the table says the claim, then maybe its failure
                keys |= {
                    (prompt.claim, frozenset({"seat"})),
                    (f"{prompt.claim}_unconfirmed", frozenset()),
                }
        if isinstance(step, Eliminate):
            keys.add((f"cause.{step.cause}", frozenset()))
        elif isinstance(step, Show) and step.secret.kind == "token":
            keys.add((f"secret.{step.secret.values[0]}", frozenset()))
        elif isinstance(step, Show) and step.secret.kind == "roles":
            keys |= {(f"role.{role}", frozenset()) for role in step.secret.values}
    for catalog in CATALOGS:
        for key, params in keys:
            has_line(catalog, key, params)


def check_game(table: FakeTable, seed: int) -> None:
    """Every invariant of a finished game (the prompts are checked as they are asked,
    with ``on_prompt=check_prompt``)."""
    check_the_end(table)
    check_nothing_hidden_is_spoken(table)
    check_catalogs(table)
    check_public_facts_only(table, seed)


def asked_in(step: Step) -> list[Prompt]:
    if isinstance(step, Ask):
        return [step.prompt]
    if isinstance(step, Timer):
        return [p for p in (step.prompt, step.interrupt) if p is not None]
    return []


def check_public_facts_only(table: FakeTable, seed: int) -> None:
    """Replay the same attempts on a deal with the hidden cards shuffled: the cards of
    the seats that left, acted at night or were named there stay where they were."""
    deal = permuted(table.deal, set(table.gone) | table.named, random.Random(seed))
    assert table.switches is not None
    replay = Replay(table.tried)
    twin = play(
        table.variant,
        deal,
        table.switches,
        replay,
        lang=table.catalog.lang,
        seed=table.seed,
        interject=replay,
    )
    hidden = "under a shuffled hidden deal"
    assert_same(public_trace(table), public_trace(twin), f"the public game {hidden}")
    assert_same(table.screen, twin.screen, f"the screen between windows {hidden}")


def assert_same(first: list[object], second: list[object], what: str) -> None:
    if first == second:
        return
    at = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), None)
    at = min(len(first), len(second)) if at is None else at
    raise AssertionError(
        f"{what} differs at step {at}:\n"
        f"  {first[max(at - 3, 0) : at + 1]}\n  {second[max(at - 3, 0) : at + 1]}"
    )


# --- the real terminal (test_*_e2e.py) -------------------------------------------------------

CLEAR_SCROLLBACK = "\x1b[3J"


def spawn_play(game: str, tmp_path: Path, *args: str, width: int = 200) -> pexpect.spawn:
    """``narrator play GAME --text`` in a real pseudo-terminal, its record in ``tmp_path``."""
    command = [
        "-m",
        "narrator.cli",
        "play",
        game,
        "--text",
        "--silent",
        "--record-dir",
        str(tmp_path),
    ]
    return pexpect.spawn(
        sys.executable, [*command, *args], encoding="utf-8", timeout=30, dimensions=(50, width)
    )


def options(**values: object) -> list[str]:
    """``-o name=value`` for each rule switch."""
    return [arg for name, value in values.items() for arg in ("-o", f"{name}={value}")]


def deal_cards(child: pexpect.spawn, players: int, call: str, card_word: str) -> dict[int, str]:
    """Each seat is called (``call``: a pattern up to the Enter hint, with ``{seat}``),
    presses Enter, reads its card and presses Enter again."""
    cards: dict[int, str] = {}
    for seat in range(1, players + 1):
        child.expect(call.format(seat=seat))
        child.send("\r")
        child.expect(rf"{card_word}: (.+?) <<<")
        cards[seat] = child.match.group(1)
        child.send("\r")
        child.expect(re.escape(CLEAR_SCROLLBACK))  # the card is wiped with the scroll-back
    return cards


def stop_game(child: pexpect.spawn, question: str) -> None:
    """Ctrl-C, confirmed with «y»: the game stops with exit code 130."""
    child.send("\x03")
    child.expect(question)
    child.send("y")


def finish(child: pexpect.spawn, exit_status: int) -> None:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == exit_status


def read_record(path: Path) -> list[dict[str, Any]]:
    """A game's record: plain once it has ended, sealed while stopped (narrator.host.journal)."""
    return read_journal(path)


def record_in(tmp_path: Path, game: str) -> list[dict[str, Any]]:
    (path,) = [*tmp_path.glob(f"*{game}.jsonl"), *unfinished_records(tmp_path)]
    return read_record(path)


def events(record: list[dict[str, Any]], kind: str, *keys: str) -> list[Any]:
    """The ``keys`` of every event of one kind: a tuple each, or the value of one key."""
    rows = [tuple(e[key] for key in keys) for e in record if e["event"] == kind]
    return [row[0] for row in rows] if len(keys) == 1 else rows


# --- fakes around the real table loop (host/table.py) ------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(seconds, 0.0)


class RecordingScreen:
    """A fake screen that keeps its lines."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def said(self, text: str) -> None:
        self.lines.append(text)

    def line(self, text: str) -> None:
        self.lines.append(text)

    def live(self, view: Live | None) -> None:
        if view is not None and view.reason:  # a refusal is shown in the live area
            self.lines.append(f"refused: {view.reason}")

    def secret(self, text: str) -> None:
        pass

    def clear(self) -> None:
        pass

    def table(self, view: PublicView, speaker: int | None) -> None:
        pass

    def end(self, title: str, lines: list[str]) -> None:
        pass


class SilentVoice:
    def say(self, key: str, text: str) -> None:
        pass


def game_process(narrator: int) -> int:
    """The process that plays the game of the ``narrator`` command ``narrator`` (its child:
    narrator.supervise), to kill the game itself rather than the parent waiting for it."""
    import subprocess
    import time

    for _ in range(200):  # the child is forked as the command starts
        found = subprocess.run(["pgrep", "-P", str(narrator)], capture_output=True, text=True)
        pids = [int(pid) for pid in found.stdout.split()]
        if pids:
            assert len(pids) == 1, f"narrator {narrator} has children {pids}"
            return pids[0]
        time.sleep(0.05)
    raise AssertionError(f"narrator {narrator} plays no game")
