"""The game journal: sealed while the game runs, plain JSON lines once it has ended.

Secrets must not lie in a readable file while the players sit at the laptop
(docs/rules.md §0.5), yet a crash, a ``kill -9`` or a power cut must not lose the
game: it is continued from its record (narrator.resume). So the record is
written twice over its life:

- **While the game runs**, ``<time>-<game>.sealed``. ``append`` only hands the
  event to a writer thread; the writer appends one frame of ``FRAME_BYTES``
  every ``PERIOD_S`` of the game's clock, from the start to ``close``, whether
  it carries events or only padding, and fsyncs it. The events go in as one
  deflate stream (flushed at each frame, so a frame holds whole compressed
  bytes and an event longer than a frame spills into the next ones), every
  frame sealed with AES-256-GCM under a key made for this game alone; the nonce
  is the frame's index, so frames cannot be reordered, replaced or moved to
  another record unseen. The file's name, size and times thus follow the clock
  and nothing else: a night action, a check or the deal change none of them.
  ``close`` adds a last frame marked *closed*; a record without it was cut
  short (killed, or its disk gave out) and its reader says so with a ``lost``
  event. At a real table the game's clock is the wall clock (stopped while the
  game is paused, which everyone sees); a demo rendered offline runs on its
  virtual clock, so two rendered games of the same public length leave sealed
  records of the same size.
- **Once the game has ended** (its ``end`` event), ``finish`` writes
  ``<time>-<game>.jsonl`` for the group, one JSON object per line as before,
  from every event the game kept in memory (also those a full disk never let
  the sealed record take), and removes the sealed record and its key. A stopped
  or crashed game stays sealed, for ``narrator resume``.

The key is a small file of its own in the user's state folder (``keys/``, mode
0600 in a 0700 folder, see ``default_key_dir``), apart from the records, so a
copied, synced or shared record folder carries no key. It guards against
reading, not against the laptop's own user: see the README, "Privacy of the
game record".

Why frames at a constant rate and not one sealed event at a time: a file that
grows when somebody answers tells when the seer acted and how long her answer
was. Why the game's clock and not always the wall clock: the frames then
depend only on what the table lived through, the same for every deal. The cost
is ``FRAME_BYTES / PERIOD_S`` (7.4 MB an hour), on disk only until the game
ends.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import os
import stat
import struct
import threading
import time
import zlib
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from narrator.files import PART
from narrator.files import RECORD
from narrator.files import RECORD_KEY
from narrator.files import BadFile
from narrator.files import read_bytes
from narrator.files import read_text
from narrator.files import sync_folder
from narrator.files import write_whole
from narrator.rules.errors import ConfigError
from narrator.rules.phases import SETUP
from narrator.rules.phases import PhaseId


class DamagedRecord(ConfigError):
    """A record that cannot be trusted or read: ``reason`` names why, in the words of
    ``resume.reason.<reason>`` (with ``params``), for ``resume --list`` to show."""

    def __init__(self, message: str, reason: str, **params: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


SEALED = ".sealed"  # a record being played, or stopped: sealed
PLAIN = ".jsonl"  # a record of a game that has ended: plain JSON lines
KEY = ".key"
PART_AGE_S = 60.0  # a key still being written after this long belongs to no running game
FRAME_BYTES = 1024  # every frame on disk: sealed payload and the 16-byte tag
PERIOD_S = 0.5  # one frame per this much of the game's clock: at most this is lost
FORMAT = 1
_TAG = 16
_HEAD = struct.Struct(">BH")  # flags, payload length
_CLOSED = 1  # the last frame of a journal closed by narrator
_MAGIC = b"narrator sealed record 1"  # authenticated with every frame
_TERMINAL = frozenset({"end", "stopped", "aborted", "crashed"})  # a plain record's last word
_WAIT_S = 0.01  # the writer never waits less (a paused or virtual clock)

Event = dict[str, Any]


def default_record_dir() -> Path:
    from platformdirs import user_data_path

    return user_data_path("narrator", appauthor=False) / "games"


def default_key_dir() -> Path:
    """Where the keys of sealed records live: the user's state folder, apart from records."""
    from platformdirs import user_state_path

    return user_state_path("narrator", appauthor=False) / "keys"


