"""How each speech engine should say a line: stress, respellings, number forms.

Speech engines guess stress from spelling and guess wrong in places a table
hears at once (Festival says «гла́за», «посмо́трите»; espeak says "close your
eyes" with an s).  A per-language pronunciation file beside this module
(``pronunciation/<lang>.toml``), and optionally the user's own one in the user
config folder (``pronunciation/<lang>.toml`` there, applied over it), say how
to say those words once, in plain readable spelling:

- ``[say]``: a word or phrase as the lines write it (any case) = how to say
  it, for every engine.  Russian stress is the combining acute accent U+0301
  after the stressed vowel (``глаза = "глаза́"``); a respelling is just other
  letters (``Enter = "Э́нтер"``).
- ``[festival]``, ``[hibari]``, ``[espeak]``, ``[sapi5]``, ``[nsss]``: the same,
  for one engine only, over ``[say]``.  A value between slashes is phonemes in
  that engine's own notation (hibari: misaki's, ``use = "/jˈuz/"``).
- ``[numbers]``: where a number is not in the nominative masculine that
  ``numbers.spoken`` writes: ``"карт в центре: #" = "feminine"`` (``#`` is
  the number; see ``number_forms`` for the forms).

Each line of a file is read on its own (TOML, one ``key = "value"`` per line;
bare keys may be any word, as TOML 1.1 allows), so a bad line costs only that
entry: one warning names the file, the line and what is wrong, and the rest
applies.  Matching is whole-word, case-insensitive and keeps the case the line
had («Глаза» → «Глаза́»); the longest phrase wins.  ``apply`` then writes the
marks the way each engine takes them: Festival's Russian voice a ``+`` before
the stressed vowel; espeak-ng (1.51, through pyttsx3), SAPI5 and NSSS have no
stress mark in plain text, so the marks are dropped there and only the
respellings help.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import re
import tomllib
import unicodedata
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from functools import cache
from importlib import resources
from pathlib import Path

from narrator import files as reader
from narrator.rules.errors import ConfigError
from narrator.voice.number_forms import NumberForm
from narrator.voice.number_forms import read_russian_number
from narrator.voice.number_forms import russian_number

_LOGGER = logging.getLogger(__name__)

# Bump when apply's rules change, so cached speech rendered under old rules is not reused.
RULES_VERSION = "1"
STRESS = "\u0301"  # COMBINING ACUTE ACCENT, written after the stressed vowel
ENGINES = ("festival", "hibari", "espeak", "sapi5", "nsss")
VOWELS = "аеёиоуыэюяaeiouyАЕЁИОУЫЭЮЯAEIOUY"
GENERAL = "say"
NUMBERS = "numbers"
NUMBER_MARK = "#"
# A user's own file may hold this many entries, each said in at most this many characters,
# and may make a line at most GROWTH times as long, or MAX_ADDED characters longer.
MAX_ENTRIES = 2_000
MAX_SAY = 80
GROWTH = 3
MAX_ADDED = 400

# A word (letters, each optionally stressed, joined by apostrophes), a run of digits,
# or any other single visible character.
_TOKEN = re.compile(r"(?:[^\W\d_]\u0301?)+(?:['’](?:[^\W\d_]\u0301?)+)*|\d+|[^\w\s]")
_HEADER = re.compile(r"\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?")
_BARE_KEY = re.compile(r"(?P<key>[^\W\d][\w\u0301'’-]*)(?P<rest>\s*=.*)")
_MISPLACED = re.compile(rf"(?:^|[^{VOWELS}])\u0301")
# Festival reads text byte by byte outside its own alphabet: its Russian voice stops
# with an error at «», “”, — or …, its English voices spell UTF-8 bytes.
_FESTIVAL_PUNCTUATION = str.maketrans(
    {
        "«": " ",
        "»": " ",
        "“": " ",
        "”": " ",
        "„": " ",
        '"': " ",
        "—": ",",
        "–": ",",
        "…": "...",
        "’": "'",
        "+": " ",  # Festival's own stress mark; a literal plus would stress the next vowel
    }
)
_FESTIVAL_ALLOWED = re.compile(r"[^\w\s.,!?:;()'+\-]")
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,!?:;)])")
_COMMA_AFTER_MARK = re.compile(r"([.,!?:;])(?:\s*,)+")
_LEADING_COMMA = re.compile(r"^\s*,\s*")
_SPACES = re.compile(r"[ \t]{2,}")


def _unmarked(word: str) -> str:
    return word.replace(STRESS, "")


def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


def _key(text: str) -> tuple[str, ...]:
    return tuple(_unmarked(m.group()).lower() for m in _tokens(text))


def _is_word(token: str) -> bool:
    return token[:1].isalpha()


def _case_like(source: str, word: str) -> str:
    """``word`` in the case pattern of ``source``: «ГЛАЗА» → upper, «Глаза» → capital first."""
    letters = _unmarked(source)
    if len(letters) > 1 and letters.isupper():
        return word.upper()
    if letters[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _with_case(sources: Sequence[str], say: str) -> str:
    """``say`` with the case of the words it replaces, word by word where the counts agree."""
    found = [m for m in _tokens(say) if _is_word(m.group())]
    words = [s for s in sources if _is_word(s)]
    if not found or not words:
        return say
    if len(found) == len(words):
        pairs = list(zip(words, found, strict=True))
    elif all(len(_unmarked(w)) > 1 and _unmarked(w).isupper() for w in words):
        pairs = [(words[0], m) for m in found]
    else:
        pairs = [(words[0], found[0])]
    out, at = [], 0
    for source, match in pairs:
        out += [say[at : match.start()], _case_like(source, match.group())]
        at = match.end()
    return "".join([*out, say[at:]])


@dataclass(frozen=True)
class Entry:
    """One correction: the words it matches (lower case, unstressed) and how to say them."""

    words: tuple[str, ...]
    say: str
    where: str  # "ru.toml:12", for messages
    phonemes: bool = False  # ``say`` is in the engine's own phoneme notation


@dataclass(frozen=True)
class NumberRule:
    """A number between ``before`` and ``after`` (token tuples) is said in ``form``."""

    before: tuple[str, ...]
    after: tuple[str, ...]
    form: NumberForm
    where: str


@dataclass
class _Parsed:
    tables: dict[str, dict[tuple[str, ...], Entry]] = field(default_factory=dict)
    numbers: dict[tuple[tuple[str, ...], tuple[str, ...]], NumberRule] = field(default_factory=dict)


def _warn(where: str, problem: str) -> None:
    _LOGGER.warning("pronunciation %s: %s; that entry is skipped", where, problem)


def _read_line(line: str) -> tuple[str, object]:
    """One ``key = value`` line as TOML; a bare key in any script is quoted first."""
    bare = _BARE_KEY.fullmatch(line)
    if bare is not None and not bare.group("key").isascii():
        line = f'"{bare.group("key")}"{bare.group("rest")}'
    try:
        table = tomllib.loads(line)
    except RecursionError:
        raise ValueError("nested too deep") from None
    if len(table) != 1:
        raise ValueError('expected one `word = "how to say it"`')
    ((key, value),) = table.items()
    if isinstance(value, dict):
        raise ValueError("a key with a dot must be in quotes")
    return key, value


def _entry_problem(key: str, value: str) -> str | None:
    if not _key(key):
        return "the word is empty"
    if not value.strip():
        return f"nothing to say for {key!r}"
    if _MISPLACED.search(value) or _MISPLACED.search(key):
        return f"{value!r}: a stress mark (U+0301) must follow a vowel"
    return None


def _parse(text: str, name: str, lang: str, into: _Parsed) -> None:
    """Add the entries of one file's ``text`` to ``into``, warning about each bad line."""
    section: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"{name}:{number}"
        if not line or line.startswith("#"):
            continue
        header = _HEADER.fullmatch(line)
        if header is not None:
            section = header.group(1).strip().strip('"')
            if section not in (GENERAL, NUMBERS, *ENGINES):
                known = ", ".join((GENERAL, NUMBERS, *ENGINES))
                _LOGGER.warning(
                    "pronunciation %s: unknown table [%s] (tables: %s); its lines are skipped",
                    where,
                    section,
                    known,
                )
            continue
        if section not in (GENERAL, NUMBERS, *ENGINES):
            if section is None:
                _warn(where, f"{line!r} is outside a table ([{GENERAL}], [{NUMBERS}], …)")
            continue
        try:
            key, value = _read_line(line)
        except (tomllib.TOMLDecodeError, ValueError) as error:
            _warn(where, f'{line!r} is not `word = "how to say it"` ({error})')
            continue
        if not isinstance(value, str):
            _warn(where, f"the value of {key!r} is {value!r}, not text in quotes")
            continue
        if section == NUMBERS:
            _add_number_rule(key, value, where, lang, into)
            continue
        problem = _entry_problem(key, value)
        if problem is not None:
            _warn(where, problem)
            continue
        say = value.strip()
        phonemes = len(say) > 2 and say.startswith("/") and say.endswith("/")
        if phonemes and section != "hibari":
            _warn(where, f"phonemes ({say}) are understood only in [hibari]")
            continue
        words = _key(key)
        into.tables.setdefault(section, {})[words] = Entry(words, say, where, phonemes)


