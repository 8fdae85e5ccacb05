"""Whole games of every variant on the full-screen table, played on a numeric keypad.

Each game starts on the set-up screen (Start has focus, Enter starts) and ends on the
end screen, and every key the test presses is one a numeric keypad has. The narrator
speaks through real espeak-ng (pyttsx3) and the night's knock bed plays in the real
mixer. Every game runs at 80×24 on the virtual clock, in lock step with the test
(``tests.lockstep``): the mix is rendered, not played, and the clock stands still while
the test reads the screen or types, so nothing depends on the machine's speed.
«Ночь оборотня» also plays in real time into a PulseAudio null sink; it and «Альянс
дедукции» play in real time at 120×40 in the `slow` tier.

After every step the test reads the terminal (textual's own screenshot) and checks what
it shows: the phase bar, the living and the dead in the seat ring, the speaker, the
open prompt's label, the newest narrator line at the foot of the log, each announced
nomination, tally and departure, each secret whole inside its owner's window; and what
it must not show: a secret outside its window or deal, a secret box cut off by the
terminal's edge, internal ids. The end screen is scrolled with 8 and 2 until every
seat's card (and the centre cards) and the timeline have been seen.

The test knows the deal (a fixed seed) and plays to it: it knows who the wolves are.
Every wait is a poll, with generous limits, for what the screen must show next (on the
virtual clock, one step of the game at a time); keys are sent only while the prompt they
answer is open; nothing is measured in seconds.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot

from narrator.app import table_app
from narrator.host.audio import AudioVoice
from narrator.host.words import question_of
from narrator.ports import INTERRUPT
from narrator.prepared import prepare
from narrator.rules.registry import get_variant
from narrator.screen.tui import TableApp
from narrator.settings import TableSettings
from narrator.sound.output import DeviceOutput
from narrator.sound.output import OfflineOutput
from narrator.speaking import Speaking
from narrator.voice.catalog import load_catalog
from narrator.voice.game_lines import lines_to_render
from narrator.voice.tts import SpeechCache
from tests.lockstep import Lockstep
from tests.test_tui import check_secrets_stay_inside
from tests.test_tui import screen_rows

pytestmark = pytest.mark.timeout(1200)  # one game in real time on a busy machine; a hang fails

Run = tuple[tuple[int, int], bool]  # the terminal's size; real time (else the virtual clock)
SMALL = pytest.param(((80, 24), False), id="80x24")
# The same game and checks at the large size: a real-time repetition (the `slow` tier); the
# default tier plays every game at 80x24, and test_tui reads the table at 120x40.
LARGE = pytest.param(((120, 40), True), id="120x40-real-time", marks=pytest.mark.slow)
# Textual's names of the keys a numeric keypad has: nothing else is pressed.
KEYPAD = frozenset(
    {*"0123456789", "enter", "plus", "minus", "asterisk", "slash", "full_stop", "backspace"}
)
KEY_NAMES = {".": "full_stop", "+": "plus", "-": "minus", "*": "asterisk", "/": "slash"}
KEY_CHARS = {
    **{digit: digit for digit in "0123456789"},
    **{name: char for char, name in KEY_NAMES.items()},
    "enter": None,
    "backspace": None,
}
WAIT_S = 90.0  # the longest wait for one thing to appear; a loaded machine may be slow
GAME_WAIT_S = 600.0  # on the virtual clock: the most game time one wait may let pass
SETTLE_S = 10.0  # the longest a redraw may lag behind the table (a redraw takes milliseconds)
RATE = 450  # words per minute: the fastest espeak-ng speaks, to keep a game short
# espeak-ng, named (the best voices, hibari and Festival, ignore the rate; they have their
# own tests: test_voice_engines, test_voice_tts).
VOICES = {"en": "espeak:gmw/en-us", "ru": "espeak:zle/ru"}
WINDOW_S = 5.0  # every night window: long enough to type in and read the screen
LONG_S = 45.0  # speeches and day answers: the test ends them, they never run out
# What an internal id looks like: a prompt id (n1.sheriff) or a snake_case token (can_shoot).
INTERNAL_ID = re.compile(r"\b[nd]\d+\.[a-z]|\b[a-z]+_[a-z_]+\b")
# The lines that announce a departure, and the placeholder that names who leaves.
DEPARTURES = {
    "onenight": ("onenight.burn_one", "onenight.burn_tie"),
    "halloween": ("halloween.night_victim", "halloween.voted_out"),
    "sport_mafia": ("sport.bad_morning", "sport.leaves"),
    "alliance": (
        "alliance.night_death",
        "alliance.night_deaths",
        "alliance.exploded",
        "alliance.exiled",
        "alliance.love_death",
        "alliance.hunter_shot",
        "alliance.white_wolf_takes",
    ),
}


@pytest.fixture(autouse=True)
def _sound(pulse_audio: dict[str, str]) -> Iterator[None]:
    """Every game here plays into the private PulseAudio server (conftest.pulse_audio)."""
    yield


def squash(text: str) -> str:
    """Text without any whitespace: a line reads the same however the screen wrapped it."""
    return re.sub(r"\s+", "", text)


def below_rule(rows: list[str]) -> list[str] | None:
    """The rows under the last full-width rule: the log (or, at the end, the results)."""
    rules = [i for i, row in enumerate(rows) if row.strip() and set(row.strip()) == {"─"}]
    return rows[rules[-1] + 1 :] if rules else None


def ring(rows: list[str]) -> tuple[set[int], set[int], set[int]]:
    """The seat ring as shown: (living, dead, speaking)."""
    above = rows[: len(rows) - len(below_rule(rows) or [])]
    text = "\n".join(above)
    living = {int(s) for s in re.findall(r"\[(\d+)\]", text) + re.findall(r"▶(\d+)◀", text)}
    dead = {int(s) for s in re.findall(r"✗(\d+)", text)}  # also ▶✗7◀: last words
    speaking_now = {int(s) for s in re.findall(r"▶✗?(\d+)◀", text)}
    return living, dead, speaking_now


def secret_box(rows: list[str]) -> list[str]:
    """The frame rows of the secret box (the big digits are drawn with the same corners)."""
    return [row for row in rows if re.search(r"[┏┗]━{10,}[┓┛]", row)]


class Table:
    """One game as the players see it: the keypad they press, the screen they read, and
    the test's own model of the public state (the phase, who is still in the game)."""

    def __init__(
        self,
        app: TableApp,
        pilot: Pilot[Any],
        players: int,
        phases: list[str],
        leaving: tuple[str, ...],
        clock: Lockstep | None = None,
    ) -> None:
        self.app = app
        self.pilot = pilot
        self.clock = clock  # the virtual clock in the test's hands; None: real time
        self.players = players
        self.catalog = load_catalog(app.setup.settings.lang if app.setup else "en")
        self.alive = set(range(1, players + 1))  # the test's own count, checked on hearing
        self.departures = [departure_pattern(self.catalog.lines[key]) for key in leaving]
        self.phases = ["setup", *phases]  # the game's phases in order, as the phase bar names them
        self.phase = 0  # index into phases
        self.heard_to = 0  # app.events up to here have been matched by hear()
        self.typed_at = 0  # app.events when the last answer was typed

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    def phase_words(self, phase: str) -> str:
        """The phase bar's words for ``n1``, ``d2``, ``setup``: «Ночь 1», «День 2», «Раздача»."""
        if phase == "setup":
            return self.t("tui.phase_setup")
        kind = "night" if phase[0] == "n" else "day"
        return self.t(f"screen.{kind}", number=int(phase[1:]))

    # --- keys --------------------------------------------------------------------------

    async def press(self, *keys: str) -> None:
        """The key events ``pilot.press`` sends, in order, without its wait for an idle
        process: the mixer never idles, so that wait costs two seconds a key, longer
        than a night window lets a player type."""
        for key in keys:
            assert key in KEYPAD, f"{key!r} is not on a numeric keypad"
            event = events.Key(key, KEY_CHARS[key])
            event.set_sender(self.app)
            assert self.app._driver is not None
            self.app._driver.send_message(event)
            await self.pilot.pause(0.02)

    async def type(self, text: str, enter: bool = True) -> None:
        """``2.5``, ``*8``, ``5+``: the keys, then Enter."""
        self.typed_at = len(self.app.events)
        await self.press(*(KEY_NAMES.get(c, c) for c in text), *(["enter"] if enter else []))

    # --- waiting -----------------------------------------------------------------------

    async def poll(self, condition: Callable[[], bool], seconds: float) -> bool:
        """True as soon as ``condition`` holds, False after ``seconds``; a crash fails."""
        for _ in range(int(seconds / 0.05)):
            if condition():
                return True
            if self.app.error is not None:
                raise AssertionError("the game crashed") from self.app.error
            await self.pilot.pause(0.05)
        return False

    async def until(self, condition: Callable[[], bool], what: str) -> None:
        """Until the game has moved on to ``condition`` (on the virtual clock, step by step)."""
        if self.clock is None:
            happened = await self.poll(condition, WAIT_S)
        else:
            happened = await self.steps(condition, self.clock)
        if not happened:
            screen = "\n".join(screen_rows(self.app))
            raise AssertionError(f"never happened: {what}\n--- the screen:\n{screen}")

    async def steps(
        self, condition: Callable[[], bool], clock: Lockstep, game_s: float = GAME_WAIT_S
    ) -> bool:
        """Let the game go on one wait at a time until ``condition`` holds; False when it
        ends first, or when ``game_s`` of game time pass."""
        await self.pilot.pause(0.01)  # what the game said so far is on the app

        def ended() -> bool:
            if self.app.error is not None:
                raise AssertionError("the game crashed") from self.app.error
            return self.app.finished

        return await clock.run_until(condition, ended, game_s, WAIT_S)

    async def settle(self, condition: Callable[[], bool], what: str) -> None:
        """Until the screen shows ``condition`` while the game stands where it is."""
        if not await self.poll(condition, WAIT_S):
            screen = "\n".join(screen_rows(self.app))
            raise AssertionError(f"never shown: {what}\n--- the screen:\n{screen}")

    async def hear(
        self,
        key: str,
        *,
        phase: str | None = None,
        out: tuple[int, ...] = (),
        look: bool = True,
        **params: Any,
    ) -> str:
        """The narrator says the line ``key`` (after every line heard so far).

        ``phase``: the phase this line opens; ``out``: the seats this line announces
        leaving the game. The screen is then checked as a whole (unless ``look`` is off).
        """
        text = self.t(key, **params)
        found: list[int] = []

        def said() -> bool:
            events = self.app.events
            for index in range(self.heard_to, len(events)):
                if events[index] == ("said", text):
                    found.append(index)
                    return True
            return False

        await self.until(said, f"the narrator says {text!r}")
        self.heard_to = found[0] + 1
        if phase is not None:
            self.phase = self.phases.index(phase)
        self.alive -= set(out)
        gone = set(range(1, self.players + 1)) - self.alive
        assert gone <= self.announced_out(), f"{sorted(gone)} left, the narrator says otherwise"
        if look:
            await self.look()
        return text

    async def hear_one(self, texts: list[str]) -> str:
        """One of these lines (an order the rules draw at random)."""
        found: list[str] = []

        def said() -> bool:
            events = self.app.events[self.heard_to :]
            found[:] = [text for text in texts if ("said", text) in events]
            return bool(found)

        await self.until(said, f"the narrator says one of {texts}")
        self.heard_to += self.app.events[self.heard_to :].index(("said", found[0])) + 1
        await self.look()
        return found[0]

    async def asked(self, label: str, speaker: int | None = None) -> None:
        """The live view asks ``label`` (a day question, a speech, a timer)."""
        await self.until(
            lambda: self.app.live_view is not None and self.app.live_view.label == label,
            f"the prompt {label!r} opens",
        )
        await self.look(speaker=speaker)

    async def closed(self, label: str) -> None:
        await self.until(
            lambda: self.app.live_view is None or self.app.live_view.label != label,
            f"the prompt {label!r} closes",
        )

    async def accepted(self, label: str, shown: str) -> None:
        """The screen confirms ``shown`` as the answer to ``label``."""
        line = f"{question_of(label)} {shown} — {self.t('screen.accepted')}".strip()
        await self.until(
            lambda: ("line", line) in self.app.events[self.typed_at :],
            f"the screen shows {line!r}",
        )
        await self.look()

    async def answer(self, label: str, typed: str, shown: str | None = None) -> None:
        """A day question: its label on screen, the keys, the answer confirmed on screen."""
        await self.asked(label)
        await self.type(typed)
        await self.accepted(label, typed if shown is None else shown)
        await self.closed(label)

    async def speech(
        self, key: str, seat: int, nominate: int | None = None, end: bool = True
    ) -> str:
        """A speech (or defence, or last word): the speaker marked in the ring; Enter ends it."""
        label = self.t(key, seat=seat)
        await self.asked(label, speaker=seat)
        if nominate is not None:
            await self.type(str(nominate))
            await self.accepted(label, str(nominate))
        if end:
            await self.press("enter")
            await self.closed(label)
        return label

    async def window(self, *lines: tuple[str, dict[str, Any]]) -> None:
        """A night window opens after its wake line(s); the screen is read after the keys
        (the window closes on its own time, whatever is typed)."""
        for key, params in lines:
            await self.hear(key, look=False, **params)
        await self.until(
            lambda: self.app.live_view is not None and self.app.live_view.kind == "window",
            f"the window after {lines[-1][0]} opens",
        )

    async def secret(self, text: str) -> None:
        """A secret is on screen, whole, while it is up (or the app asks for a larger
        terminal); the rest of the screen agrees with the table meanwhile."""
        await self.until(lambda: self.app.secret_text == text, f"the secret {text!r} is shown")
        seen: list[str] = []
        rows: list[str] = []

        def whole() -> bool:
            if self.app.secret_text != text:
                return True  # gone before the screen ever showed it right
            rows[:] = screen_rows(self.app)
            seen[:] = self.problems(rows, None)
            return not seen

        await self.settle(whole, f"the secret {text!r} on a consistent screen")
        if seen:
            problems = "; ".join(seen)
            raise AssertionError(
                f"while the secret was up: {problems}\n--- the screen:\n" + "\n".join(rows)
            )

    async def deal(self, roles: tuple[str, ...], call: str = "deal.call") -> None:
        """Each seat is called, presses Enter, sees its card alone, presses Enter again."""
        for seat, role in enumerate(roles, start=1):
            await self.hear(call, seat=seat)
            wait = self.t("screen.deal_wait", seat=seat)
            await self.until(self.page_ends_with(wait), f"{wait!r} shown")
            rows = await self.look()
            assert self.app.secret_text == "", "a card on screen before its player pressed Enter"
            assert squash(wait) in squash("\n".join(rows))
            await self.press("enter")
            await self.secret(self.t("screen.deal_card", roles=self.t(f"role.{role}")))
            await self.press("enter")
            await self.until(lambda: self.app.secret_text == "", "the card disappears")
            await self.look()

    # --- reading the screen --------------------------------------------------------------

    def page_ends_with(self, line: str) -> Callable[[], bool]:
        return lambda: self.app.page_lines[-1:] == [line]

    def announced_out(self) -> set[int]:
        """The seats the narrator has said are leaving the game, so far."""
        out: set[int] = set()
        for kind, text in self.app.events:
            for pattern in self.departures if kind == "said" else ():
                if found := pattern.fullmatch(text):
                    out |= {int(s) for s in re.findall(r"\d+", found.group("out"))}
        return out

    def enlarge_page(self, rows: list[str]) -> bool:
        head = self.t("tui.too_small", width=0, height=0).split("0")[0]
        return squash(head) in squash("\n".join(rows))

    def secrets_so_far(self) -> set[str]:
        """Secrets shown so far whose words no public line contains (those are checkable)."""
        said = [value for kind, value in self.app.events if kind == "said"]
        shown = {value for kind, value in self.app.events if kind == "secret"}
        return {s for s in shown if not any(s in line for line in said)}

    def problems(self, rows: list[str], speaker: int | None) -> list[str]:
        """What is wrong with the screen now, measured against the app and the model."""
        app = self.app
        text = "\n".join(rows)
        flat = squash(text)
        found: list[str] = []
        if self.enlarge_page(rows):
            if secret_box(rows) or any(squash(s) in flat for s in self.secrets_so_far()):
                found.append("the enlarge page shows a part of a secret")
            return found
        bars = [
            self.t("tui.phase", phase=self.phase_words(p))
            for p in self.phases[self.phase : self.phase + 2]
        ]
        if not app.clock.paused and not any(rows[0].strip() == bar for bar in bars):
            found.append(f"the phase bar shows {rows[0].strip()!r}, not {bars[0]!r}")
        if self.phase > 0:
            living, dead, speaking_now = ring(rows)
            out = self.announced_out()  # the game may be a line ahead of the test
            if dead != out or living != set(range(1, self.players + 1)) - out:
                found.append(f"the ring shows living {sorted(living)}, dead {sorted(dead)}")
            if speaker is not None and speaking_now != {speaker}:
                found.append(f"the ring marks {sorted(speaking_now)} speaking, not {speaker}")
        log = below_rule(rows)
        shown_log = [row for row in log or [] if row.strip()]
        if not shown_log:
            found.append("no line of the log is on screen")
        elif not squash("» " + app.last_said).endswith(squash(shown_log[-1])):
            found.append(f"the log ends with {shown_log[-1].strip()!r}, not {app.last_said!r}")
        live = app.live_view
        if live is not None and live.label and squash(live.label) not in flat:
            found.append(f"the prompt label {live.label!r} is not (wholly) on screen")
        found += self.secret_problems(rows, flat)
        if INTERNAL_ID.search(text):
            found.append(f"an internal id on screen: {INTERNAL_ID.search(text)}")
        return found

    def secret_problems(self, rows: list[str], flat: str) -> list[str]:
        """The open secret not whole on screen, or one on screen outside its window."""
        if self.app.secret_text:
            if len(secret_box(rows)) != 2 or squash(self.app.secret_text) not in flat:
                return [f"the secret {self.app.secret_text!r} is not whole on screen"]
            return []
        found = ["a secret box is on screen outside any window"] if secret_box(rows) else []
        for secret in self.secrets_so_far():
            if squash(secret) in flat:
                found.append(f"the secret {secret!r} is on screen outside its window")
        return found

    async def look(self, speaker: int | None = None) -> list[str]:
        """The screen, once it agrees with the app and the model (a redraw may lag a little)."""
        seen: list[str] = []
        rows: list[str] = []

        def settled() -> bool:
            if self.at_end():
                return True
            rows[:] = screen_rows(self.app)
            seen[:] = self.problems(rows, speaker)
            return not seen

        if self.clock is None:
            await self.poll(settled, SETTLE_S)
        else:  # the game finishes what it is showing (a line, then the ring) as time goes on
            await self.steps(settled, self.clock, SETTLE_S)
        if seen:  # not in time, or the game ended before the screen agreed with it
            raise AssertionError("; ".join(seen) + "\n--- the screen:\n" + "\n".join(rows))
        return rows

    def at_end(self) -> bool:
        return self.app.finished or any(kind == "end" for kind, _ in self.app.events)

    # --- the end -------------------------------------------------------------------------

    async def end(self, title: str, must: list[str]) -> list[str]:
        """The end screen: each of its lines, ``must`` among them, reached with 2, then 8."""
        await self.until(lambda: self.app.finished, "the game ends")
        await self.until(
            lambda: squash(title) in squash("\n".join(screen_rows(self.app))),
            f"the end screen shows {title!r}",
        )
        record = self.t("screen.record", path="")
        picture = self.t("picture.written", path="")  # on the page above, with the record
        paths = [line for line in self.app.farewell or [] if line.startswith((record, picture))]
        everything = squash("\n".join(screen_rows(self.app)))
        for line in paths:
            if line.startswith(picture):
                assert squash(line) in everything, f"{line!r} is not on the end screen"
        lines = [line for line in (self.app.farewell or [])[1:] if line not in paths]
        for line in must:
            assert line in lines, f"{line!r} is not on the end screen: {lines}"
        wanted = {squash(line) for line in lines}
        seen: set[str] = set()

        def read() -> str:
            rows = below_rule(screen_rows(self.app)) or []
            found = INTERNAL_ID.search("\n".join(rows))
            assert found is None, f"an internal id on the end screen: {found}"
            page = squash("\n".join(rows))
            seen.update(w for w in wanted if w in page)
            return page

        read()
        for _ in range(3 * len(lines)):
            if seen == wanted:
                break
            await self.press("2")
            await self.pilot.pause(0.1)  # a redraw; reading too early costs one more press
            read()
        assert seen == wanted, f"never shown on the end screen: {sorted(wanted - seen)}"
        for _ in range(3 * len(lines)):
            await self.press("8")
            await self.pilot.pause(0.1)
            if squash(lines[0]) in read():
                break
        else:
            raise AssertionError("8 does not scroll back to the first line")
        return lines


