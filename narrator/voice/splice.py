"""Lines with seat numbers and roles, said by a voice pack: assembled from recorded parts.

«Игрок номер 5, откройте глаза и посмотрите свою карту.» is said for every seat
at the deal; recording it twelve times (and every announcement for every seat)
is too much to ask of a person, so a pack holds the line in parts instead:

- the literal text around each placeholder: ``deal.call#0`` «Игрок номер»,
  ``deal.call#1`` «откройте глаза и посмотрите свою карту.»;
- the number words: ``number.5`` «пять» in the nominative masculine that
  ``numbers`` writes, or ``number.2.feminine`` «две» where the pronunciation
  file says the line needs another form («Карт в центре: две.», see
  ``pronounce`` and ``number_forms``);
- the role names: the catalog's own ``role.<id>`` lines, said whole;
- a seat list («2, 5, 7») is its number words with a list pause between them.

The speech port hands over only the line's key and its displayed text, so the
values are recovered from the text: each template becomes a regular expression
(numbers as digits, roles as the alternatives of the role names, seat lists as
digits joined by «, »).  Every filling a game can say parses back to its values
(the tests prove it for both languages), and a text that does not match is
simply not spliced: the caller says it with TTS.

When a pack is built from an engine, each part also names a line it is said in
(``Part.context``: the line filled in, cut to the sentence around the part;
number words in ``deal.call``, role names in ``reveal.seat``).  An engine that
can cut words out of a sentence (hibari) says the part there, so it has the pace
and tune of the middle of a line instead of a sentence's falling end; the others
say it on its own.

The assembly is a pure function over clips: each part levelled (the project's
one loudness rule, ``narrator.sound.loudness``, which also cuts the silence
around it), faded in and out over a few milliseconds so no join clicks,
resampled to one rate, and joined with a short pause where the text has
punctuation.
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace

import numpy as np

from narrator.rules.core import RoleName
from narrator.rules.errors import ConfigError
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.sound.clip import Clip
from narrator.sound.loudness import levelled
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders
from narrator.voice.game_lines import domains
from narrator.voice.game_lines import spoken_keys
from narrator.voice.number_forms import NumberForm
from narrator.voice.number_forms import russian_number
from narrator.voice.numbers import spoken
from narrator.voice.pronounce import pronunciation

_LOGGER = logging.getLogger(__name__)

# The pause at a join, by the punctuation the displayed text has there.
SENTENCE_S = 0.35  # . ! ? …
COLON_S = 0.25  # : ;
DASH_S = 0.2  # — –
COMMA_S = 0.15  # , (and between the seats of a list)
WORD_S = 0.03  # a plain space: the words run on, with only the breath of a join
FADE_S = 0.005  # in and out of every part: no click where two parts meet

# The lines a pack's number words and role names are said in when its engine can
# cut them out of a sentence (``Part.context``): the line every seat hears, and
# the one that names a card.
NUMBER_CARRIER = "deal.call"
ROLE_CARRIER = "reveal.seat"

ROLE_FIELDS = frozenset({"role"})
LIST_FIELDS = frozenset({"seats"})
PART_MARK = "#"  # deal.call#0: the first literal part of the line deal.call
NUMBER_PREFIX = "number."
ROLE_PREFIX = "role."

Value = int | tuple[int, ...] | RoleName
_WORD = re.compile(r"\w")
_SENTENCE_END = re.compile(r"[.!?…]+")
_SENTENCE_BREAK = re.compile(r"[.!?…]+\s+")


def number_key(n: int, form: str | None = None) -> str:
    """The part that says ``n``: ``number.5``, or ``number.2.feminine`` in another form."""
    return f"{NUMBER_PREFIX}{n}" if form is None else f"{NUMBER_PREFIX}{n}.{form}"


def number_words(n: int, lang: str, form: str | None = None) -> str:
    """What ``number_key(n, form)`` says: «пять»; «две» for 2 in the ``feminine`` form."""
    if form is None:
        return spoken(str(n), lang)
    if lang != "ru":
        raise ConfigError(f"no number forms in {lang!r}: {form!r}")
    return russian_number(n, NumberForm.parse(form.replace(".", " ")))


def said_number(n: int, lang: str, form: str | None) -> str:
    """The part that says ``n`` in ``form``: the plain ``number.N`` when the words are the same
    («три» is «три» in the feminine too), so a pack records each word once."""
    if form is not None and number_words(n, lang, form) == number_words(n, lang):
        return number_key(n)
    return number_key(n, form)


def _number_form(lang: str) -> Callable[[str, str], str | None]:
    """The form a number takes between two texts, by the pronunciation file (None: as is)."""
    rules = pronunciation(lang, strict=False)  # at the table too: a bad file is a warning

    def form(before: str, after: str) -> str | None:
        found = rules.number_form(before, after)
        return None if found is None or found.name == "nominative" else found.name

    return form


def part_key(key: str, index: int) -> str:
    """The ``index``-th literal part of line ``key``: ``deal.call#1``."""
    return f"{key}{PART_MARK}{index}"


