"""Resume and undo: a game killed at any moment continues where it stopped with
nothing lost, and a day answer can be taken back.

The table loop runs with a fake clock and a fake keypad whose answers depend only
on the prompt (so an interrupted game and its uninterrupted twin get the same
answers). "Killing" raises out of the keypad at a chosen read: the record then
holds exactly the events written before it, as a record fsync'ed per event does
after SIGKILL.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from narrator.host.table import Rewind
from narrator.host.table import TableDriver
from narrator.ports import ENTER
from narrator.ports import UNDO
from narrator.ports import Attempt
from narrator.prepared import rules_rng
from narrator.prepared import stream
from narrator.record import GameRecord
from narrator.resume import replayed
from narrator.resume import unfinished
from narrator.rules import codec
from narrator.rules.core import Deal
from narrator.rules.core import shuffled_deal
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import load_catalog
from tests.harness import FakeClock
from tests.harness import RecordingScreen
from tests.harness import SilentVoice

SHORT = {"discussion_s": 5.0, "speech_s": 5.0}


class Killed(BaseException):
    """The power went out."""


class PolicyKeys:
    """A fake keypad whose answer to a prompt depends only on the prompt (and a salt)."""

    def __init__(self, clock: FakeClock, salt: str, kill_at: int | None = None) -> None:
        self.clock = clock
        self.salt = salt
        self.kill_at = kill_at
        self.reads = 0
        self.queue: deque[str] = deque()
        self.record: GameRecord | None = None  # given: ``marks`` notes its length per read
        self.marks: list[int] = []

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        self.queue.clear()
        if prompt is None or prompt.calls or not prompt.options:
            return
        digest = hashlib.sha256(f"{self.salt}/{prompt.id}".encode()).digest()
        option = prompt.options[digest[0] % len(prompt.options)]
        for entry in codec.to_keys(option, prompt):
            self.queue.extend([*entry, ENTER])

    def read(self, timeout: float) -> str | Attempt | None:
        self.reads += 1
        if self.record is not None:
            self.marks.append(len(self.record.events))
        if self.kill_at is not None and self.reads >= self.kill_at:
            raise Killed
        if self.queue:
            return self.queue.popleft()
        if timeout <= 0:
            return None  # nothing typed: a poll of the keys ends
        self.clock.sleep(min(timeout, 0.5))
        return ENTER  # ends a speech, shows and hides a card; inert elsewhere


def table(
    record: GameRecord, keys: PolicyKeys, replay: Any = (), screen: Any = None, **given: Any
) -> TableDriver:
    """A table with a silent voice; ``given``: what a resumed game keeps (``kept``, ``drawn``)."""
    return TableDriver(
        load_catalog("ru"),
        record,
        voice=SilentVoice(),
        screen=screen or RecordingScreen(),
        keys=keys,
        clock=keys.clock,
        answer_s=5,
        replay=replay,
        **given,
    )


def setup(game: str, players: int, seed: int) -> tuple[Any, Any, Deal]:
    variant = get_variant(game)
    fields = variant.switches.model_fields
    switches = make_switches(variant, {k: v for k, v in SHORT.items() if k in fields})
    deal = shuffled_deal(variant.composition(players, switches), players, stream(seed, "deal"))
    return variant, switches, deal


def play(
    game: str, players: int, seed: int, kill_at: int | None = None, marks: list[int] | None = None
) -> tuple[GameRecord, int]:
    """A game, or its part up to the ``kill_at``-th read of a key; ``marks`` gets the
    record's length at each read."""
    variant, switches, deal = setup(game, players, seed)
    clock = FakeClock()
    keys = PolicyKeys(clock, f"{game}{seed}", kill_at)
    record = GameRecord()
    if marks is not None:
        keys.record, keys.marks = record, marks
    record.start(
        game=game,
        deal={"seats": list(deal.seats), "center": list(deal.center)},
        players=players,
        seed=seed,
    )
    driver = table(record, keys)
    with contextlib.suppress(Killed):
        driver.run(variant.new_game(deal, switches, rules_rng(seed)))
    return record, keys.reads


