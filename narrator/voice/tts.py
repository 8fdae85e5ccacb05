"""Speech rendered once to files by the voice's engine, then played from memory.

``SpeechCache`` renders each line with the engine of its voice (Festival,
hibari or the system voices: ``narrator.voice.engines``), after the line's
numbers are spelled out (``numbers.spoken``) and its words written the way that
engine says them right (``pronounce``), and levels every clip it reads
(``sound.loudness``).  This module also holds the system engine: pyttsx3.

pyttsx3 is only trusted with one job: one text → one file per ``runAndWait``
(queued saves write only the last file, ``say`` after a save overwrites it,
NSSS writes AIFF whatever the name; see ../shared/notes/virtual-audio.md).  One
worker thread per process owns the engine: espeak keeps one global synthesis
callback, so a second engine in the same process would steal the first one's
audio.  Files are cached under the user's cache folder, named by a hash of
(engine, voice, rate, spoken text, and the versions of the engine's text
handling, the pronunciation and the levelling); a warm line is a dictionary
lookup.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import hashlib
import importlib
import itertools
import json
import locale
import logging
import math
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import tomllib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from importlib import resources
from pathlib import Path
from queue import Queue
from types import ModuleType
from typing import Any, ClassVar, TypeVar

import numpy as np

from narrator.rules.core import Param, RoleName
from narrator.rules.errors import ConfigError
from narrator.rules.registry import Variant, get_variant, known_names
from narrator.sound import loudness
from narrator.sound.clip import Clip
from narrator.voice import engines
from narrator.voice.catalog import load_catalog, placeholders
from narrator.voice.engines import Engine, SpanEngine, VoiceInfo, engine_for, is_named, quality
from narrator.voice.numbers import spoken
from narrator.voice.pronounce import pronunciation

__all__ = ["VoiceInfo", "is_named"]  # re-exported: their home is narrator.voice.engines

_LOGGER = logging.getLogger(__name__)

T = TypeVar("T")

# pyttsx3's own default (200 wpm) is hurried for announcements read to a table.
DEFAULT_RATE = 170
RATES = range(60, 451)
# Below this much free space the cache counts as full (a line is 50–300 KB).
MIN_FREE_BYTES = 8 * 1024 * 1024
# Clips kept decoded in memory; about four variants' worth of lines at 22 kHz.
MEMORY_BYTES = 160 * 1024 * 1024
RENDER_TIMEOUT_S = 60.0

_HINTS = {
    "pyttsx3": "pip install pyttsx3",
    "soundfile": "pip install soundfile",
    "sounddevice": "pip install sounddevice",
}

_LANGUAGE_NAMES = {
    "russian": "ru",
    "english": "en",
    "german": "de",
    "french": "fr",
    "spanish": "es",
    "italian": "it",
    "ukrainian": "uk",
    "polish": "pl",
    "portuguese": "pt",
    "dutch": "nl",
    "chinese": "zh",
    "japanese": "ja",
    "korean": "ko",
}
_SPOKEN_NAMES = {code: name.title() for name, code in _LANGUAGE_NAMES.items()}
_DRIVER_HINTS = {
    "espeak": "apt-get install espeak-ng",
    "sapi5": "pip install comtypes pywin32",
    "nsss": "pip install pyobjc",
}
_NSSS_PREFIXES = ("com.apple.speech.synthesis.voice.", "com.apple.voice.", "com.apple.")


def require(module: str) -> ModuleType:
    """Import a heavy library at the moment it is needed; missing → the exact install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        if error.name != module:
            raise
        hint = _HINTS.get(module, f"pip install {module}")
        raise ConfigError(f"{module} is not installed: {hint}") from None


def default_driver() -> str:
    """The pyttsx3 driver of this platform (the same choice pyttsx3 makes)."""
    return engines.system_driver()


def install_hint(lang: str) -> str:
    """What to install for a voice of ``lang`` on this platform, as one phrase."""
    name = _SPOKEN_NAMES.get(lang, lang)
    if sys.platform == "win32":
        return (
            f"add the {name} language pack with its speech voice "
            "(Settings › Time & language › Language & region)"
        )
    if sys.platform == "darwin":
        return (
            f"add a {name} voice in System Settings › Accessibility › Spoken Content "
            "› System voice › Manage Voices"
        )
    return "install espeak-ng (apt-get install espeak-ng), it speaks ru and en"