def _add_number_rule(key: str, value: str, where: str, lang: str, into: _Parsed) -> None:
    if lang != "ru":
        _warn(where, f"number forms exist only for Russian, not {lang!r}")
        return
    if key.count(NUMBER_MARK) != 1:
        _warn(where, f"{key!r}: mark the number's place with one {NUMBER_MARK}")
        return
    try:
        form = NumberForm.parse(value)
    except ConfigError as error:
        _warn(where, str(error))
        return
    before, after = key.split(NUMBER_MARK)
    if not _key(before) and not _key(after):
        _warn(where, f"{key!r}: name the words around the number")
        return
    rule = NumberRule(_key(before), _key(after), form, where)
    into.numbers[(rule.before, rule.after)] = rule


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    say: str


class Pronunciation:
    """The corrections of one language, ready to write a line for any engine."""

    def __init__(
        self, lang: str, parsed: _Parsed, version: str, builtin: Pronunciation | None = None
    ) -> None:
        self.lang = lang
        self.version = version
        self._tables = parsed.tables
        self._numbers = list(parsed.numbers.values())
        self._indexes: dict[str, dict[str, list[Entry]]] = {}
        # The corrections without the user's own: what a line is said with when they would
        # make it too long (``apply``).
        self._builtin = builtin
        self._warned: set[str] = set()

    @staticmethod
    def from_texts(lang: str, texts: Iterable[tuple[str, str]]) -> Pronunciation:
        """Corrections from ``(name, text)`` files, later files over earlier ones."""
        parsed = _Parsed()
        digest = hashlib.sha256(f"{RULES_VERSION}\0{lang}".encode())
        for name, text in texts:
            _parse(text, name, lang, parsed)
            digest.update(f"\0{name}\0{text}".encode())
        return Pronunciation(lang, parsed, digest.hexdigest()[:12])

    @staticmethod
    def from_files(lang: str, files: Iterable[Path]) -> Pronunciation:
        """Corrections from the files that exist; an unreadable one is warned about, skipped."""
        return Pronunciation.from_texts(lang, _read_files(files))

    def entries(self, engine: str | None = None) -> list[Entry]:
        """The corrections ``engine`` uses (None: the ones for every engine)."""
        merged = dict(self._tables.get(GENERAL, {}))
        if engine is not None:
            merged.update(self._tables.get(engine, {}))
        return list(merged.values())

    def number_form(self, before: str, after: str = "") -> NumberForm | None:
        """The form of a number said between ``before`` and ``after``; None: nominative.

        For a line assembled from parts (a voice pack), where the number is a part
        of its own: the template's text on either side of the placeholder.
        """
        left, right = _key(before), _key(after)
        for rule in self._numbers:
            fits_left = not rule.before or left[-len(rule.before) :] == rule.before
            fits_right = not rule.after or right[: len(rule.after)] == rule.after
            if fits_left and fits_right:
                return rule.form
        return None

    def apply(self, text: str, engine: str) -> str:
        """``text`` (numbers already spelled out) as ``engine`` should be given it.

        When the corrections would make the line more than ``GROWTH`` times as long and
        more than ``MAX_ADDED`` characters longer, the user's own are not used for it: the
        line is said with the built-in ones, and one warning names the entry.
        """
        said = self._numbers_in_form(text) if self._numbers else text
        said, grown = self._respelled(said, engine)
        if grown is not None and self._builtin is not None:
            if grown.where not in self._warned:
                self._warned.add(grown.where)
                _LOGGER.warning(
                    "pronunciation %s makes the line %r longer than %d times its length or "
                    "%d characters more; that line is said without your corrections",
                    grown.where,
                    text[:60],
                    GROWTH,
                    MAX_ADDED,
                )
            return self._builtin.apply(text, engine)
        return _for_engine(said, engine, self.lang)

    # -- the steps ------------------------------------------------------------------------

    def _index(self, engine: str) -> dict[str, list[Entry]]:
        index = self._indexes.get(engine)
        if index is None:
            index = {}
            for entry in self.entries(engine):
                index.setdefault(entry.words[0], []).append(entry)
            for entries in index.values():
                entries.sort(key=lambda e: len(e.words), reverse=True)
            self._indexes[engine] = index
        return index

    def _respelled(self, text: str, engine: str) -> tuple[str, Entry | None]:
        """``text`` respelled, and the entry that made it too long (None: it is not)."""
        index = self._index(engine)
        if not index:
            return text, None
        tokens = _tokens(text)
        keys = [_unmarked(m.group()).lower() for m in tokens]
        spans: list[_Span] = []
        limit = max(GROWTH * len(text), len(text) + MAX_ADDED)
        length = len(text)
        at = 0
        while at < len(tokens):
            found = next(
                (
                    e
                    for e in index.get(keys[at], ())
                    if tuple(keys[at : at + len(e.words)]) == e.words
                ),
                None,
            )
            if found is None:
                at += 1
                continue
            matched = tokens[at : at + len(found.words)]
            start, end = matched[0].start(), matched[-1].end()
            if found.phonemes:
                say = f"[{text[start:end]}]({found.say})"
            else:
                say = _with_case([m.group() for m in matched], found.say)
            spans.append(_Span(start, end, say))
            length += len(say) - (end - start)
            if length > limit:
                return text, found
            at += len(found.words)
        return _replaced(text, spans), None

    def _numbers_in_form(self, text: str) -> str:
        tokens = _tokens(text)
        keys = [m.group().lower() for m in tokens]
        spans: list[_Span] = []
        at = 0
        while at < len(tokens):
            span = self._number_at(text, tokens, keys, at)
            if span is None:
                at += 1
                continue
            spans.append(span[0])
            at = span[1]
        return _replaced(text, spans)

    def _number_at(
        self, text: str, tokens: list[re.Match[str]], keys: list[str], at: int
    ) -> tuple[_Span, int] | None:
        """A number starting at token ``at`` whose surroundings a rule names, re-said."""
        run = [keys[at]]
        for i in range(at + 1, len(tokens)):
            if text[tokens[i - 1].end() : tokens[i].start()].strip():
                break
            run.append(keys[i])
        found = read_russian_number(run)
        if found is None:
            return None
        value, count = found
        for rule in self._numbers:
            before = tuple(keys[max(0, at - len(rule.before)) : at])
            after = tuple(keys[at + count : at + count + len(rule.after)])
            if before == rule.before and after == rule.after:
                first, last = tokens[at], tokens[at + count - 1]
                words = [m.group() for m in tokens[at : at + count]]
                say = _with_case(words[:1], russian_number(value, rule.form))
                return _Span(first.start(), last.end(), say), at + count
        return None


