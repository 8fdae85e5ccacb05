"""The phones at one game: the hub and its server, started and stopped together.

``open_phones`` starts serving on the laptop's network; ``keys`` and ``screen`` put the
phones beside the laptop's own keys and screen; the hub itself is the table's
``Private`` port. ``PhoneLink`` is the set-up screen's choice: served while it is on.
The composition root (``narrator.app``) and the set-up screen are the callers.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from narrator.phones.address import lan_address
from narrator.phones.address import page_address
from narrator.phones.address import qr_text
from narrator.phones.hub import Hub
from narrator.phones.hub import PhoneKeys
from narrator.phones.hub import PhoneScreen
from narrator.phones.server import PhoneServer
from narrator.ports import Keys
from narrator.ports import Screen
from narrator.rules.codec import Words

PORT = 8032  # a port the address keeps from game to game, when it is free
ANY = "0.0.0.0"  # every interface: the Wi-Fi, a hotspot, and loopback


@dataclass
class Phones:
    """The phones of one game: where they connect, and the hub they share with the table."""

    hub: Hub
    server: PhoneServer
    address: str

    def keys(self, inner: Keys) -> Keys:
        return PhoneKeys(inner, self.hub)

    def screen(self, inner: Screen) -> Screen:
        return PhoneScreen(inner, self.hub)

    def stop(self) -> None:
        self.server.stop()

    def show(self, out: TextIO) -> None:
        """The address and its QR code, for the terminal before the game."""
        out.write(qr_text(self.address))
        out.write(self.hub.word("phones.address", address=self.address) + "\n")
        out.flush()

    def for_game(self, players: int, word: Words, kept: Mapping[int, str]) -> None:
        """The game's own count, language and (for a resumed game) its phones' seats."""
        self.hub.word = word
        self.hub.resize(players)
        self.hub.remember(kept)


Opener = Callable[[int, Words], Phones]


class PhoneLink:
    """The phones as the set-up screen chooses them: served from the moment its choice
    is on (so players join while the host sets up), stopped when it goes off, and
    handed to the game at Start."""

    def __init__(self, word: Words, opener: Opener | None = None) -> None:
        self.word = word
        self.phones: Phones | None = None
        self._opener: Opener = opener or open_phones

    def open(self, players: int) -> Phones:
        """Serving (started now, or already): an OSError when the laptop cannot."""
        if self.phones is None:
            self.phones = self._opener(players, self.word)
        else:
            self.phones.hub.resize(players)
        return self.phones

    def close(self) -> None:
        if self.phones is not None:
            self.phones.stop()
            self.phones = None


def open_phones(
    players: int, word: Words, *, host: str = ANY, port: int = PORT, period: float | None = None
) -> Phones:
    """Serve the phones of a table of ``players`` on ``host`` (the laptop's network)."""
    hub = Hub(players, word)
    shown = lan_address() if host == ANY else host
    for tried in (port, 0):  # the usual port taken: any free one
        server = PhoneServer(hub, host, tried, **({"period": period} if period else {}))
        try:
            bound = server.start()
        except OSError as error:
            if tried == 0 or error.errno != errno.EADDRINUSE:
                raise
            with contextlib.suppress(Exception):
                server.stop()
            continue
        hub.port = bound
        return Phones(hub, server, page_address(shown, bound))
    raise AssertionError("unreachable")
