"""The real-time table loop with fakes for the clock, keypad, screen and sound.

Spoken answers arrive as attempts for their prompt (never as simulated key
presses); several seats and the sheriff's order are typed with keypad keys;
a window's ticks depend only on its start and length.
"""

from __future__ import annotations

from collections import deque

import pytest

from narrator.host.table import TableDriver
from narrator.ports import ENTER
from narrator.ports import Attempt
from narrator.record import GameRecord
from narrator.resume import Done
from narrator.resume import Mismatch
from narrator.rules.alliance import candidates_prompt
from narrator.rules.alliance import order_prompt
from narrator.rules.answers import Answer
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import OrderAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.core import Ask
from narrator.rules.core import Deal
from narrator.rules.core import Game
from narrator.rules.core import Outcome
from narrator.rules.core import Phase
from narrator.rules.core import Script
from narrator.rules.core import Sleep
from narrator.rules.core import Timer
from narrator.rules.core import Wake
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import high_inquisitor_prompt
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.sport_mafia import count_prompt
from narrator.voice.catalog import load_catalog
from tests.harness import FakeClock
from tests.harness import RecordingScreen
from tests.harness import SilentVoice

LIVING = tuple(range(1, 13))


class ScriptedKeys:
    """A fake keypad (and microphone): hands over the given keys and attempts, one per read."""

    def __init__(self, clock: FakeClock, inputs: list[str | Attempt]) -> None:
        self.clock = clock
        self.inputs = deque(inputs)

    def read(self, timeout: float) -> str | Attempt | None:
        if self.inputs:
            return self.inputs.popleft()
        self.clock.sleep(timeout)
        return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        pass


def play_at_table(
    script: Script,
    keys: ScriptedKeys,
    *,
    screen: RecordingScreen | None = None,
    voice: object = None,
    sound: object = None,
    game: str = "alliance",
) -> None:
    """Run ``script`` through the real table loop with fakes around it."""
    driver = TableDriver(
        load_catalog("ru"),
        GameRecord(),
        voice=voice or SilentVoice(),  # type: ignore[arg-type]
        screen=screen or RecordingScreen(),
        keys=keys,
        clock=keys.clock,
        answer_s=5,
        sound=sound,  # type: ignore[arg-type]
    )
    driver.run(Game(game, Deal(("villager",) * 12), script))


def ask_once(prompt: Prompt, inputs: list[str | Attempt]) -> tuple[object, RecordingScreen]:
    """Run a one-prompt day at the real table loop; the answer it took."""
    got: list[object] = []

    def script() -> Script:
        yield Phase(day(1))
        got.append((yield Ask(prompt)))
        return Outcome(None, day(1))

    screen = RecordingScreen()
    play_at_table(script(), ScriptedKeys(FakeClock(), inputs), screen=screen)
    return got[0], screen


def test_two_candidates_typed_at_the_table_with_space_or_dot() -> None:
    prompt = candidates_prompt(1, LIVING, 12)
    answer, screen = ask_once(prompt, ["2", " ", "5", ENTER])
    assert answer == SeatsAnswer((2, 5))
    assert any("2, 5" in line for line in screen.lines)
    assert ask_once(prompt, ["2", ".", "5", ENTER])[0] == SeatsAnswer((2, 5))


def test_the_order_is_typed_at_the_table() -> None:
    answer, _ = ask_once(order_prompt(1, 5, (4, 6), 12), ["4", "+", ENTER])
    assert answer == OrderAnswer(4, 1)


def test_a_spoken_attempt_is_taken_for_its_own_prompt_only() -> None:
    prompt = count_prompt(Tag(day(1), "vote", 4), 9)
    assert ask_once(prompt, [Attempt("d1.vote.4", "6")])[0] == CountAnswer(6)
    # Heard for the previous prompt:
    stale: list[str | Attempt] = [Attempt("d1.vote.3", "6"), "2", ENTER]
    assert ask_once(prompt, stale)[0] == CountAnswer(2)


def test_a_night_prompt_takes_no_spoken_attempt() -> None:
    night = high_inquisitor_prompt(1, 5, OneNightSwitches())
    assert ask_once(night, [Attempt(night.id, "3")])[0] == night.default


