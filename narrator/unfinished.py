"""Games that did not reach their end: found in the record folder, described, and
made ready to go on (``narrator resume``, the set-up screen's first row)."""

from __future__ import annotations

from pathlib import Path

from narrator.host.journal import read_journal, unfinished_records
from narrator.prepared import Prepared
from narrator.resume import Unfinished, unfinished
from narrator.rules.core import Deal
from narrator.rules.errors import ConfigError, NarratorError
from narrator.rules.registry import get_variant, make_switches
from narrator.voice.catalog import Catalog, load_catalog, phase_in_words


def unfinished_games(folder: Path) -> list[Unfinished]:
    """The games in ``folder`` that did not reach their end, newest first."""
    try:
        paths = unfinished_records(folder) if folder.is_dir() else []
    except OSError as error:
        raise ConfigError(f"cannot read the record folder {folder}: {error.strerror}") from None
    games = []
    for path in paths:
        try:
            found = unfinished(path, read_journal(path))
        except (OSError, ValueError, ConfigError):
            continue  # not a record of this program (or unreadable): not offered
        if found is not None:
            games.append(found)
    return games


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
        resumed_from=game.path,
    )


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
