"""The full-screen table in a real terminal: one whole game per variant, set-up to end screen.

Each test starts ``narrator play GAME`` in a detached tmux session (its own server
socket, a temporary HOME and config folders so remembered settings cannot leak
between runs, speech on into the PulseAudio null sink of ``tests/pulse.py``),
presses only keys of a numeric keypad (digits, Enter, ``. + - *`` and
Backspace) and reads the screen with ``capture-pane``, as the players at the
laptop would.  The game record in ``--record-dir`` (sealed while the game runs;
the test opens it with its key from the temporary HOME, as the laptop's user
can) tells the test the deal and which prompt is open, so it can answer in a way
that ends the game; it types nothing before the prompt's live line is on the
screen.  The answers are chosen from the record as the game goes, so a window
that closed before a key arrived changes the course of the game, never its end.

Every screen the test saw is kept and checked after the game: a card, a night
result or a night answer appears only inside its owner's deal or window.  Then
the end screen must name the winner and every seat's role (scrolled with 8/2),
and after leaving it the terminal must show the winner, the roles and the
record's path.

These tests run in real time with real speech (minutes each): select them with
``-m terminal`` (or by this file), leave them out with ``-m "not terminal"``. The
one at 80×24 is the default tier's tmux game, spoken briskly by espeak-ng.
No step has a deadline shorter than ``STEP_S``; nothing asserts a duration.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest

from narrator.host.words import window_hint
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Tag
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from tests.support import Tmux

pytestmark = [
    pytest.mark.timeout(2400),  # a whole game in real time; a hang still fails, with its screen
    pytest.mark.skipif(
        shutil.which("tmux") is None, reason="tmux is not installed (scripts/setup.sh installs it)"
    ),
]

STEP_S = 180.0  # the longest wait for any one thing to appear (screen or record)
POLL_S = 0.1
LANG = "ru"
CAT: Catalog = load_catalog(LANG)

Event = dict[str, Any]


def t(key: str, **params: object) -> str:
    return CAT.text(key, params)


def squash(text: str) -> str:
    return " ".join(text.split())


# --- reading a screen ------------------------------------------------------------------------

# alsa-lib wrote "ALSA lib pcm.c:8570:(snd_pcm_recover) underrun occurred" over the table
# screen when the sound output underran (until cd5309c). The screen is read around such text,
# so that a regression fails once, clearly, in check_sound, not as a puzzle in the parsing.
ALSA_NOISE = re.compile(r"ALSA lib \S+\)[a-z ]*")
BAR = re.compile(r"^\s*[━╸╺]{8,}\s*$")  # the countdown of the live line


@dataclass(frozen=True)
class Screen:
    """One capture of the pane, read the way the table app lays it out."""

    text: str

    @property
    def rows(self) -> list[str]:
        """The rows, with alsa-lib's complaints blanked out (see ALSA_NOISE)."""
        return [
            ALSA_NOISE.sub(lambda m: " " * len(m.group()), row) for row in self.text.split("\n")
        ]

    @property
    def phase_bar(self) -> str:
        return self.rows[0].strip() if self.rows else ""

    @property
    def narrator(self) -> str:
        """The narrator's line: the three rows under the phase bar."""
        return squash(" ".join(self.rows[1:4]))

    def box_rows(self) -> range:
        """The rows of the secret box (heavy border), if one is shown."""
        rows = self.rows
        top = next((i for i, r in enumerate(rows) if r.lstrip().startswith("┏")), None)
        if top is None:
            return range(0)
        bottom = next((i for i in range(top, len(rows)) if rows[i].lstrip().startswith("┗")), top)
        return range(top, bottom + 1)

    @property
    def box(self) -> str | None:
        """The text in the secret box, or None when no box is shown."""
        inside = self.box_rows()
        if not inside:
            return None
        return squash(" ".join(self.rows[i].strip().strip("┃┏┓┗┛━") for i in inside))

    def outside_box(self) -> list[str]:
        inside = self.box_rows()
        return [row for i, row in enumerate(self.rows) if i not in inside]

    @property
    def live_label(self) -> str | None:
        """The question above the countdown bar, or None when no live line is shown."""
        rows = self.rows
        for i, row in enumerate(rows):
            if BAR.match(row):
                return rows[i - 1].strip() if i > 0 else ""
        return None

    def has(self, text: str) -> bool:
        return squash(text) in squash("\n".join(self.rows))

    @property
    def is_end(self) -> bool:
        """The end screen, ready to be left (its phase bar says how)."""
        return self.phase_bar.startswith(t("tui.leave").split(".")[0])

    @property
    def shows_end(self) -> bool:
        """The end screen, also in the moment before its phase bar changes."""
        return self.is_end or self.narrator.startswith(t("screen.winner", winner="").strip())


# --- the record ------------------------------------------------------------------------------


@dataclass
class View:
    """What the test knows of the game: the record so far."""

    events: list[Event]

    @property
    def start(self) -> Event:
        return self.events[0]

    @property
    def deal(self) -> list[str]:
        return list(self.start["deal"]["seats"])

    @property
    def players(self) -> int:
        return len(self.deal)

    def role(self, seat: int) -> str:
        return self.deal[seat - 1]

    def alive(self) -> list[int]:
        gone = {e["seat"] for e in self.events if e["event"] == "eliminated"}
        return [s for s in range(1, self.players + 1) if s not in gone]

    def living(self, *roles: str) -> list[int]:
        return [s for s in self.alive() if self.role(s) in roles]

    def accepted(self, prompt: str) -> str | None:
        for e in self.events:
            if e["event"] == "answer" and e["prompt"] == prompt and e["accepted"]:
                return str(e["input"])
        return None

    def accepted_like(self, pattern: str) -> list[str]:
        rule = re.compile(pattern)
        return [
            str(e["input"])
            for e in self.events
            if e["event"] == "answer" and e["accepted"] and rule.fullmatch(e["prompt"])
        ]

    def causes(self) -> list[str]:
        return [e["cause"] for e in self.events if e["event"] == "eliminated"]


