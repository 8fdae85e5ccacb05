"""An output path is checked before any work: one line, exit 2, and
nothing made (no missing folder is created, no game is rendered)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from narrator.outputs import check_writable
from narrator.rules.errors import ConfigError
from tests.test_robustness import run_main


def _cases(tmp: Path) -> dict[str, Path]:
    (tmp / "a folder.ogg").mkdir()
    os.mkfifo(tmp / "pipe.ogg")
    (tmp / "device.ogg").symlink_to("/dev/null")
    (tmp / "file").write_text("x")
    return {
        "/proc": Path("/proc/narrator-test.ogg"),
        "a missing folder": tmp / "no" / "such" / "x.ogg",
        "a folder": tmp / "a folder.ogg",
        "a named pipe": tmp / "pipe.ogg",
        "a device": tmp / "device.ogg",
        "a file as its folder": tmp / "file" / "x.ogg",
    }


NAMES = [
    "/proc",
    "a missing folder",
    "a folder",
    "a named pipe",
    "a device",
    "a file as its folder",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_bad_output_path_is_refused_before_anything(tmp_path: Path, name: str) -> None:
    path = _cases(tmp_path)[name]
    with pytest.raises(ConfigError, match="--output"):
        check_writable(path, "--output")
    assert not (tmp_path / "no").exists()  # a missing folder is never made


@pytest.mark.parametrize("name", NAMES)
def test_demo_refuses_it_in_one_line_without_rendering(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _cases(tmp_path)[name]
    rendered: list[object] = []
    monkeypatch.setattr("narrator.demo.render_offline", lambda *a, **k: rendered.append(a))
    code = run_main(["demo", "onenight", "--output", str(path), "--record-dir", str(tmp_path)])
    assert code == 2 and not rendered
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--output" in err[0], err
    assert not (tmp_path / "no").exists()


def test_a_good_output_path_is_left_as_it_was(tmp_path: Path) -> None:
    check_writable(tmp_path / "x.ogg", "--output")
    assert not (tmp_path / "x.ogg").exists()
    (tmp_path / "y.ogg").write_bytes(b"old")
    check_writable(tmp_path / "y.ogg", "--output")
    assert (tmp_path / "y.ogg").read_bytes() == b"old"
