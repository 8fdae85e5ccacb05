"""The messages between the laptop and a phone: every frame sent has one fixed size.

A view is sent as JSON padded with spaces to ``FRAME`` bytes, so the size of what a
phone receives never depends on its role or on what it was shown (and the server sends
it uncompressed, since compression would give the size back). What a phone sends is
read bounded: one short JSON object, of three kinds.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from dataclasses import dataclass
from typing import Any

from narrator.phones.views import KEYS
from narrator.phones.views import View
from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.rules.errors import BadAnswerText

FRAME = 2048  # bytes of every frame to a phone
MAX_IN = 256  # bytes of a message from a phone
MAX_TEXT = 240  # characters of one text field before it is cut
PHONE_KEYS = {"enter": ENTER, "back": BACKSPACE} | {k: k for k in KEYS if len(k) == 1}


class BadMessage(BadAnswerText):
    """A message from a phone that is not one of the three kinds."""


def encode(payload: dict[str, Any]) -> bytes:
    """``payload`` as one frame of exactly ``FRAME`` bytes (UTF-8 JSON, space-padded).

    Too long, it loses its oldest lines first, then its texts are cut; the result is
    always a whole JSON object."""
    body = dict(payload)
    for key, value in body.items():
        if isinstance(value, str):
            body[key] = value[:MAX_TEXT]
        elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            body[key] = [v[:MAX_TEXT] for v in value]
    data = _dump(body)
    while len(data) > FRAME:
        lines = body.get("lines")
        if isinstance(lines, list) and lines:
            body["lines"] = lines[1:]
        else:
            longest = max((k for k, v in body.items() if isinstance(v, str)), key=_len(body))
            body[longest] = body[longest][: len(body[longest]) // 2]
        data = _dump(body)
    return data + b" " * (FRAME - len(data))


def _len(body: dict[str, Any]) -> Any:
    return lambda key: len(body[key])


def _dump(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def view_frame(view: View) -> bytes:
    return encode({"kind": "view", **asdict(view)})


@dataclass(frozen=True)
class Join:
    """Take ``seat`` (0: only come back to the seat ``token`` holds)."""

    seat: int
    token: str | None


@dataclass(frozen=True)
class Press:
    """A key of the phone's keypad, as the laptop's keypad names it."""

    key: str


@dataclass(frozen=True)
class Hello:
    """A page opened (or reopened) with the token it keeps, if any."""

    token: str | None


Message = Join | Press | Hello


def decode(data: str | bytes) -> Message:
    """A message from a phone; BadMessage for anything else (too long, not JSON, unknown)."""
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > MAX_IN:
        raise BadMessage(f"a message of {len(raw)} bytes (at most {MAX_IN})")
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadMessage("a message that is not JSON") from None
    if not isinstance(body, dict):
        raise BadMessage("a message that is not a JSON object")
    token = body.get("token")
    if token is not None and not isinstance(token, str):
        raise BadMessage("a token that is not text")
    kind = body.get("kind")
    if kind == "hello":
        return Hello(token)
    if kind == "join":
        seat = body.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 99:
            raise BadMessage("join: a seat number from 1 is expected")
        return Join(seat, token)
    if kind == "key":
        key = body.get("key")
        if not isinstance(key, str) or key not in PHONE_KEYS:
            raise BadMessage(f"key: one of {' '.join(sorted(PHONE_KEYS))} is expected")
        return Press(PHONE_KEYS[key])
    raise BadMessage("a message of an unknown kind (hello, join or key)")
