"""The one composition root: parse arguments, build the adapters, inject them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from typing import NoReturn

from narrator import __version__
from narrator.listen.answer_kinds import ANSWERS
from narrator.rules.errors import NarratorError
from narrator.settings import DEMO
from narrator.settings import FIELDS
from narrator.settings import MIC_TEST
from narrator.settings import PLAY
from narrator.settings import RESUME
from narrator.settings import SPOKEN
from narrator.settings import SettingError
from narrator.settings import TableSettings
from narrator.settings import checked
from narrator.settings import choices_of
from narrator.settings import default_of
from narrator.settings import expected
from narrator.settings import flag_of
from narrator.settings import is_duration
from narrator.settings import number_kind
from narrator.settings import seats_text
from narrator.voice.catalog import LANGUAGES

MAX_OPTION_CHARS = 1000


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


def _typed(name: str) -> Callable[[str], Any]:
    """The check of the table setting ``name`` (the model's), as argparse calls it."""

    def check(text: str) -> Any:
        try:
            return checked(name, text)
        except SettingError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    check.__name__ = name  # argparse names it in its own messages
    return check


def _seconds(text: str) -> float:
    """A time in seconds, as a day answer's time takes it."""
    value: float = _typed("answer_s")(text)
    return value


def _path(text: str) -> Path:
    """A file or folder name, checked as the settings' paths are."""
    value: Path = _typed("record_dir")(text)
    return value


def _setting_flags(parser: argparse.ArgumentParser, command: str) -> None:
    """The flags of the table settings ``command`` takes, from ``TableSettings``: its
    help, its range and its check. A flag not typed leaves no value (``typed_settings``)."""
    for name, spec in FIELDS.items():
        flag = flag_of(name)
        if flag is None or command not in flag.commands:
            continue
        option = flag.name or "--" + name.replace("_", "-")
        words = spec.description or ""
        if flag.negated:
            parser.add_argument(
                "--no-" + name.replace("_", "-"),
                action="store_false",
                dest=name,
                default=argparse.SUPPRESS,
                help=f"no {words}",
            )
            continue
        if spec.annotation is bool:
            parser.add_argument(
                option, action="store_true", dest=name, default=argparse.SUPPRESS, help=words
            )
            continue
        default, choices = default_of(name), choices_of(name)
        if number_kind(spec.annotation) is not None:
            words += f" ({expected(name)})"
        if default is not None:
            words += (
                f" (default: {default:g})"
                if number_kind(spec.annotation)
                else f" (default: {default})"
            )
        parser.add_argument(
            option,
            dest=name,
            default=argparse.SUPPRESS,
            type=_typed(name),
            choices=choices or None,
            nargs="?" if flag.const is not None else None,
            const=flag.const,
            metavar=flag.metavar or (None if choices else option.lstrip("-").upper()),
            help=words,
        )


def _lang(
    parser: argparse.ArgumentParser,
    default: str | None = "ru",
    choices: Sequence[str] = LANGUAGES,
    **more: Any,
) -> None:
    """``--lang`` of a command outside the table: one of the table's languages."""
    parser.add_argument("--lang", default=default, choices=choices, **more)


def typed_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The table settings typed on the command line, by name."""
    return {name: value for name, value in vars(args).items() if name in FIELDS}


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="narrator", description="Offline voice host for Mafia and Werewolf party games."
    )
    parser.add_argument("--version", action="version", version=f"narrator {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="host a game at the table")
    play.add_argument("game", help=FIELDS["game"].description)
    play.add_argument("--window", type=float, default=None, help="length of each wake window, s")
    play.add_argument("--discussion", type=float, default=None, help="discussion length, s")
    _rule_options(play)
    _setting_flags(play, PLAY)

    resume = commands.add_parser(
        "resume", help="continue a stopped or crashed game where it stopped (--list shows them)"
    )
    resume.add_argument(
        "number", nargs="?", type=int, default=None, help="which one of --list (default: 1)"
    )
    resume.add_argument("--list", action="store_true", help="list the unfinished games")
    _setting_flags(resume, RESUME)

    demo = commands.add_parser(
        "demo", help="a narrated game answered by random players, to the speakers or a file"
    )
    demo.add_argument("game", help="which game (see `narrator games`)")
    _rule_options(demo)
    _setting_flags(demo, DEMO)

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
    _lang(build)
    build.add_argument("--variant", default=None, help="only this game's lines")
    build.add_argument(
        "--voice",
        default=None,
        metavar="ENGINE:VOICE",
        help="e.g. festival:msu_ru_nsh_clunits, hibari:heart, espeak:zle/ru, or a bare voice id "
        "(default: the best installed voice, see `narrator voices`)",
    )
    build.add_argument(
        "--rate", type=_typed("rate"), default=None, help=f"speech rate ({expected('rate')})"
    )
    build.add_argument(
        "--name", default=None, help="write a voice pack of this name that speaks every line"
    )
    build.add_argument(
        "--replace", action="store_true", help="with --name: replace a pack of that name"
    )
    record = voice_commands.add_parser(
        "record", help="record your own voice pack: the lines, then the parts of lines with numbers"
    )
    _lang(record)
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
    _lang(imported, None, help="refuse a pack of another language")

    scenario = commands.add_parser("scenario", help="headless scenario files (docs/scenarios.md)")
    scenario_commands = scenario.add_subparsers(dest="scenario_command", required=True)
    run = scenario_commands.add_parser("run", help="play a scenario file, print the JSON result")
    run.add_argument("file", type=_path)
    run.add_argument("--text", action="store_true", help="print a readable transcript instead")

    commands.add_parser("games", help="list the playable games")
    commands.add_parser(
        "doctor", help="what a game would speak and listen with here, and what is missing"
    )
    _listen_commands(commands)
    _simulate_commands(commands)
    return parser


def _simulate_commands(commands: Any) -> None:
    """``simulate`` (many games played by policies) and ``show`` (a finished game's picture)."""
    simulate = commands.add_parser(
        "simulate", help="play many games with no one at the table: win rates, lengths, causes"
    )
    simulate.add_argument("game", help="which game (see `narrator games`)")
    simulate.add_argument(
        "--players", type=_typed("players"), default=None, help=FIELDS["players"].description
    )
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
    _lang(simulate)
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
    from narrator.picture import draw
    from narrator.prepared import rules_rng
    from narrator.voice.catalog import load_catalog

    path, lang = draw(args.record, args.output, rules_rng)
    print(load_catalog(lang).text("picture.written", {"path": path}))
    return 0


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
    _lang(mic)
    _setting_flags(mic, MIC_TEST)
    mic.add_argument("--seconds", type=_seconds, default=25.0, help="how long to listen for 1–10")
    hear = commands.add_parser(
        "hear", help="decode recordings as a game would: what was heard, the answer, the latency"
    )
    hear.add_argument("files", nargs="+", type=_path, metavar="FILE", help="WAV, FLAC or Ogg")
    _lang(hear)
    hear.add_argument(
        "--answer",
        required=True,
        choices=list(ANSWERS),
        help="the question the recordings answer (vote: a seat or abstain; thanks: a speech)",
    )
    hear.add_argument(
        "--asr", type=_typed("asr"), default=None, metavar="ENGINE", help=FIELDS["asr"].description
    )
    hear.add_argument(
        "--json", action="store_true", help="one JSON object per file: file, heard, answer, …"
    )


def _listen(args: argparse.Namespace) -> int:
    from narrator.listen import commands

    if args.command == "hear":
        from narrator.listen.hear import hear_command

        return hear_command(
            args.files, args.lang, args.answer, sys.stdout, asr=args.asr, as_json=args.json
        )
    if args.command == "mic-test":
        return commands.mic_test(
            args.lang,
            getattr(args, "asr_model", None),
            getattr(args, "input_device", None),
            sys.stdout,
            listen_s=args.seconds,
            asr=getattr(args, "asr", None),
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


def _settings(args: argparse.Namespace, **more: Any) -> TableSettings:
    """The settings typed for ``args.game``, its rule switches, and ``more``."""
    return TableSettings.of({**typed_settings(args), "options": dict(args.option), **more})


def _scenario(args: argparse.Namespace) -> int:
    from narrator.scenario import load_scenario
    from narrator.scenario import run_scenario

    result, transcript = run_scenario(load_scenario(args.file))
    if args.text:
        print("\n".join(transcript))
    else:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


def _games() -> int:
    from narrator.rules.registry import get_variant
    from narrator.rules.registry import known_names

    for name in known_names():
        print(f"{name}\t{seats_text(get_variant(name).seat_counts)} players")
    return 0


def _play(args: argparse.Namespace) -> int:
    from narrator.app import play_at_table

    code: int = play_at_table(play_settings(args))
    return code


def play_settings(args: argparse.Namespace) -> TableSettings:
    """The settings of ``narrator play``: it speaks unless ``--silent``."""
    typed = typed_settings(args)
    options = dict(args.option)
    for flag, switch, value in (
        ("--window", "window_s", args.window),
        ("--discussion", "discussion_s", args.discussion),
    ):
        if value is not None:
            options[switch] = value
            _check_flag(args.game, flag, switch)
    silent = typed.get("silent", False)
    return TableSettings.of(
        {
            **typed,
            "game": args.game,
            "options": options,
            "demo": typed.get("demo", False) or not sys.stdin.isatty(),
            "voice": None if silent else typed.get("voice", SPOKEN),  # speak by default
            "given": given_on_command_line(args),
        }
    )


def _check_flag(game: str, flag: str, switch: str) -> None:
    """``--window``/``--discussion`` set a switch some games do not have: say which to use."""
    from narrator.rules.registry import get_variant
    from narrator.rules.registry import known_names

    if game not in known_names():
        return  # the unknown game is reported on its own
    fields = get_variant(game).switches.model_fields
    if switch in fields:
        return
    lengths = ", ".join(f"-o {name}=S" for name, spec in fields.items() if is_duration(name, spec))
    raise NarratorError(f"{flag}: {game} has no {switch}; its lengths are {lengths}")


def given_on_command_line(args: argparse.Namespace) -> frozenset[str]:
    """The settings typed on the command line: they win over the remembered ones.
    ``--silent`` is a choice of voice."""
    given = set(typed_settings(args))
    if "silent" in given:
        given.add("voice")
    return frozenset(given)


def _resume(args: argparse.Namespace) -> int:
    from narrator.app import resume_at_table

    args.game, args.option = "onenight", []
    args.window = args.discussion = None
    settings = play_settings(args)  # the game, its rules and its deal come from the record
    answer_s = getattr(args, "answer_s", None)
    code: int = resume_at_table(settings, args.number, args.list, answer_s)
    return code


def _demo(args: argparse.Namespace) -> int:
    from narrator.demo import DEMO_ANSWER_S
    from narrator.demo import demo

    code: int = demo(_settings(args, answer_s=DEMO_ANSWER_S))
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
    lang = getattr(args, "lang", default_of("lang"))
    record_dir = getattr(args, "record_dir", None)
    try:
        import shlex

        from narrator.host.journal import default_record_dir
        from narrator.unfinished import unfinished_games
        from narrator.voice.catalog import load_catalog

        folder = record_dir or default_record_dir()
        games = unfinished_games(folder)
        ours = [n for n, g in enumerate(games, 1) if g.path.stat().st_mtime >= started - 1]
        if not ours:
            return load_catalog(lang).text("supervise.crashed_no_game")
        number = ours[0]
        words = ["narrator", "resume", *([str(number)] if number > 1 else [])]
        words += ["--text"] if getattr(args, "text", False) else []
        words += ["--record-dir", str(record_dir)] if record_dir else []
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
        if args.command == "doctor":
            from narrator.doctor import doctor

            return doctor(sys.stdout)
        if args.command in {"voices", "voice"}:
            return _voice(args)
        if args.command == "demo":
            return _demo(args)
        if args.command in {"models", "mic-test", "hear"}:
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
