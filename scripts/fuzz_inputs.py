#!/usr/bin/env python3
"""Fuzz the two doors anyone can knock on: scenario files and the command line.

Scenario files are mutations of ``tests/scenarios/*.toml`` (values, keys, seats,
answers, types, sizes, nesting, bytes) plus garbage (random bytes, huge files,
``/dev/zero``, folders, missing files). Command lines are drawn from the real
options with good, bad and hostile values. Each case runs in this process
(``narrator.cli.main(argv)``, SystemExit caught) with the game clock replaced by
a virtual one (a demo game at the table takes no real time) and no sound card;
a sample also runs as real subprocesses (not the games at the table, which
would take their real minutes there).

A case passes when it exits 0, or exits 2 with exactly one line on standard error
(130/143 when it was stopped); anything else is reported: a traceback, a hang
(``--timeout`` seconds of machine time), a memory blow-up (the address space is
limited to ``--memory-mb``; MemoryError) or another exit. The slowest cases are
listed too. Exit status 1 when any case failed.

    .venv/bin/python scripts/fuzz_inputs.py [--files 1000] [--lines 500] [--subprocess 40]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "tests" / "scenarios"

GAMES = ("onenight", "halloween", "sport_mafia", "alliance")
ROLES = [
    "werewolf", "high_inquisitor", "spirit", "inquisitor", "vampire", "witch", "hunter",
    "villager", "civilian", "sheriff", "mafia", "don", "seer", "guard", "cupid",
]  # fmt: skip
ACTIONS = [
    "high_inquisitor", "spirit", "vote", "revote", "vampires", "witch", "hunter", "shoot",
    "don", "sheriff", "nominate", "all_leave", "cupid", "guard", "wolves", "witch_save",
    "witch_poison", "seer", "candidates", "withdraw", "sheriff_vote", "sheriff_revote",
    "election.explode", "speeches.explode", "badge", "order", "pk_vote",
]  # fmt: skip
WEIRD_NUMBERS = [
    "0", "-1", "-0", "1e309", "inf", "-inf", "nan", "1e8", "100000000", "1000000000",
    "99999999999999999999999", "0x10", "1_000", "٣", "３", "3.0", "2.5", "", " ", "1e-320",
]  # fmt: skip
WEIRD_TEXTS = [
    "", " ", "none", "abstain", "yes", "no", "destroy", "center 1 3", "center 9 9 9", "7 7 7",
    "3 +", "3 -", "8 2", "١", "１", "٣ ٤", "nobody", "\u200b", "x" * 300, "7" * 60, "-3",
    "center", "1 1", "99", "0", "\t", "☃", "None", "null", "1,2",
]  # fmt: skip


class Hang(BaseException):
    """The per-case timeout fired (a BaseException: nothing in narrator may catch it)."""


@dataclass
class Outcome:
    kind: str  # "scenario" or "cli" (+ " subprocess")
    case: str  # a file name or the argv
    status: str  # ok | traceback | hang | memory | bad-exit
    code: int | None = None
    seconds: float = 0.0
    detail: str = ""


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status != "ok"]


# --- TOML out ---------------------------------------------------------------------------


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value))


def _key(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)


def to_toml(data: dict[str, Any]) -> str:
    lines = [f"{_key(k)} = {_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for name, table in data.items():
        if isinstance(table, dict):
            lines.append(f"[{_key(name)}]")
            lines.extend(f"{_key(k)} = {_value(v)}" for k, v in table.items())
    return "\n".join(lines) + "\n"


# --- scenario files ---------------------------------------------------------------------


def _nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def _answer(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.35:
        return str(rng.randrange(-2, 16))
    if pick < 0.7:
        return rng.choice(WEIRD_TEXTS)
    if pick < 0.8:
        return rng.choice([True, False, 1.5, math.nan, 7, -7, 10**30, [], {}, {"a": 1}])
    if pick < 0.9:
        return [_answer(rng) for _ in range(rng.randrange(0, 5))]
    return " ".join(str(rng.randrange(0, 14)) for _ in range(rng.randrange(1, 5)))


def _prompt_id(rng: random.Random) -> str:
    phase = rng.choice("nd") + str(rng.choice([0, 1, 1, 2, 3, 5, 31, 10**6]))
    action = rng.choice(ACTIONS)
    if rng.random() < 0.4:
        action += f".{rng.randrange(0, 14)}"
    return f"{phase}.{action}"


def mutate_data(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One to four structured changes to a parsed scenario; a change that does not
    apply (an empty deal to damage) deals a table of random cards instead."""
    data = json.loads(json.dumps(data, default=str))
    for _ in range(rng.randrange(1, 5)):
        pick = rng.randrange(14)
        deal = data.setdefault("deal", {})
        answers = data.setdefault("answers", {})
        data.setdefault("options", {})
        if pick in (2, 3, 4, 5):
            applied = _mutate_deal(pick, deal, rng)
        elif pick in (6, 7, 12, 13):
            applied = _mutate_answers(pick, answers, rng)
        else:
            applied = _mutate_values(pick, data, rng)
        if not applied:
            for seat in range(1, rng.randrange(2, 30)):
                deal[str(seat)] = rng.choice(ROLES)
    return data


