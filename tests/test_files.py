"""The one bounded reader: what it refuses, and that it never blocks,
reads a device or recurses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from narrator.files import MAX_DEPTH
from narrator.files import PART
from narrator.files import SETTINGS
from narrator.files import BadFile
from narrator.files import Kind
from narrator.files import inside
from narrator.files import load_json
from narrator.files import load_toml
from narrator.files import read_bytes
from narrator.files import read_text
from narrator.files import write_beside
from narrator.files import write_whole

SMALL = Kind("test file", 100, max_items=10, max_text=8)


def test_a_regular_file_within_its_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_bytes(b"\xef\xbb\xbfa = 1\n")  # a byte-order mark is dropped
    assert read_text(path, SMALL) == "a = 1\n"
    assert load_toml(path, SMALL) == {"a": 1}


@pytest.mark.parametrize("size, refused", [(100, False), (101, True)])
def test_the_cap_is_exact(tmp_path: Path, size: int, refused: bool) -> None:
    path = tmp_path / "a"
    path.write_bytes(b"x" * size)
    if refused:
        with pytest.raises(BadFile, match="larger than 100 bytes, too large for a test file"):
            read_bytes(path, SMALL)
    else:
        assert len(read_bytes(path, SMALL)) == size


def test_a_named_pipe_a_device_a_folder_and_a_link_to_a_device_are_refused(
    tmp_path: Path,
) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    link = tmp_path / "link.json"
    link.symlink_to("/dev/zero")
    for path, said in (
        (pipe, "a named pipe"),
        (Path("/dev/zero"), "a device"),
        (link, "a device"),
        (tmp_path, "a folder"),
    ):
        with pytest.raises(BadFile, match=said) as error:
            read_bytes(path, SETTINGS)
        assert str(path) in str(error.value)


def test_a_missing_file_and_other_encodings_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(BadFile, match="cannot read"):
        read_bytes(tmp_path / "none", SMALL)
    latin = tmp_path / "latin"
    latin.write_bytes("é".encode("latin-1"))
    with pytest.raises(BadFile, match="not UTF-8"):
        read_text(latin, SMALL)
    utf16 = tmp_path / "utf16"
    utf16.write_bytes("a = 1".encode("utf-16"))
    with pytest.raises(BadFile, match="not UTF-8"):
        read_text(utf16, SMALL)


@pytest.mark.parametrize("text", ["[" * 3000 + "]" * 3000, '{"a":' * 3000 + "1" + "}" * 3000])
def test_json_nested_deeper_than_the_limit_is_refused_not_recursed(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(BadFile, match=f"nested more than {MAX_DEPTH} deep"):
        load_json(path, SETTINGS)


def test_toml_nested_deeper_than_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 2000 + "]" * 2000)
    with pytest.raises(BadFile, match="nested more than"):
        load_toml(path, SETTINGS)


def test_brackets_inside_strings_and_comments_are_not_nesting(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text('a = "' + "[" * 40 + '"  # ' + "{" * 40 + "\nb = '" + "[" * 40 + "'\n")
    assert set(load_toml(path, SETTINGS)) == {"a", "b"}


def test_too_many_values_and_long_texts_are_refused(tmp_path: Path) -> None:
    many = tmp_path / "many.json"
    many.write_text("[" + ",".join("1" * 11) + "]")
    with pytest.raises(BadFile, match="more than 10 values"):
        load_json(many, SMALL)
    long = tmp_path / "long.json"
    long.write_text('{"a": "123456789"}')
    with pytest.raises(BadFile, match="longer than 8"):
        load_json(long, SMALL)


def test_a_write_inside_its_folder_is_checked(tmp_path: Path) -> None:
    folder = tmp_path / "packs"
    folder.mkdir()
    assert inside(folder, folder / "mine" / "pack.toml") == (folder / "mine/pack.toml").resolve()
    for escape in (folder / ".." / "x", Path("/etc/passwd"), folder / "a/../../b"):
        with pytest.raises(BadFile, match="outside"):
            inside(folder, escape)
    (folder / "out").symlink_to(tmp_path)
    with pytest.raises(BadFile, match="outside"):
        inside(folder, folder / "out" / "x")


@pytest.mark.parametrize("odd", ["fifo", "dev-zero", "dangling"])
def test_a_model_folder_with_a_pipe_a_device_or_a_dangling_link_is_refused(
    tmp_path: Path, odd: str
) -> None:
    """Vosk reads every file of its folder whole and blocking: a named pipe in it would
    hang `mic-test` and `play --input voice` for ever, /dev/zero fill the memory."""
    from narrator.listen.vosk_asr import model_problem

    folder = tmp_path / "vosk-model-small-en-us-0.15"
    for part in ("am/final.mdl", "graph/HCLr.fst", "graph/Gr.fst"):
        (folder / part).parent.mkdir(parents=True, exist_ok=True)
        (folder / part).write_bytes(b"x")
    assert model_problem(folder) is None
    conf = folder / "conf" / "model.conf"
    conf.parent.mkdir()
    if odd == "fifo":
        os.mkfifo(conf)
    else:
        conf.symlink_to("/dev/zero" if odd == "dev-zero" else tmp_path / "nothing")
    problem = model_problem(folder)
    assert problem is not None and "model.conf" in problem


def test_a_whole_write_goes_through_no_link_planted_at_its_part(tmp_path: Path) -> None:
    folder, outside = tmp_path / "in", tmp_path / "outside"
    folder.mkdir()
    outside.write_text("theirs")
    (folder / f".a.json{PART}").symlink_to(outside)
    write_whole(folder / "a.json", b"ours")
    assert outside.read_text() == "theirs"  # untouched
    assert not (folder / "a.json").is_symlink()
    assert (folder / "a.json").read_bytes() == b"ours"
    assert sorted(p.name for p in folder.iterdir()) == ["a.json"]  # no part left


def test_a_whole_write_that_fails_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"old")
    (tmp_path / f".a.json{PART}").mkdir()  # the part cannot be made
    with pytest.raises(OSError):
        write_whole(path, b"new")
    assert path.read_bytes() == b"old"


@pytest.mark.parametrize("named", [False, True])
def test_a_write_beside_goes_through_no_link_planted_at_its_part(
    tmp_path: Path, named: bool
) -> None:
    folder, outside = tmp_path / "in", tmp_path / "outside"
    folder.mkdir()
    outside.write_text("theirs")
    part = folder / (".a.svg.mine" if named else f".a.svg{PART}")
    part.symlink_to(outside)
    # a writer that follows links, as a library's writer does
    write_beside(folder / "a.svg", lambda at: at.write_text("ours"), part if named else None)
    assert outside.read_text() == "theirs"
    assert (folder / "a.svg").read_text() == "ours" and not (folder / "a.svg").is_symlink()
    assert sorted(p.name for p in folder.iterdir()) == ["a.svg"]


def test_a_write_beside_that_fails_halfway_leaves_the_old_file_and_no_part(tmp_path: Path) -> None:
    path = tmp_path / "a.svg"
    path.write_text("old")

    def half(at: Path) -> None:
        at.write_text("ne")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_beside(path, half)
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg"]
