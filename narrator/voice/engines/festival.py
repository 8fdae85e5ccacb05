"""Festival: one long-running ``festival`` process per Python process, fed Scheme on stdin.

``text2wave`` costs a start-up per line (loading Festival and a voice, up to
2–3 s on a cold disk); one process kept alive renders a whole game's lines at a
real-time factor of about 0.04.  The process reads Scheme commands from its
stdin (``--pipe``); each render is wrapped in ``unwind-protect`` and ends with
a marker line on stdout, so an error in one line (Festival's Russian voice
stops at characters it has no letter-to-sound rule for) costs that line only.
Its stderr is drained on a thread and kept for the error message.

The heap is set to 2 M cells instead of Festival's 10 M: that is most of its
memory (about 325 MB resident before any voice, 75 MB with the smaller heap)
and still renders a two-minute text.  With the Russian voice loaded the process
holds about 250 MB, growing towards 470 MB as a long session reads more of the
voice's recorded units (measured over 600 different lines; it levels off).

Rate: 170 words a minute is each Festival voice's own, unaltered pace — the
pace of the recordings, so the default rate costs the voice nothing.  Measured
on 30 lines of a game (words over trimmed seconds): the Russian voice says 118
words a minute, the English HTS voice 166, where espeak-ng at its nominal 170
says 146 (ru) and 161 (en).  The rate sets ``Duration_Stretch`` (170 / rate)
for voices that honour it, HTS's own speed (``-r``, rate / 170), and for
unit-selection voices, which splice recordings at their recorded length, the
audio is time-stretched afterwards (``tempo.at_speed``): 110 and 260 wpm gave
the Russian voice 76 and 176 words a minute (0.64 and 1.50 of its pace, for
0.65 and 1.53 asked); ``scripts/bench_engines.py`` measures it.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import errno
import itertools
import logging
import os
import queue
import re
import shutil
import signal
import subprocess
import threading
import time
import unicodedata
from pathlib import Path
from typing import IO

import numpy as np

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice.audio_file import scratch_folder
from narrator.voice.audio_file import taken
from narrator.voice.engines import FESTIVAL
from narrator.voice.engines import EngineInfo
from narrator.voice.engines import LineFailed
from narrator.voice.engines import VoiceInfo
from narrator.voice.engines import quality
from narrator.voice.engines.tempo import SPEEDS
from narrator.voice.engines.tempo import at_speed
from narrator.voice.install import engine_hint

_LOGGER = logging.getLogger(__name__)

NATURAL_RATE = 170  # words per minute at which Festival's voices keep their own pace
HEAP_CELLS = 2_000_000
START_TIMEOUT_S = 30.0
RENDER_TIMEOUT_S = 10.0  # at least; a long line gets more (``render_timeout``)
RENDER_S_PER_CHAR = 0.05  # Festival says a line in a twentieth of its length in seconds
PROBE_TIMEOUT_S = 30.0
# Bump when the text preparation or the rate mapping changes: cached files are stale.
VERSION = "1"

_OK = "narrator-ok"
_FAIL = "narrator-fail"
_VOICE_NAME = re.compile(r"[A-Za-z0-9_]+")
# A voice's folder under one of Festival's voice paths names its language.
_LANGUAGE_FOLDERS = {
    "russian": ("ru", "ru"),
    "english": ("en", "en-gb"),
    "british": ("en", "en-gb"),
    "us": ("en", "en-us"),
    "american": ("en", "en-us"),
    "spanish": ("es", "es"),
    "castillian_spanish": ("es", "es-es"),
    "czech": ("cs", "cs"),
    "finnish": ("fi", "fi"),
    "italian": ("it", "it"),
    "welsh": ("cy", "cy"),
    "german": ("de", "de"),
    "french": ("fr", "fr"),
    "polish": ("pl", "pl"),
}
# ... and so does the middle of a FestVox voice name (cmu_us_slt_arctic_hts, msu_ru_nsh_…).
_NAME_LANGUAGES = {
    "us": ("en", "en-us"),
    "uk": ("en", "en-gb"),
    "en": ("en", "en"),
    "ru": ("ru", "ru"),
    "es": ("es", "es"),
    "de": ("de", "de"),
    "fr": ("fr", "fr"),
    "it": ("it", "it"),
    "pl": ("pl", "pl"),
}
_LANGUAGE_WORDS = {"ru": "Russian", "en": "English", "es": "Spanish", "de": "German"}
_REGION_WORDS = {"en-us": "American English", "en-gb": "British English"}

# Text the voices can read.  Festival's tokenizer strips only ASCII punctuation off
# words, and the Russian voice's letter-to-sound rules stop the whole line at any
# character they do not know («, —, …, %, a backslash, a lone "."): typography is
# turned into ASCII, other symbols into spaces, and a token of punctuation alone
# joins the word before it.
_TYPOGRAPHY = str.maketrans(
    {
        "«": '"',
        "»": '"',
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "—": ",",
        "–": ",",
        "‒": ",",
        "−": "-",
        "…": "...",
        "\u00a0": " ",
        "\u202f": " ",
    }
)
_PUNCTUATION = set("\"'.,:;!?()-")
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")
_EXTRA_COMMAS = re.compile(r"([.,!?:;]),+")  # "да — , нет": one mark is enough
_VOWEL_AFTER = re.compile(r"\+(?![аеёиоуыэюяАЕЁИОУЫЭЮЯ])")


def _letter(char: str) -> str:
    """A letter as the voices spell it: Cyrillic and ASCII as they are, é → e, others gone."""
    if char.isascii() or _CYRILLIC.fullmatch(char):
        return char
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    return plain if plain.isalpha() else " "


def prepared(text: str) -> str:
    """``text`` in the characters Festival's voices read; ``+`` marks a stressed vowel.

    Pure: the same text always gives the same string, so it can be part of a cache key.
    """
    chars = []
    for char in text.translate(_TYPOGRAPHY):
        if char.isalnum():
            chars.append(_letter(char) if char.isalpha() else char if char.isascii() else " ")
        elif char in _PUNCTUATION or char == "+":
            chars.append(char)
        else:
            chars.append(" ")
    # A "+" is Festival's stress mark only before a vowel; elsewhere it would be spelt.
    marked = _VOWEL_AFTER.sub("", "".join(chars))
    words: list[str] = []
    for token in marked.split():
        if any(c.isalnum() for c in token):
            words.append(token)
        elif words:  # " , " or " ... ": the punctuation belongs to the word before
            words[-1] += token.replace('"', "").replace("'", "")
    return _EXTRA_COMMAS.sub(r"\1", " ".join(words))


def scheme_string(text: str) -> str:
    """``text`` as a Scheme string literal: backslashes and quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rate_factor(rate: int) -> float:
    return rate / NATURAL_RATE


