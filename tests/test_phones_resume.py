"""A game resumed with `narrator resume` knows its phones again: the sealed record keeps a
salted SHA-256 of each seat's token (never the token, never a role) and the port; a
phone coming back with its token gets its seat without the laptop's confirmation, a new
phone asking for that seat needs it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from narrator import app as table
from narrator.host.journal import Journal
from narrator.host.journal import forget_sealed
from narrator.host.journal import read_journal
from narrator.host.journal import unfinished_records
from narrator.phones.at_table import open_phones
from narrator.phones.hub import Hub
from narrator.phones.seating import Joined
from narrator.phones.seating import kept_seats
from narrator.prepared import Prepared
from narrator.settings import TableSettings
from narrator.voice.catalog import load_catalog
from tests.test_phones import frames_until
from tests.test_resume import stopped_onenight

LOOPBACK = "127.0.0.1"
catalog = load_catalog("ru")


def word(key: str, **params: object) -> str:
    return catalog.text(key, params)


def bound_then_stopped(tmp_path: Path) -> tuple[Path, dict[int, str], int]:
    """A onenight game stopped half way with phones at seats 2 and 4: the record folder,
    their tokens, and the port they joined on (the game's server, stopped since)."""
    records, _ = stopped_onenight(tmp_path)
    (sealed,) = unfinished_records(records)
    events = read_journal(sealed)
    forget_sealed(sealed)  # written again below, with the phones in it
    journal = Journal(records, "onenight")
    phones = open_phones(len(events[0]["deal"]["seats"]), word, host=LOOPBACK, port=0)
    try:
        for event in events:
            journal.append(event)
        phones.hub.record(lambda event, **fields: journal.append({"event": event, **fields}))
        tokens = {}
        for seat in (2, 4):
            joined = phones.hub.join(seat, None)
            assert isinstance(joined, Joined)
            tokens[seat] = joined.token
        port = phones.hub.port
        assert port is not None
    finally:
        phones.stop()
        journal.close()
    return records, tokens, port


def resumed(
    records: Path, monkeypatch: Any, *, phones: bool = True
) -> tuple[TableSettings, Prepared]:
    """What `narrator resume [--phones]` hands the table (the table itself is not run)."""
    played: list[tuple[TableSettings, Prepared]] = []
    monkeypatch.setattr(table, "play_at_table", lambda *given: played.append(given))
    settings = TableSettings(game="onenight", record_dir=records, phones=phones, text=True)
    table.resume_at_table(settings, choice=None, listing=False)
    (given,) = played
    return given


def test_the_record_keeps_salted_digests_and_never_a_token(tmp_path: Path) -> None:
    records, tokens, port = bound_then_stopped(tmp_path)
    (sealed,) = unfinished_records(records)
    events = read_journal(sealed)
    kept = [event for event in events if event["event"] == "phones"]
    assert kept[-1]["port"] == port and sorted(kept[-1]["seats"]) == ["2", "4"]
    text = json.dumps(events)
    assert not any(token in text for token in tokens.values())
    raw = b"".join(path.read_bytes() for path in records.parent.rglob("*") if path.is_file())
    assert not any(token.encode() in raw for token in tokens.values())
    for path in records.rglob("*"):
        assert path.stat().st_mode & 0o077 == 0 or path.is_dir(), path


def test_a_resumed_game_gives_a_phone_its_seat_back_by_its_token(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    records, tokens, port = bound_then_stopped(tmp_path)
    settings, prepared = resumed(records, monkeypatch)
    assert settings.phones and prepared.phones_port == port
    assert sorted(prepared.seats_kept) == [2, 4]
    phones = table.open_phones_for(settings, prepared, host=LOOPBACK)
    assert phones is not None
    try:
        assert phones.address.endswith(f":{port}/"), "not the port the phones knew"
        assert phones.hub.seating.awaited() == (2, 4)
        url = f"http://{LOOPBACK}:{phones.hub.port}"

        async def rejoin() -> None:
            async with aiohttp.ClientSession() as session:
                back = await session.ws_connect(url + "/ws")  # its page reloads with the token
                await back.send_json({"kind": "hello", "token": tokens[2]})
                assert (await frames_until(back, "view"))["seat"] == 2
                assert not phones.hub.waiting()  # no confirmation was asked
                other = await session.ws_connect(url + "/ws")  # a new phone wants seat 4
                await other.send_json({"kind": "join", "seat": 4, "token": None})
                assert (await frames_until(other, "asking"))["seat"] == 4
                assert list(phones.hub.waiting().values()) == [4]
                wrong = await session.ws_connect(url + "/ws")  # a made-up token: nothing
                await wrong.send_json({"kind": "hello", "token": "x" * 32})
                assert (await frames_until(wrong, "seats"))["bound"] == [2]
                late = await session.ws_connect(url + "/ws")  # seat 4's own phone, later
                await late.send_json({"kind": "join", "seat": 4, "token": tokens[4]})
                assert (await frames_until(late, "view"))["seat"] == 4
                for socket in (back, other, wrong, late):
                    await socket.close()

        asyncio.run(rejoin())
    finally:
        phones.stop()
    assert "http://" in capsys.readouterr().out  # the address was shown


def test_the_resumed_game_s_record_keeps_the_seats_again() -> None:
    """A second stop keeps them too: the new record is told them at once."""
    first = Hub(5, word)
    joined = first.join(3, None)
    assert isinstance(joined, Joined)
    told: list[dict[str, Any]] = []
    first.record(lambda event, **fields: told.append(fields))
    again = Hub(5, word)
    again.remember(kept_seats(told[-1]["seats"]))
    retold: list[dict[str, Any]] = []
    again.record(lambda event, **fields: retold.append(fields))
    assert retold[-1]["seats"] == told[-1]["seats"]
    assert again.hello(joined.token) == 3
    assert again.seating.bound() == (3,)


@pytest.mark.parametrize("bad", [None, [], {"2": "nope"}, {"x": "0" * 32 + ":" + "0" * 64}])
def test_a_record_s_broken_seats_are_left_out(bad: object) -> None:
    assert kept_seats(bad) == {}


def test_a_game_that_had_phones_resumes_with_them_without_being_told(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Found playing by hand: a plain `narrator resume` of a game with phones served none,
    and the players' pages waited for a laptop that never came back."""
    records, _, port = bound_then_stopped(tmp_path)
    settings, prepared = resumed(records, monkeypatch, phones=False)
    assert settings.phones and prepared.phones_port == port
