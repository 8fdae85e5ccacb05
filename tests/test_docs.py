"""``scripts/docs.py``: the docs the code writes are as the code says (like the golden files)."""

from __future__ import annotations

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
    import re

    pages = [docs.ROOT / "README.md", *sorted((docs.ROOT / "docs").rglob("*.md"))]
    missing = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text("utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                missing.append(f"{page.relative_to(docs.ROOT)}: {target}")
    assert len(pages) > 3 and not missing, missing
