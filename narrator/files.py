"""Every file the program reads, read one way: a regular file only, no further than its
kind's cap, parsed with a nesting limit, every problem one line naming the file.

Anyone at the laptop can put anything in the user's folders, and voice packs come from
friends: a FIFO or a device (``/dev/zero``) is refused without blocking or reading it,
a file larger than its kind's cap is refused after reading one byte more than the cap,
and TOML or JSON nested deeper than ``MAX_DEPTH`` is refused before any model sees it.
The caller validates the parsed data against the model the program uses.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tomllib
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import BinaryIO

from narrator.rules.errors import ConfigError

KB = 1024
MB = 1024 * KB

MAX_DEPTH = 16  # tables and arrays inside each other: no real file of ours nests 5
MAX_TEXT = 4096  # characters of one key or text value
PART = ".part"  # a file being written beside its place (``write_whole``)


class BadFile(ConfigError):
    """A file that cannot be read, or is not what its kind must be: one line, naming it."""


@dataclass(frozen=True)
class Kind:
    """A kind of file the program reads: what it is called in a message, and its cap."""

    what: str
    max_bytes: int
    max_items: int = 100_000  # keys and array values, counted over the whole file
    max_text: int = MAX_TEXT
    max_depth: int = MAX_DEPTH


SCENARIO = Kind("scenario file", 256 * KB, max_text=256)
SETTINGS = Kind("remembered settings file", 64 * KB, max_items=1_000)
PRONUNCIATION = Kind("pronunciation file", 256 * KB, max_items=20_000, max_text=512)
MANIFEST = Kind("voice pack manifest", 1 * MB, max_items=50_000)
RECORD = Kind("game record", 64 * MB)  # a frame per half second: 3 hours is 22 MB
RECORD_KEY = Kind("record key", 4 * KB, max_items=16)
CATALOG = Kind("line catalog", 1 * MB)  # the package's own files: bounded all the same
MODEL_FILE = Kind("speech model file", 256 * KB)
SOUND = Kind("sound file", 50 * MB)  # ``narrator hear``: minutes of speech, even as WAV


def read_bytes(path: Path, kind: Kind) -> bytes:
    """The file's bytes: a regular file of at most ``kind.max_bytes``, else BadFile.

    The size is counted as it is read (a file may grow after it was opened)."""
    fd = _open_regular(path, kind)
    try:
        chunks, size = [], 0
        while size <= kind.max_bytes:
            chunk = os.read(fd, min(MB, kind.max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise BadFile(f"{path}: cannot read: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if size > kind.max_bytes:
        raise BadFile(f"{path}: larger than {_size(kind.max_bytes)}, too large for a {kind.what}")
    return b"".join(chunks)


def read_text(path: Path, kind: Kind) -> str:
    """The file as UTF-8 text (a byte-order mark is allowed and dropped)."""
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadFile(f"{path}: not UTF-8 text (byte {error.start})") from None


def parse_toml(text: str, kind: Kind, where: Path | str) -> dict[str, Any]:
    """TOML text as a table, its shape within ``kind``'s bounds, else BadFile."""
    _check_nesting(text, kind, where, comments=True)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BadFile(f"{where}: not valid TOML: {error}") from None
    except RecursionError:
        raise BadFile(f"{where}: not valid TOML: nested more than {kind.max_depth} deep") from None
    except ValueError as error:  # an integer of more than 4300 digits
        raise BadFile(f"{where}: not valid TOML: {str(error)[:80]}") from None
    check_shape(data, kind, where)
    return data


def parse_json(text: str, kind: Kind, where: Path | str) -> Any:
    """JSON text, its shape within ``kind``'s bounds, else BadFile."""
    _check_nesting(text, kind, where, comments=False)
    try:
        data = json.loads(text)
    except RecursionError:
        raise BadFile(f"{where}: not valid JSON: nested more than {kind.max_depth} deep") from None
    except ValueError as error:
        raise BadFile(f"{where}: not valid JSON: {str(error)[:80]}") from None
    check_shape(data, kind, where)
    return data


def load_toml(path: Path, kind: Kind) -> dict[str, Any]:
    return parse_toml(read_text(path, kind), kind, path)


def load_json(path: Path, kind: Kind) -> Any:
    return parse_json(read_text(path, kind), kind, path)


def check_toml_nesting(text: str, kind: Kind, where: Path | str) -> None:
    """Refuse TOML text nested deeper than ``kind.max_depth`` (for a reader that parses a
    file line by line, so one bad line costs only that line)."""
    _check_nesting(text, kind, where, comments=True)


