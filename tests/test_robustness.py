"""Secrets kept off logs and recordings, no hangs, no crashes on hostile input.

Each group failed before its fix: a piped text host wrote every card (#5); the
knock bed drew from the deal's seed (#6); the virtual clock stalled a hair before
a window's end (#7); scenario files crashed or ate memory (#9); the command line
took infinite or negative times, empty paths and unwritable outputs (#10);
SIGTERM, Ctrl-C in a demo and a full disk lost the record or the terminal (#11).
The fuzz and render scripts run here in small.
"""

from __future__ import annotations

import errno
import io
import json
import math
import os
import random
import signal
import sys
import termios
from pathlib import Path
from typing import Any

import numpy as np
import pexpect
import pytest

from narrator import cli
from narrator import demo as demo_module
from narrator import speaking
from narrator.demo import render_offline
from narrator.host.journal import read_journal
from narrator.host.journal import unfinished_records
from narrator.host.terminal import Terminal
from narrator.ports import Live
from narrator.prepared import STREAMS
from narrator.prepared import prepare
from narrator.prepared import stream
from narrator.prepared import stream_seed
from narrator.record import GameRecord
from narrator.rules.core import shuffled_deal
from narrator.rules.registry import known_names
from narrator.settings import TableSettings
from narrator.sound.clip import MIX_RATE
from narrator.sound.clip import Clip
from narrator.sound.mixer import Mixer
from narrator.sound.mixer import MixSettings
from narrator.sound.output import OfflineOutput
from narrator.sound.output import VirtualClock
from narrator.voice import voices as engines
from narrator.voice.voices import choose_voice
from tests.support import load_script
from tests.support import run_python

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 120  # a generous hang detector, never a speed target
RUN_CLI = (
    "sys.argv = ['narrator', *sys.argv[1:]]; runpy.run_module('narrator.cli', run_name='__main__')"
)


class SilentSpeech:
    """Speech of silence, as long as a line might take: the clock path without a TTS engine."""

    def clip(self, key: str, text: str) -> Clip:
        frames = 4410 + 1103 * len(text) + len(key)  # at 22 050 Hz, as espeak-ng renders
        return Clip(np.zeros((frames, 1), dtype=np.float32), 22050)


def quick_settings(game: str, tmp_path: Path, **options: Any) -> TableSettings:
    return TableSettings(
        game=game,
        players=None,
        lang="en",
        seed=5,
        options=dict(options),
        answer_s=1.0,
        demo=True,
        record_dir=tmp_path / "records",
        voice="auto",
    )


def one_line_error(capsys: pytest.CaptureFixture[str], code: int | None, *words: str) -> str:
    captured = capsys.readouterr()
    assert code == 2, f"exit {code}: {captured.err}"
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {captured.err!r}"
    assert "Traceback" not in captured.err
    for word in words:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
    return lines[0]


def run_main(argv: list[str]) -> int | None:
    try:
        return cli.main(argv)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else None


# --- 5. a piped text host writes no secret ---------------------------------------------------


def test_inside_a_window_only_spoken_lines_reach_a_pipe() -> None:
    public, private = io.StringIO(), io.StringIO()
    terminal = Terminal(out=public, private=private)
    terminal.clear()
    terminal.line("The Spirit transforms!")  # the wake line, shown as the window opens
    terminal.live(Live("window", "", 3.0, 3.0))
    terminal.line("3 — Accepted.")
    terminal.secret("You see: Werewolf")
    terminal.said("Player number 4")  # a spoken cue is public
    terminal.live(None)
    terminal.clear()
    terminal.line("Everyone is asleep.")
    assert public.getvalue() == "The Spirit transforms!\n» Player number 4\nEveryone is asleep.\n"
    assert "3 — Accepted." in private.getvalue()
    assert ">>> You see: Werewolf <<<" in private.getvalue()