def render_timeout(words: str) -> float:
    """How long Festival may take to say ``words`` before it counts as hung."""
    return max(RENDER_TIMEOUT_S, RENDER_S_PER_CHAR * len(words))


class _Dead(Exception):
    """The festival process ended (or stopped answering) in the middle of a command."""


class _Process:
    """One running ``festival --pipe``: commands in, marker lines out, stderr kept."""

    def __init__(self, program: str) -> None:
        self.popen = subprocess.Popen(
            [program, "--pipe", "--heap", str(HEAP_CELLS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # Ctrl-C at the table is for the game, not for Festival
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.errors: collections.deque[str] = collections.deque(maxlen=12)
        assert self.popen.stdout is not None and self.popen.stderr is not None
        threading.Thread(
            target=self._read, args=(self.popen.stdout,), name="festival-out", daemon=True
        ).start()
        threading.Thread(
            target=self._drain, args=(self.popen.stderr,), name="festival-err", daemon=True
        ).start()
        self.voice: str | None = None
        self.synth_method = ""

    def _read(self, stream: IO[bytes]) -> None:
        with stream:
            for raw in iter(stream.readline, b""):
                self.lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        self.lines.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line:
                    _LOGGER.debug("festival: %s", line)
                    self.errors.append(line)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def ask(self, scheme: str, job: int, timeout: float, answer: str = '""') -> str:
        """Evaluate ``scheme`` as job ``job``, then ``answer``; the answer, or OSError.

        The marker is printed through ``format``'s arguments, so the command's own
        text (which Festival echoes in a backtrace) never contains it verbatim.
        """
        self.errors.clear()
        guarded = (
            f'(unwind-protect (begin {scheme} (format t "%s %d %s\\n" "{_OK}" {job} {answer}))'
            f' (format t "%s %d\\n" "{_FAIL}" {job})) (fflush nil)\n'
        )
        assert self.popen.stdin is not None
        try:
            self.popen.stdin.write(guarded.encode("utf-8"))
            self.popen.stdin.flush()
        except OSError:
            raise _Dead from None
        ok, fail = f"{_OK} {job}", f"{_FAIL} {job}"
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                self.stop(hung=True)
                raise OSError(
                    errno.ETIMEDOUT, f"festival gave no answer in {timeout:.0f} s"
                ) from None
            if line is None:
                raise _Dead
            if line == ok or line.startswith(f"{ok} "):
                return line[len(ok) :].strip()
            if line == fail:
                for _ in range(10):  # stderr comes on its own thread, a moment later
                    if self.errors:
                        break
                    time.sleep(0.01)
                why = "; ".join(self.errors) or "no reason given"
                raise OSError(errno.EIO, f"festival could not say it ({why})")

    def stop(self, *, hung: bool = False) -> None:
        """Close stdin (Festival exits at its end), then make sure it has: a process that
        does not end (or ``hung``, one that gave no answer) is killed with its whole
        process group, and reaped, so no child is left running or defunct."""
        with contextlib.suppress(OSError):
            if self.popen.stdin is not None:
                self.popen.stdin.close()
        if not hung:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=2)
        with contextlib.suppress(OSError):  # its own session: the group is Festival's alone
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5)


class FestivalEngine:
    """Festival's voices, rendered by the process's one long-running ``festival``.

    Only the thread holding ``_lock`` touches the process: a render is one
    command and its answer.  The process starts at the first render, restarts
    once when it has died, and is stopped by ``close`` and at interpreter exit.
    """

    name = FESTIVAL
    version = VERSION

    def __init__(self, program: str | None = None) -> None:
        self._program = program
        self._lock = threading.Lock()
        self._process: _Process | None = None
        self._voices: list[VoiceInfo] | None = None
        self._jobs = itertools.count(1)
        self._renders = 0
        self._exit_hook = False
        self._folder: Path | None = None

    @property
    def renders(self) -> int:
        """How many lines this engine has said."""
        return self._renders

    @property
    def running(self) -> bool:
        """Whether a festival process is up now."""
        process = self._process
        return process is not None and process.alive()

    def program(self) -> str:
        """The ``festival`` program; ConfigError with the install hint when there is none."""
        found = self._program or shutil.which("festival")
        if not found:
            raise ConfigError(f"Festival is not installed: {engine_hint(FESTIVAL)}")
        return found

    # -- voices --------------------------------------------------------------------------

    def info(self) -> EngineInfo:
        return EngineInfo(self.name, self.version, tuple(self.voices()))

    def voices(self) -> list[VoiceInfo]:
        """Every installed Festival voice, asked of Festival once per process."""
        if self._voices is None:
            self._voices = self._probe()
        return list(self._voices)

    def _probe(self) -> list[VoiceInfo]:
        """A short-lived ``festival`` lists its voices and voice folders (no voice is loaded)."""
        program = self.program()
        script = (
            '(mapcar (lambda (d) (format t "narrator-path %s\\n" d)) voice-path)\n'
            '(mapcar (lambda (v) (format t "narrator-voice %s\\n" v)) (voice.list))\n'
        )
        try:
            done = subprocess.run(
                [program, "--pipe", "--heap", "400000"],
                input=script.encode(),
                capture_output=True,
                timeout=PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ConfigError(f"Festival does not start ({error})") from None
        out = done.stdout.decode("utf-8", errors="replace").splitlines()
        paths = [Path(line.split(" ", 1)[1]) for line in out if line.startswith("narrator-path ")]
        names = [line.split(" ", 1)[1] for line in out if line.startswith("narrator-voice ")]
        return [self._voice(name, paths) for name in names if _VOICE_NAME.fullmatch(name)]

    def _voice(self, name: str, paths: list[Path]) -> VoiceInfo:
        lang, tag = "", ""
        for folder in paths:
            with contextlib.suppress(OSError):
                for language in sorted(p for p in folder.iterdir() if (p / name).is_dir()):
                    lang, tag = _LANGUAGE_FOLDERS.get(language.name, ("", ""))
                    break
            if lang:
                break
        if not lang:
            parts = name.split("_")
            lang, tag = next(
                (_NAME_LANGUAGES[p] for p in parts[1:2] if p in _NAME_LANGUAGES), ("", "")
            )
        spoken = _REGION_WORDS.get(tag) or _LANGUAGE_WORDS.get(lang, lang or "unknown language")
        return VoiceInfo(
            id=name.lower(),
            name=f"Festival {name} ({spoken})",
            lang=lang,
            tag=tag or lang,
            native_id=name,
            driver=FESTIVAL,
            quality=quality(FESTIVAL, name.lower()),
        )

    # -- rendering -----------------------------------------------------------------------

    def synthesize(self, text: str, voice: VoiceInfo | None, rate: int) -> Clip:
        """``text`` said by ``voice`` at ``rate`` wpm; OSError when Festival cannot say it."""
        if voice is None:
            voice = next(iter(self.voices()), None)
            if voice is None:
                raise OSError(errno.ENOENT, "Festival has no voices", engine_hint(FESTIVAL))
        if not _VOICE_NAME.fullmatch(voice.native_id):
            raise OSError(errno.EINVAL, f"not a Festival voice name: {voice.native_id!r}")
        words = prepared(text)
        if not words:
            raise OSError(errno.EINVAL, f"nothing Festival can say in {text!r}")
        with self._lock:
            if self._folder is None:
                self._folder = scratch_folder(FESTIVAL)
            path = self._folder / "line.wav"
            for attempt in range(2):
                process = self._started()
                try:
                    clip = self._say(process, words, path, voice, rate)
                    break
                except OSError as error:
                    # A long-lived process can go wrong inside and fail line after line
                    # (seen once in a test worker: «SIOD ERROR: too few arguments» in
                    # the Russian voice's own code): a fresh process says the line, or
                    # the line itself is at fault.
                    if attempt or error.errno == errno.ETIMEDOUT:  # a hang is not tried twice
                        raise LineFailed(error.errno, error.strerror) from None
                    _LOGGER.warning("festival failed (%s); starting it again", error)
                    process.stop()
                    self._process = None
                except _Dead:
                    why = "; ".join(process.errors) or f"exit code {process.popen.poll()}"
                    process.stop()
                    self._process = None
                    if attempt:
                        raise LineFailed(
                            errno.EPIPE, f"festival stopped twice while rendering ({why})"
                        ) from None
                    _LOGGER.warning("festival stopped (%s); starting it again", why)
            self._renders += 1
        return clip

    def _started(self) -> _Process:
        process = self._process
        if process is not None and process.alive():
            return process
        if process is not None:
            process.stop()
        try:
            program = self.program()
        except ConfigError as error:
            raise OSError(errno.ENOENT, str(error)) from None
        try:
            process = _Process(program)
        except OSError as error:
            raise OSError(error.errno, f"festival does not start ({error})") from None
        try:
            process.ask("t", 0, START_TIMEOUT_S)
        except _Dead:
            why = "; ".join(process.errors) or "it exited at once"
            process.stop()
            raise OSError(errno.EPIPE, f"festival does not start ({why})") from None
        self._process = process
        if not self._exit_hook:
            atexit.register(self.close)
            self._exit_hook = True
        return process

    def _say(self, process: _Process, words: str, path: Path, voice: VoiceInfo, rate: int) -> Clip:
        if process.voice != voice.native_id:
            process.synth_method = process.ask(
                f"(voice_{voice.native_id})",
                next(self._jobs),
                START_TIMEOUT_S,
                answer="(Parameter.get 'Synth_Method)",
            )
            if process.synth_method == "HTS":
                process.ask("(set! narrator_hts_base hts_engine_params)", next(self._jobs), 5)
            process.voice = voice.native_id
        factor = _rate_factor(rate)
        setting = f"(Parameter.set 'Duration_Stretch {1 / factor:.4f})"
        if process.synth_method == "HTS":
            setting += (
                " (set! hts_engine_params"
                f' (append narrator_hts_base (list (list "-r" {factor:.4f}))))'
            )
        path.unlink(missing_ok=True)
        target = scheme_string(os.fspath(path))
        process.ask(
            f"{setting} (set! narrator_utt (Utterance Text {scheme_string(words)}))"
            f" (utt.synth narrator_utt) (utt.save.wave narrator_utt {target} 'riff)",
            next(self._jobs),
            render_timeout(words),
        )
        clip = taken(path, f"festival wrote no audio for {words!r}")
        if process.synth_method == "Cluster" and abs(factor - 1.0) >= 1e-3:
            return _stretched(clip, factor)
        return clip

    def close(self) -> None:
        """Stop the festival process; the next render starts a new one.

        Not under the lock: at exit a render may still hold it on a daemon thread,
        and the process must go all the same (that render then fails).
        """
        process, self._process = self._process, None
        if process is not None:
            process.stop()


def _stretched(clip: Clip, speed: float) -> Clip:
    """``clip`` (made mono) ``speed`` times as fast, at the same pitch."""
    mono = np.ascontiguousarray(clip.samples.mean(axis=1), dtype=np.float32)
    low, high = SPEEDS
    faster = at_speed(mono, clip.rate, min(max(speed, low), high))
    return Clip(np.ascontiguousarray(faster.reshape(-1, 1)), clip.rate)
