"""A quicker ``__init__`` for the frozen dataclasses a script makes at every step.

A frozen dataclass's generated ``__init__`` sets each field through
``object.__setattr__``, which costs about as much as the rest of a small step.
:func:`quick_init` gives such a class an ``__init__`` with the very same
signature, defaults, default factories and ``__post_init__`` call, that fills
the instance's ``__dict__`` directly instead. Everything else stays the
dataclass's own: the fields, equality, hashing, ``repr``, ``replace``, and the
frozenness of every instance once it is made.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any
from typing import TypeVar

C = TypeVar("C", bound=type)

_NO_DEFAULT = object()  # a default factory's placeholder in the signature


def quick_init(cls: C) -> C:
    """``cls`` (a frozen dataclass without slots) with a quicker ``__init__``."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: quick_init is for frozen dataclasses without slots")
    fields = dataclasses.fields(cls)
    taken = list(inspect.signature(cls).parameters)
    if sorted(taken) != sorted(each.name for each in fields) or not all(f.init for f in fields):
        raise TypeError(f"{cls.__name__}: quick_init takes plain init fields only (no InitVar)")
    names: dict[str, Any] = {"_NO_DEFAULT": _NO_DEFAULT}
    signature: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for index, each in enumerate(fields):
        name = each.name
        if each.default is not dataclasses.MISSING:
            names[f"_default_{index}"] = each.default
            param = f"{name}=_default_{index}"
        elif each.default_factory is not dataclasses.MISSING:
            names[f"_factory_{index}"] = each.default_factory
            param = f"{name}=_NO_DEFAULT"
            body.append(f"    if {name} is _NO_DEFAULT:\n        {name} = _factory_{index}()")
        else:
            param = name
        (keywords if each.kw_only else signature).append(param)
        body.append(f"    _d[{name!r}] = {name}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    if keywords:
        signature += ["*", *keywords]
    source = (
        f"def __init__(self, {', '.join(signature)}) -> None:\n"
        "    _d = self.__dict__\n" + "\n".join(body) + "\n"
    )
    exec(source, names)  # built from the class's own field names only
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    setattr(cls, "__init__", init)  # noqa: B010 - mypy forbids assigning __init__
    return cls
