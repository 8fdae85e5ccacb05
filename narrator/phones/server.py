"""The web server the phones open: the page, and one WebSocket per phone (aiohttp).

It runs its own event loop in a thread beside the table. Each phone is sent only its
own seat's view (``Hub.view``), as a frame of one fixed size (``wire``), on one clock:
every ``period`` seconds every phone gets its frame, at night and by day, and a phone
gets one more right after each of its own key presses. By day a change is also sent at
once; at night it waits for the next beat, so when a phone hears something never
depends on its role. Nothing secret is in an address, a title or a log line: the page
is one fixed file, the token travels inside WebSocket messages, and there is no
access log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from dataclasses import dataclass
from dataclasses import field
from importlib import resources
from typing import Any

from aiohttp import WSMsgType
from aiohttp import web

from narrator.phones import wire
from narrator.phones.hub import Hub
from narrator.phones.seating import Joined
from narrator.phones.wire import Hello
from narrator.phones.wire import Join
from narrator.phones.wire import Press
from narrator.rules.errors import NarratorError

_LOGGER = logging.getLogger(__name__)

PERIOD_S = 0.5  # the beat every phone gets its frame on
PAGE_FILES = {"/": ("index.html", "text/html"), "/app.js": ("app.js", "text/javascript")}
PAGE_FILES["/app.css"] = ("app.css", "text/css")
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:",
}
JOIN_TEXTS = ("choose", "asking", "refused", "hold")


@dataclass(eq=False)
class Phone:
    """One open page: its socket, and the token of the seat it holds (if any)."""

    socket: web.WebSocketResponse
    token: str | None = None
    ticket: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class PhoneServer:
    """Serves the page and the phones' sockets on ``host``:``port`` (0: any free port)."""

    def __init__(
        self, hub: Hub, host: str = "0.0.0.0", port: int = 0, period: float = PERIOD_S
    ) -> None:
        self.hub, self.host, self.port, self.period = hub, host, port, period
        self._phones: set[Phone] = set()
        self._sending: set[asyncio.Task[None]] = set()  # pushes under way, kept till done
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._page = {
            path: (resources.files("narrator.phones").joinpath("page", name).read_bytes(), kind)
            for path, (name, kind) in PAGE_FILES.items()
        }

    # --- the table's thread ---------------------------------------------------------------

    def start(self) -> int:
        """Start serving in a thread; the port it listens on."""
        self._thread = threading.Thread(target=self._serve, name="phones", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise self._error
        self.hub.listen(self._changed)
        return self.port

    def stop(self) -> None:
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)
        if self._thread is not None:
            self._thread.join(10)

    def _changed(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # closed meanwhile: nobody to tell
                loop.call_soon_threadsafe(self._push)

    # --- the server's thread --------------------------------------------------------------

    def _serve(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as error:  # told to the thread that started it
            self._error = error
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        app = web.Application(client_max_size=4096)
        app.router.add_get("/ws", self._socket)
        for path in self._page:
            app.router.add_get(path, self._file)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        if self.port == 0:  # the port the system chose
            self.port = int(runner.addresses[0][1])
        self._ready.set()
        beat = asyncio.create_task(self._beat())
        try:
            await self._stopping.wait()
        finally:
            beat.cancel()
            for phone in list(self._phones):
                with contextlib.suppress(Exception):
                    await phone.socket.close()
            await runner.cleanup()

    async def _file(self, request: web.Request) -> web.Response:
        body, kind = self._page[request.path]
        return web.Response(body=body, content_type=kind, charset="utf-8", headers=HEADERS)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            await asyncio.gather(*(self._send(phone) for phone in list(self._phones)))

    def _push(self) -> None:
        """Something changed: by day every phone hears it now; at night, on the beat."""
        if self.hub.is_night:
            return
        for phone in list(self._phones):
            task = asyncio.ensure_future(self._send(phone))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(compress=False, max_msg_size=wire.MAX_IN, heartbeat=20)
        await socket.prepare(request)
        phone = Phone(socket)
        self._phones.add(phone)
        try:
            await self._send(phone)
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    await self._received(phone, wire.decode(message.data))
                except NarratorError as error:  # bad input: said to that phone, game goes on
                    _LOGGER.info("a phone sent %s", error)
                    text = self.hub.word(error.key, **error.params) if error.key else str(error)
                    await self._frame(phone, wire.encode({"kind": "error", "text": text}))
        finally:
            self._phones.discard(phone)
        return socket

    async def _received(self, phone: Phone, message: wire.Message) -> None:
        if isinstance(message, Hello):
            if self.hub.hello(message.token) is not None:
                phone.token = message.token
        elif isinstance(message, Join):
            joined = self.hub.join(message.seat, message.token) if message.seat else None
            if isinstance(joined, Joined):
                await self._joined(phone, joined)
                return
            phone.ticket = joined.ticket if joined is not None else None
            if joined is not None:
                await self._frame(phone, wire.encode({"kind": "asking", "seat": joined.seat}))
                return
        elif isinstance(message, Press):
            seat = self.hub.hello(phone.token)
            if seat is not None:
                self.hub.press(seat, message.key)
        await self._send(phone)

    async def _joined(self, phone: Phone, joined: Joined) -> None:
        phone.token, phone.ticket = joined.token, None
        await self._frame(phone, wire.encode({"kind": "token", "token": joined.token}))
        await self._send(phone)

    async def _send(self, phone: Phone) -> None:
        """The phone's frame now: its seat's view, or the seats to choose from."""
        if phone.ticket is not None:
            answer = self.hub.granted(phone.ticket)
            if isinstance(answer, Joined):
                await self._joined(phone, answer)
                return
            if answer is None:
                phone.ticket = None
                await self._frame(phone, wire.encode({"kind": "refused"}))
        seat = self.hub.hello(phone.token)
        if seat is None:
            phone.token = None
            await self._frame(phone, self._seats_frame())
            return
        await self._frame(phone, wire.view_frame(self.hub.view(seat)))

    def _seats_frame(self) -> bytes:
        word = self.hub.word
        texts: dict[str, Any] = {name: word(f"phones.{name}", seat="#") for name in JOIN_TEXTS}
        seating = self.hub.seating
        return wire.encode(
            {"kind": "seats", "seats": seating.seats, "bound": list(seating.bound()), **texts}
        )

    async def _frame(self, phone: Phone, frame: bytes) -> None:
        async with phone.lock:
            if phone.socket.closed:
                return
            with contextlib.suppress(ConnectionError, RuntimeError):
                await phone.socket.send_str(frame.decode())
