"""``quick_init``: the same ``__init__`` as the dataclass's own, only quicker."""

from __future__ import annotations

import dataclasses
from dataclasses import InitVar
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import pytest

from narrator.rules.frozen import quick_init


@dataclass(frozen=True)
class Plain:
    seat: int
    words: tuple[str, ...] = ()
    seen: list[int] = field(default_factory=list)
    cue: str | None = field(default=None, kw_only=True)


@quick_init
@dataclass(frozen=True)
class Step(Plain):
    """Plain's fields, made by quick_init's ``__init__``, with a check of its own."""

    def __post_init__(self) -> None:
        if self.seat < 0:
            raise ValueError("no such seat")


def test_it_makes_what_the_dataclass_makes() -> None:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((3,), {}),
        ((3, ("a",)), {"cue": "x"}),
        ((), {"seat": 2, "seen": [1]}),
    ]
    for args, kwargs in calls:
        quick, plain = Step(*args, **kwargs), Plain(*args, **kwargs)
        assert dataclasses.astuple(quick) == dataclasses.astuple(plain)
    assert Step(1).seen is not Step(1).seen  # a fresh default each time
    assert Step(1, ("a",)) == Step(1, ("a",)) != Step(2)
    assert dataclasses.replace(Step(1), seat=4).seat == 4


def test_it_keeps_the_checks_and_the_frozenness() -> None:
    with pytest.raises(ValueError, match="no such seat"):
        Step(-1)
    with pytest.raises(TypeError):
        Step(1, (), [], "x")  # type: ignore[call-arg]  # cue is keyword-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        Step(1).seat = 2  # type: ignore[misc]


def test_it_refuses_what_it_cannot_copy() -> None:
    @dataclass
    class Open:
        seat: int

    @dataclass(frozen=True)
    class WithInitVar:
        seat: int
        scale: InitVar[int] = 1

    @dataclass(frozen=True)
    class Derived:
        seat: int
        double: int = field(init=False, default=0)

    for cls in (Open, WithInitVar, Derived):
        with pytest.raises(TypeError, match="quick_init"):
            quick_init(cls)
