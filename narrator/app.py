"""Building a table: the composition root's helpers for `play` and `demo`.

Only here (and in cli.py) are the adapters chosen and wired: terminal or demo
keys, printed or spoken voice, sound card or WAV file, real or virtual clock.

One seed makes one game, through independent random streams: the deal, the knock
bed and the demo players each draw from their own child of
``numpy.random.SeedSequence(seed)``, so a recording of the knocks (or the demo
players' answers) says nothing about the cards. The rules' own coin flips draw
from ``random.Random(seed)``, as in a scenario file with that seed, so a game
record replays as a scenario.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import logging
import os
import random
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from narrator.host.audio import AudioVoice, NightSound, PackOrTTS, Silence, SpeechSource
from narrator.host.demo import DemoKeys
from narrator.host.journal import (
    Journal,
    default_record_dir,
    forget_sealed,
    read_journal,
    write_plain_record,
)
from narrator.host.outage import SoundWatch
from narrator.host.table import GameStopped, Rewind, TableDriver
from narrator.host.terminal import PrintVoice, RealClock, Terminal
from narrator.picture import draw_finished
from narrator.ports import STOP_SIGNALS, Clock, Keys, Screen, Sound, Terminated, Voice
from narrator.record import Event, GameRecord
from narrator.resume import Done, Unfinished, unfinished
from narrator.rules.core import Deal, Say, Switches, shuffled_deal
from narrator.rules.errors import ConfigError
from narrator.rules.recommended import with_recommended
from narrator.rules.registry import Variant, check_players, get_variant, make_switches
from narrator.sound.mixer import Mixer, MixSettings
from narrator.sound.output import (
    BLOCK,
    DeviceOutput,
    FileOutput,
    OfflineOutput,
    VirtualClock,
    output_problem,
)
from narrator.voice.catalog import Catalog, load_catalog, phase_in_words
from narrator.voice.order import needed_order

if TYPE_CHECKING:
    from narrator.screen.tui import PausableClock, TableApp
    from narrator.voice.packs import VoicePack

_LOGGER = logging.getLogger(__name__)

DEMO_SECONDS = 3.0  # every window, speech and timer of a demo game, unless given
TAIL_S = 2.0  # let the last line, the fade and the chime ring out
STREAMS = ("deal", "sound", "demo")  # the children of SeedSequence(seed), in this order


def stream_seed(seed: int, name: str) -> int:
    """A 128-bit seed for the stream ``name`` (one of STREAMS) of the game seed ``seed``.

    Negative seeds are taken by their absolute value, as ``random.Random`` does.
    """
    child = np.random.SeedSequence(abs(seed)).spawn(len(STREAMS))[STREAMS.index(name)]
    return int.from_bytes(child.generate_state(4, np.uint32).tobytes(), "little")


def stream(seed: int, name: str) -> random.Random:
    """The random stream ``name`` of one game: ``deal``, ``sound`` or ``demo``."""
    return random.Random(stream_seed(seed, name))


def rules_rng(seed: int) -> random.Random:
    """The rules' coin flips (speaking order, ...): the scenario runner's stream."""
    return random.Random(seed)


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


@dataclass
class TableSettings:
    game: str
    players: int | None = None
    lang: str = "ru"
    seed: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    answer_s: float = 60.0
    demo: bool = False
    record_dir: Path | None = None
    voice: str | None = None  # None: print only; "auto" or a voice id: speak
    silent: bool = False  # --silent: print only, whatever the remembered settings say
    rate: int | None = None
    voice_pack: str | None = None
    knocks: bool = True
    knock_volume: float = 0.35
    knock_density: float = 3.0
    speech_volume: float = 0.9
    ticks: bool = False
    output: Path | None = None  # a WAV file instead of the sound card
    text: bool = False  # the plain terminal host instead of the full screen
    input: str = "keypad"  # "voice": day answers may also be spoken (narrator.listen)
    asr_model: Path | None = None  # a Vosk model folder; default: the language's in models/
    asr: str | None = None  # the speech engine (vosk, sphinx, whisper); default: the best installed
    input_device: str | None = None  # the microphone; default: the system's default input
    push_to_talk: bool = False
    # The fields typed on the command line (they win over remembered ones); None for
    # settings made in code, where every field that differs from its default counts.
    given: frozenset[str] | None = None

    def winning_fields(self) -> frozenset[str]:
        """The fields that win over the remembered settings on the set-up screen.

        Typed on the command line (``given``); for settings made in code, every field
        that differs from its default, and the voice, since None in code means silent,
        not "speak by default". ``--silent`` always wins over a remembered voice.
        """
        if self.given is not None:
            fields = set(self.given)
        else:
            defaults = {f.name: f.default for f in dataclasses.fields(self)}
            fields = {f for f, default in defaults.items() if getattr(self, f) != default}
            fields.add("voice")
        if self.silent:
            fields.add("voice")
        return frozenset(fields)


@dataclass
class Prepared:
    variant: Variant
    switches: Switches
    deal: Deal
    catalog: Catalog
    seed: int
    players: int
    replay: tuple[Done, ...] = ()  # a resumed game: the steps played before it stopped
    kept: tuple[Done, ...] = ()  # ... and the answers given in the window it stopped in
    resumed_from: Path | None = None  # ... and the record it continues


def prepare(settings: TableSettings) -> Prepared:
    variant = get_variant(settings.game)
    seats = variant.seat_counts
    players = settings.players if settings.players is not None else (seats.start + seats.stop) // 2
    check_players(variant, players)
    options = dict(settings.options)
    if settings.demo:
        for name, spec in variant.switches.model_fields.items():
            if name.endswith("_s") and isinstance(spec.default, int | float):
                options.setdefault(name, min(float(spec.default), DEMO_SECONDS))
    switches = make_switches(variant, options)
    catalog = load_catalog(settings.lang)
    seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(2**32)
    deal = shuffled_deal(variant.composition(players, switches), players, stream(seed, "deal"))
    return Prepared(variant, switches, deal, catalog, seed, players)


def terminal_for(catalog: Catalog, *, demo: bool = False) -> Terminal:
    """The text host, with its live line in the table's language.

    With demo players nobody reads the keyboard: Ctrl-C stays a signal and stops the game.
    """
    texts = {name: catalog.lines[f"screen.{name}"] for name in ("remaining", "entry", "rejected")}
    return Terminal(texts=texts, signals=demo)


def _progress(done: int, total: int) -> None:
    """A bar redrawn in place on a terminal; into a file or a pipe, one line at the end."""
    if not sys.stderr.isatty():
        if done >= total:
            sys.stderr.write(f"rendering speech: {done}/{total} lines\n")
        return
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\rrendering speech [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def speech_source(
    settings: TableSettings,
    game: str,
    progress: Callable[[int, int], None] | None = _progress,
    fallbacks: list[str] | None = None,
    *,
    ahead: Sequence[str] | None = None,
) -> PackOrTTS:
    """The TTS cache (missing lines rendered now, with a progress bar) and a voice pack.

    Only the lines the voice pack cannot say (``VoicePack.unsaid``) are rendered:
    with a complete pack, spliced lines included, nothing is. With ``ahead`` (the
    lines in the order the game needs them: ``voice.order``, public) the first
    missing line is rendered now and the rest in the background, in that order,
    while the game speaks; without it every missing line is rendered before.
    A voice that does not exist gives the best other voice of the language, a voice
    pack that cannot be used gives the default voice: the line to say about it (a
    ``notice.*`` key) is added to ``fallbacks``, the reason goes to the log.
    """
    from narrator.voice.game_lines import lines_to_render
    from narrator.voice.tts import SpeechCache
    from narrator.voice.voices import is_named

    voice = None if settings.voice in {None, "auto"} else settings.voice
    cache = SpeechCache(settings.lang, voice=voice, rate=settings.rate)
    if voice is not None and not is_named(cache.voice, voice) and fallbacks is not None:
        fallbacks.append("notice.voice_missing")
    pack = _voice_pack(settings, fallbacks)
    lines = lines_to_render(settings.lang, game)
    if ahead is not None:
        lines = list(dict.fromkeys([*ahead, *lines]))
    missing = cache.missing(pack.unsaid(lines) if pack is not None else lines)
    if missing and ahead is not None:
        cache.build(missing[:1])  # the engine starts (or fails) here, before the game
        cache.render_ahead(missing[1:])
    elif missing:
        cache.build(missing, progress or (lambda done, total: None))
    if pack is None:
        return PackOrTTS(cache.clip, stop=cache.stop_ahead)
    return PackOrTTS(cache.clip, pack.clip, stop=cache.stop_ahead)


def _voice_pack(settings: TableSettings, fallbacks: list[str] | None) -> VoicePack | None:
    """The game's voice pack; None without one, or (said in ``fallbacks``) when it is unusable."""
    if settings.voice_pack is None:
        return None
    from narrator.voice.packs import VoicePack

    try:
        return VoicePack.load(settings.voice_pack, lang=settings.lang)
    except ConfigError as error:
        _LOGGER.warning("%s; the default voice speaks instead", error)
        if fallbacks is not None:
            fallbacks.append("notice.pack_missing")
        return None


