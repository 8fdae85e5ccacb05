#!/usr/bin/env python3
"""Fuzz the rules at scale: thousands of whole games answered with valid, invalid and garbage.

Each game is played headlessly through the real rule scripts by the tests' fake
table (``tests/harness.py``: the same Driver loop the table uses, windows and
timers passing at once), at every legal seat count in turn, with random valid
switch values and now and then a random legal ``roles`` override, in a random
language. Its attempts are drawn per prompt from: the prompt's own options
(typed at the keypad through the codec, or given as text), invalid answers (a
seat off the table, a dead or one's own seat, a wrong kind, too many entries),
garbage (empty, whitespace, Cyrillic, emoji, right-to-left and combining marks,
NUL and other control characters, 10**30, -1, 1e309, nan, 100,000 characters),
keypad forms meant for another prompt (``*13`` at a vote, ``5+`` at night,
``2.5`` where one seat is asked, ``*8`` outside a speech), repeats after an
accepted answer, answers to a prompt that is not open (a closed one) and
interrupt claims during speeches.

A game is counted as
- a crash: any exception other than a clean rejection (a NarratorError);
- an illegal state: a dead seat acting, a rejected attempt changing the game
  (the game replayed with only its accepted attempts must be the same, step by
  step), an accepted answer outside the prompt's options, a prompt's own option
  typed at the keypad refused, or any invariant of ``tests/test_invariants.py``
  broken (the checks of ``tests/harness.py``);
- unended: no winner and not stopped at the night limit (docs/scenarios.md), more
  than STEP_LIMIT steps, or more than ``--timeout`` seconds of machine time.

Games are deterministic per ``--seed`` (whatever ``--jobs``); each failure is
printed with its case (``variant/players/seed``) and the attempts that led to
it; ``--replay CASE`` plays one case again and prints the whole traceback.
Exit status 1 when any count is nonzero.

    .venv/bin/python scripts/fuzz_games.py [--games 10000] [--variant NAME ...] [--seed S]
                                           [--jobs K] [--replay CASE]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import random
import re
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from types import FrameType
from typing import Any
from typing import Literal
from typing import get_args
from typing import get_origin

import annotated_types

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the shared checks live with the tests
    sys.path.insert(0, str(ROOT))

from narrator.drive import NIGHT_LIMIT  # noqa: E402
from narrator.rules import codec  # noqa: E402
from narrator.rules.answers import Answer  # noqa: E402
from narrator.rules.answers import AnswerKind  # noqa: E402
from narrator.rules.answers import CenterAnswer  # noqa: E402
from narrator.rules.answers import Destroy  # noqa: E402
from narrator.rules.answers import Nobody  # noqa: E402
from narrator.rules.answers import PressesAnswer  # noqa: E402
from narrator.rules.answers import SeatAnswer  # noqa: E402
from narrator.rules.answers import SeatsAnswer  # noqa: E402
from narrator.rules.core import Phase  # noqa: E402
from narrator.rules.core import Switches  # noqa: E402
from narrator.rules.errors import ConfigError  # noqa: E402
from narrator.rules.errors import NarratorError  # noqa: E402
from narrator.rules.prompts import Prompt  # noqa: E402
from narrator.rules.prompts import Seat  # noqa: E402
from narrator.rules.registry import GAMES  # noqa: E402
from narrator.rules.registry import Variant  # noqa: E402
from narrator.rules.registry import get_variant  # noqa: E402
from narrator.rules.registry import known_names  # noqa: E402
from narrator.rules.registry import make_switches  # noqa: E402
from narrator.voice.catalog import LANGUAGES  # noqa: E402
from tests.harness import FakeTable  # noqa: E402
from tests.harness import Replay  # noqa: E402
from tests.harness import assert_same  # noqa: E402
from tests.harness import check_game  # noqa: E402
from tests.harness import check_prompt  # noqa: E402
from tests.harness import deal_for  # noqa: E402
from tests.harness import play  # noqa: E402
from tests.harness import wrong_inputs  # noqa: E402

STEP_LIMIT = 200_000  # far more than 30 nights of the largest table take
CHUNK = 25  # games per task of a worker

EMPTY = ("", " ", "\t", "\n", " \n\t ", "\u3000", "\u00a0")
UNICODE = (
    "семь", "Семь", "никто", "пять пять", "🔫", "7️⃣", "👍🏽", "\u202e7", "\u202b٣\u202c", "שבע",
    "ثلاثة", "٣", "３", "²", "⑦", "7\u0301", "\u0301", "e\u0301\u0301\u0301", "\u200b7", "\ufeff7",
    "7\u00a0", "ǅ", "İ", "ß", "ﬀ", "\U0001f600" * 50, "\ud800",
)  # fmt: skip
CONTROL = (
    "\x00", "7\x00", "\x007", "\x00" * 100, "\x1b[2J", "\x1b]0;x\x07", "\x7f", "\x08", "\r",
    "7\n8", "\x03", "\x15", "\u2028", "7\r\n", "\x0c", "\x1c7",
)  # fmt: skip
HUGE = (
    str(10**30), "-1", "-0", "+7", "1e309", "-1e309", "nan", "NaN", "inf", "-inf", "1e3",
    str(2**64), "9" * 5000, "0" * 60 + "7", "0x7", "1_0", "7.0", "7,", "00007", "0007",
)  # fmt: skip
LONG = (
    "x" * 100_000, "7 " * 5000, "none " * 3000, "center " + "1 " * 2000,
    "presses " + "1 " * 3000, "7" * 100_000, "1." * 3000, "*" + "1" * 5000,
)  # fmt: skip
WORDS = (
    "none", "abstain", "yes", "no", "destroy", "center", "presses", "NONE", "Yes", "nobody",
    "+", "-", "*", "/", ".", "none none", "yes no", "center center", "7 +", "7 -", "+ 7", "7 7",
    "1 2 3 4 5 6 7 8 9 10 11 12", "presses none", "center 0", "center 99999", "center -1",
)  # fmt: skip
KEYPAD = (
    "*13", "*1.3", "*1 3", "*", "**8", "*8", "*0", "*99", "5+", "5-", "+", "-", "0+", "99+",
    "2.5", "2..5", ".", "..", "7.0.7", "0", "1", "0.0", "1.2.3.4.5.6.7.8.9.10.11.12", "/",
    "5+-", "*13+", "*.", ".5", "5.", "0.0.0.0",
)  # fmt: skip
GARBAGE = (*EMPTY, *UNICODE, *CONTROL, *HUGE, *LONG, *WORDS)

Kind = Literal["valid", "invalid", "garbage", "keypad", "repeat"]
KINDS: tuple[Kind, ...] = ("valid", "invalid", "garbage", "keypad", "repeat")


@dataclass(frozen=True)
class Mix:
    """How one game's table answers: the weight of each kind of attempt per attempt,
    the share of prompts nobody answers, and the chance of an interrupt per speech."""

    weights: tuple[float, float, float, float, float]  # in the order of KINDS
    silent: float
    interrupts: float
    keypad: float = 0.6  # typed at the keypad (through the codec) rather than given as text
    closed: float = 0.05  # an attempt at a prompt that is not open any more


MIXES = (
    Mix((0.8, 0.08, 0.06, 0.04, 0.02), silent=0.05, interrupts=0.05),
    Mix((0.45, 0.2, 0.2, 0.1, 0.05), silent=0.2, interrupts=0.1),
    Mix((0.15, 0.3, 0.35, 0.15, 0.05), silent=0.2, interrupts=0.2),
    Mix((0.5, 0.1, 0.2, 0.1, 0.1), silent=0.6, interrupts=0.02),
)


# --- switch values ----------------------------------------------------------------------


def _bounds(metadata: Sequence[Any]) -> tuple[float | None, float | None, bool]:
    """The lower and upper bound of a number field, and whether the lower one is open."""
    low: float | None = None
    high: float | None = None
    open_low = False
    for item in metadata:
        if isinstance(item, annotated_types.Ge):
            low = float(item.ge)  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Gt):
            low, open_low = float(item.gt), True  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Le):
            high = float(item.le)  # type: ignore[arg-type]
        elif isinstance(item, annotated_types.Lt):
            high = float(item.lt)  # type: ignore[arg-type]
    return low, high, open_low


def random_value(annotation: Any, metadata: Sequence[Any], rng: random.Random) -> Any:
    """A valid value of one switch: any bool, any of a Literal, a number within bounds."""
    if annotation is bool:
        return rng.random() < 0.5
    if get_origin(annotation) is Literal:
        return rng.choice(get_args(annotation))
    args = [arg for arg in get_args(annotation) if arg is not type(None)]
    if args and len(args) < len(get_args(annotation)):  # optional
        return None if rng.random() < 0.3 else random_value(args[0], metadata, rng)
    low, high, open_low = _bounds(metadata)
    if annotation is int:
        first = int(low if low is not None else 0) + (1 if open_low else 0)
        last = int(high if high is not None else first + 100)
        return rng.choice((first, last, rng.randint(first, last)))
    if annotation is float:
        first = low if low is not None else 0.0
        last = high if high is not None else first + 1000.0
        edge = first + 0.001 if open_low else first
        return rng.choice((edge, last, rng.uniform(edge, last), round(rng.uniform(edge, last))))
    raise TypeError(f"no random value for a switch of type {annotation!r}")


def random_roles(variant: Variant, players: int, rng: random.Random) -> str:
    """A composition override of random counts (the variant judges whether it fits)."""
    roles = list(variant.roles)
    picked = rng.sample(roles, rng.randint(1, len(roles)))
    parts = [f"{role}={rng.randint(0, max(1, players // 2))}" for role in picked]
    if rng.random() < 0.2:  # the reader takes spaces and empty parts too
        parts = [f" {part.replace('=', ' = ')} " for part in parts] + [""]
    return ",".join(parts)


def random_switches(variant: Variant, players: int, rng: random.Random) -> Switches:
    """Random valid values for some switches, and sometimes a legal ``roles`` override."""
    for _ in range(50):
        options: dict[str, Any] = {}
        for name, info in variant.switches.model_fields.items():
            if name != "roles" and rng.random() < 0.5:
                options[name] = random_value(info.annotation, info.metadata, rng)
        try:
            sw = make_switches(variant, options)  # switches may exclude each other
        except ConfigError:
            continue
        if rng.random() < 0.3:
            for _ in range(20):
                try:
                    with_roles = make_switches(variant, {**options, "roles": random_roles(
                        variant, players, rng
                    )})  # fmt: skip
                    variant.composition(players, with_roles)
                except ConfigError:
                    continue
                return with_roles
        return sw
    return make_switches(variant, {})


# --- what a prompt may accept -------------------------------------------------------------


def _seats_in(answer: Answer) -> set[Seat]:
    if isinstance(answer, SeatAnswer):
        return {answer.seat}
    if isinstance(answer, SeatsAnswer | PressesAnswer):
        return {seat for seat in answer.seats if seat is not None}
    return set()


def outside_options(answer: Answer, prompt: Prompt, legal: Sequence[Answer]) -> bool:
    """Whether an accepted answer is none of the prompt's options.

    Options list every answer of one value; answers of several seats are listed by
    example (shots, raised hands, a pair), so such an answer must be made of the
    options' pieces: their seats, their length, ``none`` entries and repeats only
    where an option has them. The keypad's 0 destroys the badge (``none`` is
    ``destroy`` where the prompt takes both); the prompt's default (what silence
    means, ``none`` for three shooters) is always legal; centre cards count in any order.
    """
    accepts, default = prompt.accepts, prompt.default
    if isinstance(answer, Nobody) and AnswerKind.DESTROY in accepts:
        answer = Destroy()
    if answer == default or answer in legal:
        return False
    if isinstance(answer, CenterAnswer):
        return sorted(answer.cards) not in [
            sorted(a.cards) for a in legal if isinstance(a, CenterAnswer)
        ]
    if not isinstance(answer, SeatsAnswer | PressesAnswer):
        return True
    pieces = set().union(*(_seats_in(a) for a in legal))
    if not _seats_in(answer) <= pieces:
        return True
    if isinstance(answer, PressesAnswer):  # any presses: the rules judge whether they hit
        return False
    lists = [a.seats for a in legal if isinstance(a, SeatsAnswer)]
    if not lists:
        return True
    seats = answer.seats
    if None in seats and not any(None in each for each in lists):
        return True
    if len(set(seats)) < len(seats) and not any(len(set(each)) < len(each) for each in lists):
        return True
    lengths = [len(each) for each in lists]
    return not min(lengths) <= len(seats) <= max(lengths)


# --- the fuzzing table ----------------------------------------------------------------------


class Endless(BaseException):
    """A game past STEP_LIMIT steps, or past its time (not an Exception: nothing may catch it)."""


class FuzzTable(FakeTable):
    """The fake table of the tests, answering from a :class:`Mix` and checking every answer.

    ``log`` keeps every attempt in order, ``taken`` the accepted one of each asking
    (the replay without rejections), ``tally`` what was tried.
    """

    def __init__(
        self, variant: Variant, deal: Any, mix: Mix, rng: random.Random, lang: str
    ) -> None:
        super().__init__(variant, deal, lang=lang, on_prompt=check_prompt)
        self.mix = mix
        self.rng = rng
        self.choose = self.attempts
        self.interject = self.interrupts
        self.log: list[tuple[str, str, str]] = []  # (prompt id, text, verdict)
        self.taken: dict[tuple[str, int], list[str]] = {}
        self.tally: Counter[str] = Counter()
        self.closed: list[Prompt] = []
        self._legal: dict[int, tuple[Prompt, list[Answer]]] = {}
        self._must_take: set[str] = set()  # options typed at the keypad: never refused

    # --- the loop ---------------------------------------------------------------------

    def carry_out(self, step: Any) -> Answer | None:
        if len(self.steps) >= STEP_LIMIT:
            raise Endless(f"more than {STEP_LIMIT} steps, in {self.phase}")
        return super().carry_out(step)

    def ask(self, prompt: Prompt) -> Answer:
        if self.closed and self.rng.random() < self.mix.closed:
            self._closed_attempt()
        reply = super().ask(prompt)
        self.closed = [*self.closed[-40:], prompt]
        return reply

    def _closed_attempt(self) -> None:
        """An answer given for a prompt that is not open: the table drops it, and judging
        it late must change nothing (the replay without rejections checks that)."""
        old = self.rng.choice(self.closed)
        text = self._one(old, self.rng.choice(KINDS))
        self.tally["closed"] += 1
        self.log.append((old.id, text, "closed"))
        with contextlib.suppress(NarratorError):
            old.accept(text)

    def attempt(self, prompt: Prompt, text: str, answered: bool) -> Answer | None:
        answer = super().attempt(prompt, text, answered)
        self.log.append((prompt.id, text, "rejected" if answer is None else "accepted"))
        self.tally["accepted" if answer is not None else "rejected"] += 1
        if answer is None:
            assert answered or text not in self._must_take, (
                f"{prompt.id}: its own option typed at the keypad, {text!r}, is refused"
            )
            return None
        self.taken.setdefault((prompt.id, self._asked[prompt.id] - 1), [text])
        assert not outside_options(answer, prompt, self.legal(prompt)), (
            f"{prompt.id} accepted {shorten(text)!r} as {answer}, none of its options "
            f"{list(prompt.options)[:10]}"
        )
        return answer

    def legal(self, prompt: Prompt) -> list[Answer]:
        known = self._legal.get(id(prompt))
        if known is None or known[0] is not prompt:
            legal = []
            for option in prompt.options:
                with contextlib.suppress(NarratorError):  # check_prompt reports it
                    legal.append(prompt.accept(option))
            known = self._legal[id(prompt)] = (prompt, legal)
        return known[1]

    # --- the attempts -------------------------------------------------------------------

    def attempts(self, prompt: Prompt) -> list[str]:
        """What the table tries at one prompt: nothing, or one to four attempts (a
        burst of repeats now and then)."""
        self._must_take = set()
        if self.rng.random() < self.mix.silent:
            return []
        count = self.rng.choice((1, 1, 1, 2, 2, 3, 4))
        texts: list[str] = []
        for _ in range(count):
            kind = self.rng.choices(KINDS, self.mix.weights)[0]
            if kind == "repeat" and texts:
                texts += [self.rng.choice(texts)] * self.rng.randint(1, 3)
                continue
            texts.append(self._one(prompt, kind))
            self.tally[kind] += 1
        return texts

    def _one(self, prompt: Prompt, kind: Kind) -> str:
        rng = self.rng
        keypad = rng.random() < self.mix.keypad
        if kind in {"valid", "repeat"} and prompt.calls and rng.random() < 0.5:
            return self._presses(prompt)
        if kind in {"valid", "repeat"} and prompt.options:
            option = rng.choice(prompt.options)
            if not keypad or prompt.calls:
                return option
            entries = codec.to_keys(option, prompt)
            text = " ".join(codec.from_keys(entry, prompt) for entry in entries)
            self._must_take.add(text)
            return text
        if kind == "invalid":
            text = rng.choice(self._invalid(prompt))
        elif kind == "keypad":
            text, keypad = rng.choice(KEYPAD), True
        else:
            text = rng.choice(GARBAGE)
        return codec.from_keys(text, prompt) if keypad else text

    def _presses(self, prompt: Prompt) -> str:
        """Space presses in a call-mode shooting: on any called number, or before the first."""
        living = sorted(set().union(*(_seats_in(a) for a in self.legal(prompt))))
        called: list[Seat | None] = [None, *living]
        presses = [self.rng.choice(called) for _ in range(self.rng.randint(0, prompt.entries + 1))]
        if presses and self.rng.random() < 0.5:
            presses = [presses[0]] * len(presses)  # together on one number: a hit if all shot
        return codec.presses(presses)

    def _invalid(self, prompt: Prompt) -> list[str]:
        """Answers that parse, or nearly: seats off the table, dead ones, one's own, kinds
        the prompt does not take, one entry too many or too few."""
        top = prompt.seat_count
        texts = [*wrong_inputs(prompt), str(top + 1), str(top + 100), "0"]
        texts += [str(seat) for seat in prompt.seats]
        texts += [str(seat) for seat in self.gone]
        seat = str(self.rng.randint(1, top))
        texts += [" ".join([seat] * (prompt.entries + 1)), " ".join([seat] * prompt.entries)]
        if prompt.entries > 1:
            texts.append(" ".join([seat] * (prompt.entries - 1)))
        if prompt.speaker is not None:
            texts += [f"{seat} {prompt.speaker % top + 1}", f"{seat} {prompt.speaker}"]
        return texts

    def interrupts(self, prompt: Prompt) -> list[str]:
        """Now and then somebody claims the interrupt of a speech (``*8``), rightly or not."""
        self._must_take = set()
        if self.rng.random() >= self.mix.interrupts:
            return []
        texts = []
        for _ in range(self.rng.choice((1, 1, 2, 3))):
            kind = self.rng.choices(KINDS, self.mix.weights)[0]
            valid = kind in {"valid", "repeat"} and bool(prompt.options)
            if valid:
                typed = codec.to_keys(self.rng.choice(prompt.options), prompt)[0]
            elif kind == "invalid" and self.rng.random() < 0.5:
                typed = f"*{self.rng.randint(0, prompt.seat_count + 1)}"
            elif kind == "invalid":  # meant for another speech: kept for later, or refused
                wolf, other = self.rng.randint(1, prompt.seat_count), self.rng.randint(1, 99)
                typed = f"{wolf} {other}"
            else:
                typed = self.rng.choice(GARBAGE + KEYPAD)
            text = codec.interrupt_from_keys(typed, prompt)
            if text is None:  # not a claim: the table takes it as speech-time typing
                text = typed
            else:
                with contextlib.suppress(NarratorError):
                    codec.claimant(text, prompt)  # the seat the claim line names
                if valid:
                    self._must_take.add(text)
            texts.append(text)
            self.tally["interrupt"] += 1
        return texts


# --- one game ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One game: everything else (switches, language, answers) follows from its seed."""

    variant: str
    players: int
    seed: int

    def __str__(self) -> str:
        return f"{self.variant}/{self.players}/{self.seed}"

    @staticmethod
    def parse(text: str) -> Case:
        try:
            variant, players, seed = text.split("/")
            return Case(variant, int(players), int(seed))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: a case is variant/players/seed") from None


