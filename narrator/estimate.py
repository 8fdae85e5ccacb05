"""How long a game will take at the table, for the set-up screen.

The estimate is not a formula of its own: it plays whole games headlessly through
the same variant scripts and the same :class:`~narrator.drive.Driver` loop the
table uses, answered like the demo players answer (a random legal option of every
prompt, from a seeded ``random.Random``), and adds up the time each step would
take at a real table.  A switch that changes the game (a longer window, a call of
a dead role, a revote) therefore changes the estimate exactly as it changes the
game, with nothing to keep in step by hand.

The time of a step:

* a narrator line: the characters of its spoken text (numbers spelled out, in the
  table's language) over the speech rate measured for the engine that speaks it in
  that language (CHARS_PER_S: by default the engine of the language's default voice,
  Festival for ru and hibari for en; espeak-ng's figure for any other engine);
* a wake window: its full length (windows never end early, docs/rules.md §0.3); the cues
  said in it (sport mafia's called numbers) only when they overrun it;
* a timer (a discussion, a speech, last words, a pause): its full length, and the
  «Время вышло» line after it.  The table may end one early with Enter, but the
  games played here are timed games (the tournament minute of sport mafia, the
  announced three minutes of halloween's discussion) whose speakers use their
  time; and for planning an evening a game that ends early is the harmless error.
  So the estimate leans long, by at most the unused speech time;
* a day answer (a vote, a nomination, a hand count) typed at the laptop: a few
  seconds of typing (ANSWER_TYPING_S), never more than the answer time; a prompt
  with no legal answer waits out the whole answer time;
* a dealt card: the player comes to the laptop, reads the card, hides it
  (DEAL_CARD_S).

Nobody interrupts a speech (a werewolf's self-explosion), as with the demo players.
The typing and dealing times are assumptions, not measurements; the speech rate is
measured. Nothing here plays sound or draws a screen: one call plays ``games``
games in memory (0.5–4 ms each at the default tables, about 7 at alliance's
twelve) and results are cached by their arguments (scripts/bench_estimate.py).
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from narrator.drive import Headless
from narrator.drive import Unrecorded
from narrator.rules.answers import Answer
from narrator.rules.core import DealCard
from narrator.rules.core import Game
from narrator.rules.core import Say
from narrator.rules.core import Switches
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.core import shuffled_deal
from narrator.rules.errors import ConfigError
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.registry import Variant
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from narrator.voice.engines import FESTIVAL
from narrator.voice.engines import HIBARI
from narrator.voice.numbers import spoken

# Characters of spoken text per second of speech at the default rate (170 wpm), by
# engine, then language: what the table plays, the engine's silence trimmed by the
# levelling (narrator.sound.loudness) as every clip of the speech cache is.  Measured
# by scripts/measure_speech_rate.py: 48 real catalog lines per language (12 drawn from
# every game's lines) rendered through SpeechCache into an empty folder; total
# characters over total seconds of audio.
# * Festival msu_ru_nsh_clunits (ru, the default): 1879 chars in 164.3 s (11.44 a
#   second; at its first measurement 1808 in 148.8 s, 12.15); its
#   unit-selection voice keeps the slow pace of its recordings.  Its figure is set by
#   the games rather than by those lines: 11.2 makes the model 0.95–1.06 times what 2
#   games of each variant render (sport mafia's many short numbered lines are slower).
# * hibari heart (en, the default): 2147 chars in 127.5 s, 0.0594 s a character.
# * Festival cmu_us_slt_arctic_hts (en): 2147 chars in 137.3 s, 0.0640 s a character.
# * espeak-ng 1.51 through pyttsx3 (zle/ru, gmw/en-us), the figure of every engine not
#   measured: ru 1808 chars in 109.3 s, en 2147 chars in 135.7 s (135.6 s in another
#   run: espeak is not quite deterministic); 0.0605 and 0.0632 s a character.  (Before
#   the levelling trimmed its silence it measured 14.45 and 14.37 characters a second.)
# Least-squares lines (seconds = a + chars / cps) give 0.11 s + chars / 12.6 for
# Festival ru, 0.07 s + chars / 17.3 for hibari, 0.20 s + chars / 16.8 for Festival
# en: the same totals over lines of these lengths.  The same script checks the model
# on every line said outside windows and timers in 3 games of each variant: the
# model's total is 0.95–1.06 times the rendered one for Festival ru, 1.02–1.08 for
# hibari, 1.00–1.04 for Festival en and 0.98–1.04 for espeak-ng.
CHARS_PER_S: Mapping[str, Mapping[str, float]] = {
    FESTIVAL: {"ru": 11.2, "en": 15.64},
    HIBARI: {"en": 16.83},
    "espeak": {"ru": 16.54, "en": 15.82},
}
# The engine whose figures stand in for an engine not measured (SAPI5, NSSS, …).
FALLBACK_ENGINE = "espeak"
# The engine a language is spoken with unless one is given: that of its default voice,
# the best one scripts/setup.sh installs (narrator.voice.engines ranks the voices).
DEFAULT_ENGINES: Mapping[str, str] = {"ru": FESTIVAL, "en": HIBARI}
# Assumed, not measured: a voter names a seat (or the hands are counted) and the
# keeper of the laptop types it and presses Enter; capped at the answer time.
# The games' timing summaries give 3 s per hand count (docs/games/sport_mafia.md §3.10)
# and about 5 s per voter (docs/games/halloween.md §2.8); 4 s is between them.
ANSWER_TYPING_S = 4.0
# Assumed: a player comes to the laptop, presses Enter, reads the card and presses
# Enter again (the table hides the card by itself after 8 s).
DEAL_CARD_S = 6.0
# Games per estimate. 20 keeps the slowest default table (alliance, 11 seats) near
# 100 ms on this project's shared 2-core machine; between seeds the median moves
# by 1–3 minutes and the 10th and 90th percentiles by 1–6 (30 games barely better).
GAMES = 20
PERCENTILES = (0.1, 0.5, 0.9)


@dataclass(frozen=True)
class Length:
    """The expected length of a game: the 10th, 50th and 90th percentile, in minutes.

    ``nights`` is the median number of the last night played (sport mafia's card
    night is night 0); ``games`` how many games the figures come from.
    """

    low_min: float
    median_min: float
    high_min: float
    nights: int
    games: int


def expected_length(
    game: str,
    players: int,
    options: Mapping[str, Any] | None = None,
    lang: str = "ru",
    answer_s: float = 60.0,
    games: int = GAMES,
    seed: int = 0,
    engine: str | None = None,
) -> Length:
    """The length of a game of ``game`` for ``players`` with the rule switches ``options``.

    ``engine`` is the speech engine that will speak (``festival``, ``hibari``,
    ``espeak``, …); None: that of the language's default voice (DEFAULT_ENGINES).
    Deterministic for a seed. An unknown game, option, language or a composition that
    does not fit raises the ConfigError the registry and the variant raise.
    """
    variant = get_variant(game)
    switches = make_switches(variant, options or {})
    variant.composition(players, switches)  # the variant's own error for a bad table
    load_catalog(lang)  # an unknown language fails here
    if lang not in CHARS_PER_S[FALLBACK_ENGINE]:
        raise ConfigError(f"no measured speech rate for language {lang!r}")
    if not answer_s > 0 or math.isinf(answer_s):
        raise ConfigError(f"answer time must be a positive number of seconds, not {answer_s}")
    if games < 1:
        raise ConfigError(f"an estimate plays at least one game, not {games}")
    speaker = DEFAULT_ENGINES.get(lang, FALLBACK_ENGINE) if engine is None else engine
    return _estimate(game, players, switches, lang, float(answer_s), games, seed, speaker)


def clear_cache() -> None:
    """Forget every cached estimate (a benchmark's cold call)."""
    _estimate.cache_clear()
    _line_seconds.cache_clear()


@functools.lru_cache(maxsize=256)
def _estimate(
    game: str,
    players: int,
    switches: Switches,
    lang: str,
    answer_s: float,
    games: int,
    seed: int,
    engine: str,
) -> Length:
    variant = get_variant(game)
    catalog = load_catalog(lang)
    master = random.Random(seed)
    seconds: list[float] = []
    nights: list[int] = []
    for _ in range(games):
        table = Stopwatch(catalog, random.Random(master.getrandbits(64)), answer_s, engine)
        table.run(_new_game(variant, players, switches, master))
        seconds.append(table.seconds)
        nights.append(table.nights)
    seconds.sort()
    low, median, high = (percentile(seconds, q) / 60 for q in PERCENTILES)
    return Length(low, median, high, statistics.median_low(nights), games)


def _new_game(variant: Variant, players: int, switches: Switches, master: random.Random) -> Game:
    deal_rng = random.Random(master.getrandbits(64))
    deal = shuffled_deal(variant.composition(players, switches), players, deal_rng)
    return variant.new_game(deal, switches, random.Random(master.getrandbits(64)))


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, linear between the two nearest (numpy's default)."""
    if not ordered:
        raise ValueError("no values")
    place = q * (len(ordered) - 1)
    below = math.floor(place)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (place - below)


def chars_per_s(lang: str, engine: str | None = None) -> float:
    """Characters a second that ``engine`` (None: the language's default) speaks ``lang`` at.

    An engine or language it was not measured for gets espeak-ng's figure; a
    language espeak-ng was not measured for either is a KeyError.
    """
    engine = DEFAULT_ENGINES.get(lang, FALLBACK_ENGINE) if engine is None else engine
    measured = CHARS_PER_S.get(engine, {})
    return measured[lang] if lang in measured else CHARS_PER_S[FALLBACK_ENGINE][lang]


@functools.lru_cache(maxsize=4096)
def _line_seconds(text: str, lang: str, engine: str | None) -> float:
    return len(spoken(text, lang).strip()) / chars_per_s(lang, engine)


class Stopwatch(Headless):
    """A table with no clock that adds up how long every step would take at a real one."""

    def __init__(
        self, catalog: Catalog, rng: random.Random, answer_s: float, engine: str | None = None
    ) -> None:
        super().__init__(catalog, Unrecorded())
        self.rng = rng
        self.answer_s = answer_s
        self.engine = engine  # who speaks the lines; None: the language's default engine
        self.seconds = 0.0
        self.nights = 0
        self._running = False  # inside a window or a timer: what is said there takes no extra
        self._cues: list[float] = []
        self._typed = False

    def line_seconds(self, text: str) -> float:
        return _line_seconds(text, self.catalog.lang, self.engine)

    def enter_phase(self, phase: PhaseId) -> None:
        if phase.by_night:
            self.nights = max(self.nights, phase.number)

    def say(self, key: str, text: str) -> None:
        if self._running:
            self._cues.append(self.line_seconds(text))
        else:
            self.seconds += self.line_seconds(text)

    def wake(self, step: Wake) -> None:
        """The full window, or longer when its cues, one every ``cue_every``, overrun it."""
        self._running, self._cues = True, []
        super().wake(step)
        end = 0.0
        for index, cue_s in enumerate(self._cues):
            end = max(end, index * step.cue_every) + cue_s
        self.seconds += max(step.seconds, end)

    def sleep(self) -> None:
        self._running = False

    def typed(self, prompt: Prompt) -> list[str]:
        """A random legal answer, as a demo player gives."""
        return [self.rng.choice(prompt.options)] if prompt.options else []

    def took(self, prompt: Prompt, text: str) -> None:
        self._typed = True

    def ask(self, prompt: Prompt) -> Answer:
        """A day answer takes typing time; one inside a window or a speech none of its own."""
        self._typed = False
        answer = super().ask(prompt)
        if not self._running:
            typed = self._typed
            self.seconds += min(ANSWER_TYPING_S, self.answer_s) if typed else self.answer_s
        return answer

    def deal_card(self, step: DealCard) -> None:
        self.seconds += DEAL_CARD_S

    def timer(self, step: Timer) -> Answer | None:
        """The timer's full length (``until_answer``: its answer's time); its prompt is
        answered during it. What is said while it runs (its warnings, «4 принято») takes
        none of its own and is not played. Nobody interrupts it."""
        answer = None
        if step.prompt is not None:
            self._running = not step.until_answer  # the badge: its answer ends the timer
            answer = self.ask(step.prompt)
            self._running = False
        if not step.until_answer:
            self.seconds += step.seconds
        if step.expired is not None:
            self.carry_out(Say(step.expired))
        return answer


class TimedLines(Stopwatch):
    """A Stopwatch that keeps every line that takes time of its own (not a cue in a
    window, nor a warning in a timer): the lines the speech rate is checked on
    (scripts/measure_speech_rate.py, tests/test_voice_speech_rate.py)."""

    def __init__(self, catalog: Catalog, rng: random.Random, answer_s: float) -> None:
        super().__init__(catalog, rng, answer_s)
        self.lines: list[str] = []

    def say(self, key: str, text: str) -> None:
        before = self.seconds
        super().say(key, text)
        if self.seconds > before:
            self.lines.append(text)
