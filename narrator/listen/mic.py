"""Where spoken audio comes from: the microphone, or a file (tests, the benchmark).

Both give 16 kHz mono signed 16-bit blocks of ``BLOCK_S`` seconds through
``read(timeout)``. The sounddevice callback only copies the block into a queue;
resampling (for a device that cannot record at 16 kHz) happens in the reader.
A microphone that stops delivering audio reports a ``problem()`` instead of
blocking anyone: the table goes on with the keypad.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import queue
import threading
import time
from pathlib import Path
from typing import Any
from typing import Protocol

import numpy as np
import numpy.typing as npt

from narrator.files import SOUND
from narrator.files import BadFile
from narrator.files import open_regular
from narrator.listen.engine import RATE
from narrator.rules.errors import ConfigError
from narrator.sound.output import quiet_native_stderr
from narrator.voice.install import sounddevice

_LOGGER = logging.getLogger(__name__)

BLOCK_S = 0.05  # 50 ms blocks: the end of an utterance is found to within one block
STALL_S = 2.0  # a started microphone that sends nothing this long is gone
QUEUE_BLOCKS = 200  # ten seconds of audio; older blocks are dropped if nobody reads


class AudioSource(Protocol):
    """Blocks of 16 kHz mono int16 audio."""

    def read(self, timeout: float) -> bytes | None:
        """The next block, or None when ``timeout`` seconds pass without one."""
        ...

    def captured(self) -> float:
        """When the block ``read`` gave last was recorded (``time.monotonic``): a block
        read late (the listener fell behind) still belongs to the moment it was said."""
        ...

    def problem(self) -> str | None:
        """Why no more audio will come (None while it works)."""
        ...

    def stop(self) -> None: ...


def resample(
    samples: npt.NDArray[np.float32], rate: int, to: int = RATE
) -> npt.NDArray[np.float32]:
    """Linear interpolation: enough for speech recognition at 16 kHz."""
    if rate == to or not samples.size:
        return samples
    frames = max(1, round(len(samples) * to / rate))
    old = np.arange(len(samples), dtype=np.float64) / rate
    new = np.arange(frames, dtype=np.float64) / to
    return np.interp(new, old, samples).astype(np.float32)


def to_pcm(samples: npt.NDArray[np.float32]) -> bytes:
    """Float samples in [-1, 1] as int16 bytes."""
    clipped = np.clip(samples, -1.0, 1.0) * 32767.0
    return bytes(clipped.astype(np.int16).tobytes())


LONGEST_FILE_S = 600  # a recording to hear is at most ten minutes of audio
MOST_CHANNELS = 8
MOST_RATE = 384_000


def read_wav(path: Path) -> bytes:
    """A sound file (WAV, FLAC, Ogg: whatever libsndfile reads) as 16 kHz mono int16 PCM.

    Read as every file of the program is (``narrator.files``): a regular file of at most
    ``SOUND``'s cap, checked before a byte is read; anything else, or a file that is no
    sound, is one BadFile line naming it."""
    soundfile: Any = importlib.import_module("soundfile")
    with open_regular(path, SOUND) as handle:
        try:
            with soundfile.SoundFile(handle) as sound:
                rate, channels = int(sound.samplerate), int(sound.channels)
                most = rate * LONGEST_FILE_S
                if not 0 < channels <= MOST_CHANNELS or not 0 < rate <= MOST_RATE:
                    raise BadFile(f"{path}: {channels} channels at {rate} Hz: not a recording")
                if not 0 <= sound.frames <= most:
                    # A small compressed file can hold hours of silence: never decoded.
                    raise BadFile(f"{path}: longer than {LONGEST_FILE_S // 60} minutes")
                exact = rate == RATE and channels == 1  # fed to the decoder as it is
                kind = "int16" if exact else "float32"
                data = sound.read(frames=most, dtype=kind, always_2d=True)
        except BadFile:
            raise
        except (RuntimeError, TypeError, ValueError, OSError) as error:
            reason = getattr(error, "error_string", None) or str(error) or type(error).__name__
            raise BadFile(f"{path}: not a sound file (WAV, FLAC or Ogg): {reason}") from None
    if not len(data):
        raise BadFile(f"{path}: a sound file with no audio in it")
    if exact:
        return bytes(np.ascontiguousarray(data[:, 0]).tobytes())
    return to_pcm(resample(np.asarray(data.mean(axis=1), dtype=np.float32), rate))


def parse_device(text: str | None) -> str | int | None:
    """``--input-device``: an index (``3``) or part of a device name (``USB``)."""
    if text is None or text == "":
        return None
    return int(text) if text.isdigit() else text


def input_devices() -> list[str]:
    """Names of the input devices, for advice («try another one with --input-device»)."""
    sd = sounddevice()
    return [
        f"{index}: {device['name']}"
        for index, device in enumerate(sd.query_devices())
        if device.get("max_input_channels", 0) > 0
    ]


class Microphone:
    """The default (or a chosen) input device as an AudioSource."""

    def __init__(
        self, device: str | int | None = None, block_s: float = BLOCK_S, stall_s: float = STALL_S
    ) -> None:
        self.device = device
        self.block_s = block_s
        self.stall_s = stall_s
        self._queue: queue.Queue[tuple[float, bytes]] = queue.Queue(QUEUE_BLOCKS)
        self._captured = 0.0
        self._stream: Any = None
        self._rate = RATE
        self._problem: str | None = None
        self._stopping = False
        self._last = 0.0
        self._lock = threading.Lock()
        self._quieted = False

    def start(self) -> None:
        """Open the device; no input device is one ConfigError line."""
        sd = sounddevice()
        which = "the default microphone" if self.device is None else f"input device {self.device!r}"
        try:
            info = sd.query_devices(self.device, kind="input")
        except (ValueError, sd.PortAudioError) as error:
            raise ConfigError(
                f"no microphone: {which} is not available ({error}); "
                "pick one with --input-device, or play with --input keypad"
            ) from None
        rates = [RATE, int(info.get("default_samplerate") or 48000)]
        last: Exception | None = None
        for rate in rates:
            try:
                self._open(sd, rate)
                quiet_native_stderr(True)  # a microphone that goes away: PortAudio's lines
                self._quieted = True
                return
            except sd.PortAudioError as error:
                last = error
        raise ConfigError(f"cannot record from {which}: {last}")

    def _open(self, sd: Any, rate: int) -> None:
        self._rate = rate
        self._stream = sd.RawInputStream(
            samplerate=rate,
            channels=1,
            dtype="int16",
            blocksize=round(rate * self.block_s),
            device=self.device,
            callback=self._callback,
            finished_callback=self._finished,
        )
        self._last = time.monotonic()
        self._stream.start()

    def _callback(self, data: Any, frames: int, _time: Any, _status: Any) -> None:
        with contextlib.suppress(queue.Full):  # nobody is reading: old audio is worthless
            self._queue.put_nowait((time.monotonic(), bytes(data)))

    def _finished(self) -> None:
        if not self._stopping:
            self._problem = self._problem or "the input stream stopped"

    def read(self, timeout: float) -> bytes | None:
        try:
            self._captured, block = self._queue.get(timeout=max(timeout, 0))
        except queue.Empty:
            if not self._stopping and time.monotonic() - self._last > self.stall_s:
                self._problem = self._problem or f"no audio for {self.stall_s:g} s"
            return None
        self._last = time.monotonic()
        if self._rate == RATE:
            return block
        samples = np.frombuffer(block, dtype=np.int16).astype(np.float32) / 32768.0
        return to_pcm(resample(samples, self._rate))

    def captured(self) -> float:
        return self._captured

    def problem(self) -> str | None:
        return self._problem

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            stream, self._stream = self._stream, None
            quieted, self._quieted = self._quieted, False
        if stream is not None:
            try:
                stream.abort()  # not stop(): it waits for a suspended source forever
                stream.close()
            except Exception as error:  # a device that vanished may fail to close
                _LOGGER.warning("closing the microphone: %s", error)
        if quieted:
            quiet_native_stderr(False)


class FileSource:
    """PCM audio given as an AudioSource, block by block (in real time if asked).

    In real time it reads as silence after the end, like a quiet room; otherwise
    it then gives nothing. ``finished`` tells that everything was read. A block
    is recorded when it is due (in real time) or read (otherwise).
    """

    def __init__(self, pcm: bytes, *, realtime: bool = False, block_s: float = BLOCK_S) -> None:
        self.pcm = pcm
        self.realtime = realtime
        self._captured = 0.0
        self.block = round(RATE * block_s) * 2
        self.position = 0
        self.finished = threading.Event()
        self._start: float | None = None  # real time runs from the first read

    def read(self, timeout: float) -> bytes | None:
        if self.realtime:
            if self._start is None:
                # Not from construction: a model loading meanwhile would otherwise make
                # the first reads catch up and skip the start of the audio.
                self._start = time.monotonic()
            due = self._start + self.position / 2 / RATE
            wait = due - time.monotonic()
            if wait > timeout:
                time.sleep(max(timeout, 0))
                return None
            if wait > 0:
                time.sleep(wait)
        if self.position >= len(self.pcm):
            self.finished.set()
            if not self.realtime:
                time.sleep(max(timeout, 0))
                return None
            block = bytes(self.block)
        else:
            block = self.pcm[self.position : self.position + self.block]
            block += bytes(self.block - len(block))
        self.position += self.block
        if self.realtime and self._start is not None:
            self._captured = self._start + self.position / 2 / RATE
        else:
            self._captured = time.monotonic()
        return block

    def captured(self) -> float:
        return self._captured

    def problem(self) -> str | None:
        return None

    def stop(self) -> None:
        self.finished.set()