class TickCounter:
    """A fake night sound that notes when it ticked."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.ticks: list[float] = []

    def night(self, on: bool) -> None:
        pass

    def tick(self) -> None:
        self.ticks.append(round(self.clock.now(), 6))


def window_ticks(inputs: list[str | Attempt]) -> list[float]:
    """The tick times of one 8-second wake window with a prompt, given what was typed."""
    prompt = high_inquisitor_prompt(1, 5, OneNightSwitches())

    def script() -> Script:
        yield Phase(night(1))
        yield Wake(Tag(night(1), "high_inquisitor"), 8.0, (1,))
        yield Ask(prompt)
        yield Sleep()
        return Outcome(None, night(1))

    clock = FakeClock()
    sound = TickCounter(clock)
    play_at_table(script(), LateKeys(clock, at=6.5, inputs=inputs), sound=sound, game="onenight")
    return sound.ticks


class LateKeys(ScriptedKeys):
    """A fake keypad that types its keys only once the clock has reached ``at``."""

    def __init__(self, clock: FakeClock, at: float, inputs: list[str | Attempt]) -> None:
        super().__init__(clock, inputs)
        self.at = at

    def read(self, timeout: float) -> str | Attempt | None:
        if self.clock.now() < self.at:
            self.clock.sleep(timeout)
            return None
        return super().read(timeout)


def test_ticks_depend_only_on_the_window_start_and_length() -> None:
    nobody = window_ticks([])
    late_answer = window_ticks(["3", ENTER])  # accepted 1.5 s before the end
    assert nobody == late_answer
    assert len(nobody) == 3


# --- public pauses and claims teach nothing about hidden roles ---------------------------


def pause_prompts(deal_hunter: bool) -> list[Prompt]:
    """The prompts of day 1's pause after a night death, hunter or not, from the real script."""
    from pathlib import Path

    from narrator.scenario import ScenarioDriver
    from narrator.scenario import _prepare
    from narrator.scenario import load_scenario

    scenario = load_scenario(Path(__file__).parent / "scenarios" / "D-T3a.toml")
    if not deal_hunter:  # the same table with the hunter and a villager swapped
        dealt = dict(scenario.deal)
        dealt["4"], dealt["7"] = "villager", "hunter"
        scenario = scenario.model_copy(update={"deal": dealt})
    variant, switches, deal = _prepare(scenario)
    seen: list[Prompt] = []

    class Capture(ScenarioDriver):
        def timer(self, step: Timer) -> Answer | None:
            if step.prompt is not None and step.tag.action == "ability":
                seen.append(step.prompt)
            return super().timer(step)

    import random

    driver = Capture(scenario, load_catalog("ru"), GameRecord())
    driver.run(variant.new_game(deal, switches, random.Random(scenario.seed)))
    return seen


def pause_screen(prompt: Prompt, typed: list[str | Attempt]) -> list[str]:
    """What the screen shows while ``typed`` is typed during a 15-second public pause."""

    def script() -> Script:
        yield Phase(day(1))
        yield Timer(Tag(day(1), "ability"), 15.0, None, (), prompt=prompt)
        return Outcome(None, day(1))

    screen = RecordingScreen()
    play_at_table(script(), ScriptedKeys(FakeClock(), typed), screen=screen)
    return screen.lines


def test_the_hunter_pause_looks_the_same_whoever_died() -> None:
    hunter, villager = pause_prompts(True), pause_prompts(False)
    assert hunter and villager and all(p.blind for p in hunter + villager)
    probe: list[str | Attempt] = ["4", ENTER, "7", ENTER, "1", "3", ENTER, "0", ENTER]
    assert pause_screen(hunter[0], probe) == pause_screen(villager[0], probe)


def claim_run(
    wolves: tuple[int, ...], typed: list[str | Attempt], line_s: float = 0.0
) -> tuple[object, list[str]]:
    """A speech of seat 3 with the explosion open; what it returned and what was said.

    Each line takes ``line_s`` seconds to say (a slow speech rate)."""
    from narrator.rules.alliance import explode_prompt

    interrupt = explode_prompt(Tag(day(1), "speeches.explode"), 3, wolves, 12)
    said: list[str] = []
    clock = FakeClock()

    class Voice:
        def say(self, key: str, text: str) -> None:
            said.append(text)
            clock.sleep(line_s)

    got: list[object] = []

    def script() -> Script:
        yield Phase(day(1))
        got.append((yield Timer(Tag(day(1), "speech", 3), 30.0, 3, (), interrupt=interrupt)))
        return Outcome(None, day(1))

    play_at_table(script(), ScriptedKeys(clock, typed), voice=Voice())
    return got[0], said


