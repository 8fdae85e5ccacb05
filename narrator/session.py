"""One game at the table: its record, its signals, and answers taken back.

``RewindingTable`` plays a game again up to the question whose answer was taken
back, silently, from the same deal, seed and answers (``narrator.resume``);
``RecordSink`` feeds the sealed journal and tells the table, at a public moment,
when the record cannot be written.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import signal
import threading
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import ClassVar

from narrator.host.journal import Journal
from narrator.host.journal import default_record_dir
from narrator.host.journal import forget_sealed
from narrator.host.journal import write_plain_record
from narrator.host.table import GameStopped
from narrator.host.table import Rewind
from narrator.host.table import TableDriver
from narrator.host.terminal import Terminal
from narrator.picture import draw_finished
from narrator.ports import STOP_SIGNALS
from narrator.ports import Clock
from narrator.ports import Keys
from narrator.ports import Private
from narrator.ports import Screen
from narrator.ports import Sound
from narrator.ports import Terminated
from narrator.ports import Voice
from narrator.prepared import Prepared
from narrator.prepared import rules_rng
from narrator.record import Event
from narrator.record import GameRecord
from narrator.resume import Done
from narrator.rules.core import Say
from narrator.rules.errors import ConfigError
from narrator.settings import TableSettings
from narrator.speaking import Speaking
from narrator.speaking import voice_input
from narrator.voice.catalog import Catalog

_LOGGER = logging.getLogger(__name__)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """While a game runs in the main thread, SIGTERM and SIGHUP raise Terminated."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise Terminated(signum)

    wanted = [getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)]
    saved = {signum: signal.signal(signum, stop) for signum in wanted}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def terminal_for(catalog: Catalog, *, demo: bool = False) -> Terminal:
    """The text host, with its live line in the table's language.

    With demo players nobody reads the keyboard: Ctrl-C stays a signal and stops the game.
    """
    texts = {name: catalog.lines[f"screen.{name}"] for name in ("remaining", "entry", "rejected")}
    return Terminal(texts=texts, signals=demo)


def run_game(
    settings: TableSettings,
    prepared: Prepared,
    terminal: Screen,
    *,
    keys: Keys,
    voice: Voice,
    sound: Sound,
    clock: Clock,
    phones: Private | None = None,
) -> tuple[int, GameRecord, Path | None]:
    keys, voice, sound, stop_listening = voice_input(settings, terminal, keys, voice, sound)
    try:
        ports = TablePorts(keys, voice, sound, clock, phones)
        return recorded_game(settings, prepared, terminal, ports)
    finally:
        stop_listening()


@dataclass(frozen=True)
class TablePorts:
    """The adapters one game at the table runs with."""

    keys: Keys
    voice: Voice
    sound: Sound
    clock: Clock
    phones: Private | None = None  # the players' phones, if they play with them


def recorded_game(
    settings: TableSettings, prepared: Prepared, terminal: Screen, ports: TablePorts
) -> tuple[int, GameRecord, Path | None]:
    """One game with its record: stopped (Ctrl-C, Esc, SIGTERM) or crashed, the record says so."""
    variant = prepared.variant
    folder = settings.record_dir or default_record_dir()
    catalog = prepared.catalog
    sink = RecordSink(terminal, catalog)
    record = GameRecord(sink, ports.clock.now)
    sink.record = record  # it says on the record when it is not kept
    try:
        sink.journal = Journal(folder, variant.name, clock=ports.clock.now)
    except OSError as error:  # a full or read-only disk: the game goes on without its record
        sink.lose(error, "screen.record_off")
    record.start(
        game=variant.name,
        lang=settings.lang,
        seed=prepared.seed,
        players=prepared.players,
        options=prepared.switches.model_dump(),
        deal={"seats": list(prepared.deal.seats), "center": list(prepared.deal.center)},
        answer_s=settings.answer_s,  # a resume keeps it (the table's, not the rules')
        **({"resumed_from": prepared.resumed_from.name} if prepared.resumed_from else {}),
    )
    if ports.phones is not None:
        ports.phones.record(record.add)
    table = RewindingTable(settings, prepared, record, terminal, ports)
    code = 0
    try:
        table.play()
    except (GameStopped, KeyboardInterrupt, Terminated) as stop:
        code = 128 + stop.signum if isinstance(stop, Terminated) else 130
        record.add("aborted", phase=str(table.driver.phase))
        terminal.clear()  # stopped inside a window: its secret leaves the screen first
        terminal.line(prepared.catalog.text("screen.quit"))
    except Exception as error:
        record.add("crashed", phase=str(table.driver.phase), error=repr(error))
        close_journal(sink, record, folder, variant.name)
        _retire_continued(prepared, record, sink)
        raise
    path = close_journal(sink, record, folder, variant.name)
    _retire_continued(prepared, record, sink)
    if path is not None:
        terminal.line(catalog.text("screen.record", {"path": path}))
        picture = draw_finished(path, record.events, rules_rng)  # a game that ended only
        if picture is not None:
            terminal.line(catalog.text("picture.written", {"path": picture}))
    elif sink.lost is not None:
        terminal.line(catalog.text("screen.record_unsaved", {"reason": sink.reason()}))
    return code, record, path