def _replaced(text: str, spans: Sequence[_Span]) -> str:
    out, at = [], 0
    for span in spans:
        out += [text[at : span.start], span.say]
        at = span.end
    return "".join([*out, text[at:]])


# --- engine forms ----------------------------------------------------------------------


def _festival(text: str, lang: str) -> str:
    """Festival's form: ``+`` before a stressed vowel, punctuation it can read, no strays."""
    text = text.translate(_FESTIVAL_PUNCTUATION)
    stressed = re.sub(rf"([{VOWELS}])\u0301", r"+\1", text) if lang == "ru" else text
    plain = "".join(
        c for c in unicodedata.normalize("NFC", stressed) if not unicodedata.combining(c)
    )
    if lang != "ru":  # the English voices read ASCII only
        plain = unicodedata.normalize("NFKD", plain).encode("ascii", "ignore").decode()
    plain = _FESTIVAL_ALLOWED.sub(" ", plain)
    plain = _COMMA_AFTER_MARK.sub(r"\1", _SPACE_BEFORE_MARK.sub(r"\1", plain))
    return _SPACES.sub(" ", _LEADING_COMMA.sub("", plain)).strip()


def _unstressed(text: str) -> str:
    return text.replace(STRESS, "")


def _for_engine(text: str, engine: str, lang: str) -> str:
    if engine == "festival":
        return _festival(text, lang)
    return _unstressed(text)


