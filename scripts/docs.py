#!/usr/bin/env python3
"""Write the parts of the docs that the code already says, so they cannot fall behind.

    .venv/bin/python scripts/docs.py           # write them
    .venv/bin/python scripts/docs.py --check   # exit 1 naming each stale file (the suite runs it)

- ``docs/keypad.md`` and the README's keypad table: from ``narrator.rules.codec.KEYPAD``;
- ``docs/switches.md``: each game's rule switches (name, default, range, meaning) from
  its switches model, the same model ``-o KEY=VALUE`` and the set-up screen are built from;
- ``docs/cli.md``: the help of every command, from the argument parser.

A generated part of a hand-written page (the README, each game's page in
``docs/games/``) sits between ``<!-- generated: NAME -->`` and
``<!-- /generated -->``; everything else in it is written by hand. The parts:
``keypad`` (the keypad table) and ``switches_GAME`` (that game's switches).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import sys
from collections.abc import Callable
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from narrator.rules.codec import KEYPAD
from narrator.rules.registry import GAMES
from narrator.rules.registry import get_variant

ROOT = Path(__file__).resolve().parents[1]
HEAD = "<!-- Written by scripts/docs.py from the code: edit the code, then run it. -->\n\n"
WIDTH = "100"  # the help's line width, fixed so the file is the same on every terminal


def table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def keypad_table() -> str:
    return table(("keys", "answer", "where"), KEYPAD)


def keypad_page() -> str:
    return (
        HEAD + "# The keypad\n\nEvery answer is typed with the keys of a numeric keypad, the "
        "same on the full screen and in the text host (one codec, `narrator/rules/codec.py`):"
        "\n\n" + keypad_table()
    )


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"`{value!r}`" if isinstance(value, str) else f"`{value}`"


def _range(field: Any) -> str:
    bounds = {type(m).__name__: m for m in field.metadata}
    parts = [
        f"{word} {getattr(bounds[name], attr)}"
        for name, attr, word in (("Ge", "ge", "≥"), ("Gt", "gt", ">"), ("Le", "le", "≤"))
        if name in bounds
    ]
    choices = re.findall(r"Literal\[(.*)\]", str(field.annotation))
    return ", ".join(parts) or (choices[0].replace("'", '"') if choices else "")


def switches_table(name: str) -> str:
    """One game's rule switches: name, default, range and meaning, from its model."""
    rows = [
        (f"`{key}`", _value(field.default), _range(field), field.description or "")
        for key, field in get_variant(name).switches.model_fields.items()
    ]
    return table(("switch", "default", "range", "what it does"), rows)


def switches_page() -> str:
    out = [
        HEAD,
        "# Rule switches\n\nSet with `-o KEY=VALUE` on the command line or on the ",
        "set-up screen; a damaged value in a remembered set-up is replaced by its default.\n",
    ]
    for name in GAMES:  # the games that ship (the tests register a toy one)
        out.append(f"\n## `{name}`\n\n")
        out.append(switches_table(name))
    return "".join(out)


def cli_page() -> str:
    from narrator.cli import _parser

    parser = _parser()
    out = [HEAD, "# The command line\n\n"]
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        out.append(_help("narrator --help", parser))
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for command, sub in actions[0].choices.items():
            out.append(_help(f"narrator {command} --help", sub))
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return "".join(out)


def _help(title: str, parser: argparse.ArgumentParser) -> str:
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        parser.print_help()
    return f"## `{title}`\n\n```\n{text.getvalue().rstrip()}\n```\n\n"


def parts() -> dict[str, Callable[[], str]]:
    """Every part a hand-written page may hold, by name."""
    out: dict[str, Callable[[], str]] = {"keypad": keypad_table}
    for name in GAMES:
        out[f"switches_{name}"] = functools.partial(switches_table, name)
    return out


def filled(page: str, current: str) -> str:
    """A hand-written page with its generated parts written anew."""
    known = parts()

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in known:
            raise SystemExit(f"docs: {page} names an unknown generated part {name!r}")
        return f"<!-- generated: {name} -->\n{known[name]()}<!-- /generated -->"

    return re.sub(r"<!-- generated: (\w+) -->\n.*?<!-- /generated -->", fill, current, flags=re.S)


def readme(current: str) -> str:
    """The README with its generated parts written anew."""
    return filled("README.md", current)


def targets() -> dict[Path, str]:
    out = {
        ROOT / "docs" / "keypad.md": keypad_page(),
        ROOT / "docs" / "switches.md": switches_page(),
        ROOT / "docs" / "cli.md": cli_page(),
    }
    for page in [ROOT / "README.md", *sorted((ROOT / "docs" / "games").glob("*.md"))]:
        if page.exists():
            name = str(page.relative_to(ROOT))
            out[page] = filled(name, page.read_text("utf-8"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which files are stale")
    args = parser.parse_args(argv)
    stale = []
    for path, text in targets().items():
        old = path.read_text("utf-8") if path.exists() else None
        if old == text:
            continue
        stale.append(path.relative_to(ROOT))
        if not args.check:
            path.write_text(text, "utf-8")
    if args.check and stale:
        names = ", ".join(map(str, stale))
        print(f"docs: out of date: {names}; run scripts/docs.py", file=sys.stderr)
        return 1
    for name in stale:
        print(f"docs: wrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