def resume(
    game: str, players: int, seed: int, events: list[dict[str, Any]], salt: str = ""
) -> GameRecord:
    """The game continued from ``events``; ``salt``: a table that would answer otherwise."""
    variant, switches, deal = setup(game, players, seed)
    stopped = unfinished(pathlike(), events)
    assert stopped is not None, "an interrupted record must be resumable"
    keys = PolicyKeys(FakeClock(), f"{game}{seed}{salt}")
    record = GameRecord()
    record.start(game=game, deal={"seats": list(deal.seats)}, players=players, seed=seed)
    driver = table(record, keys, stopped.steps, kept=stopped.kept, drawn=stopped.drawn)
    driver.run(variant.new_game(deal, switches, rules_rng(seed)))
    return record


def pathlike() -> Any:
    from pathlib import Path

    return Path("20261201-120000-000000-game.jsonl")


def summary(record: GameRecord) -> dict[str, Any]:
    """What must survive a kill: the outcome, who left and why, every secret shown."""
    events = record.events
    end = next(e for e in events if e["event"] == "end")
    return {
        "winner": end["winner"],
        "reveal": end["reveal"],
        "eliminated": [
            (e["seat"], e["phase"], e["cause"]) for e in events if e["event"] == "eliminated"
        ],
        "secrets": [(e["prompt"], e["to"], e["shown"]) for e in events if e["event"] == "secret"],
        # A timer's warnings and «Время вышло» depend on how long it ran: not replayed.
        "said": [
            e["text"]
            for e in events
            if e["event"] == "say"
            and e["key"] != "screen.resumed_game"
            and not e["key"].startswith("timer.")
            and e["key"]
        ],
    }


GAMES = [("onenight", 5), ("halloween", 8), ("sport_mafia", 10), ("alliance", 10)]


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_game_killed_at_random_moments_resumes_to_the_same_end(game: str, players: int) -> None:
    seed = 7
    whole, reads = play(game, players, seed)
    wanted = summary(whole)
    moments = random.Random(f"{game}-kills").sample(range(1, reads), min(100, reads - 1))
    for moment in moments:
        cut, _ = play(game, players, seed, kill_at=moment)
        assert not any(e["event"] == "end" for e in cut.events)
        resumed = resume(game, players, seed, cut.events)
        got = summary(resumed)
        assert got["winner"] == wanted["winner"], f"killed at read {moment}"
        assert got["reveal"] == wanted["reveal"]
        assert got["eliminated"] == wanted["eliminated"], f"killed at read {moment}"
        assert got["secrets"] == wanted["secrets"], f"killed at read {moment}"
        # Replayed lines are recorded again, silently: the record is the whole game's.
        assert [s for s in got["said"]][: len(wanted["said"])] == wanted["said"][: len(got["said"])]


def test_an_open_window_is_run_again_from_its_start() -> None:
    """Killed inside a night window: the window comes again with its full length, and its
    secret is shown again inside it — and only there."""
    game, players, seed = "alliance", 10, 3
    whole, _ = play(game, players, seed)
    windows = [e for e in whole.events if e["event"] == "window"]
    assert windows
    for kill_at in range(1, 2000, 37):
        cut, _ = play(game, players, seed, kill_at=kill_at)
        opened = [e for e in cut.events if e["event"] == "window"]
        closed = [e for e in cut.events if e["event"] == "window_end"]
        if len(opened) > len(closed):  # killed inside this window
            break
    else:
        pytest.fail("no kill moment fell inside a window")
    open_window = opened[-1]
    steps = replayed(cut.events)
    assert sum(1 for s in steps if s.kind == "window") == len(closed)
    resumed = resume(game, players, seed, cut.events)
    after = resumed.events[
        next(i for i, e in enumerate(resumed.events) if e["event"] == "resumed") :
    ]
    again = next(e for e in after if e["event"] == "window")
    assert again["prompt"] == open_window["prompt"] and again["seconds"] == open_window["seconds"]


def night_answers(events: list[dict[str, Any]]) -> dict[int, tuple[str, Any]]:
    """Every answer given inside a wake window: its event's index → (prompt id, answer)."""
    answers, inside = {}, False
    for index, event in enumerate(events):
        if event["event"] == "window":
            inside = True
        elif event["event"] == "window_end":
            inside = False
        elif inside and event["event"] == "done" and event["kind"] == "reply" and event["answer"]:
            answers[index] = (event["id"], event["answer"])
    return answers


