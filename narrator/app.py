"""The composition root of a game at the table: ``narrator play`` and ``narrator resume``.

Only here (and in cli.py and demo.py) are the adapters chosen and wired: terminal
or demo keys, printed or spoken voice, sound card or narration file, real or
virtual clock. The game itself is ``narrator.session``'s; what it speaks with,
``narrator.speaking``'s; a stopped game to go on with, ``narrator.unfinished``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from narrator.clocks import RealClock
from narrator.host.audio import AudioVoice
from narrator.host.journal import default_record_dir
from narrator.ports import Clock
from narrator.ports import Keys
from narrator.ports import Screen
from narrator.prepared import Prepared
from narrator.prepared import prepare
from narrator.rules.errors import ConfigError
from narrator.rules.recommended import with_recommended
from narrator.rules.registry import get_variant
from narrator.screen.remembered import SetupChoice
from narrator.screen.remembered import initial_values
from narrator.session import check_record_dir
from narrator.session import spoken_game
from narrator.session import stop_on_signals
from narrator.session import terminal_for
from narrator.settings import TableSettings
from narrator.settings import default_players
from narrator.sound.mixer import Mixer
from narrator.sound.output import OfflineOutput
from narrator.speaking import Speaking
from narrator.speaking import demo_keys
from narrator.speaking import speaking
from narrator.unfinished import describe_damaged
from narrator.unfinished import describe_unfinished
from narrator.unfinished import prepare_resumed
from narrator.unfinished import scan_records
from narrator.unfinished import unfinished_choices
from narrator.unfinished import unfinished_games
from narrator.voice.catalog import load_catalog

if TYPE_CHECKING:
    from narrator.phones.at_table import PhoneLink
    from narrator.phones.at_table import Phones
    from narrator.screen.keys import PausableClock
    from narrator.screen.tui import TableApp


def play_at_table(settings: TableSettings, prepared: Prepared | None = None) -> int:
    """A game at the table: the full screen, or the text host (and demo players)."""
    prepared = prepared or prepare(settings)
    check_record_dir(settings)
    full_screen = not (settings.text or settings.demo)
    if full_screen and prepared.resumed_from is None:  # the set-up screen serves them
        return play_full_screen(settings, prepared)
    phones = open_phones_for(settings, prepared)
    try:
        if full_screen:
            return play_full_screen(settings, prepared, phones)
        with stop_on_signals(), terminal_for(prepared.catalog, demo=settings.demo) as terminal:
            clock: Clock = RealClock()
            keys: Keys = demo_keys(prepared.seed, clock) if settings.demo else terminal
            if settings.demo:
                terminal.line(prepared.catalog.text("screen.demo"))
            screen = terminal if phones is None else phones.screen(terminal)
            keys = keys if phones is None else phones.keys(keys)
            spoken = speaking(settings, prepared, screen, clock)
            hub = None if phones is None else phones.hub
            code = spoken_game(settings, prepared, screen, keys, spoken, clock, phones=hub)
        return code
    finally:
        if phones is not None:
            phones.stop()


def open_phones_for(
    settings: TableSettings, prepared: Prepared, host: str | None = None
) -> Phones | None:
    """With ``--phones``: the phones' server, its address and QR code shown, and (at a
    real keyboard) a wait for Enter while the players join. A resumed game's phones get
    their seats back with their tokens, on the port they knew if it is free."""
    if not settings.phones:
        return None
    import sys

    from narrator.phones.at_table import ANY
    from narrator.phones.at_table import PORT
    from narrator.phones.at_table import open_phones

    catalog = prepared.catalog
    port = prepared.phones_port or PORT  # a resumed game's, so its phones find it again
    phones = open_phones(prepared.players, catalog.word, host=host or ANY, port=port)
    phones.hub.remember(prepared.seats_kept)
    phones.show(sys.stdout)
    if not settings.demo and sys.stdin.isatty():
        input(catalog.text("phones.ready"))
        print(catalog.text("phones.joined", {"seats": _seats(phones)}))
    return phones


def _seats(phones: Phones) -> str:
    return " ".join(str(seat) for seat in phones.hub.seating.bound()) or "—"


def chosen_game(
    choice: SetupChoice | None, settings: TableSettings, prepared: Prepared
) -> tuple[TableSettings, Prepared]:
    """The game the set-up screen chose: new with its values, or a stopped one continued."""
    if choice is None:
        return settings, prepared
    chosen = choice.settings
    if choice.resume is not None:
        ready = _resumed_from(choice.resume, chosen)
        chosen = chosen.but(game=ready.variant.name, players=ready.players)
        return chosen.but(lang=ready.catalog.lang), ready
    # The set-up screen's default composition: the recommended one.
    players = chosen.players or default_players(get_variant(chosen.game))
    chosen = chosen.but(options=with_recommended(chosen.game, players, chosen.options))
    return chosen, prepare(chosen)


def _resumed_from(path: Path, settings: TableSettings) -> Prepared:
    folder = settings.record_dir or default_record_dir()
    for game in unfinished_games(folder):
        if game.path == path:
            return prepare_resumed(game)
    raise ConfigError(f"{path.name}: no longer an unfinished game")


def resume_at_table(
    settings: TableSettings, choice: int | None, listing: bool, answer_s: float | None = None
) -> int:
    """``narrator resume``: list the unfinished games, or continue one (the newest by default)
    with its own time for a day answer, unless ``answer_s`` is given."""
    folder = settings.record_dir or default_record_dir()
    games, damaged = scan_records(folder)
    catalog = load_catalog(settings.lang)
    if not listing and not games and damaged:  # nothing to go on with: say why, exit 2
        reason = catalog.text(f"resume.reason.{damaged[0].reason}", damaged[0].params)
        name = damaged[0].path.name
        raise ConfigError(catalog.text("resume.only_damaged", {"name": name, "reason": reason}))
    if listing or not games:
        if not games and not damaged:
            print(catalog.text("resume.none", {"folder": folder}))
        for number, game in enumerate(games, start=1):
            print(f"{number}  {describe_unfinished(game, catalog)}")
        for record in damaged:
            print(f"-  {describe_damaged(record, catalog)}")
        return 0
    if choice is not None and not 1 <= choice <= len(games):
        raise ConfigError(f"resume {choice}: there are {len(games)} unfinished games (see --list)")
    game = games[(choice or 1) - 1]
    prepared = prepare_resumed(game)
    said = prepared.catalog  # the game's own language, not the command's
    print(said.text("resume.going_on", {"game": describe_unfinished(game, said)}))
    resumed = settings.but(
        game=game.game,
        lang=game.lang,
        players=game.players,
        answer_s=answer_s or game.answer_s or settings.answer_s,
        phones=settings.phones or bool(game.phones),  # its phones come back with it
    )
    return play_at_table(resumed, prepared)


def table_app(
    settings: TableSettings,
    prepared: Prepared,
    config: Path | None = None,
    *,
    clock: PausableClock | None = None,
    offline: Callable[[Mixer], OfflineOutput] | None = None,
    phones: Phones | None = None,
    link: PhoneLink | None = None,
) -> tuple[TableApp, dict[str, Speaking]]:
    """The full-screen table as ``narrator play`` runs it: the set-up screen, then the game
    in a thread behind it, speaking with knocks; the state holds what it speaks with.

    ``clock`` and ``offline`` put the table on a virtual clock (the tests' whole games):
    the mix is rendered into ``offline`` as that clock moves, not played. ``phones``:
    served already (a resumed game); else the set-up screen serves them (``link``)
    when its choice is on."""
    from narrator.phones.at_table import PhoneLink
    from narrator.screen.keys import PausableClock
    from narrator.screen.phones import ask_on_pause
    from narrator.screen.tui import TableApp
    from narrator.screen.tui import TuiScreen

    clock = clock or PausableClock()
    state: dict[str, Speaking] = {}
    held = PhoneLink(prepared.catalog.word)  # the game's phones, once it has them
    said = {"catalog": prepared.catalog}  # the game's language, once it is chosen

    def game(app: TableApp) -> int:
        chosen, ready = chosen_game(app.choice, settings, prepared)
        screen: Screen = TuiScreen(app)
        keys: Keys = app.keys
        served = phones
        if served is None and link is not None:
            served = link.open(ready.players) if chosen.phones else None
            if served is None:
                link.close()
        if served is not None:
            held.phones = served  # a request for a held seat is answered on a day pause
            said["catalog"] = ready.catalog
            served.for_game(ready.players, ready.catalog.word, ready.seats_kept)
            screen, keys = served.screen(screen), served.keys(keys)
            screen.line(ready.catalog.text("phones.address", {"address": served.address}))
        screen.said(ready.catalog.text("tui.preparing"))
        stop = app.keys.stopping  # a stop signal cuts a line short (no key is read meanwhile)
        spoken = speaking(chosen, ready, screen, clock, progress=None, offline=offline, stop=stop)
        state["spoken"] = spoken
        hub = None if served is None else served.hub
        return spoken_game(chosen, ready, screen, keys, spoken, clock, phones=hub)

    def pause(paused: bool) -> None:
        spoken = state.get("spoken")
        if spoken is not None and spoken.mixer is not None:
            spoken.mixer.pause(paused)
        if paused:  # a phone asking for a seat another holds: the keypad answers now
            ask_on_pause(app, held, said["catalog"])

    def repeat(text: str) -> None:
        spoken = state.get("spoken")
        if spoken is not None and isinstance(spoken.voice, AudioVoice):
            spoken.voice.repeat(text)

    # A game continued with `narrator resume` goes on at once: no set-up screen, so
    # no key can deal a new game instead of it.
    setup = None
    if prepared.resumed_from is None:
        folder = settings.record_dir or default_record_dir()
        setup = initial_values(settings, config, unfinished_choices(folder, settings.lang))
    app = TableApp(
        prepared.catalog,
        game,
        clock,
        on_pause=pause,
        on_repeat=repeat,
        setup=setup,
        config=config,
        phones=link,
    )
    return app, state


def play_full_screen(
    settings: TableSettings, prepared: Prepared, phones: Phones | None = None
) -> int:
    """The textual table: the set-up screen (with the phones' choice), then the game in a
    thread behind it."""
    from narrator.phones.at_table import PhoneLink

    link = None if phones is not None else PhoneLink(prepared.catalog.word)
    app, _ = table_app(settings, prepared, phones=phones, link=link)
    try:
        code = app.run()
    finally:
        if link is not None:
            link.close()
    if app.error is not None:
        raise app.error
    for line in app.farewell or []:  # the winner, every role, the record: after the screen
        print(line)
    return code if code is not None else 0
