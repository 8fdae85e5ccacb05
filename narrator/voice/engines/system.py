"""The system voices through pyttsx3 (espeak-ng, SAPI5, NSSS): one engine per driver.

pyttsx3 is only trusted with one job: one text → one file per ``runAndWait``
(queued saves write only the last file, ``say`` after a save overwrites it,
NSSS writes AIFF whatever the name).  One
worker thread per process owns the engine: espeak keeps one global synthesis
callback, so a second engine in the same process would steal the first one's
audio.  The file is written into a private temporary folder, read back and
removed: what the engine hands over is the audio with its sample rate.
"""

from __future__ import annotations

import contextlib
import importlib
import locale
import logging
import re
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from queue import Queue
from typing import Any
from typing import ClassVar
from typing import TypeVar

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice.audio_file import scratch_folder
from narrator.voice.audio_file import taken
from narrator.voice.engines import RENDER_TIMEOUT_S
from narrator.voice.engines import EngineInfo
from narrator.voice.engines import VoiceInfo
from narrator.voice.engines import quality
from narrator.voice.engines import system_driver
from narrator.voice.install import LANGUAGE_NAMES
from narrator.voice.install import engine_hint
from narrator.voice.install import require

_LOGGER = logging.getLogger(__name__)

T = TypeVar("T")

_NSSS_PREFIXES = ("com.apple.speech.synthesis.voice.", "com.apple.voice.", "com.apple.")


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
    return next((LANGUAGE_NAMES[w] for w in words if w in LANGUAGE_NAMES), "")


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


# --- the engine ------------------------------------------------------------------------------


def _close(actual: object, wanted: int) -> bool:
    """espeak reports the rate it speaks at; it may round the one it was given."""
    return isinstance(actual, int | float) and abs(actual - wanted) <= 2


def _nothing() -> None:
    return None


def _driver_print(*args: object, **_: object) -> None:
    # The espeak driver prints "Audio saved to …" after every file; stdout is the table's.
    _LOGGER.debug("pyttsx3: %s", " ".join(str(a) for a in args))


def _synth_within(espeak: Any) -> Callable[..., Any]:
    """pyttsx3's ``_espeak.Synth``, telling espeak the text's own size.

    pyttsx3 passes ten times the text's length as its size, and espeak-ng copies that
    many bytes into its queue: a read past the end of the text, which crashes the
    process now and then (seen once in a long test run: SIGSEGV inside Synth). The
    text is NUL-terminated by ctypes, so its size is its length plus one.
    """

    def synth(
        text: str | bytes,
        position: int = 0,
        position_type: int = 1,
        end_position: int = 0,
        flags: int = 0,
        user_data: Any = None,
    ) -> Any:
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        return espeak.cSynth(
            data, len(data) + 1, position, position_type, end_position, flags, None, user_data
        )

    synth.within = True  # type: ignore[attr-defined]  # patched once
    return synth


_Job = tuple[Callable[[Any], Any], "Future[Any]"]


class SystemEngine:
    """The process's one pyttsx3 engine of a driver, on its own thread: one text → one clip.

    The "system" speech engine: its name is the pyttsx3 driver's (espeak, sapi5, nsss).
    """

    version = "1"  # bump when the text or rate handling changes: cached speech is stale
    _shared: ClassVar[dict[str, SystemEngine]] = {}
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, driver: str | None = None) -> None:
        self.driver = driver or system_driver()
        self._jobs: Queue[_Job | None] = Queue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._start_error: ConfigError | None = None
        self._renders = 0
        self._voices: list[VoiceInfo] | None = None
        self._setting: tuple[str | None, int] | None = None
        self._folder: Path | None = None

    @classmethod
    def shared(cls, driver: str | None = None) -> SystemEngine:
        """The renderer for ``driver``: one per process, because drivers keep global state."""
        name = driver or system_driver()
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
        """How many lines this engine has said."""
        return self._renders

    @property
    def extension(self) -> str:
        """NSSS writes AIFF whatever the file is called; everything else writes WAV."""
        return ".aiff" if self.driver == "nsss" else ".wav"

    def info(self) -> EngineInfo:
        return EngineInfo(self.name, self.version, tuple(self.voices()))

    def voices(self) -> list[VoiceInfo]:
        if self._voices is None:
            self._voices = self._call(self._list_voices)
        return list(self._voices)

    def synthesize(self, text: str, voice: VoiceInfo | None, rate: int) -> Clip:
        """``text`` said by ``voice`` at ``rate`` wpm; OSError when nothing came."""

        def job(engine: Any) -> Clip:
            path = self._scratch() / f"line{self.extension}"
            return self._render(engine, text, path, voice, rate)

        return self._call(job)

    def close(self) -> None:
        """Stop the worker; the next call starts a new one."""
        with self._start_lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            thread.join(timeout=5)

    def _scratch(self) -> Path:
        """The private folder the driver writes its file into (only the worker uses it)."""
        if self._folder is None:
            self._folder = scratch_folder(self.driver)
        return self._folder

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
                f"{engine_hint(self.driver)}"
            ) from None
        module = sys.modules.get(f"pyttsx3.drivers.{self.driver}")
        if module is not None:
            module.print = _driver_print  # type: ignore[attr-defined]
        espeak: Any = sys.modules.get("pyttsx3.drivers._espeak")
        if espeak is not None and not getattr(espeak.Synth, "within", False):
            espeak.Synth = _synth_within(espeak)
        return engine

    def _list_voices(self, engine: Any) -> list[VoiceInfo]:
        voices: list[VoiceInfo] = []
        for voice in engine.getProperty("voices") or []:
            languages = list(getattr(voice, "languages", None) or [])
            voices.append(voice_info(self.driver, str(voice.id), voice.name, languages))
        return voices

    def _espeak_idle(self) -> None:
        espeak: Any = sys.modules.get("pyttsx3.drivers._espeak")
        if espeak is None:
            return
        deadline = time.monotonic() + RENDER_TIMEOUT_S
        while espeak.IsPlaying():
            if time.monotonic() > deadline:
                raise ConfigError(f"espeak did not finish a line in {RENDER_TIMEOUT_S:.0f} s")
            time.sleep(0.001)

    def _render(
        self, engine: Any, text: str, path: Path, voice: VoiceInfo | None, rate: int
    ) -> Clip:
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
        clip = taken(path, f"the {self.driver} speech engine wrote no audio")
        self._renders += 1
        return clip