@dataclass
class Result:
    case: Case
    status: Literal["ok", "crash", "illegal", "unended"]
    seconds: float
    at_limit: bool = False
    detail: str = ""
    tail: list[tuple[str, str, str]] = field(default_factory=list)
    attempts: int = 0
    tally: Counter[str] = field(default_factory=Counter)


def shorten(text: str, most: int = 30) -> str:
    return text if len(text) <= most else f"{text[: most - 1]}…(+{len(text) - most + 1})"


def check_rejections_change_nothing(table: FuzzTable) -> None:
    """The same game given only its accepted attempts is the same game, step by step."""
    assert table.switches is not None
    replay = Replay(table.taken)
    twin = play(
        table.variant,
        table.deal,
        table.switches,
        replay,
        lang=table.catalog.lang,
        seed=table.seed,
        interject=replay,
    )
    assert_same(table.steps, twin.steps, "the game without its rejected attempts")  # type: ignore[arg-type]
    assert table.outcome == twin.outcome, "the outcome without the rejected attempts differs"


def _timed_out(_signum: int, _frame: FrameType | None) -> None:
    raise Endless("out of time")


def set_up(case: Case) -> FuzzTable:
    variant = get_variant(case.variant)
    rng = random.Random(case.seed)
    sw = random_switches(variant, case.players, rng)
    lang = rng.choice(LANGUAGES)
    mix = rng.choice(MIXES)
    deal = deal_for(variant, case.players, sw, rng.randrange(2**32))
    table = FuzzTable(variant, deal, mix, random.Random(rng.randrange(2**32)), lang)
    table.switches, table.seed = sw, rng.randrange(2**32)
    return table