def _retire_continued(prepared: Prepared, record: GameRecord, sink: RecordSink) -> None:
    """A resumed game that got past its replay holds everything: the old record goes, and
    its key with it; once the game has ended, whatever became of the new record."""
    old = prepared.resumed_from
    if old is None:
        return
    ended = any(event["event"] == "end" for event in record.events)
    if sink.lost is not None and not ended:
        return  # the new record is cut short: the old one may still be needed
    if any(event["event"] == "resumed" for event in record.events):
        forget_sealed(old)


class RewindingTable:
    """The table of one game; an answer taken back plays the game again up to its question.

    The same deal, seed and answers replay silently (narrator.resume); the record
    keeps the answer taken back, an ``undo`` event, and then what follows.
    """

    def __init__(
        self,
        settings: TableSettings,
        prepared: Prepared,
        record: GameRecord,
        terminal: Screen,
        ports: TablePorts,
    ) -> None:
        self.settings, self.prepared, self.record = settings, prepared, record
        self.terminal, self.ports = terminal, ports
        self.driver = self._driver(prepared.replay, record_replay=True, kept=prepared.kept)

    def _driver(
        self, replay: Sequence[Done], record_replay: bool, kept: Sequence[Done] = ()
    ) -> TableDriver:
        return TableDriver(
            self.prepared.catalog,
            self.record,
            voice=self.ports.voice,
            screen=self.terminal,
            keys=self.ports.keys,
            clock=self.ports.clock,
            answer_s=self.settings.answer_s,
            sound=self.ports.sound,
            replay=replay,
            record_replay=record_replay,
            kept=kept,
            drawn=self.prepared.drawn,
            phones=self.ports.phones,
        )

    def play(self) -> None:
        prepared = self.prepared
        while True:
            game = prepared.variant.new_game(
                prepared.deal, prepared.switches, rules_rng(prepared.seed)
            )
            try:
                self.driver.run(game)
                return
            except Rewind as back:
                self.record.add(
                    "undo", keep=back.keep, id=back.taken.id, phase=str(back.taken.phase)
                )
                self.driver.carry_out(Say("undo.taken_back"))  # short, rendered ahead
                self.driver = self._driver(self.driver.done[: back.keep], record_replay=False)
                # On the page once the question is open again: which answer went.
                self.driver.undone = prepared.catalog.text("screen.undone", {"answer": back.words})


