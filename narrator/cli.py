"""The one composition root: parse arguments, build the adapters, inject them."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from narrator.limits import MAX_ANSWER_S
from narrator.rules.errors import NarratorError

MAX_OPTION_CHARS = 1000
MIN_RATE, MAX_RATE = 40, 600  # words per minute


def one_line(text: str) -> str:
    """An error message as one line: line breaks and other unprintable characters escaped."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: what is wrong, and where the help is; exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, one_line(f"{self.prog}: {message} (see {self.prog} --help)") + "\n")


def _option(text: str) -> tuple[str, Any]:
    """``key=value`` from the command line; the value is read as TOML when it can be."""
    import tomllib

    key, eq, value = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} should look like key=value")
    if len(value) > MAX_OPTION_CHARS:
        raise argparse.ArgumentTypeError(f"the value of {key.strip()!r} is too long")
    try:
        parsed = tomllib.loads(f"v = {value}")["v"]
    except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        parsed = value
    return key.strip(), parsed


def _seconds(text: str) -> float:
    """A time in seconds: a finite number above 0 (and at most an hour)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and 0 < value <= MAX_ANSWER_S):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected seconds above 0 and at most {MAX_ANSWER_S:g}"
        )
    return value


def _path(text: str) -> Path:
    """A file or folder name; an empty one would silently mean the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (give a file or folder name)")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r}: a path cannot contain a NUL character")
    return Path(text)


