"""The set-up screen: game, players, language, voice, sound and the house rules.

The rows are read from the models: the table's (``narrator.settings``, the rows it
marks ``Shown``, checked with its words) and the variant's rule switches, so every
game shows its own, each with its one-line description. The last settings are kept
per game and named presets can be saved and loaded (JSON in the user's config
folder).
"""

from __future__ import annotations

import contextlib
import typing
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button
from textual.widgets import Input
from textual.widgets import Label
from textual.widgets import Select
from textual.widgets import Static
from textual.widgets import Switch

from narrator.listen.engines import NeedsModel
from narrator.listen.engines import choose
from narrator.rules.errors import ConfigError
from narrator.rules.errors import NarratorError
from narrator.rules.recommended import with_recommended
from narrator.rules.registry import get_variant
from narrator.rules.registry import known_names
from narrator.rules.registry import make_switches
from narrator.screen.phones import TICK_S
from narrator.screen.phones import joined_text
from narrator.screen.phones import request_screen
from narrator.screen.phones import switched
from narrator.screen.remembered import SetupChoice
from narrator.screen.remembered import SetupValues
from narrator.screen.remembered import last_path
from narrator.screen.remembered import load_saved
from narrator.screen.remembered import preset_names
from narrator.screen.remembered import preset_path
from narrator.screen.remembered import save
from narrator.screen.remembered import saved_values
from narrator.screen.remembered import values_for
from narrator.settings import FIELDS
from narrator.settings import LANGUAGE_NAMES
from narrator.settings import SHOWN
from narrator.settings import SPOKEN
from narrator.settings import SettingError
from narrator.settings import TableSettings
from narrator.settings import checked
from narrator.settings import choices_of
from narrator.settings import default_players
from narrator.settings import number_kind
from narrator.settings import shown_of
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog

if TYPE_CHECKING:
    from narrator.phones.at_table import PhoneLink


class RulesScreen(ModalScreen[None]):
    """A game's rules and roles, readable at the table (players have no docs/ beside them)."""

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
        if self.app.screen is not self:  # closed by a quicker key: this one is not its own
            return
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