@pytest.mark.timeout(HANG_S)
def test_a_piped_demo_game_writes_no_secret(tmp_path: Path) -> None:
    settings = quick_settings("onenight", tmp_path, window_s=1.0, discussion_s=1.0)
    public, private = io.StringIO(), io.StringIO()
    rendered = render_offline(
        settings, prepare(settings), SilentSpeech(), Terminal(out=public, private=private)
    )
    secrets = [e for e in rendered.record.events if e["event"] == "secret"]
    assert len(secrets) >= 5  # every card dealt, and what the night showed
    assert ">>>" not in public.getvalue()
    assert private.getvalue().count(">>>") == len(secrets)
    nobody = Terminal(out=io.StringIO())  # a pipe and no keyboard terminal: shown nowhere
    nobody.secret("Your card: Werewolf")
    assert nobody.out.getvalue() == ""  # type: ignore[union-attr]


def test_a_piped_text_host_shows_secrets_on_the_keyboard_terminal_only(tmp_path: Path) -> None:
    log = tmp_path / "game.log"
    command = (
        f"exec {sys.executable} -m narrator.cli play onenight --text --silent --demo --players 3 "
        f"--seed 3 --lang en --window 0.5 --discussion 0.5 --answer-time 1 "
        f"--record-dir {tmp_path / 'records'} > {log}"
    )
    child = pexpect.spawn("bash", ["-c", command], cwd=ROOT, encoding="utf-8", timeout=60)
    child.expect("standard output is not a terminal: secrets are shown on /dev/")
    child.expect(r">>> Your card: .+ <<<")  # on the screen the players look at
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = log.read_text("utf-8")
    assert "Game record:" in text and "Morning has come" in text
    assert ">>>" not in text and "Your card" not in text and "\x1b[" not in text


# --- 6. independent random streams ------------------------------------------------------------


SEEDS = [0, 1, 2, 5, 11, 2**32 - 1, -7]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_deal_the_knocks_and_the_demo_players_have_their_own_streams(seed: int) -> None:
    seeds = {name: stream_seed(seed, name) for name in STREAMS}
    assert len(set(seeds.values())) == len(seeds)
    firsts = {name: stream(seed, name).random() for name in STREAMS}
    firsts["rules"] = random.Random(seed).random()  # the scenario runner's stream
    firsts["seed + 1"] = random.Random(seed + 1).random()  # the demo players' old stream
    assert len(set(firsts.values())) == len(firsts)
    settings = TableSettings(game="onenight", players=5, seed=seed)
    prepared = prepare(settings)
    assert prepared.deal == shuffled_deal(
        prepared.variant.composition(5, prepared.switches), 5, stream(seed, "deal")
    )
    keys = speaking.demo_keys(seed, VirtualClock(OfflineOutput(Mixer())))
    assert keys.rng.getstate() == stream(seed, "demo").getstate()


def _knocks(mixer: Mixer) -> np.ndarray[Any, Any]:
    output = OfflineOutput(mixer)
    mixer.night(True)
    output.advance(3.0)
    return output.samples()


@pytest.mark.parametrize("seed", [1, 11])
def test_the_knock_bed_does_not_draw_from_the_deal_seed(seed: int) -> None:
    settings = TableSettings(game="onenight", seed=seed)
    bed = _knocks(speaking.mixer_for(settings, seed))
    assert np.array_equal(bed, _knocks(Mixer(MixSettings(), stream_seed(seed, "sound"))))
    assert not np.array_equal(bed, _knocks(Mixer(MixSettings(), seed)))  # the deal's seed


def test_another_deal_of_the_same_seed_knocks_the_same() -> None:
    deals, beds = [], []
    for roles in ("werewolf=2,high_inquisitor=1,spirit=1", "werewolf=1,spirit=1"):
        settings = TableSettings(game="onenight", players=5, seed=4, options={"roles": roles})
        deals.append(prepare(settings).deal)
        beds.append(_knocks(speaking.mixer_for(settings, 4)))
    assert deals[0] != deals[1]
    assert np.array_equal(beds[0], beds[1])