def test_probing_an_explosion_teaches_nothing_without_the_claimants_confirmation() -> None:
    probe: list[str | Attempt] = ["*", "8", ENTER]  # typed for seat 8, never confirmed
    as_wolf, as_villager = claim_run((8,), probe), claim_run((5,), probe)
    assert as_wolf == as_villager
    assert as_wolf[0] is None
    assert any("заявляет самоподрыв" in line for line in as_wolf[1])
    assert any("не подтверждён" in line for line in as_wolf[1])


def test_a_confirmed_explosion_is_judged() -> None:
    confirmed: list[str | Attempt] = ["*", "8", ENTER, ENTER]
    assert claim_run((8,), confirmed)[0] == ExplodeAnswer(8, 3)
    assert claim_run((5,), confirmed)[0] is None  # he claimed it himself: refused


def test_the_claimant_has_his_seconds_after_the_claim_line_however_slow_the_voice() -> None:
    """The claim line itself takes 9 s (a slow rate): the 8 s to confirm start after it."""
    confirmed: list[str | Attempt] = ["*", "8", ENTER, ENTER]
    assert claim_run((8,), confirmed, line_s=9.0)[0] == ExplodeAnswer(8, 3)


# --- timers and stopping -----------------------------------------------------------------


def discussion(typed: list[str | Attempt]) -> list[str]:
    """A 20-second discussion with «Время вышло.» for its end; the lines said."""
    said: list[str] = []

    class Voice:
        def say(self, key: str, text: str) -> None:
            said.append(text)

    def script() -> Script:
        yield Phase(day(1))
        yield Timer(Tag(day(1), "discussion"), 20.0, warnings=(), expired="timer.time_up")
        return Outcome(None, day(1))

    play_at_table(script(), ScriptedKeys(FakeClock(), typed), voice=Voice())
    return said


def test_time_is_up_only_when_the_discussion_ran_out() -> None:
    assert "Время вышло." in discussion([])
    assert "Время вышло." not in discussion([ENTER])  # ended early: «Спасибо»


def test_a_second_esc_cancels_the_stop_question_and_day_time_stands_still() -> None:
    from narrator.ports import INTERRUPT

    prompt = count_prompt(Tag(day(1), "vote", 4), 9)

    class SlowKeys(ScriptedKeys):
        """The table thinks for 30 s over the stop question (longer than the answer time)."""

        seen = 0

        def read(self, timeout: float) -> str | Attempt | None:
            key = super().read(timeout)
            if key == INTERRUPT:
                self.seen += 1
                if self.seen == 2:  # the answer to the question comes 30 s later
                    self.clock.sleep(30)
            return key

    def script() -> Script:
        yield Phase(day(1))
        got.append((yield Ask(prompt)))
        return Outcome(None, day(1))

    got: list[object] = []
    keys = SlowKeys(FakeClock(), [INTERRUPT, INTERRUPT, "6", ENTER])
    play_at_table(script(), keys)
    assert got == [CountAnswer(6)]  # not stopped, and the 5-second answer time was kept


def test_the_stop_question_stops_only_on_yes() -> None:
    import pytest

    from narrator.host.table import GameStopped
    from narrator.ports import INTERRUPT

    def script() -> Script:
        yield Phase(day(1))
        yield Ask(count_prompt(Tag(day(1), "vote", 4), 9))
        return Outcome(None, day(1))

    with pytest.raises(GameStopped):
        play_at_table(script(), ScriptedKeys(FakeClock(), [INTERRUPT, "1"]))