def departure_pattern(template: str) -> re.Pattern[str]:
    """A departure line as a pattern; the group ``out`` holds who leaves."""
    pattern = re.escape(template)
    for name, group in (("seat", r"(?P<out>\d+)"), ("seats", r"(?P<out>\d+(?:, \d+)*)")):
        pattern = pattern.replace(re.escape(f"{{{name}}}"), group)
    return re.compile(pattern.replace(re.escape("{hunter}"), r"\d+"))


def settings_for(
    folder: Path, game: str, players: int, lang: str, seed: int, **options: Any
) -> TableSettings:
    if "window_s" in get_variant(game).switches.model_fields:
        options = {"window_s": WINDOW_S, **options}
    return TableSettings(
        game=game,
        players=players,
        lang=lang,
        seed=seed,
        answer_s=LONG_S,
        record_dir=folder / "records",
        voice=VOICES[lang],
        rate=RATE,
        knocks=True,
        options=options,
        given=frozenset({"players", "lang", "voice", "knocks", "answer_s"}),  # the command line
    )


async def play(
    settings: TableSettings,
    run: Run,
    phases: list[str],
    script: Callable[[Table], Any],
) -> tuple[Table, dict[str, Speaking]]:
    """From the set-up screen to leaving the end screen, with ``script`` playing the game."""
    size, real_time = run
    cache = SpeechCache(settings.lang, rate=settings.rate)  # warm: the game starts at once
    cache.build(lines_to_render(settings.lang, settings.game))
    assert settings.record_dir is not None
    config = settings.record_dir.parent / "config"
    clock = None if real_time else Lockstep()
    if clock is None:
        app, state = table_app(settings, prepare(settings), config)
    else:
        app, state = table_app(
            settings, prepare(settings), config, clock=clock, offline=clock.output
        )
    try:
        async with app.run_test(size=size) as pilot:
            leaving = DEPARTURES[settings.game]
            table = Table(app, pilot, settings.players or 0, phases, leaving, clock)
            await table.until(
                lambda: squash(table.t("setup.start")) in squash("\n".join(screen_rows(app))),
                "the set-up screen shows Start",
            )
            await table.press("enter")  # Start has the focus
            await script(table)
            await table.press("enter")  # leave the end screen
            await table.until(lambda: not app.is_running, "the app closes")
    finally:
        if clock is not None:
            clock.let_go()
        stop_game(app, state)
    assert app.error is None and app.code == 0
    spoken = state["spoken"]
    if clock is None:
        assert isinstance(spoken.output, DeviceOutput), "the game did not play to the sound card"
    else:
        assert isinstance(spoken.output, OfflineOutput), "the game did not play on the clock"
        assert spoken.mixer is not None and spoken.mixer.frame > 0, "nothing was mixed"
    assert isinstance(spoken.voice, AudioVoice)
    said = [value for kind, value in app.events if kind == "said"]
    assert [line.text for line in spoken.voice.timeline] == said[1:]  # all but «preparing»
    check_secrets_stay_inside(app)
    return table, state