def play_case(case: Case, timeout: float = 0.0, depth: int = 6, tail: int = 12) -> Result:
    """Play one game and check it; never raises (but for Ctrl-C). ``depth`` frames of a
    traceback and the last ``tail`` attempts are kept of a failure."""
    start = time.perf_counter()
    table: FuzzTable | None = None
    status: Literal["ok", "crash", "illegal", "unended"] = "ok"
    detail = ""
    alarm = timeout > 0 and threading.current_thread() is threading.main_thread()
    if alarm:
        previous = signal.signal(signal.SIGALRM, _timed_out)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        table = set_up(case)
        table.run(table.variant.new_game(table.deal, table.switches, random.Random(table.seed)))  # type: ignore[arg-type]
        phases = [step.id for step in table.steps if isinstance(step, Phase)]
        if table.outcome is None and phases[-1:] != [f"n{NIGHT_LIMIT}"]:
            status, detail = "unended", f"no winner, stopped in {phases[-1:]}"
        else:
            check_game(table, case.seed)
            check_rejections_change_nothing(table)
    except Endless as endless:
        status, detail = "unended", str(endless)
    except AssertionError:
        status, detail = "illegal", traceback.format_exc(limit=-depth)
    except Exception:
        status, detail = "crash", traceback.format_exc(limit=-depth)
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    result = Result(case, status, time.perf_counter() - start, detail=detail)
    if table is not None:
        result.at_limit = status == "ok" and table.outcome is None
        result.attempts = len(table.log)
        result.tally = table.tally
        if status != "ok":
            result.tail = [
                (pid, shorten(text), verdict) for pid, text, verdict in table.log[-tail:]
            ]
    return result


