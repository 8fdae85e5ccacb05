"""The set-up screen: game, players, language, voice, sound and the house rules.

The rule switches are read from the variant's pydantic model, so every game
shows its own, each with its one-line description. The last settings are kept
per game and named presets can be saved and loaded (JSON in the user's config
folder).
"""

from __future__ import annotations

import json
import re
import typing
from dataclasses import asdict
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static, Switch

from narrator.rules.errors import NarratorError
from narrator.rules.registry import get_variant, known_names, make_switches
from narrator.voice.catalog import Catalog

SAVED_FIELDS = (
    "game",
    "players",
    "lang",
    "voice",
    "knocks",
    "knock_volume",
    "options",
    "answer_s",
)


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
    """Write settings; the problem in one line, or None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values, ensure_ascii=False, indent=1), "utf-8")
    except OSError as error:
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


class SetupScreen(Screen[dict[str, Any]]):
    """Choose everything, then Start (or Enter on Start): dismisses with the settings."""

    CSS = """
    SetupScreen { background: #0b0b0e; }
    #form { padding: 0 2; }
    .row { height: auto; margin: 0 0 1 0; }
    .row Label { width: 28; padding: 1 1 0 0; }
    .row Input { width: 16; }
    .row Select { width: 30; }
    .hint { color: #8a8aa0; padding: 1 0 0 1; width: 1fr; }
    #composition { padding: 0 1; color: #e0d8b0; }
    #problem { color: #ff8a80; padding: 0 1; }
    #buttons { height: auto; }
    """

    def __init__(self, catalog: Catalog, values: dict[str, Any], folder: Path | None = None):
        super().__init__()
        self.catalog = catalog
        self.values = dict(values)
        self.folder = folder

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="form"):
            yield Static(self.t("setup.title"), id="title")
            yield from self._row(
                "game",
                Select(
                    [(name, name) for name in known_names()],
                    value=self.values["game"],
                    allow_blank=False,
                    id="game",
                ),
            )
            yield from self._row(
                "players", Input(str(self.values.get("players") or ""), id="players")
            )
            yield Static("", id="composition")
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
            yield Static(self.t("setup.rules"), classes="hint")
            yield VerticalScroll(id="switches")
            with Horizontal(id="buttons"):
                yield Button(self.t("setup.start"), id="start", variant="success")
                yield Input(placeholder=self.t("setup.preset_name"), id="preset")
                yield Button(self.t("setup.save"), id="save")
                yield Select(
                    [(n, n) for n in preset_names(self.folder)],
                    prompt=self.t("setup.load"),
                    id="load",
                )
            yield Static("", id="problem")

    def _row(self, name: str, widget: Any) -> ComposeResult:
        with Horizontal(classes="row"):
            yield Label(self.t(f"setup.{name}"))
            yield widget

    def on_mount(self) -> None:
        self._build_switches()
        self.call_after_refresh(self._preview)
        self.query_one("#start", Button).focus()

    def _build_switches(self) -> None:
        """One row per rule switch of the chosen game, with its description."""
        box = self.query_one("#switches", VerticalScroll)
        box.remove_children()
        variant = get_variant(self.values["game"])
        options = self.values.get("options", {})
        rows = []
        for name, spec in variant.switches.model_fields.items():
            value = options.get(name, spec.default)
            widget: Any
            if spec.annotation is bool:
                widget = Switch(bool(value), id=f"opt-{name}")
            elif typing.get_origin(spec.annotation) is typing.Literal:
                choices = typing.get_args(spec.annotation)
                widget = Select(
                    [(str(c), c) for c in choices], value=value, allow_blank=False, id=f"opt-{name}"
                )
            else:
                widget = Input("" if value is None else str(value), id=f"opt-{name}")
            rows.append(
                Horizontal(
                    Label(name),
                    widget,
                    Static(spec.description or "", classes="hint"),
                    classes="row",
                )
            )
        box.mount_all(rows)

    def _options(self) -> dict[str, Any]:
        variant = get_variant(self.values["game"])
        options: dict[str, Any] = {}
        widgets = {w.id: w for w in self.query(".row > *") if w.id}
        if f"opt-{next(iter(variant.switches.model_fields))}" not in widgets:
            return dict(self.values.get("options", {}))  # the rows are being rebuilt
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
        values["voice"] = "auto" if self.query_one("#voice", Switch).value else None
        values["voice_pack"] = self.query_one("#voice_pack", Input).value.strip() or None
        values["input"] = self.query_one("#input", Select).value
        values["knocks"] = self.query_one("#knocks", Switch).value
        values["knock_volume"] = _number(self.query_one("#knock_volume", Input).value)
        values["answer_s"] = _number(self.query_one("#answer_s", Input).value)
        values["options"] = self._options()
        variant = get_variant(values["game"])
        switches = make_switches(variant, values["options"])
        seats = variant.seat_counts
        count = values["players"] or (seats.start + seats.stop) // 2
        if count not in seats:
            raise NarratorError(f"{variant.name}: {seats.start}–{seats.stop - 1} players")
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
        if values is None:
            return
        variant = get_variant(values["game"])
        seats = variant.seat_counts
        count = values["players"] or (seats.start + seats.stop) // 2
        counts = variant.composition(count, make_switches(variant, values["options"])).counts
        roles = ", ".join(f"{self.t(f'role.{r}')} × {n}" for r, n in counts.items() if n)
        self.query_one("#composition", Static).update(
            self.t("setup.composition", players=count, roles=roles)
        )

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "game" and event.value != self.values["game"]:
            self.values["game"] = event.value
            self.values["options"] = load_saved(last_path(str(event.value), self.folder)).get(
                "options", {}
            )
            self._build_switches()
        elif event.select.id == "load" and isinstance(event.value, str):
            loaded = load_saved(preset_path(event.value, self.folder))
            if loaded:
                self.values.update(loaded)
                self.app.pop_screen()
                self.app.push_screen(
                    SetupScreen(self.catalog, self.values, self.folder), self.dismiss
                )
                return
        self.call_after_refresh(self._preview)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "preset":
            self._preview()

    def on_switch_changed(self, event: Switch.Changed) -> None:
        self._preview()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        problem = self.query_one("#problem", Static)
        values = self._checked()
        if values is None:
            return
        if event.button.id == "save":
            name = self.query_one("#preset", Input).value
            failed = save(preset_path(name, self.folder), _saved(values))
            problem.update(failed or self.t("setup.saved", name=name))
            return
        save(last_path(values["game"], self.folder), _saved(values))
        self.dismiss(values)


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


def initial_values(settings: Any, folder: Path | None = None) -> dict[str, Any]:
    """CLI settings over the remembered ones for that game."""
    values = load_saved(last_path(settings.game, folder))
    given = asdict(settings)
    for name in SAVED_FIELDS:
        if name == "options":
            values["options"] = {**values.get("options", {}), **given["options"]}
        elif name not in values or given[name] not in (None, "", {}):
            values[name] = given[name]
    if given.get("silent"):
        values["voice"] = None  # --silent wins over a remembered "speak aloud"
    return values
