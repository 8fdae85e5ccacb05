"""The settings of a table, each declared once: its default, its range and its help.

The command line's flags (``narrator.cli``) and the set-up screen's rows
(``narrator.screen.setup``) are both built from ``TableSettings``, as the rule
switches are built from a variant's model: a value one of them refuses, the
other refuses with the same words (``refusal``). A field's metadata says how it
is typed: ``Flag`` (the commands that take it), ``Shown`` (a row of the set-up
screen, in the model's order) and ``Unit`` (``SECONDS`` marks a duration).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated
from typing import Any
from typing import Literal
from typing import get_args
from typing import get_origin

from annotated_types import Ge
from annotated_types import Gt
from annotated_types import Le
from annotated_types import Lt
from pydantic import AfterValidator
from pydantic import BaseModel
from pydantic import BeforeValidator
from pydantic import ConfigDict
from pydantic import Field
from pydantic import TypeAdapter
from pydantic import ValidationError
from pydantic.fields import FieldInfo

from narrator.limits import MAX_ANSWER_S
from narrator.rules.core import SECONDS
from narrator.rules.core import Unit
from narrator.rules.errors import ConfigError
from narrator.rules.registry import Variant
from narrator.sound.mixer import MixSettings
from narrator.voice.catalog import LANGUAGES

# The voice's own range is the one fact; ``narrator.voice.tts`` is its
# home today.
from narrator.voice.rates import RATES

PLAY, RESUME, DEMO = "play", "resume", "demo"
AT_TABLE = frozenset({PLAY, RESUME})
NEW_GAME = frozenset({PLAY, DEMO})
ANY_GAME = frozenset({PLAY, RESUME, DEMO})
MIC_TEST = "mic-test"
LISTENING = AT_TABLE | {MIC_TEST}  # the speech engine, model and microphone
SPOKEN = "auto"  # the voice of a plain ``narrator play``: it speaks with the best voice
LANGUAGE_NAMES = {"ru": "русский", "en": "English"}  # each in its own language
MAX_DENSITY = 20.0  # knocks per second
_MIX = MixSettings()  # the night's sound: its levels and knocks are the mixer's own


class SettingError(ConfigError):
    """A setting's value out of its range or of the wrong kind."""


@dataclass(frozen=True)
class Flag:
    """How a setting is typed on the command line: the commands that take it.

    ``name``: the flag, when not ``--`` and the field's name with dashes;
    ``const``: a flag that may stand alone gives this value (``--voice``);
    ``negated``: a setting on by default, switched off by its flag (``--no-knocks``).
    """

    commands: frozenset[str]
    name: str | None = None
    metavar: str | None = None
    const: str | None = None
    negated: bool = False


@dataclass(frozen=True)
class Shown:
    """A row of the set-up screen (label ``setup.<name>``), remembered per game.

    ``switch``: shown as on/off although its value is not a bool (the voice: a voice
    id, or None for printed lines).
    """

    switch: bool = False


@dataclass(frozen=True)
class Choices:
    """The values a text setting may take (its check is its own)."""

    values: tuple[str, ...]


def _path_text(value: Any) -> Any:
    """A file or folder name; an empty one would silently mean the current folder."""
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("an empty path (give a file or folder name)")
        if "\0" in value:
            raise ValueError(f"{value!r}: a path cannot contain a NUL character")
    return value


def _language(value: str) -> str:
    if value not in LANGUAGES:
        raise ValueError(f"{value!r}: expected one of {', '.join(LANGUAGES)}")
    return value


PathText = Annotated[Path, BeforeValidator(_path_text)]
Seconds = Annotated[float, Field(gt=0, le=MAX_ANSWER_S, allow_inf_nan=False), SECONDS]
Volume = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Language = Annotated[str, AfterValidator(_language), Choices(LANGUAGES)]