class SetupScreen(Screen[SetupChoice]):
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
    .row Label.state { width: auto; padding: 1 0 0 1; }
    .row Input { width: 16; }
    .row Select { width: 30; }
    .hint { color: #8a8aa0; padding: 0 0 1 2; }
    .heading { color: #f0e6c8; text-style: bold; padding: 1 0 0 0; }
    #composition, #length, #listening, #phones-panel { padding: 0 1; color: #e0d8b0; }
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

    def __init__(
        self,
        catalog: Catalog,
        values: SetupValues,
        folder: Path | None = None,
        *,
        phones: PhoneLink | None = None,
    ):
        super().__init__()
        self.catalog = catalog
        self.values = values
        self.folder = folder
        self.phones = phones  # served while the phones' row is on (None: not offered here)
        self.asking: str | None = None  # the request for a held seat on screen now

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    def _text(self, key: str, fallback: str) -> str:
        """A catalog line, or ``fallback`` for a game whose catalog lacks it (kept outside)."""
        return self.t(key) if key in self.catalog.lines else fallback

    def _switch_text(self, name: str, part: str, fallback: str) -> str:
        return self._text(f"setup.{self.values.settings.game}.switch.{name}.{part}", fallback)

    def compose(self) -> ComposeResult:
        game = self.values.settings.game
        yield Static(self.t("setup.title"), id="title")
        yield Static(self._remembered_text(), id="remembered")
        with VerticalScroll(id="form", can_focus=False):  # no invisible stop for +/−
            if self.values.unfinished:
                yield from self._row(
                    "resume",
                    Select(
                        [(text, path) for path, text in self.values.unfinished],
                        prompt=self.t("setup.new_game"),
                        id="resume",
                    ),
                )
            yield from self._row(
                "game",
                Select(
                    [(self._text(f"setup.game_title.{n}", n), n) for n in known_names()],
                    value=game,
                    allow_blank=False,
                    id="game",
                ),
            )
            for name in SHOWN:
                yield from self._row(name, self._widget(name))
                if name == "players":
                    yield Static("", id="composition")
                    yield Static("", id="length")
                if name == "input":
                    yield Static("", id="listening")
                if name == "phones":
                    yield Static(joined_text(self.phones, self.catalog), id="phones-panel")
            game_title = self._text(f"setup.game_title.{game}", game)
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

    def _widget(self, name: str) -> Widget:
        """The row of the setting ``name``: on/off, a choice of a few, or a typed value."""
        value = getattr(self.values.settings, name)
        shown = shown_of(name)
        if FIELDS[name].annotation is bool or (shown is not None and shown.switch):
            return Switch(bool(value), id=name)
        choices = choices_of(name)
        if choices:
            options = [(self._choice_text(name, choice), choice) for choice in choices]
            return Select(options, value=value, allow_blank=False, id=name)
        if name == "players":
            return Input(str(self._players()), id=name)
        return Input(_field_text(value), id=name)

    def _choice_text(self, name: str, choice: object) -> str:
        if name == "lang":
            return LANGUAGE_NAMES.get(str(choice), str(choice))
        return self._text(f"setup.{name}_{choice}", str(choice))

    def _row(self, name: str, widget: Any) -> ComposeResult:
        label = Label(self.t(f"setup.{name}"))
        if name in self.values.remembered:
            label.add_class("remembered")
        with Horizontal(classes="row"):
            yield label
            yield widget
            yield from self._state(widget)

    def _state(self, widget: Widget) -> ComposeResult:
        """An on/off switch's state in words beside it: its colours alone do not say it
        on a monochrome screen or to a colour-blind host."""
        if isinstance(widget, Switch):
            yield Label(self._on_off(widget.value), id=f"state-{widget.id}", classes="state")

    def _on_off(self, value: bool) -> str:
        return self.t("setup.on" if value else "setup.off")

    def _players(self) -> int:
        """The players the shown settings give (the game's default when none is typed)."""
        settings = self.values.settings
        return settings.players or default_players(get_variant(settings.game))

    def _remembered_text(self) -> str:
        """The remembered settings in use, by name; empty when there are none."""
        settings = self.values.settings
        items = [
            f"{self.t(f'setup.{name}')}: {self._value_text(name, getattr(settings, name))}"
            for name in SHOWN
            if name in self.values.remembered
        ]
        for option in sorted(self.values.remembered_options):
            label = self._switch_text(option, "name", option)
            items.append(f"{label}: {self._value_text(option, settings.options[option])}")
        text = self.t("setup.remembered", items="; ".join(items)) if items else ""
        if self.values.problems:
            problem = self.t("setup.saved_problem", problems="; ".join(self.values.problems))
            text = f"{problem}\n{text}" if text else problem
        return text

    def _value_text(self, name: str, value: Any) -> str:
        if isinstance(value, bool) or name == "voice":
            return self._on_off(bool(value))
        return self._switch_text(name, f"choice.{value}", str(value))

    def on_mount(self) -> None:
        self.call_after_refresh(self._preview)
        if self.phones is not None:
            self._serve_phones(self.values.settings.phones)
            self.set_interval(TICK_S, self._show_phones)
        # A stopped game first: 2 chooses it, then Enter on «Начать» (+) continues it.
        self.query_one("#resume" if self.values.unfinished else "#start").focus()

    def _switches(self) -> ComposeResult:
        """One row per rule switch of the chosen game, its explanation under it."""
        variant = get_variant(self.values.settings.game)
        options = self.values.settings.options
        remembered = self.values.remembered_options
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
                widget = Input(_field_text(value), id=f"opt-{name}")
            label = Label(self._switch_text(name, "name", name))
            if name in remembered:
                label.add_class("remembered")
            with Horizontal(classes="row"):
                yield label
                yield widget
                yield from self._state(widget)
            yield Static(self._switch_text(name, "hint", spec.description or ""), classes="hint")

    def _options(self) -> dict[str, Any]:
        variant = get_variant(self.values.settings.game)
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
                kind = number_kind(spec.annotation)
                if kind is int:
                    value = int(_number(text))
                elif kind is float:
                    value = _number(text)
                else:
                    value = text
            if value != spec.default:
                options[name] = value
        return options

    def collect(self) -> SetupChoice:
        """The settings on screen, checked; raises NarratorError naming the problem."""
        changes: dict[str, Any] = {"game": self.query_one("#game", Select).value}
        for name in SHOWN:
            changes[name] = self._read(name, self.query_one(f"#{name}"))
        changes["options"] = self._options()
        settings = self.values.settings.but(**changes)
        resume = self.query("#resume")
        if resume and isinstance(chosen := resume.first(Select).value, str):
            return SetupChoice(settings, Path(chosen))  # it brings its own rules and deal
        variant = get_variant(settings.game)
        count = settings.players or default_players(variant)
        options = with_recommended(settings.game, count, settings.options)
        switches = make_switches(variant, options)
        seats = variant.seat_counts
        if count not in seats:
            if len(seats) == 1:
                raise NarratorError(self.t("setup.players_exactly", count=seats.start))
            raise NarratorError(self.t("setup.players_range", low=seats.start, high=seats.stop - 1))
        variant.composition(count, switches)
        return SetupChoice(settings)

    def _read(self, name: str, widget: Any) -> Any:
        """The value of the row ``name``, as the model takes it (its words if it does not)."""
        if isinstance(widget, Switch):
            shown = shown_of(name)
            if shown is not None and shown.switch:  # the voice: keep a --voice ID
                return (self.values.settings.voice or SPOKEN) if widget.value else None
            return widget.value
        if isinstance(widget, Select):
            return widget.value
        text = widget.value.strip()
        if number_kind(FIELDS[name].annotation) is not None:
            text = text.replace(",", ".")
        try:
            return checked(name, text or None)
        except SettingError as error:
            raise SettingError(f"{self.t(f'setup.{name}')}: {error}") from None

    def _checked(self) -> SetupChoice | None:
        """The values on screen, or None with the problem shown under the form."""
        problem = self.query_one("#problem", Static)
        try:
            choice = self.collect()
        except (NarratorError, ValueError) as error:
            problem.update(str(error))
            return None
        problem.update("")
        return choice

    def _preview(self) -> None:
        choice = self._checked()
        composition = self.query_one("#composition", Static)
        length = self.query_one("#length", Static)
        if choice is None:
            composition.update("")
            length.update("")
            return
        values = choice.settings
        self.query_one("#listening", Static).update(self._listening_text(values))
        variant = get_variant(values.game)
        count = values.players or default_players(variant)
        if self.phones is not None and self.phones.phones is not None:
            self.phones.phones.hub.resize(count)
        options = with_recommended(values.game, count, values.options)  # when none chosen
        cards = variant.composition(count, make_switches(variant, options))
        roles = ", ".join(f"{self.t(f'role.{r}')} × {n}" for r, n in cards.counts.items() if n)
        key = "setup.composition_center" if cards.center else "setup.composition"
        composition.update(self.t(key, players=count, roles=roles, center=cards.center))
        # Up to ~0.2 s of simulated games: off the screen's thread, the newest wins.
        self.run_worker(
            lambda: self._show_length(values, count), thread=True, exclusive=True, group="length"
        )

    def _listening_text(self, values: TableSettings) -> str:
        """With voice input chosen: which engine will listen, or why none will and the
        command that fixes it (Russian needs the Vosk model)."""
        if values.input != "voice":
            return ""
        try:
            choice = choose(values.lang, values.asr, values.asr_model)
        except NeedsModel as need:
            return self.t("setup.listening_vosk", command=need.command)
        except ConfigError as error:
            return self.t("setup.listening_missing", reason=str(error))
        return self.t("setup.listening", engine=choice.engine, source=choice.source)

    def _show_length(self, values: TableSettings, players: int) -> None:
        text = self._length(values, players)

        def show() -> None:
            with contextlib.suppress(NoMatches):  # the screen is being rebuilt
                self.query_one("#length", Static).update(text)

        with contextlib.suppress(RuntimeError):  # the screen closed meanwhile
            self.app.call_from_thread(show)

    def _length(self, values: TableSettings, players: int) -> str:
        from narrator.estimate import expected_length

        try:
            guess = expected_length(
                values.game,
                players,
                with_recommended(values.game, players, values.options),
                lang=values.lang,
                answer_s=values.answer_s,
            )
        except NarratorError:
            return ""
        low, median, high = round(guess.low_min), round(guess.median_min), round(guess.high_min)
        if low == high:  # «обычно 8–8» says nothing: one figure
            return self.t("setup.length_fixed", median=median)
        return self.t("setup.length", low=low, median=median, high=high)

    def _rebuilt(self, values: SetupValues | TableSettings, focus: str = "start") -> None:
        """The screen again for other values (a game, a language, a preset, the defaults),
        with ``focus`` (the id of the field that changed them) in focus."""
        if isinstance(values, TableSettings):  # nothing of it is remembered any more
            now = self.values
            values = SetupValues(
                values, now.base, now.given, now.defaults, unfinished=now.unfinished
            )
        self.values = values
        self.catalog = load_catalog(values.settings.lang)
        self.run_worker(self._recomposed(focus), exclusive=True, group="rebuild")

    async def _recomposed(self, focus: str) -> None:
        await self.recompose()
        self.query_one(f"#{focus}").focus()
        self._serve_phones(self.query_one("#phones", Switch).value)  # another game's choice
        self._preview()

    def on_select_changed(self, event: Select.Changed) -> None:
        now = self.values
        if event.select.id == "game" and event.value != now.settings.game:
            values = values_for(now.base, str(event.value), now.given, self.folder, options=False)
            values.unfinished = now.unfinished
            self._rebuilt(values, focus="game")
            return
        if event.select.id == "lang" and event.value != now.settings.lang:
            choice = self._checked()
            settings = choice.settings if choice is not None else now.settings
            self._rebuilt(settings.but(lang=event.value), focus="lang")
            return
        if event.select.id == "resume" and isinstance(event.value, str):
            self.query_one("#start", Button).focus()  # 2, then Enter: that game goes on
        if event.select.id == "load" and isinstance(event.value, str):
            loaded = load_saved(preset_path(event.value, self.folder))
            if loaded:
                self._rebuilt(now.settings.but(**loaded))
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
        with contextlib.suppress(NoMatches):  # the screen is being rebuilt
            state = self.query_one(f"#state-{event.switch.id}", Label)
            state.update(self._on_off(event.value))
        if event.switch.id == "phones":
            self._serve_phones(event.value)
        self._preview()

    def _serve_phones(self, on: bool) -> None:
        """The phones' server on (the players join while the host sets up) or off."""
        failed = switched(self.phones, on, self._players())  # the count typed follows (_preview)
        if failed is not None:
            reason = failed.strerror or str(failed)
            self.query_one("#problem", Static).update(self.t("phones.failed", reason=reason))
        self._show_phones()

    def on_descendant_focus(self, event: Any) -> None:
        """The phones' row focused: its address and code come into view whole."""
        if getattr(event.widget, "id", None) == "phones":
            with contextlib.suppress(NoMatches):
                self.query_one("#phones-panel", Static).scroll_visible(animate=False)

    def _show_phones(self) -> None:
        """The address, its QR code and the seats joined; a request for a held seat asked."""
        with contextlib.suppress(NoMatches):  # the screen is being rebuilt
            self.query_one("#phones-panel", Static).update(joined_text(self.phones, self.catalog))
        asking = request_screen(self.phones, self.catalog, self.asking)
        if asking is not None and self.app.screen is self:  # not over the rules page
            self.asking = asking.ticket
            self.app.push_screen(asking)

    def action_rules(self) -> None:
        game = self.values.settings.game
        parts = [self._text(f"setup.{game}.about.summary", "")]
        variant = get_variant(game)
        for role in variant.roles:
            about = self._text(f"setup.{game}.about.role.{role}", "")
            if about:
                parts.append(f"{self.t(f'role.{role}')}: {about}")
        parts.append(self.t("setup.about_close"))
        self.app.push_screen(RulesScreen("\n".join(p.rstrip() for p in parts if p)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if self.app.screen is not self:  # a second press already on its way: chosen once
            return
        problem = self.query_one("#problem", Static)
        if event.button.id == "about":
            self.action_rules()
            return
        if event.button.id == "defaults":
            self._rebuilt(self.values.defaults)
            return
        choice = self._checked()
        if choice is None:
            return
        if event.button.id == "save":
            name = self.query_one("#preset", Input).value.strip()
            if not name:
                problem.update(self.t("setup.preset_unnamed"))
                return
            failed = save(preset_path(name, self.folder), saved_values(choice.settings))
            problem.update(failed or self.t("setup.saved", name=name))
            return
        save(last_path(choice.settings.game, self.folder), saved_values(choice.settings))
        self.dismiss(choice)


def step_choice(select: Select[Any], step: int) -> None:
    """The entry ``step`` places from the chosen one (no further than the first or last)."""
    values = [value for _, value in select._options if value is not Select.BLANK]
    if not values:
        return
    at = values.index(select.value) if select.value in values else -1
    select.value = values[min(max(at + step, 0), len(values) - 1)]


def _number(text: str) -> float:
    try:
        return float(text.strip().replace(",", "."))
    except ValueError:
        raise NarratorError(f"{text!r} is not a number") from None


def _field_text(value: object) -> str:
    """A field's value as typed: ``60`` for 60.0 seconds, nothing for none."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