def _check_nesting(text: str, kind: Kind, where: Path | str, *, comments: bool) -> None:
    """Refuse brackets nested deeper than MAX_DEPTH before a recursive parser meets them
    (outside quoted strings; a table header's dotted key nests too, but in one line)."""
    depth, quote, escaped = 0, "", False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote or (char == "\n" and quote == "#"):
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#" and comments:
            quote = "#"  # a TOML comment runs to the end of its line
        elif char in "[{":
            depth += 1
            if depth > kind.max_depth:
                raise BadFile(f"{where}: nested more than {kind.max_depth} deep")
        elif char in "]}":
            depth = max(0, depth - 1)


def check_shape(data: Any, kind: Kind, where: Path | str) -> None:
    """Every key and text within ``kind.max_text``, at most ``kind.max_items`` values in
    all, nested at most MAX_DEPTH deep (walked without recursion)."""
    items = 0
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, name, depth = stack.pop()
        items += 1
        if items > kind.max_items:
            raise BadFile(f"{where}: more than {kind.max_items} values, too many for a {kind.what}")
        if depth > kind.max_depth:
            raise BadFile(f"{where}: {name or 'file'}: nested more than {kind.max_depth} deep")
        if isinstance(value, str) and len(value) > kind.max_text:
            raise BadFile(f"{where}: {name}: a text longer than {kind.max_text} characters")
        if isinstance(value, Mapping):
            for key, inner in value.items():
                if len(str(key)) > kind.max_text:
                    raise BadFile(f"{where}: a key longer than {kind.max_text} characters")
                stack.append((inner, f"{name}.{key}" if name else str(key), depth + 1))
        elif isinstance(value, list):
            stack.extend((inner, name, depth + 1) for inner in value)


def describe_mode(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"


def _size(count: int) -> str:
    if count >= MB and count % MB == 0:
        return f"{count // MB} MB"
    return f"{count // KB} KB" if count >= KB else f"{count} bytes"


def inside(folder: Path, path: Path) -> Path:
    """``path`` resolved, when it lies inside ``folder`` (resolved too); else BadFile.
    Every write the program makes into a folder of its own goes through this check."""
    root, target = folder.resolve(), path.resolve()
    if target != root and root not in target.parents:
        raise BadFile(f"{path}: outside {folder}, refused")
    return target


def open_regular(path: Path, kind: Kind) -> BinaryIO:
    """``path`` open for reading once checked as ``read_bytes`` checks it -- a regular file
    of at most ``kind.max_bytes`` -- before a byte is read: for a reader that must seek
    (a zip archive), and then reads only what it was asked to."""
    fd = _open_regular(path, kind)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_regular(path: Path, kind: Kind) -> int:
    """A descriptor of ``path`` once it is known to be a regular file no larger than
    ``kind.max_bytes`` (its size now), else BadFile and nothing left open.

    Opened without blocking (a FIFO opens at once and is then refused by its type) and
    without becoming the controlling terminal; a link is followed, its target checked.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise BadFile(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
    except OSError as error:
        os.close(fd)
        raise BadFile(f"{path}: cannot read: {error.strerror or error}") from None
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise BadFile(
            f"{path}: not a regular file ({describe_mode(info.st_mode)}), not a {kind.what}"
        )
    if info.st_size > kind.max_bytes:
        os.close(fd)
        raise BadFile(f"{path}: larger than {_size(kind.max_bytes)}, too large for a {kind.what}")
    return fd


# --- writing ---------------------------------------------------------------------------------


def write_whole(path: Path, data: bytes) -> None:
    """``data`` as the file ``path`` (mode 0600), whole or not at all (``write_beside``),
    synced before it is moved into place and its folder synced after.

    On a failure the OSError is raised: no empty or half-written file is left, and a
    file that was there before stays as it was.
    """
    write_beside(path, lambda part: _write_new(part, data))
    sync_folder(path.parent)


def write_beside(path: Path, write: Callable[[Path], object], part: Path | None = None) -> None:
    """``write`` the file ``path`` whole or not at all: ``write`` makes it at ``part``
    (``.<name>.part`` beside it unless named), which is then moved into place. The part
    is cleared first (``clear_part``), so a link planted there by anyone at the laptop
    never carries the write outside the folder. The one way every writer of the program
    replaces a file.

    On an OSError the part is removed and the error raised; ``path`` stays as it was.
    """
    part = path.with_name(f".{path.name}{PART}") if part is None else part
    try:
        write(clear_part(part))
        os.replace(part, path)
    except OSError:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


def _write_new(part: Path, data: bytes) -> None:
    """``data`` as a new file of our own (0600) at ``part``, synced: never written through."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(part, flags, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def clear_part(part: Path) -> Path:
    """``part``, with whatever lay at its name removed: a part left by a killed writer, or
    a link planted there, so the write that follows makes a file of its own in the folder
    instead of writing through the link. An OSError if it cannot be removed."""
    with contextlib.suppress(FileNotFoundError):
        part.unlink()
    return part


def sync_folder(folder: Path) -> None:
    """A new file's name survives a power cut only once its folder is synced."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot: the file itself is synced all the same
    finally:
        os.close(fd)