def test_the_end_screen_tells_the_game_in_words() -> None:
    from narrator.host.ending import end_screen
    from narrator.rules.answers import SeatAnswer
    from narrator.rules.core import Eliminate
    from narrator.rules.core import Secret
    from narrator.rules.core import Show
    from narrator.rules.prompts import seat_prompt
    from narrator.story import Chronicle

    deal = Deal(("civilian", "sheriff", "mafia", "civilian", "don", "civilian"), ())
    sheriff = Tag(night(1), "sheriff")
    chronicle = Chronicle()
    chronicle.note(Phase(night(1)), None)
    chronicle.note(Ask(seat_prompt(sheriff, (2,), 6, (1, 3, 4, 5, 6))), SeatAnswer(3))
    chronicle.note(Show(sheriff, (2,), Secret.token("mafia")), None)
    chronicle.note(Phase(day(2)), None)
    chronicle.note(Eliminate(3, day(2), "voted"), None)
    outcome = Outcome("red", day(2), reveal={s: deal.role_of(s) for s in range(1, 7)})
    story = chronicle.story("sport_mafia", "ru", deal, outcome)
    _, lines = end_screen(story, load_catalog("ru"))
    assert "Игрок номер 3: Мафия." in lines  # every seat's role
    # whom the sheriff checked, and what he found, in one line
    assert "Ночь 1: Шериф (2), проверка: 3 — Мафия" in lines, lines
    assert "День 2: Игрок номер 3 — исключён голосованием" in lines
    assert not any("n1." in line or "mafia" in line for line in lines)  # no ids, no role ids


def replayed_at_table(replay: list[Done], kept: list[Done]) -> list[object]:
    """A one-window night replayed (``replay``) or re-run with ``kept`` answers."""
    prompt = high_inquisitor_prompt(1, 5, OneNightSwitches())
    got: list[object] = []

    def script() -> Script:
        yield Phase(night(1))
        yield Wake(Tag(night(1), "high_inquisitor"), 4.0, (1,))
        got.append((yield Ask(prompt)))
        yield Sleep()
        return Outcome(None, night(1))

    clock = FakeClock()
    driver = TableDriver(
        load_catalog("ru"),
        GameRecord(),
        voice=SilentVoice(),
        screen=RecordingScreen(),
        keys=ScriptedKeys(clock, []),
        clock=clock,
        answer_s=5,
        replay=replay,
        kept=kept,
    )
    driver.run(Game("onenight", Deal(("villager",) * 5), script()))
    return got


def test_a_record_cannot_give_a_role_an_action_its_prompt_refuses() -> None:
    """A damaged or doctored record is judged again by the rules: the high inquisitor
    looking at his own card, or at a seat off the table, is refused, replayed or kept."""
    for answer in (SeatAnswer(1), SeatAnswer(9)):
        kept = [Done("reply", "n1.high_inquisitor", answer)]
        with pytest.raises(Mismatch, match="not allowed"):
            replayed_at_table([], kept)
        replay = [*kept, Done("window", "n1.high_inquisitor")]  # a played night
        with pytest.raises(Mismatch, match="not allowed"):
            replayed_at_table(replay, [])
    fine = SeatAnswer(3)
    assert replayed_at_table([], [Done("reply", "n1.high_inquisitor", fine)]) == [fine]


def test_the_stop_question_does_not_promise_a_record_the_disk_refused() -> None:
    """A full disk: the record is not kept, so the stop question says so and does not
    say «Протокол игры сохранён». The record learns it from the
    sink that failed."""
    import errno

    from narrator.host.table import GameStopped
    from narrator.ports import INTERRUPT
    from narrator.session import RecordSink

    catalog, screen = load_catalog("ru"), RecordingScreen()
    sink = RecordSink(screen, catalog)
    record = GameRecord(sink)
    sink.record = record
    sink.lose(OSError(errno.ENOSPC, "No space left on device"), "screen.record_off")
    assert record.lost is not None

    def script() -> Script:
        yield Phase(day(1))
        yield Ask(count_prompt(Tag(day(1), "vote", 4), 9))
        return Outcome(None, day(1))

    clock = FakeClock()
    driver = TableDriver(
        catalog,
        record,
        voice=SilentVoice(),
        screen=screen,
        keys=ScriptedKeys(clock, [INTERRUPT, "1"]),
        clock=clock,
        answer_s=5,
    )
    with pytest.raises(GameStopped):
        driver.run(Game("sport_mafia", Deal(("civilian",) * 9), script()))
    assert catalog.text("screen.confirm_quit_unsaved", {}) in screen.lines
    assert catalog.text("screen.confirm_quit", {}) not in screen.lines
