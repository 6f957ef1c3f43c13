"""The one reader of input files (models/files.py): what it refuses, in one line."""

import json
import os

import pytest

from models.board import load_board
from models.design import load_design
from models.errors import InputError
from models.files import (
    MAX_FILE_BYTES,
    MAX_INT_DIGITS,
    MAX_NESTING,
    check_input_file,
    parse_json,
    parse_toml,
    read_json,
    read_text,
    resolve_named_file,
)
from models.layout import load_layout


def one_line(excinfo) -> str:
    text = str(excinfo.value)
    assert "\n" not in text
    return text


def test_devices_fifos_and_folders_are_refused_without_reading_them(tmp_path):
    with pytest.raises(InputError, match="not a regular file") as excinfo:
        load_layout("/dev/zero")  # would read until memory runs out
    one_line(excinfo)
    with pytest.raises(InputError, match="not a regular file"):
        read_text("/dev/urandom", "record")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(InputError, match="not a regular file"):
        load_layout(fifo)
    with pytest.raises(InputError, match="is a folder"):
        load_board(str(tmp_path) + "/")
    with pytest.raises(InputError, match="is a folder"):
        check_input_file(tmp_path, "table")


def test_files_over_their_kinds_cap_are_refused_and_the_cap_is_named(tmp_path):
    big = tmp_path / "big.json"
    big.write_text('{"stacks": {}}' + " " * MAX_FILE_BYTES["layout"])
    with pytest.raises(InputError, match="larger than 256 KiB, the most a layout file may be"):
        load_layout(big)
    # the same bytes are a small record: caps go by kind
    assert read_json(big, "record") == {"stacks": {}}
    with pytest.raises(InputError, match="larger than 1 KiB"):
        check_input_file(big, "table", max_bytes=1024)


def test_undecodable_bytes_are_refused(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "K\xfcken"\n')
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xfc at offset 9\)"):
        load_design(path)


def test_over_long_and_nul_paths_are_refused(tmp_path):
    for loader in (load_board, load_design, load_layout):
        with pytest.raises(InputError, match="too long") as excinfo:
            loader("x" * 5000)
        assert len(one_line(excinfo)) < 200
    with pytest.raises(InputError, match="too long"):
        load_board(str(tmp_path) + "/" + "y" * 300 + ".toml")
    with pytest.raises(InputError, match="NUL"):
        load_layout("a\0b.json")


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"a":' * (MAX_NESTING + 1) + "1" + "}" * (MAX_NESTING + 1)],
)
def test_deep_json_is_refused(text):
    with pytest.raises(InputError, match=f"nested more than {MAX_NESTING} levels"):
        parse_json(text, "record x")


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000 + "]" * 100_000,
        "a = " + "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1),
    ],
)
def test_deep_toml_is_refused(text):
    with pytest.raises(InputError, match=f"nested more than {MAX_NESTING} levels"):
        parse_toml(text, "board x")


def test_json_nested_to_the_limit_is_read():
    text = '{"a":' * (MAX_NESTING - 1) + "[1]" + "}" * (MAX_NESTING - 1)
    value = parse_json(text, "record x")
    for _ in range(MAX_NESTING - 1):
        value = value["a"]
    assert value == [1]


def test_the_formats_own_nesting_passes():
    assert parse_toml("fences = [[[1, 3], [2, 3]]]", "board x")["fences"] == [[[1, 3], [2, 3]]]


@pytest.mark.parametrize("digits", [MAX_INT_DIGITS + 1, 5000, 100_000])
def test_integers_with_too_many_digits_are_refused(digits):
    with pytest.raises(InputError, match="digits"):
        parse_json('{"seed": ' + "9" * digits + "}", "record x")
    with pytest.raises(InputError, match="digits"):
        parse_toml("rows = " + "9" * digits, "board x")
    assert parse_json("[" + "9" * MAX_INT_DIGITS + "]", "x") == [10**MAX_INT_DIGITS - 1]


def test_repeated_json_keys_are_refused_at_any_depth():
    with pytest.raises(InputError, match="key 'r8c3' appears twice"):
        parse_json('{"stacks": {"r8c3": ["gold-1"], "r8c3": ["pink-1"]}}', "layout x")
    with pytest.raises(InputError, match="key 'game' appears twice"):
        parse_json('{"game": "pig_out", "game": "woolfy"}', "record x")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_are_refused(constant):
    with pytest.raises(InputError, match=f"{constant} is not allowed"):
        parse_json(f'{{"p_target": {constant}}}', "table x")


def test_layout_file_errors_are_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON") as excinfo:
        load_layout(path)
    one_line(excinfo)
    path.write_text(json.dumps({"stacks": {"r8c3\n\x1b[31m": ["gold-1"]}}))
    with pytest.raises(InputError, match=r"'r8c3\\n\\x1b\[31m' is not a space name") as excinfo:
        load_layout(path)
    one_line(excinfo)


def test_a_file_named_by_a_record_may_be_only_beside_it(tmp_path):
    from models.board import BOARDS_DIR

    (tmp_path / "mine.toml").write_text("")
    assert (
        resolve_named_file("stock", BOARDS_DIR, "board", tmp_path, only_beside=True).name
        == "stock.toml"
    )
    assert (
        resolve_named_file("mine.toml", BOARDS_DIR, "board", tmp_path, only_beside=True)
        == tmp_path / "mine.toml"
    )
    for path in ("../mine.toml", "/etc/passwd", "sub/mine.toml"):
        with pytest.raises(InputError, match="nor a file name beside"):
            resolve_named_file(path, BOARDS_DIR, "board", tmp_path, only_beside=True)


def test_check_input_file_refuses_what_read_bytes_refuses_without_reading(tmp_path):
    fifo = tmp_path / "table.parquet"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        check_input_file(fifo, "table")
    with pytest.raises(InputError, match="does not exist"):
        check_input_file(tmp_path / "missing.parquet", "table")
    small = tmp_path / "small.parquet"
    small.write_bytes(b"PAR1")
    assert check_input_file(small, "table") == small
