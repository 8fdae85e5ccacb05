"""Building a table: the composition root's helpers for `play` and `demo`.

Only here (and in cli.py) are the adapters chosen and wired: terminal or demo
keys, printed or spoken voice, sound card or WAV file, real or virtual clock.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from narrator.host.audio import AudioVoice, NightSound, PackOrTTS, Silence
from narrator.host.demo import DemoKeys
from narrator.host.journal import Journal, default_record_dir
from narrator.host.ports import Clock, Keys, Screen, Sound, Voice
from narrator.host.table import GameStopped, TableDriver
from narrator.host.terminal import PrintVoice, RealClock, Terminal
from narrator.record import GameRecord
from narrator.rules.core import Deal, Switches, shuffled_deal
from narrator.rules.errors import ConfigError
from narrator.rules.registry import Variant, check_players, get_variant, make_switches
from narrator.sound.mixer import Mixer, MixSettings
from narrator.sound.output import (
    DeviceOutput,
    FileOutput,
    OfflineOutput,
    VirtualClock,
    output_problem,
)
from narrator.voice.catalog import Catalog, load_catalog

DEMO_SECONDS = 3.0  # every window, speech and timer of a demo game, unless given
TAIL_S = 2.0  # let the last line, the fade and the chime ring out


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
    rate: int | None = None
    voice_pack: str | None = None
    knocks: bool = True
    knock_volume: float = 0.35
    knock_density: float = 3.0
    ticks: bool = False
    output: Path | None = None  # a WAV file instead of the sound card
    text: bool = False  # the plain terminal host instead of the full screen
    input: str = "keypad"  # "voice": day answers may also be spoken (narrator.listen)
    asr_model: Path | None = None  # a Vosk model folder; default: the language's in models/
    input_device: str | None = None  # the microphone; default: the system's default input
    push_to_talk: bool = False


@dataclass
class Prepared:
    variant: Variant
    switches: Switches
    deal: Deal
    catalog: Catalog
    seed: int
    players: int


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
    rng = random.Random(seed)
    deal = shuffled_deal(variant.composition(players, switches), players, rng)
    return Prepared(variant, switches, deal, catalog, seed, players)


def terminal_for(catalog: Catalog) -> Terminal:
    """The text host, with its live line in the table's language."""
    texts = {name: catalog.lines[f"screen.{name}"] for name in ("remaining", "entry", "rejected")}
    return Terminal(texts=texts)


def _progress(done: int, total: int) -> None:
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
) -> PackOrTTS:
    """The TTS cache (missing lines rendered now, with a progress bar) and a voice pack."""
    from narrator.voice.tts import SpeechCache, lines_to_render

    voice = None if settings.voice in {None, "auto"} else settings.voice
    cache = SpeechCache(settings.lang, voice=voice, rate=settings.rate)
    missing = cache.missing(lines_to_render(settings.lang, game))
    if missing:
        cache.build(missing, progress or (lambda done, total: None))
    if settings.voice_pack is None:
        return PackOrTTS(cache.clip)
    from narrator.voice.packs import VoicePack

    pack = VoicePack.load(settings.voice_pack, lang=settings.lang)
    return PackOrTTS(cache.clip, pack.clip)


def _mixer(settings: TableSettings, seed: int) -> Mixer:
    mix = MixSettings(
        bed_volume=settings.knock_volume, density=settings.knock_density, knocks=settings.knocks
    )
    return Mixer(mix, seed)


def _run_game(
    settings: TableSettings,
    prepared: Prepared,
    terminal: Screen,
    *,
    keys: Keys,
    voice: Voice,
    sound: Sound,
    clock: Clock,
) -> tuple[int, GameRecord, Journal]:
    keys, voice, sound, stop_listening = voice_input(settings, terminal, keys, voice, sound)
    variant = prepared.variant
    journal = Journal(settings.record_dir or default_record_dir(), variant.name)
    record = GameRecord(journal.append, clock.now)
    record.start(
        game=variant.name,
        lang=settings.lang,
        seed=prepared.seed,
        players=prepared.players,
        options=prepared.switches.model_dump(),
        deal={"seats": list(prepared.deal.seats), "center": list(prepared.deal.center)},
    )
    driver = TableDriver(
        prepared.catalog,
        record,
        voice=voice,
        screen=terminal,
        keys=keys,
        clock=clock,
        answer_s=settings.answer_s,
        sound=sound,
    )
    rng = random.Random(prepared.seed)
    try:
        driver.run(variant.new_game(prepared.deal, prepared.switches, rng))
    except (GameStopped, KeyboardInterrupt):
        record.add("aborted", phase=driver.phase)
        terminal.line(prepared.catalog.text("screen.quit"))
        terminal.line(prepared.catalog.text("screen.record", {"path": journal.path}))
        journal.close()
        return 130, record, journal
    except Exception as error:
        record.add("crashed", phase=driver.phase, error=repr(error))
        journal.close()
        raise
    finally:
        stop_listening()
    journal.close()
    terminal.line(prepared.catalog.text("screen.record", {"path": journal.path}))
    return 0, record, journal


def voice_input(
    settings: TableSettings, screen: Screen, keys: Keys, voice: Voice, sound: Sound
) -> tuple[Keys, Voice, Sound, Callable[[], None]]:
    """With ``--input voice``: spoken day answers beside the keypad, and how to stop listening."""
    if settings.input != "voice" or settings.demo:
        return keys, voice, sound, lambda: None
    from narrator.listen.keys import open_voice_keys

    listening = open_voice_keys(
        keys,
        settings.lang,
        settings.asr_model,
        settings.input_device,
        screen,
        push_to_talk=settings.push_to_talk,
    )
    listening.start()
    return listening, listening.watch_voice(voice), listening.watch_sound(sound), listening.close


