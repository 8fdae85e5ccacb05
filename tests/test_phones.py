"""The phones: seats bound by tokens, one fixed frame size, each phone its own
view, a phone answering only for its own seat; the server on loopback with real sockets."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator

import aiohttp
import pytest

from narrator.phones import views
from narrator.phones import wire
from narrator.phones.hub import Hub
from narrator.phones.hub import PhoneKeys
from narrator.phones.seating import Joined
from narrator.phones.seating import Seating
from narrator.phones.seating import SeatRefused
from narrator.phones.seating import Waiting
from narrator.phones.server import PhoneServer
from narrator.phones.views import Moment
from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.ports import Attempt
from narrator.ports import Live
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import lone_wolf_prompt
from narrator.rules.onenight import vote_prompt
from narrator.rules.prompts import Prompt
from narrator.voice.catalog import load_catalog

CATALOG = load_catalog("ru")
SW = OneNightSwitches()


def word(key: str, **params: object) -> str:
    return CATALOG.text(key, params)


def counter() -> Iterator[str]:
    return (f"token-{n}" for n in itertools.count(1))


# --- seating -----------------------------------------------------------------------------


def test_a_seat_is_bound_by_a_random_token_and_got_back_with_it() -> None:
    seating = Seating(5)
    first = seating.join(3, None)
    assert isinstance(first, Joined) and len(first.token) >= 32
    assert seating.join(3, first.token) == first  # a reload: the same seat, the same token
    assert seating.seat_of(first.token) == 3
    assert seating.seat_of("x" * 1000) is None and seating.seat_of(None) is None
    tokens = {joined.token for joined in (Seating(5).join(1, None) for _ in range(3))}  # type: ignore[union-attr]
    assert len(tokens) == 3


def test_a_bound_seat_needs_the_laptops_confirmation() -> None:
    seating = Seating(5, token=counter().__next__)
    owner = seating.join(2, None)
    assert isinstance(owner, Joined)
    asked = seating.join(2, None)
    assert isinstance(asked, Waiting) and seating.waiting() == {asked.ticket: 2}
    assert seating.seat_of(owner.token) == 2  # nothing changes before the laptop says so
    seating.refuse(asked.ticket)
    assert seating.waiting() == {} and seating.seat_of(owner.token) == 2
    again = seating.join(2, "forged")
    assert isinstance(again, Waiting)
    taken = seating.confirm(again.ticket)
    assert isinstance(taken, Joined) and taken.seat == 2
    assert seating.seat_of(owner.token) is None and seating.seat_of(taken.token) == 2
    assert seating.confirm(again.ticket) is None  # answered once


def test_one_phone_holds_one_seat_and_no_seat_outside_the_table() -> None:
    seating = Seating(4)
    held = seating.join(1, None)
    assert isinstance(held, Joined)
    moved = seating.join(2, held.token)
    assert isinstance(moved, Joined) and seating.bound() == (2,)
    with pytest.raises(SeatRefused, match="seat 5 does not exist: this table has seats 1–4"):
        seating.join(5, None)


# --- frames --------------------------------------------------------------------------------


def night_moments(prompt: Prompt) -> list[Moment]:
    """Every moment of a night window: before, asked, refused, answered, a secret shown."""
    window = Moment(night=True, window=(2, 4))
    asked = Moment(night=True, window=(2, 4), prompt=prompt, label="Какую карту открыть?")
    return [
        Moment(night=True),
        window,
        asked,
        Moment(night=True, window=(2, 4), prompt=prompt, label="x" * 500, reason="r" * 900),
        Moment(night=True, window=(2, 4), lines=("я" * 300,) * 20, secret="Оборотень " * 99),
        Moment(night=True, window=()),  # a window nobody is in
    ]


def test_every_frame_at_night_has_one_size_and_the_same_page_whatever_the_role() -> None:
    prompt = lone_wolf_prompt(2, 6, SW)
    sizes, pages = set(), set()
    for moment in night_moments(prompt):
        for seat, typed in itertools.product(range(1, 7), ["", "12", "*" * 40]):
            view = views.view_for(seat, moment, typed, word)
            frame = wire.view_frame(view)
            sizes.add(len(frame))
            pages.add((view.page, view.phase))
            assert json.loads(frame)["seat"] == seat
    assert sizes == {wire.FRAME} and pages == {("keypad", "night")}


def test_a_phone_at_night_is_shown_its_window_only_if_it_is_awake_in_it() -> None:
    moment = Moment(night=True, window=(2,), lines=("Ваш волк: 5",), secret="seats 2 5")
    awake = views.view_for(2, moment, "", word)
    asleep = views.view_for(3, moment, "", word)
    assert awake.secret == "seats 2 5" and awake.lines == ("Ваш волк: 5",)
    assert asleep.secret == "" and asleep.lines == () and asleep.note == ""


def test_the_card_is_sent_to_its_seat_alone() -> None:
    moment = Moment(dealing=3, card="Ваша карта: Оборотень")
    assert views.view_for(3, moment, "", word).secret == "Ваша карта: Оборотень"
    assert all(views.view_for(s, moment, "", word).secret == "" for s in (1, 2, 4))


def test_encode_keeps_whole_json_within_the_frame() -> None:
    frame = wire.encode({"kind": "view", "lines": ["ж" * 2000] * 50, "label": "🙂" * 3000})
    assert len(frame) == wire.FRAME
    assert json.loads(frame)["kind"] == "view"


@pytest.mark.parametrize(
    "message",
    [
        b"x" * 300,
        b"[1]",
        b"{",
        b'{"kind":"key","key":"q"}',
        b'{"kind":"join","seat":"1"}',
        b'{"kind":"join","seat":true}',
        b'{"kind":"hello","token":5}',
        b'{"kind":"nope"}',
    ],
)
def test_a_bad_message_from_a_phone_is_refused_with_a_reason(message: bytes) -> None:
    with pytest.raises(wire.BadMessage):
        wire.decode(message)


def test_messages_from_a_phone() -> None:
    assert wire.decode('{"kind":"key","key":"enter"}') == wire.Press(ENTER)
    assert wire.decode('{"kind":"key","key":"back"}') == wire.Press(BACKSPACE)
    assert wire.decode('{"kind":"join","seat":4,"token":null}') == wire.Join(4, None)


# --- a phone answers for its own seat only -----------------------------------------------------


class NoKeys:
    """The laptop's keypad, untouched."""

    def read(self, timeout: float) -> str | Attempt | None:
        return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        pass