def _rate(text: str) -> int:
    """Words per minute of the system voice."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not MIN_RATE <= value <= MAX_RATE:
        raise argparse.ArgumentTypeError(f"{value}: expected {MIN_RATE}–{MAX_RATE} words a minute")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    play.add_argument(
        "--lang", default=None, choices=["ru", "en"], help="language of the host (default: ru)"
    )
    play.add_argument(
        "--text", action="store_true", help="the plain terminal host instead of the full screen"
    )
    play.add_argument(
        "--seed", type=int, default=None, help="seed of the deal (same seed, same game)"
    )
    play.add_argument("--window", type=float, default=None, help="length of each wake window, s")
    play.add_argument("--discussion", type=float, default=None, help="discussion length, s")
    play.add_argument(
        "--answer-time",
        type=_seconds,
        default=None,
        help="time for each day answer (a vote), s (default: 60)",
    )
    _rule_options(play)
    play.add_argument(
        "--demo",
        action="store_true",
        help="play a demo game with random answers (automatic when nobody is at the keyboard)",
    )
    play.add_argument("--record-dir", type=_path, default=None, help="where game records go")
    play.add_argument(
        "--silent", action="store_true", help="do not speak: the lines are only shown"
    )
    _sound_options(play)
    _listen_options(play)

    resume = commands.add_parser(
        "resume", help="continue a stopped or crashed game where it stopped (--list shows them)"
    )
    resume.add_argument(
        "number", nargs="?", type=int, default=None, help="which one of --list (default: 1)"
    )
    resume.add_argument("--list", action="store_true", help="list the unfinished games")
    resume.add_argument("--lang", default=None, choices=["ru", "en"], help="language of the list")
    resume.add_argument("--record-dir", type=_path, default=None, help="where game records are")
    resume.add_argument("--text", action="store_true", help="the plain terminal host")
    resume.add_argument("--silent", action="store_true", help="do not speak")
    resume.add_argument("--demo", action="store_true", help="random answers from here on")
    resume.add_argument(
        "--answer-time", type=_seconds, default=None, help="time for each day answer, s"
    )
    _sound_options(resume)
    _listen_options(resume)

    demo = commands.add_parser(
        "demo", help="a narrated game answered by random players, to the speakers or a file"
    )
    demo.add_argument("game", help="which game (see `narrator games`)")
    demo.add_argument("--players", type=int, default=None, help="number of players")
    demo.add_argument("--lang", default="ru", choices=["ru", "en"])
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument(
        "--output",
        type=_path,
        default=None,
        help="render to this file: .flac, .ogg or .wav (the name's ending says the format)",
    )
    _rule_options(demo)
    demo.add_argument("--record-dir", type=_path, default=None, help="where game records go")
    _sound_options(demo)

    commands.add_parser(
        "voices",
        help="list every speech engine and voice per language, its quality and the default",
    )
    voice = commands.add_parser(
        "voice", help="speech: pre-render lines, build, record, export and import voice packs"
    )
    voice_commands = voice.add_subparsers(dest="voice_command", required=True)
    build = voice_commands.add_parser(
        "build", help="render every line that is not cached yet, or (--name) a whole voice pack"
    )
    build.add_argument("--lang", default="ru", choices=["ru", "en"])
    build.add_argument("--variant", default=None, help="only this game's lines")
    build.add_argument(
        "--voice",
        default=None,
        metavar="ENGINE:VOICE",
        help="e.g. festival:msu_ru_nsh_clunits, hibari:heart, espeak:zle/ru, or a bare voice id "
        "(default: the best installed voice, see `narrator voices`)",
    )
    build.add_argument("--rate", type=_rate, default=None, help="words per minute")
    build.add_argument(
        "--name", default=None, help="write a voice pack of this name that speaks every line"
    )
    build.add_argument(
        "--replace", action="store_true", help="with --name: replace a pack of that name"
    )
    record = voice_commands.add_parser(
        "record", help="record your own voice pack: the lines, then the parts of lines with numbers"
    )
    record.add_argument("--lang", default="ru", choices=["ru", "en"])
    record.add_argument("--pack", required=True, help="name of the voice pack")
    record.add_argument("--variant", default=None, help="only this game's lines")
    export = voice_commands.add_parser("export", help="write a voice pack as one file to share")
    export.add_argument("name", help="the voice pack")
    export.add_argument("file", type=_path, help="the file to write (a zip, e.g. vasya.zip)")
    export.add_argument(
        "--audio",
        default="flac",
        choices=["flac", "ogg"],
        help="flac: lossless (default); ogg: about a third of the size",
    )
    imported = voice_commands.add_parser("import", help="install a voice pack from its file")
    imported.add_argument("file", type=_path, help="a file written by `narrator voice export`")
    imported.add_argument("--name", default=None, help="install it under this name")
    imported.add_argument(
        "--lang", default=None, choices=["ru", "en"], help="refuse a pack of another language"
    )

    scenario = commands.add_parser("scenario", help="headless scenario files (SCENARIOS.md)")
    scenario_commands = scenario.add_subparsers(dest="scenario_command", required=True)
    run = scenario_commands.add_parser("run", help="play a scenario file, print the JSON result")
    run.add_argument("file", type=_path)
    run.add_argument("--text", action="store_true", help="print a readable transcript instead")

    commands.add_parser("games", help="list the playable games")
    _listen_commands(commands)
    _simulate_commands(commands)
    return parser


def _simulate_commands(commands: Any) -> None:
    """``simulate`` (many games played by policies) and ``show`` (a finished game's picture)."""
    simulate = commands.add_parser(
        "simulate", help="play many games with no one at the table: win rates, lengths, causes"
    )
    simulate.add_argument("game", help="which game (see `narrator games`)")
    simulate.add_argument("--players", type=int, default=None, help="number of players")
    _rule_options(simulate)
    simulate.add_argument("--games", type=int, default=10_000, help="how many (default: 10000)")
    simulate.add_argument(
        "--policy",
        choices=["random", "informed"],
        default="random",
        help="random legal answers, or players acting on what they could know",
    )
    simulate.add_argument(
        "--jobs",
        type=int,
        nargs="?",
        const=None,
        default=1,
        metavar="K",
        help="processes (--jobs alone: every core); the figures do not depend on it",
    )
    simulate.add_argument("--seed", type=int, default=0, help="same seed, same figures")
    simulate.add_argument("--plot", type=_path, default=None, help="a PNG chart (matplotlib)")
    simulate.add_argument("--lang", default="ru", choices=["ru", "en"])
    show = commands.add_parser("show", help="draw a finished game's record as a picture")
    show.add_argument("record", type=_path, help="the .jsonl record of a finished game")
    show.add_argument(
        "-o", "--output", type=_path, default=None, help=".svg (default, beside it) or .png"
    )


def _simulate(args: argparse.Namespace) -> int:
    from narrator.simulate.command import simulate_command

    return simulate_command(
        args.game,
        args.players,
        dict(args.option),
        games=args.games,
        policy=args.policy,
        jobs=args.jobs,
        seed=args.seed,
        plot=args.plot,
        lang=args.lang,
    )


def _show(args: argparse.Namespace) -> int:
    from narrator.app import rules_rng
    from narrator.picture import draw
    from narrator.voice.catalog import load_catalog

    path, lang = draw(args.record, args.output, rules_rng)
    print(load_catalog(lang).text("picture.written", {"path": path}))
    return 0


def _listen_options(play: argparse.ArgumentParser) -> None:
    play.add_argument(
        "--input",
        choices=["keypad", "voice"],
        default=None,
        help="voice: day answers may also be spoken (night input stays keypad only)",
    )
    _speech_input_options(play)
    play.add_argument(
        "--push-to-talk", action="store_true", help="listen only while Space is held down"
    )


def _speech_input_options(parser: argparse.ArgumentParser) -> None:
    """The engine, model and microphone of spoken input: ``play`` and ``mic-test`` alike."""
    parser.add_argument("--asr-model", type=_path, default=None, help="a Vosk model folder")
    parser.add_argument(
        "--asr",
        choices=["vosk", "sphinx", "whisper"],
        default=None,
        help="speech engine (default: the best installed; narrator models list)",
    )
    parser.add_argument(
        "--input-device", default=None, help="microphone: index or part of its name"
    )


def _listen_commands(commands: Any) -> None:
    models = commands.add_parser("models", help="speech models for spoken day input")
    models_commands = models.add_subparsers(dest="models_command", required=True)
    download = models_commands.add_parser(
        "download", help="fetch the small Vosk model of a language"
    )
    download.add_argument("lang", help="ru or en")
    download.add_argument(
        "--dir", type=_path, default=None, help="models folder (default: models/)"
    )
    download.add_argument("--url", default=None, help="fetch the archive from this mirror instead")
    listing = models_commands.add_parser(
        "list", help="the speech engines of each language, and the one a game uses"
    )
    listing.add_argument("--dir", type=_path, default=None, help="models folder (default: models/)")
    mic = commands.add_parser("mic-test", help="check the microphone and the speech model")
    mic.add_argument("--lang", default="ru", choices=["ru", "en", "ko"])
    _speech_input_options(mic)
    mic.add_argument("--seconds", type=_seconds, default=25.0, help="how long to listen for 1–10")


def _listen(args: argparse.Namespace) -> int:
    from narrator.listen import commands

    if args.command == "mic-test":
        return commands.mic_test(
            args.lang,
            args.asr_model,
            args.input_device,
            sys.stdout,
            listen_s=args.seconds,
            asr=args.asr,
        )
    if args.models_command == "download":
        return commands.models_download(args.lang, args.dir, args.url, sys.stdout)
    return commands.models_list(args.dir, sys.stdout)


def _rule_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        "-o",
        type=_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule switch (see the README), e.g. -o lone_wolf_peek=true",
    )