def stop_game(app: TableApp, state: dict[str, Speaking]) -> None:
    """A game left running by a failed test is stopped as the table stops it (Esc, then 1),
    so that its sound stream is closed before the next game opens one."""
    game = app._thread
    if game is None or not game.is_alive():
        return
    app.keys.press(INTERRUPT)
    app.keys.press("1")
    game.join(timeout=60)
    spoken = state.get("spoken")
    if game.is_alive() and spoken is not None and spoken.output is not None:
        spoken.output.stop()


def reveal_lines(table: Table, cards: tuple[str, ...], center: tuple[str, ...] = ()) -> list[str]:
    lines = [
        table.t("reveal.seat", seat=seat, role=table.t(f"role.{role}"))
        for seat, role in enumerate(cards, start=1)
    ]
    lines += [
        table.t("reveal.center", index=index, role=table.t(f"role.{role}"))
        for index, role in enumerate(center, start=1)
    ]
    return lines


async def hear_reveal(table: Table, cards: tuple[str, ...]) -> None:
    for seat, role in enumerate(cards, start=1):
        await table.hear("reveal.seat", seat=seat, role=table.t(f"role.{role}"))


def timeline(table: Table, phase: str, number: int, event: str) -> str:
    return f"{table.t(f'screen.{phase}', number=number)}: {event}"