def pause(between: str) -> float:
    """How long to wait at a join whose displayed text between the words is ``between``."""
    if any(mark in between for mark in ".!?…"):
        return SENTENCE_S
    if any(mark in between for mark in ":;"):
        return COLON_S
    if any(mark in between for mark in "—–") or " - " in between:
        return DASH_S
    if "," in between:
        return COMMA_S
    return WORD_S


@dataclass(frozen=True)
class Literal:
    """Text between placeholders: what is said, and the punctuation at either side."""

    lead: str  # before the first word («, » in «, откройте глаза…»)
    words: str  # said (a sentence's closing mark kept: it sets the intonation)
    trail: str  # after the last word

    @staticmethod
    def parse(text: str) -> Literal:
        found = [m.start() for m in _WORD.finditer(text)]
        if not found:
            return Literal(text, "", "")
        first, last = found[0], found[-1] + 1
        trail = text[last:]
        closing = _SENTENCE_END.match(trail)
        words_end = last + (closing.end() if closing and trail.strip() == closing.group() else 0)
        return Literal(text[:first], text[first:words_end], text[last:])


@dataclass(frozen=True)
class Field:
    """A placeholder: its name and the number form it asks for (None: the nominative)."""

    name: str
    form: str | None = None

    @property
    def kind(self) -> str:
        if self.name in ROLE_FIELDS:
            return "role"
        if self.name in LIST_FIELDS:
            return "seats"
        return "number"


@dataclass(frozen=True)
class Spoken:
    """A part said at this point: the first of ``keys`` the pack has (a role's synonyms)."""

    keys: tuple[str, ...]


@dataclass(frozen=True)
class Gap:
    seconds: float


Piece = Spoken | Gap


@dataclass(frozen=True)
class Part:
    """One recording of a pack: its key, the words said, what the speaker is shown.

    ``context`` is the displayed text before and after the words in a line that
    says them (``carrier``): an engine that can cut words out of a sentence says
    the part there, so it keeps the pace and tune it has in a line.
    """

    key: str
    words: str
    hint: str
    whole: bool  # a catalog line said whole ([lines]), not a part kept with its words
    context: tuple[str, str] | None = None