def action(prompt_id: str) -> str:
    return prompt_id.split(".")[1]


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_window_answered_before_the_stop_keeps_its_answer(game: str, players: int) -> None:
    """Killed inside a window just after its answer, resumed at a table that would answer
    otherwise: the window runs again, its answer is the one given, and what it showed is
    shown again — for every kind of night action the game has."""
    kinds: set[str] = set()
    tried: set[str] = set()
    for seed in range(1, 9):
        marks: list[int] = []
        whole, _ = play(game, players, seed, marks=marks)
        for index, (pid, answer) in night_answers(whole.events).items():
            kinds.add(action(pid))
            if action(pid) in tried:
                continue
            tried.add(action(pid))
            kill_at = next(k for k, length in enumerate(marks, start=1) if length > index)
            cut, _ = play(game, players, seed, kill_at=kill_at)
            assert cut.events[index]["id"] == pid  # the record holds the answer ...
            assert not any(e["event"] == "window_end" for e in cut.events[index:])  # ... open
            shown = [
                (e["prompt"], e["shown"]) for e in cut.events[index:] if e["event"] == "secret"
            ]
            resumed = resume(game, players, seed, cut.events, salt="another table")
            events = resumed.events
            live = events[next(i for i, e in enumerate(events) if e["event"] == "resumed") :]
            again = [(p, a) for p, a in night_answers(live).values() if p == pid]
            assert again == [(pid, answer)], (pid, answer, again)
            secrets = [(e["prompt"], e["shown"]) for e in live if e["event"] == "secret"]
            assert set(shown) <= set(secrets), (shown, secrets)
    assert tried == kinds and kinds, (tried, kinds)


def undo_at_day_prompt(keys: PolicyKeys, number: int) -> None:
    """When the ``number``-th day prompt opens, the table presses / 3 then 1 (yes), once."""
    original = keys.expect
    state = {"asked": 0, "undone": False}

    def expect(prompt: Prompt | None, *, speech: bool = False) -> None:
        original(prompt, speech=speech)
        if prompt is None or prompt.tag.by_night:
            return
        state["asked"] += 1
        if state["asked"] == number and not state["undone"]:
            state["undone"] = True
            keys.queue = deque([UNDO, "1"])

    keys.expect = expect  # type: ignore[method-assign]


def test_a_day_answer_can_be_taken_back_and_the_record_keeps_both() -> None:
    """Sport mafia, day 1: the second voter's prompt is open; / 3 then 1 takes back the
    first answer given by day, the question comes again, a new answer is given."""
    game, players, seed = "sport_mafia", 10, 5
    variant, switches, deal = setup(game, players, seed)
    clock = FakeClock()
    keys = PolicyKeys(clock, "undo")
    screen = RecordingScreen()
    record = GameRecord()
    driver = table(record, keys, screen=screen)
    undo_at_day_prompt(keys, 2)
    game_ = variant.new_game(deal, switches, rules_rng(seed))
    with pytest.raises(Rewind) as back:
        driver.run(game_)
    first_day = next(d for d in driver.done if d.public and d.answer is not None)
    assert back.value.taken == first_day
    assert any("Отменить ответ" in line for line in screen.lines)


def test_undo_replays_to_the_question_and_goes_on() -> None:
    """The whole loop of the app: the answer taken back, said aloud, asked again."""
    from narrator.prepared import Prepared
    from narrator.session import RewindingTable
    from narrator.session import TablePorts
    from narrator.settings import TableSettings

    game, players, seed = "sport_mafia", 10, 5
    variant, switches, deal = setup(game, players, seed)
    clock = FakeClock()
    keys = PolicyKeys(clock, "undo-app")
    screen = RecordingScreen()
    record = GameRecord()
    undo_at_day_prompt(keys, 3)
    settings = TableSettings(game=game, players=players, answer_s=5)
    prepared = Prepared(variant, switches, deal, load_catalog("ru"), seed, players)
    ports = TablePorts(keys=keys, voice=SilentVoice(), sound=None, clock=clock)  # type: ignore[arg-type]
    rewinding = RewindingTable(settings, prepared, record, screen, ports)
    rewinding.play()
    kinds = [e["event"] for e in record.events]
    assert "undo" in kinds and "end" in kinds
    undone = [e for e in record.events if e["event"] == "say" and e["key"] == "undo.taken_back"]
    assert len(undone) == 1 and "отменён" in undone[0]["text"]
    assert len([line for line in screen.lines if "отменён. Вопрос задаётся снова" in line]) == 1
    after = record.events[record.events.index(undone[0]) :]
    said = [e["key"] for e in after if e["event"] == "say"]
    assert "screen.resumed_game" not in said  # an undo is not a resumed game
    events = record.events
    assert unfinished(pathlike(), [{"event": "start", "deal": {"seats": []}}, *events]) is None