def _mutate_values(pick: int, data: dict[str, Any], rng: random.Random) -> bool:
    """The game, the seed, a switch, where to stop, the language, an unknown key."""
    if pick == 0:
        data["game"] = rng.choice([*GAMES, "chess", "", 5, True, "Onenight"])
    elif pick == 1:
        data["seed"] = rng.choice([True, -1, 2**64, 2**70, 1.5, "1", 0, math.inf])
    elif pick == 8:
        name = rng.choice(
            ["window_s", "discussion_s", "center_cards", "roles", "unvoted_to_last",
             "shooting", "cupid_enabled", "seer_center_count", "bogus", "speech_s"]
        )  # fmt: skip
        data["options"][name] = rng.choice(
            [0, -1, 1e9, 10**12, math.inf, math.nan, True, "x", "werewolf=100000000",
             "vampire=3,witch=1", [1], 3, 0.001, "call"]
        )  # fmt: skip
    elif pick == 9:
        data["stop_before"] = rng.choice(["n1", "d1", "n٣", "x1", "n99999", "", 3])
    elif pick == 10:
        data["lang"] = rng.choice(["ru", "en", "de", "", 1])
    else:
        data[rng.choice(["foo", "Game", "deal ", "answer"])] = 1
    return True


def _mutate_deal(pick: int, deal: dict[str, Any], rng: random.Random) -> bool:
    """A seat named wrong, a card, a seat dropped, the centre; False for an empty deal's
    seats."""
    if pick == 2 and deal:
        bad = ["١", "１", "0", "-1", "1000000000", "100000000", "1e8", "01", "x"]
        deal[rng.choice(bad)] = deal.pop(rng.choice(list(deal)))
    elif pick == 3:
        deal[str(rng.randrange(1, 40))] = rng.choice([*ROLES, "", 5, ["werewolf"], None])
    elif pick == 4 and deal:
        deal.pop(rng.choice(list(deal)))
    elif pick == 5:
        deal["center"] = rng.choice(
            [[], ["werewolf"], [rng.choice(ROLES) for _ in range(rng.randrange(5))], "x", 3]
        )
    else:
        return False
    return True


def _mutate_answers(pick: int, answers: dict[str, Any], rng: random.Random) -> bool:
    """An answer added or changed, many attempts; False when there was none to change."""
    if pick == 6:
        answers[_prompt_id(rng)] = _answer(rng)
    elif pick == 7 and answers:
        answers[rng.choice(list(answers))] = _answer(rng)
    elif pick == 12:
        answers[_prompt_id(rng)] = [_answer(rng) for _ in range(rng.randrange(50, 400))]
    elif pick == 13 and answers and rng.random() < 0.3:
        # tens of thousands of attempts at a prompt the game asks (an interrupt once
        # recursed once per rejected attempt)
        key = rng.choice(list(answers))
        answers[key] = [rng.choice(["x", "0", "1 1", "99"])] * rng.choice([1000, 30_000])
    else:
        return False
    return True


