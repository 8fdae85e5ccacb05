"""The listening thread: audio blocks in, the text of each utterance out.

It owns the recogniser and never blocks the table: the table (through
``VoiceKeys``) says which grammar is open (``listen``), a gate says whether the
microphone may be heard (not while the narrator speaks, not at night), and
finished utterances come back through a queue tagged with the generation of the
prompt they were heard for, so a late result for an old prompt is dropped.

Both are judged by when a block was recorded, not by when it is read: a
listener that fell behind (a slow decode on a busy machine) reads audio said
before the open prompt opened, or while the narrator spoke, after the fact.
Such a block belongs to no open prompt: it is heard by none.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from narrator.listen.endpoint import Endpointer
from narrator.listen.endpoint import Stream
from narrator.listen.engine import ModelLoader
from narrator.listen.engine import Recogniser
from narrator.listen.engine import SpeechEngine
from narrator.listen.mic import AudioSource
from narrator.listen.words import Lexicon
from narrator.rules.errors import NarratorError

_LOGGER = logging.getLogger(__name__)

READ_S = 0.1


@dataclass(frozen=True)
class Utterance:
    """What was said while one grammar was open; ``at``: when its text was known."""

    generation: int
    text: str
    at: float


@dataclass(frozen=True)
class Notice:
    """A change the table should see: ``ready``, ``off`` (model problem), ``lost`` (microphone)."""

    kind: str
    reason: str = ""


class Listener:
    """Feeds the open grammar's recogniser from an audio source in its own thread."""

    def __init__(
        self,
        source: AudioSource,
        loader: ModelLoader,
        lexicon: Lexicon,
        *,
        endpointer: Endpointer | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.loader = loader
        self.lexicon = lexicon
        self.endpointer = endpointer or Endpointer()
        self.clock = clock
        self.gate: Callable[[float], bool] = lambda _recorded: True
        self.results: queue.Queue[Utterance] = queue.Queue()
        self.notices: queue.Queue[Notice] = queue.Queue()
        self._lock = threading.Lock()
        self._wanted: tuple[int, tuple[str, ...] | None, float] = (0, None, 0.0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="listener", daemon=True)
        self._recognisers: dict[tuple[str, ...], Recogniser] = {}

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        self.source.stop()

    def listen(self, generation: int, phrases: tuple[str, ...] | None) -> None:
        """Open this grammar for the prompt of ``generation`` (None: stop listening),
        for audio recorded from now on."""
        with self._lock:
            self._wanted = (generation, phrases, self.clock())

    # --- the thread ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop()
        except NarratorError as error:
            self.notices.put(Notice("off", str(error)))
        except Exception as error:  # never let a recogniser crash stall the table
            _LOGGER.exception("the listener stopped")
            self.notices.put(Notice("off", repr(error)))

    def _model(self) -> SpeechEngine | None:
        if not self.loader.done():
            return None
        return self.loader.wait(0)

    def _loop(self) -> None:
        model: SpeechEngine | None = None
        current: tuple[int, tuple[str, ...]] | None = None
        stream: Stream | None = None
        while not self._stop.is_set():
            block = self.source.read(READ_S)
            if block is None:
                problem = self.source.problem()
                if problem is not None:
                    self.notices.put(Notice("lost", problem))
                    return
                continue
            if model is None:
                model = self._model()
                if model is None:
                    continue
                self.notices.put(Notice("ready"))
            recorded = self.source.captured()
            with self._lock:
                generation, phrases, since = self._wanted
            if phrases is None or recorded < since or not self.gate(recorded):
                if stream is not None and current is not None:
                    # The gate closed on an utterance: what was said, if it was words at all.
                    self._emit(current[0], stream.cut())
                continue
            if stream is None or current != (generation, phrases):
                if stream is not None:
                    stream.reset()
                stream = Stream(self._recogniser(model, phrases), self.endpointer)
                stream.reset()
                current = (generation, phrases)
            self._emit(generation, stream.push(block))

    def _recogniser(self, model: SpeechEngine, phrases: tuple[str, ...]) -> Recogniser:
        if phrases not in self._recognisers:
            self._recognisers[phrases] = model.recogniser(model.usable(phrases, self.lexicon))
        return self._recognisers[phrases]

    def _emit(self, generation: int, text: str | None) -> None:
        if text:
            self.results.put(Utterance(generation, text, self.clock()))
