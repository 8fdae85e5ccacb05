"""``narrator hear``: recordings decoded exactly as a live game decodes a spoken answer.

Each file is read as 16 kHz mono PCM (WAV, FLAC, Ogg: ``read_wav``), cut into the
listener's 50 ms blocks and pushed through the same :class:`~narrator.listen.endpoint.Stream`
(endpointer, voice activity, the open prompt's grammar, the engine a game of the language
uses) and read by the same ``Reading`` the table's ``VoiceKeys`` reads with: the first
utterance that means something at the prompt is the answer (the rest only show "not
understood"), and «я выставляю игрока», a pause, then a number counts as a nomination when
the number comes within ``ARMED_S`` of audio. Files are heard one after another by one
engine, as the answers of one game are.

Every file is checked (a regular sound file under its cap) and the engine chosen before
anything is decoded: bad input is one line and exit code 2, with nothing printed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from narrator.listen.answer_kinds import ANSWERS
from narrator.listen.corpus import listened
from narrator.listen.corpus import prompt_for
from narrator.listen.endpoint import Decoded
from narrator.listen.endpoint import Stream
from narrator.listen.endpoint import decode
from narrator.listen.engines import choose
from narrator.listen.mic import read_wav
from narrator.listen.words import Lexicon
from narrator.listen.words import Reading
from narrator.listen.words import lexicon_for
from narrator.rules import codec
from narrator.rules.errors import ConfigError
from narrator.rules.prompts import Prompt

END = ""  # «спасибо»: the keypad's empty Enter, which ends a speech


@dataclass(frozen=True)
class Verdict:
    """What one recording gave: every utterance's text, the answer taken (keypad form;
    None: not understood) and the latency of the utterance that decided it."""

    file: str
    heard: tuple[str, ...]
    answer: str | None
    latency_s: float | None

    @property
    def understood(self) -> bool:
        return self.answer is not None

    def as_json(self) -> str:
        return json.dumps(
            {
                "file": self.file,
                "heard": " ".join(self.heard),
                "answer": self.answer,
                "understood": self.understood,
                "latency_s": None if self.latency_s is None else round(self.latency_s, 3),
            },
            ensure_ascii=False,
        )

    def line(self) -> str:
        heard = f"«{' '.join(self.heard)}»" if self.heard else "nothing"
        if self.answer is None:
            taken = "not understood"
        elif self.answer == END:
            taken = "end of speech (Enter)"
        else:
            taken = self.answer
        latency = "" if self.latency_s is None else f" ({self.latency_s:.2f} s)"
        return f"{self.file}: heard {heard} → {taken}{latency}"


def taken(
    found: Sequence[Decoded], prompt: Prompt | None, lexicon: Lexicon
) -> tuple[str | None, Decoded | None]:
    """The answer the table would get from these utterances, as ``VoiceKeys`` takes it
    (its keypad form, ``END`` for «спасибо», None: nothing), and the utterance that gave
    it (or the last one: the one whose "not understood" came last)."""
    reading = Reading(prompt, lexicon)
    for utterance in found:
        heard = reading.read(utterance.text, utterance.at_s)
        if heard.answer is not None and prompt is not None:
            return ".".join(codec.to_keys(heard.answer, prompt)), utterance
        if heard.end:
            return END, utterance
    return None, found[-1] if found else None


def hear_command(
    files: Sequence[Path],
    lang: str,
    answer: str,
    out: TextIO,
    *,
    asr: str | None = None,
    as_json: bool = False,
    folder: Path | None = None,
) -> int:
    """Print what each file was heard as at an ``answer`` prompt (one line, or JSON)."""
    if answer not in ANSWERS:
        raise ConfigError(f"--answer {answer!r}: not a kind of answer; kinds: {', '.join(ANSWERS)}")
    kind = ANSWERS[answer]
    lexicon = lexicon_for(lang)
    choice = choose(lang, asr, None, folder)
    recordings = [(path, read_wav(path)) for path in files]  # every file checked first
    engine = choice.load()
    engine.check(lexicon)
    prompt = prompt_for(kind)
    phrases = engine.usable(listened(kind, lexicon), lexicon)
    for path, pcm in recordings:
        found = decode(Stream(engine.recogniser(phrases)), pcm)
        keys, deciding = taken(found, prompt, lexicon)
        verdict = Verdict(
            str(path),
            tuple(u.text for u in found),
            keys,
            None if deciding is None else deciding.latency_s,
        )
        out.write((verdict.as_json() if as_json else verdict.line()) + "\n")
        out.flush()
    return 0