# --- loading ---------------------------------------------------------------------------


def _read_files(files: Iterable[Path]) -> list[tuple[str, str]]:
    """The texts of the files that exist, each read through ``files.read_text`` (a regular
    file within the pronunciation cap); one that cannot be read is warned about, skipped."""
    texts = []
    for path in files:
        if not path.exists():
            continue
        try:
            texts.append((str(path), reader.read_text(path, reader.PRONUNCIATION)))
        except reader.BadFile as error:
            _LOGGER.warning("%s; no corrections from it", error)
    return texts


def check_user(path: Path, rules: Pronunciation) -> None:
    """Refuse, as a whole, a user's file beyond the caps: nested deeper than files allow,
    more than ``MAX_ENTRIES`` entries, or an entry said in more than ``MAX_SAY`` characters
    (``rules``: the corrections read with it)."""
    own = f"{path}:"
    entries = [
        e for table in rules._tables.values() for e in table.values() if e.where.startswith(own)
    ]
    if len(entries) > MAX_ENTRIES:
        raise reader.BadFile(
            f"{path}: {len(entries)} entries, more than the {MAX_ENTRIES} a pronunciation "
            "file may hold"
        )
    for entry in entries:
        if len(entry.say) > MAX_SAY:
            raise reader.BadFile(
                f"{entry.where}: the entry for {' '.join(entry.words)[:30]!r} says "
                f"{len(entry.say)} characters, more than the {MAX_SAY} one entry may"
            )