# --- 7. the virtual clock never stalls ------------------------------------------------------


def test_the_virtual_clock_never_stalls_at_a_window_end() -> None:
    """The table's loop: ``while (left := end - now()) > 0: sleep(min(TICK, left))``."""
    rng = random.Random(17)
    output = OfflineOutput(Mixer(MixSettings(knocks=False)), keep=False, block=48000)
    clock = VirtualClock(output)
    advances = 0
    while advances < 4000:
        clock.sleep(rng.choice([rng.uniform(0, 3), rng.randrange(1, 9 * MIX_RATE) / MIX_RATE]))
        window = round(rng.uniform(0.05, 2.0), rng.choice([0, 1, 1, 2, 3])) or 3.2
        start = clock.now()
        end = start + window
        steps = 0
        while (left := end - clock.now()) > 0:
            clock.sleep(min(0.1, left))
            steps += 1
            assert steps <= math.ceil(window / 0.1) + 2, f"stalled: {window} s from {start}"
        advances += steps
        assert clock.now() - end < 1.5 / MIX_RATE  # ends on the first frame at or after the end


def test_the_virtual_clock_moves_on_the_tiniest_wait() -> None:
    output = OfflineOutput(Mixer(MixSettings(knocks=False)))
    clock = VirtualClock(output)
    clock.sleep(1.25)
    assert len(output.samples()) == round(1.25 * MIX_RATE)
    clock.sleep(5.7e-14)
    assert len(output.samples()) == round(1.25 * MIX_RATE) + 1
    clock.sleep(0)
    clock.sleep(-1)
    clock.sleep(math.nan)
    assert len(output.samples()) == round(1.25 * MIX_RATE) + 1


@pytest.mark.timeout(HANG_S)
def test_a_demo_with_windows_of_3_2_seconds_ends(tmp_path: Path) -> None:
    settings = quick_settings("onenight", tmp_path, window_s=3.2, discussion_s=1.0)
    settings.seed = 1
    rendered = render_offline(settings, prepare(settings), SilentSpeech(), Terminal(io.StringIO()))
    assert rendered.code == 0
    windows = [e for e in rendered.record.events if e["event"] == "window"]
    assert windows and all(w["seconds"] == 3.2 for w in windows)


def test_render_many_plays_every_variant_without_a_hang(capsys: pytest.CaptureFixture[str]) -> None:
    render_many = load_script("render_many")
    saved = signal.getsignal(signal.SIGALRM)
    try:
        code = render_many.main(["--games", "6", "--master-seed", "3", "--timeout", "120"])
    finally:
        signal.signal(signal.SIGALRM, saved)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "6 ok, 0 hung" in out


# --- 9. scenario files ------------------------------------------------------------------------