class TableSettings(BaseModel):
    """Everything a table is set up with; the rule switches are in ``options``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    game: str = Field(description="which game: onenight, sport_mafia, ... (see `narrator games`)")
    # The set-up screen's rows, in its order.
    players: Annotated[int | None, Flag(NEW_GAME), Shown()] = Field(
        None, ge=1, description="number of players (default: the middle of the game's range)"
    )
    lang: Annotated[Language, Flag(ANY_GAME), Shown()] = Field(
        "ru", description="language of the host"
    )
    # Right after the table's size and language: on, the phones' address and code show
    # at the top of the set-up screen, where the whole table can see them.
    phones: Annotated[bool, Flag(AT_TABLE), Shown()] = Field(
        False, description="every player's phone as a private keypad and card (laptop's Wi-Fi)"
    )
    voice: Annotated[
        str | None, Flag(ANY_GAME, metavar="ENGINE:VOICE", const=SPOKEN), Shown(switch=True)
    ] = Field(
        None,
        description="speak the lines; optionally with this voice, e.g. "
        "festival:msu_ru_nsh_clunits, hibari:heart, espeak:zle/ru or a bare voice id "
        "(default: the best installed voice, see `narrator voices`)",
    )
    speech_volume: Annotated[Volume, Flag(ANY_GAME), Shown()] = Field(
        _MIX.speech_volume, description="speech level"
    )
    rate: Annotated[int | None, Flag(ANY_GAME), Shown(), Unit("words a minute")] = Field(
        None,
        ge=RATES.start,
        le=RATES.stop - 1,
        description="speech rate (default: the voice's own)",
    )
    voice_pack: Annotated[str | None, Flag(ANY_GAME), Shown()] = Field(
        None, description="prefer this recorded voice pack"
    )
    input: Annotated[Literal["keypad", "voice"], Flag(AT_TABLE), Shown()] = Field(
        "keypad", description="voice: day answers may also be spoken (night input stays keypad)"
    )
    knocks: Annotated[bool, Flag(ANY_GAME, negated=True), Shown()] = Field(
        _MIX.knocks, description="knocking sound at night"
    )
    knock_volume: Annotated[Volume, Flag(ANY_GAME), Shown()] = Field(
        _MIX.bed_volume, description="knock level"
    )
    answer_s: Annotated[Seconds, Flag(AT_TABLE, name="--answer-time"), Shown()] = Field(
        60.0, description="time for each day answer (a vote)"
    )
    # Only on the command line.
    seed: Annotated[int | None, Flag(NEW_GAME)] = Field(
        None, description="seed of the deal (same seed, same game)"
    )
    options: dict[str, Any] = Field(default_factory=dict, description="the rule switches")
    demo: Annotated[bool, Flag(AT_TABLE)] = Field(
        False, description="random answers (automatic when nobody is at the keyboard)"
    )
    record_dir: Annotated[PathText | None, Flag(ANY_GAME)] = Field(
        None, description="where game records go"
    )
    silent: Annotated[bool, Flag(AT_TABLE)] = Field(
        False, description="do not speak: the lines are only shown"
    )
    knock_density: Annotated[float, Flag(ANY_GAME), Unit("per second")] = Field(
        _MIX.density, ge=0, le=MAX_DENSITY, allow_inf_nan=False, description="knocks"
    )
    ticks: Annotated[bool, Flag(ANY_GAME)] = Field(
        False, description="tick in a window's last seconds"
    )
    output: Annotated[PathText | None, Flag(frozenset({DEMO}))] = Field(
        None, description="render to this file: .flac, .ogg or .wav (the ending says the format)"
    )
    text: Annotated[bool, Flag(AT_TABLE)] = Field(
        False, description="the plain terminal host instead of the full screen"
    )
    asr_model: Annotated[PathText | None, Flag(LISTENING)] = Field(
        None, description="a Vosk model folder (default: the language's in models/)"
    )
    asr: Annotated[Literal["vosk", "sphinx", "whisper"] | None, Flag(LISTENING)] = Field(
        None, description="speech engine (default: the best installed; narrator models list)"
    )
    input_device: Annotated[str | None, Flag(LISTENING)] = Field(
        None, description="microphone: index or part of its name"
    )
    push_to_talk: Annotated[bool, Flag(AT_TABLE)] = Field(
        False, description="listen only while Space is held down"
    )
    # The fields typed on the command line (they win over remembered ones); None for
    # settings made in code, where every field that differs from its default counts.
    given: frozenset[str] | None = Field(None, exclude=True)

    def winning_fields(self) -> frozenset[str]:
        """The fields that win over the remembered settings on the set-up screen.

        Typed on the command line (``given``); for settings made in code, every field
        that differs from its default, and the voice, since None in code means silent,
        not "speak by default". ``--silent`` always wins over a remembered voice.
        """
        if self.given is not None:
            fields = set(self.given)
        else:
            fields = {name for name, value in self if value != default_of(name)}
            fields.add("voice")
        if self.silent:
            fields.add("voice")
        return frozenset(fields)

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> TableSettings:
        """Settings from ``values``, checked: SettingError names the first one refused."""
        try:
            return cls.model_validate(dict(values))
        except ValidationError as error:
            first = error.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else ""
            if name in FIELDS and first["type"] != "value_error":
                raise SettingError(f"{name}: {refusal(name, first['input'])}") from None
            message = str(first["msg"]).removeprefix("Value error, ")
            raise SettingError(f"{name}: {message}" if name else message) from None

    def but(self, **changes: Any) -> TableSettings:
        """These settings with ``changes``, checked."""
        return TableSettings.of({**dict(self), **changes})


def _marker(spec: FieldInfo, kind: type[Any]) -> Any:
    return next((item for item in spec.metadata if isinstance(item, kind)), None)


FIELDS: dict[str, FieldInfo] = TableSettings.model_fields
SHOWN = tuple(name for name, spec in FIELDS.items() if _marker(spec, Shown) is not None)


def flag_of(name: str) -> Flag | None:
    """How the setting ``name`` is typed on the command line; None when it is not."""
    flag: Flag | None = _marker(FIELDS[name], Flag)
    return flag


def shown_of(name: str) -> Shown | None:
    """How the setting ``name`` shows on the set-up screen; None when it does not."""
    shown: Shown | None = _marker(FIELDS[name], Shown)
    return shown


def is_duration(name: str, spec: FieldInfo) -> bool:
    """A length of time in seconds: a field marked ``SECONDS`` (``rules.core.Seconds``),
    a table setting or a rule switch alike."""
    return SECONDS in spec.metadata


def default_of(name: str) -> Any:
    """The model's default of the setting ``name``."""
    return FIELDS[name].get_default(call_default_factory=True)


