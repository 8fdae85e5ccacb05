#!/usr/bin/env python3
"""Benchmark of the phones: 12 phones joined on loopback, the time from a tap
to the answer accepted (p50 / p99), and the server's memory.

The phones are plain WebSocket clients (aiohttp) speaking the page's own messages; the
table is the real hub and keys port (``PhoneKeys``) read as the table loop reads them,
each answer judged by its prompt. Each round asks one seat its day vote while every
phone taps an answer at once (only the asked seat's counts); the time is from the
asked phone's Enter leaving it to the table accepting the answer. The goal: p99 ≤ 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp

from narrator.phones.hub import Hub
from narrator.phones.hub import PhoneKeys
from narrator.phones.server import PhoneServer
from narrator.ports import Attempt
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import vote_prompt
from narrator.rules.prompts import Prompt
from narrator.voice.catalog import load_catalog

PHONES = 12


class NoKeys:
    def read(self, timeout: float) -> str | Attempt | None:
        time.sleep(timeout)
        return None

    def expect(self, prompt: Prompt | None, *, speech: bool = False) -> None:
        pass


def rss_mb() -> float:
    """The process's resident memory now (Linux), else its peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def table(keys: PhoneKeys, rounds: int, asked: list[threading.Event], took: list[float]) -> None:
    """The table: asks each seat in turn, reads keys as the table loop does, judges; the
    next question waits until every phone's taps of this one have come in."""
    sw = OneNightSwitches()
    for n in range(rounds):
        if n:
            asked[n - 1].wait()  # cleared by the phones once they have all tapped
            while asked[n - 1].is_set():
                time.sleep(0.001)
        seat = n % PHONES + 1
        prompt = vote_prompt(seat, PHONES, sw)
        keys.expect(prompt)
        asked[n].set()
        while True:
            key = keys.read(0.1)  # the table loop's TICK
            if isinstance(key, Attempt) and key.prompt == prompt.id:
                prompt.accept(key.text)
                took.append(time.perf_counter())
                break
    keys.expect(None)


async def phones(url: str, rounds: int, asked: list[threading.Event]) -> list[float]:
    """Join 12 phones, then every round all tap at once; when the asked one sent Enter."""
    async with aiohttp.ClientSession() as session:
        sockets = [await session.ws_connect(url) for _ in range(PHONES)]
        for seat, socket in enumerate(sockets, start=1):
            await socket.send_json({"kind": "join", "seat": seat, "token": None})
        readers = [asyncio.create_task(drain(s)) for s in sockets]
        sent: list[float] = []
        for n in range(rounds):
            await asyncio.to_thread(asked[n].wait)
            await asyncio.sleep(0.01)
            seat = n % PHONES + 1
            target = seat % PHONES + 1
            for socket in sockets:
                for key in str(target):
                    await socket.send_json({"kind": "key", "key": key})
            stamp = 0.0
            for other, socket in enumerate(sockets, start=1):
                if other == seat:
                    stamp = time.perf_counter()
                await socket.send_json({"kind": "key", "key": "enter"})
            sent.append(stamp)
            await asyncio.sleep(0.05)  # every tap of this round reaches the server
            asked[n].clear()
        await asyncio.sleep(0.2)
        for task in readers:
            task.cancel()
        for socket in sockets:
            await socket.close()
        return sent


async def drain(socket: aiohttp.ClientWebSocketResponse) -> None:
    async for message in socket:
        json.loads(message.data)


GOAL_MS = 100.0  # tap to accepted answer, p99


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=240, help="taps timed (default: 240)")
    args = parser.parse_args(argv)
    catalog = load_catalog("ru")
    before = rss_mb()
    hub = Hub(PHONES, catalog.word)
    server = PhoneServer(hub, "127.0.0.1", 0)
    port = server.start()
    asked = [threading.Event() for _ in range(args.rounds)]
    took: list[float] = []
    reading = threading.Thread(
        target=table, args=(PhoneKeys(NoKeys(), hub), args.rounds, asked, took)
    )
    reading.start()
    try:
        sent = asyncio.run(phones(f"http://127.0.0.1:{port}/ws", args.rounds, asked))
        reading.join(30)
        joined_mb = rss_mb()
    finally:
        server.stop()
    times = sorted((t - s) * 1000 for s, t in zip(sent, took, strict=True))
    p50 = statistics.median(times)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    rows = [
        ("phones joined", f"{len(hub.seating.bound())}"),
        ("taps timed", f"{len(times)}"),
        ("tap → accepted p50", f"{p50:.1f} ms"),
        ("tap → accepted p99", f"{p99:.1f} ms"),
        ("tap → accepted max", f"{times[-1]:.1f} ms"),
        ("memory before the server", f"{before:.1f} MB"),
        ("memory with 12 phones", f"{joined_mb:.1f} MB"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value:>10}")
    ratio = p99 / GOAL_MS
    verdict = "within" if ratio <= 1 else "OVER"
    print(f"goal p99 ≤ {GOAL_MS:.0f} ms: ratio {ratio:.2f}, {verdict}")
    return 0 if ratio <= 1 else 1


if __name__ == "__main__":
    sys.exit(main())