def seated(seats: int) -> tuple[Hub, PhoneKeys]:
    hub = Hub(seats, word)
    for seat in range(1, seats + 1):
        hub.join(seat, None)
    return hub, PhoneKeys(NoKeys(), hub)


def type_on(hub: Hub, seat: int, keys: str) -> None:
    for key in keys:
        hub.press(seat, key)


def test_a_phone_cannot_answer_for_another_seat() -> None:
    hub, keys = seated(6)
    keys.expect(vote_prompt(3, 6, SW))  # seat 3 votes
    for seat in (1, 2, 4, 5, 6):
        type_on(hub, seat, "5\n")
    assert keys.read(0) is None
    type_on(hub, 3, "5\n")
    assert keys.read(0) == Attempt("d1.vote.3", "5", "phone")


def test_at_night_only_the_woken_seats_answers_count_yet_every_keypad_reacts_alike() -> None:
    hub, keys = seated(6)
    hub.night(True)
    hub.window((2,))
    keys.expect(lone_wolf_prompt(2, 6, SW))
    hub.live(Live("window", "Какую карту открыть?", 5, 10))
    shown = {}
    for seat in range(1, 7):
        type_on(hub, seat, "*1")
        shown[seat] = hub.view(seat)
    assert {(v.page, v.typed) for v in shown.values()} == {("keypad", "*1")}
    for seat in range(1, 7):
        hub.press(seat, ENTER)
    assert keys.read(0) == Attempt("n1.werewolves", "center 1", "phone")
    assert keys.read(0) is None


def test_an_answer_for_a_prompt_that_has_closed_is_dropped() -> None:
    hub, keys = seated(4)
    keys.expect(vote_prompt(1, 4, SW))
    type_on(hub, 1, "2\n")
    keys.expect(vote_prompt(2, 4, SW))  # the table moved on before it read the key
    assert keys.read(0) is None


def test_the_deal_waits_for_its_own_phones_enter() -> None:
    hub, keys = seated(3)
    assert hub.deal(2, "Ваша карта: Провидец")
    hub.press(1, ENTER)
    assert keys.read(0) is None
    hub.press(2, ENTER)
    assert keys.read(0) == ENTER
    hub.deal(None)
    assert not Hub(3, word).deal(2, "card")  # no phone at seat 2: the laptop shows it


# --- the server, on loopback ------------------------------------------------------------------


async def frames_until(socket: aiohttp.ClientWebSocketResponse, kind: str) -> dict[str, object]:
    while True:
        message = await asyncio.wait_for(socket.receive(), 5)
        assert len(message.data.encode()) == wire.FRAME
        frame: dict[str, object] = json.loads(message.data)
        if frame["kind"] == kind:
            return frame


def test_phones_join_reload_and_take_a_bound_seat_only_when_confirmed() -> None:
    hub = Hub(4, word)
    server = PhoneServer(hub, "127.0.0.1", 0, period=0.2)
    port = server.start()
    url = f"http://127.0.0.1:{port}"

    async def play() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "/") as page:
                body = await page.text()
                assert page.headers["Cache-Control"] == "no-store" and "<title>narrator" in body
            first = await session.ws_connect(url + "/ws")
            await first.send_json({"kind": "hello", "token": None})
            assert (await frames_until(first, "seats"))["seats"] == 4
            await first.send_json({"kind": "join", "seat": 9, "token": None})
            refused = await frames_until(first, "error")  # said to the phone, which stays
            assert refused["text"] == "Места 9 нет: за этим столом места 1–4."
            await first.send_str("not json at all")
            await frames_until(first, "error")
            await first.send_json({"kind": "join", "seat": 2, "token": None})
            token = (await frames_until(first, "token"))["token"]
            assert (await frames_until(first, "view"))["seat"] == 2
            await first.close()
            again = await session.ws_connect(url + "/ws")  # a reload: the token brings it back
            await again.send_json({"kind": "hello", "token": token})
            await frames_until(again, "view")
            other = await session.ws_connect(url + "/ws")
            await other.send_json({"kind": "join", "seat": 2, "token": None})
            assert (await frames_until(other, "asking"))["seat"] == 2
            (ticket,) = hub.waiting()
            hub.confirm(ticket)
            assert (await frames_until(other, "token"))["token"] != token
            assert (await frames_until(again, "seats"))["bound"] == [2]  # it lost the seat
            for socket in (again, other):
                await socket.close()

    try:
        asyncio.run(play())
    finally:
        server.stop()
