"""The spoken host: narrator lines through the mixer, the knock bed through the night.

``AudioVoice`` is the Voice port with sound: it looks the line up (a voice-pack
recording, else the TTS cache), queues it in the mixer and returns only when
its last sample has been mixed, so a wake window is timed from the end of its
wake line. While it waits it asks ``hold`` (the table's watch over its sound
device), which keeps the game waiting as long as the device is away.
``NightSound`` is the Sound port: the bed, the dawn chime, the ticks.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Protocol

from narrator.ports import Clock
from narrator.ports import Screen
from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.sound.knocks import chime
from narrator.sound.knocks import tick
from narrator.sound.mixer import Mixer
from narrator.sound.output import BLOCK
from narrator.sound.output import Playback

_LOGGER = logging.getLogger(__name__)
STALL_S = 10.0  # a line that has not finished this long after its length: the output is stuck
WAIT_S = 0.1  # how often a line being said looks at the sound device


class SpeechSource(Protocol):
    """Turns a line (its key and its displayed text) into audio."""

    def clip(self, key: str, text: str) -> Clip: ...


@dataclass
class SpokenLine:
    key: str
    text: str
    start: float
    end: float


@dataclass
class AudioVoice:
    speech: SpeechSource
    mixer: Mixer
    playback: Playback
    clock: Clock
    virtual: bool
    printer: Screen | None = None
    timeline: list[SpokenLine] = field(default_factory=list)
    hold: Callable[[], bool] | None = None  # True when it kept the game waiting (a lost device)
    stop: Callable[[], None] | None = None  # raises Terminated once the program must stop
    _repeating: int | None = field(default=None, init=False, repr=False)

    def repeat(self, text: str) -> None:
        """Say a line again at once (the table asked), without waiting for it; asked
        again before that is over, it is not queued again."""
        if self._repeating is not None and self.playback.finished_at(self._repeating) is None:
            return
        self._repeating = self.mixer.say(self.speech.clip("", text))

    def say(self, key: str, text: str) -> None:
        if self.printer is not None:
            self.printer.said(text)
        clip = self.speech.clip(key, text)
        token, ahead = self.mixer.say_after(clip)
        if self.virtual:  # it cannot end before its own length has been mixed
            self.clock.sleep(clip.seconds)
            while self.playback.finished_at(token) is None:
                self.clock.sleep(BLOCK / self.mixer.rate)
        else:
            waited = 0.0
            while not self.playback.wait(token, timeout=WAIT_S):
                if self.stop is not None:
                    self.stop()  # a stop signal: the game stops mid-line, as the text host
                if self.hold is not None and self.hold():
                    waited = 0.0  # the line starts again from its beginning
                    continue
                waited += 0.0 if self.mixer.paused else WAIT_S
                if waited > ahead + clip.seconds + STALL_S:
                    raise ConfigError(f"the sound output stalled while saying {text!r}")
        start = self.playback.started_at(token) or 0
        end = self.playback.finished_at(token) or 0
        self.timeline.append(SpokenLine(key, text, start / self.mixer.rate, end / self.mixer.rate))


class NightSound:
    """The Sound port over the mixer."""

    def __init__(self, mixer: Mixer, ticks: bool = False) -> None:
        self.mixer = mixer
        self.ticks = ticks
        self._chime = chime()
        self._tick = tick()

    def night(self, on: bool) -> None:
        self.mixer.night(on)
        if not on:
            self.mixer.cue(self._chime)

    def tick(self) -> None:
        if self.ticks:
            self.mixer.cue(self._tick)


class Silence:
    """The Sound port of a host that only prints."""

    def night(self, on: bool) -> None:
        """No bed without a sound card."""

    def tick(self) -> None:
        """No ticks either."""


def _no_pack(key: str, text: str) -> Clip | None:
    return None


def _nothing() -> None:
    return None


@dataclass
class PackOrTTS:
    """The voice pack's line when it has one, else the line rendered by TTS.

    ``recorded(key, text)`` is the pack (``VoicePack.clip``): the whole recording
    of the line if there is one, else the line spliced from its parts if every
    part is there, else None, and TTS says it.  A pack that covers a whole game
    speaks all of it in one voice.  A line said again without its key (the table
    asked to repeat it) is found by its text among the lines said before.
    """

    render: Callable[[str], Clip]
    recorded: Callable[[str, str], Clip | None] = _no_pack
    stop: Callable[[], None] = _nothing  # stops rendering lines ahead of the game
    _keys: dict[str, str] = field(default_factory=dict, repr=False)

    def clip(self, key: str, text: str) -> Clip:
        if key:
            self._keys[text] = key
        else:
            key = self._keys.get(text, "")
        recording = self.recorded(key, text) if key else None
        return recording if recording is not None else self.render(text)
