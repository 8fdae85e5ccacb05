"""The spoken side of a table: the voice, the night's sound, the output they play
through, and spoken day answers (``--input voice``).

No voice to speak with gives printed lines; a missing voice or voice pack, the next
best, said once before the game; no sound card, a narration file.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.host.audio import AudioVoice
from narrator.host.audio import NightSound
from narrator.host.audio import PackOrTTS
from narrator.host.audio import Silence
from narrator.host.demo import DemoKeys
from narrator.host.outage import SoundWatch
from narrator.host.terminal import PrintVoice
from narrator.ports import Clock
from narrator.ports import Keys
from narrator.ports import Screen
from narrator.ports import Sound
from narrator.ports import Voice
from narrator.prepared import Prepared
from narrator.prepared import stream
from narrator.prepared import stream_seed
from narrator.rules.errors import ConfigError
from narrator.settings import TableSettings
from narrator.sound.mixer import Mixer
from narrator.sound.mixer import MixSettings
from narrator.sound.output import DeviceOutput
from narrator.sound.output import FileOutput
from narrator.sound.output import OfflineOutput
from narrator.sound.output import output_problem
from narrator.voice.order import needed_order

if TYPE_CHECKING:
    from narrator.voice.packs import VoicePack

_LOGGER = logging.getLogger(__name__)

TAIL_S = 2.0  # let the last line, the fade and the chime ring out


def progress_bar(done: int, total: int) -> None:
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
    progress: Callable[[int, int], None] | None = progress_bar,
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
    cache = SpeechCache(settings.lang, voice=voice, rate=settings.rate, at_table=True)
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


def mixer_for(settings: TableSettings, seed: int) -> Mixer:
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
    progress: Callable[[int, int], None] | None = progress_bar,
    offline: Callable[[Mixer], OfflineOutput] | None = None,
    stop: Callable[[], None] | None = None,
) -> Speaking:
    """Printed lines only, or speech and knocks through the sound card (or a WAV file).

    No voice to speak with gives printed lines; a missing voice or voice pack, the
    next best (``speech_source``); either is said once before the game. With
    ``offline`` the mix is rendered as ``clock`` (a virtual clock over that output) moves.
    ``stop`` raises Terminated once a stop signal came: a line being said is cut short.
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
    mixer = mixer_for(settings, prepared.seed)
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
    voice = AudioVoice(source, mixer, output.playback, clock, False, screen, hold=hold, stop=stop)
    for key in fallbacks:
        voice.say(key, prepared.catalog.text(key))
    return Speaking(voice, NightSound(mixer, settings.ticks), output, mixer, watch)


def default_demo_path(game: str) -> Path:
    """Where a narration goes when nobody said: compressed (``narration.DEFAULT_SUFFIX``)."""
    from platformdirs import user_data_path

    from narrator.sound.narration import default_name

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = user_data_path("narrator", appauthor=False) / "narrations"
    return folder / default_name(f"{game}-{stamp}")
