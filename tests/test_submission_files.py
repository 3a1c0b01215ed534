"""The limits on what a student hands in: each checked before anything is read, at its edge and one past it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from grader import submission
from grader.notebook import MAX_NOTEBOOK_DEPTH, NotANotebook, read_notebook
from grader.submission import SubmissionProblem, prepare_submission
from grader.submission_files import (
    MAX_DEPTH,
    MAX_DIRECTORY_BYTES,
    MAX_FILES,
    OpenFolder,
    zip_directory,
)
from tests.conftest import REPO

GOOD = "def add(a, b):\n    return a + b\n"


def _zip(path: Path, members: list[tuple[str, str]], comment: bytes = b"") -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members:
            info = zipfile.ZipInfo(name)
            info.comment = comment
            archive.writestr(info, text)
    return path


def _folder_of_files(place: Path, count: int) -> Path:
    """A folder of `count` files, toy.py among them."""
    place.mkdir()
    (place / "toy.py").write_text(GOOD)
    for number in range(count - 1):
        (place / f"{number}.txt").touch()
    return place


def _laid_out_at_the_limit_refused_past_it(tmp_path: Path, make: Callable[[Path, int], Path], limit: int,
                                           words: str) -> None:
    """What `make` builds at `limit` is laid out; what it builds one past is refused, its problem matching `words`."""
    prepare_submission(make(tmp_path / "at", limit), "toy.py", tmp_path / "at-out")
    with pytest.raises(SubmissionProblem, match=words):
        prepare_submission(make(tmp_path / "past", limit + 1), "toy.py", tmp_path / "past-out")


def test_a_folder_of_max_files_is_laid_out_and_one_more_is_refused(tmp_path):
    _laid_out_at_the_limit_refused_past_it(tmp_path, _folder_of_files, MAX_FILES,
                                           f"^the submission folder holds more than {MAX_FILES} files$")


def test_a_zip_of_max_files_is_laid_out_and_one_more_is_refused(tmp_path):
    members = [("toy.py", GOOD), *((f"{number}.txt", "") for number in range(MAX_FILES - 1))]
    prepare_submission(_zip(tmp_path / "at.zip", members), "toy.py", tmp_path / "at-out")
    with pytest.raises(SubmissionProblem, match=f"^past.zip holds {MAX_FILES + 1:,} files; a submission may hold "
                                                f"at most {MAX_FILES:,}$"):
        prepare_submission(_zip(tmp_path / "past.zip", [*members, ("one-more.txt", "")]), "toy.py",
                           tmp_path / "past-out")


def test_a_zip_is_counted_from_its_end_record_before_zipfile_reads_its_directory(tmp_path, monkeypatch):
    """100,000 empty members in 10 MB: zipfile would build 100,000 records before any count could be taken."""
    archive = _zip(tmp_path / "crowd.zip", [("toy.py", GOOD), *((f"{n}", "") for n in range(MAX_FILES * 100))])
    with open(archive, "rb") as handle:
        assert zip_directory(handle)[0] == MAX_FILES * 100 + 1

    def never(*_, **__):
        raise AssertionError("zipfile read the central directory")

    monkeypatch.setattr(submission.zipfile, "ZipFile", never)
    with pytest.raises(SubmissionProblem, match="crowd.zip holds 100,001 files"):
        prepare_submission(archive, "toy.py", tmp_path / "out")


def _directory_bytes(path: Path) -> int:
    with open(path, "rb") as handle:
        return zip_directory(handle)[1]


def test_a_zip_directory_of_the_limit_is_read_and_one_byte_more_is_refused(tmp_path):
    def made(name: str, extra: int) -> Path:
        comment_size = 65_000  # within the 64 KiB a member's comment may take
        room = MAX_DIRECTORY_BYTES // (comment_size + 60) - 1  # then less than one comment short of the limit
        members = [("toy.py", GOOD), *((f"{n}.txt", "") for n in range(room))]
        path = _zip(tmp_path / name, members, b"c" * comment_size)
        size = _directory_bytes(path)
        with zipfile.ZipFile(path, "a") as archive:  # one more member, whose comment brings it to the limit
            info = zipfile.ZipInfo("last.txt")
            info.comment = b"c" * (MAX_DIRECTORY_BYTES - size - 46 - len("last.txt") + extra)
            archive.writestr(info, "")
        assert _directory_bytes(path) == MAX_DIRECTORY_BYTES + extra
        return path

    prepare_submission(made("at.zip", 0), "toy.py", tmp_path / "at-out")
    with pytest.raises(SubmissionProblem, match="^past.zip lists its files in more than 4 MiB$"):
        prepare_submission(made("past.zip", 1), "toy.py", tmp_path / "past-out")


def _deep_folder(place: Path, depth: int) -> Path:
    (place / Path(*["d"] * depth)).mkdir(parents=True)
    (place / "toy.py").write_text(GOOD)
    return place


def test_folders_max_depth_deep_are_laid_out_and_one_deeper_is_refused(tmp_path):
    _laid_out_at_the_limit_refused_past_it(tmp_path, _deep_folder, MAX_DEPTH,
                                           f"^the submission folder has folders more than {MAX_DEPTH} deep$")


def test_a_zip_member_max_depth_deep_is_laid_out_and_one_deeper_is_refused(tmp_path):
    at = "/".join(["d"] * MAX_DEPTH) + "/x.txt"
    prepare_submission(_zip(tmp_path / "at.zip", [("toy.py", GOOD), (at, "")]), "toy.py", tmp_path / "at-out")
    with pytest.raises(SubmissionProblem, match=f"^past.zip has folders more than {MAX_DEPTH} deep$"):
        prepare_submission(_zip(tmp_path / "past.zip", [("toy.py", GOOD), ("d/" + at, "")]), "toy.py",
                           tmp_path / "past-out")


def test_a_zip_name_of_255_bytes_is_laid_out_and_256_is_refused(tmp_path):
    prepare_submission(_zip(tmp_path / "at.zip", [("toy.py", GOOD), ("é" * 127 + "x", "")]), "toy.py",
                       tmp_path / "at-out")
    with pytest.raises(SubmissionProblem, match="^past.zip holds a name longer than 255 bytes: é"):
        prepare_submission(_zip(tmp_path / "past.zip", [("toy.py", GOOD), ("é" * 128, "")]), "toy.py",
                           tmp_path / "past-out")


def _nested(depth: int) -> bytes:
    """A notebook whose JSON nests `depth` deep: its metadata carries the rest."""
    inner = depth - 2  # the notebook's own object, and its metadata's
    return ('{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {"deep": ' + "[" * inner + "]" * inner
            + "}}").encode()


def test_a_notebook_max_depth_deep_is_read_and_one_deeper_is_refused():
    read_notebook(_nested(MAX_NOTEBOOK_DEPTH), "at.ipynb")
    with pytest.raises(NotANotebook, match=f"^past.ipynb is not a notebook: its JSON nests more than "
                                           f"{MAX_NOTEBOOK_DEPTH} levels deep$"):
        read_notebook(_nested(MAX_NOTEBOOK_DEPTH + 1), "past.ipynb")


def test_brackets_inside_strings_are_text_not_nesting():
    text = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "id": "a", "metadata": {}, "outputs": [],
                                  "execution_count": None, "source": "[" * 500 + '"\\"{' * 100}]})
    assert read_notebook(text.encode(), "strings.ipynb").cells[0].source.startswith("[[[")


@pytest.mark.parametrize("suffix", [".py", ".ipynb"])
def test_a_lone_file_of_the_limit_is_laid_out_and_one_byte_more_is_refused(tmp_path, suffix):
    limit = submission.MAX_SUBMISSION_BYTES
    at, past = tmp_path / f"at{suffix}", tmp_path / f"past{suffix}"
    if suffix == ".py":
        at.write_text(GOOD + "#" * (limit - len(GOOD) - 1) + "\n")
    else:
        source = json.dumps(GOOD)
        head = '{"nbformat": 4, "nbformat_minor": 5, "metadata": {"pad": "'
        tail = ('"}, "cells": [{"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], '
                f'"execution_count": null, "source": {source}}}]}}')
        at.write_text(head + "x" * (limit - len(head) - len(tail)) + tail)
    assert at.stat().st_size == limit
    prepare_submission(at, "toy.py", tmp_path / "at-out")
    past.write_bytes(at.read_bytes() + b"\n")
    with pytest.raises(SubmissionProblem, match=f"^past{suffix} holds more than 16 MiB"):
        prepare_submission(past, "toy.py", tmp_path / "past-out")


def test_a_folder_is_measured_by_lstat_before_any_file_is_opened(tmp_path, monkeypatch):
    (tmp_path / "huge").mkdir()
    (tmp_path / "huge" / "toy.py").write_text(GOOD)
    with open(tmp_path / "huge" / "data.bin", "wb") as handle:
        handle.truncate(3 * 2**30)  # sparse

    def never(*_):
        raise AssertionError("a file was opened")

    monkeypatch.setattr(OpenFolder, "open", never)
    with pytest.raises(SubmissionProblem, match="^the submission folder holds more than 16 MiB$"):
        prepare_submission(tmp_path / "huge", "toy.py", tmp_path / "out")


PEAK_MEMORY = """
import resource, sys
from pathlib import Path
from grader.submission import submission_fingerprint
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
submission_fingerprint(Path(sys.argv[1]), "toy.py")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_the_fingerprint_of_a_3_gib_submission_reads_within_flat_memory(tmp_path, kind):
    """Its peak memory (ru_maxrss, KiB) grows by under 64 MiB for a 3 GiB file: it is never read whole."""
    if kind == "folder":
        (tmp_path / "huge").mkdir()
        (tmp_path / "huge" / "toy.py").write_text(GOOD)
        big = tmp_path / "huge" / "data.bin"
        entry = tmp_path / "huge"
    else:
        big = entry = tmp_path / "vast.py"
    with open(big, "wb") as handle:
        handle.truncate(3 * 2**30)
    done = subprocess.run([sys.executable, "-c", PEAK_MEMORY, str(entry)], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120, check=True)
    assert int(done.stdout) < 64 * 1024
