"""Where the phones find the laptop: its address on the local network, and a QR code.

The address is the one the laptop would use to reach its network (asked of the
system's routing, with no packet sent); a laptop on no network gets the loopback
address and the table is told there are no phones to be had.
"""

from __future__ import annotations

import contextlib
import socket

LOOPBACK = "127.0.0.1"
_PROBE = ("10.255.255.255", 1)  # any address outside the machine: nothing is sent to it


def lan_address() -> str:
    """The laptop's address on its local network (Wi-Fi or hotspot), else loopback."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(_PROBE)  # UDP: only chooses the route, sends nothing
        address: str = probe.getsockname()[0]
        if address and not address.startswith("0."):
            return address
    return LOOPBACK


def page_address(host: str, port: int) -> str:
    """The short address a player types (or the QR code holds)."""
    return f"http://{host}:{port}/"


def qr_text(address: str) -> str:
    """``address`` as a QR code drawn in text, for a terminal (``segno``)."""
    import io

    import segno

    code = segno.make(address, error="m", boost_error=False)
    out = io.StringIO()
    code.terminal(out=out, compact=True, border=2)
    return out.getvalue()