def _sound_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--voice",
        nargs="?",
        const="auto",
        default=None,
        metavar="ENGINE:VOICE",
        help="speak the lines; optionally with this voice, e.g. festival:msu_ru_nsh_clunits, "
        "hibari:heart, espeak:zle/ru or a bare voice id (default: the best installed voice, "
        "see `narrator voices`)",
    )
    parser.add_argument("--rate", type=_rate, default=None, help="speech rate, words per minute")
    parser.add_argument("--voice-pack", default=None, help="prefer this recorded voice pack")
    parser.add_argument("--no-knocks", action="store_true", help="no knocking sound at night")
    parser.add_argument(
        "--knock-volume", type=float, default=None, help="knock level, 0–1 (default: 0.35)"
    )
    parser.add_argument(
        "--speech-volume", type=float, default=None, help="speech level, 0–1 (default: 0.9)"
    )
    parser.add_argument("--knock-density", type=float, default=3.0, help="knocks per second")
    parser.add_argument("--ticks", action="store_true", help="tick in a window's last seconds")


def _settings(args: argparse.Namespace, **extra: Any) -> Any:
    from narrator.app import TableSettings

    for name in ("knock_volume", "speech_volume"):
        value = getattr(args, name)
        if value is not None and not 0 <= value <= 1:
            raise NarratorError(f"--{name.replace('_', '-')} {value}: expected 0–1")
    if not 0 <= args.knock_density <= 20:
        raise NarratorError(f"--knock-density {args.knock_density}: expected 0–20 per second")
    return TableSettings(
        game=args.game,
        players=args.players,
        lang=args.lang or "ru",
        seed=args.seed,
        options=dict(args.option),
        record_dir=args.record_dir,
        voice=args.voice,
        rate=args.rate,
        voice_pack=args.voice_pack,
        knocks=not args.no_knocks,
        knock_volume=0.35 if args.knock_volume is None else args.knock_volume,
        speech_volume=0.9 if args.speech_volume is None else args.speech_volume,
        knock_density=args.knock_density,
        ticks=args.ticks,
        **extra,
    )


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
        count = f"{seats.start}" if len(seats) == 1 else f"{seats.start}–{seats.stop - 1}"
        print(f"{name}\t{count} players")
    return 0