@dataclass(frozen=True)
class RecordStop:
    """Where a record cut short stops: "the record stops at <phase>: the rest was not written".

    ``phase`` is the last phase the record reached (``SETUP`` before the first);
    ``t`` the game time of the last event it holds (None: it holds none with a time).
    """

    phase: PhaseId
    t: float | None


def record_stop(events: Sequence[Mapping[str, Any]]) -> RecordStop | None:
    """Where the record ``read_journal`` returned stops short, or None if it is whole."""
    if not events or events[-1].get("event") != "lost":
        return None
    last = events[-1]
    t = last.get("t")
    try:
        phase = PhaseId.parse(str(last.get("phase", SETUP)))
    except ValueError as error:
        raise ConfigError(f"the record has a broken phase: {error}") from None
    return RecordStop(phase, float(t) if t is not None else None)


def _lost_marker(events: Sequence[Mapping[str, Any]]) -> Event:
    """The reader's mark at the end of a record cut short (no closing frame, no last word)."""
    phase = str(SETUP)
    t: float | None = None
    for event in events:
        if event.get("event") == "phase" and "id" in event:
            phase = str(event["id"])
        if isinstance(event.get("t"), int | float):
            t = event["t"]
    return {"event": "lost", "phase": phase, "t": t}


class Journal:
    """The record of one game: ``<folder>/<time>-<game>.sealed``, later ``.jsonl``.

    ``clock``: the game's clock (seconds), by default the monotonic wall clock;
    ``keys``: the key folder, by default ``default_key_dir()``. ``path`` is the
    sealed record until ``finish`` has written the plain one.

    A record that cannot be begun (its folder or its key's cannot be written: full,
    read-only, not allowed) raises the OSError and leaves nothing behind.
    """

    def __init__(
        self,
        folder: Path,
        game: str,
        *,
        clock: Callable[[], float] | None = None,
        keys: Path | None = None,
        period: float = PERIOD_S,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        self._sealed = folder / f"{stamp}-{game}{SEALED}"
        self.path = self._sealed
        self._keys = keys or default_key_dir()
        key = AESGCM.generate_key(bit_length=256)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND
        self._fd = os.open(self._sealed, flags, 0o600)  # before its key: see _forget_orphans
        try:
            self._key = _write_key(self._keys, self._sealed, key)
        except OSError:
            os.close(self._fd)
            self._sealed.unlink(missing_ok=True)
            raise
        self._inode = os.fstat(self._fd).st_ino
        sync_folder(folder)
        self._aead = AESGCM(key)
        self._zip = zlib.compressobj(9, zlib.DEFLATED, -15)
        self._pending = bytearray()  # compressed, not yet in a frame
        self._fresh = False  # data went into the compressor since its last flush
        self._made = 0  # frames sealed (by the writer, under the lock)
        self._written = 0  # frames on disk (by the writer only)
        self._error: OSError | None = None
        self._closing = False
        self._closed = False
        self._clock = clock or time.monotonic
        self._period = period
        self._zero = self._clock()
        self._cond = threading.Condition()
        self._writer = threading.Thread(target=self._write_frames, name="journal", daemon=True)
        self._writer.start()

    # -- the game's side ----------------------------------------------------------------------

    def append(self, event: Mapping[str, Any]) -> None:
        """Hand one event to the writer; raises the OSError that stopped it, if one did."""
        line = (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")
        with self._cond:
            if self._closing:
                raise ValueError(f"the journal {self._sealed.name} is closed")
            if self._error is not None:
                raise self._error
            self._pending += self._zip.compress(line)
            self._fresh = True

    def close(self) -> None:
        """Write what is left and a closing frame; raises the OSError that stopped the writer."""
        with self._cond:
            if self._closed:
                return
            self._closing = True
            self._cond.notify_all()
        self._writer.join()
        self._closed = True
        with contextlib.suppress(OSError):
            os.close(self._fd)
        if self._error is not None:
            if not self._still_there():
                self._key.unlink(missing_ok=True)  # it opens nothing any more
            raise self._error

    def finish(self, events: Iterable[Mapping[str, Any]]) -> None:
        """The game has ended: its plain record for the group, and the sealed one removed.

        ``events``: every event of the game (the record in memory). The plain record
        appears whole or not at all. When the disk does not take it, the sealed record
        goes first (it holds nothing the events do not: its space is the plain
        record's) and the plain one is tried once more. The game has ended, so its
        sealed record and key go in any case (nothing to continue, no secret left);
        when the plain record could not be written either, the OSError is raised.
        """
        with contextlib.suppress(OSError):  # the sealed record's loss was told by close()
            self.close()
        plain = self._sealed.with_suffix(PLAIN)
        lines = _plain_lines(events)
        try:
            try:
                _write_plain(plain, lines)
            except OSError:
                _remove_sealed(self._sealed, self._key)
                _write_plain(plain, lines)
        finally:
            _remove_sealed(self._sealed, self._key)
        self.path = plain

    # -- the writer's side --------------------------------------------------------------------

    def _due(self) -> int:
        """Frames due by now: one at the start, one more every period of the game's clock."""
        return int((self._clock() - self._zero) / self._period) + 1

    def _write_frames(self) -> None:
        try:
            self._write_until_closed()
        except Exception as error:  # a bug: the game goes on, told once that its record stops
            with self._cond:
                self._error = OSError(errno.EIO, f"the record's writer failed: {error!r}")
            raise

    def _write_until_closed(self) -> None:
        while True:
            with self._cond:
                while not self._closing and self._made >= self._due():
                    left = self._made * self._period - (self._clock() - self._zero)
                    self._cond.wait(max(_WAIT_S, min(self._period, left)))
                closing = self._closing
                frames = self._seal_due(closing)
            if self._error is None:
                self._put(frames)
            if closing or self._error is not None:
                return

    def _seal_due(self, closing: bool) -> list[bytes]:
        """The frames due now, sealed; on closing, every byte left and the closing frame."""
        target = self._due() + (1 if closing else 0)
        if closing:
            self._pending += self._zip.flush(zlib.Z_SYNC_FLUSH)
            self._fresh = False
        frames: list[bytes] = []
        while self._made < target or (closing and self._pending):
            if self._fresh:
                self._pending += self._zip.flush(zlib.Z_SYNC_FLUSH)
                self._fresh = False
            room = FRAME_BYTES - _TAG - _HEAD.size
            payload = bytes(self._pending[:room])
            del self._pending[:room]
            last = closing and self._made + 1 >= target and not self._pending
            head = _HEAD.pack(_CLOSED if last else 0, len(payload))
            plain = (head + payload).ljust(FRAME_BYTES - _TAG, b"\0")
            frames.append(self._aead.encrypt(_nonce(self._made), plain, _MAGIC))
            self._made += 1
        return frames

    def _put(self, frames: list[bytes]) -> None:
        """Append and fsync; a failure stops the writer, cut back to its whole frames."""
        if not frames:
            return
        data = memoryview(b"".join(frames))
        done = 0
        try:
            if not self._still_there():
                raise FileNotFoundError(errno.ENOENT, "the record file was removed")
            while done < len(data):
                done += os.write(self._fd, data[done:])
            os.fsync(self._fd)
            self._written += len(frames)
        except OSError as error:
            self._written += done // FRAME_BYTES
            with self._cond:
                self._error = error
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._written * FRAME_BYTES)

    def _still_there(self) -> bool:
        try:
            return os.stat(self._sealed).st_ino == self._inode
        except OSError:
            return False


def _nonce(index: int) -> bytes:
    return index.to_bytes(12, "big")


# --- keys ------------------------------------------------------------------------------------


def _key_path(keys: Path, sealed: Path) -> Path:
    return keys / f"{sealed.stem}{KEY}"


def _write_key(keys: Path, sealed: Path, key: bytes) -> Path:
    """The key of a new sealed record, owner-only, on disk before the record's first frame.

    It is written beside its place and moved there whole: a key that is there can be read.
    A key that cannot be written whole (a full or read-only state folder) leaves nothing
    and raises the OSError.
    """
    keys.mkdir(mode=0o700, parents=True, exist_ok=True)
    _forget_orphans(keys)
    path = _key_path(keys, sealed)
    data = {
        "format": FORMAT,
        "frame": FRAME_BYTES,
        "record": str(sealed.absolute()),
        "key": base64.b64encode(key).decode("ascii"),
    }
    write_whole(path, json.dumps(data).encode("ascii"))
    return path


def _forget_orphans(keys: Path) -> None:
    """Remove the keys of records that are gone from a folder that is still there.

    A record on a drive that is not plugged in keeps its key (its folder is missing);
    a record being opened by another narrator exists before its key is written. A key
    left half-written by a writer that was killed goes once it is a minute old.
    """
    for part in keys.glob(f".*{KEY}{PART}"):  # a key whose writer was killed: never used
        with contextlib.suppress(OSError):
            if time.time() - part.stat().st_mtime > PART_AGE_S:
                part.unlink()
    for path in keys.glob(f"*{KEY}"):
        try:
            record = Path(json.loads(path.read_text("ascii"))["record"])
            if record.parent.is_dir() and not record.exists():
                path.unlink()
        except (OSError, ValueError, KeyError, TypeError):
            continue


def _read_key(sealed: Path, keys: Path | None) -> tuple[bytes, int]:
    path = _key_path(keys or default_key_dir(), sealed)
    if not os.path.lexists(path):
        raise DamagedRecord(
            f"{sealed.name}: its key {path} is missing: the sealed record cannot be opened",
            "key_missing",
        )
    try:
        data = json.loads(read_text(path, RECORD_KEY))
        key = base64.b64decode(data["key"], validate=True)
        frame = int(data["frame"])
    except BadFile as error:
        raise DamagedRecord(f"{sealed.name}: {error}", "key_damaged") from None
    except (ValueError, KeyError, TypeError, RecursionError):
        raise DamagedRecord(
            f"the key {path} is damaged: {sealed.name} cannot be opened", "key_damaged"
        ) from None
    if data.get("format") != FORMAT or len(key) != 32 or frame <= _TAG + _HEAD.size:
        raise DamagedRecord(
            f"the key {path} is of another format: {sealed.name} cannot be opened", "key_damaged"
        )
    return key, frame


def _record_bytes(path: Path) -> bytes:
    """A record's bytes: a regular file within RECORD's cap, its size looked at first (a
    2 GB sparse file is refused unread), else a DamagedRecord."""
    try:
        info = path.stat()
    except OSError as error:
        raise DamagedRecord(
            f"cannot read the record {path}: {error.strerror}", "unreadable"
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise DamagedRecord(f"{path}: not a regular file, not a game record", "not_a_file")
    if info.st_size > RECORD.max_bytes:
        raise DamagedRecord(
            f"{path}: {info.st_size} bytes, larger than a game record can be", "too_large"
        )
    try:
        return read_bytes(path, RECORD)
    except BadFile as error:
        raise DamagedRecord(str(error), "unreadable") from None


def _remove_sealed(sealed: Path, key: Path) -> None:
    with contextlib.suppress(OSError):
        sealed.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        key.unlink(missing_ok=True)
    sync_folder(sealed.parent)


def forget_sealed(sealed: Path, keys: Path | None = None) -> None:
    """Remove a sealed record that is done with, and its key (a resumed game's old record)."""
    _remove_sealed(sealed, _key_path(keys or default_key_dir(), sealed))


# --- reading ---------------------------------------------------------------------------------


def read_journal(path: Path, keys: Path | None = None) -> list[Event]:
    """The events of a record: plain (a game that ended) or sealed (one that did not).

    A record cut short ends with a ``lost`` event naming the phase it stops in
    (``record_stop``): a sealed one without its closing frame (the program was
    killed, or the disk gave out), a plain one without its last word. A last
    frame or line caught half-written is left out. A sealed frame that does not
    open with the record's key (altered, or not this record's) is a ConfigError.
    """
    if path.suffix == SEALED:
        return _read_sealed(path, keys)
    events = _parse_lines(path, _record_bytes(path))
    if not events or events[-1].get("event") not in _TERMINAL:
        events.append(_lost_marker(events))
    return events


def _read_sealed(path: Path, keys: Path | None) -> list[Event]:
    data = _record_bytes(path)
    key, frame = _read_key(path, keys)
    aead = AESGCM(key)
    unzip = zlib.decompressobj(-15)
    stream = bytearray()
    closed = False
    count = len(data) // frame  # a last frame cut short is not there
    for index in range(count):
        sealed = data[index * frame : (index + 1) * frame]
        try:
            plain = aead.decrypt(_nonce(index), sealed, _MAGIC)
        except InvalidTag:
            if index == count - 1 or not any(data[index * frame :]):  # a write a power cut tore
                break
            raise DamagedRecord(
                f"{path.name}: frame {index + 1} of {count} does not open with the record's key:"
                " the record has been altered and cannot be trusted",
                "frame_altered",
                frame=index + 1,
            ) from None
        flags, length = _HEAD.unpack_from(plain)
        try:
            stream += unzip.decompress(plain[_HEAD.size : _HEAD.size + length])
        except zlib.error:
            raise DamagedRecord(
                f"{path.name}: frame {index + 1} holds a broken stream",
                "frame_altered",
                frame=index + 1,
            ) from None
        if flags & _CLOSED:
            closed = True
            if any(data[(index + 1) * frame :]):  # nothing is written after the last frame
                raise DamagedRecord(
                    f"{path.name}: bytes after its closing frame {index + 1}: altered",
                    "garbage_after",
                    frame=index + 1,
                )
            break
    events = _parse_lines(path, bytes(stream))
    if not closed:
        events.append(_lost_marker(events))
    return events


def _parse_lines(path: Path, data: bytes) -> list[Event]:
    whole = data[: data.rfind(b"\n") + 1]  # the line after the last newline is half-written
    events: list[Event] = []
    for number, line in enumerate(whole.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            raise DamagedRecord(
                f"{path.name}, line {number}: not an event of a record", "not_events", line=number
            ) from None
        if not isinstance(event, dict):
            raise ConfigError(f"{path.name}, line {number}: not an event of a record")
        events.append(event)
    return events


def unfinished_records(folder: Path) -> list[Path]:
    """The sealed records in ``folder``, newest first: games stopped, crashed or killed.

    A sealed record beside a plain one of the same name belongs to a game that
    ended and could not be unsealed whole (a full disk); it is not listed.
    """
    try:
        found = [
            path
            for path in folder.glob(f"*{SEALED}")
            if not path.with_suffix(PLAIN).exists()  # not a file at all: named as damaged
        ]
    except OSError:
        return []
    return sorted(found, key=lambda path: path.name, reverse=True)


def unseal(path: Path, keys: Path | None = None) -> Path:
    """Turn the sealed record ``path`` of a game that ended into its plain record.

    Returns the plain record's path; a record without an ``end`` event is a ConfigError
    (its game can still be continued and must stay sealed).
    """
    events = read_journal(path, keys)
    if not any(event.get("event") == "end" for event in events):
        raise ConfigError(f"{path.name}: its game has not ended: the record stays sealed")
    if events[-1].get("event") == "lost":
        events.pop()
    plain = path.with_suffix(PLAIN)
    try:
        _write_plain(plain, _plain_lines(events))
    except OSError as error:
        raise ConfigError(f"cannot write {plain}: {error.strerror or error}") from None
    _remove_sealed(path, _key_path(keys or default_key_dir(), path))
    return plain


def write_plain_record(folder: Path, game: str, events: Iterable[Mapping[str, Any]]) -> Path:
    """The plain record of a game that had no sealed one (its disk was full or read-only
    at the start): written whole at its end, or not at all (the OSError is raised)."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    path = folder / f"{stamp}-{game}{PLAIN}"
    _write_plain(path, _plain_lines(events))
    return path


def _plain_lines(events: Iterable[Mapping[str, Any]]) -> bytes:
    return b"".join(
        (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8") for event in events
    )


def _write_plain(path: Path, data: bytes) -> None:
    """The plain record, one JSON object per line: whole, or not there at all."""
    write_whole(path, data)
