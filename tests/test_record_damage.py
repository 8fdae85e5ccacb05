"""A damaged record is named, never silently left out or resumed from an
earlier point; a torn last frame (a game killed while writing) still resumes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from narrator.host.journal import FRAME_BYTES
from narrator.host.journal import DamagedRecord
from narrator.host.journal import read_journal
from narrator.unfinished import scan_records
from tests.test_robustness import run_main
from tests.test_sealed_record import write

EVENTS: list[dict[str, Any]] = [
    {"event": "start", "deal": ["villager"]},
    *({"event": "say", "text": f"line {n}"} for n in range(40)),
]


def sealed(tmp_path: Path) -> tuple[Path, Path]:
    keys = tmp_path / "keys"
    return write(tmp_path / "records", keys, EVENTS, 10.0), keys


def frames(data: bytes) -> list[bytes]:
    return [data[i : i + FRAME_BYTES] for i in range(0, len(data), FRAME_BYTES)]


def zero_frame(data: bytes) -> bytes:
    parts = frames(data)
    parts[len(parts) // 2] = bytes(FRAME_BYTES)
    return b"".join(parts)


def flip(data: bytes) -> bytes:
    i = len(data) // 2
    return data[:i] + bytes([data[i] ^ 1]) + data[i + 1 :]


def swap(data: bytes) -> bytes:
    parts = frames(data)
    parts[1], parts[2] = parts[2], parts[1]
    return b"".join(parts)


def duplicate(data: bytes) -> bytes:
    parts = frames(data)
    return b"".join([*parts[:2], parts[1], *parts[2:-1]])


TAMPERED = {
    "a flipped bit": (flip, "frame_altered"),
    "a zeroed middle frame": (zero_frame, "frame_altered"),
    "swapped frames": (swap, "frame_altered"),
    "a duplicated frame": (duplicate, "frame_altered"),
    "garbage appended": (lambda d: d + os.urandom(3 * FRAME_BYTES), "garbage_after"),
}


@pytest.mark.parametrize("name", TAMPERED)
def test_a_tampered_record_is_refused_with_its_reason(tmp_path: Path, name: str) -> None:
    path, keys = sealed(tmp_path)
    change, reason = TAMPERED[name]
    path.write_bytes(change(path.read_bytes()))
    with pytest.raises(DamagedRecord) as refused:
        read_journal(path, keys)
    assert refused.value.reason == reason, str(refused.value)


def test_a_torn_last_frame_still_reads(tmp_path: Path) -> None:
    path, keys = sealed(tmp_path)
    path.write_bytes(path.read_bytes()[:-300])  # killed while the closing frame was written
    events = read_journal(path, keys)
    assert events[-1]["event"] == "lost" and events[0]["event"] == "start"


@pytest.mark.parametrize(
    "damage, reason",
    [("missing", "key_missing"), ("garbage", "key_damaged"), ("deep", "key_damaged"),
     ("fifo", "key_damaged"), ("dev-zero", "key_damaged")],
)  # fmt: skip
def test_a_missing_or_damaged_key_is_named(tmp_path: Path, damage: str, reason: str) -> None:
    path, keys = sealed(tmp_path)
    (key,) = keys.glob("*.key")
    key.unlink()
    if damage == "garbage":
        key.write_bytes(os.urandom(500))
    elif damage == "deep":
        key.write_text("[" * 2000 + "]" * 2000)
    elif damage == "fifo":
        os.mkfifo(key)
    elif damage == "dev-zero":
        key.symlink_to("/dev/zero")
    with pytest.raises(DamagedRecord) as refused:
        read_journal(path, keys)  # returns at once: a pipe or a device is not read
    assert refused.value.reason == reason


@pytest.mark.parametrize("odd", ["sparse 2 GB", "a named pipe", "a folder"])
def test_a_huge_or_odd_record_is_refused_unread(tmp_path: Path, odd: str) -> None:
    path, _keys = sealed(tmp_path)
    path.unlink()
    if odd == "sparse 2 GB":
        with path.open("wb") as out:
            out.truncate(2 * 1024**3)
    elif odd == "a named pipe":
        os.mkfifo(path)
    else:
        path.mkdir()
    games, damaged = scan_records(path.parent)
    assert not games and [d.reason for d in damaged] == [
        "too_large" if odd == "sparse 2 GB" else "not_a_file"
    ]


def test_resume_lists_a_damaged_record_and_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    keys = tmp_path / "state" / "narrator" / "keys"
    path = write(tmp_path / "records", keys, EVENTS[:1], 10.0)
    path.write_bytes(zero_frame(path.read_bytes()))
    records = ["--record-dir", str(path.parent)]
    assert run_main(["resume", "--list", "--lang", "ru", *records]) == 0
    listed = capsys.readouterr().out
    assert path.name in listed and "повреждён: кадр" in listed and "изменён" in listed, listed
    assert run_main(["resume", "--list", "--lang", "en", *records]) == 0
    assert "damaged: frame" in capsys.readouterr().out
    assert run_main(["resume", "--text", "--lang", "en", *records]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged" in err[0] and path.name in err[0], err
