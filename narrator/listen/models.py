"""Speech models: fetch the small Vosk model of a language, check it, unpack it, find it.

A download goes to ``<name>.zip.part`` and resumes from there (HTTP Range)
when it broke off; the archive is checked against its pinned size and SHA-256
where they are known, unpacked into ``models/<name>/`` and loaded once to prove
that it works. Offline, the one-line error names the exact URL and the folder
to unpack it into, so it can be fetched by hand on any other machine.
"""

from __future__ import annotations

import hashlib
import http.client
import logging
import shutil
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from narrator.listen.vosk_asr import SpeechModel
from narrator.listen.vosk_asr import model_problem
from narrator.listen.words import lexicon_for
from narrator.rules.errors import ConfigError

_LOGGER = logging.getLogger(__name__)

BASE_URL = "https://alphacephei.com/vosk/models/"
CHUNK = 64 * 1024
TIMEOUT_S = 30.0

Progress = Callable[[int, int | None], None]  # (bytes so far, total bytes if known)


@dataclass(frozen=True)
class ModelSpec:
    """One downloadable model. ``size`` and ``sha256`` are pinned where they could be verified;
    ``approx_mb`` bounds an unpinned download (half to twice that is accepted)."""

    lang: str
    name: str
    approx_mb: int
    size: int | None = None
    sha256: str | None = None
    url: str = ""

    @property
    def source(self) -> str:
        return self.url or f"{BASE_URL}{self.name}.zip"


KNOWN: dict[str, ModelSpec] = {
    # Size and checksum of the English archive agree across several independent
    # public pins of it; for the Russian one none could be found, so it is checked
    # by its approximate size, its zip structure and by loading it.
    "en": ModelSpec(
        "en",
        "vosk-model-small-en-us-0.15",
        40,
        size=41_205_931,
        sha256="30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498",
    ),
    "ru": ModelSpec("ru", "vosk-model-small-ru-0.22", 45),
}


def spec_for(lang: str) -> ModelSpec:
    try:
        return KNOWN[lang]
    except KeyError:
        raise ConfigError(
            f"no model to download for {lang!r}; languages: {', '.join(KNOWN)}"
        ) from None


def default_models_dir() -> Path:
    """``models/`` of the checkout when run from one, else the user's data folder."""
    checkout = Path(__file__).resolve().parents[2] / "models"
    if checkout.is_dir():
        return checkout
    import platformdirs

    return platformdirs.user_data_path("narrator", appauthor=False) / "models"


def installed(folder: Path) -> list[Path]:
    """Every usable model folder directly inside ``folder``."""
    try:
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if p.is_dir() and model_problem(p) is None)
    except OSError as error:  # a folder one may not look into (is_dir raises on EACCES)
        raise ConfigError(f"cannot read {folder}: {error.strerror or error}") from None


def find_model(lang: str, folder: Path | None = None) -> Path | None:
    """The model to use for ``lang``: the known small one, else any ``vosk-model-…-<lang>…``."""
    folder = folder or default_models_dir()
    spec = KNOWN.get(lang)
    if spec is not None and model_problem(folder / spec.name) is None:
        return folder / spec.name
    for path in installed(folder):
        pieces = path.name.split("-")
        if pieces[:2] == ["vosk", "model"] and lang in pieces[2:4] + [p[:2] for p in pieces[2:4]]:
            return path
    return None


def model_for(lang: str, given: Path | None, folder: Path | None = None) -> Path:
    """``--asr-model PATH`` if given, else the installed model of ``lang``; else a clear error."""
    if given is not None:
        problem = model_problem(given)
        if problem is not None:
            raise ConfigError(f"--asr-model: {problem}")
        return given
    found = find_model(lang, folder)
    if found is None:
        where = folder or default_models_dir()
        raise ConfigError(
            f"no {lang!r} speech model in {where}: run `narrator models download {lang}` "
            "or pass --asr-model PATH (or play with --input keypad)"
        )
    return found


# --- downloading ------------------------------------------------------------------------


def offline_message(spec: ModelSpec, folder: Path, reason: object) -> str:
    return (
        f"cannot download {spec.source} ({reason}); fetch it by hand and unpack it into "
        f"{folder} (so that {folder / spec.name / 'am'} exists), or pass --asr-model PATH"
    )


def download(
    spec: ModelSpec,
    folder: Path,
    *,
    progress: Progress | None = None,
    verify: bool = True,
    timeout: float = TIMEOUT_S,
) -> Path:
    """Fetch, check, unpack and load ``spec`` into ``folder``; the model folder."""
    target = folder / spec.name
    if model_problem(target) is None:
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot create {folder}: {error.strerror}") from None
    part = folder / f"{spec.name}.zip.part"
    fetch(spec, part, folder, progress=progress, timeout=timeout)
    check_archive(spec, part)
    unpack(part, folder, spec.name)
    if verify:
        verify_model(target, spec.lang)
    part.unlink()
    return target


def _total(response: Any, have: int) -> tuple[int, int | None]:
    """Where this response starts and the archive's full size, from its headers."""
    length = response.headers.get("Content-Length")
    if response.status == 206:
        content_range = response.headers.get("Content-Range", "")
        start = int(content_range.split()[1].split("-")[0]) if " " in content_range else have
        total = content_range.rsplit("/", 1)[-1]
        return start, int(total) if total.isdigit() else None
    return 0, int(length) if length and length.isdigit() else None