def mutate_text(text: str, rng: random.Random) -> str:
    """Byte- and line-level damage to a file's text."""
    lines = text.splitlines()
    pick = rng.randrange(10)
    if pick == 0 and lines:
        del lines[rng.randrange(len(lines))]
    elif pick == 1 and lines:
        lines.insert(rng.randrange(len(lines)), rng.choice(lines))
    elif pick == 2:
        cut = rng.randrange(len(text) + 1)
        return text[:cut]
    elif pick == 3:
        at = rng.randrange(len(text) + 1)
        junk = "".join(chr(rng.choice([0, 7, 0x7F, 0x2028, 0xFEFF, 0x661, 0xFF11, 91, 93, 61, 34]))
                       for _ in range(rng.randrange(1, 6)))  # fmt: skip
        return text[:at] + junk + text[at:]
    elif pick == 4:
        lines.append(f"deep = {_nested(rng.choice([5, 9, 50, 400, 2000, 20000]))}")
    elif pick == 5:
        lines.insert(0, "\ufeff")
    elif pick == 6:
        lines.append('"n1.x" = "' + "9" * rng.choice([300, 10_000, 200_000]) + '"')
    elif pick == 7:
        lines = [line.replace("= ", "= " + rng.choice(WEIRD_NUMBERS) + " ", 1)
                 if rng.random() < 0.2 else line for line in lines]  # fmt: skip
    elif pick == 8:
        lines.append(f'[deal]\n{rng.choice(["١", "１", "1000000000", "100000000"])} = "werewolf"')
    else:
        lines.append("[answers]\n" + "\n".join(f'"n1.x{i}" = "1"' for i in range(2000)))
    return "\n".join(lines) + "\n"


def garbage(rng: random.Random, folder: Path, number: int) -> Path:
    """Not a scenario at all."""
    pick = rng.randrange(9)
    path = folder / f"garbage-{number}.toml"
    if pick == 0:
        path.write_bytes(rng.randbytes(rng.randrange(0, 5000)))
    elif pick == 1:
        path.write_bytes(b'game = "onenight"\n' + b"#" * (300 * 1024))
    elif pick == 2:
        return Path("/dev/zero")
    elif pick == 3:
        return folder
    elif pick == 4:
        return folder / "missing.toml"
    elif pick == 5:
        path.write_text("", encoding="utf-8")
    elif pick == 6:
        path.write_text("x = " + _nested(rng.choice([100, 1000, 3000])), encoding="utf-8")
    elif pick == 7:
        path.write_bytes('game = "onenight"\n'.encode("utf-16"))
    else:
        path.write_text(
            "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(1, 2000))),
            encoding="utf-8",
        )
    return path


def scenario_files(count: int, rng: random.Random, folder: Path) -> Iterator[Path]:
    sources = sorted(SCENARIOS.glob("*.toml"))
    for number in range(count):
        if number % 10 == 9:
            yield garbage(rng, folder, number)
            continue
        source = rng.choice(sources)
        text = source.read_text(encoding="utf-8")
        if rng.random() < 0.6:
            text = to_toml(mutate_data(tomllib.loads(text), rng))
        if rng.random() < 0.5:
            text = mutate_text(text, rng)
        path = folder / f"{number:05}-{source.stem}.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        yield path


# --- command lines ----------------------------------------------------------------------


def _number(rng: random.Random, good: list[str]) -> str:
    return rng.choice(good) if rng.random() < 0.85 else rng.choice(WEIRD_NUMBERS)


def command_line(rng: random.Random, folder: Path, number: int) -> list[str]:
    pick = rng.random()
    if pick < 0.14:
        return _other_command(rng, folder, pick)
    command = "demo" if pick < 0.4 else "play"
    game = rng.choice([*GAMES, *GAMES, "chess", "", "Onenight"])
    argv = [command, game]
    if rng.random() < 0.6:
        argv += ["--players", _number(rng, ["3", "5", "7", "9", "10", "12"])]
    if rng.random() < 0.5:
        argv += ["--seed", _number(rng, ["1", "2", "42", "4294967295", "-5"])]
    if rng.random() < 0.3:
        argv += ["--lang", rng.choice(["ru", "en", "de"])]
    argv += _play_options(rng) if command == "play" else _demo_options(rng, folder, number)
    if rng.random() < 0.35:
        argv += ["-o", rng.choice(
            ["lone_wolf_peek=true", "center_cards=3", "center_cards=1000000000", "roles=\"x\"",
             'roles="werewolf=1,spirit=1"', 'roles="vampire=100000000"', "=", "x", "k=[[[[",
             "bogus=1", 'shooting="call"', "unvoted_to_last=true", "cupid_enabled=true",
             "window_s=inf", "window_s=nan", "window_s=-1", "discussion_s=1e300",
             "k=" + "[" * 3000]
        )]  # fmt: skip
    if rng.random() < 0.7 or command == "play":
        argv += ["--record-dir", str(folder / "records")]
    elif rng.random() < 0.3:
        argv += ["--record-dir", rng.choice(["", "/proc", "/dev/null", str(folder / "r")])]
    if rng.random() < 0.05:
        argv.insert(rng.randrange(len(argv) + 1), rng.choice(["--bogus", "-x", "--", "-o"]))
    return argv


