"""hibari: a small neural English voice (distilled from Kokoro) that ships inside its wheel.

Only the voices bundled in the package are offered: hibari fetches its other
voices from the internet on first use, and a table game must never wait for a
download (or fail without a network).  The model is loaded once per process, at
the first line (about 190 MB with onnxruntime), and renders at a real-time
factor of 0.02–0.05 on one core.  Its output is handed over as it comes, float
samples at 24 kHz; its ``speed`` follows the rate (1.0 at 170 words a minute, its own pace:
173 words a minute measured on a game's lines).  A fixed noise seed makes a
line render to the same samples every time.  Its output is quiet with silence
at both ends: the cache levels every clip it reads (``narrator.sound.loudness``).

A part of a voice pack can be said inside its sentence and cut out of it
(``synthesize_span``): the model predicts how long each phoneme lasts before it
draws the spectrum, and that tensor is made an output of the loaded model, so
the samples of the words are known exactly.  «Player number» cut out of
«Player number one, open your eyes…» keeps the pace and tune of the middle of a
sentence; said on its own it is a whole sentence with a falling end, and a
listener (and the Whisper judge) hears "Play your number" in the joined line.
"""

from __future__ import annotations

import errno
import importlib
import importlib.util
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.voice.engines import HIBARI
from narrator.voice.engines import EngineInfo
from narrator.voice.engines import VoiceInfo
from narrator.voice.engines import quality
from narrator.voice.install import engine_hint

_LOGGER = logging.getLogger(__name__)

NATURAL_RATE = 170
SPEEDS = (0.5, 2.0)  # the range hibari documents for ``speed``
SEED = 0
VERSION = "1"
# The phoneme durations inside hibari 0.2's model (frames of 2 hops each, one per
# phoneme id), made an output of the loaded model for ``synthesize_span``.
DURATIONS = "/Clip_output_0"
# How far a cut reaches past the words' own phonemes, each side.  The model draws
# 50 ms spectrum frames (n_fft 1200 at 24 kHz) around its 12.5 ms hops, so a
# phoneme's sound starts and ends up to 25 ms outside its frames, and a fricative
# onset («f» of «five») more; measured on the deal lines with the Whisper judge,
# 25 ms cut onsets off (CER 0.044), 40–50 ms kept them (0.007, 0.004), 75 ms took
# in the neighbouring word (0.051).
SPAN_MARGIN_S = 0.05
PUNCTUATION = ",.:;!?—…"


def with_output(model: bytes, name: str) -> bytes:
    """The ONNX ``model`` with its internal float tensor ``name`` made an output too.

    A protobuf parser merges a message field that appears twice, so a second
    ``graph`` field holding only the extra output (a ValueInfoProto: the name and
    a float tensor type) is appended to the bytes; nothing else changes, and the
    model computes exactly what it did.
    """

    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            low, n = n & 0x7F, n >> 7
            out.append(low | (0x80 if n else 0))
            if not n:
                return bytes(out)

    def field(number: int, payload: bytes) -> bytes:  # a length-delimited field
        return varint(number << 3 | 2) + varint(len(payload)) + payload

    float_tensor = field(1, varint(1 << 3) + varint(1))  # TypeProto.tensor_type.elem_type FLOAT
    value_info = field(1, name.encode()) + field(2, float_tensor)
    return model + field(7, field(12, value_info))  # ModelProto.graph.output


def _speed(rate: int) -> float:
    low, high = SPEEDS
    return min(max(rate / NATURAL_RATE, low), high)


