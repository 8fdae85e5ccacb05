"""Games that did not reach their end: found in the record folder, described, and
made ready to go on (``narrator resume``, the set-up screen's first row)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from narrator.host.journal import DamagedRecord
from narrator.host.journal import read_journal
from narrator.host.journal import unfinished_records
from narrator.phones.seating import kept_seats
from narrator.prepared import Prepared
from narrator.resume import Unfinished
from narrator.resume import unfinished
from narrator.rules.core import Deal
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NarratorError
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import phase_in_words


@dataclass(frozen=True)
class Damaged:
    """A sealed record that cannot be continued: where, and why (``resume.reason.*``)."""

    path: Path
    reason: str
    params: dict[str, object]
    message: str  # the one line, in English, for the command line's refusal


def unfinished_games(folder: Path) -> list[Unfinished]:
    """The games in ``folder`` that did not reach their end, newest first."""
    return scan_records(folder)[0]


def scan_records(folder: Path) -> tuple[list[Unfinished], list[Damaged]]:
    """The unfinished games in ``folder``, and the sealed records that are damaged or
    unreadable (named, not silently left out), both newest first."""
    try:
        paths = unfinished_records(folder) if folder.is_dir() else []
    except OSError as error:
        raise ConfigError(f"cannot read the record folder {folder}: {error.strerror}") from None
    games, damaged = [], []
    for path in paths:
        try:
            found = unfinished(path, read_journal(path))
        except DamagedRecord as error:
            damaged.append(Damaged(path, error.reason, dict(error.params), str(error)))
            continue
        except (OSError, ValueError, ConfigError) as error:
            damaged.append(Damaged(path, "not_a_game", {}, f"{path.name}: {error}"))
            continue
        if found is not None:
            games.append(found)
    return games, damaged


def describe_damaged(record: Damaged, catalog: Catalog) -> str:
    """One line of ``resume --list`` for a damaged record: its file and why."""
    reason = catalog.text(f"resume.reason.{record.reason}", record.params)
    return f"{record.path.name}  {catalog.text('resume.damaged', {'reason': reason})}"


def prepare_resumed(game: Unfinished) -> Prepared:
    """The same game again: its deal, seed and rules from the record, its steps to replay."""
    variant = get_variant(game.game)
    options = game.start.get("options")
    switches = make_switches(variant, dict(options) if isinstance(options, dict) else {})
    deal_data = game.start["deal"]
    deal = Deal(tuple(deal_data["seats"]), tuple(deal_data.get("center", ())))
    variant.validate_deal(deal, switches)
    seed = game.start.get("seed")
    if not isinstance(seed, int):
        raise ConfigError(f"{game.path.name}: the record has no seed")
    return Prepared(
        variant,
        switches,
        deal,
        load_catalog(game.lang),
        seed,
        deal.players,
        replay=tuple(game.steps),
        kept=tuple(game.kept),
        drawn=dict(game.drawn),
        resumed_from=game.path,
        seats_kept=kept_seats(game.phones.get("seats")),
        phones_port=_port(game.phones.get("port")),
    )


def _port(value: object) -> int | None:
    """The phones' port a record names, if it is one a server may listen on."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 1024 <= value < 65536 else None


def describe_unfinished(game: Unfinished, catalog: Catalog) -> str:
    """One line of ``narrator resume --list``: when, which game, how many, where it stopped."""
    day, hour = game.started[:8], game.started[9:13]  # YYYYMMDD, HHMM
    when = f"{day[6:8]}.{day[4:6]}.{day[:4]} {hour[:2]}:{hour[2:]}"
    phase = phase_in_words(catalog, game.phase)
    title = catalog.lines.get(f"setup.game_title.{game.game}", game.game)
    players = catalog.text("resume.players", {"players": game.players})
    lost = f" ({catalog.text('resume.lost')})" if game.lost else ""
    return f"{when}  {title}  {players}  {phase}{lost}"


def unfinished_choices(folder: Path, lang: str) -> list[tuple[str, str]]:
    """The stopped games of the record folder, to continue from the set-up screen:
    (record path, its description); none when the folder cannot be read."""
    catalog = load_catalog(lang)
    try:
        games = unfinished_games(folder)
    except (OSError, NarratorError):
        return []
    return [(str(game.path), describe_unfinished(game, catalog)) for game in games]