@dataclass(frozen=True)
class Template:
    """A catalog line with placeholders, as parts and as a pattern its fillings match."""

    key: str
    text: str
    lang: str
    literals: tuple[Literal, ...]  # one more than fields
    fields: tuple[Field, ...]
    pattern: re.Pattern[str]
    roles: Mapping[str, tuple[str, ...]]  # a role's spoken name → the role.<id> keys called so

    @staticmethod
    def parse(
        key: str,
        text: str,
        lang: str,
        roles: Mapping[str, tuple[str, ...]],
        form: Callable[[str, str], str | None] = lambda before, after: None,
    ) -> Template:
        """``form(before, after)``: the number form a placeholder between those texts takes."""
        literals: list[Literal] = []
        fields: list[Field] = []
        regex: list[str] = []
        groups: dict[str, str] = {}
        pieces = list(string.Formatter().parse(text))
        for index, (literal, name, _, _) in enumerate(pieces):
            literals.append(Literal.parse(literal))
            regex.append(re.escape(literal))
            if name is None:
                continue
            before = "".join(piece[0] for piece in pieces[: index + 1])
            after = pieces[index + 1][0] if index + 1 < len(pieces) else ""
            field = Field(name, form(before, after) if name not in ROLE_FIELDS else None)
            fields.append(field)
            if name in groups:  # the same seat said twice: the same digits twice
                regex.append(f"(?P={groups[name]})")
                continue
            groups[name] = f"g{len(groups)}"
            regex.append(f"(?P<{groups[name]}>{_value_pattern(field.kind, roles)})")
        if len(literals) == len(fields):  # the text ends with a placeholder
            literals.append(Literal("", "", ""))
        return Template(
            key, text, lang, tuple(literals), tuple(fields), re.compile("".join(regex)), roles
        )

    def spoken_literals(self) -> list[int]:
        """The indices of the literals that have words: those a pack records."""
        return [i for i, literal in enumerate(self.literals) if literal.words]

    def parts(self) -> list[Part]:
        """The literal parts a pack needs for this line (placeholders shown as «…»)."""
        shown = "".join(
            literal + ("…" if name is not None else "")
            for literal, name, _, _ in string.Formatter().parse(self.text)
        )
        return [
            Part(part_key(self.key, i), literal.words, f"«{shown}»", whole=False)
            for i, literal in enumerate(self.literals)
            if literal.words
        ]

    def values(self, text: str) -> dict[str, Value] | None:
        """The values the displayed ``text`` was filled with; None when it is not this line."""
        match = self.pattern.fullmatch(text)
        if match is None:
            return None
        names = list(dict.fromkeys(f.name for f in self.fields))
        values: dict[str, Value] = {}
        for index, name in enumerate(names):
            raw = match.group(f"g{index}")
            kind = next(f.kind for f in self.fields if f.name == name)
            if kind == "role":
                values[name] = RoleName(self.roles[raw][0].removeprefix(ROLE_PREFIX))
            elif kind == "seats":
                values[name] = tuple(int(seat) for seat in raw.split(", "))
            else:
                values[name] = int(raw)
        return values

    def plan(self, values: Mapping[str, Value], names: Mapping[str, str]) -> tuple[Piece, ...]:
        """What to say in order, with the pauses; ``names``: role id → its spoken name."""
        pieces: list[Piece] = []
        between = ""  # the displayed text since the last word said

        def say(*keys: str) -> None:
            nonlocal between
            if pieces:
                pieces.append(Gap(pause(between)))
            pieces.append(Spoken(keys))
            between = ""

        for index, literal in enumerate(self.literals):
            if literal.words:
                between += literal.lead
                say(part_key(self.key, index))
                between += literal.trail
            else:
                between += literal.lead
            if index == len(self.fields):
                break
            field = self.fields[index]
            value = values[field.name]
            if isinstance(value, RoleName):
                own = f"{ROLE_PREFIX}{value.id}"
                say(*dict.fromkeys([own, *self.roles.get(names.get(value.id, ""), ())]))
            elif isinstance(value, tuple):
                for place, seat in enumerate(value):
                    if place:
                        between += ", "
                    say(said_number(seat, self.lang, field.form))
            else:
                say(said_number(value, self.lang, field.form))
        return tuple(pieces)

    def carrier(
        self, index: int, fill: Mapping[str, str], *, field: bool = False
    ) -> tuple[str, str]:
        """The text before and after the words of literal ``index`` (of field ``index`` when
        ``field``) in this line filled with ``fill`` (name → displayed value; «1» for the
        rest), within their sentence."""
        said: list[str] = []  # literal, value, literal, value, …, literal
        for literal, name, _, _ in string.Formatter().parse(self.text):
            said.append(literal)
            if name is not None:
                said.append(fill.get(name, "1"))
        if len(said) % 2 == 0:  # the text ends with a placeholder
            said.append("")
        if field:
            at = 2 * index + 1
            return _sentence("".join(said[:at]), "".join(said[at + 1 :]))
        at, own = 2 * index, self.literals[index]
        rest = said[at][len(own.lead) + len(own.words) :]
        return _sentence("".join(said[:at]) + own.lead, rest + "".join(said[at + 1 :]))


def _sentence(before: str, after: str) -> tuple[str, str]:
    """Only the sentence the words are in: a cut is made from one sentence said at once."""
    ends = [m.end() for m in _SENTENCE_BREAK.finditer(before)]
    found = _SENTENCE_END.search(after)
    return before[ends[-1] :] if ends else before, after[: found.end()] if found else after