class HibariEngine:
    """hibari's bundled voices; one model per voice, loaded once and kept for the process."""

    name = HIBARI
    version = VERSION

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, Any] = {}
        # voice → a second session of its model that also outputs the phoneme durations
        # (None: the model has none); hibari's own session must keep its six outputs.
        self._timed: dict[str, Any] = {}
        self._renders = 0
        self._voices: list[VoiceInfo] | None = None

    @property
    def renders(self) -> int:
        """How many lines this engine has said."""
        return self._renders

    @property
    def loaded(self) -> bool:
        """Whether a model is in memory now."""
        return bool(self._models)

    def _problem(self) -> str | None:
        for module in ("hibari", "onnxruntime"):
            if importlib.util.find_spec(module) is None:
                return f"hibari-tts is not installed ({module} is missing): {engine_hint(HIBARI)}"
        return None

    def info(self) -> EngineInfo:
        return EngineInfo(self.name, self.version, tuple(self.voices()))

    def voices(self) -> list[VoiceInfo]:
        """The voices inside the package (its other voices would be downloaded: not offered)."""
        if self._voices is None:
            problem = self._problem()
            if problem is not None:
                raise ConfigError(problem)
            registry = importlib.import_module("hibari.voices").VOICES
            voices = []
            for name, about in registry.items():
                if not about.get("bundled"):
                    continue
                tag = str(about.get("language", "en-US")).lower()
                accent = about.get("accent", "")
                gender = about.get("gender", "")
                voices.append(
                    VoiceInfo(
                        id=name,
                        name=f"hibari {name} ({accent} English, {gender})",
                        lang=tag.split("-")[0],
                        tag=tag,
                        native_id=name,
                        driver=HIBARI,
                        quality=quality(HIBARI, name),
                    )
                )
            self._voices = voices
        return list(self._voices)

    def _model(self, name: str) -> Any:
        model = self._models.get(name)
        if model is None:
            module = importlib.import_module("hibari")
            voices = importlib.import_module("hibari.voices")
            try:
                # download_missing=False: a voice that is not in the package fails here.
                file = voices.voice_path(name, download_missing=False)
                model = module.Hibari(voice=name, model=file, threads=1)
            except (ValueError, FileNotFoundError) as error:
                raise OSError(
                    errno.ENOENT, f"hibari has no voice {name!r} here ({error})"
                ) from None
            self._models[name] = model
        return model

    @staticmethod
    def _time(file: Path) -> Any:
        """A session of the model in ``file`` that also outputs the phoneme durations; None if
        the model has no such tensor."""
        try:
            raw = file.read_bytes()
            if DURATIONS.encode() not in raw:
                return None
            ort = importlib.import_module("onnxruntime")
            options = ort.SessionOptions()
            options.intra_op_num_threads = options.inter_op_num_threads = 1
            options.log_severity_level = 3
            return ort.InferenceSession(
                with_output(raw, DURATIONS), options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # any failure here: the parts are said on their own
            _LOGGER.info("hibari's phoneme durations are not available (%s)", error)
            return None

    def synthesize(self, text: str, voice: VoiceInfo | None, rate: int) -> Clip:
        """``text`` said by ``voice`` at ``rate`` wpm, at the model's rate; OSError if not."""
        name = voice.native_id if voice is not None else "heart"
        with self._lock:
            model = self._model(name)
            try:
                audio = np.asarray(model(text, speed=_speed(rate), seed=SEED), dtype=np.float32)
            except (RuntimeError, ValueError, KeyError) as error:
                raise OSError(errno.EIO, f"hibari could not say {text!r} ({error})") from None
            if audio.size == 0 or not np.isfinite(audio).all():
                raise OSError(errno.EIO, f"hibari said nothing for {text!r}")
            return self._clip(audio, model)

    def synthesize_span(
        self, before: str, words: str, after: str, voice: VoiceInfo | None, rate: int
    ) -> Clip:
        """Say ``before words after`` as one sentence and hand back only the ``words``.

        Where the durations cannot be had (another model, a sentence too long for
        one pass) the words are said on their own instead, as ``synthesize`` says them.
        """
        name = voice.native_id if voice is not None else "heart"
        with self._lock:
            model = self._model(name)
            audio = self._span(model, name, before, words, after, _speed(rate))
        if audio is None:
            return self.synthesize(words, voice, rate)
        return self._clip(audio, model)

    def _clip(self, audio: np.ndarray, model: Any) -> Clip:
        """``audio`` at the model's rate, in [-1, 1], counted as a render."""
        self._renders += 1
        mono = np.clip(audio, -1.0, 1.0).astype(np.float32).reshape(-1, 1)
        return Clip(np.ascontiguousarray(mono), int(getattr(model, "sample_rate", 24000)))

    def _span(
        self, model: Any, name: str, before: str, words: str, after: str, speed: float
    ) -> np.ndarray | None:
        if name not in self._timed:  # loaded at the first cut: a game never needs it
            self._timed[name] = self._time(Path(model.model_path))
        session = self._timed[name]
        if session is None:
            return None
        try:
            ids, (first, last) = _phoneme_ids(model, (before, words, after))
            if not ids or first >= last or len(ids) > _MAX_IDS:
                return None
            outputs = session.run(
                None,
                {"ids": np.asarray([ids], np.int64), "speed": np.asarray([speed], np.float32)},
            )
            spectrum, durations = outputs[:-1], np.asarray(outputs[-1]).astype(np.int64).ravel()
            frames = int(spectrum[0].shape[-1])
            total = int(durations.sum())
            if durations.size != len(ids) or total <= 0 or frames % total:
                return None  # not the durations of these phonemes: no cut
            dsp = importlib.import_module("hibari.dsp")
            audio = np.asarray(
                dsp.synth(*(out[0] for out in spectrum), np.random.default_rng(SEED)),
                dtype=np.float32,
            )
        except (RuntimeError, ValueError, KeyError, AttributeError, ImportError) as error:
            _LOGGER.warning("hibari could not say %r inside its sentence (%s)", words, error)
            return None
        per_unit = audio.size / total  # samples per duration unit (2 hops)
        starts = np.concatenate([[0], np.cumsum(durations)]) * per_unit
        margin = round(SPAN_MARGIN_S * int(getattr(model, "sample_rate", 24000)))
        begin = max(0, round(starts[first]) - margin)
        end = min(audio.size, round(starts[last]) + margin)
        return audio[begin:end] if end > begin else None

    def close(self) -> None:
        """Let the models go (their memory with them); the next line loads them again."""
        with self._lock:
            self._models.clear()
            self._timed.clear()


_MAX_IDS = 512  # the model's context; hibari splits longer sentences, a cut does not


def _phoneme_ids(model: Any, segments: tuple[str, str, str]) -> tuple[list[int], tuple[int, int]]:
    """The ids of the three texts said as one, and the range of ids (pads counted) of the middle
    one's sounds, without the spaces and punctuation around them."""
    vocab: dict[str, int] = model.vocab
    phonemes = ""
    middle = (0, 0)
    for index, segment in enumerate(segments):
        text = segment.strip()
        if not text:
            continue
        said = text if all(c in PUNCTUATION for c in text) else str(model.g2p(text)).strip()
        if phonemes and not said.startswith(tuple(PUNCTUATION)):
            phonemes += " "
        start = len(phonemes)
        phonemes += said
        if index == 1:
            middle = (start, len(phonemes))
    ids = [0]
    first = last = 0
    for position, char in enumerate(phonemes):
        if char not in vocab:
            continue
        ids.append(vocab[char])
        if middle[0] <= position < middle[1] and char != " " and char not in PUNCTUATION:
            if not first:
                first = len(ids) - 1
            last = len(ids)
    ids.append(0)
    return ids, (first, last)
