"""grader/text.py: truncation, and a text file written whole or not at all."""

from __future__ import annotations

import pytest

from grader.text import truncate, write_bytes_atomically, write_text_atomically


def test_truncate_keeps_short_text_and_marks_a_cut():
    assert truncate("abc", 5) == "abc" and truncate(None, 5) is None
    assert truncate("abcdefghij", 8, "..") == "abcdef.."


def test_a_file_is_replaced_whole_and_a_failed_write_leaves_the_old_one_and_no_temporary(tmp_path):
    path = tmp_path / "table.csv"
    write_text_atomically(path, "old\n")
    write_text_atomically(path, "new,\r\nrow\n")
    assert path.read_bytes() == b"new,\r\nrow\n"  # written as given: no newline translation for CSV's \r\n
    with pytest.raises(TypeError):  # fails half-way: the temporary file is open
        write_bytes_atomically(path, 42)
    assert path.read_bytes() == b"new,\r\nrow\n"
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]
