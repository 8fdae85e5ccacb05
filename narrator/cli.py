"""The one composition root: parse arguments, build the adapters, inject them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from narrator.rules.errors import NarratorError


def _option(text: str) -> tuple[str, Any]:
    """``key=value`` from the command line; the value is read as TOML when it can be."""
    import tomllib

    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"{text!r} should look like key=value")
    try:
        parsed = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        parsed = value
    return key.strip(), parsed


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="narrator", description="Offline voice host for Mafia and Werewolf party games."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="host a game at the table")
    play.add_argument("game", help="which game: onenight, sport_mafia, ... (see `narrator games`)")
    play.add_argument(
        "--players",
        type=int,
        default=None,
        help="number of players (default: the middle of the game's range; sport_mafia: 10)",
    )
    play.add_argument("--lang", default="ru", choices=["ru", "en"], help="language of the host")
    play.add_argument("--text", action="store_true", help="terminal text host (no full screen)")
    play.add_argument(
        "--seed", type=int, default=None, help="seed of the deal (same seed, same game)"
    )
    play.add_argument("--window", type=float, default=None, help="length of each wake window, s")
    play.add_argument("--discussion", type=float, default=None, help="discussion length, s")
    play.add_argument(
        "--answer-time", type=float, default=60.0, help="time for each day answer (a vote), s"
    )
    play.add_argument(
        "--option",
        "-o",
        type=_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule switch of RULES.md section 5, e.g. -o lone_wolf_peek=true",
    )
    play.add_argument(
        "--demo",
        action="store_true",
        help="play a demo game with random answers (automatic when nobody is at the keyboard)",
    )
    play.add_argument("--record-dir", type=Path, default=None, help="where game records go")

    scenario = commands.add_parser("scenario", help="headless scenario files (SCENARIOS.md)")
    scenario_commands = scenario.add_subparsers(dest="scenario_command", required=True)
    run = scenario_commands.add_parser("run", help="play a scenario file, print the JSON result")
    run.add_argument("file", type=Path)
    run.add_argument("--text", action="store_true", help="print a readable transcript instead")

    commands.add_parser("games", help="list the playable games")
    return parser


def _scenario(args: argparse.Namespace) -> int:
    from narrator.scenario import load_scenario, run_scenario

    result, transcript = run_scenario(load_scenario(args.file))
    if args.text:
        print("\n".join(transcript))
    else:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


def _games() -> int:
    from narrator.rules.registry import get_variant, known_names

    for name in known_names():
        seats = get_variant(name).seat_counts
        print(f"{name}\t{seats.start}–{seats.stop - 1} players")
    return 0


def _play(args: argparse.Namespace) -> int:
    from narrator.host.table import TableSettings, play_at_table

    options = dict(args.option)
    if args.window is not None:
        options["window_s"] = args.window
    if args.discussion is not None:
        options["discussion_s"] = args.discussion
    settings = TableSettings(
        game=args.game,
        players=args.players,
        lang=args.lang,
        seed=args.seed,
        options=options,
        answer_s=args.answer_time,
        demo=args.demo or not sys.stdin.isatty(),
        record_dir=args.record_dir,
    )
    return play_at_table(settings)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "scenario":
            return _scenario(args)
        if args.command == "games":
            return _games()
        return _play(args)
    except NarratorError as error:
        print(f"narrator: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