def fetch(
    spec: ModelSpec,
    part: Path,
    folder: Path,
    *,
    progress: Progress | None = None,
    timeout: float = TIMEOUT_S,
) -> None:
    """Download into ``part``, continuing a partial file where the server allows it."""
    have = part.stat().st_size if part.exists() else 0
    if spec.size is not None and have > spec.size:
        part.unlink()
        have = 0
    if spec.size is not None and have == spec.size:
        return
    response = _request(spec, folder, have, timeout)
    if response is None:  # nothing left to send: the file is complete
        return
    with response:
        start, total = _total(response, have)
        if start != have:
            have = 0  # the server sent the whole file: start over
        if spec.size is not None and total is not None and total != spec.size:
            raise ConfigError(
                f"{spec.source} is {total} bytes, but {spec.name}.zip should be {spec.size}: "
                "a different file (a proxy's page?); nothing was kept"
            )
        if total is not None and total > largest(spec):
            raise ConfigError(too_large(spec, total))
        _receive(response, spec, part, have, total, progress)


def _request(spec: ModelSpec, folder: Path, have: int, timeout: float) -> Any:
    """The server's response for the archive from byte ``have`` on; None when the
    server has nothing left to send (416 to a resumed request)."""
    try:
        request = urllib.request.Request(spec.source, headers={"User-Agent": "narrator"})
    except ValueError as error:  # not a URL at all ("x", "http://[::1")
        raise ConfigError(offline_message(spec, folder, error)) from None
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code == 416 and have:
            return None
        raise ConfigError(offline_message(spec, folder, f"HTTP {error.code}")) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ConfigError(offline_message(spec, folder, reason)) from None


def _receive(
    response: Any,
    spec: ModelSpec,
    part: Path,
    have: int,
    total: int | None,
    progress: Progress | None,
) -> None:
    """Write the response's bytes after the ``have`` already in ``part``; never more
    than the archive may have."""
    most = largest(spec)
    done = have
    try:
        with part.open("ab" if have else "wb") as out:
            while chunk := response.read(CHUNK):
                out.write(chunk)
                done += len(chunk)
                if done > most:  # an endless stream (file:///dev/zero) fills no disk
                    break
                if progress is not None:
                    progress(done, total or spec.size)
    except (OSError, http.client.HTTPException) as error:
        raise ConfigError(
            f"the download of {spec.source} broke off at {done} bytes ({error!r}); "
            "run the same command again to continue"
        ) from None
    if done > most:
        part.unlink(missing_ok=True)
        raise ConfigError(too_large(spec, done, more=True))
    if total is not None and done < total:
        raise ConfigError(
            f"the download of {spec.source} broke off at {done} of {total} bytes; "
            "run the same command again to continue"
        )


def largest(spec: ModelSpec) -> int:
    """The most bytes the archive may have: its pinned size, else twice its rough size."""
    return spec.size if spec.size is not None else spec.approx_mb * 2_000_000


def too_large(spec: ModelSpec, size: int, more: bool = False) -> str:
    return (
        f"{spec.source} sends {'more than ' if more else ''}{size} bytes, but {spec.name}.zip "
        f"has at most {largest(spec)}: a different file; nothing was kept"
    )


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def check_archive(spec: ModelSpec, part: Path) -> None:
    """Pinned size and checksum, or (unpinned) a plausible size; a bad file is removed."""
    size = part.stat().st_size
    problem = None
    if spec.size is not None and size != spec.size:
        problem = f"it is {size} bytes, {spec.size} expected"
    elif spec.size is None and not spec.approx_mb * 500_000 <= size <= spec.approx_mb * 2_000_000:
        problem = f"it is {size} bytes, about {spec.approx_mb} MB expected"
    elif spec.sha256 is not None and (actual := sha256_of(part)) != spec.sha256:
        problem = f"its SHA-256 is {actual}, {spec.sha256} expected"
    elif not zipfile.is_zipfile(part):
        problem = "it is not a zip archive"
    if problem is not None:
        part.unlink()
        raise ConfigError(f"the download of {spec.name}.zip is wrong: {problem}; it was removed")
    if spec.sha256 is None:
        _LOGGER.info("%s.zip: %d bytes, SHA-256 %s (not pinned)", spec.name, size, sha256_of(part))


def unpack(archive: Path, folder: Path, name: str) -> Path:
    """Unpack into ``folder/name`` (whatever the archive's own top folder is called)."""
    work = folder / f".{name}.unpacking"
    shutil.rmtree(work, ignore_errors=True)
    try:
        with zipfile.ZipFile(archive) as packed:
            for member in packed.namelist():
                parts = Path(member).parts
                if member.startswith(("/", "\\")) or ".." in parts:
                    raise ConfigError(f"{archive.name} holds an unsafe path: {member!r}")
            packed.extractall(work)
    except (zipfile.BadZipFile, OSError) as error:
        shutil.rmtree(work, ignore_errors=True)
        archive.unlink(missing_ok=True)
        raise ConfigError(f"cannot unpack {archive.name} ({error}); it was removed") from None
    tops = [p for p in work.iterdir()]
    source = tops[0] if len(tops) == 1 and tops[0].is_dir() else work
    target = folder / name
    shutil.rmtree(target, ignore_errors=True)
    source.rename(target)
    shutil.rmtree(work, ignore_errors=True)
    return target


def verify_model(path: Path, lang: str) -> None:
    """Load the model and check its words; a model that fails is removed."""
    try:
        SpeechModel.load(path).check(lexicon_for(lang))
    except ConfigError as error:
        shutil.rmtree(path, ignore_errors=True)
        raise ConfigError(f"{error}; the unpacked folder {path} was removed") from None