# --- voices ----------------------------------------------------------------------------------


def _lcid_language(lcid: int) -> str | None:
    name = locale.windows_locale.get(lcid)
    if name is None:
        primary = lcid & 0x3FF
        name = next((n for i, n in locale.windows_locale.items() if i & 0x3FF == primary), None)
    return name.split("_")[0].lower() if name else None


def language_tag(raw: object) -> str:
    """A driver's language (espeak 'en-gb', NSSS 'ru_RU', SAPI LCID '419') as 'ru-ru' form."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="ignore").lstrip("\x00\x01\x02\x03\x04\x05\x06\x07")
    if isinstance(raw, int):
        return (locale.windows_locale.get(raw) or "").replace("_", "-").lower() or str(raw)
    text = str(raw).strip().split(";")[0].strip().lower()
    # A Windows LCID: hex from SAPI attributes ("419"), decimal in pyttsx3's "Unknown Locale".
    number = re.fullmatch(r"(unknown locale:\s*)?(0x)?(?=[0-9a-f]*[0-9])([0-9a-f]+)", text)
    if number:
        unknown, hexmark, digits = number.groups()
        if unknown:
            candidates = [int(digits)]
        elif hexmark or not digits.isdigit():
            candidates = [int(digits, 16)]
        else:
            candidates = [int(digits, 16), int(digits)]
        for lcid in candidates:
            if lcid in locale.windows_locale:
                return locale.windows_locale[lcid].replace("_", "-").lower()
        return next((lang for lcid in candidates if (lang := _lcid_language(lcid))), "")
    return text.replace("_", "-").lower()


def normalise_language(raw: object) -> str:
    """'ru', 'en', … for any driver's language value; '' when it cannot be told."""
    tag = language_tag(raw)
    head = tag.split("-")[0]
    if re.fullmatch(r"[a-z]{2,3}", head):
        return head
    words = re.findall(r"[a-z]+", tag)
    return next((_LANGUAGE_NAMES[w] for w in words if w in _LANGUAGE_NAMES), "")


def normalise_voice_id(driver: str, native_id: str) -> str:
    """A short stable id: espeak 'zle/ru', SAPI5 token name, NSSS name without the prefix."""
    if driver == "sapi5":
        return native_id.rsplit("\\", 1)[-1].lower()
    if driver in ("nsss", "avspeech"):
        lowered = native_id.lower()
        for prefix in _NSSS_PREFIXES:
            if lowered.startswith(prefix):
                return lowered.removeprefix(prefix)
        return lowered
    return native_id.lower()


def voice_info(
    driver: str, native_id: str, name: str | None, languages: Sequence[object]
) -> VoiceInfo:
    """One driver voice in the normalised form; the language comes from the first known one."""
    tags = [language_tag(raw) for raw in languages]
    langs = [normalise_language(raw) for raw in languages]
    lang = next((code for code in langs if code), "")
    if not lang:
        lang = normalise_language(name or "")
    tag = next((t for t, code in zip(tags, langs, strict=True) if code), lang)
    voice_id = normalise_voice_id(driver, native_id)
    return VoiceInfo(
        id=voice_id,
        name=name or native_id,
        lang=lang,
        tag=tag,
        native_id=native_id,
        driver=driver,
        quality=quality(driver, voice_id),
    )


def choose_voice(
    lang: str, wanted: str | None = None, voices: Sequence[VoiceInfo] | None = None
) -> VoiceInfo:
    """The voice for ``lang``: ``wanted`` when it exists, else the best, with a warning.

    ``wanted`` is ``ENGINE:VOICE``, an engine alone (its best voice), or a bare
    voice id, engine id or name.  Without ``voices``, every engine's voices are
    asked, and an engine that is missing but would speak ``lang`` better than the
    voice chosen is named once, with how to install it.
    """
    if voices is not None:
        return engines.choose(lang, wanted, voices, no_voice=install_hint(lang))
    found = engines.survey()
    return engines.choose(lang, wanted, found.voices, found.missing, install_hint(lang))