ONENIGHT = """game = "onenight"
seed = 1
[deal]
1 = "werewolf"
2 = "werewolf"
3 = "high_inquisitor"
4 = "spirit"
5 = "inquisitor"
center = ["inquisitor", "inquisitor", "inquisitor"]
"""
SPORT_ROLES = [
    "civilian", "civilian", "don", "civilian", "civilian",
    "mafia", "sheriff", "civilian", "mafia", "civilian",
]  # fmt: skip
SPORT = 'game = "sport_mafia"\nseed = 1\n[deal]\n' + "".join(
    f'{seat} = "{role}"\n' for seat, role in enumerate(SPORT_ROLES, start=1)
)
BAD_SCENARIOS = {
    "arabic_indic_digit": ('game = "onenight"\n[deal]\n"١" = "werewolf"\n', ("deal.١", "1..N")),
    "fullwidth_digit": ('game = "onenight"\n[deal]\n"１" = "werewolf"\n', ("deal.１",)),
    "seat_1000000000": ('game = "onenight"\n[deal]\n1000000000 = "werewolf"\n', ("deal",)),
    "seat_100000000": ('game = "onenight"\n[deal]\n100000000 = "werewolf"\n', ("deal",)),
    "nested_2000_deep": (
        ONENIGHT + "[options]\nx = " + "[" * 2000 + "]" * 2000 + "\n",
        ("nested",),
    ),
    "nested_9_deep": (ONENIGHT + "[options]\nx = " + "[" * 9 + "]" * 9 + "\n", ("nested",)),
    "seed_true": (ONENIGHT.replace("seed = 1", "seed = true"), ("seed",)),
    "answer_true": (SPORT + '[answers]\n"n1.don" = true\n', ("answers.n1.don", "true")),
    "answer_in_a_list_true": (SPORT + '[answers]\n"n1.don" = ["7", false]\n', ("n1.don",)),
    "stop_before_not_ascii": (ONENIGHT + 'stop_before = "n١"\n', ("stop_before",)),
    "long_answer": (SPORT + '[answers]\n"n1.don" = "' + "9" * 5000 + '"\n', ("n1.don", "longer")),
    "huge_integer": (SPORT + '[answers]\n"n1.don" = ' + "9" * 5000 + "\n", ("TOML",)),
    "long_role": (ONENIGHT.replace('"spirit"', '"' + "s" * 5000 + '"'), ("deal.4", "longer")),
    "line_break_in_a_key": ('game = "onenight"\n[deal]\n"1\\u2028\\n2" = "werewolf"\n', ("deal.",)),
    "unknown_game": (ONENIGHT.replace('"onenight"', '"chess"'), ("game", *known_names())),
}