def read_events(folder: Path, keys: Path) -> list[Event]:
    """The record so far: sealed while the game runs (opened with its key), plain once it
    ended; the reader's ``lost`` mark of a record still being written is dropped."""
    from narrator.host.journal import read_journal
    from narrator.rules.errors import ConfigError

    for _ in range(20):  # the sealed record may give way to the plain one meanwhile
        found = sorted(folder.glob("*.jsonl")) or sorted(folder.glob("*.sealed"))
        if not found:
            return []
        try:
            events = read_journal(found[-1], keys)
        except (ConfigError, OSError):
            time.sleep(0.05)
            continue
        return events[:-1] if events and events[-1].get("event") == "lost" else events
    raise AssertionError(f"the record in {folder} cannot be read")


def is_closed(events: Sequence[Event], index: int) -> bool:
    """A prompt answered, expired, or asked again since (an interrupt of the next speech)."""
    pid = events[index]["id"]
    for e in events[index + 1 :]:
        if e.get("prompt") == pid and (
            e["event"] == "expired" or (e["event"] == "answer" and e["accepted"])
        ):
            return True
        if e["event"] == "prompt" and e["id"] == pid:
            return True
        if pid.startswith("n") and e["event"] == "window_end":
            return True
    return False


def split_id(pid: str) -> tuple[str, str, int | None]:
    """``d1.vote.3`` → (``d1``, ``vote``, 3); ``d2.election.explode`` → (``d2``, ..., None)."""
    phase, _, rest = pid.partition(".")
    head, _, last = rest.rpartition(".")
    if last.isdigit():
        return phase, head, int(last)
    return phase, rest, None


# --- what a player types ---------------------------------------------------------------------

KEY_NAMES = frozenset({"Enter", "BSpace"})
KEYPAD = re.compile(r"^[0-9+\-*/.]+$")


@dataclass(frozen=True)
class Until:
    """Between key presses: wait until this text is on the screen (or the prompt closed)."""

    text: str


@dataclass(frozen=True)
class UntilAccepted:
    """Between key presses: wait until the record has the prompt's accepted answer."""


Step = str | Until | UntilAccepted


def entry(text: str) -> tuple[Step, ...]:
    """Keys for one answer: the text, then Enter."""
    return (text, "Enter") if text else ("Enter",)


Policy = Callable[[View, Event], Sequence[Step] | None]


# --- a game in a tmux session ----------------------------------------------------------------


def narrator_command() -> list[str]:
    script = Path(sys.executable).with_name("narrator")
    return [str(script)] if script.exists() else [sys.executable, "-m", "narrator.cli"]


@dataclass
class Snap:
    screen: Screen
    events_before: int
    events_after: int


