"""Speech rendered once to files by the voice's engine, then played from memory.

``SpeechCache`` has each line said by the engine of its voice (Festival,
hibari or the system voices: ``narrator.voice.engines``, chosen by
``narrator.voice.voices``), after the line's numbers are spelled out
(``numbers.spoken``) and its words written the way that engine says them right
(``pronounce``); it stores the audio the engine hands back as a WAV file, and
levels every clip it reads (``sound.loudness``).  Files are cached under the
user's cache folder, named by a hash of (engine, voice, rate, spoken text, and
the versions of the engine's text handling, the pronunciation and the
levelling); a warm line is a dictionary lookup.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from narrator import files
from narrator.rules.errors import ConfigError
from narrator.sound import loudness
from narrator.sound.clip import Clip
from narrator.voice.audio_file import read_clip
from narrator.voice.audio_file import write_clip
from narrator.voice.engines import RENDER_TIMEOUT_S
from narrator.voice.engines import Engine
from narrator.voice.engines import LineFailed
from narrator.voice.engines import SpanEngine
from narrator.voice.install import require
from narrator.voice.numbers import spoken
from narrator.voice.pronounce import pronunciation
from narrator.voice.rates import DEFAULT_RATE
from narrator.voice.rates import RATES
from narrator.voice.voices import choose_voice
from narrator.voice.voices import engine_for
from narrator.voice.voices import next_voice

_LOGGER = logging.getLogger(__name__)

# pyttsx3's own default (200 wpm) is hurried for announcements read to a table.
# Below this much free space the cache counts as full (a line is 50–300 KB).
MIN_FREE_BYTES = 8 * 1024 * 1024
# Clips kept decoded in memory; about four variants' worth of lines at 22 kHz.
MEMORY_BYTES = 160 * 1024 * 1024
# Every engine's audio is kept as 16-bit WAV, whatever the engine wrote itself.
SUFFIX = ".wav"


def default_cache_folder() -> Path:
    platformdirs = require("platformdirs")
    folder: Path = platformdirs.user_cache_path("narrator") / "speech"
    return folder


def _room_problem(folder: Path) -> str | None:
    """None when the disk of ``folder`` has room for more speech, else why not."""
    try:
        free = shutil.disk_usage(folder).free
    except OSError as error:
        return error.strerror or str(error)
    return os.strerror(errno.ENOSPC).lower() if free < MIN_FREE_BYTES else None


def _writable(folder: Path) -> str | None:
    """None when files can be written in ``folder``, else why not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}-{threading.get_ident()}"
        probe.write_bytes(b"narrator")
        probe.unlink()
    except OSError as error:
        return error.strerror or str(error)
    return None