def _value_pattern(kind: str, roles: Mapping[str, tuple[str, ...]]) -> str:
    if kind == "role":
        names = sorted(roles, key=len, reverse=True)  # «Мирный житель» before «Мирный»
        return "|".join(re.escape(name) for name in names) or "(?!)"
    if kind == "seats":
        return r"\d+(?:, \d+)*"
    return r"\d+"


def _templates(lang: str, lines: Mapping[str, str]) -> dict[str, Template]:
    roles: dict[str, tuple[str, ...]] = {}
    for key, name in lines.items():
        if key.startswith(ROLE_PREFIX):
            roles[name] = (*roles.get(name, ()), key)
    form = _number_form(lang)
    return {
        key: Template.parse(key, text, lang, roles, form)
        for key, text in lines.items()
        if placeholders(text) and not key.startswith(ROLE_PREFIX)
    }


# Per catalog object (``load_catalog`` hands out the same one while the games stay the same);
# the catalog is kept with its templates, so its id is not reused.
_MADE: dict[int, tuple[Catalog, dict[str, Template], dict[str, str]]] = {}


def _made(lang: str) -> tuple[dict[str, Template], dict[str, str]]:
    catalog = load_catalog(lang)
    found = _MADE.get(id(catalog))
    if found is None or found[0] is not catalog:
        names = {
            key.removeprefix(ROLE_PREFIX): text
            for key, text in catalog.lines.items()
            if key.startswith(ROLE_PREFIX)
        }
        found = _MADE[id(catalog)] = (catalog, _templates(lang, catalog.lines), names)
    return found[1], found[2]


def templates(lang: str) -> dict[str, Template]:
    """Every catalog line of ``lang`` with placeholders, as a template."""
    return _made(lang)[0]


def role_names(lang: str) -> dict[str, str]:
    """Role id → its spoken name in ``lang``."""
    return _made(lang)[1]


def plan(lang: str, key: str, text: str) -> tuple[Piece, ...] | None:
    """How to say line ``key`` shown as ``text`` from parts; None when it cannot be spliced."""
    template = templates(lang).get(key)
    if template is None:
        return None
    values = template.values(text)
    if values is None:
        _LOGGER.debug("%s: %r does not match its template %r", key, text, template.text)
        return None
    return template.plan(values, role_names(lang))


# --- what a complete pack holds ---------------------------------------------------------------


def _variants(variant: str | None) -> list[str]:
    return [variant] if variant is not None else list(known_names())


def pack_parts(lang: str, variant: str | None = None) -> list[Part]:
    """Every recording a pack needs to say every line of ``variant`` (None: of every game).

    The plain lines, the literal parts of each line with placeholders, the role
    names and the number words, over the domains a game fills in (as ``game_lines``).
    """
    catalog = load_catalog(lang)
    every = templates(lang)
    found: dict[str, Part] = {}
    numbers: set[tuple[int, str | None]] = set()
    roles: list[str] = []
    used: list[Template] = []
    for name in _variants(variant):
        rules = get_variant(name)
        values_of = domains(rules)
        for key in spoken_keys(lang, name):
            template = every.get(key)
            if template is None:
                found.setdefault(key, Part(key, catalog.lines[key], "", whole=True))
                continue
            used.append(template)
            first_role = {"role": catalog.lines[f"{ROLE_PREFIX}{next(iter(rules.roles))}"]}
            for index, part in zip(template.spoken_literals(), template.parts(), strict=True):
                context = template.carrier(index, first_role)
                found.setdefault(part.key, replace(part, context=context))
            for field in template.fields:
                if field.kind != "role":
                    numbers.update((n, field.form) for n in _numbers_of(field.name, values_of))
        roles += [role for role in rules.roles if role not in roles]
    role_line = _carrier(every, used, ROLE_CARRIER, lambda field: field.kind == "role")
    for role in roles:
        key = f"{ROLE_PREFIX}{role}"
        said = catalog.lines[key]
        in_line = None
        if role_line is not None:
            in_line = role_line[0].carrier(role_line[1], {"role": said}, field=True)
        found.setdefault(key, Part(key, said, "a role's name", whole=True, context=in_line))
    for n, form in sorted(numbers, key=lambda number: (number[1] or "", number[0])):
        key = said_number(n, lang, form)
        hint = f"the number {n}" + (f" ({form})" if form else "")
        if key == number_key(n):
            hint, form = f"the number {n}", None
        line = _carrier(every, used, NUMBER_CARRIER, _number_field(form))
        around = None
        if line is not None:
            template, index = line
            around = template.carrier(index, {template.fields[index].name: str(n)}, field=True)
        found.setdefault(
            key, Part(key, number_words(n, lang, form), hint, whole=False, context=around)
        )
    return list(found.values())