def _other_command(rng: random.Random, folder: Path, pick: float) -> list[str]:
    """A command line that plays no game: help, the lists, a scenario run."""
    if pick < 0.04:
        return rng.choice([[], ["--help"], ["nosuch"], ["play"], ["games"], ["scenario"]])
    if pick < 0.08:
        return rng.choice([["games"], ["games", "x"], ["models", "list", "--dir", str(folder)]])
    sources = sorted(SCENARIOS.glob("*.toml"))
    argv = ["scenario", "run", str(rng.choice(sources))]
    return (
        argv
        + (["--text"] if rng.random() < 0.5 else [])
        + (["--bogus"] if rng.random() < 0.1 else [])
    )


def _play_options(rng: random.Random) -> list[str]:
    argv = ["--text", "--silent"]  # the real-time voice is exercised by the demo cases
    if rng.random() < 0.5:
        argv += ["--answer-time", _number(rng, ["0.5", "1", "2.5", "10"])]
    if rng.random() < 0.4:
        argv += ["--window", _number(rng, ["0.5", "1", "3.2", "0.1"])]
    if rng.random() < 0.4:
        argv += ["--discussion", _number(rng, ["0", "0.5", "1"])]
    if rng.random() < 0.1:
        argv.append("--demo")
    if rng.random() < 0.05:
        argv += ["--input", rng.choice(["voice", "keyboard"])]
    return argv


def _demo_options(rng: random.Random, folder: Path, number: int) -> list[str]:
    argv: list[str] = []
    pick_out = rng.random()
    if pick_out < 0.5:
        suffix = (".ogg", ".flac", ".wav")[number % 3]  # not drawn: the draws stay as they were
        argv += ["--output", str(folder / f"demo-{number}{suffix}")]
    elif pick_out < 0.8:
        argv += ["--output", rng.choice(
            [str(folder / "x"), str(folder / "x.mp3"), str(folder), "", str(folder / "d/"),
             "/proc/x.wav", str(folder / "nested" / "deeper" / f"d{number}.wav")]
        )]  # fmt: skip
    if rng.random() < 0.3:
        argv += ["--knock-volume", _number(rng, ["0", "0.35", "1", "1.5"])]
    if rng.random() < 0.3:
        argv += ["--knock-density", _number(rng, ["0", "3", "20", "21"])]
    if rng.random() < 0.2:
        argv.append(rng.choice(["--no-knocks", "--ticks"]))
    if rng.random() < 0.2:
        argv += ["--rate", _number(rng, ["150", "300", "39", "601"])]
    short = ["window_s", "discussion_s", "speech_s", "vampires_s", "meeting_s", "check_s"]
    for name in rng.sample(short, rng.randrange(0, 3)):
        argv += ["-o", f"{name}={_number(rng, ['0.5', '1', '2.2', '3.2'])}"]
    return argv


# --- every subcommand and option -------------------------------------------------------------

