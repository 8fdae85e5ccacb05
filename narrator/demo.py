"""``narrator demo``: a narrated game answered by random players, to the sound card,
or rendered on a virtual clock into a narration file with its timeline."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.clocks import RealClock
from narrator.host.audio import AudioVoice
from narrator.host.audio import NightSound
from narrator.host.audio import SpeechSource
from narrator.host.outage import SoundWatch
from narrator.outputs import check_writable
from narrator.ports import Clock
from narrator.ports import Keys
from narrator.ports import Screen
from narrator.prepared import Prepared
from narrator.prepared import prepare
from narrator.record import GameRecord
from narrator.rules.errors import ConfigError
from narrator.session import check_record_dir
from narrator.session import run_game
from narrator.session import stop_on_signals
from narrator.session import terminal_for
from narrator.settings import TableSettings
from narrator.sound.mixer import Mixer
from narrator.sound.narration import default_name
from narrator.sound.narration import known_suffixes
from narrator.sound.narration import narration_format
from narrator.sound.output import BLOCK
from narrator.sound.output import DeviceOutput
from narrator.sound.output import OfflineOutput
from narrator.sound.output import VirtualClock
from narrator.sound.output import output_problem
from narrator.speaking import TAIL_S
from narrator.speaking import default_demo_path
from narrator.speaking import demo_keys
from narrator.speaking import mixer_for
from narrator.speaking import speech_source

DEMO_ANSWER_S = 10.0  # a demo player's time for a day answer


def check_output(path: Path) -> None:
    """Before anything is rendered: a narration and its timeline can be written at ``path``.

    The suffix says the format: .flac, .ogg (or .oga) or .wav.
    """
    if narration_format(path) is None:
        raise ConfigError(
            f"--output {path}: expected a file name ending in {known_suffixes()}"
            f" ({default_name('game')})"
        )
    for target in (path, path.with_suffix(".json")):
        check_writable(target, "--output")


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
    mixer = mixer_for(settings, prepared.seed)
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
    code, record, _ = run_game(
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
    settings = settings.but(demo=True)
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
            mixer = mixer_for(settings, prepared.seed)
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
