"""Where the mix goes: the sound card (sounddevice), or a narration file (FLAC, Ogg, WAV).

The sound card is fed by a producer thread that renders the mixer block by block
into a ring buffer; the PortAudio callback only copies from the ring (no
allocation, no lock, no printing) and counts underruns. Offline, a virtual clock
advances the mixer by exactly the time the host waits, faster than real time. A file
takes the format its name ends in (``narrator.sound.narration``).

The virtual clock counts whole frames: its time is ``frame / rate``, and a wait
ends on the first frame at or after the time waited for, at least one frame
later. So a wait for a window end that lies a rounding error after the clock
still moves it, and a loop "sleep until end" always ends.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from narrator.rules.errors import ConfigError
from narrator.sound.clip import MIX_CHANNELS, Samples
from narrator.sound.mixer import Mixer
from narrator.sound.narration import NarrationFile, default_name

_LOGGER = logging.getLogger(__name__)

BLOCK = 480  # 10 ms at 48 kHz


class Playback:
    """Tracks when queued speech clips finish, for whoever waits on them."""

    def __init__(self, mixer: Mixer) -> None:
        self.mixer = mixer
        self._finished: dict[int, int] = {}
        self._started: dict[int, int] = {}
        self._changed = threading.Condition()
        mixer.on_started = self._on_started
        mixer.on_finished = self._on_finished

    def _on_started(self, token: int, frame: int) -> None:
        with self._changed:
            self._started[token] = frame

    def _on_finished(self, token: int, frame: int) -> None:
        with self._changed:
            self._finished[token] = frame
            self._changed.notify_all()

    def finished_at(self, token: int) -> int | None:
        with self._changed:
            return self._finished.get(token)

    def started_at(self, token: int) -> int | None:
        with self._changed:
            return self._started.get(token)

    def wait(self, token: int, timeout: float | None = None) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: token in self._finished, timeout)


def frame_at(when: float, rate: int) -> int:
    """The first frame whose time ``frame / rate`` is not before ``when`` (exact, in floats)."""
    frame = math.ceil(when * rate)
    while frame / rate < when:
        frame += 1
    while (frame - 1) / rate >= when:
        frame -= 1
    return frame


class OfflineOutput:
    """Renders the mixer into memory as a virtual clock advances; writes a file at the end.

    With ``keep=False`` the mix is not kept in memory: it is dropped (a check of the
    clock and the game) or, after ``record_to``, written to a narration file block by
    block (an hour of game is 1.4 GB of samples). ``block`` is the most frames mixed at once.
    """

    def __init__(self, mixer: Mixer, *, keep: bool = True, block: int = BLOCK) -> None:
        self.mixer = mixer
        self.playback = Playback(mixer)
        self.keep = keep
        self.block = max(1, block)
        self._blocks: list[Samples] = []
        self._file: NarrationFile | None = None
        self._path: Path | None = None

    def record_to(self, path: Path) -> None:
        """From now on write the mix to a narration file as it is rendered; ``close`` ends it."""
        self._file = NarrationFile.open(path, self.mixer.rate)
        self._path = path
        self.keep = False

    def close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()
            except (OSError, RuntimeError) as error:
                raise ConfigError(f"cannot write {self._path}: {error}") from None

    @property
    def seconds(self) -> float:
        return self.mixer.frame / self.mixer.rate

    def advance(self, seconds: float) -> None:
        """Render ``seconds`` more: up to the first frame at or after now + seconds.

        Any positive wait moves at least one frame; zero, negative or NaN waits do nothing.
        """
        if not seconds > 0:
            return
        if not math.isfinite(seconds):
            raise ValueError(f"cannot wait {seconds} s on the virtual clock")
        now = self.mixer.frame
        target = max(now + 1, frame_at(now / self.mixer.rate + seconds, self.mixer.rate))
        self.advance_to(target)

    def advance_to(self, frame: int) -> None:
        """Render up to (not including) ``frame``."""
        while self.mixer.frame < frame:
            block = self.mixer.render(min(self.block, frame - self.mixer.frame))
            if self.keep:
                self._blocks.append(block)
            if self._file is not None:
                try:
                    self._file.write(block)
                except (OSError, RuntimeError) as error:
                    raise ConfigError(f"cannot write {self._path}: {error}") from None

    def samples(self) -> Samples:
        if not self._blocks:
            return np.zeros((0, MIX_CHANNELS), dtype=np.float32)
        return np.concatenate(self._blocks)

    def write(self, path: Path) -> None:
        """The mix kept so far, to a narration file in the format ``path`` ends in."""
        file = NarrationFile.open(path, self.mixer.rate)
        try:
            file.write(self.samples())
            file.close()
        except (OSError, RuntimeError) as error:
            raise ConfigError(f"cannot write {path}: {error}") from None


class VirtualClock:
    """A clock that only moves when the host waits; waiting renders the mix.

    Its time is a whole number of frames (``output.mixer.frame``); see ``advance``.
    """

    def __init__(self, output: OfflineOutput) -> None:
        self.output = output

    def now(self) -> float:
        return self.output.seconds

    def sleep(self, seconds: float) -> None:
        self.output.advance(seconds)


def output_problem() -> str | None:
    """One line saying why nothing can be played here, or None when a device is there."""
    try:
        import sounddevice as sd
    except OSError:
        return "the PortAudio library is missing (apt-get install libportaudio2)"
    try:
        sd.query_devices(kind="output")
    except (sd.PortAudioError, ValueError):
        return "no sound output device"
    return None


_ALSA_HANDLER: Any = None  # kept alive while libasound may call it


def quiet_alsa() -> None:
    """Keep libasound's messages («underrun occurred») off the terminal.

    ALSA writes them straight to file descriptor 2, which is the full-screen table's
    own output: a message would be drawn across the page. Underruns are counted by
    the output itself (``underruns``); nothing is lost by not printing them.
    """
    global _ALSA_HANDLER
    if _ALSA_HANDLER is not None or not sys.platform.startswith("linux"):
        return
    try:
        alsa = ctypes.CDLL(ctypes.util.find_library("asound") or "libasound.so.2")
    except OSError:
        return  # no ALSA: nothing to quiet
    handler_type = ctypes.CFUNCTYPE(
        None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
    )
    _ALSA_HANDLER = handler_type(lambda *_: None)
    alsa.snd_lib_error_set_handler(_ALSA_HANDLER)


class DeviceOutput:
    """The default sound card, fed from the mixer through a ring buffer."""

    def __init__(self, mixer: Mixer, ahead_s: float = 0.15) -> None:
        self.mixer = mixer
        self.playback = Playback(mixer)
        self.ahead = max(BLOCK * 2, round(ahead_s * mixer.rate))
        self._ring = np.zeros((mixer.rate, MIX_CHANNELS), dtype=np.float32)  # 1 s
        self._write = 0  # frames written (producer)
        self._read = 0  # frames read (callback)
        self.underruns = 0
        self._running = False
        self._stream: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        import sounddevice as sd

        problem = output_problem()
        if problem is not None:
            raise ConfigError(f"{problem}: use --output {default_name('FILE')} to render to a file")
        quiet_alsa()
        self._running = True
        self._fill()
        self._thread = threading.Thread(target=self._produce, name="mixer", daemon=True)
        self._thread.start()
        try:
            self._stream = sd.OutputStream(
                samplerate=self.mixer.rate,
                channels=MIX_CHANNELS,
                dtype="float32",
                blocksize=BLOCK,
                callback=self._callback,
            )
            self._stream.start()
        except sd.PortAudioError as error:
            self._running = False
            raise ConfigError(f"cannot open the sound output: {error}") from None

    def stop(self) -> None:
        if self._stream is not None:  # the stream first: the ring is fed to the last block
            self._stream.stop()
            self._stream.close()
            self._stream = None
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=1)

    def _fill(self) -> None:
        size = len(self._ring)
        while self._write - self._read < self.ahead:
            block = self.mixer.render(BLOCK)
            start = self._write % size
            first = min(BLOCK, size - start)
            self._ring[start : start + first] = block[:first]
            self._ring[: BLOCK - first] = block[first:]
            self._write += BLOCK

    def _produce(self) -> None:
        while self._running:
            self._fill()
            time.sleep(BLOCK / self.mixer.rate / 4)

    def wait_started(self, timeout: float = 5.0) -> bool:
        """True once the device has pulled its first block (an idle sink may be slow)."""
        end = time.monotonic() + timeout
        while self._read == 0 and time.monotonic() < end:
            time.sleep(0.005)
        return self._read > 0

    def _callback(self, outdata: Any, frames: int, _time: Any, _status: Any) -> None:
        size = len(self._ring)
        available = self._write - self._read
        take = min(frames, available)
        start = self._read % size
        first = min(take, size - start)
        outdata[:first] = self._ring[start : start + first]
        outdata[first:take] = self._ring[: take - first]
        if take < frames:
            outdata[take:] = 0
            if self._running:
                self.underruns += 1
        self._read += take


class FileOutput:
    """No sound card: the live mix goes to a narration file at the pace of the real clock."""

    def __init__(self, mixer: Mixer, path: Path) -> None:
        self.mixer = mixer
        self.path = path
        self.playback = Playback(mixer)
        self._running = False
        self._thread: threading.Thread | None = None
        self._file: NarrationFile | None = None

    def start(self) -> None:
        self._file = NarrationFile.open(self.path, self.mixer.rate)
        self._running = True
        self._thread = threading.Thread(target=self._produce, name="mixer-file", daemon=True)
        self._thread.start()

    def _produce(self) -> None:
        start = time.monotonic()
        writing = True
        while self._running:
            due = round((time.monotonic() - start) * self.mixer.rate)
            while self.mixer.frame + BLOCK <= due:
                block = self.mixer.render(BLOCK)  # time goes on even when the file cannot
                if writing:
                    writing = self._write(block)
            time.sleep(BLOCK / self.mixer.rate)

    def _write(self, block: Samples) -> bool:
        """Write one block; a full or failing disk is said once and the game goes on."""
        if self._file is None:
            return False
        try:
            self._file.write(block)
        except (OSError, RuntimeError) as error:  # soundfile's errors are RuntimeErrors
            _LOGGER.warning("the narration file %s stops here: %s", self.path, error)
            sys.stderr.write(f"narrator: cannot write {self.path} ({error}); the game goes on\n")
            return False
        return True

    def stop(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=1)
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()  # a FLAC or Ogg file writes its last pages here
            except (OSError, RuntimeError) as error:
                _LOGGER.warning("the narration file %s is incomplete: %s", self.path, error)
                sys.stderr.write(f"narrator: cannot finish {self.path} ({error})\n")