INTS = ["3", "5", "7", "10", "12", "1", "42"]
BAD_INTS = [
    *WEIRD_NUMBERS, "99999999999999999999999", "-99999999999999999999", "1e3", "+5", " 5", "5 ",
    "٣", "x", "--5", "0b1", "4294967296", "9" * 4000,
]  # fmt: skip
FLOATS = ["0.5", "1", "2.5", "0", "0.35", "10"]
BAD_FLOATS = [*WEIRD_NUMBERS, "0x1p3", "1e-400", "-1e309", "1.5.2", "½", "3,5", "+inf"]
TEXTS = [
    "", " ", "-", "--", "-x", "=", "x=y", "\x00", "a\x00b", "\x1b[2J", "\u202e", "🔊", "默认",
    "x" * 10_000, "..", "../../etc", "/", "default", "auto", "0", "-1", "nan", "\n", "ко",
]  # fmt: skip
LANGS = ["ru", "en"]
BAD_LANGS = ["de", "", "RU", "ru ", " en", "ко", "ru,en", "\x00", "x" * 300]
SUBCOMMANDS = [
    "play", "resume", "demo", "voices", "voice build", "voice record", "scenario run", "games",
    "models download", "models list", "mic-test",
]  # fmt: skip
# The options of each subcommand (narrator/cli.py) and the kind of value each takes.
OPTIONS: dict[str, dict[str, str]] = {
    "table": {
        "--players": "int", "--lang": "lang", "--seed": "int", "--window": "float",
        "--discussion": "float", "--answer-time": "float", "--record-dir": "folder",
        "--input": "input", "--asr-model": "folder", "--input-device": "text",
        "--push-to-talk": "flag", "--demo": "flag", "-o": "option",
    },
    "resume": {
        "--list": "flag", "--lang": "lang", "--record-dir": "folder", "--answer-time": "float",
        "--input": "input", "--asr-model": "folder", "--input-device": "text",
        "--push-to-talk": "flag",
    },
    "sound": {
        "--voice": "text", "--rate": "rate", "--voice-pack": "text", "--no-knocks": "flag",
        "--knock-volume": "float", "--speech-volume": "float", "--knock-density": "float",
        "--ticks": "flag",
    },
    "demo": {
        "--players": "int", "--lang": "lang", "--seed": "int", "--output": "output",
        "--record-dir": "folder", "-o": "option",
    },
    "voice build": {"--lang": "lang", "--variant": "game", "--voice": "text", "--rate": "rate"},
    "voice record": {"--lang": "lang", "--pack": "text", "--variant": "game"},
    "scenario run": {"--text": "flag"},
    "models download": {"--dir": "folder", "--url": "url"},
    "models list": {"--dir": "folder"},
    "mic-test": {
        "--lang": "lang", "--asr-model": "folder", "--input-device": "text", "--seconds": "float",
    },
}  # fmt: skip


def bad_paths(folder: Path) -> list[str]:
    """Paths that are wrong as a file or a folder: missing, the other kind, a device, a
    file system that refuses writes, a name that is not UTF-8, too long, a loop."""
    plain = folder / "plain.txt"
    if not plain.exists():
        plain.write_text("x\n", encoding="utf-8")
    loop = folder / "loop"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    return [
        "", " ", str(folder), str(folder / "missing" / "deeper"), str(plain), str(plain / "sub"),
        "/dev/null", "/dev/zero", "/dev/full", "/proc/self/mem", "/proc/nope", "/sys/x",
        os.fsdecode(bytes(folder) + b"/\xff\xfe"), str(folder / ("x" * 300)),
        str(folder / "/".join(["d" * 200] * 25)), str(loop), str(loop / "x"), "a\x00b", "~",
        "/proc/1/root", "-", "--",
    ]  # fmt: skip


def _argument(kind: str, good: bool, rng: random.Random, folder: Path) -> str:
    """One value of ``kind``: a good one, or a bad one."""
    if kind == "int":
        return rng.choice(INTS if good else BAD_INTS)
    if kind == "float":
        return rng.choice(FLOATS if good else BAD_FLOATS)
    if kind == "rate":
        return rng.choice(["150", "300", "40", "600"] if good else ["39", "601", *BAD_INTS])
    if kind == "lang":
        return rng.choice(LANGS if good else BAD_LANGS)
    if kind == "input":
        return rng.choice(["keypad", "voice"] if good else ["keyboard", "", "VOICE", *TEXTS[:5]])
    if kind == "game":
        return rng.choice([*GAMES] if good else ["chess", "", "Onenight", "toy", *TEXTS])
    if kind == "folder":
        return str(folder / "r" / str(rng.randrange(5))) if good else rng.choice(bad_paths(folder))
    if kind == "output":
        if good:
            return str(folder / f"o{rng.randrange(99)}{rng.choice(['.wav', '.ogg', '.flac'])}")
        bad = [*bad_paths(folder), str(folder / "x.mp3"), "/dev/full.wav", "/proc/x.wav"]
        return rng.choice([*bad, str(Path(os.fsdecode(b"/tmp/\xff")) / "o.wav")])
    if kind == "url":  # never the real source: every case stays on this machine
        local = ["file:///dev/zero", f"file://{folder}", f"file://{folder}/plain.txt"]
        return rng.choice([*local, "x", "", " ", "http://127.0.0.1:9/x.zip", "http://[::1",
                           "ftp://127.0.0.1:9/x", "file:///nonexistent", "javascript:x",
                           "file:///proc/self/mem", "\x00"])  # fmt: skip
    if kind == "option":
        keys = ["window_s", "discussion_s", "roles", "cycle_limit", "shooting", "center_cards",
                "bogus", "", "witch_self_save", "speech_s", "x" * 200]  # fmt: skip
        values = ["1", "true", "nan", "inf", "-1", "1e309", '"x"', "[[[[", "{a=1}", "", "=",
                  '"call"', "10000000000", '"werewolf=100000000"', "0.001"]  # fmt: skip
        return f"{rng.choice(keys)}={rng.choice(values)}" if not good else "window_s=1"
    return rng.choice(["auto", "default", "x"] if good else TEXTS)