def _play(args: argparse.Namespace) -> int:
    from narrator.app import play_at_table

    code: int = play_at_table(play_settings(args))
    return code


def play_settings(args: argparse.Namespace) -> Any:
    """The settings of ``narrator play``: it speaks unless ``--silent``."""
    answer_s = 60.0 if args.answer_time is None else args.answer_time
    settings = _settings(args, answer_s=answer_s, demo=args.demo or not sys.stdin.isatty())
    settings.voice = None if args.silent else (args.voice or "auto")  # speak by default
    settings.silent = args.silent
    settings.text = args.text
    for flag, switch, value in (
        ("--window", "window_s", args.window),
        ("--discussion", "discussion_s", args.discussion),
    ):
        if value is not None:
            settings.options[switch] = value
            _check_flag(args.game, flag, switch)
    settings.input = args.input or "keypad"
    settings.given = given_on_command_line(args)
    settings.asr_model = args.asr_model
    settings.asr = args.asr
    settings.input_device = args.input_device
    settings.push_to_talk = args.push_to_talk
    return settings


def _check_flag(game: str, flag: str, switch: str) -> None:
    """``--window``/``--discussion`` set a switch some games do not have: say which to use."""
    from narrator.rules.registry import get_variant, known_names

    if game not in known_names():
        return  # the unknown game is reported on its own
    fields = get_variant(game).switches.model_fields
    if switch in fields:
        return
    lengths = ", ".join(f"-o {name}=S" for name in fields if name.endswith("_s"))
    raise NarratorError(f"{flag}: {game} has no {switch}; its lengths are {lengths}")


def given_on_command_line(args: argparse.Namespace) -> frozenset[str]:
    """The settings typed on the command line: they win over the remembered ones."""
    given = {
        field
        for field, value in (
            ("players", args.players),
            ("lang", args.lang),
            ("answer_s", args.answer_time),
            ("input", args.input),
            ("voice_pack", args.voice_pack),
            ("knock_volume", args.knock_volume),
            ("speech_volume", args.speech_volume),
        )
        if value is not None
    }
    if args.voice is not None or args.silent:
        given.add("voice")
    if args.no_knocks:
        given.add("knocks")
    return frozenset(given)