def list_voices() -> list[VoiceInfo]:
    """Every voice of every engine that runs here (Festival, hibari, the system voices)."""
    return engines.survey().voices


# --- the renderer ----------------------------------------------------------------------------


def _close(actual: object, wanted: int) -> bool:
    """espeak reports the rate it speaks at; it may round the one it was given."""
    return isinstance(actual, int | float) and abs(actual - wanted) <= 2


def _nothing() -> None:
    return None


def _driver_print(*args: object, **_: object) -> None:
    # The espeak driver prints "Audio saved to …" after every file; stdout is the table's.
    _LOGGER.debug("pyttsx3: %s", " ".join(str(a) for a in args))


_Job = tuple[Callable[[Any], Any], "Future[Any]"]


class SpeechRenderer:
    """The process's one pyttsx3 engine, on its own thread: one text → one audio file.

    The "system" speech engine: its name is the pyttsx3 driver's (espeak, sapi5, nsss).
    """

    version = "1"  # bump when the text or rate handling changes: cached speech is stale
    _shared: ClassVar[dict[str, SpeechRenderer]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, driver: str | None = None) -> None:
        self.driver = driver or default_driver()
        self._jobs: Queue[_Job | None] = Queue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._start_error: ConfigError | None = None
        self._renders = 0
        self._voices: list[VoiceInfo] | None = None
        self._setting: tuple[str | None, int] | None = None

    @classmethod
    def shared(cls, driver: str | None = None) -> SpeechRenderer:
        """The renderer for ``driver``: one per process, because drivers keep global state."""
        name = driver or default_driver()
        with cls._shared_lock:
            renderer = cls._shared.get(name)
            if renderer is None:
                renderer = cls._shared[name] = cls(name)
            return renderer

    @property
    def name(self) -> str:
        """The engine's name, as ``--voice ENGINE:VOICE`` writes it: the driver's."""
        return self.driver

    @property
    def renders(self) -> int:
        """How many files this renderer has written."""
        return self._renders

    @property
    def extension(self) -> str:
        """NSSS writes AIFF whatever the file is called; everything else writes WAV."""
        return ".aiff" if self.driver == "nsss" else ".wav"

    def voices(self) -> list[VoiceInfo]:
        if self._voices is None:
            self._voices = self._call(self._list_voices)
        return list(self._voices)

    def render(self, text: str, path: Path, voice: VoiceInfo | None, rate: int) -> None:
        """Write ``text`` by ``voice`` at ``rate`` wpm to ``path``; OSError when nothing came."""

        def job(engine: Any) -> None:
            self._render(engine, text, path, voice, rate)

        self._call(job)

    def close(self) -> None:
        """Stop the worker; the next call starts a new one."""
        with self._start_lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            thread.join(timeout=5)

    # -- the worker ---------------------------------------------------------------------------

    def _call(self, work: Callable[[Any], T]) -> T:
        self._ensure_started()
        future: Future[T] = Future()
        self._jobs.put((work, future))
        try:
            return future.result(timeout=RENDER_TIMEOUT_S)
        except FutureTimeout:
            raise ConfigError(
                f"the {self.driver} speech engine gave no answer in {RENDER_TIMEOUT_S:.0f} s"
            ) from None

    def _ensure_started(self) -> None:
        with self._start_lock:
            if self._start_error is not None:
                raise ConfigError(str(self._start_error))
            if self._thread is not None:
                return
            started: Future[None] = Future()
            thread = threading.Thread(
                target=self._run, args=(started,), name=f"speech-{self.driver}", daemon=True
            )
            thread.start()
            try:
                started.result(timeout=RENDER_TIMEOUT_S)
            except ConfigError as error:
                self._start_error = error
                raise
            self._thread = thread

    def _run(self, started: Future[None]) -> None:
        try:
            engine = self._start_engine()
        except ConfigError as error:
            started.set_exception(error)
            return
        started.set_result(None)
        while (job := self._jobs.get()) is not None:
            work, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(work(engine))
            except BaseException as error:  # handed to the caller's thread
                future.set_exception(error)

    def _start_engine(self) -> Any:
        pyttsx3 = require("pyttsx3")
        if self.driver == "sapi5":
            with contextlib.suppress(ImportError):
                importlib.import_module("pythoncom").CoInitialize()
        try:
            engine = pyttsx3.Engine(self.driver)
        except (ImportError, OSError, RuntimeError) as error:
            raise ConfigError(
                f"the {self.driver} speech driver does not start ({error}): "
                f"{_DRIVER_HINTS.get(self.driver, 'pip install pyttsx3')}"
            ) from None
        module = sys.modules.get(f"pyttsx3.drivers.{self.driver}")
        if module is not None:
            module.print = _driver_print  # type: ignore[attr-defined]
        return engine

    def _list_voices(self, engine: Any) -> list[VoiceInfo]:
        voices: list[VoiceInfo] = []
        for voice in engine.getProperty("voices") or []:
            languages = list(getattr(voice, "languages", None) or [])
            voices.append(voice_info(self.driver, str(voice.id), voice.name, languages))
        return voices

    def _espeak_idle(self) -> None:
        espeak = sys.modules.get("pyttsx3.drivers._espeak")
        if espeak is None:
            return
        deadline = time.monotonic() + RENDER_TIMEOUT_S
        while espeak.IsPlaying():
            if time.monotonic() > deadline:
                raise ConfigError(f"espeak did not finish a line in {RENDER_TIMEOUT_S:.0f} s")
            time.sleep(0.001)

    def _render(
        self, engine: Any, text: str, path: Path, voice: VoiceInfo | None, rate: int
    ) -> None:
        # pyttsx3 starts espeak in AUDIO_OUTPUT_RETRIEVAL mode: synthesis, parameter changes
        # and the callback that writes the file run on espeak's own thread, and runAndWait
        # returns without waiting for them.  Waiting for espeak to be idle after each step
        # keeps a file from being read half-written and a rate change from landing late.
        settle = self._espeak_idle if self.driver == "espeak" else _nothing
        setting = (voice.native_id if voice else None, rate)
        for _ in range(2):
            if setting != self._setting:
                if voice is not None:
                    engine.setProperty("voice", voice.native_id)
                engine.setProperty("rate", rate)
                settle()
                self._setting = setting
            path.unlink(missing_ok=True)
            engine.save_to_file(text, str(path))
            engine.runAndWait()
            settle()
            # A property change that did not land (a line at espeak's default 200 words a
            # minute was seen once in a long game) is set again and the line rendered again.
            if self.driver != "espeak" or _close(engine.getProperty("rate"), rate):
                break
            self._setting = None
        size = path.stat().st_size if path.exists() else 0
        if size <= 64:
            raise OSError(errno.EIO, f"the {self.driver} speech engine wrote no audio", str(path))
        self._renders += 1