@pytest.mark.timeout(HANG_S)
@pytest.mark.parametrize("name", list(BAD_SCENARIOS))
def test_a_bad_scenario_file_is_one_line_and_exit_2(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, words = BAD_SCENARIOS[name]
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    one_line_error(capsys, run_main(["scenario", "run", str(path)]), "bad.toml", *words)


@pytest.mark.timeout(HANG_S)
def test_dev_zero_is_not_read_at_all(capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(capsys, run_main(["scenario", "run", "/dev/zero"]), "/dev/zero", "a device")


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``scenario run`` on a FIFO once blocked for ever (nothing ever writes it)."""
    pipe = tmp_path / "game.toml"
    os.mkfifo(pipe)
    one_line_error(capsys, run_main(["scenario", "run", str(pipe)]), str(pipe), "a named pipe")


def test_huge_seats_and_endless_files_fit_in_little_memory(tmp_path: Path) -> None:
    """In a process that may use 1 GB: no MemoryError, no traceback, one line each."""
    path = tmp_path / "big.toml"
    path.write_text('game = "onenight"\n[deal]\n1000000000 = "werewolf"\n', encoding="utf-8")
    limit = 1024**3
    boot = (
        "import resource, runpy, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
        f"{RUN_CLI}"
    )
    for target in (str(path), "/dev/zero"):
        done = run_python(boot, "scenario", "run", target, timeout=60)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_numbers_and_long_answers_are_attempts_not_file_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "good.toml"
    head = SPORT.replace("seed = 1\n", 'seed = 1\nstop_before = "n2"\n')
    answers = '[answers]\n"n1.don" = 7\n"n1.sheriff" = "' + "9" * 250 + '"\n'
    path.write_text(head + answers, encoding="utf-8")
    assert run_main(["scenario", "run", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"prompt": "n1.don", "to": [3], "shown": "sheriff"} in result["secrets"]
    assert [r["prompt"] for r in result["rejected"]] == ["n1.sheriff"]


@pytest.mark.timeout(HANG_S)
def test_tens_of_thousands_of_wrong_explosions_are_attempts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The attempts at an interrupt were walked by a recursion, one call per rejected one:
    30,000 wrong explosions were a RecursionError traceback (scripts/fuzz_inputs.py)."""
    text = (ROOT / "tests" / "scenarios" / "D-T6.toml").read_text(encoding="utf-8")
    given = '"d1.election.explode" = ["7 2", "8 2"]'
    assert given in text
    wrong = ", ".join(['"x"'] * 30_000)
    path = tmp_path / "many.toml"
    path.write_text(text.replace(given, f'"d1.election.explode" = [{wrong}, "8 2"]'), "utf-8")
    assert run_main(["scenario", "run", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    refused = [r for r in result["rejected"] if r["prompt"] == "d1.election.explode"]
    assert len(refused) == 30_000
    assert {"seat": 8, "phase": "d1", "cause": "exploded"} in result["eliminated"]


# --- 10. the command line ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "-5", "0", "nan", "-inf", "1e309", "x"])
def test_answer_time_must_be_a_positive_finite_number(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_main(["play", "onenight", "--text", f"--answer-time={value}"])
    one_line_error(capsys, code, "--answer-time")


def test_an_empty_record_dir_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(capsys, run_main(["play", "onenight", "--record-dir="]), "--record-dir")


@pytest.mark.parametrize(
    "name",
    ["x", "x.mp3", "x.opus", "x.ogg.txt", "folder", "folder.ogg", "folder.wav", "file/x.flac", ""],
)
def test_a_demo_output_is_checked_before_anything_is_rendered(
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder.ogg").mkdir()
    (tmp_path / "folder.wav").mkdir()
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")

    def rendering(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("speech rendered before the output was checked")

    monkeypatch.setattr(demo_module, "speech_source", rendering)
    output = str(tmp_path / name) if name else ""
    code = run_main(["demo", "onenight", "--output", output, "--record-dir", str(tmp_path)])
    one_line_error(capsys, code, "--output")


@pytest.mark.parametrize("name", ["game.mp3", "game.opus", "game"])
def test_a_demo_output_with_an_unknown_ending_names_the_formats(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    code = run_main(["demo", "onenight", "--output", str(path), "--record-dir", str(tmp_path)])
    one_line_error(capsys, code, str(path), ".flac", ".ogg", ".wav")
    assert not path.exists() and not path.with_suffix(".json").exists()


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["play"],
        ["nosuchcommand"],
        ["play", "onenight", "--bogus"],
        ["play", "onenight", "--players", "five"],
        ["play", "onenight", "--lang", "de"],
        ["scenario", "run"],
        ["demo", "onenight", "--rate", "0"],
        ["play", "onenight", "-o", "=1"],
        ["play", "onenight", "--bo\ngus\u2028"],
    ],
)
def test_usage_errors_are_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(capsys, run_main(argv), "--help")


# --- 11. stopping -------------------------------------------------------------------------------


def _events(folder: Path) -> list[dict[str, Any]]:
    """The record of the one game in ``folder``: a stopped game's stays sealed."""
    (path,) = [*folder.glob("*.jsonl"), *unfinished_records(folder)]
    return read_journal(path)


def _echo_is_on(child: pexpect.spawn) -> bool:
    return bool(termios.tcgetattr(child.child_fd)[3] & termios.ECHO)


def _spawn_text_host(folder: Path, *args: str) -> pexpect.spawn:
    command = ["-m", "narrator.cli", "play", "onenight", "--text", "--silent", "--players", "3"]
    command += ["--lang", "en", "--record-dir", str(folder), *args]
    return pexpect.spawn(
        sys.executable, command, cwd=ROOT, encoding="utf-8", timeout=60, dimensions=(50, 200),
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )  # fmt: skip


def _ctrl_c_as_at_a_terminal() -> None:
    """A suite started in the background (``cmd &`` in a script) ignores SIGINT, and an
    ignored signal stays ignored across exec: the game would never see Ctrl-C. A player's
    terminal delivers it, so the child starts with the default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_sigterm_keeps_the_record_and_gives_the_terminal_back(tmp_path: Path) -> None:
    child = _spawn_text_host(tmp_path)
    child.expect("Player number 1: press Enter")
    assert not _echo_is_on(child)  # the host reads keys without echo
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF)
    assert _echo_is_on(child)
    child.close()
    assert child.exitstatus == 128 + signal.SIGTERM
    assert _events(tmp_path)[-1]["event"] == "aborted"


def test_ctrl_c_stops_a_demo_game_in_a_terminal(tmp_path: Path) -> None:
    child = _spawn_text_host(tmp_path, "--demo", "--window", "5")
    # The night's first line (a card «High Inquisitor» shown at the deal matched before).
    child.expect("The High Inquisitor has a prophetic dream")
    child.sendintr()
    child.expect(pexpect.EOF)
    assert _echo_is_on(child)
    child.close()
    assert child.exitstatus == 130, (child.before[-2000:], [e["event"] for e in _events(tmp_path)])
    events = _events(tmp_path)
    assert events[-1]["event"] == "aborted"
    assert not any(e["event"] == "end" for e in events)


def test_a_failing_record_warns_once_and_keeps_the_game_in_memory() -> None:
    written: list[dict[str, Any]] = []
    lost: list[OSError] = []

    def sink(event: dict[str, Any]) -> None:
        if len(written) >= 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(event)

    record = GameRecord(sink, on_lost=lost.append)
    for number in range(10):
        record.add("say", number=number)
    record.add("crashed", phase="n1")
    assert len(written) == 3 and len(record.events) == 11
    assert len(lost) == 1 and lost[0].errno == errno.ENOSPC
    assert record.lost is lost[0]


def test_a_record_folder_that_fills_up_does_not_stop_the_game(tmp_path: Path) -> None:
    """The record file may grow to 3000 bytes only (RLIMIT_FSIZE): the disk "fills up"."""
    records = tmp_path / "records"
    boot = (
        "import resource, runpy, signal, sys; "
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000)); "
        f"{RUN_CLI}"
    )
    args = [
        "play",
        "onenight",
        "--text",
        "--silent",
        "--players",
        "3",
        "--lang",
        "en",
        "--window",
        "0.3",
    ]
    args += ["--discussion", "0.3", "--answer-time", "1", "--record-dir", str(records)]
    done = run_python(boot, *args, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    warnings = [line for line in lines if line.startswith("The game record stopped:")]
    assert len(warnings) == 1, done.stdout  # told once, on the table's screen
    assert "Result:" in done.stdout  # the game went on to its end
    # The plain record does not fit either: nothing half-written is left, and the end says so.
    assert sum(line.startswith("The game record was not saved:") for line in lines) == 1
    assert list(records.iterdir()) == []


# --- the fuzz script, in small ---------------------------------------------------------------


def test_a_small_fuzz_run_finds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fuzz's demo games speak: into an empty speech cache of this test (inherited by
    the cases run as processes, none of which speaks), with espeak-ng, which renders a
    whole game in seconds.  With the default voices a cold cache cost a demo of alliance
    46 s of its 60 s limit; this way the run takes the same time (about 40 s) whatever
    the user's cache holds."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(engines, "engine_names", lambda: ["espeak"])
    assert choose_voice("ru").key == "espeak:zle/ru"
    assert choose_voice("en").key == "espeak:gmw/en-us"
    fuzz = load_script("fuzz_inputs")
    report = fuzz.fuzz(
        files=120, lines=40, outside=4, seed=5, timeout=60, memory_mb=2000, limit_memory=False,
        quiet=True, commands=40,
    )  # fmt: skip
    assert not report.failures(), fuzz.summary(report)
    assert any((tmp_path / "cache" / "narrator" / "speech").iterdir())  # the demos spoke here


def test_games_lists_a_fixed_count_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["games"]) == 0
    out = capsys.readouterr().out
    assert "sport_mafia\t10 players" in out and "10–10" not in out
    assert "onenight\t3–7 players" in out


def test_the_render_progress_is_one_line_in_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    from narrator.speaking import progress_bar

    for done in range(11):
        progress_bar(done, 10)
    err = capsys.readouterr().err
    assert err == "rendering speech: 10/10 lines\n"