class SpeechCache:
    """Speech of one language, voice and rate: rendered once to files, served from memory.

    ``voice`` None is the best voice installed for the language (``narrator
    voices``); a voice that does not exist gives the best one, with a warning.
    ``renderer`` fixes the engine (its voices only).  An engine that keeps failing
    in a game hands over to the next best voice, so the game goes on.
    """

    def __init__(
        self,
        lang: str,
        voice: str | None = None,
        rate: int | None = None,
        folder: Path | None = None,
        *,
        renderer: Engine | None = None,
        memory_bytes: int = MEMORY_BYTES,
        at_table: bool = False,
    ) -> None:
        spoken("", lang)  # an unknown language fails here, before any engine starts
        rate = DEFAULT_RATE if rate is None else rate
        if rate not in RATES:
            raise ConfigError(
                f"speech rate {rate} words per minute is out of range "
                f"{RATES.start}–{RATES.stop - 1}"
            )
        self.lang = lang
        self.rate = rate
        self._fixed_engine = renderer is not None
        if renderer is not None:
            self.voice = choose_voice(lang, voice, renderer.voices())
            self.renderer: Engine = renderer
        else:
            self.voice = choose_voice(lang, voice)
            self.renderer = engine_for(self.voice)
        self._failed: set[str] = set()
        self._fallback_engines: dict[str, Engine] = {}  # a line's voice when the engine fails
        # A bad pronunciation file of the user's: one line at the command line; at the
        # table, a warning and the built-in pronunciation.
        self.pronunciation = pronunciation(lang, strict=not at_table)
        self.rendered = 0
        self._in_temp = False
        self.folder = self._usable(folder or default_cache_folder())
        self._memory: OrderedDict[str, Clip] = OrderedDict()
        self._memory_bytes = 0
        self._memory_limit = memory_bytes
        self._lock = threading.Lock()
        # One render at a time (the engine, the folder, a hand-over); a line the game is
        # about to say goes before the background's next one (``render_ahead``).
        self._render_lock = threading.Lock()
        self._turn = threading.Condition()
        self._wanted = 0  # lines the game waits for: the background lets them go first
        self._ahead: threading.Thread | None = None
        self._stopping = False
        self.order: list[str] = []  # the spoken words of each line rendered, in order

    @property
    def engine(self) -> Engine:
        """The engine that renders this cache's lines (``renderer``, by its older name)."""
        return self.renderer

    def path(self, text: str) -> Path:
        """Where the displayed line ``text`` is (or will be) cached."""
        return self._path(self._words(text))

    def engine_text(self, text: str) -> str:
        """The displayed line ``text`` as the engine is given it: numbers spelled, words fixed."""
        return self.pronunciation.apply(self._words(text), self.renderer.name).strip()

    def clip(self, text: str) -> Clip:
        """The displayed line ``text`` as audio, levelled; rendered first when not cached yet."""
        return self._clip(text, text, None)

    def clip_in(self, before: str, text: str, after: str) -> Clip:
        """The displayed ``text`` as said in the line ``before text after``, levelled.

        A voice pack's part said with the pace and tune it has in its line: an
        engine that can cut words out of a sentence (``SpanEngine``) says the
        whole sentence and keeps the words; any other says them on their own
        (``clip(text)``).
        """
        if not isinstance(self.renderer, SpanEngine) or not (before.strip() or after.strip()):
            return self.clip(text)
        context = (self._spelled(before), self._words(text), self._spelled(after))
        return self._clip("\x00".join(context), text, context)

    def _clip(self, remembered: str, text: str, context: tuple[str, str, str] | None) -> Clip:
        with self._lock:
            found = self._memory.get(remembered)
            if found is not None:
                self._memory.move_to_end(remembered)
                return found
        words = self._words(text)
        if not words or not self.engine_text(text):
            return Clip(np.zeros((0, 1), dtype=np.float32), 22050)
        path = self._path(words, context)
        clip = _read(path) if path.exists() else None
        if clip is None:
            with self._first(), self._render_lock:
                path = self._path(words, context)  # rendered meanwhile, or a voice handed over
                clip = _read(path) if path.exists() else None
                if clip is None:
                    path = self._render(words, context)
                    clip = _read(path)
            if clip is None:
                raise ConfigError(f"the speech file {path} cannot be read back")
        clip = loudness.levelled(clip)
        self._remember(remembered, clip)
        return clip

    def missing(self, texts: Iterable[str]) -> list[str]:
        """The displayed lines (each once, in order) that have no cached file yet."""
        seen: set[str] = set()
        missing: list[str] = []
        for text in texts:
            words = self._words(text)
            if not words or words in seen:
                continue
            seen.add(words)
            if not self._path(words).exists():
                missing.append(text)
        return missing

    def build(
        self, texts: Iterable[str], progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Render every line that is missing; ``progress(done, total)``; returns how many."""
        todo = self.missing(texts)
        if progress is not None:
            progress(0, len(todo))
        for done, text in enumerate(todo, start=1):
            if self.engine_text(text):
                with self._render_lock:
                    if not self.path(text).exists():
                        self._render(self._words(text))
            if progress is not None:
                progress(done, len(todo))
        return len(todo)

    def render_ahead(self, texts: Iterable[str]) -> int:
        """Render the lines of ``texts`` not cached yet in a thread of its own, in that order
        (the order a game needs them in); returns how many it will render.

        A line asked for meanwhile (``clip``) does not wait for the others: it is rendered
        next, by the thread that asks. The order is the caller's and must not depend on
        anything secret; ``stop_ahead`` ends the thread after the line it is rendering.
        """
        todo = [text for text in self.missing(texts) if self.engine_text(text)]
        if not todo:
            return 0
        self.stop_ahead()
        self._stopping = False
        self._ahead = threading.Thread(
            target=self._render_all, args=(todo,), name="speech-ahead", daemon=True
        )
        self._ahead.start()
        return len(todo)

    def stop_ahead(self, timeout: float | None = RENDER_TIMEOUT_S) -> None:
        """Stop rendering ahead (what is left is rendered when said, or by the next game)."""
        thread, self._ahead = self._ahead, None
        if thread is None:
            return
        with self._turn:
            self._stopping = True
            self._turn.notify_all()
        thread.join(timeout)

    def wait_ahead(self, timeout: float | None = None) -> bool:
        """Wait until every line given to ``render_ahead`` is rendered; False on timeout."""
        thread = self._ahead
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    @property
    def waiting(self) -> bool:
        """Whether the game waits for a line to be rendered now."""
        with self._turn:
            return self._wanted > 0

    @property
    def rendering_ahead(self) -> bool:
        """Whether lines are still being rendered ahead of the game."""
        thread = self._ahead
        return thread is not None and thread.is_alive()

    def _render_all(self, todo: list[str]) -> None:
        for text in todo:
            with self._turn:
                self._turn.wait_for(lambda: self._stopping or not self._wanted)
                if self._stopping:
                    return
            with self._render_lock:
                words = self._words(text)
                if self._stopping or self._path(words).exists():
                    continue
                try:
                    self._render(words)
                except ConfigError as error:  # the game meets it when it says a line
                    _LOGGER.debug("rendering ahead stopped: %s", error)
                    return

    @contextlib.contextmanager
    def _first(self) -> Iterator[None]:
        """While the game waits for a line, the background renders nothing new."""
        with self._turn:
            self._wanted += 1
        try:
            yield
        finally:
            with self._turn:
                self._wanted -= 1
                self._turn.notify_all()

    # -- files --------------------------------------------------------------------------------

    def _words(self, text: str) -> str:
        return spoken(text, self.lang).strip()

    def _spelled(self, text: str) -> str:
        """Text around a part: numbers spelled, spaces and punctuation at its ends kept."""
        return spoken(text, self.lang)

    def _path(self, words: str, context: tuple[str, str, str] | None = None) -> Path:
        key = json.dumps(
            [
                self.renderer.name,
                self.renderer.version,
                self.voice.id,
                self.rate,
                words if context is None else ["in", *context],
                self.pronunciation.version,
                loudness.VERSION,
            ],
            ensure_ascii=False,
        )
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
        return self.folder / f"{digest}{SUFFIX}"

    def _usable(self, folder: Path) -> Path:
        problem = _writable(folder)
        if problem is None:
            return folder
        return self._fall_back(folder, problem)

    def _fall_back(self, folder: Path, problem: str) -> Path:
        if self._in_temp:
            raise ConfigError(
                f"cannot write speech files to {folder} ({problem}): free some disk space"
            )
        temp = Path(tempfile.mkdtemp(prefix="narrator-speech-"))
        atexit.register(shutil.rmtree, temp, ignore_errors=True)
        _LOGGER.warning(
            "speech cache %s is not usable (%s); rendering to %s for this run",
            folder,
            problem,
            temp,
        )
        self._in_temp = True
        if (still := _writable(temp)) is not None:
            raise ConfigError(f"cannot write speech files to {temp} ({still})")
        return temp

    def _render(self, words: str, context: tuple[str, str, str] | None = None) -> Path:
        """Render into a partial file, then rename: a cache file is always whole.

        With ``context`` (before, ``words``, after) the words are said inside it,
        where the engine can (``clip_in``).
        """
        attempts = 0
        while True:
            path = self._path(words, context)
            partial = path.with_name(
                f".{path.stem}.{os.getpid()}-{threading.get_ident()}.partial{path.suffix}"
            )
            problem = _room_problem(self.folder)
            if problem is not None:
                self.folder = self._fall_back(self.folder, problem)
                continue
            said = self.pronunciation.apply(words, self.renderer.name)
            try:
                if context is not None and isinstance(self.renderer, SpanEngine):
                    before, after = (
                        self.pronunciation.apply(text, self.renderer.name)
                        for text in (context[0], context[2])
                    )
                    audio = self.renderer.synthesize_span(
                        before, said, after, self.voice, self.rate
                    )
                else:
                    audio = self.renderer.synthesize(said, self.voice, self.rate)
                files.write_beside(path, functools.partial(write_clip, clip=audio), partial)
            except OSError as error:
                partial.unlink(missing_ok=True)
                problem = _room_problem(self.folder) or _writable(self.folder)
                if problem is not None:
                    self.folder = self._fall_back(self.folder, problem)
                    continue
                attempts += 1
                hung = error.errno == errno.ETIMEDOUT  # a hang is not waited for twice
                if attempts < 2 and not hung:  # the folder is fine: a second chance
                    _LOGGER.warning("rendering %r failed (%s); trying again", words, error)
                    continue
                reason = error.strerror or str(error)
                fallback = None
                if isinstance(error, LineFailed):
                    fallback = self._said_by_fallback(words, reason)
                if fallback is not None:  # that line costs the fallback voice, not the game
                    files.write_beside(path, functools.partial(write_clip, clip=fallback), partial)
                    self.rendered += 1
                    self.order.append(words if context is None else "\x00".join(context))
                    return path
                if self._hand_over(reason):
                    attempts = 0
                    continue
                raise ConfigError(f"the speech engine cannot render {words!r} ({reason})") from None
            except ConfigError as error:  # the engine itself is gone (a driver that stopped)
                partial.unlink(missing_ok=True)
                if self._hand_over(str(error)):
                    attempts = 0
                    continue
                raise
            self.rendered += 1
            self.order.append(words if context is None else "\x00".join(context))
            return path

    def _said_by_fallback(self, words: str, reason: str) -> Clip | None:
        """``words`` said by the next best voice, when the voice's engine crashed or hung
        on them (None: no other voice can); one warning names the line."""
        try:
            after = next_voice(self.lang, self.voice, {*self._failed, self.voice.driver})
        except ConfigError:
            return None
        if after is None:
            return None
        engine = self._fallback_engines.get(after.key)
        try:
            if engine is None:
                engine = self._fallback_engines[after.key] = engine_for(after)
            audio = engine.synthesize(
                self.pronunciation.apply(words, engine.name), after, self.rate
            )
        except (OSError, ConfigError) as error:
            _LOGGER.warning(
                "the fallback voice %s cannot say %r either (%s)", after.key, words, error
            )
            return None
        _LOGGER.warning(
            "the %s engine cannot say %r (%s); that line is said by %s",
            self.voice.driver,
            words[:80],
            reason,
            after.key,
        )
        return audio

    def _hand_over(self, reason: str) -> bool:
        """After the voice's engine failed twice: the next best voice speaks from now on."""
        if self._fixed_engine:
            return False
        self._failed.add(self.voice.driver)
        after = next_voice(self.lang, self.voice, self._failed)
        if after is None:
            return False
        _LOGGER.warning(
            "the %s engine fails (%s); speaking %s with %s from now on",
            self.voice.driver,
            reason,
            self.lang,
            after.key,
        )
        self.voice = after
        self.renderer = engine_for(after)
        return True

    def _remember(self, text: str, clip: Clip) -> None:
        size = clip.samples.nbytes
        with self._lock:
            if text in self._memory:
                return
            self._memory[text] = clip
            self._memory_bytes += size
            while self._memory_bytes > self._memory_limit and len(self._memory) > 1:
                _, old = self._memory.popitem(last=False)
                self._memory_bytes -= old.samples.nbytes


def _read(path: Path) -> Clip | None:
    """The audio of a cached file; None, and the file removed, when it is broken."""
    try:
        return read_clip(path)
    except OSError as error:
        _LOGGER.warning("speech file %s is unreadable (%s); rendering it again", path, error)
        path.unlink(missing_ok=True)
        return None
