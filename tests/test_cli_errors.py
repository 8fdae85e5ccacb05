"""Bad input on the command line: exit 2 and one line naming the problem, never a traceback.

A scenario file that is not valid TOML, has unknown keys or values, or an
invalid deal is a file error (docs/scenarios.md). A bad *answer* is not: it is a
rejected attempt in the result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import run_cli

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 30

HEAD = 'game = "onenight"\nseed = 1\n'
DEAL = {
    "1": "werewolf",
    "2": "werewolf",
    "3": "high_inquisitor",
    "4": "spirit",
    "5": "inquisitor",
}
CENTER = 'center = ["inquisitor", "inquisitor", "inquisitor"]\n'


def _deal(seats: dict[str, str], center: str = CENTER) -> str:
    lines = "".join(f'{seat} = "{role}"\n' for seat, role in seats.items())
    return f"[deal]\n{lines}{center}"


def _cli(*args: str, stdin: int | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, timeout=TIMEOUT_S, stdin=stdin)


def _scenario(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    return _cli("scenario", "run", str(path))


def _one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, f"exit {done.returncode}: {done.stdout}{done.stderr}"
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got: {done.stderr!r}"
    line = lines[0]
    for word in words:
        assert word in line, f"{word!r} not in {line!r}"
    assert not done.stdout.strip(), "nothing on stdout for a bad file"
    return line


BAD_FILES = {
    "invalid_toml": ("game = onenight\n[deal\n", ("TOML",)),
    "unknown_top_level_key": (HEAD + "foo = 1\n" + _deal(DEAL), ("foo", "unknown key")),
    "unknown_option": (HEAD + "[options]\nfoo = 1\n" + _deal(DEAL), ("options.foo", "unknown")),
    "bad_option_value": (
        HEAD + '[options]\ncenter_cards = "x"\n' + _deal(DEAL),
        ("options.center_cards", "integer"),
    ),
    "unknown_game": ('game = "chess"\nseed = 1\n' + _deal(DEAL), ("game", "onenight")),
    "unknown_role_id": (
        HEAD + _deal({**DEAL, "3": "seer"}),
        ("deal.3", "unknown role", "seer"),
    ),
    "unknown_role_in_center": (
        HEAD + _deal(DEAL, 'center = ["inquisitor", "villager", "inquisitor"]\n'),
        ("deal.center", "villager"),
    ),
    "three_werewolves": (
        HEAD + _deal({**DEAL, "5": "werewolf"}),
        ("deal", "werewolf", "3", "2"),
    ),
    "missing_seat": (
        HEAD + _deal({k: v for k, v in DEAL.items() if k != "3"}),
        ("deal", "missing", "3"),
    ),
    "eight_seats": (
        HEAD + _deal({**DEAL, "6": "inquisitor", "7": "inquisitor", "8": "inquisitor"}, ""),
        ("deal", "3–7", "8"),
    ),
    "two_seats": (
        HEAD + _deal({"1": "werewolf", "2": "spirit"}, ""),
        ("deal", "3–7", "2"),
    ),
    "missing_center": (HEAD + _deal(DEAL, ""), ("deal.center", "3")),
    "bad_stop_before": (HEAD + 'stop_before = "x1"\n' + _deal(DEAL), ("stop_before",)),
    "no_deal": (HEAD, ("deal",)),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_scenario_file_exits_2_with_one_line(tmp_path: Path, name: str) -> None:
    text, words = BAD_FILES[name]
    _one_line_error(_scenario(tmp_path, text), *words)


def test_error_names_the_file(tmp_path: Path) -> None:
    line = _one_line_error(_scenario(tmp_path, HEAD + _deal({**DEAL, "5": "werewolf"})))
    assert "bad.toml" in line


def test_missing_file_exits_2(tmp_path: Path) -> None:
    _one_line_error(_cli("scenario", "run", str(tmp_path / "nope.toml")), "nope.toml")


def test_garbage_answer_is_rejected_not_a_file_error(tmp_path: Path) -> None:
    text = HEAD + _deal(DEAL) + '[answers]\n"n1.spirit" = "banana"\n'
    done = _scenario(tmp_path, text)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    rejected = [r for r in result["rejected"] if r["prompt"] == "n1.spirit"]
    assert [r["input"] for r in rejected] == ["banana"]
    assert rejected[0]["reason"]
    # the window then expires: no swap, so the spirit is shown nothing
    assert not [s for s in result["secrets"] if s["prompt"] == "n1.spirit"]


def test_answers_to_prompts_never_asked_are_ignored(tmp_path: Path) -> None:
    text = HEAD + _deal(DEAL) + '[answers]\n"n7.nothing" = "3"\n"d1.vote.9" = "1"\n'
    done = _scenario(tmp_path, text)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rejected"] == []


def test_play_unknown_game_lists_known_games() -> None:
    with open("/dev/null", encoding="utf-8") as devnull:
        done = _cli("play", "nosuchgame", "--text", stdin=devnull.fileno())
    _one_line_error(done, "nosuchgame", "onenight")


def test_play_too_many_players_names_the_range() -> None:
    with open("/dev/null", encoding="utf-8") as devnull:
        done = _cli("play", "onenight", "--players", "9", "--text", stdin=devnull.fileno())
    _one_line_error(done, "3–7", "9")


@pytest.mark.parametrize(
    "args",
    [
        ["play", "onenight", "--bogus"],
        ["play", "onenight", "--text", "--answer-time", "inf"],
        ["play", "onenight", "--text", "--record-dir", ""],
        ["demo", "onenight", "--output", "game.mp3"],
        [],
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str]) -> None:
    """Not argparse's usage block: what is wrong, and where the help is."""
    done = _cli(*args, stdin=subprocess.DEVNULL)
    line = _one_line_error(done)
    assert line.startswith("narrator") and "usage:" not in line


def test_window_and_discussion_name_the_lengths_a_game_has() -> None:
    """sport_mafia has no window_s, alliance no discussion_s: the flag typed is named."""
    for game, flag in (("sport_mafia", "--window"), ("alliance", "--discussion")):
        run = subprocess.run(
            [sys.executable, "-m", "narrator.cli", "play", game, flag, "2", "--text", "--silent"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 2
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"narrator: {flag}:"), lines
        assert "-o speech_s=S" in lines[0]


def test_the_version_is_said_from_its_one_place() -> None:
    """``narrator --version``: the package's version, which pyproject.toml reads too."""
    import importlib.metadata

    from narrator import __version__

    done = _cli("--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"narrator {__version__}\n", "")
    assert importlib.metadata.version("narrator") == __version__
