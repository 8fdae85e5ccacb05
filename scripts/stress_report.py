#!/usr/bin/env python3
"""Which syllable Festival's Russian voice stresses in every word the games say.

Festival (``msu_ru_nsh_clunits``) guesses stress from its dictionary and a
decision tree and says «гла́за», «посмо́трите» in the deal's own line.  This
script collects every line a Russian game may speak (every filling of
``lines_to_render`` plus every spoken catalog line filled with a few sample
values, numbers spelled), runs them through one ``festival`` process up to its
word level, and prints each word with the stressed syllable Festival chose
before and after the pronunciation file (``narrator.voice.pronounce``), beside
the reviewed stress a Russian speaker gave it (``tests/stress/ru.txt``).

    .venv/bin/python scripts/stress_report.py            # the words that differ
    .venv/bin/python scripts/stress_report.py --all      # every word
    .venv/bin/python scripts/stress_report.py --missing  # words the reference lacks
    .venv/bin/python scripts/stress_report.py --english  # hibari's phonemes, English lines

English has no stress marks to check against; ``--english`` prints hibari's own
phonemes (misaki notation) for every spoken English line after the file, with a
``*`` where the file changed the line, so a reviewer reads them once.  Whether
they *sound* right is the speech recogniser's measure (the benchmark script).

A word is written with U+0301 after the vowel of the stressed syllable; «?»
where Festival's syllables do not line up with the word's vowels (Latin words).
Monosyllables are left out: their one vowel is the stress, or the word is a clitic.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from narrator.rules.core import RoleName
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders
from narrator.voice.game_lines import lines_to_render
from narrator.voice.game_lines import spoken_keys
from narrator.voice.numbers import spoken
from narrator.voice.pronounce import STRESS
from narrator.voice.pronounce import Pronunciation
from narrator.voice.pronounce import pronunciation

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "stress" / "ru.txt"
VOICE = "voice_msu_ru_nsh_clunits"
VOWELS = "аеёиоуыэюя"
# Sample values for placeholders that lines_to_render leaves out (lists, free counts):
# one, two and five are the three shapes a Russian number word takes after a noun.
SAMPLES = (1, 2, 5)

# Festival's modules up to the words: lexicon and stress, no waveform (fast).
_SCHEME = """
(%s)
(define (narrator_words i text)
  (let ((u (eval (list 'Utterance 'Text text))))
    (Initialize u) (Text u) (Token_POS u) (Token u) (POS u) (Phrasify u) (Word u)
    (format t "L\\t%%d\\n" i)
    (mapcar
      (lambda (w)
        (format t "W\\t%%s\\t" (item.name w))
        (mapcar (lambda (s) (format t "%%s" (item.feat s 'stress)))
                (item.relation.daughters w 'SylStructure))
        (format t "\\n"))
      (utt.relation.items u 'Word))
    t))
"""


def spoken_lines(lang: str = "ru") -> list[str]:
    """Every line a game of ``lang`` may say, numbers spelled, each once."""
    catalog = load_catalog(lang)
    texts: dict[str, None] = dict.fromkeys(lines_to_render(lang, None))
    roles = sorted({role for name in known_names() for role in get_variant(name).roles})
    for key in spoken_keys(lang, None):
        template = catalog.lines[key]
        names = sorted(placeholders(template))
        if not names:
            texts[template] = None
            continue
        for value, role in itertools.product(SAMPLES, roles if "role" in names else [None]):
            params: dict[str, object] = {name: value for name in names}
            params.update({"seats": (1, 2, 5)} if "seats" in names else {})
            params.update({"role": RoleName(role)} if role else {})
            texts[catalog.text(key, params)] = None
    return [spoken(text, lang) for text in texts]


def _scheme_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def festival_words(texts: Sequence[str]) -> list[list[tuple[str, str]] | None]:
    """Per text, Festival's words with one stress digit per syllable; None where it failed."""
    festival = shutil.which("festival")
    if festival is None:
        raise SystemExit("festival is not installed: apt-get install festival festvox-ru")
    with tempfile.TemporaryDirectory(prefix="narrator-stress-") as folder:
        script = Path(folder) / "words.scm"
        calls = (
            f'(unwind-protect (narrator_words {i} {_scheme_string(t)}) (format t "E\\t{i}\\n"))'
            for i, t in enumerate(texts)
        )
        script.write_text(_SCHEME % VOICE + "\n".join(calls) + "\n", encoding="utf-8")
        done = subprocess.run(
            [festival, "-b", str(script)], capture_output=True, text=True, check=False
        )
    results: list[list[tuple[str, str]] | None] = [None] * len(texts)
    current: list[tuple[str, str]] | None = None
    for line in done.stdout.splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "L":
            current = results[int(rest)] = []
        elif kind == "W" and current is not None:
            name, _, stress = rest.partition("\t")
            current.append((name, stress))
        elif kind == "E":
            current = None
    return results


def marked(name: str, stress: str) -> str | None:
    """Festival's word with U+0301 after the stressed syllable's vowel; None: no line-up."""
    word = name.replace("+", "").lower()
    vowels = [i for i, c in enumerate(word) if c in VOWELS]
    if len(vowels) != len(stress) or not word.isalpha():
        return None
    if "1" not in stress:
        return word
    at = vowels[stress.index("1")]
    return word[: at + 1] + STRESS + word[at + 1 :]


def plain(word: str) -> str:
    return word.replace(STRESS, "").replace("+", "").lower()


def is_monosyllable(word: str) -> bool:
    return sum(c in VOWELS for c in plain(word)) <= 1


Reference = dict[tuple[str, ...], tuple[str, ...]]


def read_reference(path: Path = REFERENCE) -> Reference:
    """The reviewed stress: ``глаза́`` lines, phrase lines for homographs, ``#`` comments."""
    entries: Reference = {}
    for line in path.read_text("utf-8").splitlines():
        words = tuple(w.lower() for w in line.split("#", 1)[0].split())
        if words:
            entries[tuple(plain(w) for w in words)] = words
    return entries


@dataclass
class Finding:
    """One word as Festival said it somewhere, against what the reference wants."""

    word: str
    got: str
    want: str | None
    line: str


def check_line(text: str, words: Sequence[tuple[str, str]], reference: Reference) -> list[Finding]:
    """Each word of two syllables or more in Festival's ``words`` of ``text``, checked."""
    names = [plain(name) for name, _ in words]
    longest = max((len(k) for k in reference), default=1)
    found: list[Finding] = []
    at = 0
    while at < len(words):
        span = next(
            (
                n
                for n in range(min(longest, len(words) - at), 0, -1)
                if tuple(names[at : at + n]) in reference
            ),
            1,
        )
        wants = reference.get(tuple(names[at : at + span]), (None,) * span)
        for (name, stress), want in zip(words[at : at + span], wants, strict=True):
            word = plain(name)
            if any("a" <= c <= "z" for c in word):  # a Latin word: respell it in Cyrillic
                found.append(Finding(word, "?", want, text))
            elif word.isalpha() and not is_monosyllable(word):
                found.append(Finding(word, marked(name, stress) or "?", want, text))
        at += span
    return found


def findings(pronounce: Pronunciation, reference: Reference) -> tuple[list[Finding], list[str]]:
    """Every checked word of every spoken line after ``pronounce``; the lines Festival failed."""
    texts = [pronounce.apply(t, "festival") for t in spoken_lines("ru")]
    found: list[Finding] = []
    failed: list[str] = []
    for text, words in zip(texts, festival_words(texts), strict=True):
        if words is None:
            failed.append(text)
        else:
            found += check_line(text, words, reference)
    return found, failed


def _forms(found: Iterable[Finding]) -> dict[str, set[str]]:
    forms: dict[str, set[str]] = defaultdict(set)
    for finding in found:
        forms[finding.word].add(finding.got)
    return forms


def report(pronounce: Pronunciation, show_all: bool, missing_only: bool) -> int:
    reference = read_reference() if REFERENCE.is_file() else {}
    before, _ = findings(Pronunciation.from_texts("ru", []), reference)
    after, failed = findings(pronounce, reference)
    was, now = _forms(before), _forms(after)
    wrong = {f.word for f in after if f.got != f.want}
    if missing_only:
        for word in sorted({f.word for f in after if f.want is None}):
            print(sorted(now[word])[0])
        return 0
    for word in sorted(now):
        if word not in wrong and not show_all:
            continue
        wants = {f.want or "—" for f in after if f.word == word}
        status = "ok" if word not in wrong else "NEW" if wants == {"—"} else "WRONG"
        print(
            f"{status:5} {word:22} before {','.join(sorted(was.get(word, {'—'}))):26} "
            f"after {','.join(sorted(now[word])):26} want {','.join(sorted(wants))}"
        )
    for text in failed:
        print(f"FESTIVAL FAILED: {text}", file=sys.stderr)
    was_wrong = {f.word for f in before if f.got != f.want}
    print(
        f"{len(spoken_lines('ru'))} lines, {len(now)} words of two syllables or more; "
        f"not as reviewed: {len(was_wrong)} without the pronunciation file, {len(wrong)} with it"
    )
    return 1 if wrong or failed else 0


def english(pronounce: Pronunciation) -> int:
    """Every spoken English line with hibari's phonemes after ``pronounce``."""
    try:
        g2p = importlib.import_module("hibari.g2p")
    except ImportError:
        raise SystemExit("hibari is not installed: pip install hibari-tts") from None
    reader = g2p.G2P()
    catalog = load_catalog("en")
    for key in spoken_keys("en", None):
        line = spoken(catalog.lines[key], "en")
        said = pronounce.apply(line, "hibari")
        print(f"{'*' if said != line else ' '} {key:32} {line}\n{'':35}{reader(said)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="list every word, not only wrong ones")
    parser.add_argument("--missing", action="store_true", help="only words the reference lacks")
    parser.add_argument("--english", action="store_true", help="hibari's phonemes of English")
    args = parser.parse_args(argv)
    if args.english:
        return english(pronunciation("en"))
    return report(pronunciation("ru"), args.all, args.missing)


if __name__ == "__main__":
    sys.exit(main())
