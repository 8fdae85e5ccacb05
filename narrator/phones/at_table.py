"""The phones at one game: the hub and its server, started and stopped together.

``open_phones`` starts serving on the laptop's network; ``keys`` and ``screen`` put the
phones beside the laptop's own keys and screen; the hub itself is the table's
``Private`` port. The composition root (``narrator.app``) is the only caller.
"""

from __future__ import annotations

import contextlib
import errno
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
        return Phones(hub, server, page_address(shown, bound))
    raise AssertionError("unreachable")
