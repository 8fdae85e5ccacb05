"""The players' phones on the set-up screen: where to open the page, who has joined,
and the laptop's answer when a phone asks for a seat another phone holds.

Everything here is public at the table: the address, its QR code and the seat numbers
the phones hold. A request for a held seat is answered with the keypad alone (``1``
Enter gives the seat to the new phone, ``0`` Enter keeps it with the old one), so
nobody takes a neighbour's seat, and with it his card, by tapping its number.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING
from typing import Any

from textual.app import App
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static

from narrator.phones.address import qr_text
from narrator.voice.catalog import Catalog

if TYPE_CHECKING:
    from narrator.phones.at_table import PhoneLink

GIVE, KEEP = "1", "0"  # the keypad's answers to a request for a held seat
TICK_S = 0.5  # how often the set-up screen looks at the phones


def joined_text(link: PhoneLink | None, catalog: Catalog) -> str:
    """The QR code, the short address and the seats joined; empty when not serving."""
    phones = link.phones if link is not None else None
    if phones is None:
        return ""
    seats = " ".join(str(seat) for seat in phones.hub.seating.bound()) or "—"
    return "\n".join(  # the words first: on a short screen the code may run off its foot
        (
            catalog.text("phones.address", {"address": phones.address}),
            catalog.text("phones.joined", {"seats": seats}),
            qr_text(phones.address).rstrip("\n"),
        )
    )


def first_request(link: PhoneLink | None) -> tuple[str, int] | None:
    """The oldest request for a held seat the laptop has not answered: (ticket, seat)."""
    phones = link.phones if link is not None else None
    if phones is None:
        return None
    return next(iter(phones.hub.waiting().items()), None)


def switched(link: PhoneLink | None, on: bool, players: int) -> OSError | None:
    """The phones served (``on``) or not; why the laptop cannot serve them, if it cannot."""
    if link is None:
        return None
    if not on:
        link.close()
    elif link.phones is None:
        try:
            link.open(players)
        except OSError as error:
            return error
    return None


def request_screen(
    link: PhoneLink | None, catalog: Catalog, asked: str | None
) -> SeatRequest | None:
    """The question for the oldest request for a held seat, unless it is ``asked`` already."""
    request = first_request(link)
    if link is None or request is None or request[0] == asked:
        return None
    return SeatRequest(link, *request, catalog)


def ask_on_pause(app: App[Any], link: PhoneLink | None, catalog: Catalog) -> bool:
    """A day pause in the game: the oldest request for a held seat is asked over the table
    (the keypad answers it as on the set-up screen); whether one was asked."""
    asking = request_screen(link, catalog, None)
    if asking is not None:
        app.push_screen(asking)
    return asking is not None


class SeatRequest(ModalScreen[None]):
    """A phone asks for seat ``seat``, held by another: ``1`` Enter gives it, ``0`` Enter
    keeps it; any other entry is wiped. It closes by itself once the request is gone."""

    DEFAULT_CSS = """
    SeatRequest { align: center middle; }
    #seat-request { width: 64; max-width: 100%; height: auto; border: heavy #e0b341;
                    background: #16161c; padding: 1 2; color: #ffe08a; }
    """

    def __init__(self, link: PhoneLink, ticket: str, seat: int, catalog: Catalog) -> None:
        super().__init__()
        self.link, self.ticket, self.seat, self.catalog = link, ticket, seat, catalog
        self.typed = ""

    def compose(self) -> ComposeResult:
        yield Static(self._text(), id="seat-request")

    def on_mount(self) -> None:
        self.set_interval(TICK_S, self._still_asked)

    def _text(self) -> str:
        asked = self.catalog.text("phones.request", {"seat": self.seat, "give": GIVE, "keep": KEEP})
        return f"{asked}\n\n> {self.typed}"

    def _still_asked(self) -> None:
        phones = self.link.phones
        if phones is None or self.ticket not in phones.hub.waiting():
            self._close()

    def _close(self) -> None:
        """Dismissed, once: an answer and the tick that sees the request gone may meet
        before the screen is removed, and a second dismissal would pop the screen beneath."""
        if self.app.screen is self:
            self.dismiss()

    def on_key(self, event: Any) -> None:
        event.stop()
        event.prevent_default()
        if self.app.screen is not self:  # dismissed already: a late key is dropped
            return
        if event.key == "enter":
            if self._answered(self.typed):
                return
            self.typed = ""
        elif event.key == "backspace":
            self.typed = self.typed[:-1]
        elif event.character and event.character.isdigit():
            self.typed = (self.typed + event.character)[-2:]
        with contextlib.suppress(NoMatches):  # a key before it is drawn: drawn with it
            self.query_one("#seat-request", Static).update(self._text())

    def _answered(self, typed: str) -> bool:
        """Whether ``typed`` answered the request (then the screen is closing)."""
        phones = self.link.phones
        if typed not in (GIVE, KEEP) or phones is None:
            return False
        if typed == GIVE:
            phones.hub.confirm(self.ticket)
        else:
            phones.hub.refuse(self.ticket)
        self._close()
        return True