def user_file(lang: str) -> Path:
    """Where a person keeps their own corrections for ``lang`` (applied over the bundled)."""
    platformdirs = importlib.import_module("platformdirs")
    folder: Path = platformdirs.user_config_path("narrator") / "pronunciation"
    return folder / f"{lang}.toml"


def bundled_text(lang: str) -> str:
    """The pronunciation file shipped for ``lang`` ('' when there is none)."""
    part = resources.files("narrator.voice").joinpath("pronunciation", f"{lang}.toml")
    try:
        return part.read_text("utf-8") if part.is_file() else ""
    except (OSError, UnicodeDecodeError) as error:
        _LOGGER.warning("the bundled pronunciation file %s.toml is unreadable (%s)", lang, error)
        return ""


@cache
def pronunciation(lang: str, *, strict: bool = True) -> Pronunciation:
    """The corrections of ``lang``: the bundled file, then the user's own over it.

    A language with no file has no corrections: its lines are said as written.  A user's
    file that cannot be read or is beyond the caps (``check_user``) is a BadFile,
    one line naming it; with ``strict`` False (at the table) a warning, and the bundled
    corrections only.
    """
    bundled = (f"{lang}.toml", bundled_text(lang))
    builtin = Pronunciation.from_texts(lang, [bundled])
    path = user_file(lang)
    if not path.exists() and not path.is_symlink():
        return builtin
    try:
        text = reader.read_text(path, reader.PRONUNCIATION)
        reader.check_toml_nesting(text, reader.PRONUNCIATION, path)
        own = Pronunciation.from_texts(lang, [bundled, (str(path), text)])
        check_user(path, own)
    except reader.BadFile as error:
        if strict:
            raise
        _LOGGER.warning("%s; speaking with the built-in pronunciation", error)
        return builtin
    own._builtin = builtin
    return own