# --- the cache -------------------------------------------------------------------------------


def default_cache_folder() -> Path:
    platformdirs = importlib.import_module("platformdirs")
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
        self.pronunciation = pronunciation(lang)
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
        return self.folder / f"{digest}{self.renderer.extension}"

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
                    self.renderer.render_span(before, said, after, partial, self.voice, self.rate)
                else:
                    self.renderer.render(said, partial, self.voice, self.rate)
                os.replace(partial, path)
            except OSError as error:
                partial.unlink(missing_ok=True)
                problem = _room_problem(self.folder) or _writable(self.folder)
                if problem is not None:
                    self.folder = self._fall_back(self.folder, problem)
                    continue
                attempts += 1
                if attempts < 2:  # the folder is fine: give the engine a second chance
                    _LOGGER.warning("rendering %r failed (%s); trying again", words, error)
                    continue
                reason = error.strerror or str(error)
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

    def _hand_over(self, reason: str) -> bool:
        """After the voice's engine failed twice: the next best voice speaks from now on."""
        if self._fixed_engine:
            return False
        self._failed.add(self.voice.driver)
        after = engines.next_voice(self.lang, self.voice, self._failed)
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
    """The audio of a cached file (WAV or AIFF); None, and the file removed, when it is broken."""
    soundfile = require("soundfile")
    try:
        samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
        _LOGGER.warning("speech file %s is unreadable (%s); rendering it again", path, error)
        path.unlink(missing_ok=True)
        return None
    return Clip(np.ascontiguousarray(samples, dtype=np.float32), int(rate))