# --- many games -----------------------------------------------------------------------------


def cases(variant: str, games: int, seed: int) -> Iterator[Case]:
    """The games of one variant: every seat count in turn, each with its own seed."""
    counts = list(get_variant(variant).seat_counts)
    for index in range(games):
        game_seed = random.Random(f"{seed}/{variant}/{index}").getrandbits(32)
        yield Case(variant, counts[index % len(counts)], game_seed)


def play_chunk(task: tuple[list[Case], float]) -> list[Result]:
    chunk, timeout = task
    return [play_case(case, timeout) for case in chunk]


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which ends the pool


@dataclass
class Report:
    results: list[Result]
    wall: float
    jobs: int

    def failures(self) -> list[Result]:
        return [r for r in self.results if r.status != "ok"]


def fuzz(
    variants: Sequence[str],
    games: int,
    seed: int,
    jobs: int = 1,
    timeout: float = 60.0,
    progress: bool = False,
) -> Report:
    """Play ``games`` games of each variant, on ``jobs`` processes."""
    everything = [case for variant in variants for case in cases(variant, games, seed)]
    tasks = [(everything[i : i + CHUNK], timeout) for i in range(0, len(everything), CHUNK)]
    start = time.perf_counter()
    results: list[Result] = []
    if jobs <= 1:
        for task in tasks:
            results += play_chunk(task)
            _progress(progress, len(results), len(everything), start)
    else:
        context = multiprocessing.get_context("spawn")
        with context.Pool(jobs, initializer=_worker_init) as pool:
            for done in pool.imap_unordered(play_chunk, tasks):
                results += done
                _progress(progress, len(results), len(everything), start)
    order = {case: number for number, case in enumerate(everything)}
    results.sort(key=lambda r: order[r.case])
    return Report(results, time.perf_counter() - start, max(jobs, 1))