def _mixer(settings: TableSettings, seed: int) -> Mixer:
    """The mixer of a game with seed ``seed``: its knock bed draws from the sound stream."""
    mix = MixSettings(
        bed_volume=settings.knock_volume,
        density=settings.knock_density,
        knocks=settings.knocks,
        speech_volume=settings.speech_volume,
    )
    return Mixer(mix, stream_seed(seed, "sound"))


def demo_keys(seed: int, clock: Clock) -> DemoKeys:
    """Demo players of a game with seed ``seed``, drawing from the demo stream."""
    return DemoKeys(stream(seed, "demo"), clock)


def _run_game(
    settings: TableSettings,
    prepared: Prepared,
    terminal: Screen,
    *,
    keys: Keys,
    voice: Voice,
    sound: Sound,
    clock: Clock,
) -> tuple[int, GameRecord, Path | None]:
    keys, voice, sound, stop_listening = voice_input(settings, terminal, keys, voice, sound)
    try:
        return _recorded_game(settings, prepared, terminal, TablePorts(keys, voice, sound, clock))
    finally:
        stop_listening()


@dataclass(frozen=True)
class TablePorts:
    """The adapters one game at the table runs with."""

    keys: Keys
    voice: Voice
    sound: Sound
    clock: Clock


def _recorded_game(
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
    table = RewindingTable(settings, prepared, record, terminal, ports)
    code = 0
    try:
        table.play()
    except (GameStopped, KeyboardInterrupt, Terminated) as stop:
        code = 128 + stop.signum if isinstance(stop, Terminated) else 130
        record.add("aborted", phase=table.driver.phase)
        terminal.clear()  # stopped inside a window: its secret leaves the screen first
        terminal.line(prepared.catalog.text("screen.quit"))
    except Exception as error:
        record.add("crashed", phase=table.driver.phase, error=repr(error))
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
                self.record.add("undo", keep=back.keep, id=back.taken.id, phase=back.taken.phase)
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


def voice_input(
    settings: TableSettings, screen: Screen, keys: Keys, voice: Voice, sound: Sound
) -> tuple[Keys, Voice, Sound, Callable[[], None]]:
    """With ``--input voice``: spoken day answers beside the keypad, and how to stop listening."""
    if settings.input != "voice" or settings.demo:
        return keys, voice, sound, lambda: None
    from narrator.listen.keys import voice_keys_or_keypad

    listening = voice_keys_or_keypad(
        keys,
        settings.lang,
        settings.asr_model,
        settings.input_device,
        screen,
        voice,
        push_to_talk=settings.push_to_talk,
        asr=settings.asr,
    )
    if listening is None:  # no model, no microphone: the keypad alone, said once
        return keys, voice, sound, lambda: None
    listening.start()
    return listening, listening.watch_voice(voice), listening.watch_sound(sound), listening.close


@dataclass
class Speaking:
    """The spoken side of a table: voice, sound and the output they play through."""

    voice: Voice
    sound: Sound
    output: DeviceOutput | FileOutput | OfflineOutput | None = None
    mixer: Mixer | None = None
    watch: SoundWatch | None = None  # pauses the game while the sound device is away

    def stop(self, clock: Clock) -> None:
        if isinstance(self.voice, AudioVoice) and isinstance(self.voice.speech, PackOrTTS):
            self.voice.speech.stop()  # no more rendering ahead: the game is over
        if self.output is not None:
            clock.sleep(TAIL_S)
            self.output.stop()


def speaking(
    settings: TableSettings,
    prepared: Prepared,
    screen: Screen,
    clock: Clock,
    progress: Callable[[int, int], None] | None = _progress,
    offline: Callable[[Mixer], OfflineOutput] | None = None,
) -> Speaking:
    """Printed lines only, or speech and knocks through the sound card (or a WAV file).

    No voice to speak with gives printed lines; a missing voice or voice pack, the
    next best (``speech_source``); either is said once before the game. With
    ``offline`` the mix is rendered as ``clock`` (a virtual clock over that output) moves.
    """
    if settings.voice is None:
        return Speaking(PrintVoice(screen), Silence())
    fallbacks: list[str] = []
    ahead = None
    if offline is None:  # at the table: the game speaks at once, its lines rendered ahead
        ahead = needed_order(settings.lang, prepared.variant, prepared.players, prepared.switches)
    try:
        source = speech_source(settings, prepared.variant.name, progress, fallbacks, ahead=ahead)
    except ConfigError as error:
        _LOGGER.warning("no speech: %s", error)
        printed = PrintVoice(screen)
        printed.say("", prepared.catalog.text("screen.speech_off", {"reason": error}))
        return Speaking(printed, Silence())
    mixer = _mixer(settings, prepared.seed)
    output: DeviceOutput | FileOutput
    watch: SoundWatch | None = None
    if offline is not None:
        rendered = offline(mixer)
        voice = AudioVoice(source, mixer, rendered.playback, clock, True, screen)
        for key in fallbacks:
            voice.say(key, prepared.catalog.text(key))
        return Speaking(voice, NightSound(mixer, settings.ticks), rendered, mixer)
    problem = output_problem()
    if problem is None:
        output = DeviceOutput(mixer)
        watch = SoundWatch(output, screen, prepared.catalog, clock)
    else:
        path = settings.output or default_demo_path(prepared.variant.name)
        screen.line(f"narrator: {problem}: the narration goes to {path}")
        output = FileOutput(mixer, path)
    output.start()
    hold = watch.hold if watch is not None else None
    voice = AudioVoice(source, mixer, output.playback, clock, False, screen, hold=hold)
    for key in fallbacks:
        voice.say(key, prepared.catalog.text(key))
    return Speaking(voice, NightSound(mixer, settings.ticks), output, mixer, watch)


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


def play_at_table(settings: TableSettings, prepared: Prepared | None = None) -> int:
    """A game at the table: the full screen, or the text host (and demo players)."""
    prepared = prepared or prepare(settings)
    check_record_dir(settings)
    if not (settings.text or settings.demo):
        return play_full_screen(settings, prepared)
    with stop_on_signals(), terminal_for(prepared.catalog, demo=settings.demo) as terminal:
        clock: Clock = RealClock()
        keys: Keys = demo_keys(prepared.seed, clock) if settings.demo else terminal
        if settings.demo:
            terminal.line(prepared.catalog.text("screen.demo"))
        spoken = speaking(settings, prepared, terminal, clock)
        code = _spoken_game(settings, prepared, terminal, keys, spoken, clock)
    return code


def unfinished_games(folder: Path) -> list[Unfinished]:
    """The games in ``folder`` that did not reach their end, newest first."""
    from narrator.host.journal import unfinished_records

    try:
        paths = unfinished_records(folder) if folder.is_dir() else []
    except OSError as error:
        raise ConfigError(f"cannot read the record folder {folder}: {error.strerror}") from None
    games = []
    for path in paths:
        try:
            found = unfinished(path, read_journal(path))
        except (OSError, ValueError, ConfigError):
            continue  # not a record of this program (or unreadable): not offered
        if found is not None:
            games.append(found)
    return games


def prepare_resumed(game: Unfinished) -> Prepared:
    """The same game again: its deal, seed and rules from the record, its steps to replay."""
    variant = get_variant(game.game)
    options = game.start.get("options")
    switches = make_switches(variant, dict(options) if isinstance(options, dict) else {})
    deal_data = game.start["deal"]
    deal = Deal(tuple(deal_data["seats"]), tuple(deal_data.get("center", ())))
    variant.validate_deal(deal, switches)
    seed = game.start.get("seed")
    if not isinstance(seed, int):
        raise ConfigError(f"{game.path.name}: the record has no seed")
    return Prepared(
        variant,
        switches,
        deal,
        load_catalog(game.lang),
        seed,
        deal.players,
        replay=tuple(game.steps),
        kept=tuple(game.kept),
        resumed_from=game.path,
    )


def chosen_game(
    setup: dict[str, Any] | None, settings: TableSettings, prepared: Prepared
) -> tuple[TableSettings, Prepared]:
    """The game the set-up screen chose: new with its values, or a stopped one continued."""
    values = dict(setup or {})
    resume = values.pop("resume", None)
    chosen = replace(settings, **values)
    if resume is not None:
        ready = _resumed_from(Path(resume), chosen)
        chosen = replace(chosen, game=ready.variant.name, players=ready.players)
        chosen.lang = ready.catalog.lang
        return chosen, ready
    if not setup:
        return chosen, prepared
    seats = get_variant(chosen.game).seat_counts  # the set-up screen's default composition:
    players = chosen.players or (seats.start + seats.stop) // 2  # the recommended one
    chosen = replace(chosen, options=with_recommended(chosen.game, players, chosen.options))
    return chosen, prepare(chosen)


def _resumed_from(path: Path, settings: TableSettings) -> Prepared:
    folder = settings.record_dir or default_record_dir()
    for game in unfinished_games(folder):
        if game.path == path:
            return prepare_resumed(game)
    raise ConfigError(f"{path.name}: no longer an unfinished game")


def describe_unfinished(game: Unfinished, catalog: Catalog) -> str:
    """One line of ``narrator resume --list``: when, which game, how many, where it stopped."""
    day, hour = game.started[:8], game.started[9:13]  # YYYYMMDD, HHMM
    when = f"{day[6:8]}.{day[4:6]}.{day[:4]} {hour[:2]}:{hour[2:]}"
    phase = phase_in_words(catalog, game.phase)
    title = catalog.lines.get(f"setup.game_title.{game.game}", game.game)
    players = catalog.text("resume.players", {"players": game.players})
    lost = f" ({catalog.text('resume.lost')})" if game.lost else ""
    return f"{when}  {title}  {players}  {phase}{lost}"


def resume_at_table(
    settings: TableSettings, choice: int | None, listing: bool, answer_s: float | None = None
) -> int:
    """``narrator resume``: list the unfinished games, or continue one (the newest by default)
    with its own time for a day answer, unless ``answer_s`` is given."""
    folder = settings.record_dir or default_record_dir()
    games = unfinished_games(folder)
    catalog = load_catalog(settings.lang)
    if listing or not games:
        if not games:
            print(catalog.text("resume.none", {"folder": folder}))
        for number, game in enumerate(games, start=1):
            print(f"{number}  {describe_unfinished(game, catalog)}")
        return 0
    if choice is not None and not 1 <= choice <= len(games):
        raise ConfigError(f"resume {choice}: there are {len(games)} unfinished games (see --list)")
    game = games[(choice or 1) - 1]
    prepared = prepare_resumed(game)
    print(catalog.text("resume.going_on", {"game": describe_unfinished(game, prepared.catalog)}))
    resumed = replace(
        settings,
        game=game.game,
        lang=game.lang,
        players=game.players,
        answer_s=answer_s or game.answer_s or settings.answer_s,
    )
    return play_at_table(resumed, prepared)


def _spoken_game(
    settings: TableSettings,
    prepared: Prepared,
    screen: Screen,
    keys: Keys,
    spoken: Speaking,
    clock: Clock,
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
        code, _, _ = _run_game(
            settings,
            prepared,
            screen,
            keys=game_keys,
            voice=spoken.voice,
            sound=spoken.sound,
            clock=game_clock,
        )
    finally:
        spoken.stop(clock)
    return code


def table_app(
    settings: TableSettings,
    prepared: Prepared,
    config: Path | None = None,
    *,
    clock: PausableClock | None = None,
    offline: Callable[[Mixer], OfflineOutput] | None = None,
) -> tuple[TableApp, dict[str, Speaking]]:
    """The full-screen table as ``narrator play`` runs it: the set-up screen, then the game
    in a thread behind it, speaking with knocks; the state holds what it speaks with.

    ``clock`` and ``offline`` put the table on a virtual clock (the tests' whole games):
    the mix is rendered into ``offline`` as that clock moves, not played."""
    from narrator.screen.setup import initial_values
    from narrator.screen.tui import PausableClock, TableApp, TuiScreen

    clock = clock or PausableClock()
    state: dict[str, Speaking] = {}

    def game(app: TableApp) -> int:
        chosen, ready = chosen_game(app.setup, settings, prepared)
        screen = TuiScreen(app)
        screen.said(ready.catalog.text("tui.preparing"))
        spoken = speaking(chosen, ready, screen, clock, progress=None, offline=offline)
        state["spoken"] = spoken
        return _spoken_game(chosen, ready, screen, app.keys, spoken, clock)

    def pause(paused: bool) -> None:
        spoken = state.get("spoken")
        if spoken is not None and spoken.mixer is not None:
            spoken.mixer.pause(paused)

    def repeat(text: str) -> None:
        spoken = state.get("spoken")
        if spoken is not None and isinstance(spoken.voice, AudioVoice):
            spoken.voice.repeat(text)

    app = TableApp(
        prepared.catalog,
        game,
        clock,
        on_pause=pause,
        on_repeat=repeat,
        # A game continued with `narrator resume` goes on at once: no set-up screen, so
        # no key can deal a new game instead of it.
        setup=None if prepared.resumed_from is not None else initial_values(settings, config),
        config=config,
    )
    return app, state


def play_full_screen(settings: TableSettings, prepared: Prepared) -> int:
    """The textual table: the set-up screen, then the game in a thread behind it."""
    app, _ = table_app(settings, prepared)
    code = app.run()
    if app.error is not None:
        raise app.error
    for line in app.farewell or []:  # the winner, every role, the record: after the screen
        print(line)
    return code if code is not None else 0


def default_demo_path(game: str) -> Path:
    """Where a narration goes when nobody said: compressed (``narration.DEFAULT_SUFFIX``)."""
    from platformdirs import user_data_path

    from narrator.sound.narration import default_name

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = user_data_path("narrator", appauthor=False) / "narrations"
    return folder / default_name(f"{game}-{stamp}")


def check_output(path: Path) -> None:
    """Before anything is rendered: a narration and its timeline can be written at ``path``.

    The suffix says the format: .flac, .ogg (or .oga) or .wav.
    """
    from narrator.sound.narration import default_name, known_suffixes, narration_format

    if narration_format(path) is None:
        raise ConfigError(
            f"--output {path}: expected a file name ending in {known_suffixes()}"
            f" ({default_name('game')})"
        )
    for target in (path, path.with_suffix(".json")):
        if target.is_dir():
            raise ConfigError(f"--output {path}: {target} is a folder")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ConfigError(f"--output {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"--output {path}: cannot write in {folder}")


@dataclass
class Rendered:
    """A demo game played on the virtual clock: its exit code, record, timeline and mix."""

    code: int
    record: GameRecord
    voice: AudioVoice
    output: OfflineOutput


def render_offline(
    settings: TableSettings,
    prepared: Prepared,
    source: SpeechSource,
    screen: Screen,
    *,
    wav: Path | None = None,
    keep_audio: bool = False,
    block: int = BLOCK,
) -> Rendered:
    """A demo game on the virtual clock: time moves only as the mix is rendered.

    The mix goes to ``wav`` as it is rendered, or is kept in memory (``keep_audio``),
    or is dropped.
    """
    mixer = _mixer(settings, prepared.seed)
    offline = OfflineOutput(mixer, keep=keep_audio, block=block)
    if wav is not None:
        offline.record_to(wav)
    clock = VirtualClock(offline)
    voice = AudioVoice(source, mixer, offline.playback, clock, True, screen)
    try:
        code, record = _demo_game(settings, prepared, screen, voice, mixer, clock)
        clock.sleep(TAIL_S)
    finally:
        offline.close()
    return Rendered(code, record, voice, offline)


def _demo_game(
    settings: TableSettings,
    prepared: Prepared,
    screen: Screen,
    voice: AudioVoice,
    mixer: Mixer,
    clock: Clock,
    watch: SoundWatch | None = None,
) -> tuple[int, GameRecord]:
    """One game answered by the demo players, speaking through ``voice`` over ``mixer``.

    With ``watch`` (a sound card) the game waits while the card is away.
    """
    keys: Keys = demo_keys(prepared.seed, clock)
    if watch is not None:
        keys = watch.guard(keys, keypad=False)
    code, record, _ = _run_game(
        settings,
        prepared,
        screen,
        keys=keys,
        voice=voice,
        sound=NightSound(mixer, settings.ticks),
        clock=clock,
    )
    return code, record


def demo(settings: TableSettings) -> int:
    """A narrated demo game answered by random players, to the sound card or a file."""
    settings.demo = True
    if settings.output is not None:
        check_output(settings.output)
    prepared = prepare(settings)
    check_record_dir(settings)
    output = settings.output
    if output is None:
        problem = output_problem()
        if problem is not None:
            output = default_demo_path(prepared.variant.name)
            print(f"narrator: {problem}: rendering the demo to {output} instead (--output FILE)")
    source = speech_source(settings, prepared.variant.name)
    with stop_on_signals(), terminal_for(prepared.catalog, demo=True) as terminal:
        if output is None:
            mixer = _mixer(settings, prepared.seed)
            device = DeviceOutput(mixer)
            device.start()
            real = RealClock()
            watch = SoundWatch(device, terminal, prepared.catalog, real)
            voice = AudioVoice(
                source, mixer, device.playback, real, False, terminal, hold=watch.hold
            )
            try:
                code, _ = _demo_game(settings, prepared, terminal, voice, mixer, watch.clock, watch)
            finally:
                real.sleep(TAIL_S)
                device.stop()
            return code
        rendered = render_offline(settings, prepared, source, terminal, wav=output)
        offline = rendered.output
        timeline = output.with_suffix(".json")
        write_timeline(timeline, rendered.voice, rendered.record, offline.seconds)
        terminal.line(f"{output} ({offline.seconds:.1f} s) and {timeline}")
    return rendered.code


def write_timeline(path: Path, voice: AudioVoice, record: GameRecord, seconds: float) -> None:
    """Each spoken line and each wake window with its start and end, in seconds."""
    windows: list[dict[str, Any]] = []
    for event in record.events:
        if event["event"] == "window":
            windows.append({"prompt": event["prompt"], "start": event["t"], "end": None})
        elif event["event"] == "window_end" and windows:
            windows[-1]["end"] = event["t"]
    lines = [
        {
            "key": line.key,
            "text": line.text,
            "start": round(line.start, 4),
            "end": round(line.end, 4),
        }
        for line in voice.timeline
    ]
    data = {"seconds": round(seconds, 3), "lines": lines, "windows": windows}
    try:
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror}") from None