def subcommand_line(rng: random.Random, folder: Path) -> list[str]:
    """Any subcommand with random options, good and bad values, and broken syntax.

    Cases that would run for long or reach outside stay bounded: a game at the table
    only with ``--text --silent`` (``resume`` with ``--demo`` too) and standard input
    closed; ``voice build``, ``voice record`` and ``mic-test`` always with one value
    that stops them before they render, record or listen; ``models download`` only
    from a URL on this machine, into a folder of this run.
    """
    command = rng.choice(SUBCOMMANDS)
    argv = command.split()
    options: dict[str, str] = {}
    if command in {"play", "demo"}:
        argv.append(_argument("game", rng.random() < 0.8, rng, folder))
        options = {**OPTIONS["table" if command == "play" else "demo"], **OPTIONS["sound"]}
    elif command == "resume":
        if rng.random() < 0.5:
            argv.append(_argument("int", rng.random() < 0.5, rng, folder))
        options = {**OPTIONS["resume"], **OPTIONS["sound"]}
    elif command == "scenario run":
        sources = sorted(SCENARIOS.glob("*.toml"))
        good = rng.random() < 0.5
        argv.append(str(rng.choice(sources)) if good else _argument("folder", False, rng, folder))
        options = OPTIONS[command]
    elif command == "models download":
        argv.append(_argument("lang", rng.random() < 0.7, rng, folder))
        options = OPTIONS[command]
    else:
        options = OPTIONS.get(command, {})
    chosen = rng.sample(sorted(options), rng.randrange(0, len(options) + 1)) if options else []
    for name in chosen:
        kind = options[name]
        value = [] if kind == "flag" else [_argument(kind, rng.random() < 0.6, rng, folder)]
        argv += [name, *value]
    argv += _bounded(command, argv, rng, folder)
    if rng.random() < 0.25:  # broken syntax: an unknown option, a value missing, a stray word
        pick = rng.randrange(6)
        if pick == 0:
            argv.insert(rng.randrange(1, len(argv) + 1), rng.choice(["--bogus", "-x", "--pla"]))
        elif pick == 1 and options:
            argv.append(rng.choice([n for n, k in options.items() if k != "flag"] or ["--x"]))
        elif pick == 2:
            argv.append(rng.choice(["stray", "--", "-", "--=", "-o"]))
        elif pick == 3 and chosen:
            twice = rng.choice(chosen)
            argv += [twice] if options[twice] == "flag" else [twice, "1"]
        elif pick == 4:
            argv.insert(0, rng.choice(["--lang", "-o", "--help", "--version"]))
        else:
            argv[0] = rng.choice([argv[0].upper(), argv[0] + "x", argv[0][:-1] or "x"])
    return argv


def _bounded(command: str, argv: list[str], rng: random.Random, folder: Path) -> list[str]:
    """What keeps a case short (see subcommand_line)."""
    if command in {"play", "resume"}:
        return ["--text", "--silent", *(["--demo"] if command == "resume" else [])] + (
            [] if "--record-dir" in argv else ["--record-dir", str(folder / "records")]
        )
    if command == "voice build":  # an unknown game or a bad rate stops it before it renders
        return rng.choice([["--variant", "chess"], ["--rate", "5"], ["--lang", "de"]])
    if command == "voice record":  # before it opens the microphone
        return rng.choice([["--variant", "chess"], ["--lang", "de"], ["--pack"]])
    if command == "mic-test":  # before a model loads or the microphone opens
        return ["--asr-model", rng.choice([str(folder), "/dev/null", str(folder / "none")])]
    if command == "models download":  # never into the checkout's models/
        where = [] if "--dir" in argv else ["--dir", str(folder / "models")]
        return where + ([] if "--url" in argv else ["--url", _argument("url", False, rng, folder)])
    return []


# --- running ----------------------------------------------------------------------------


