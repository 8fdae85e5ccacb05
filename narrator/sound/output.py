"""Where the mix goes: the sound card (sounddevice), or a narration file (FLAC, Ogg, WAV).

The sound card is fed by a producer thread that renders the mixer block by block
into a ring buffer; the PortAudio callback only copies from the ring (no
allocation, no lock, no printing) and counts underruns. Offline, a virtual clock
advances the mixer by exactly the time the host waits, faster than real time. A file
takes the format its name ends in (``narrator.sound.narration``).

A sound device that goes away in the middle of a game (unplugged, its sound
server stopped or suspended) is noticed by its callback falling silent: the
mixer then stands still, ``DeviceOutput.problem()`` says why, and the device is
opened again until it plays; the host decides meanwhile what the table sees.

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
from narrator.sound.clip import MIX_CHANNELS
from narrator.sound.clip import Samples
from narrator.sound.mixer import Mixer
from narrator.sound.narration import NarrationFile
from narrator.sound.narration import default_name

_LOGGER = logging.getLogger(__name__)

BLOCK = 480  # 10 ms at 48 kHz
# A stream whose callback has not run this long has lost its device. An idle PulseAudio
# sink wakes up in blocks of up to 2 s, so a shorter wait would see ghosts.
LOST_S = 3.0
RETRY_S = 1.0  # how often a lost device is opened again
BACK_S = 0.5  # a reopened device is back once it has played this much (more than it buffers)
PROBE_S = 5.0  # a reopened stream that has not played BACK_S by then is opened anew


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

    def stop(self) -> None:
        """The end of a game played on it: the file, if any, is finished."""
        self.close()

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


_NATIVE_STDERR: dict[str, Any] = {}  # the C library's stderr, while it is quieted
_QUIETED = [0]  # how many open devices want it quiet
_QUIET_LOCK = threading.Lock()


def quiet_native_stderr(on: bool) -> None:
    """Keep PortAudio's own failure messages off the terminal while a device is open.

    A device that goes away makes PortAudio print «Expression … failed» lines to the
    C library's ``stderr``, which is the full-screen table's own output, and every
    attempt to open it again prints more. Python's ``sys.stderr`` is not touched: only
    what C code prints is dropped, and the output reports the fault itself (``problem``).
    Calls nest: each ``True`` is undone by one ``False``.
    """
    if not sys.platform.startswith("linux"):
        return
    with _QUIET_LOCK:
        _QUIETED[0] = max(0, _QUIETED[0] + (1 if on else -1))
        try:
            libc = ctypes.CDLL(None)
            stderr = ctypes.c_void_p.in_dll(libc, "stderr")
        except (OSError, ValueError):
            return  # not a C library we know: leave it be
        if _QUIETED[0] > 0 and "saved" not in _NATIVE_STDERR:
            libc.fopen.restype = ctypes.c_void_p
            libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
            null = _NATIVE_STDERR.get("null") or libc.fopen(b"/dev/null", b"w")
            if not null:
                return
            _NATIVE_STDERR["null"] = null
            _NATIVE_STDERR["saved"] = stderr.value
            stderr.value = null
        elif _QUIETED[0] == 0 and "saved" in _NATIVE_STDERR:
            stderr.value = _NATIVE_STDERR.pop("saved")


class DeviceOutput:
    """The default sound card, fed from the mixer through a ring buffer.

    A device that goes away stops the mixer where it is; the line being said will
    start again from its beginning. The device is opened again every RETRY_S, and
    counts as back once it has played BACK_S of silence (not just filled its own
    buffer). ``go_silent`` gives up on it: the mix is then paced by the clock and
    dropped, for the rest of the game.
    """

    def __init__(self, mixer: Mixer, ahead_s: float = 0.15) -> None:
        self.mixer = mixer
        self.playback = Playback(mixer)
        self.ahead = max(BLOCK * 2, round(ahead_s * mixer.rate))
        self._ring = np.zeros((mixer.rate, MIX_CHANNELS), dtype=np.float32)  # 1 s
        self._quiet = np.zeros((BLOCK, MIX_CHANNELS), dtype=np.float32)
        self._write = 0  # frames written (producer)
        self._read = 0  # frames read (callback)
        self.underruns = 0
        self.losses = 0  # how often the device went away
        self._running = False
        self._stopping = False
        self._stream: Any = None
        self._stream_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._sd: Any = None
        self._quieted = False
        self._problem: str | None = None  # why the device plays nothing (None: it plays)
        self._silent = False
        self._last_call = 0.0  # when the callback last ran (time.monotonic)
        self._ended = False  # the stream ended by itself
        self._opened_at = 0.0
        self._read_at_open = 0
        self._retry_at = 0.0
        self._paced_from: tuple[float, int] | None = None

    def start(self) -> None:
        import sounddevice as sd

        problem = output_problem()
        if problem is not None:
            raise ConfigError(f"{problem}: use --output {default_name('FILE')} to render to a file")
        quiet_alsa()
        self._sd = sd
        self._running = True
        self._fill()
        try:
            self._open()
        except sd.PortAudioError as error:
            self._running = False
            raise ConfigError(f"cannot open the sound output: {error}") from None
        quiet_native_stderr(True)
        self._quieted = True
        self._thread = threading.Thread(target=self._produce, name="mixer", daemon=True)
        self._thread.start()

    def problem(self) -> str | None:
        """Why the device plays nothing now (None: it plays, or the table chose silence)."""
        return None if self._silent else self._problem

    @property
    def silent(self) -> bool:
        return self._silent

    def go_silent(self) -> None:
        """Play on without the device: the mix is rendered at the clock's pace and dropped."""
        self._silent = True

    def stop(self) -> None:
        self._stopping = True
        if self._problem is None and not self._silent:
            self._close(drain=True)  # the stream first: the ring is fed to the last block
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=RETRY_S + 1)
        self._close()
        if self._quieted:
            self._quieted = False
            quiet_native_stderr(False)

    def _open(self) -> None:
        with self._stream_lock:
            self._ended = False
            stream = self._sd.OutputStream(
                samplerate=self.mixer.rate,
                channels=MIX_CHANNELS,
                dtype="float32",
                blocksize=BLOCK,
                callback=self._callback,
                finished_callback=self._finished,
            )
            self._last_call = self._opened_at = time.monotonic()
            self._read_at_open = self._read
            try:
                stream.start()
            except self._sd.PortAudioError:
                stream.close()
                raise
            self._stream = stream

    def _close(self, *, drain: bool = False) -> None:
        """Stop the stream: played to its end (``drain``), or at once (a device that is gone
        may never play its end: waiting for it would hang)."""
        with self._stream_lock:
            stream, self._stream = self._stream, None
            if stream is None:
                return
            try:
                if drain:
                    stream.stop()
                else:
                    stream.abort()
                stream.close()
            except self._sd.PortAudioError as error:
                _LOGGER.info("closing the sound output: %s", error)

    def _fill(self, *, quiet: bool = False) -> None:
        size = len(self._ring)
        while self._write - self._read < self.ahead:
            block = self._quiet if quiet else self.mixer.render(BLOCK)
            start = self._write % size
            first = min(BLOCK, size - start)
            self._ring[start : start + first] = block[:first]
            self._ring[: BLOCK - first] = block[first:]
            self._write += BLOCK

    def _produce(self) -> None:
        while self._running:
            if self._silent:
                self._pace()
            elif self._problem is None:
                self._fill()
                if not self._stopping:
                    self._watch()
                time.sleep(BLOCK / self.mixer.rate / 4)
            elif not self._stopping:
                self._recover()
            else:
                time.sleep(BLOCK / self.mixer.rate)

    def _watch(self) -> None:
        """A stream that ended by itself, or whose callback stopped, has lost its device."""
        if self._ended:
            self._lose("the sound device stopped")
        elif time.monotonic() - self._last_call > LOST_S:
            self._lose(f"the sound device played nothing for {LOST_S:g} s")

    def _lose(self, reason: str) -> None:
        _LOGGER.info("sound output lost: %s", reason)
        self._close()
        self._write = self._read  # what was queued for the device is dropped ...
        self.mixer.restart_speech()  # ... and the line it was part of starts again
        self.losses += 1
        self._retry_at = time.monotonic() + RETRY_S
        self._problem = reason

    def _recover(self) -> None:
        """Open the device again; it is back once it has played BACK_S of silence."""
        now = time.monotonic()
        if self._stream is None:
            if now < self._retry_at:
                time.sleep(min(0.05, self._retry_at - now))
                return
            try:
                self._open()
            except self._sd.PortAudioError as error:
                _LOGGER.debug("the sound output is still gone: %s", error)
                self._retry_at = now + RETRY_S
                return
        self._fill(quiet=True)  # the game stands still: nothing of it is played yet
        if not self._ended and self._read - self._read_at_open >= BACK_S * self.mixer.rate:
            _LOGGER.info("sound output back")
            self._last_call = time.monotonic()
            self._problem = None
            return
        if self._ended or now - self._opened_at > PROBE_S:
            self._close()
            self._retry_at = now + RETRY_S
        time.sleep(BLOCK / self.mixer.rate / 4)

    def _pace(self) -> None:
        """Silence chosen: the mixer moves on in real time and its blocks go nowhere."""
        if self._stream is not None:
            self._close()
        if self._paced_from is None:
            self._paced_from = (time.monotonic(), self.mixer.frame)
        since, first = self._paced_from
        due = first + round((time.monotonic() - since) * self.mixer.rate)
        while self.mixer.frame + BLOCK <= due:
            self.mixer.render(BLOCK)
        time.sleep(BLOCK / self.mixer.rate)

    def wait_started(self, timeout: float = 5.0) -> bool:
        """True once the device has pulled its first block (an idle sink may be slow)."""
        end = time.monotonic() + timeout
        while self._read == 0 and time.monotonic() < end:
            time.sleep(0.005)
        return self._read > 0

    def _finished(self) -> None:
        self._ended = True

    def _callback(self, outdata: Any, frames: int, _time: Any, _status: Any) -> None:
        self._last_call = time.monotonic()
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