async def finale(table: Table, winner: str, cards: tuple[str, ...], *timeline_lines: str) -> None:
    """Every card read out, then the end screen: the winner, the cards, the timeline."""
    await hear_reveal(table, cards)
    title = table.t("screen.winner", winner=table.t(f"winner.{winner}"))
    await table.end(title, [*reveal_lines(table, cards), *timeline_lines])


async def onenight_vote(
    g: Table, votes: tuple[str, ...], burned: int, final: tuple[str, ...], center: tuple[str, ...]
) -> None:
    """The vote of a «Ночь оборотня» day (seat n votes ``votes[n-1]``), the werewolf at
    ``burned`` burned, every card read out and the end screen."""
    for key in ("onenight.vote_time", "onenight.vote_count", "onenight.vote_enter"):
        await g.hear(key)
    for voter, target in enumerate(votes, start=1):
        await g.answer(g.t("prompt.vote", seat=voter), target)
    await g.hear("onenight.burn_one", seat=burned, out=(burned,))
    await g.hear("onenight.reveal_all")
    await g.hear("onenight.win_burned_wolf")
    await hear_reveal(g, final)
    title = g.t("screen.winner", winner=g.t("winner.inquisition"))
    cause = f"{g.t('screen.player', seat=burned)} — {g.t('cause.burned')}"
    await g.end(title, [*reveal_lines(g, final, center), timeline(g, "day", 1, cause)])