class FastClock:
    """The table's clock in a fuzz run: waiting moves virtual time, nothing sleeps."""

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.t += max(seconds, 1e-6)


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise Hang


@contextlib.contextmanager
def _harness(cwd: Path) -> Iterator[None]:
    """No keyboard, no sound card, no real waiting, relative paths inside ``cwd``;
    everything put back afterwards."""
    import narrator.app as app
    import narrator.demo as demo
    import narrator.speaking as speaking

    saved = (sys.stdin, app.RealClock, demo.RealClock, signal.getsignal(signal.SIGALRM))
    problems = (speaking.output_problem, demo.output_problem)
    here = Path.cwd()
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - closed below
    app.RealClock = demo.RealClock = FastClock  # type: ignore[assignment,misc]
    speaking.output_problem = demo.output_problem = lambda: "no sound output device (fuzz run)"
    signal.signal(signal.SIGALRM, _alarm)
    os.chdir(cwd)  # "--record-dir ~" makes a folder "~" here, not in the checkout
    try:
        yield
    finally:
        os.chdir(here)
        sys.stdin.close()
        sys.stdin, app.RealClock, demo.RealClock = saved[0], saved[1], saved[2]
        speaking.output_problem, demo.output_problem = problems
        signal.signal(signal.SIGALRM, saved[3])


# A download's progress bar, redrawn in place ("\r  3.1 MB"), is not a line of its own.
PROGRESS = re.compile(r"(\r(\[[#.]*\] )?\s*\d+\.\d MB( / \d+\.\d MB)?)+")


def judge(code: int | None, stderr: str) -> tuple[str, str]:
    if "Traceback" in stderr:
        return "traceback", stderr[-2000:]
    if code in (0, 130, 143):
        return "ok", ""
    if code == 2:
        lines = [line for line in stderr.strip().split("\n") if not PROGRESS.fullmatch(line)]
        if len(lines) == 1:
            return "ok", ""
        return "bad-exit", f"exit 2 with {len(lines)} lines on stderr: {stderr[-600:]!r}"
    return "bad-exit", f"exit {code}: {stderr[-600:]!r}"


def run_inside(kind: str, argv: list[str], timeout: float) -> Outcome:
    """``narrator.cli.main(argv)`` in this process, its output captured."""
    from narrator import cli

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code: int | None = None
    status, detail = "ok", ""
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
    except Hang:
        status, detail = "hang", f"still running after {timeout:g} s"
    except MemoryError:
        status, detail = "memory", "MemoryError"
    except Exception:
        status, detail = "traceback", traceback.format_exc(limit=8)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    seconds = time.perf_counter() - start
    if status == "ok":
        status, detail = judge(code, err.getvalue())
    return Outcome(kind, " ".join(argv), status, code, seconds, detail)


def run_outside(
    kind: str, argv: list[str], timeout: float, memory_mb: int, cwd: Path = ROOT
) -> Outcome:
    """The same as a real process, with its address space limited."""
    limit = memory_mb * 1024 * 1024
    boot = (
        "import resource, runpy, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
        "sys.argv = ['narrator', *sys.argv[1:]]; "
        "runpy.run_module('narrator.cli', run_name='__main__')"
    )
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", boot, *argv],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(kind, " ".join(argv), "hang", None, timeout, f"> {timeout:g} s")
    seconds = time.perf_counter() - start
    status, detail = judge(done.returncode, done.stderr)
    if "MemoryError" in done.stderr:
        status = "memory"
    return Outcome(kind, " ".join(argv), status, done.returncode, seconds, detail)


def _limit_memory(memory_mb: int) -> None:
    limit = memory_mb * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def fuzz(
    files: int,
    lines: int,
    outside: int,
    seed: int,
    timeout: float,
    memory_mb: int,
    limit_memory: bool = True,
    quiet: bool = False,
    commands: int = 0,
) -> Report:
    rng = random.Random(seed)
    report = Report()
    if limit_memory:
        _limit_memory(memory_mb)
    saved_data_home = os.environ.get("XDG_DATA_HOME")
    with tempfile.TemporaryDirectory(prefix="narrator-fuzz-") as name:
        folder = Path(name)
        os.environ["XDG_DATA_HOME"] = str(folder / "data")  # default records, narrations
        try:
            _run_cases(
                report, rng, folder, files, lines, commands, outside, timeout, memory_mb, quiet
            )
        finally:
            if saved_data_home is None:
                os.environ.pop("XDG_DATA_HOME", None)
            else:
                os.environ["XDG_DATA_HOME"] = saved_data_home
    return report