@dataclass
class Table:
    """``narrator play`` in a detached tmux session of its own."""

    folder: Path
    env: dict[str, str]
    game: str
    args: list[str]
    size: tuple[int, int] = (120, 40)
    snaps: list[Snap] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tmux = Tmux(f"narrator-test-{os.getpid()}-{self.folder.name}"[:100], self.env)
        self.records = self.folder / "records"
        self.socket_path: Path | None = None
        self.heard = False  # narrator was seen playing into the sink

    def start(self) -> None:
        line = self.shell_line("play", self.game, *self.args)
        width, height = self.size
        self.tmux("new-session", "-d", "-s", "game", "-x", str(width), "-y", str(height), line)
        self.socket_path = Path(self.tmux("display-message", "-p", "#{socket_path}").strip())

    def shell_line(self, command: str, *args: str) -> str:
        """``narrator COMMAND ARGS`` on this table's record folder, then its exit status."""
        words = [*narrator_command(), command, "--record-dir", str(self.records), *args]
        return f"{shlex.join(words)}; echo EXIT=$?; sleep 3600"

    def run_again(self, command: str, *args: str) -> None:
        """The pane's program ended: ``narrator COMMAND ARGS`` in it now, on a clean pane."""
        self.tmux("respawn-pane", "-k", "-t", "game", self.shell_line(command, *args))
        self.tmux("clear-history", "-t", "game")

    def narrator_pid(self) -> int:
        """The narrator process running in the pane (the shell's child)."""
        pids = self.tmux.children("game")
        assert len(pids) == 1, f"the pane's shell has children {pids}"
        return pids[0]

    def stop(self) -> None:
        """Kill the tmux server; keep every screen seen beside the record, for a post-mortem."""
        with (self.folder / "screens.txt").open("w", encoding="utf-8") as out:
            for snap in self.snaps:
                out.write(f"--- events {snap.events_before}..{snap.events_after}\n")
                out.write(snap.screen.text + "\n")
        self.tmux.kill()
        if self.socket_path is not None:
            self.socket_path.unlink(missing_ok=True)  # tmux leaves its socket behind

    def press(self, *steps: str) -> None:
        for step in steps:
            if step in KEY_NAMES:
                self.tmux("send-keys", "-t", "game", step)
            else:
                assert KEYPAD.match(step), f"{step!r} is not typed on a numeric keypad"
                self.tmux("send-keys", "-t", "game", "-l", "--", step)

    def playing(self) -> bool:
        """Whether a program plays into the private PulseAudio server's sink right now."""
        done = subprocess.run(
            ["pactl", "list", "short", "sink-inputs"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.returncode == 0 and bool(done.stdout.strip())

    def events(self) -> list[Event]:
        return read_events(self.records, Path(self.env["XDG_STATE_HOME"]) / "narrator" / "keys")

    def snap(self) -> tuple[Screen, View]:
        """Capture the pane, then read the record (which may lag the screen a little)."""
        before = self.snaps[-1].events_after if self.snaps else 0
        screen = Screen(self.tmux("capture-pane", "-p", "-t", "game"))
        events = self.events()
        self.snaps.append(Snap(screen, before, len(events)))
        return screen, View(events)

    def history(self) -> str:
        """The whole pane with its scroll-back, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "game")

    def check_running(self, screen: Screen) -> None:
        if "EXIT=" in screen.text:
            raise AssertionError(f"narrator exited before the end screen:\n{self.history()}")

    def settled(self, what: str) -> tuple[Screen, View]:
        """The screen once two captures in a row agree (none caught half drawn)."""
        previous = self.snap()[0]

        def same(screen: Screen, view: View) -> bool:
            nonlocal previous
            agree, previous = screen.text == previous.text, screen
            return agree

        time.sleep(POLL_S)
        return self.wait(what, same)

    def wait(
        self, what: str, test: Callable[[Screen, View], Any], limit: float = STEP_S
    ) -> tuple[Screen, View]:
        deadline = time.monotonic() + limit
        while True:
            screen, view = self.snap()
            if test(screen, view):
                return screen, view
            self.check_running(screen)
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {limit:.0f} s for {what}; the screen:\n{screen.text}")
            time.sleep(POLL_S)


@pytest.fixture
def table_env(pulse_audio: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The child's environment: the private PulseAudio and a home of its own."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
    env.update(pulse_audio)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        TERM="xterm-256color",
    )
    env.pop("NO_COLOR", None)
    return env


@pytest.fixture
def tables(table_env: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., Table]]:
    """Start tables; every tmux server is killed at the end, also when the test failed."""
    started: list[Table] = []

    def start(game: str, args: list[str], size: tuple[int, int] = (120, 40)) -> Table:
        folder = tmp_path / f"t{len(started)}"
        folder.mkdir()
        table = Table(folder, table_env, game, args, size)
        started.append(table)
        table.start()
        return table

    try:
        yield start
    finally:
        for table in started:
            table.stop()


# --- playing ---------------------------------------------------------------------------------


def expected_label(game: str, events: Sequence[Event], index: int) -> str | None:
    """The live line of a day prompt, as the table words it; None for a night prompt."""
    pid = events[index]["id"]
    phase, action, about = split_id(pid)
    if phase.startswith("n"):
        return None
    if action.endswith(".explode"):  # the interrupt of a speech: the speech's own line
        part = action.rsplit(".", 1)[0]
        speaker = next(
            e["params"]["seat"]
            for e in reversed(events[:index])
            if e["event"] == "say" and "seat" in e["params"]
        )
        key = {"election": "candidate", "election_again": "candidate_again"}.get(part, "speech")
        return t(f"label.{key}", seat=speaker)
    if action == "nominate":  # sport mafia: typed during one's own speech
        return t("label.speech", seat=about)
    for key in (f"prompt.{game}.{action}", f"prompt.{action}", f"label.{action}"):
        if key in CAT.lines:
            return t(key, seat="" if about is None else about)
    return t("screen.answer_for", prompt=pid)


def is_live(game: str, screen: Screen, events: Sequence[Event], index: int) -> bool:
    """The prompt's live line is on the screen: its question above the countdown
    (by day), or the keys hint and the countdown inside its window (at night)."""
    label = screen.live_label
    if label is None:
        return False
    wanted = expected_label(game, events, index)
    if wanted is None:  # the hint of the window the prompt is asked in
        window = next(e["prompt"] for e in reversed(events[:index]) if e["event"] == "window")
        phase, action, _ = split_id(window)
        return screen.has(t(window_hint(CAT, game, Tag(PhaseId.parse(phase), action))))
    return label == wanted or (len(label) >= 20 and wanted.startswith(label))


def deal_waiting(screen: Screen) -> int | None:
    shown = "\n".join(screen.rows)
    match = re.search(r"Игрок номер (\d+): нажмите Enter, чтобы увидеть свою карту", shown)
    return int(match.group(1)) if match else None


def calling(seat: int) -> Callable[[Screen, View], bool]:
    """The deal calls ``seat`` to look at the card."""

    def called(screen: Screen, view: View) -> bool:
        return deal_waiting(screen) == seat

    return called


def deal_one(table: Table, seat: int) -> None:
    """One player looks at the card: nothing before the key, the own card after it."""
    screen, view = table.settled(f"the call of seat {seat}")
    assert screen.box is None, (
        f"a card on screen before player {seat} pressed a key:\n{screen.text}"
    )
    table.press("Enter")
    card = t("screen.deal_card", roles=t(f"role.{view.role(seat)}"))
    table.wait(f"the card of seat {seat}", lambda s, v: s.box is not None)
    screen, _ = table.settled(f"the card of seat {seat}")
    assert screen.box == card, f"seat {seat} was shown {screen.box!r}, not {card!r}"
    table.press("Enter")
    table.wait(f"the card of seat {seat} wiped", lambda s, v: s.box is None)


def carry_out(table: Table, index: int, steps: Sequence[Step]) -> None:
    """Type an answer; a wait between keys gives up quietly if the prompt closed meanwhile."""
    pid = table.snap()[1].events[index]["id"]
    for step in steps:
        if isinstance(step, str):
            table.press(step)
            continue

        def ready(screen: Screen, view: View, step: Until | UntilAccepted = step) -> bool:
            if isinstance(step, Until) and screen.has(step.text):
                return True
            if isinstance(step, UntilAccepted) and view.accepted(pid) is not None:
                return True
            return is_closed(view.events, index)

        _, view = table.wait(f"{step} at {pid}", ready)
        if is_closed(view.events, index) and not isinstance(step, UntilAccepted):
            return


def start_game(table: Table) -> None:
    """The set-up screen, then Enter on «Начать» (which has the focus)."""
    start = t("setup.start")
    table.wait("the set-up screen", lambda s, v: any(r.strip().startswith(start) for r in s.rows))
    screen, _ = table.settled("the set-up screen drawn")
    assert screen.has(t("setup.voice")), screen.text
    assert any(row.strip().startswith(start) for row in screen.rows), screen.text
    table.press("Enter")


def play(table: Table, policy: Policy, players: int) -> Screen:
    """From the set-up screen to the end screen: deal, then answer every prompt."""
    start_game(table)
    handled: set[int] = set()
    dealt: set[int] = set()
    last: tuple[int, str] | None = None
    idle_since = time.monotonic()
    while True:
        screen, view = table.snap()
        if screen.is_end:
            assert dealt == set(range(1, players + 1)), f"dealt to {sorted(dealt)} only"
            return screen
        table.check_running(screen)
        now = time.monotonic()
        if (len(view.events), screen.text) != last:
            last, idle_since = (len(view.events), screen.text), now
        elif now - idle_since > STEP_S:
            raise AssertionError(f"nothing happened for {STEP_S:.0f} s; the screen:\n{screen.text}")
        if not table.heard and view.events:
            table.heard = table.playing()
        seat = deal_waiting(screen)
        if seat is not None and seat not in dealt:
            deal_one(table, seat)
            dealt.add(seat)
            continue
        events = view.events
        prompts = [i for i, e in enumerate(events) if e["event"] == "prompt"][-3:]
        for index in prompts:
            if index in handled or is_closed(events, index):
                continue
            steps = policy(view, events[index])
            if steps is None:
                handled.add(index)  # left to expire
            elif is_live(table.game, screen, events, index):
                handled.add(index)
                carry_out(table, index, steps)
        time.sleep(POLL_S)


# --- what must hold of every screen seen -----------------------------------------------------

SECRET_LINE = re.compile(r"^(?:Ночь|Night) \d+: .+? — (.+)$")


SEAT_TOKEN = re.compile(
    re.escape(t("screen.secret_seat_token", seat=0, verdict="\x00"))
    .replace("0", r"\d+", 1)
    .replace("\x00", "(.+)")
)


def verdict_of(box: str) -> str:
    """A check's box names the seat looked at («Игрок номер 8: Мафия»); the end screen
    tells the seat apart, so what is compared is the verdict."""
    match = SEAT_TOKEN.fullmatch(box)
    return match.group(1) if match is not None else box


def partners_met(end_lines: Sequence[str]) -> set[str]:
    """The alliance wolves' box on night 1: who the others are, shown in
    their window but no rules secret, so the end screen does not tell it."""
    wolf = t("role.werewolf")
    pattern = re.escape(t("reveal.seat", seat="SEAT", role=wolf)).replace("SEAT", "(\\d+)")
    seats = [
        int(m.group(1))
        for line in end_lines
        if (m := re.fullmatch(pattern, line.strip().removeprefix("» ")))
    ]
    seats = sorted(set(seats))  # the end screen's log and the terminal after it tell them both
    return {t("shown.wolves", seats=", ".join(map(str, seats)))} if len(seats) > 1 else set()


def night_secrets(end_lines: Sequence[str]) -> set[str]:
    """The texts shown in night windows, as the end screen tells each night in words."""
    return {m.group(1) for line in end_lines if (m := SECRET_LINE.match(line.strip()))}


@dataclass(frozen=True)
class Span:
    """A wake window or a dealt card: its phase and the narrator lines that may be on
    screen meanwhile (the last one said before it and those said inside it)."""

    phase: str
    lines: frozenset[str]


def spans_of(events: Sequence[Event]) -> list[Span]:
    spans, phase = [], "setup"
    for i, e in enumerate(events):
        if e["event"] == "phase":
            phase = e["id"]
        if e["event"] == "window":
            end = next(
                (j for j in range(i, len(events)) if events[j]["event"] == "window_end"),
                len(events) - 1,
            )
        elif e["event"] == "secret" and str(e["prompt"]).startswith("deal."):
            end = i + 1
        else:
            continue
        said = {squash(x["text"]) for x in events[i:end] if x["event"] == "say"}
        before = next((x["text"] for x in reversed(events[:i]) if x["event"] == "say"), "")
        spans.append(Span(phase, frozenset({*said, squash(before)})))
    return spans


def dusk_lines(events: Sequence[Event]) -> dict[str, frozenset[str]]:
    """Per night, the lines said before its first window (its page is the day's until then)."""
    lines: dict[str, set[str]] = {}
    phase, woken = "setup", False
    for e in events:
        if e["event"] == "phase":
            phase, woken = e["id"], False
            lines[phase] = set()
        elif e["event"] == "window":
            woken = True
        elif e["event"] == "say" and not woken and phase in lines:
            lines[phase].add(squash(e["text"]))
    return {phase: frozenset(said) for phase, said in lines.items()}


def phase_shown(screen: Screen) -> str:
    """The phase the bar names in words («Ночь 1», «День 2») as an id: ``n1``, ``d2``;
    ``setup`` before the first («Раздача»)."""
    bar = screen.phase_bar.split("   ")[0].strip()
    for kind in ("night", "day"):
        prefix = t(f"screen.{kind}", number=0)[:-1]  # «Ночь »
        if bar.startswith(prefix) and bar[len(prefix) :].isdigit():
            return f"{kind[0]}{bar[len(prefix) :]}"
    return "setup"


def narrator_in(screen: Screen, allowed: frozenset[str]) -> bool:
    shown = screen.narrator
    return bool(shown) and any(text.startswith(shown) or shown == text for text in allowed)


def is_night_answer(row: str, accepted: str) -> bool:
    """«4 — Принято.»: an answer typed in a window (a day answer follows its question)."""
    text, tail = row.strip(), f" — {accepted}."
    if not text.endswith(tail):
        return False
    answer = text[: -len(tail)]  # «4», «никого», «центр 1, 3»; by day a question comes first
    return not any(mark in answer for mark in ".:?—")


def check_secrets_stay_inside(table: Table, end_lines: Sequence[str]) -> None:
    """No card, night result or night answer on a screen outside its owner's deal or window.

    Without clocks: the narrator's line and the box belong to one frame, so a box next
    to a line said after its window closed is a leak.  capture-pane can catch a frame
    half drawn (the top new, the bottom old), so a problem counts only when the next
    capture shows it too.
    """
    events = table.events()
    spans = spans_of(events)
    secrets = night_secrets(end_lines) | partners_met(end_lines)
    said = " ".join(e["text"] for e in events if e["event"] == "say")
    hidden = {s for s in secrets if len(s) >= 4 and s not in said}  # never said aloud
    accepted = t("screen.accepted").rstrip(".")
    card = t("screen.deal_card", roles="").strip()
    night = t("screen.night", number=0)[:-1]  # the phase bar at night: «Ночь 1   / — помощь»
    before_windows = dusk_lines(events)  # the day's page is still up until the first window

    def problems(snap: Snap) -> set[str]:
        screen, found = snap.screen, set()
        phase = phase_shown(screen)
        inside = any(narrator_in(screen, s.lines) for s in spans if s.phase == phase)
        if screen.box is not None:
            if not inside:
                found.add(f"the secret {screen.box!r} beside the line {screen.narrator!r}")
            if not screen.box.startswith(card) and verdict_of(screen.box) not in secrets:
                found.add(f"an unexpected secret {screen.box!r}")
        outside = screen.outside_box()
        if card in "\n".join(outside):
            found.add("a card outside the box")
        found |= {f"{s!r} outside the box" for s in hidden if s in "\n".join(outside)}
        dusk = narrator_in(screen, before_windows.get(phase, frozenset()))
        if screen.phase_bar.startswith(night) and not inside and not dusk:
            found |= {
                f"the night answer {r.strip()!r}" for r in outside if is_night_answer(r, accepted)
            }
        return found

    snaps = []
    for snap in table.snaps:
        if snap.screen.shows_end:
            break  # everything is public from here on
        if snap.events_before:
            snaps.append(snap)
    found = [problems(snap) for snap in snaps]
    for i in range(len(snaps) - 1):
        confirmed = found[i] & found[i + 1]
        assert not confirmed, (
            f"{sorted(confirmed)} on screen:\n{snaps[i + 1].screen.text}\n"
            f"secrets told by the end screen: {sorted(secrets)}\nits lines: {list(end_lines)}"
        )


# --- the end ---------------------------------------------------------------------------------


def expected_end(view: View) -> tuple[str, list[str]]:
    end = view.events[-1]
    assert end["event"] == "end", f"the record ends with {end}"
    winner = t("screen.winner", winner=t(f"winner.{end['winner']}") if end["winner"] else "—")
    roles = [
        t("reveal.seat", seat=int(seat), role=t(f"role.{role}"))
        for seat, role in sorted(end["reveal"].items(), key=lambda kv: int(kv[0]))
    ]
    return winner, roles


SCROLLBAR = " ▁▂▃▄▅▆▇█▔"  # the log's scrollbar, in the last columns of its rows


def log_lines(screen: Screen) -> list[str]:
    """The rows under the log's top border."""
    rows = screen.rows
    top = next(i for i, r in enumerate(rows) if r.strip() and set(r.strip()) <= {"─"})
    return [r.rstrip(SCROLLBAR).strip() for r in rows[top + 1 :] if r.rstrip(SCROLLBAR).strip()]


SGR = r"(?:\x1b\[[0-9;]*m)*"
BAR_END = re.compile(rf"\x1b\[7m{SGR}[{SCROLLBAR}]{{1,2}}{SGR}$")  # the thumb: reverse video
THUMB_END = re.compile(rf"\x1b\[7m{SGR}  {SGR}$")  # a row all thumb


def log_can_scroll_down(table: Table) -> bool:
    """Whether the log has more below: it has a scrollbar, and the scrollbar's thumb (drawn
    in reverse video, seen only in a capture with its attributes) does not reach its last
    row. A log that fits has no scrollbar at all."""
    raw = table.tmux("capture-pane", "-p", "-e", "-t", "game").rstrip("\n").split("\n")
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", row).rstrip() for row in raw]
    top = next(i for i, r in enumerate(plain) if r.strip() and set(r.strip()) <= {"─"})
    rows = range(top + 1, len(raw))
    bar = [i for i in rows if BAR_END.search(raw[i])]
    return bool(bar) and not THUMB_END.search(raw[rows[-1]])


def scroll(table: Table, screen: Screen, key: str) -> Screen | None:
    """Press 8 or 2 once; the screen once the log moved, or None when 2 cannot move it (the
    log's end is in sight). A scroll that should move the log and never does fails."""
    if key == "2" and not log_can_scroll_down(table):
        return None
    table.press(key)
    now, _ = table.wait(
        f"the log to scroll with {key}", lambda s, v: log_lines(s) != log_lines(screen)
    )
    return now


def merge(seen: list[str], view: list[str]) -> list[str]:
    """The log read so far, extended by a view of it scrolled further down."""
    for k in range(min(len(seen), len(view)), 0, -1):
        if seen[-k:] == view[:k]:
            return seen + view[k:]
    return seen + view


def read_end_screen(table: Table, screen: Screen) -> list[str]:
    """The winner, then the whole log read by scrolling to its end with 2 and back with 8;
    every seat's role must be in it. Returns the log's rows, top to bottom."""
    view = View(table.events())
    winner, roles = expected_end(view)
    screen, _ = table.settled("the end screen")
    assert screen.has(winner), f"the end screen does not name {winner!r}:\n{screen.text}"
    seen = log_lines(screen)
    for _ in range(200):
        moved = scroll(table, screen, "2")
        if moved is None:
            break  # the bottom of the log (or all of it fits)
        screen = moved
        seen = merge(seen, log_lines(screen))
    missing = [role for role in roles if role not in seen]
    assert not missing, f"roles not on the end screen: {missing}:\n{screen.text}"
    for _ in range(200):
        if roles[0] in log_lines(screen):
            break
        back = scroll(table, screen, "8")
        assert back is not None, f"8 did not scroll back to the top:\n{screen.text}"
        screen = back
    assert roles[0] in log_lines(screen), f"8 did not scroll back to the top:\n{screen.text}"
    compact = "".join(row.strip() for row in screen.rows)
    record = str(sorted(table.records.glob("*.jsonl"))[-1])
    assert record in compact, f"the end screen does not show the record {record}:\n{screen.text}"
    return seen


def leave(table: Table, key: str) -> str:
    """Leave the end screen; what the terminal shows afterwards (with its scroll-back)."""
    if key == "Escape":
        table.tmux("send-keys", "-t", "game", "Escape")
    else:
        table.press(key)
    table.wait("the process to exit", lambda s, v: "EXIT=" in s.text)
    return table.history()


def check_farewell(table: Table, printed: str) -> None:
    view = View(table.events())
    winner, roles = expected_end(view)
    lines = [line.strip() for line in printed.splitlines()]
    record = str(sorted(table.records.glob("*.jsonl"))[-1])
    assert winner in lines, f"no {winner!r} printed after the screen closed:\n{printed}"
    missing = [role for role in roles if role not in lines]
    assert not missing, f"roles not printed after the screen closed: {missing}:\n{printed}"
    assert t("screen.record", path=record) in lines, f"no record path printed:\n{printed}"
    assert "EXIT=0" in lines, f"exit status:\n{printed}"
    assert lines.index(winner) < lines.index("EXIT=0")
    assert "Traceback" not in printed, printed


def check_sound(table: Table) -> None:
    """The narration went to the sound device (the null sink), and no library wrote over
    the table (alsa-lib's underrun messages did, before cd5309c)."""
    assert table.heard, "narrator never opened a stream on the PulseAudio sink"
    for snap in table.snaps:
        assert not ALSA_NOISE.search(snap.screen.text), f"alsa-lib on screen:\n{snap.screen.text}"
        assert "narration goes to" not in snap.screen.text, snap.screen.text


def finish(table: Table, screen: Screen, key: str = "Enter") -> View:
    """Read the end screen, leave it, check what was printed and every screen seen."""
    check_sound(table)
    end_lines = read_end_screen(table, screen)
    printed = leave(table, key)
    check_farewell(table, printed)
    log = squash(" ".join(end_lines))
    winner, _ = expected_end(View(table.events()))
    lines = [line.strip() for line in printed.splitlines()]
    told = lines[lines.index(winner) + 1 : lines.index("EXIT=0")]
    picture = t("picture.written", path="")  # on the page above the log, with the record
    pictures = [line for line in told if line.startswith(picture)]
    assert len(pictures) == 1, f"no picture of the finished game named: {told}"
    assert Path(pictures[0][len(picture) :].strip()).is_file(), pictures[0]
    told = [
        line
        for line in told
        if line and not line.startswith((t("screen.record", path=""), picture))
    ]
    unseen = [line for line in told if squash(line) not in log]
    assert not unseen, f"printed but not in the end screen's log: {unseen}\nlog: {end_lines}"
    check_secrets_stay_inside(table, [*end_lines, *printed.splitlines()])
    return View(table.events())


def timings(**values: float) -> list[str]:
    return [arg for name, value in values.items() for arg in ("-o", f"{name}={value}")]


COMMON = ["--answer-time", "20", "--lang", LANG]


# --- the games -------------------------------------------------------------------------------


def onenight_cards(view: View) -> list[str]:
    """The cards at the end of the night: the deal with the spirit's swap, if it was taken."""
    cards = view.deal
    swap = view.accepted("n1.spirit")
    spirit = next((s for s in range(1, view.players + 1) if cards[s - 1] == "spirit"), None)
    if spirit is not None and swap is not None and swap.isdigit():
        other = int(swap)
        cards[spirit - 1], cards[other - 1] = cards[other - 1], cards[spirit - 1]
    return cards


def onenight(view: View, prompt: Event) -> Sequence[Step] | None:
    """The inquisitor errs once (himself), corrects a typo and looks at centre cards 1 and 3;
    the spirit swaps with an inquisitor; everyone votes for a werewolf, if one is at the table."""
    pid, me = prompt["id"], prompt["seats"][0] if prompt["seats"] else None
    if pid == "n1.high_inquisitor":
        return (*entry(str(me)), Until(t("reason.self")), "9", "BSpace", *entry("*13"))
    if pid == "n1.spirit":
        others = [s for s in view.alive() if s != me and view.role(s) == "inquisitor"]
        return entry(str(others[0])) if others else entry("0")
    _phase, action, voter = split_id(pid)
    if action == "vote" and voter is not None:
        cards = onenight_cards(view)
        wolves = [s for s in range(1, view.players + 1) if cards[s - 1] == "werewolf"]
        if wolves and voter != wolves[0]:
            return entry(str(wolves[0]))
        return entry(str(voter % view.players + 1))
    return None


def whole_game(
    tables: Callable[..., Table], game: str, players: int, policy: Policy, *args: str, leave: str
) -> str:
    """A whole game of seed 1 played by ``policy``, its end screen left with ``leave``: the
    winner."""
    table = tables(game, ["--players", str(players), "--seed", "1", *args, *COMMON])
    end = play(table, policy, players)
    view = finish(table, end, leave)
    winner: str = view.events[-1]["winner"]
    return winner


@pytest.mark.terminal
def test_onenight_in_a_real_terminal(tables: Callable[..., Table]) -> None:
    args = ("--window", "8", "--discussion", "3")
    # seed 1: the werewolf at seat 1 burns
    assert whole_game(tables, "onenight", 5, onenight, *args, leave="Enter") == "inquisition"


# The default tier's one tmux game: espeak-ng at its fastest keeps it short (the best voice,
# Festival at its natural pace, speaks the `terminal` tier's games).
BRISK = ["--voice", "espeak:zle/ru", "--rate", "450"]


def test_onenight_on_an_80_by_24_terminal(tables: Callable[..., Table]) -> None:
    table = tables(
        "onenight",
        ["--players", "3", "--seed", "9", "--window", "3", "--discussion", "1", *BRISK, *COMMON],
        size=(80, 24),
    )
    end = play(table, onenight, 3)
    finish(table, end, "Escape")


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_in_a_night_window_leaves_no_secret_and_the_game_resumes(
    tables: Callable[..., Table], name: str
) -> None:
    """The lone werewolf's secret is on screen when the system stops the program (SIGTERM)
    or the terminal goes away (SIGHUP): the secret leaves the screen, the terminal is
    restored, the game says it was stopped and its record says «aborted». `narrator
    resume` then goes on with that game at once, in the same window, and stops again."""
    signum = getattr(signal, name)
    game = ["--players", "3", "--seed", "1", "--window", "4", *BRISK, *COMMON]
    table = tables("onenight", game, size=(80, 24))
    start_game(table)
    for seat in (1, 2, 3):
        table.wait(f"the call of seat {seat}", calling(seat))
        deal_one(table, seat)
    secret = t("shown.werewolves_alone")  # seed 1: the werewolf at seat 1, the other in the centre

    def stop_inside_the_window() -> str:
        table.wait("the lone werewolf's secret", lambda s, v: s.box == secret)
        os.kill(table.narrator_pid(), signum)
        table.wait("the program to exit", lambda s, v: "EXIT=" in s.text)
        printed = table.history()
        lines = [line.strip() for line in printed.splitlines() if line.strip()]
        assert f"EXIT={128 + signum}" in lines, printed
        assert t("screen.quit") in lines, printed
        assert squash(secret) not in squash(printed), f"the secret was left:\n{printed}"
        assert not any(mark in printed for mark in "┏┃┗"), f"a box was left:\n{printed}"
        assert "Traceback" not in printed, printed
        assert table.events()[-1]["event"] == "aborted"
        return printed

    stop_inside_the_window()
    first = table.events()
    table.run_again("resume", *BRISK)
    screen, _ = table.wait("the game again", lambda s, v: s.phase_bar.startswith("Ночь"))
    assert not screen.has(t("setup.start")), f"a set-up screen on resume:\n{screen.text}"
    stop_inside_the_window()
    again = table.events()
    assert again[0]["deal"] == first[0]["deal"] and again[0].get("resumed_from")


def game_processes(table: Table) -> list[str]:
    """Every process left under the pane's shell (narrator, speech engines), but ``sleep``."""
    shell = table.tmux("display-message", "-p", "-t", "game", "#{pane_pid}").strip()
    done = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,stat=,comm="], capture_output=True)
    rows = [line.split(None, 3) for line in done.stdout.decode().splitlines()]
    parents = {pid: ppid for pid, ppid, *_ in rows}
    under = []
    for pid, _, stat, name in rows:
        up = parents.get(pid)
        while up not in (None, "0", "1", shell):
            up = parents.get(up)
        if up == shell and name != "sleep":
            under.append(f"{pid} {stat} {name}")
    return under


def engines_of(pid: int) -> list[str]:
    """The Festival processes started by ``pid`` (in a session of their own, so they are
    found by their parent, not by their process group)."""
    done = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,comm="], capture_output=True, text=True)
    rows = [row.split() for row in done.stdout.splitlines()]
    return [" ".join(row) for row in rows if row[1] == str(pid) and "festival" in row[2]]


@pytest.mark.terminal
@pytest.mark.parametrize("name", ["SIGKILL", "SIGSEGV"])
def test_a_game_killed_in_a_night_window_leaves_no_secret_and_resumes(
    tables: Callable[..., Table], name: str
) -> None:
    """``kill -9`` (or a native crash, SIGSEGV) of the game after the High Inquisitor's
    answer was accepted, its result on screen, spoken by Festival: the game cannot clean
    up, so the parent ``narrator`` process does: the pane and its scroll-back show no
    secret and no box, the terminal works again (the shell's next command runs), no
    speech engine is left (running or defunct), one line says how to go on, and that
    command (`narrator resume`) continues the same game."""
    signum = getattr(signal, name)
    game = ["--players", "3", "--seed", "1", "--window", "8", "--discussion", "1", *COMMON]
    table = tables("onenight", game, size=(80, 24))  # seed 1: the High Inquisitor at seat 3
    start_game(table)
    for seat in (1, 2, 3):
        table.wait(f"the call of seat {seat}", calling(seat))
        deal_one(table, seat)

    def asked(screen: Screen, view: View) -> bool:
        events = view.events
        index = next((i for i, e in enumerate(events) if e.get("id") == "n1.high_inquisitor"), None)
        return index is not None and is_live("onenight", screen, events, index)

    table.wait("the High Inquisitor's window", asked)
    table.press("*13", "Enter")
    screen, _ = table.wait(
        "the High Inquisitor's result",
        lambda s, v: v.accepted("n1.high_inquisitor") is not None and s.box is not None,
    )
    secret = table.settled("the result drawn")[0].box
    assert secret is not None
    narrator = table.narrator_pid()
    below = subprocess.run(["pgrep", "-P", str(narrator)], capture_output=True, text=True)
    playing = [p for p in [narrator, *map(int, below.stdout.split())] if engines_of(p)]
    assert len(playing) == 1, f"no one process runs Festival: {game_processes(table)}"
    os.kill(playing[0], signum)  # the game itself, not a parent waiting for it
    table.wait("the program to exit", lambda s, v: "EXIT=" in s.text)
    printed = table.history()
    lines = [line.strip() for line in printed.splitlines() if line.strip()]
    assert f"EXIT={128 + signum}" in lines, printed
    assert squash(secret) not in squash(printed), f"the secret was left:\n{printed}"
    assert not any(mark in printed for mark in "┏┃┗━"), f"a box was left:\n{printed}"
    assert t("screen.accepted") not in printed, printed
    assert "Traceback" not in printed, printed
    resume = "narrator resume --record-dir " + shlex.quote(str(table.records))
    assert t("supervise.crashed", command=resume) in lines, printed
    assert game_processes(table) == [], "left behind: " + ", ".join(game_processes(table))
    first = table.events()
    assert first[-1]["event"] != "aborted"  # killed: nothing written after the answer

    table.run_again("resume")
    screen, _ = table.wait("the game again", lambda s, v: s.phase_bar.startswith("Ночь"))
    assert not screen.has(t("setup.start")), f"a set-up screen on resume:\n{screen.text}"
    again = table.events()
    assert again[0]["deal"] == first[0]["deal"] and again[0].get("resumed_from")


def halloween(view: View, prompt: Event) -> Sequence[Step] | None:
    """The witch saves the vampires' first target; the hunter checks a vampire; every day the
    village votes out the first living vampire (who votes for a villager)."""
    phase, action, about = split_id(prompt["id"])
    vampires = view.living("vampire")
    others = [s for s in view.alive() if s not in vampires]
    if action == "vampires":
        villagers = view.living("villager") or others
        return entry(str(villagers[0]))
    if action == "witch":
        night = int(phase[1:])
        banned = view.accepted(f"n{night - 1}.witch")
        target = view.accepted(f"{phase}.vampires")
        if target is not None and target != banned:
            return entry(target)
        return entry(str(next(s for s in view.alive() if str(s) != banned)))
    if action == "hunter":
        return entry(str(vampires[0]))
    if action in {"vote", "revote"} and about is not None:
        if about != vampires[0]:
            return entry(str(vampires[0]))
        return entry(str(next(s for s in others if s != about)))
    return None


@pytest.mark.terminal
def test_halloween_in_a_real_terminal(tables: Callable[..., Table]) -> None:
    args = ("--window", "8", "--discussion", "3", *timings(silence_s=1))
    assert whole_game(tables, "halloween", 7, halloween, *args, leave="Escape") == "villagers"


BLACK = ("mafia", "don")


def sport_mafia(view: View, prompt: Event) -> Sequence[Step] | None:
    """Two black players nominated on day 1 tie twice and leave together; the last black
    player is nominated alone the next day. The mafia shoots a civilian; Don and Sheriff check."""
    phase, action, about = split_id(prompt["id"])
    alive = view.alive()
    black = view.living(*BLACK)
    if action == "nominate" and about is not None:
        nominated = {int(a) for a in view.accepted_like(rf"{phase}\.nominate\.\d+") if a.isdigit()}
        choices = [s for s in black if s not in nominated and s != about]
        if len(nominated) < min(2, len(black)) and choices:
            return (*entry(str(choices[0])), UntilAccepted(), "Enter")  # then «Спасибо»
        return entry("")  # «Спасибо» at once
    if action in {"vote", "revote"}:
        return entry(str(len(alive) // 2))
    if action == "all_leave":
        return entry(str(len(alive)))
    if action == "shoot":
        target = view.living("civilian")[0]
        return [key for _ in prompt["seats"] for key in entry(str(target))]
    if action == "don":
        sheriff = view.living("sheriff")
        return entry(str(sheriff[0] if sheriff else next(s for s in alive if s != about)))
    if action == "sheriff":
        return entry(str(black[0])) if black else None
    return None


@pytest.mark.terminal
def test_sport_mafia_in_a_real_terminal(tables: Callable[..., Table]) -> None:
    args = timings(speech_s=30, last_word_s=2, defence_s=2, meeting_s=3, check_s=8, shot_call_s=1)
    assert whole_game(tables, "sport_mafia", 10, sport_mafia, *args, leave="Enter") == "red"


def alliance(view: View, prompt: Event) -> Sequence[Step] | None:
    """A werewolf runs for sheriff and explodes in the first candidate's speech; the wolves
    kill villagers, the witch poisons one, the day votes exile villagers: the wolves win."""
    phase, action, about = split_id(prompt["id"])
    alive = view.alive()
    wolves = view.living("werewolf")
    villagers = view.living("villager") or [s for s in alive if s not in wolves]
    exploded = "exploded" in view.causes()
    if action == "wolves":
        return entry(str(villagers[0]))
    if action == "witch_save":
        return entry("0")
    if action == "witch_poison":
        bitten = view.accepted(f"{phase}.wolves")
        spare = [s for s in villagers if str(s) != bitten]
        return entry(str(spare[0]) if spare else "0")
    if action == "seer":
        return entry(str(wolves[0]))
    if action == "candidates":
        if exploded:
            return entry("0")
        return entry(f"{wolves[0]}.{next(s for s in alive if s not in wolves)}")
    if action.endswith(".explode") and action.startswith("election") and not exploded:
        wolf = wolves[0]
        return (f"*{wolf}", "Enter", Until(t("alliance.explode_claim", seat=wolf)), "Enter")
    if action in {"withdraw", "sheriff_vote", "sheriff_revote", "badge", "hunter", "white_wolf"}:
        return entry("0")
    if action in {"vote", "pk_vote"} and about is not None:
        target = next((s for s in villagers if s != about), None)
        return entry(str(target) if target is not None else "0")
    if action == "order":
        return entry(f"{about or prompt['seats'][0]}+")
    return None


@pytest.mark.terminal
def test_alliance_in_a_real_terminal(tables: Callable[..., Table]) -> None:
    speeches = timings(election_speech_s=30, speech_s=3, pk_speech_s=3, last_words_s=3)
    args = ("--window", "8", *speeches, *timings(badge_s=8, hunter_s=2))
    assert whole_game(tables, "alliance", 9, alliance, *args, leave="Enter") == "werewolves"