# --- what a game may say --------------------------------------------------------------------

# Sections that are only ever shown on the screen, never spoken.
SILENT_SECTIONS = frozenset(
    {
        "screen",
        "reason",
        "prompt",
        "label",
        "secret",
        "role",
        "winner",
        "tui",
        "setup",
        "shown",
        "keys",
        "answer",
        "cause",
    }
)
# The sections of common.toml that a game speaks from (the rest is screen text).
SPOKEN_SHARED = frozenset({"deal", "timer", "reveal", "undo"})
# A variant whose catalog section is not called like the variant.
SECTION_OF = {"sport_mafia": "sport"}
DEFAULT_SEATS = 12
CENTER_CARDS = range(1, 6)  # onenight's centre_cards switch: 1–5
CYCLES = range(1, 31)  # halloween's cycle_limit switch: 1–30
# A line with more combinations than this is rendered on demand at game time.
MOST_COMBINATIONS = 200


def _tables(lang: str, file: str) -> list[str]:
    part = resources.files("narrator.voice").joinpath("lines", lang, file)
    if not part.is_file():
        return []
    return [name for name, value in tomllib.loads(part.read_text("utf-8")).items() if value]


def _sections(lang: str, variant: Variant) -> list[str]:
    """The catalog sections a game of ``variant`` speaks from: its own, then the shared ones."""
    own = [*_tables(lang, f"{variant.name}.toml"), SECTION_OF.get(variant.name, variant.name)]
    shared = [s for s in _tables(lang, "common.toml") if s in SPOKEN_SHARED]
    return [s for s in dict.fromkeys([*own, *shared]) if s not in SILENT_SECTIONS]


def spoken_keys(lang: str, variant: str | None) -> list[str]:
    """Every catalog key a game of ``variant`` (None: of any game) may say, in catalog order."""
    catalog = load_catalog(lang)
    names = [variant] if variant is not None else list(known_names())
    sections: set[str] = set()
    for name in names:
        sections.update(_sections(lang, get_variant(name)))
    return [key for key in catalog.lines if key.split(".", 1)[0] in sections]


def _domains(variant: Variant) -> dict[str, Sequence[Param]]:
    seats = variant.seat_counts
    last = seats.stop - 1 if len(seats) else DEFAULT_SEATS
    return {
        "seat": range(1, last + 1),
        "players": seats,
        "count": range(0, last + 1),
        "center": CENTER_CARDS,
        "index": CENTER_CARDS,
        "cycles": CYCLES,
        "role": [RoleName(role) for role in variant.roles],
    }


def _fillings(
    names: frozenset[str], domains: Mapping[str, Sequence[Param]]
) -> Iterator[dict[str, Param]]:
    order = sorted(names)
    for values in itertools.product(*(domains[name] for name in order)):
        yield dict(zip(order, values, strict=True))


def lines_to_render(lang: str, variant: str | None) -> list[str]:
    """Every displayed line a game of ``variant`` (None: any game) may say, each once.

    Placeholders are filled over practical domains: seats 1…the variant's largest
    table, roles of the variant, small counts.  Lines with a ``{seats}`` list, with
    a placeholder of no known domain (halloween's free composition) or with more
    than MOST_COMBINATIONS fillings are left out: they are rendered when said.
    """
    catalog = load_catalog(lang)
    names = [variant] if variant is not None else list(known_names())
    texts: dict[str, None] = {}
    for name in names:
        rules = get_variant(name)
        domains = _domains(rules)
        for key in spoken_keys(lang, name):
            wanted = placeholders(catalog.lines[key])
            if not wanted <= domains.keys():
                continue
            if math.prod(len(domains[p]) for p in wanted) > MOST_COMBINATIONS:
                continue
            for params in _fillings(wanted, domains):
                texts[catalog.text(key, params)] = None
    return list(texts)
