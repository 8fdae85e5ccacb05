"""The set-up screen: game, players, language, voice, sound and the house rules.

The rule switches are read from the variant's pydantic model, so every game
shows its own, each with its one-line description. The last settings are kept
per game and named presets can be saved and loaded (JSON in the user's config
folder).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import typing
from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Select, Static, Switch

from narrator.rules.errors import NarratorError
from narrator.rules.recommended import with_recommended
from narrator.rules.registry import get_variant, known_names, make_switches
from narrator.voice.catalog import Catalog, load_catalog

SAVED_FIELDS = (
    "game",
    "players",
    "lang",
    "voice",
    "voice_pack",
    "input",
    "knocks",
    "knock_volume",
    "speech_volume",
    "options",
    "answer_s",
)
# What a plain ``narrator play GAME`` starts with (it speaks by default).
DEFAULTS: dict[str, Any] = {
    "players": None,
    "lang": "ru",
    "voice": "auto",
    "voice_pack": None,
    "input": "keypad",
    "knocks": True,
    "knock_volume": 0.35,
    "speech_volume": 0.9,
    "options": {},
    "answer_s": 60.0,
}


class SetupValues(dict[str, Any]):
    """The set-up screen's values, with where they came from.

    ``given``: typed on the command line (they win); ``remembered``: taken from the
    last game of this kind (shown as such); ``defaults``: what the defaults button
    brings back (the program's defaults under the command line).
    """

    given: dict[str, Any]
    remembered: dict[str, Any]
    defaults: dict[str, Any]
    unfinished: list[tuple[str, str]]  # games to continue: (record path, its description)


def config_folder() -> Path:
    from platformdirs import user_config_path

    return user_config_path("narrator", appauthor=False)


def load_saved(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if k in SAVED_FIELDS} if isinstance(data, dict) else {}


def save(path: Path, values: dict[str, Any]) -> str | None:
    """Write settings, whole or not at all (a full disk keeps the ones saved before and
    leaves no empty file); the problem in one line, or None."""
    part = path.with_name(f".{path.name}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_text(json.dumps(values, ensure_ascii=False, indent=1), "utf-8")
        os.replace(part, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            part.unlink()
        return f"cannot save {path}: {error.strerror}"
    return None


def last_path(game: str, folder: Path | None = None) -> Path:
    return (folder or config_folder()) / "last" / f"{game}.json"


def preset_path(name: str, folder: Path | None = None) -> Path:
    safe = re.sub(r"[^\w-]+", "_", name.strip()) or "preset"
    return (folder or config_folder()) / "presets" / f"{safe}.json"


def preset_names(folder: Path | None = None) -> list[str]:
    presets = (folder or config_folder()) / "presets"
    return sorted(p.stem for p in presets.glob("*.json")) if presets.is_dir() else []


class RulesScreen(ModalScreen[None]):
    """A game's rules and roles, readable at the table (users have no RULES.md)."""

    CLOSE = frozenset({"escape", "enter", "slash", "question_mark", "q"})
    SCROLL: ClassVar[dict[str, str]] = {
        "8": "up",
        "up": "up",
        "2": "down",
        "down": "down",
        "9": "pageup",
        "3": "pagedown",
    }

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rules-page"):
            yield Static(self.text, id="rules-text")

    def on_key(self, event: Any) -> None:
        event.stop()
        page = self.query_one("#rules-page", VerticalScroll)
        if event.key in self.CLOSE:
            self.dismiss()
        elif (way := self.SCROLL.get(event.key)) is not None:
            {
                "up": page.scroll_up,
                "down": page.scroll_down,
                "pageup": page.scroll_page_up,
                "pagedown": page.scroll_page_down,
            }[way](animate=False)


class SetupScreen(Screen[dict[str, Any]]):
    """Choose everything, then Start (or Enter on Start): dismisses with the settings.

    With a numeric keypad alone: + and − move between the fields, Enter presses or
    opens one, 8 and 2 move inside a list, / shows the game's rules.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus", "app.focus_next", "next", priority=True, show=False),
        Binding("minus", "app.focus_previous", "previous", priority=True, show=False),
        Binding("slash", "rules", "rules", priority=True, show=False),
        Binding("question_mark", "rules", "rules", show=False),
    ]

    CSS = """
    SetupScreen { background: #0b0b0e; }
    #title { padding: 0 2; color: #f0e6c8; text-style: bold; }
    #remembered { padding: 0 2; color: #e0b341; }
    #form { padding: 0 2; height: 1fr; }
    .row { height: auto; }
    .row Label { width: 34; padding: 1 1 0 0; }
    .row Label.remembered { color: #e0b341; }
    .row Input { width: 16; }
    .row Select { width: 30; }
    .hint { color: #8a8aa0; padding: 0 0 1 2; }
    .heading { color: #f0e6c8; text-style: bold; padding: 1 0 0 0; }
    #composition, #length { padding: 0 1; color: #e0d8b0; }
    #problem { color: #ff8a80; padding: 0 2; height: auto; }
    #buttons { height: 3; dock: bottom; padding: 0 1; }
    #buttons Button { min-width: 10; width: auto; margin: 0 1 0 0; }
    #presets { height: auto; margin: 1 0; }
    #presets Input { width: 20; }
    #presets Button { width: auto; min-width: 10; }
    #presets Select { width: 26; }
    RulesScreen { align: center middle; }
    #rules-page { width: 84; max-width: 100%; height: 100%; border: round #888;
                  background: #16161c; padding: 0 1; }
    """

    def __init__(self, catalog: Catalog, values: dict[str, Any], folder: Path | None = None):
        super().__init__()
        self.catalog = catalog
        self.given: dict[str, Any] = dict(getattr(values, "given", {}))
        self.remembered: dict[str, Any] = dict(getattr(values, "remembered", {}))
        self.defaults: dict[str, Any] = dict(getattr(values, "defaults", {}))
        self.unfinished: list[tuple[str, str]] = list(getattr(values, "unfinished", []))
        self.values = dict(values)
        self.folder = folder

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    def _text(self, key: str, fallback: str) -> str:
        """A catalog line, or ``fallback`` for a game whose catalog lacks it (kept outside)."""
        return self.t(key) if key in self.catalog.lines else fallback

    def _switch_text(self, name: str, part: str, fallback: str) -> str:
        return self._text(f"setup.{self.values['game']}.switch.{name}.{part}", fallback)

    def compose(self) -> ComposeResult:
        yield Static(self.t("setup.title"), id="title")
        yield Static(self._remembered_text(), id="remembered")
        with VerticalScroll(id="form", can_focus=False):  # no invisible stop for +/−
            if self.unfinished:
                yield from self._row(
                    "resume",
                    Select(
                        [(text, path) for path, text in self.unfinished],
                        prompt=self.t("setup.new_game"),
                        id="resume",
                    ),
                )
            yield from self._row(
                "game",
                Select(
                    [(self._text(f"setup.game_title.{n}", n), n) for n in known_names()],
                    value=self.values["game"],
                    allow_blank=False,
                    id="game",
                ),
            )
            yield from self._row("players", Input(self._players_text(), id="players"))
            yield Static("", id="composition")
            yield Static("", id="length")
            yield from self._row(
                "lang",
                Select(
                    [("русский", "ru"), ("English", "en")],
                    value=self.values["lang"],
                    allow_blank=False,
                    id="lang",
                ),
            )
            yield from self._row("voice", Switch(bool(self.values.get("voice")), id="voice"))
            yield from self._row(
                "speech_volume",
                Input(str(self.values.get("speech_volume", 0.9)), id="speech_volume"),
            )
            yield from self._row(
                "voice_pack", Input(self.values.get("voice_pack") or "", id="voice_pack")
            )
            yield from self._row(
                "input",
                Select(
                    [
                        (self.t("setup.input_keypad"), "keypad"),
                        (self.t("setup.input_voice"), "voice"),
                    ],
                    value=self.values.get("input") or "keypad",
                    allow_blank=False,
                    id="input",
                ),
            )
            yield from self._row(
                "knocks", Switch(bool(self.values.get("knocks", True)), id="knocks")
            )
            yield from self._row(
                "knock_volume", Input(str(self.values.get("knock_volume", 0.35)), id="knock_volume")
            )
            yield from self._row(
                "answer_s", Input(str(self.values.get("answer_s", 60.0)), id="answer_s")
            )
            game_title = self._text(f"setup.game_title.{self.values['game']}", self.values["game"])
            yield Static(self.t("setup.rules", game=game_title), classes="heading")
            yield from self._switches()
            with Horizontal(id="presets"):
                yield Input(placeholder=self.t("setup.preset_name"), id="preset")
                yield Button(self.t("setup.save"), id="save")
                yield Select(
                    [(n, n) for n in preset_names(self.folder)],
                    prompt=self.t("setup.load"),
                    id="load",
                )
        yield Static("", id="problem")
        with Horizontal(id="buttons"):
            yield Button(self.t("setup.start"), id="start", variant="success")
            yield Button(self.t("setup.about"), id="about")
            yield Button(self.t("setup.defaults"), id="defaults")

    def _row(self, name: str, widget: Any) -> ComposeResult:
        label = Label(self.t(f"setup.{name}"))
        if name in self.remembered:
            label.add_class("remembered")
        with Horizontal(classes="row"):
            yield label
            yield widget

    def _players_text(self) -> str:
        players = self.values.get("players")
        return str(players or default_players(get_variant(self.values["game"])))

    def _remembered_text(self) -> str:
        """The remembered settings in use, by name; empty when there are none."""
        items = []
        for name, value in self.remembered.items():
            if name == "options":
                for option, chosen in value.items():
                    label = self._switch_text(option, "name", option)
                    items.append(f"{label}: {self._value_text(option, chosen)}")
            else:
                items.append(f"{self.t(f'setup.{name}')}: {self._value_text(name, value)}")
        if not items:
            return ""
        return self.t("setup.remembered", items="; ".join(items))

    def _value_text(self, name: str, value: Any) -> str:
        if isinstance(value, bool):
            return self.t("setup.on" if value else "setup.off")
        if name == "voice":
            return self.t("setup.on") if value else self.t("setup.off")
        return self._switch_text(name, f"choice.{value}", str(value))

    def on_mount(self) -> None:
        self.call_after_refresh(self._preview)
        # A stopped game first: 2 chooses it, then Enter on «Начать» (+) continues it.
        self.query_one("#resume" if self.unfinished else "#start").focus()

    def _switches(self) -> ComposeResult:
        """One row per rule switch of the chosen game, its explanation under it."""
        variant = get_variant(self.values["game"])
        options = self.values.get("options", {})
        remembered = self.remembered.get("options", {})
        for name, spec in variant.switches.model_fields.items():
            value = options.get(name, spec.default)
            widget: Any
            if spec.annotation is bool:
                widget = Switch(bool(value), id=f"opt-{name}")
            elif typing.get_origin(spec.annotation) is typing.Literal:
                choices = typing.get_args(spec.annotation)
                widget = Select(
                    [(self._switch_text(name, f"choice.{c}", str(c)), c) for c in choices],
                    value=value,
                    allow_blank=False,
                    id=f"opt-{name}",
                )
            else:
                widget = Input("" if value is None else str(value), id=f"opt-{name}")
            label = Label(self._switch_text(name, "name", name))
            if name in remembered:
                label.add_class("remembered")
            with Horizontal(classes="row"):
                yield label
                yield widget
            yield Static(self._switch_text(name, "hint", spec.description or ""), classes="hint")

    def _options(self) -> dict[str, Any]:
        variant = get_variant(self.values["game"])
        options: dict[str, Any] = {}
        widgets = {w.id: w for w in self.query(".row > *") if w.id}
        for name, spec in variant.switches.model_fields.items():
            widget = widgets[f"opt-{name}"]
            if isinstance(widget, Switch):
                value: Any = widget.value
            elif isinstance(widget, Select):
                value = widget.value
            else:
                text = widget.value.strip()  # type: ignore[attr-defined]
                if not text:
                    continue
                kind = _number_kind(spec.annotation)
                if kind is int:
                    value = int(_number(text))
                elif kind is float:
                    value = _number(text)
                else:
                    value = text
            if value != spec.default:
                options[name] = value
        return options

    def collect(self) -> dict[str, Any]:
        """The settings on screen, checked; raises NarratorError naming the problem."""
        values = dict(self.values)
        values["game"] = self.query_one("#game", Select).value
        values["lang"] = self.query_one("#lang", Select).value
        players = self.query_one("#players", Input).value.strip()
        values["players"] = int(players) if players.isdigit() else None
        if self.query_one("#voice", Switch).value:
            values["voice"] = self.values.get("voice") or "auto"  # keep a --voice ID
        else:
            values["voice"] = None
        values["voice_pack"] = self.query_one("#voice_pack", Input).value.strip() or None
        values["input"] = self.query_one("#input", Select).value
        values["knocks"] = self.query_one("#knocks", Switch).value
        values["knock_volume"] = _volume(self.query_one("#knock_volume", Input).value)
        values["speech_volume"] = _volume(self.query_one("#speech_volume", Input).value)
        values["answer_s"] = _number(self.query_one("#answer_s", Input).value)
        if values["answer_s"] <= 0:
            raise NarratorError(f"{values['answer_s']:g}: > 0")
        values["options"] = self._options()
        resume = self.query("#resume")
        if resume and isinstance(chosen := resume.first(Select).value, str):
            values["resume"] = chosen  # the stopped game brings its own rules and deal
            return values
        values.pop("resume", None)
        variant = get_variant(values["game"])
        count = values["players"] or default_players(variant)
        options = with_recommended(values["game"], count, values["options"])
        switches = make_switches(variant, options)
        seats = variant.seat_counts
        if count not in seats:
            if len(seats) == 1:
                raise NarratorError(self.t("setup.players_exactly", count=seats.start))
            raise NarratorError(self.t("setup.players_range", low=seats.start, high=seats.stop - 1))
        variant.composition(count, switches)
        return values

    def _checked(self) -> dict[str, Any] | None:
        """The values on screen, or None with the problem shown under the form."""
        problem = self.query_one("#problem", Static)
        try:
            values = self.collect()
        except (NarratorError, ValueError) as error:
            problem.update(str(error))
            return None
        problem.update("")
        return values

    def _preview(self) -> None:
        values = self._checked()
        composition = self.query_one("#composition", Static)
        length = self.query_one("#length", Static)
        if values is None:
            composition.update("")
            length.update("")
            return
        variant = get_variant(values["game"])
        count = values["players"] or default_players(variant)
        options = with_recommended(values["game"], count, values["options"])  # when none chosen
        cards = variant.composition(count, make_switches(variant, options))
        roles = ", ".join(f"{self.t(f'role.{r}')} × {n}" for r, n in cards.counts.items() if n)
        key = "setup.composition_center" if cards.center else "setup.composition"
        composition.update(self.t(key, players=count, roles=roles, center=cards.center))
        # Up to ~0.2 s of simulated games: off the screen's thread, the newest wins.
        self.run_worker(
            lambda: self._show_length(values, count), thread=True, exclusive=True, group="length"
        )

    def _show_length(self, values: dict[str, Any], players: int) -> None:
        text = self._length(values, players)

        def show() -> None:
            with contextlib.suppress(NoMatches):  # the screen is being rebuilt
                self.query_one("#length", Static).update(text)

        with contextlib.suppress(RuntimeError):  # the screen closed meanwhile
            self.app.call_from_thread(show)

    def _length(self, values: dict[str, Any], players: int) -> str:
        from narrator.estimate import expected_length

        try:
            guess = expected_length(
                values["game"],
                players,
                with_recommended(values["game"], players, values["options"]),
                lang=values["lang"],
                answer_s=values["answer_s"],
            )
        except NarratorError:
            return ""
        low, median, high = round(guess.low_min), round(guess.median_min), round(guess.high_min)
        if low == high:  # «обычно 8–8» says nothing: one figure
            return self.t("setup.length_fixed", median=median)
        return self.t("setup.length", low=low, median=median, high=high)

    def _rebuilt(self, values: dict[str, Any], focus: str = "start") -> None:
        """The screen again for other values (a game, a language, a preset, the defaults),
        with ``focus`` (the id of the field that changed them) in focus."""
        if isinstance(values, SetupValues):
            self.given, self.remembered = dict(values.given), dict(values.remembered)
            self.defaults = dict(values.defaults)
            self.unfinished = list(getattr(values, "unfinished", self.unfinished))
        else:
            self.remembered = {}
        self.values = dict(values)
        self.catalog = load_catalog(str(self.values["lang"]))
        self.run_worker(self._recomposed(focus), exclusive=True, group="rebuild")

    async def _recomposed(self, focus: str) -> None:
        await self.recompose()
        self.query_one(f"#{focus}").focus()
        self._preview()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "game" and event.value != self.values["game"]:
            given = {k: v for k, v in self.given.items() if k != "options"}
            self._rebuilt(values_for(str(event.value), given, self.folder), focus="game")
            return
        if event.select.id == "lang" and event.value != self.values["lang"]:
            values = self._checked() or dict(self.values)
            values["lang"] = event.value
            self._rebuilt(values, focus="lang")
            return
        if event.select.id == "resume" and isinstance(event.value, str):
            self.query_one("#start", Button).focus()  # 2, then Enter: that game goes on
        if event.select.id == "load" and isinstance(event.value, str):
            loaded = load_saved(preset_path(event.value, self.folder))
            if loaded:
                self._rebuilt({**self.values, **loaded})
                return
        self.call_after_refresh(self._preview)

    def on_key(self, event: Any) -> None:
        """On the keypad 8 and 2 are the arrows outside a text field: on a closed list they
        choose its previous or next entry at once (Enter opens the whole list), inside
        an open list they move in it."""
        arrow = {"8": "up", "2": "down"}.get(event.key)
        focused = self.app.focused
        if arrow is None or isinstance(focused, Input):
            return
        event.stop()
        event.prevent_default()
        if isinstance(focused, Select) and not focused.expanded:
            step_choice(focused, -1 if arrow == "up" else 1)
        else:
            self.app.simulate_key(arrow)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "preset":
            self._preview()

    def on_switch_changed(self, event: Switch.Changed) -> None:
        self._preview()

    def action_rules(self) -> None:
        game = str(self.values["game"])
        parts = [self._text(f"setup.{game}.about.summary", "")]
        variant = get_variant(game)
        for role in variant.roles:
            about = self._text(f"setup.{game}.about.role.{role}", "")
            if about:
                parts.append(f"{self.t(f'role.{role}')}: {about}")
        parts.append(self.t("setup.about_close"))
        self.app.push_screen(RulesScreen("\n".join(p.rstrip() for p in parts if p)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        problem = self.query_one("#problem", Static)
        if event.button.id == "about":
            self.action_rules()
            return
        if event.button.id == "defaults":
            self._rebuilt({**self.values, **self.defaults})
            return
        values = self._checked()
        if values is None:
            return
        if event.button.id == "save":
            name = self.query_one("#preset", Input).value.strip()
            if not name:
                problem.update(self.t("setup.preset_unnamed"))
                return
            failed = save(preset_path(name, self.folder), _saved(values))
            problem.update(failed or self.t("setup.saved", name=name))
            return
        save(last_path(values["game"], self.folder), _saved(values))
        self.dismiss(values)


def step_choice(select: Select[Any], step: int) -> None:
    """The entry ``step`` places from the chosen one (no further than the first or last)."""
    values = [value for _, value in select._options if value is not Select.BLANK]
    if not values:
        return
    at = values.index(select.value) if select.value in values else -1
    select.value = values[min(max(at + step, 0), len(values) - 1)]


def default_players(variant: Any) -> int:
    """The players of a game when none are given: the middle of its range."""
    seats = variant.seat_counts
    return int((seats.start + seats.stop) // 2)


def _volume(text: str) -> float:
    value = _number(text)
    if not 0 <= value <= 1:
        raise NarratorError(f"{text.strip()}: 0–1")
    return value


def _number_kind(annotation: Any) -> type | None:
    """``int`` or ``float`` for a number switch, also an optional one (``float | None``)."""
    kinds = set(typing.get_args(annotation) or (annotation,)) - {type(None)}
    for kind in (float, int):
        if kind in kinds and kinds <= {int, float}:
            return kind
    return None


def _number(text: str) -> float:
    try:
        return float(text.strip().replace(",", "."))
    except ValueError:
        raise NarratorError(f"{text!r} is not a number") from None


def _saved(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k in SAVED_FIELDS}


def initial_values(settings: Any, folder: Path | None = None) -> SetupValues:
    """The command line over the remembered settings of that game, over the defaults."""
    winning = settings.winning_fields()
    given = {name: getattr(settings, name) for name in winning if name in SAVED_FIELDS}
    given["options"] = dict(settings.options)
    values = values_for(str(settings.game), given, folder)
    values.unfinished = unfinished_choices(settings)
    return values


def unfinished_choices(settings: Any) -> list[tuple[str, str]]:
    """The stopped games of the record folder, to continue from the set-up screen."""
    from narrator.app import describe_unfinished, unfinished_games
    from narrator.host.journal import default_record_dir

    catalog = load_catalog(str(settings.lang))
    try:
        games = unfinished_games(settings.record_dir or default_record_dir())
    except (OSError, NarratorError):
        return []
    return [(str(game.path), describe_unfinished(game, catalog)) for game in games]


def values_for(game: str, given: dict[str, Any], folder: Path | None = None) -> SetupValues:
    """The values of ``game``'s set-up: ``given`` over its remembered ones, over defaults."""
    variant = get_variant(game)
    fields = variant.switches.model_fields
    given = {**given, "options": {k: v for k, v in given.get("options", {}).items() if k in fields}}
    saved = load_saved(last_path(game, folder))
    saved_options = {k: v for k, v in saved.get("options", {}).items() if k in fields}
    values = SetupValues(game=game)
    values.given, values.remembered = given, {}
    values.defaults = {**DEFAULTS, **given, "game": game}
    for name in SAVED_FIELDS[1:]:
        if name == "options":
            continue
        if name in given:
            values[name] = given[name]
        elif name in saved and saved[name] != DEFAULTS[name]:
            values[name] = values.remembered[name] = saved[name]
        else:
            values[name] = DEFAULTS[name]
    options = dict(given["options"])
    for name, value in saved_options.items():
        if name not in options and value != fields[name].default:
            options[name] = value
            values.remembered.setdefault("options", {})[name] = value
    values["options"] = options
    return values