def _progress(show: bool, done: int, total: int, start: float) -> None:
    if show and (done % 1000 < CHUNK or done == total):
        rate = done / max(time.perf_counter() - start, 1e-9)
        print(f"  {done}/{total} games, {rate:.1f} games/s", file=sys.stderr, flush=True)


def summary(report: Report, most: int = 3) -> str:
    """The table per variant and in total, then each distinct failure with its cases."""
    by_variant: dict[str, list[Result]] = {}
    for result in report.results:
        by_variant.setdefault(result.case.variant, []).append(result)
    head = (
        f"{'variant':12} {'games':>7} {'crashes':>8} {'illegal':>8} {'unended':>8} "
        f"{'at n' + str(NIGHT_LIMIT):>7} {'attempts':>9} {'refused':>8} {'cpu s':>8} "
        f"{'games/s':>8}"
    )
    lines = [head, "-" * len(head)]
    for name, results in [*by_variant.items(), ("total", report.results)]:
        statuses = Counter(r.status for r in results)
        tally: Counter[str] = Counter()
        for r in results:
            tally.update(r.tally)
        cpu = sum(r.seconds for r in results)
        rate = len(results) / report.wall if name == "total" else len(results) / max(cpu, 1e-9)
        lines.append(
            f"{name:12} {len(results):7} {statuses['crash']:8} {statuses['illegal']:8} "
            f"{statuses['unended']:8} {sum(r.at_limit for r in results):7} "
            f"{sum(r.attempts for r in results):9} {tally['rejected']:8} {cpu:8.1f} {rate:8.1f}"
        )
    tally = Counter()
    for r in report.results:
        tally.update(r.tally)
    lines.append(
        f"games/s: per core for each variant; in total over {report.jobs} job(s), "
        f"{report.wall:.1f} s of wall time. Attempts drawn: "
        + ", ".join(f"{tally[k]} {k}" for k in (*KINDS, "interrupt", "closed"))
    )
    groups: dict[tuple[str, str], list[Result]] = {}
    for result in report.failures():
        groups.setdefault((result.status, _gist(result.detail)), []).append(result)
    for (status, gist), results in groups.items():
        seeds = " ".join(str(r.case) for r in results[:8])
        more = f" (+{len(results) - 8} more)" if len(results) > 8 else ""
        lines.append(f"\n=== {status} x{len(results)}: {gist}\n    cases: {seeds}{more}")
        for result in results[:most]:
            lines.append(f"--- {result.case} (replay: --replay {result.case})")
            lines.append("    " + result.detail.strip().replace("\n", "\n    ")[-1500:])
            if result.tail:
                lines.append(f"    last {len(result.tail)} of {result.attempts} attempts:")
                lines += [
                    f"      {pid} <- {text!r}: {verdict}" for pid, text, verdict in result.tail
                ]
    return "\n".join(lines)