def default_players(variant: Variant) -> int:
    """The players of a game when none are given: the middle of its range."""
    seats = variant.seat_counts
    return (seats.start + seats.stop) // 2


def seats_text(seats: range) -> str:
    """How many play a game: ``5`` or ``3–7``."""
    return f"{seats.start}" if len(seats) == 1 else f"{seats.start}–{seats.stop - 1}"


def choices_of(name: str) -> tuple[Any, ...]:
    """The values a setting may take, when they are few; () for any value of its type."""
    spec = FIELDS[name]
    listed: Choices | None = _marker(spec, Choices)
    if listed is not None:
        return listed.values
    for kind in (spec.annotation, *get_args(spec.annotation)):  # also Literal[...] | None
        if get_origin(kind) is Literal:
            return get_args(kind)
    return ()


def number_kind(annotation: Any) -> type | None:
    """``int`` or ``float`` for a number's type, also an optional one (``float | None``)."""
    kinds = set(get_args(annotation) or (annotation,)) - {type(None)}
    for kind in (float, int):
        if kind in kinds and kinds <= {int, float}:
            return kind
    return None


@functools.cache
def _adapter(name: str) -> TypeAdapter[Any]:
    spec = FIELDS[name]
    return TypeAdapter(Annotated[(spec.annotation, *spec.metadata)])  # type: ignore[arg-type]


def expected(name: str) -> str:
    """What the setting ``name`` takes, in words: «a whole number 60–450 words a minute»."""
    choices = choices_of(name)
    if choices:
        return "one of " + ", ".join(str(choice) for choice in choices)
    kind = number_kind(FIELDS[name].annotation)
    if kind is None:
        return "a path" if "Path" in str(FIELDS[name].annotation) else "text"
    bounds: dict[str, float] = {}
    for item in FIELDS[name].metadata:
        for bound in (Ge, Gt, Le, Lt):
            if isinstance(item, bound):
                key = bound.__name__.lower()
                bounds[key] = float(getattr(item, key))
    low = bounds.get("ge", bounds.get("gt"))
    high = bounds.get("le", bounds.get("lt"))
    words = "a whole number" if kind is int else "a number"
    if low is not None and high is not None and "gt" not in bounds:
        words += f" {low:g}–{high:g}"
    elif low is not None and high is not None:
        words += f" above {low:g} and at most {high:g}"
    elif low is not None:
        words += f" of at least {low:g}" if "ge" in bounds else f" above {low:g}"
    unit = _marker(FIELDS[name], Unit)
    return f"{words} {unit.words}" if unit is not None else words


def refusal(name: str, value: Any) -> str:
    """The model's words for a value the setting ``name`` does not take."""
    return f"{value}: expected {expected(name)}"


def checked(name: str, value: Any) -> Any:
    """``value`` (a typed text or a stored value) as the setting ``name`` takes it.

    Raises SettingError with ``refusal``'s words, or with the check's own words for a
    value the check explains (an empty path).
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise SettingError(refusal(name, value))
    try:
        return _adapter(name).validate_python(value)
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "value_error":
            raise SettingError(str(first["msg"]).removeprefix("Value error, ")) from None
        raise SettingError(refusal(name, value)) from None


def play_defaults() -> dict[str, Any]:
    """What a plain ``narrator play GAME`` starts with, row by row: it speaks."""
    return {**{name: default_of(name) for name in SHOWN}, "voice": SPOKEN}
