"""``scripts/docs.py``: the docs the code writes are as the code says (like the golden files)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from narrator.rules.codec import KEYPAD
from tests.support import load_script

docs = load_script("docs")


def test_the_generated_docs_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    code = docs.main(["--check"])
    assert code == 0, capsys.readouterr().err  # run scripts/docs.py and commit what it writes


def test_a_changed_key_or_default_leaves_the_docs_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy of the generated files, then a change in the code: --check names every file
    that changed and writes nothing; without --check it writes them anew."""
    for name in ("README.md", "docs/keypad.md", "docs/switches.md", "docs/cli.md"):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((docs.ROOT / name).read_text("utf-8"), "utf-8")
    monkeypatch.setattr(docs, "ROOT", tmp_path)
    assert docs.main(["--check"]) == 0
    monkeypatch.setattr(docs, "KEYPAD", (*KEYPAD, ("`9` Enter", "a new key", "nowhere")))
    before = (tmp_path / "README.md").read_text("utf-8")
    assert docs.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "README.md" in err and "docs/keypad.md" in err and "switches" not in err, err
    assert (tmp_path / "README.md").read_text("utf-8") == before  # --check writes nothing
    assert docs.main([]) == 0
    assert "| `9` Enter | a new key | nowhere |" in (tmp_path / "README.md").read_text("utf-8")
    assert docs.main(["--check"]) == 0


def test_every_link_in_the_readme_and_the_docs_resolves() -> None:
    """A link to a file of the repository names one that is there (web links aside)."""
    pages = [docs.ROOT / "README.md", *sorted((docs.ROOT / "docs").rglob("*.md"))]
    missing = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text("utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                missing.append(f"{page.relative_to(docs.ROOT)}: {target}")
    assert len(pages) > 3 and not missing, missing


# --- citations name what the repository holds ---------------------------------------------
#
# The code, the tests and the docs cite the rules by page and section (docs/rules.md §0.3,
# a game's page by its section number); a file outside the repository, or an issue by its
# number, means nothing to a reader of the repository, so none is cited.

# Built from pieces, as are the examples below, so that this file does not match itself.
ELSEWHERE = re.compile(
    "|".join(
        (
            r"\b(?:RULES|SCENARIOS|STYLE)\.md",  # the specs the pages replaced (upper case)
            r"\bshare" + r"d/",  # a folder beside the checkout
            r"\b[Ii]ssues? #?\d+",  # an issue by its number
        )
    )
)
PAGE = re.compile(r"(?<![\w./-])(docs/[\w./-]+?\.md)\b")
NUMBER = r"\d+(?:\.\d+)?"
SECTIONS = rf"§{NUMBER}(?: item \d+)?(?:[–-]\d+\.\d+)?"
CITATION = re.compile(rf"(?<![\w./-])(docs/[\w./-]+?\.md) ({SECTIONS}(?:(?:, | and ){SECTIONS})*)")
CITED_NUMBER = re.compile(rf"(?:§|[–-])({NUMBER})")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
BINARY = (".ogg", ".wav", ".png", ".whl", ".zip", ".flac")
D = "docs"  # in the examples


def tracked_texts() -> dict[str, str]:
    """Every file git tracks that reads as UTF-8 text, by its path in the repository."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=docs.ROOT, capture_output=True, check=True
    ).stdout.decode()
    texts = {}
    for name in filter(None, names.split("\0")):
        path = docs.ROOT / name
        if name.endswith(BINARY) or not path.is_file():
            continue
        try:
            texts[name] = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def elsewhere(text: str) -> list[tuple[int, str]]:
    """``(line, what)`` for everything ``text`` cites outside the repository."""
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(0))
        for match in ELSEWHERE.finditer(text)
    ]


def cited_sections(text: str) -> list[tuple[str, str]]:
    """``(page, section)`` for every page of docs/ cited with a section (``§0.3``) in
    ``text``, lists (``§4.5, §4.8``) and ranges (``§4.4–4.11``: both ends) included."""
    return [
        (match.group(1), number)
        for match in CITATION.finditer(text)
        for number in CITED_NUMBER.findall(match.group(2))
    ]


def headings(page: str) -> list[str]:
    """The headings of a markdown page, those inside code blocks left out."""
    return HEADING.findall(re.sub(r"```.*?```", "", page, flags=re.DOTALL))


def test_the_citation_checks_see_what_they_look_for() -> None:
    spec, issue, beside = "RULES" + ".md", "issue" + " 28", "share" + "d/"
    assert elsewhere(f"as {spec} 2.4 says\n({issue} #8), see ../{beside}notes.md") == [
        (1, spec),
        (2, issue),
        (2, beside),
    ]
    assert elsewhere(f"{D}/rules.md §0.3 and {D}/scenarios.md, file issues") == []
    text = (
        f"{D}/games/alliance.md §4.5, §4.8 and §4.10; {D}/rules.md §0.3. "
        f"{D}/games/alliance.md §4.4–4.11, {D}/games/halloween.md §2.6 item 1, §2.7."
    )
    alliance, halloween = f"{D}/games/alliance.md", f"{D}/games/halloween.md"
    assert cited_sections(text) == [
        (alliance, "4.5"),
        (alliance, "4.8"),
        (alliance, "4.10"),
        (f"{D}/rules.md", "0.3"),
        (alliance, "4.4"),
        (alliance, "4.11"),
        (halloween, "2.6"),
        (halloween, "2.7"),
    ]
    assert headings("# Title\n\n## 0.3 How\n```\n## 9.9 not one\n```\n### 5 Keys\n") == [
        "Title",
        "0.3 How",
        "5 Keys",
    ]


def test_no_file_cites_what_the_repository_does_not_hold() -> None:
    """No tracked file cites an outside spec, a folder beside the checkout or an issue."""
    found = [
        f"{name}:{line}: {hit}"
        for name, text in tracked_texts().items()
        for line, hit in elsewhere(text)
    ]
    assert not found, "\n".join(found)


def test_every_cited_page_is_in_the_repository() -> None:
    """A page of docs/ named anywhere (code, tests, scripts, docs) is there."""
    missing = sorted(
        {
            f"{name}: {page}"
            for name, text in tracked_texts().items()
            for page in PAGE.findall(text)
            if not (docs.ROOT / page).is_file()
        }
    )
    assert not missing, "\n".join(missing)


def test_every_cited_section_is_a_heading_of_its_page() -> None:
    """A section cited as ``§2.4`` after its page needs a heading of that page that starts
    ``2.4 `` (``## 2.4 Night actions``); ``§5``, one that starts ``5 ``."""
    cited: dict[tuple[str, str], str] = {}
    for name, text in tracked_texts().items():
        for citation in cited_sections(text):
            cited.setdefault(citation, name)
    assert ("docs/rules.md", "0.3") in cited
    missing = []
    for (page, number), name in sorted(cited.items()):
        path = docs.ROOT / page
        titles = headings(path.read_text("utf-8")) if path.is_file() else []
        if not any(title.startswith(f"{number} ") for title in titles):
            missing.append(f"{page} §{number} (cited in {name})")
    assert not missing, "\n".join(missing)