def _gist(detail: str) -> str:
    """The last line of a traceback, its numbers, quotes and lists blurred: one line per
    distinct problem."""
    heads = [line for line in detail.strip().splitlines() if line and not line[0].isspace()]
    last = heads[-1] if heads else ""  # the exception's first line (a traceback indents the rest)
    last = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]|\([^)]*\)", "…", last)
    return re.sub(r"\d+", "#", last)[:160]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per variant")
    parser.add_argument(
        "--variant", action="append", default=None, help="only this game (repeatable)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--timeout", type=float, default=60.0, help="machine seconds per game")
    parser.add_argument(
        "--replay", type=Case.parse, default=None, help="play one case again: variant/players/seed"
    )
    args = parser.parse_args(argv)
    if args.replay is not None:
        result = play_case(args.replay, depth=50, tail=60)
        print(f"{result.case}: {result.status} in {result.seconds:.2f} s")
        print(result.detail)
        for pid, text, verdict in result.tail:
            print(f"  {pid} <- {text!r}: {verdict}")
        return 0 if result.status == "ok" else 1
    variants = args.variant or [name for name in known_names() if name in GAMES]
    for name in variants:
        get_variant(name)  # an unknown name fails here, listing the known ones
    report = fuzz(variants, args.games, args.seed, args.jobs, args.timeout, progress=True)
    print(f"seed {args.seed}, {args.games} games per variant")
    print(summary(report))
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
