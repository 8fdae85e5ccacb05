"""Which phone holds which seat: a seat is bound to a random token the phone keeps.

The token lives in the page's local storage and travels only inside WebSocket
messages (never in an address, a page title or a log line). A phone that asks for a
seat already bound to another token waits until the laptop confirms it (``confirm``),
so nobody takes a neighbour's seat, and with it his card, by tapping its number.
Pure bookkeeping: the caller holds the lock.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass

from narrator.rules.errors import BadAnswerText

TOKEN_BYTES = 24  # 192 random bits, URL-safe text of 32 characters
MAX_TOKEN_CHARS = 64  # a longer "token" from a phone is refused before it is compared
SALT_BYTES = 16
KEPT = re.compile(r"[0-9a-f]{32}:[0-9a-f]{64}")  # how a kept seat looks: salt:SHA-256


def kept_digest(token: str, salt: str | None = None) -> str:
    """What the game's record keeps of a seat's token: a salted SHA-256, ``salt:digest``.
    Enough to know the token again when a resumed game's phone comes back with it, and
    nothing to take the seat with: the token itself is never written."""
    salt = salt if salt is not None else secrets.token_hex(SALT_BYTES)
    return f"{salt}:{hashlib.sha256(f'{salt}:{token}'.encode()).hexdigest()}"


def kept_seats(data: object) -> dict[int, str]:
    """The kept seats a record holds (seat → ``salt:digest``); anything else is left out."""
    if not isinstance(data, Mapping):
        return {}
    return {
        int(seat): kept
        for seat, kept in data.items()
        if isinstance(seat, str) and seat.isdigit()
        if isinstance(kept, str) and KEPT.fullmatch(kept)
    }


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


class SeatRefused(BadAnswerText):
    """A seat a phone cannot have: no such seat, or a token that is not text."""


@dataclass(frozen=True)
class Joined:
    """The phone holds ``seat`` with ``token`` (new, or the one it came with)."""

    seat: int
    token: str


@dataclass(frozen=True)
class Waiting:
    """The seat is bound to another phone: the laptop is asked (request ``ticket``)."""

    seat: int
    ticket: str


class Seating:
    """The seats of one table and the tokens that hold them."""

    def __init__(self, seats: int, token: Callable[[], str] = new_token) -> None:
        self.seats = seats
        self._token = token
        self._bound: dict[int, str] = {}
        self._kept: dict[int, str] = {}  # seat → what the record keeps of its token
        self._awaited: dict[int, str] = {}  # a resumed game's seats whose phones are not back
        self._waiting: dict[str, int] = {}  # ticket → the seat it asks for

    def remember(self, kept: Mapping[int, str]) -> None:
        """A resumed game's seats (``kept_digest`` each): a phone coming back with the
        token one was bound to gets it back; another phone asking for it needs the
        laptop's confirmation, as for a bound seat."""
        for seat, digest in kept.items():
            if 1 <= seat <= self.seats and seat not in self._bound:
                self._awaited[seat] = digest

    def kept(self) -> dict[int, str]:
        """What the game's record keeps of every held seat: salted digests, no token."""
        return {**self._awaited, **self._kept}

    def seat_of(self, token: str | None) -> int | None:
        """The seat ``token`` holds, if any (also a resumed game's, which it takes back)."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        for seat, bound in self._bound.items():
            if hmac.compare_digest(bound.encode(), token.encode()):
                return seat
        for seat, kept in list(self._awaited.items()):
            if hmac.compare_digest(kept_digest(token, kept.split(":")[0]), kept):
                self._bind(seat, token)  # no longer awaited
                return seat
        return None

    def _bind(self, seat: int, token: str) -> None:
        self._awaited.pop(seat, None)
        self._bound[seat] = token
        self._kept[seat] = kept_digest(token)

    def is_bound(self, seat: int) -> bool:
        return seat in self._bound or seat in self._awaited

    def bound(self) -> tuple[int, ...]:
        """The seats held by a phone, in order (public: the set-up screen shows them)."""
        return tuple(sorted(self._bound))

    def awaited(self) -> tuple[int, ...]:
        """A resumed game's seats whose phones have not come back yet, in order."""
        return tuple(sorted(self._awaited))

    def join(self, seat: int, token: str | None) -> Joined | Waiting:
        """``seat`` for a phone that holds ``token`` (None: a phone new to the table)."""
        self._check(seat)
        held = self.seat_of(token)
        if held == seat and token is not None:
            return Joined(seat, token)
        if self.is_bound(seat):
            ticket = self._token()
            self._waiting[ticket] = seat
            return Waiting(seat, ticket)
        if held is not None:  # one phone, one seat: it leaves the one it held
            del self._bound[held]
            self._kept.pop(held, None)
        fresh = self._token()
        self._bind(seat, fresh)
        return Joined(seat, fresh)

    def waiting(self) -> dict[str, int]:
        """The requests for bound seats the laptop has not answered: ticket → seat."""
        return dict(self._waiting)

    def confirm(self, ticket: str) -> Joined | None:
        """The laptop lets the phone with ``ticket`` have its seat: the old token stops
        holding it. None: no such request (answered already, or withdrawn)."""
        seat = self._waiting.pop(ticket, None)
        if seat is None:
            return None
        for other, asked in list(self._waiting.items()):
            if asked == seat:  # one seat, one new phone: the other requests are refused
                del self._waiting[other]
        fresh = self._token()
        self._bind(seat, fresh)
        return Joined(seat, fresh)

    def refuse(self, ticket: str) -> None:
        """The laptop refuses the request: the seat stays with its phone."""
        self._waiting.pop(ticket, None)

    def _check(self, seat: int) -> None:
        if not 1 <= seat <= self.seats:
            raise SeatRefused(
                f"seat {seat} does not exist: this table has seats 1–{self.seats}",
                "phones.no_such_seat",
                {"seat": seat, "seats": self.seats},
            )