def _run_cases(
    report: Report,
    rng: random.Random,
    folder: Path,
    files: int,
    lines: int,
    commands: int,
    outside: int,
    timeout: float,
    memory_mb: int,
    quiet: bool,
) -> None:
    cases: list[tuple[str, list[str]]] = []
    for path in scenario_files(files, rng, folder):
        argv = ["scenario", "run", str(path)]
        cases.append(("scenario", argv + (["--text"] if rng.random() < 0.2 else [])))
    cases += [("cli", command_line(rng, folder, n)) for n in range(lines)]
    more = random.Random(f"{rng.random()}/subcommands")  # the draws above stay as they were
    cases += [("subcommand", subcommand_line(more, folder)) for _ in range(commands)]
    real_time: set[int] = set()  # a game at the table: minutes of real time outside
    cwd = folder / "cwd"
    cwd.mkdir(exist_ok=True)
    with _harness(cwd):
        for number, (kind, argv) in enumerate(cases):
            outcome = run_inside(kind, argv, timeout)
            report.add(outcome)
            if argv[:1] in (["play"], ["resume"]) and outcome.code == 0:
                real_time.add(number)
            if not quiet and outcome.status != "ok":
                print(f"[{number}] {outcome.status}: {outcome.case}", flush=True)
    quick = [  # a real command line cannot hold a NUL character
        case
        for number, case in enumerate(cases)
        if number not in real_time and not any("\0" in arg for arg in case[1])
    ]
    for kind, argv in rng.sample(quick, min(outside, len(quick))):
        outcome = run_outside(f"{kind} subprocess", argv, timeout, memory_mb, cwd)
        report.add(outcome)
        if not quiet and outcome.status != "ok":
            print(f"[subprocess] {outcome.status}: {outcome.case}", flush=True)


def summary(report: Report) -> str:
    lines = []
    by_kind: dict[str, list[Outcome]] = {}
    for outcome in report.outcomes:
        by_kind.setdefault(outcome.kind, []).append(outcome)
    for kind, outcomes in sorted(by_kind.items()):
        counts: dict[str, int] = {}
        codes: dict[str, int] = {}
        for outcome in outcomes:
            counts[outcome.status] = counts.get(outcome.status, 0) + 1
            codes[str(outcome.code)] = codes.get(str(outcome.code), 0) + 1
        slowest = max(outcomes, key=lambda o: o.seconds)
        lines.append(
            f"{kind:22} {len(outcomes):5} cases: "
            + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
            + f"; exits {dict(sorted(codes.items()))}; slowest {slowest.seconds:.2f} s"
        )
    bad_files = [o for o in report.outcomes if o.kind == "scenario" and o.code == 2]
    if bad_files:
        slowest = sorted(bad_files, key=lambda o: o.seconds)[-3:]
        lines.append(
            "slowest rejected scenario files: "
            + ", ".join(f"{Path(o.case.split()[2]).name} {o.seconds:.3f} s" for o in slowest)
        )
    failures = report.failures()
    lines.append(
        f"{len(report.outcomes)} cases, {len(failures)} failures "
        f"(tracebacks {sum(o.status == 'traceback' for o in failures)}, "
        f"hangs {sum(o.status == 'hang' for o in failures)}, "
        f"memory {sum(o.status == 'memory' for o in failures)}, "
        f"other exits {sum(o.status == 'bad-exit' for o in failures)})"
    )
    for outcome in failures[:30]:
        lines.append(f"--- {outcome.status}: {outcome.kind}: {outcome.case[:300]}")
        lines.append("    " + outcome.detail.strip().replace("\n", "\n    ")[-1500:])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="scenario files")
    parser.add_argument("--lines", type=int, default=500, help="command lines")
    parser.add_argument("--commands", type=int, default=500, help="command lines of any subcommand")
    parser.add_argument("--subprocess", type=int, default=40, help="cases also run as processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="machine seconds per case")
    parser.add_argument("--memory-mb", type=int, default=3000, help="address space limit")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    report = fuzz(
        args.files,
        args.lines,
        args.subprocess,
        args.seed,
        args.timeout,
        args.memory_mb,
        commands=args.commands,
    )
    print(summary(report))
    print(f"in {time.perf_counter() - started:.0f} s")
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