@dataclass
class Speaking:
    """The spoken side of a table: voice, sound and the output they play through."""

    voice: Voice
    sound: Sound
    output: DeviceOutput | FileOutput | None = None
    mixer: Mixer | None = None

    def stop(self, clock: Clock) -> None:
        if self.output is not None:
            clock.sleep(TAIL_S)
            self.output.stop()


def speaking(
    settings: TableSettings,
    prepared: Prepared,
    screen: Screen,
    clock: Clock,
    progress: Callable[[int, int], None] | None = _progress,
) -> Speaking:
    """Printed lines only, or speech and knocks through the sound card (or a WAV file)."""
    if settings.voice is None:
        return Speaking(PrintVoice(screen), Silence())
    source = speech_source(settings, prepared.variant.name, progress)
    mixer = _mixer(settings, prepared.seed)
    output: DeviceOutput | FileOutput
    problem = output_problem()
    if problem is None:
        output = DeviceOutput(mixer)
    else:
        path = settings.output or default_demo_path(prepared.variant.name)
        screen.line(f"narrator: {problem}: the narration goes to {path}")
        output = FileOutput(mixer, path)
    output.start()
    voice = AudioVoice(source, mixer, output.playback, clock, False, screen)
    return Speaking(voice, NightSound(mixer, settings.ticks), output, mixer)


def play_at_table(settings: TableSettings) -> int:
    """A game at the table: the full screen, or the text host (and demo players)."""
    prepared = prepare(settings)
    if not (settings.text or settings.demo):
        return play_full_screen(settings, prepared)
    with terminal_for(prepared.catalog) as terminal:
        clock: Clock = RealClock()
        keys: Keys = (
            DemoKeys(random.Random(prepared.seed + 1), clock) if settings.demo else terminal
        )
        if settings.demo:
            terminal.line(prepared.catalog.text("screen.demo"))
        spoken = speaking(settings, prepared, terminal, clock)
        try:
            code, _, _ = _run_game(
                settings,
                prepared,
                terminal,
                keys=keys,
                voice=spoken.voice,
                sound=spoken.sound,
                clock=clock,
            )
        finally:
            spoken.stop(clock)
    return code


def play_full_screen(settings: TableSettings, prepared: Prepared) -> int:
    """The textual table: the set-up screen, then the game in a thread behind it."""
    from narrator.screen.setup import initial_values
    from narrator.screen.tui import PausableClock, TableApp, TuiScreen

    clock = PausableClock()
    state: dict[str, Speaking] = {}

    def game(app: TableApp) -> int:
        chosen = replace(settings, **(app.setup or {}))
        ready = prepare(chosen) if app.setup else prepared
        screen = TuiScreen(app)
        screen.said(ready.catalog.text("tui.preparing"))
        spoken = speaking(chosen, ready, screen, clock, progress=None)
        state["spoken"] = spoken
        try:
            code, _, _ = _run_game(
                chosen,
                ready,
                screen,
                keys=app.keys,
                voice=spoken.voice,
                sound=spoken.sound,
                clock=clock,
            )
        finally:
            spoken.stop(clock)
        return code

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
        setup=initial_values(settings),
    )
    code = app.run()
    if app.error is not None:
        raise app.error
    return code if code is not None else 0


def default_demo_path(game: str) -> Path:
    from platformdirs import user_data_path

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return user_data_path("narrator", appauthor=False) / "narrations" / f"{game}-{stamp}.wav"


def demo(settings: TableSettings) -> int:
    """A narrated demo game answered by random players, to the sound card or a WAV file."""
    settings.demo = True
    prepared = prepare(settings)
    output = settings.output
    if output is None:
        problem = output_problem()
        if problem is not None:
            output = default_demo_path(prepared.variant.name)
            print(f"narrator: {problem}: rendering the demo to {output} instead (--output FILE)")
    source = speech_source(settings, prepared.variant.name)
    mixer = _mixer(settings, prepared.seed)
    with terminal_for(prepared.catalog) as terminal:
        if output is None:
            device = DeviceOutput(mixer)
            device.start()
            real = RealClock()
            voice = AudioVoice(source, mixer, device.playback, real, False, terminal)
            keys = DemoKeys(random.Random(prepared.seed + 1), real)
            try:
                code, _, _ = _run_game(
                    settings,
                    prepared,
                    terminal,
                    keys=keys,
                    voice=voice,
                    sound=NightSound(mixer, settings.ticks),
                    clock=real,
                )
            finally:
                real.sleep(TAIL_S)
                device.stop()
            return code
        offline = OfflineOutput(mixer)
        clock = VirtualClock(offline)
        voice = AudioVoice(source, mixer, offline.playback, clock, True, terminal)
        keys = DemoKeys(random.Random(prepared.seed + 1), clock)
        code, record, _ = _run_game(
            settings,
            prepared,
            terminal,
            keys=keys,
            voice=voice,
            sound=NightSound(mixer, settings.ticks),
            clock=clock,
        )
        clock.sleep(TAIL_S)
        offline.write(output)
        timeline = output.with_suffix(".json")
        write_timeline(timeline, voice, record, offline.seconds)
        terminal.line(f"{output} ({offline.seconds:.1f} s) and {timeline}")
    return code


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