async def onenight_night(g: Table, seats: tuple[str, ...]) -> None:
    """The intro, the deal and nightfall of «Ночь оборотня»: the high inquisitor's window
    opens."""
    await g.hear("onenight.intro", players=len(seats), center=3)
    await g.hear("deal.start")
    await g.deal(seats)
    await g.hear("deal.done")
    await g.hear("onenight.night", phase="n1")
    await g.window(("onenight.hi_wake", {}), ("onenight.hi_hint_2", {}))


# --- «Ночь оборотня» ---------------------------------------------------------------------


@pytest.mark.parametrize("run", [SMALL, LARGE])
def test_a_whole_onenight_game_on_the_keypad(run: Run, tmp_path: Path) -> None:
    settings = settings_for(tmp_path, "onenight", 5, "ru", 1, discussion_s=LONG_S)
    deal = prepare(settings).deal
    assert deal.seats == ("werewolf", "spirit", "high_inquisitor", "inquisitor", "inquisitor")
    assert deal.center == ("inquisitor", "inquisitor", "werewolf")

    async def script(g: Table) -> None:
        await onenight_night(g, deal.seats)
        # The high inquisitor (3) picks himself (refused, with the reason), types 9 and
        # takes it back, then looks at centre cards 1 and 3: *13 on the keypad.
        await g.type("3")
        refused = squash(g.t("reason.self"))
        await g.settle(lambda: refused in squash("\n".join(screen_rows(g.app))), "the refusal")
        await g.press("9", "backspace")
        await g.type("*13")
        roles = ", ".join(g.t(f"role.{r}") for r in ("inquisitor", "werewolf"))
        await g.secret(g.t("screen.secret_center_roles", cards="1, 3", roles=roles))
        await g.hear("onenight.hi_sleep")
        await g.window(("onenight.wolves_wake", {}), ("onenight.wolves_hint", {}))
        await g.secret(g.t("shown.werewolves_alone"))  # seat 1, the only werewolf dealt
        await g.hear("onenight.wolves_sleep")
        # The spirit (2) swaps with seat 4 and sees his new card.
        await g.window(("onenight.spirit_wake", {}), ("onenight.spirit_hint", {}))
        await g.type("4")
        await g.secret(g.t("shown.spirit_seat", seat=4, roles=g.t("role.inquisitor")))
        await g.hear("onenight.spirit_sleep")
        await g.hear("onenight.morning", phase="d1")
        await g.hear("onenight.discussion")
        await g.asked(g.t("label.discussion"))
        help_text = squash(g.t("tui.help").splitlines()[0])
        await g.press("slash")  # the keypad's help ...
        await g.settle(lambda: help_text in squash("\n".join(screen_rows(g.app))), "the help")
        await g.press("slash")  # ... and the same key closes it
        await g.settle(lambda: help_text not in squash("\n".join(screen_rows(g.app))), "no help")
        await g.press("enter")  # the table ends the discussion early
        final = ("werewolf", "inquisitor", "high_inquisitor", "spirit", "inquisitor")
        # everybody points at the werewolf, who points at 2
        await onenight_vote(g, ("2", "1", "1", "1", "1"), 1, final, deal.center)

    table, _ = asyncio.run(play(settings, run, ["n1", "d1"], script))
    assert table.app.farewell and table.app.farewell[0].startswith("Итог:")