def _resume(args: argparse.Namespace) -> int:
    from narrator.app import resume_at_table

    args.game, args.players, args.seed, args.option = "onenight", None, None, []
    args.window = args.discussion = None
    settings = play_settings(args)  # the game, its rules and its deal come from the record
    code: int = resume_at_table(settings, args.number, args.list, args.answer_time)
    return code


def _demo(args: argparse.Namespace) -> int:
    from narrator.app import demo

    code: int = demo(_settings(args, output=args.output, answer_s=10.0))
    return code


def _voice(args: argparse.Namespace) -> int:
    from narrator.voice import commands

    if args.command == "voices":
        return commands.voices_command(sys.stdout)
    if args.voice_command == "build":
        return commands.build_command(
            args.lang,
            args.variant,
            args.voice,
            args.rate,
            sys.stdout,
            name=args.name,
            replace=args.replace,
        )
    if args.voice_command == "export":
        return commands.export_command(args.name, args.file, args.audio, sys.stdout)
    if args.voice_command == "import":
        return commands.import_command(args.file, args.name, args.lang, sys.stdout)
    return commands.record_command(args.lang, args.pack, args.variant)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``argv``: the words after ``narrator``, or the process's own).

    A game at the table started from the command line runs in a child process of a
    parent that cleans up after a crash (narrator.supervise); the arguments are read
    once, before, so a wrong one is said once.
    """
    args = _parser().parse_args(argv)
    at_table = args.command == "play" or (args.command == "resume" and not args.list)
    if argv is None and at_table:
        from narrator.supervise import supervised

        return supervised(lambda: _run(args), lambda started: after_crash(args, started))
    return _run(args)


def after_crash(args: argparse.Namespace, started: float) -> str:
    """The line after a crashed game, in its language: how to go on with it (the newest
    unfinished game written since ``started``), or that no game was under way."""
    lang = args.lang or "ru"
    try:
        import shlex

        from narrator.app import unfinished_games
        from narrator.host.journal import default_record_dir
        from narrator.voice.catalog import load_catalog

        folder = args.record_dir or default_record_dir()
        games = unfinished_games(folder)
        ours = [n for n, g in enumerate(games, 1) if g.path.stat().st_mtime >= started - 1]
        if not ours:
            return load_catalog(lang).text("supervise.crashed_no_game")
        number = ours[0]
        words = ["narrator", "resume", *([str(number)] if number > 1 else [])]
        words += ["--text"] if args.text else []
        words += ["--record-dir", str(args.record_dir)] if args.record_dir else []
        command = shlex.join(words)
        return load_catalog(games[number - 1].lang).text("supervise.crashed", {"command": command})
    except Exception:  # a crash that breaks the game's own modules too: the command alone
        return "narrator resume"


def _run(args: argparse.Namespace) -> int:
    from narrator.ports import Terminated

    try:
        if args.command == "scenario":
            return _scenario(args)
        if args.command == "games":
            return _games()
        if args.command in {"voices", "voice"}:
            return _voice(args)
        if args.command == "demo":
            return _demo(args)
        if args.command in {"models", "mic-test"}:
            return _listen(args)
        if args.command == "resume":
            return _resume(args)
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "show":
            return _show(args)
        return _play(args)
    except NarratorError as error:
        print(one_line(f"narrator: {error}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("narrator: stopped (Ctrl-C)", file=sys.stderr)
        return 130
    except Terminated as stop:
        print(f"narrator: stopped (signal {stop.signum})", file=sys.stderr)
        return 128 + stop.signum


if __name__ == "__main__":
    sys.exit(main())
