"""Spoken words at a day prompt: the grammar to listen for, and what was meant.

Pure functions over text. A :class:`Lexicon` is one language's table words
(seat numbers, «никого», «воздерживаюсь», «да/нет», «спасибо», …) as data;
:func:`grammar` lists only the phrases that make sense at the open prompt, so
the recogniser cannot hear anything else, and :func:`interpret` turns what it
heard into the same answer text a keypad would produce ("7", "none",
"abstain", "yes", "3") — or into nothing when it is unclear.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from enum import Enum
from functools import cache

from narrator.rules import codec
from narrator.rules.answers import AnswerKind
from narrator.rules.prompts import Prompt
from narrator.voice.catalog import load_words

UNKNOWN = "[unk]"  # Vosk's word for speech outside the grammar
LARGEST_NUMBER = 12  # seats and hand counts go up to twelve


class Word(Enum):
    """What a recognised word (or phrase) stands for at a prompt."""

    NUMBER = "number"
    NOBODY = "nobody"
    ABSTAIN = "abstain"
    YES = "yes"
    NO = "no"
    THANKS = "thanks"
    REPEAT = "repeat"
    NOMINATE = "nominate"
    FILLER = "filler"


@dataclass(frozen=True)
class Lexicon:
    """One language's words at the table, spelled as the speech model spells them.

    ``numbers`` maps a number phrase to its value (0–12). ``nominate`` holds the
    words that mark a nomination («выставляю»); ``nominate_phrases`` the whole
    phrases given to the recogniser («я выставляю игрока номер»). ``fillers`` are
    words that carry no meaning here («игрок», «номер», «ну»); they are
    optional: a filler the model does not know is left out of the grammar. Keep
    them few and long: short ones («и», "uh") soak up the vowels of numbers.
    ``messages`` are the screen lines of the voice input in this language.
    """

    lang: str
    numbers: Mapping[str, int]
    nobody: tuple[str, ...]
    abstain: tuple[str, ...]
    yes: tuple[str, ...]
    no: tuple[str, ...]
    thanks: tuple[str, ...]
    repeat: tuple[str, ...]
    nominate: tuple[str, ...]
    nominate_phrases: tuple[str, ...]
    fillers: tuple[str, ...]
    messages: Mapping[str, str] = field(default_factory=dict)

    def number_word(self, value: int) -> str:
        return next(phrase for phrase, n in self.numbers.items() if n == value)

    def required_words(self) -> tuple[str, ...]:
        """Every word the model must know, fillers aside, in a stable order."""
        phrases = (
            *self.numbers,
            *self.nobody,
            *self.abstain,
            *self.yes,
            *self.no,
            *self.thanks,
            *self.repeat,
            *self.nominate,
            *self.nominate_phrases,
        )
        return _unique(word for phrase in phrases for word in phrase.split())

    def message(self, key: str, **params: object) -> str:
        return self.messages[key].format(**params)


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _alternatives(words: Mapping[str, str], key: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in words.get(key, "").split("|") if part.strip())


def lexicon_from(lang: str, words: Mapping[str, str], messages: Mapping[str, str]) -> Lexicon:
    """Build a lexicon from the ``words.*`` entries of a catalog (see voice/lines/*/words.toml)."""
    numbers = {
        text: int(key.removeprefix("words.number."))
        for key, text in words.items()
        if key.startswith("words.number.")
    }

    def pick(name: str) -> tuple[str, ...]:
        return _alternatives(words, f"words.{name}")

    return Lexicon(
        lang=lang,
        numbers=dict(sorted(numbers.items(), key=lambda item: item[1])),
        nobody=pick("nobody"),
        abstain=pick("abstain"),
        yes=pick("yes"),
        no=pick("no"),
        thanks=pick("thanks"),
        repeat=pick("repeat"),
        nominate=pick("nominate"),
        nominate_phrases=pick("nominate_phrases"),
        fillers=pick("fillers"),
        messages=messages,
    )


def _messages(words: Mapping[str, str]) -> dict[str, str]:
    prefix = "words.message."
    return {key.removeprefix(prefix): text for key, text in words.items() if key.startswith(prefix)}


@cache
def lexicon_for(lang: str) -> Lexicon:
    """One language's spoken words (a language without screen messages borrows English's)."""
    words = load_words(lang)
    messages = _messages(words) or _messages(load_words("en"))
    return lexicon_from(lang, words, messages)


# --- the grammar ----------------------------------------------------------------------------


def is_day_prompt(prompt: Prompt) -> bool:
    """Whether the rules let ``prompt`` be answered aloud (a day prompt, never a night one)."""
    return prompt.spoken and not prompt.calls


def grammar(prompt: Prompt | None, lexicon: Lexicon, *, speech: bool = False) -> tuple[str, ...]:
    """The phrases to listen for at ``prompt`` (None: a speech with no question open).

    Only the words that mean something now (every seat number of the table at a
    seat prompt: the rules judge which one may be chosen), plus «повтори», the
    fillers and ``[unk]`` (which soaks up everything else); «спасибо» only where
    it ends something: in a ``speech`` (a public countdown the prompt is open in)
    or with no prompt. At
    a vote it would mean nothing, and a word that means nothing only competes
    with the answers ("six" heard as "thanks", Whisper's "thank you" on noise).
    """
    phrases: list[str] = []
    if prompt is not None:
        accepts = prompt.accepts
        if accepts & {AnswerKind.SEAT, AnswerKind.SEATS, AnswerKind.COUNT, AnswerKind.NOBODY}:
            heard = set(codec.numbers(prompt, LARGEST_NUMBER))  # once, not per phrase
            if accepts & {AnswerKind.SEAT, AnswerKind.SEATS}:
                # Every seat of the table, not only the ones the rules allow now: a seat
                # they refuse (one's own, a dead one) is heard and refused with their
                # reason, as on the keypad. Left out, it was heard as a filler ("four" as
                # "for"), as nothing, or as another seat («четыре» as «девять»).
                heard |= set(range(1, min(prompt.seat_count, LARGEST_NUMBER) + 1))
            phrases += [p for p, n in lexicon.numbers.items() if n in heard]
        if AnswerKind.NOBODY in accepts or AnswerKind.COUNT in accepts:
            phrases += lexicon.nobody
        if AnswerKind.ABSTAIN in accepts:
            phrases += lexicon.abstain
        if AnswerKind.YES_NO in accepts:
            phrases += [*lexicon.yes, *lexicon.no]
        if prompt.mark == "nominate":
            phrases += [*lexicon.nominate_phrases, *lexicon.nominate]
    if speech or prompt is None:
        phrases += lexicon.thanks
    phrases += [*lexicon.repeat, *lexicon.fillers, UNKNOWN]
    return _unique(phrases)


# --- what was meant -------------------------------------------------------------------------


@dataclass(frozen=True)
class Heard:
    """One recognised utterance, read at one prompt.

    ``answer`` is the answer text for the table (None: no answer in it);
    ``end`` means «спасибо» (the speech is over); ``repeat`` asks for the last
    line again; ``unclear`` means it sounded like an answer but could not be
    read as one (out-of-grammar words, two different numbers); ``arms`` means
    a nomination phrase with no number yet (the number may follow after a pause).
    """

    text: str
    answer: str | None = None
    end: bool = False
    repeat: bool = False
    unclear: bool = False
    arms: bool = False


def _normalise(text: str) -> list[str]:
    return text.lower().replace("ё", "е").split()


def _phrase_table(lexicon: Lexicon, yes_no: bool) -> dict[tuple[str, ...], tuple[Word, int]]:
    table: dict[tuple[str, ...], tuple[Word, int]] = {}

    def put(phrases: tuple[str, ...] | list[str], word: Word, value: int = 0) -> None:
        for phrase in phrases:
            table.setdefault(tuple(_normalise(phrase)), (word, value))

    for phrase, value in lexicon.numbers.items():
        put([phrase], Word.NUMBER, value)
    if yes_no:  # «за» is "yes" only where yes/no is asked; elsewhere it is a filler
        put(lexicon.yes, Word.YES)
        put(lexicon.no, Word.NO)
    put(lexicon.nobody, Word.NOBODY)
    put(lexicon.abstain, Word.ABSTAIN)
    put(lexicon.thanks, Word.THANKS)
    put(lexicon.repeat, Word.REPEAT)
    put(lexicon.nominate, Word.NOMINATE)
    put(lexicon.fillers, Word.FILLER)
    put(lexicon.yes, Word.FILLER)
    put(lexicon.no, Word.FILLER)
    for phrase in lexicon.nominate_phrases:  # their other words are fillers
        for token in _normalise(phrase):
            table.setdefault((token,), (Word.FILLER, 0))
    return table


def _words(tokens: list[str], table: dict[tuple[str, ...], tuple[Word, int]]) -> list[object]:
    """Greedy longest match: ("thank", "you") is one word; unknown tokens stay strings."""
    longest = max((len(k) for k in table), default=1)
    found: list[object] = []
    i = 0
    while i < len(tokens):
        for size in range(min(longest, len(tokens) - i), 0, -1):
            hit = table.get(tuple(tokens[i : i + size]))
            if hit is not None:
                found.append(hit)
                i += size
                break
        else:
            found.append(tokens[i])
            i += 1
    return found


def _candidate(word: Word, value: int, prompt: Prompt) -> str | None:
    """The answer text one meaningful word gives at ``prompt`` (None: it means nothing here)."""
    accepts = prompt.accepts
    nobody = AnswerKind.NOBODY in accepts
    abstain = AnswerKind.ABSTAIN in accepts
    if word is Word.NUMBER and value == 0 and AnswerKind.COUNT not in accepts:
        word = Word.NOBODY  # «ноль» = the keypad's 0
    if word is Word.NUMBER:
        if AnswerKind.COUNT in accepts:
            return str(value)
        if accepts & {AnswerKind.SEAT, AnswerKind.SEATS} and 1 <= value <= prompt.seat_count:
            return str(value)
        return None
    if word in {Word.NOBODY, Word.ABSTAIN}:
        if abstain and (word is Word.ABSTAIN or not nobody):
            return "abstain"
        if nobody:
            return "none"
        if word is Word.NOBODY and AnswerKind.COUNT in accepts:
            return "0"  # «никто» raised a hand
        return None
    if word in {Word.YES, Word.NO} and AnswerKind.YES_NO in accepts:
        return "yes" if word is Word.YES else "no"
    return None


def interpret(text: str, prompt: Prompt | None, lexicon: Lexicon, *, armed: bool = False) -> Heard:
    """Read one recognised utterance at ``prompt``.

    A nomination (said inside one's own speech) counts only with its phrase
    («я выставляю игрока номер семь»), or right after it when ``armed``; any
    other prompt takes the bare answer («пять», «никого», «за»), and anything
    else said there is unclear: words outside the grammar (``[unk]``), fillers
    alone, two different answers.
    """
    tokens = _normalise(text)
    table = _phrase_table(lexicon, prompt is not None and AnswerKind.YES_NO in prompt.accepts)
    words = _words(tokens, table)
    # «Спасибо» ends a speech only as the whole utterance (fillers aside): «спасибо, но
    # седьмой врёт» is talk, and the speech goes on.
    end = any(w == (Word.THANKS, 0) for w in words) and all(
        isinstance(w, tuple) and w[0] in {Word.THANKS, Word.FILLER} for w in words
    )
    repeat = any(w == (Word.REPEAT, 0) for w in words)
    if prompt is None or not words:
        return Heard(text, end=end, repeat=repeat)
    nomination = prompt.mark == "nominate"
    if nomination:
        marks = [i for i, w in enumerate(words) if isinstance(w, tuple) and w[0] is Word.NOMINATE]
        if marks:
            words = words[marks[-1] + 1 :]  # what follows the last «выставляю»
        elif not armed or all(w == UNKNOWN for w in words):
            # Talk about seven is not a nomination; talk after «я выставляю игрока» that is
            # nothing answer-like leaves the number to come ("not understood" is silence).
            return Heard(text, end=end, repeat=repeat)
    strange = any(isinstance(w, str) for w in words)
    answers = {
        answer
        for w in words
        if isinstance(w, tuple) and (answer := _candidate(w[0], w[1], prompt)) is not None
    }
    if len(answers) == 1 and not (strange and not nomination):
        return Heard(text, answer=answers.pop(), end=end, repeat=repeat)
    if nomination and not answers and not strange and not end:
        return Heard(text, end=end, repeat=repeat, arms=True)
    if nomination:  # inside a speech: talk that is no nomination is no answer either
        return Heard(text, end=end, repeat=repeat, unclear=bool(answers) or strange)
    # A question is open: whatever was said gets a reaction, an answer or "not understood"
    # (``[unk]``, fillers alone, two answers, a number that is no seat here).
    return Heard(text, end=end, repeat=repeat, unclear=not (end or repeat))


ARMED_S = 4.0  # «я выставляю …» then a pause: the number may come in the next utterance


class Reading:
    """The utterances heard at one prompt, read in order as the table reads them.

    A nomination phrase with no number yet («я выставляю игрока», a pause) arms the
    next ``ARMED_S`` seconds, in which a number alone completes it; an answer disarms.
    ``at_s`` is when each utterance was heard, on any one clock: the table's, or the
    audio's in a recording.
    """

    def __init__(self, prompt: Prompt | None, lexicon: Lexicon) -> None:
        self.prompt = prompt
        self.lexicon = lexicon
        self.armed_until = -math.inf

    def read(self, text: str, at_s: float) -> Heard:
        heard = interpret(text, self.prompt, self.lexicon, armed=at_s < self.armed_until)
        if heard.arms:
            self.armed_until = at_s + ARMED_S
        if heard.answer is not None:
            self.armed_until = -math.inf
        return heard