def test_a_short_onenight_game_in_real_time_through_the_sound_card(tmp_path: Path) -> None:
    """Three seats in real time into PulseAudio: windows of roles left in the centre run
    their full length, a key typed in one gets what a holder's would (a card drawn at
    random, tests/test_window_keys.py), and the screen is wiped after it all the same."""
    settings = settings_for(  # nobody answers in a window: short ones, a short game
        tmp_path, "onenight", 3, "en", 3, discussion_s=LONG_S, window_s=2.0
    )
    deal = prepare(settings).deal
    assert deal.seats == ("inquisitor", "inquisitor", "werewolf")
    assert deal.center == ("spirit", "high_inquisitor", "werewolf")

    async def script(g: Table) -> None:
        await onenight_night(g, deal.seats)
        shown = len(g.app.events)
        await g.type("*13")  # nobody has this card: the keys get what a holder's would
        await g.hear("onenight.hi_sleep")
        assert g.app.events[shown:].count(("line", g.t("screen.asleep"))) == 1
        assert g.app.secret_text == ""
        # (typed late, after the window, they are dropped: no box at all)
        box = g.t("screen.secret_center_roles", cards="1, 3", roles="\0").split("\0")[0]
        boxes = [value for kind, value in g.app.events[shown:] if kind == "secret" and value]
        assert all(value.startswith(box) for value in boxes), boxes
        await g.window(("onenight.wolves_wake", {}), ("onenight.wolves_hint", {}))
        await g.secret(g.t("shown.werewolves_alone"))
        await g.hear("onenight.wolves_sleep")
        await g.window(("onenight.spirit_wake", {}), ("onenight.spirit_hint", {}))
        await g.hear("onenight.spirit_sleep")
        await g.hear("onenight.morning", phase="d1")
        await g.hear("onenight.discussion")
        await g.asked(g.t("label.discussion"))
        await g.press("enter")
        await onenight_vote(g, ("3", "3", "1"), 3, deal.seats, deal.center)

    asyncio.run(play(settings, ((80, 24), True), ["n1", "d1"], script))


# --- «Хэллоуинская мафия» ------------------------------------------------------------------


@pytest.mark.parametrize("run", [SMALL])
def test_a_whole_halloween_game_on_the_keypad(run: Run, tmp_path: Path) -> None:
    settings = settings_for(  # the seed's own seven (the set-up screen would recommend others)
        tmp_path, "halloween", 7, "en", 1, discussion_s=LONG_S, silence_s=1.0,
        roles="vampire=2,witch=1,hunter=1",
    )  # fmt: skip
    deal = prepare(settings).deal
    assert deal.seats == (
        "vampire", "hunter", "witch", "villager", "villager", "villager", "vampire"
    )  # fmt: skip

    async def vote(g: Table, prompt: str, order: list[int], votes: dict[int, int]) -> None:
        for voter in order:
            await g.hear("halloween.vote_call", seat=voter)
            target = votes[voter]
            shown = g.t("answer.abstain") if target == 0 else str(target)
            await g.answer(g.t(prompt, seat=voter), str(target), shown)

    async def night(g: Table, number: int, attack: int, protect: int, check: int) -> None:
        await g.hear("halloween.village_sleeps", phase=f"n{number}")
        await g.asked(g.t("label.silence"))
        first = "halloween.vampires_wake_first" if number == 1 else "halloween.vampires_wake"
        await g.window((first, {}))
        await g.type(str(attack))
        if number == 1:  # the vampires (1, 7) meet: their seats on screen, for them only
            await g.secret(g.t("shown.vampires", seats="1, 7"))
        await g.accepted("", str(attack))
        await g.hear("halloween.vampires_sleep")
        await g.window(("halloween.witch_wake", {}))
        await g.type(str(protect))
        await g.accepted("", str(protect))
        await g.hear("halloween.witch_sleep")
        await g.window(("halloween.hunter_wake", {}))
        await g.type(str(check))
        # the hunter (2) checks a vampire: the box names whom
        await g.secret(g.t("screen.secret_seat_token", seat=check, verdict=g.t("secret.yes")))
        await g.hear("halloween.hunter_sleep")
        await g.hear("halloween.morning")

    async def discussion(g: Table, day: int) -> None:
        await g.hear("halloween.discussion", phase=f"d{day}")
        await g.asked(g.t("label.discussion"))
        await g.press("enter")
        await g.hear("halloween.vote")

    async def script(g: Table) -> None:
        for key in ("halloween.intro", "halloween.table_7", "halloween.limit_6"):
            await g.hear(key)
        await g.hear("halloween.quiet")
        await g.hear("deal.start")
        await g.deal(deal.seats)
        await g.hear("deal.done")
        await night(g, 1, attack=4, protect=4, check=7)
        await g.hear("halloween.all_survived")
        await discussion(g, 1)
        first = {1: 0, 2: 7, 3: 7, 4: 1, 5: 1, 6: 0, 7: 0}  # 0: abstain; 1 and 7 tie
        await vote(g, "prompt.vote", [1, 2, 3, 4, 5, 6, 7], first)
        await g.hear("halloween.tie", seats=(1, 7))
        again = {1: 7, 2: 7, 3: 7, 4: 1, 5: 7, 6: 7, 7: 1}
        await vote(g, "prompt.revote", [1, 2, 3, 4, 5, 6, 7], again)
        await g.hear("halloween.voted_out", seat=7, out=(7,))
        await g.hear("halloween.card", seat=7, role=g.t("role.vampire"))
        await night(g, 2, attack=5, protect=6, check=1)
        await g.hear("halloween.night_victim", seat=5, out=(5,))
        await g.hear("halloween.card", seat=5, role=g.t("role.villager"))
        await discussion(g, 2)
        await vote(g, "prompt.vote", [2, 3, 4, 6, 1], {2: 1, 3: 1, 4: 1, 6: 1, 1: 2})
        await g.hear("halloween.voted_out", seat=1, out=(1,))
        await g.hear("halloween.win_villagers")
        await g.hear("halloween.reveal_all")
        voted = f"{g.t('screen.player', seat=7)} — {g.t('cause.voted')}"
        await finale(g, "villagers", deal.seats, timeline(g, "day", 1, voted))

    asyncio.run(play(settings, run, ["n1", "d1", "n2", "d2"], script))