class PageScreen(RecordingScreen):
    """A screen whose page a clear wipes, as the table's does; what was said, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.page: list[str] = []
        self.spoken: list[str] = []

    def said(self, text: str) -> None:
        super().said(text)
        self.spoken.append(text)

    def line(self, text: str) -> None:
        super().line(text)
        self.page.append(text)

    def clear(self) -> None:
        self.page = []


class SpeakingVoice(SilentVoice):
    """The voice port of a table that speaks: the line goes to the screen as it is said."""

    def __init__(self, screen: PageScreen) -> None:
        self.screen = screen

    def say(self, key: str, text: str) -> None:
        self.screen.said(text)


@pytest.mark.parametrize(
    ("game", "players", "seed", "number"), [("onenight", 5, 7, 3), ("sport_mafia", 10, 5, 3)]
)
def test_an_undo_asks_the_question_again_at_once_with_the_answers_that_count(
    game: str, players: int, seed: int, number: int
) -> None:
    """From the confirm to the question open again, the table hears one
    short line (not the lines before the question, heard already, nor a line naming the
    answer, which is rendered only when said); the page keeps the «… — Принято.» lines
    of the answers that still count and says which answer went."""
    from narrator.prepared import Prepared
    from narrator.session import RewindingTable
    from narrator.session import TablePorts
    from narrator.settings import TableSettings

    variant, switches, deal = setup(game, players, seed)
    clock = FakeClock()
    keys = PolicyKeys(clock, "undo-page")
    screen = PageScreen()
    catalog = load_catalog("ru")
    accepted = catalog.text("screen.accepted")
    seen: dict[str, Any] = {}
    original = keys.expect

    def expect(prompt: Prompt | None, *, speech: bool = False) -> None:
        original(prompt, speech=speech)
        if prompt is None or prompt.tag.by_night:
            return
        seen["asked"] = seen.get("asked", 0) + 1
        if seen["asked"] == number:  # the page as it is, then / 3 and 1
            seen["before"] = list(screen.page)
            seen["spoken"] = len(screen.spoken)
            keys.queue = deque([UNDO, "1"])
        elif "before" in seen and "after" not in seen:  # the question asked again
            seen["after"] = list(screen.page)
            seen["said"] = screen.spoken[seen["spoken"] :]
            seen["again"] = prompt.id

    keys.expect = expect  # type: ignore[method-assign]
    record = GameRecord()
    settings = TableSettings(game=game, players=players, answer_s=5)
    prepared = Prepared(variant, switches, deal, catalog, seed, players)
    ports = TablePorts(keys=keys, voice=SpeakingVoice(screen), sound=None, clock=clock)  # type: ignore[arg-type]
    RewindingTable(settings, prepared, record, screen, ports).play()
    undo = next(e for e in record.events if e["event"] == "undo")
    # The question taken back is the one asked again (a speech's timer holds its prompt:
    # d1.speech.2 asks d1.nominate.2).
    assert seen["again"].split(".")[::2] == undo["id"].split(".")[::2], (seen, undo)
    assert seen["said"] == [catalog.text("undo.taken_back")]
    answers = [line for line in seen["before"] if line.endswith(f"— {accepted}")]
    assert len(answers) >= 2, seen["before"]  # the one taken back, and one that counts
    kept = answers[:-1]
    assert [line for line in seen["after"] if line.endswith(f"— {accepted}")] == kept
    assert seen["after"][-1].startswith("Ответ «") and "Вопрос задаётся снова" in seen["after"][-1]


ONENIGHT = ("onenight", 5, 7)  # game, players, seed


def stopped_onenight(tmp_path: Path, lang: str = "ru") -> tuple[Path, GameRecord]:
    """A record folder holding one onenight game in ``lang`` killed half way; its events."""
    from narrator.host.journal import Journal
    from narrator.host.journal import unfinished_records

    game, players, seed = ONENIGHT
    _, reads = play(game, players, seed)
    cut, _ = play(game, players, seed, kill_at=reads // 2)
    records = tmp_path / "records"
    journal = Journal(records, game)
    start = {**cut.events[0], "lang": lang, "options": setup(game, players, seed)[1].model_dump()}
    for event in [start, *cut.events[1:]]:
        journal.append(event)
    journal.close()
    assert len(unfinished_records(records)) == 1
    return records, cut


async def goes_on_then_stops(pilot: Any, app: Any) -> None:
    """The resumed game says so and goes on; the table then stops it (Esc, 1) and leaves."""
    from tests.test_tui import said
    from tests.test_tui import until

    await until(pilot, said(app, "Продолжаем игру с того места, где остановились"), 60)
    await pilot.press("escape")
    await until(pilot, lambda: any("Прервать игру?" in x for x in app.page_lines), 60)
    await pilot.press("1")
    await until(pilot, lambda: app.finished, 60)
    await pilot.press("escape")


def assert_dealt_only_unseen_cards(app: Any, cut: GameRecord) -> None:
    """Only the cards not yet seen before the stop were dealt again."""
    dealt = [value for kind, value in app.events if kind == "secret" and "Ваша карта" in value]
    done_deals = sum(1 for e in cut.events if e["event"] == "done" and e["kind"] == "dealt")
    assert len(dealt) == ONENIGHT[1] - done_deals


def test_narrator_resume_goes_on_at_once_on_the_full_screen(tmp_path: Path) -> None:
    """`narrator resume` on the full screen: no set-up screen (whose Enter dealt a new
    game), the stopped game goes on from where it stopped, and Enter cannot deal anew."""
    import asyncio

    from narrator.app import table_app
    from narrator.screen.setup import SetupScreen
    from narrator.settings import TableSettings
    from narrator.unfinished import prepare_resumed
    from narrator.unfinished import unfinished_games
    from tests.lockstep import Lockstep

    records, cut = stopped_onenight(tmp_path)
    settings = TableSettings(game="halloween", record_dir=records, answer_s=5, silent=True)
    clock = Lockstep()
    app, _ = table_app(
        settings, prepare_resumed(unfinished_games(records)[0]), clock=clock, offline=clock.output
    )

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.3)
            assert not isinstance(app.screen, SetupScreen), "the set-up screen came first"
            await pilot.press("enter")  # the set-up screen's Start, had it been shown
            await goes_on_then_stops(pilot, app)

    try:
        asyncio.run(main())
    finally:
        clock.let_go()
    assert app.error is None
    said_lines = [value for kind, value in app.events if kind == "said"]
    assert not any(line.startswith("Играем в «Хэллоуинскую") for line in said_lines)
    assert_dealt_only_unseen_cards(app, cut)


def test_narrator_resume_says_going_on_in_the_game_s_own_language(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    """An English game resumed by a command in Russian (the default): the line before the
    game is all English, as the game goes on in English."""
    import re

    from narrator import app as table

    records, _ = stopped_onenight(tmp_path, lang="en")
    played: list[Any] = []
    monkeypatch.setattr(table, "play_at_table", lambda settings, prepared: played.append(settings))
    from narrator.settings import TableSettings

    settings = TableSettings(game="halloween", record_dir=records, lang="ru")
    table.resume_at_table(settings, choice=None, listing=False)
    line = capsys.readouterr().out.strip()
    assert line.startswith("Going on: ") and not re.search("[а-яА-Я]", line), line
    assert [s.lang for s in played] == ["en"]


def test_the_set_up_screen_offers_a_stopped_game_and_continues_it(tmp_path: Path) -> None:
    """A killed onenight game in the record folder: «Продолжить игру» lists it; chosen and
    started, the game goes on from its first unfinished step, without dealing again."""
    import asyncio

    from textual.widgets import Select

    from narrator.host.journal import unfinished_records
    from narrator.settings import TableSettings
    from tests.test_tui import make_app
    from tests.test_tui import until

    records, cut = stopped_onenight(tmp_path)
    settings = TableSettings(game="halloween", record_dir=records, answer_s=5)
    app = make_app(settings, tmp_path / "config")

    async def main() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await until(pilot, lambda: bool(app.screen.query("#resume")))
            choice = app.screen.query_one("#resume", Select)
            await until(pilot, lambda: app.focused is choice)  # the stopped game comes first
            await pilot.press("2")  # on the keypad: 2 chooses it, «Начать» takes the focus
            await until(pilot, lambda: choice.value == str(unfinished_records(records)[0]))
            await until(pilot, lambda: getattr(app.focused, "id", None) == "start")
            await pilot.press("enter")
            await goes_on_then_stops(pilot, app)

    asyncio.run(main())
    assert app.error is None
    assert_dealt_only_unseen_cards(app, cut)


class FirstLive(PolicyKeys):
    """Stops at the first prompt asked live (after the replay), noting which it was."""

    def __init__(self, clock: FakeClock, salt: str) -> None:
        super().__init__(clock, salt)
        self.asked: str | None = None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        if prompt is not None:
            self.asked = prompt.id
            raise Killed
        super().expect(prompt)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_every_kind_of_day_answer_can_be_taken_back(game: str, players: int) -> None:
    """For each kind of day prompt of a whole game (a vote, a count, a nomination, a
    candidacy, a badge…): cut before its answer, the replay returns to that very prompt,
    with the table in the state it had then (the same seats gone)."""
    seed = 11
    variant, switches, deal = setup(game, players, seed)
    keys = PolicyKeys(FakeClock(), f"{game}{seed}")
    played = GameRecord()
    driver = table(played, keys)
    driver.run(variant.new_game(deal, switches, rules_rng(seed)))
    gone_after: list[set[int]] = [set()]  # the seats gone once k steps were done
    for event in played.events:
        if event["event"] == "done":
            gone_after.append(set(gone_after[-1]))
        elif event["event"] == "eliminated":
            gone_after[-1].add(event["seat"])
    kinds: dict[str, int] = {}
    for index, done in enumerate(driver.done):
        action = done.id.split(".")[1] if "." in done.id else done.id
        if done.public and done.answer is not None:
            kinds.setdefault(action, index)
    assert kinds, f"{game}: no day answer to take back"
    for action, keep in kinds.items():
        back = FirstLive(FakeClock(), f"{game}{seed}")
        replay = table(GameRecord(), back, driver.done[:keep])
        game_ = variant.new_game(deal, switches, rules_rng(seed))
        with contextlib.suppress(Killed):
            replay.run(game_)
        taken = driver.done[keep].id.split(".")
        asked = (back.asked or "").split(".")
        # The same prompt, or the prompt of the same speech (d1.speech.1 → d1.nominate.1).
        assert asked == taken or (asked[0], asked[-1]) == (taken[0], taken[-1]), (
            f"{game}: {action} came back as {back.asked}"
        )
        assert {seat for seat, _ in game_.eliminated} == gone_after[keep], f"{game}: {action}"


@pytest.mark.parametrize(
    ("recorded", "kept"),
    [(2, 2.0), (7.5, 7.5), (0, None), (-3, None), (1e9, None), (float("inf"), None),
     (float("nan"), None), (True, None), ("60", None), (None, None)],
)  # fmt: skip
def test_a_resume_takes_only_a_sound_recorded_answer_time(recorded: Any, kept: Any) -> None:
    """A damaged or hand-edited record cannot make a day answer last for ever."""
    start = {"event": "start", "deal": {"seats": ["villager"] * 3}, "answer_s": recorded}
    stopped = unfinished(pathlike(), [start])
    assert stopped is not None and stopped.answer_s == kept


def test_a_game_killed_right_after_the_deal_says_where_it_goes_on() -> None:
    """Killed after the last card and before the night: the resume line names «Раздача»
    (not an id), and the last call («Игрок номер N, откройте глаза…») is not said again,
    as if that player had to look once more."""
    game, players, seed = "onenight", 5, 7
    marks: list[int] = []
    whole, _ = play(game, players, seed, marks=marks)
    last_deal = max(
        i for i, e in enumerate(whole.events) if e["event"] == "done" and e["kind"] == "dealt"
    )
    kill_at = next(k for k, length in enumerate(marks, start=1) if length > last_deal)
    cut, _ = play(game, players, seed, kill_at=kill_at)
    assert not any(e["event"] == "phase" for e in cut.events)  # still in the deal
    resumed = resume(game, players, seed, cut.events)
    events = resumed.events
    live = events[next(i for i, e in enumerate(events) if e["event"] == "resumed") :]
    said = [e for e in live if e["event"] == "say"]
    assert said[0]["key"] == "screen.resumed_game" and said[0]["text"].endswith("Раздача.")
    assert not any(e["key"] in ("", "deal.call") for e in said[:2]), said[:2]