class RecordSink:
    """Hands the game's events to its sealed journal, and tells the table once when the
    record cannot be written (a full or read-only disk, its folder gone): the game goes
    on, every event kept in memory (``GameRecord.events``).

    The loss is told at a public moment: a write that fails inside a night window is
    told after the window, so its time says nothing of who answered when.
    """

    REASONS: ClassVar[dict[int, str]] = {
        errno.ENOSPC: "screen.record_full",
        errno.EDQUOT: "screen.record_full",
        errno.EROFS: "screen.record_read_only",
        errno.EACCES: "screen.record_denied",
        errno.EPERM: "screen.record_denied",
        errno.ENOENT: "screen.record_gone",
    }

    def __init__(self, screen: Screen, catalog: Catalog) -> None:
        self.screen, self.catalog = screen, catalog
        self.journal: Journal | None = None
        self.record: GameRecord | None = None  # the record fed: told when it is not kept
        self.lost: OSError | None = None  # why the record stopped, if it did
        self._told: str | None = None  # the line that tells it, until it is told
        self._window = False  # inside a night window: the loss is told after it
        self._ending = False  # the window has ended; its screen is wiped before the next event

    def __call__(self, event: Event) -> None:
        kind = event.get("event")
        if self.journal is not None and self.lost is None:
            try:
                self.journal.append(event)
            except OSError as error:
                self.lose(error, "screen.record_cut")
        # Held from a window's start to the event after its end (its screen wiped first).
        if kind == "window":
            self._window = True
        elif kind == "window_end":
            self._window = self._ending = True
        elif self._ending:
            self._window = self._ending = False
        self._tell()

    def lose(self, error: OSError, key: str | None) -> None:
        """The record stops here (``key``: the line that says so, if any), told once."""
        if self.lost is not None:
            return
        self.lost = error
        if self.record is not None and self.record.lost is None:
            self.record.lost = error  # the game's record knows it is not kept
        self._told = key
        _LOGGER.info("the game record cannot be written: %s", error)
        self._tell()

    def reason(self) -> str:
        """Why the record cannot be written, in the table's words."""
        error = self.lost
        key = self.REASONS.get(error.errno or 0) if error is not None else None
        if key is not None:
            return self.catalog.text(key)
        detail = (error.strerror or str(error)) if error is not None else ""
        return self.catalog.text("screen.record_error", {"error": detail})

    def _tell(self) -> None:
        if self._told is None or self._window:
            return
        key, self._told = self._told, None
        self.screen.line(self.catalog.text(key, {"reason": self.reason()}))


def close_journal(sink: RecordSink, record: GameRecord, folder: Path, game: str) -> Path | None:
    """Close the sealed journal; a game that has ended is written out plain for the group.

    A stopped or crashed game stays sealed (narrator.host.journal), for ``resume``.
    Returns the record there is, whole, or None (told by ``sink``): a game without a
    journal is written out plain at its end if the disk takes it now.
    """
    journal = sink.journal
    ended = any(event["event"] == "end" for event in record.events)
    if journal is not None:
        try:
            journal.close()
        except OSError as error:  # the writer stopped (a full disk) and no event told it yet:
            sink.lose(error, None)  # the game is over, no "the game goes on"
    if not ended:
        path = journal.path if journal is not None else None
        return path if path is not None and path.is_file() else None
    try:
        if journal is not None:
            journal.finish(record.events)
            return journal.path
        return write_plain_record(folder, game, record.events)
    except OSError as error:  # the game is over: the end says it (screen.record_unsaved)
        sink.lose(error, None)
        return None


def check_record_dir(settings: TableSettings) -> None:
    """Before anything is rendered or dealt: the record folder is a folder (or can be one).

    A file in its place is a mistake on the command line. A folder on a full or
    read-only disk, or one not allowed to this user, is not: the game goes on without
    its record and the table is told (``RecordSink``).
    """
    folder = settings.record_dir or default_record_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as error:
        raise ConfigError(f"cannot create the record folder {folder}: {error.strerror}") from None
    except OSError as error:
        _LOGGER.info("the record folder %s cannot be made: %s", folder, error)


def spoken_game(
    settings: TableSettings,
    prepared: Prepared,
    screen: Screen,
    keys: Keys,
    spoken: Speaking,
    clock: Clock,
    phones: Private | None = None,
) -> int:
    """One game with the voice and the night's sound of ``spoken``, stopped afterwards.

    While its sound device is away the game waits, its clock standing still
    (``narrator.host.outage``); the keypad chooses silence there.
    """
    game_keys, game_clock = keys, clock
    if spoken.watch is not None:
        game_keys = spoken.watch.guard(keys, keypad=not settings.demo)
        game_clock = spoken.watch.clock
    try:
        code, _, _ = run_game(
            settings,
            prepared,
            screen,
            keys=game_keys,
            voice=spoken.voice,
            sound=spoken.sound,
            clock=game_clock,
            phones=phones,
        )
    finally:
        spoken.stop(clock)
    return code