# --- «Свердловск Мафия Клуб» -----------------------------------------------------------------


@pytest.mark.parametrize("run", [SMALL])
def test_a_whole_sport_mafia_game_on_the_keypad(run: Run, tmp_path: Path) -> None:
    settings = settings_for(
        tmp_path,
        "sport_mafia",
        10,
        "ru",
        1,
        speech_s=LONG_S,
        last_word_s=LONG_S,
        defence_s=LONG_S,
        meeting_s=WINDOW_S,
        check_s=WINDOW_S,
        shot_call_s=0.6,
    )
    deal = prepare(settings).deal
    black = {2: "mafia", 5: "don", 8: "mafia"}
    assert {s: r for s, r in enumerate(deal.seats, 1) if r in {"mafia", "don"}} == black
    assert deal.seats[6] == "sheriff"

    async def speeches(g: Table, order: list[int], nominations: dict[int, int]) -> None:
        for seat in order:
            await g.hear("sport.floor", seat=seat)
            await g.speech("label.speech", seat, nominate=nominations.get(seat))
            if seat in nominations:
                await g.hear("sport.accepted", seat=str(nominations[seat]))

    async def hands(g: Table, prompt: str, first: int, count: int, last: int) -> None:
        await g.hear("sport.who_is_for", seat=first)
        await g.answer(g.t(prompt, seat=first), str(count))
        await g.hear("sport.rest_of_hands", seat=last, count=10 - count)

    async def script(g: Table) -> None:
        await g.hear("sport.night_falls", phase="n0")
        await g.deal(deal.seats, call="sport.take_card")
        await g.hear("sport.night_goes_on")
        await g.window(("sport.mafia_wake", {}))
        await g.secret(g.t("shown.mafia", seats="2, 5, 8"))
        await g.hear("sport.mafia_sleep")
        await g.hear("sport.day_one", phase="d1")
        # Day 1: 1 nominates 2, 3 nominates 8; 5 hands against 5, twice; all leave (10 FOR).
        await speeches(g, list(range(1, 11)), {1: 2, 3: 8})
        await g.hear("sport.candidates", seats=(2, 8))
        await hands(g, "prompt.sport_mafia.vote", 2, 5, 8)
        await g.hear("sport.perestrelka", seats=(2, 8))
        for seat in (2, 8):
            await g.hear("sport.defence_any", seat=seat)
            await g.speech("label.defence", seat)
        await hands(g, "prompt.sport_mafia.revote", 2, 5, 8)
        await g.hear("sport.all_leave_question")
        await g.answer(g.t("prompt.sport_mafia.all_leave"), "10")
        await g.hear("sport.leaves", seat=2, out=(2,))
        await g.hear("sport.leaves", seat=8, out=(8,))
        for seat in (2, 8):
            await g.hear("sport.last_word", seat=seat)
            await g.speech("label.last_word", seat)
        # Night 1: the don (5) shoots the sheriff (7), finds him, and the sheriff finds the don.
        await g.hear("sport.night_falls", phase="n1")
        await g.window(("sport.mafia_walks", {}))
        await g.type("7")
        await g.accepted("", "7")
        await g.hear("sport.mafia_thanks")
        await g.window(("sport.don_wake", {}))
        await g.type("7")
        await g.secret(g.t("screen.secret_seat_token", seat=7, verdict=g.t("secret.sheriff")))
        await g.hear("sport.don_sleep")
        await g.window(("sport.sheriff_wake", {}))
        await g.type("5")
        await g.secret(g.t("screen.secret_seat_token", seat=5, verdict=g.t("secret.mafia")))
        await g.hear("sport.sheriff_sleep")
        await g.hear("sport.morning_comes")
        await g.hear("sport.bad_morning", seat=7, out=(7,), phase="d2")
        await g.hear("sport.last_word", seat=7)
        await g.speech("label.last_word", 7)
        # Day 2 opens at seat 3 (after yesterday's first, 1; seat 2 is out); 3 nominates 5.
        await speeches(g, [3, 4, 5, 6, 9, 10, 1], {3: 5})
        await g.hear("sport.candidates", seats=(5,))
        await g.hear("sport.leaves", seat=5, out=(5,))
        await g.hear("sport.win_red")
        checked = f"{g.t('role.sheriff')} (7), {g.t('timeline.sheriff')}: 5 — {g.t('secret.mafia')}"
        await finale(g, "red", deal.seats, timeline(g, "night", 1, checked))

    asyncio.run(play(settings, run, ["n0", "d1", "n1", "d2"], script))