def _number_field(form: str | None) -> Callable[[Field], bool]:
    return lambda field: field.kind != "role" and field.form == form


def _carrier(
    every: Mapping[str, Template],
    used: Sequence[Template],
    preferred: str,
    fits: Callable[[Field], bool],
) -> tuple[Template, int] | None:
    """The line a value is said in for a pack (``preferred`` when it has such a field, else
    the first line used that has one) and the index of the field."""
    first = every.get(preferred)
    for template in ([first] if first is not None else []) + list(used):
        for index, field in enumerate(template.fields):
            if fits(field):
                return template, index
    return None


def _numbers_of(name: str, domains: Mapping[str, Sequence[object]]) -> Iterator[int]:
    """The numbers a placeholder takes: its domain, else any count at the table."""
    domain = domains.get(name) or domains.get("seat" if name in LIST_FIELDS else "count", ())
    return (value for value in domain if isinstance(value, int))


def expected_words(lang: str, key: str) -> str | None:
    """What the part ``key`` says in today's catalog; None when no line has such a part."""
    if key.startswith(NUMBER_PREFIX):
        number, _, form = key.removeprefix(NUMBER_PREFIX).partition(".")
        if not number.isdigit():
            return None
        try:
            return number_words(int(number), lang, form or None)
        except (ConfigError, ValueError):
            return None
    line, mark, index = key.rpartition(PART_MARK)
    template = templates(lang).get(line) if mark else None
    if template is None or not index.isdigit() or int(index) >= len(template.literals):
        return None
    return template.literals[int(index)].words or None


# --- the audio --------------------------------------------------------------------------------


def joinable(clip: Clip) -> Clip:
    """One recording made ready to be joined: levelled, mono, faded in and out.

    ``levelled`` cuts the silence around the voice but keeps a margin (40 ms) so
    soft onsets and word endings stay whole; measured with the Whisper judge on
    hibari, cutting closer than that cost more in clarity (a trailing «r», a
    soft «т») than the shorter joins gained.  The fade makes every join start and
    end at zero, where the margin was not cut.
    """
    mono = levelled(clip).to(clip.rate, 1).samples[:, 0]
    fade = min(round(FADE_S * clip.rate), mono.size // 2)
    if fade:
        ramp = np.linspace(0.0, 1.0, fade, dtype=np.float32)
        mono = mono.copy()
        mono[:fade] *= ramp
        mono[-fade:] *= ramp[::-1]
    return Clip.from_mono(mono, clip.rate)


def assemble(pieces: Sequence[Piece], parts: Mapping[str, Clip]) -> Clip:
    """The line: its parts (made ``joinable``) at one rate, with the pauses between.

    ``parts`` holds a clip for one key of every ``Spoken`` piece; the rate is the
    highest among them, so nothing is thinned out.
    """
    said = [_chosen(piece, parts) for piece in pieces if isinstance(piece, Spoken)]
    rate = max(clip.rate for clip in said)
    chunks: list[np.ndarray] = []
    clips = iter(said)
    for piece in pieces:
        if isinstance(piece, Gap):
            chunks.append(np.zeros(round(piece.seconds * rate), dtype=np.float32))
        else:
            chunks.append(next(clips).to(rate, 1).samples[:, 0])
    return Clip.from_mono(np.concatenate(chunks), rate)


def _chosen(piece: Spoken, parts: Mapping[str, Clip]) -> Clip:
    for key in piece.keys:
        if key in parts:
            return parts[key]
    raise KeyError(piece.keys[0])


def needed(pieces: Sequence[Piece]) -> list[tuple[str, ...]]:
    """The parts a plan says (each as its alternatives), in order."""
    return [piece.keys for piece in pieces if isinstance(piece, Spoken)]