# --- «Альянс дедукции» ------------------------------------------------------------------------


@pytest.mark.parametrize("run", [SMALL, LARGE])
def test_a_whole_alliance_game_on_the_keypad(run: Run, tmp_path: Path) -> None:
    settings = settings_for(
        tmp_path,
        "alliance",
        9,
        "en",
        1,
        election_speech_s=LONG_S,
        speech_s=LONG_S,
        last_words_s=LONG_S,
        pk_speech_s=LONG_S,
        badge_s=120.0,  # longer than any wait: passing the badge must end it, with no Enter
        hunter_s=2.0,
    )
    deal = prepare(settings).deal
    assert deal.seats == (
        "villager", "seer", "werewolf", "witch", "villager", "hunter", "villager", "werewolf",
        "werewolf",
    )  # fmt: skip

    async def night(g: Table, number: int, victim: int, poison: int | None, check: int) -> None:
        await g.hear("alliance.night_falls", phase=f"n{number}")
        first = "alliance.wolves_wake_first" if number == 1 else "alliance.wolves_wake"
        await g.window((first, {}))
        if number == 1:  # they meet
            await g.secret(g.t("shown.wolves", seats="3, 8, 9"))
        await g.type(str(victim))
        await g.accepted("", str(victim))
        await g.hear("alliance.wolves_sleep")
        await g.window(("alliance.witch_wake", {}))
        await g.type("0")  # no antidote ...
        if poison is not None:
            await g.press(str(poison), "enter")  # ... and the poison, typed at once
        await g.secret(g.t("shown.witch_save", seats=str(victim)))  # for the witch (4) only
        # the live area names the question the keypad answers
        await g.accepted(g.t("prompt.alliance.witch_save"), g.t("answer.no"))
        if poison is not None:
            await g.accepted(g.t("prompt.alliance.witch_poison"), str(poison))
        # her box, both answers and the keys fit at 80×24 too, no «larger terminal» page
        assert not g.enlarge_page(screen_rows(g.app)), "the witch's window does not fit"
        await g.hear("alliance.witch_sleep")
        await g.window(("alliance.seer_wake", {}))
        await g.type(str(check))
        verdict = g.t("secret.werewolf")
        await g.secret(g.t("screen.secret_seat_token", seat=check, verdict=verdict))
        await g.hear("alliance.seer_sleep")
        await g.window(("alliance.hunter_wake", {}))
        await g.secret(g.t("secret.can_shoot"))
        await g.hear("alliance.hunter_sleep")

    async def script(g: Table) -> None:
        await g.hear("deal.start")
        await g.deal(deal.seats)
        await g.hear("deal.done")
        # Night 1: the wolves kill 1, the witch poisons 5, the seer finds the wolf 3.
        await night(g, 1, victim=1, poison=5, check=3)
        await g.hear("alliance.dawn_election", phase="d1")
        await g.hear("alliance.candidates_call")
        await g.answer(g.t("prompt.alliance.candidates"), "1.7", "1, 7")
        await g.hear("alliance.candidates", seats=(1, 7))
        order = await g.hear_one(
            [g.t("alliance.candidate_order", seats=seats) for seats in ((1, 7), (7, 1))]
        )
        for seat in (1, 7) if order.endswith("1, 7.") else (7, 1):
            await g.hear("alliance.candidate_floor", seat=seat)
            await g.speech("label.candidate", seat)
        await g.hear("alliance.withdraw_call")
        await g.answer(g.t("prompt.alliance.withdraw"), "0", g.t("answer.none"))
        await g.hear("alliance.sheriff_vote_call", seats=(1, 7))
        for voter in (2, 3, 4, 5, 6, 8, 9):
            await g.answer(g.t("prompt.alliance.sheriff_vote", seat=voter), "1")
        await g.hear("alliance.sheriff_elected", seat=1)
        await g.hear("alliance.night_deaths", seats=(1, 5), out=(1, 5))
        # The dead sheriff passes the badge to 7.
        await g.hear("alliance.badge_call")
        await g.speech("label.badge", 1, nominate=7, end=False)  # decided: no Enter needed
        await g.closed(g.t("label.badge", seat=1))
        await g.hear("alliance.badge_passed", seat=7)
        await g.hear("alliance.ability")
        await g.asked(g.t("label.ability"))
        for seat in (1, 5):
            await g.hear("alliance.last_words", seat=seat)
            await g.speech("label.last_word", seat)
        # The sheriff starts the speeches next to the dead 5, ascending: 6, 8, ...
        await g.hear("alliance.order_call")
        await g.answer(g.t("prompt.alliance.order"), "5+", g.t("answer.order_up", seat=5))
        await g.hear("alliance.order_up", seat=6)
        await g.hear("alliance.floor", seat=6)
        await g.speech("label.speech", 6)
        await g.hear("alliance.floor", seat=8)
        await g.speech("label.speech", 8, end=False)
        await g.type("*8")  # the werewolf 8 claims a self-explosion ...
        await g.hear("alliance.explode_claim", seat=8)
        await g.press("enter")  # ... and confirms it in front of everybody
        await g.hear("alliance.exploded", seat=8, out=(8,))
        await g.hear("alliance.speeches_stop")
        await g.hear("alliance.ability")
        # Night 2: the wolves kill 7, the last villager: the werewolves win at dawn.
        await night(g, 2, victim=7, poison=None, check=9)
        await g.hear("alliance.dawn", phase="d2")
        await g.hear("alliance.night_death", seat=7, out=(7,))
        await g.hear("alliance.win_werewolves")
        exploded = f"{g.t('screen.player', seat=8)} — {g.t('cause.exploded')}"
        await finale(g, "werewolves", deal.seats, timeline(g, "day", 1, exploded))

    asyncio.run(play(settings, run, ["n1", "d1", "n2", "d2"], script))
