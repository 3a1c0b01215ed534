"""A corpus of bad class entries: each graded beside a correct student, as a careless or hostile student leaves it.

Whatever an entry is, the batch finishes, the correct students keep full marks, the class's files
are written, and the bad entry gets its own error report with a one-line reason.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import socket
import stat
import subprocess
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.submission_files import MAX_DEPTH, MAX_FILES
from tests.conftest import REPO, run_grade

GOLDEN = REPO / "tests" / "golden"
FULL = (GOLDEN / "full_solution" / "toy.py").read_text(encoding="utf-8")
FULL_MARKS = "8"


@dataclass(frozen=True)
class BadEntry:
    """One entry of the class folder, how to make it, the student it stands for and what its report must say."""

    student: str
    make: Callable[[Path, Path], None]
    """Made in (class folder, the kit's root)."""
    words: str


def _zip(path: Path, members: list[tuple[str, str]]) -> None:
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as archive:
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns of a name written twice, which is the point
        for name, data in members:
            archive.writestr(name, data)


def _encrypted_zip(folder: Path, _: Path) -> None:
    work = folder.parent / "eve-work"
    work.mkdir()
    (work / "toy.py").write_text(FULL)
    subprocess.run(["zip", "-q", "-P", "secret", str(folder / "eve.zip"), "toy.py"], cwd=work, check=True)


def _fifo(folder: Path, _: Path) -> None:
    os.mkfifo(folder / "fifo.py")


def _socket(folder: Path, _: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "sock.py"))
    server.close()  # the socket file stays, as a crashed program leaves it


def _device(folder: Path, _: Path) -> None:
    os.mknod(folder / "zero.py", stat.S_IFCHR | 0o666, os.makedev(1, 5))  # /dev/zero's numbers


def _deep_folder(folder: Path, _: Path) -> None:
    deep = folder / "deep" / Path(*["d"] * (MAX_DEPTH + 1))
    deep.mkdir(parents=True)
    (folder / "deep" / "toy.py").write_text(FULL)


def _many_files(folder: Path, _: Path) -> None:
    (folder / "many").mkdir()
    (folder / "many" / "toy.py").write_text(FULL)
    for number in range(MAX_FILES):
        (folder / "many" / f"{number}.txt").touch()


def _big_data_file(folder: Path, _: Path) -> None:
    (folder / "huge").mkdir()
    (folder / "huge" / "toy.py").write_text(FULL)
    with open(folder / "huge" / "data.bin", "wb") as handle:
        handle.truncate(3 * 2**30)  # sparse: 3 GiB as lstat says it, nothing on disk


def _big_module(folder: Path, _: Path) -> None:
    with open(folder / "vast.py", "wb") as handle:
        handle.truncate(3 * 2**30)


def _folder_of(name: str, text: str = FULL) -> Callable[[Path, Path], None]:
    def make(folder: Path, _: Path) -> None:
        (folder / name).mkdir()
        (folder / name / "toy.py").write_text(text)
    return make


def _file_of(name: str, text: str = FULL) -> Callable[[Path, Path], None]:
    return lambda folder, _: (folder / name).write_text(text)


def _zip_of(name: str, members: list[tuple[str, str]]) -> Callable[[Path, Path], None]:
    return lambda folder, _: _zip(folder / name, members)


def _link(name: str, to: Callable[[Path, Path], Path]) -> Callable[[Path, Path], None]:
    return lambda folder, kit: (folder / name).symlink_to(to(folder, kit))


def _duplicate(folder: Path, _: Path) -> None:
    (folder / "twin.py").write_text(FULL)
    _folder_of("twin")(folder, _)


def _non_utf8_name(folder: Path, _: Path) -> None:
    with open(os.path.join(os.fsencode(folder), b"\xff.py"), "w", encoding="utf-8") as handle:
        handle.write(FULL)


CORPUS = [
    BadEntry("eve", _encrypted_zip, "eve.zip is encrypted (a zip with a password); zip it again without one"),
    BadEntry("clash", _zip_of("clash.zip", [("toy.py", FULL), ("toy.py/x", "x")]),
             "clash.zip holds both a file and a folder named toy.py"),
    BadEntry("longname", _zip_of("longname.zip", [("toy.py", FULL), ("n" * 300 + ".py", "x")]),
             "longname.zip holds a name longer than 255 bytes"),
    # Each name part within NAME_MAX and the depth within the limit, but the whole path past PATH_MAX: the
    # kernel's refusal is no refusal of the kit's own, so it stands for any unexpected error of a layout.
    BadEntry("longpath", _zip_of("longpath.zip", [("toy.py", FULL), ("/".join(["p" * 250] * 20) + ".py", "x")]),
             "longpath.zip could not be laid out: OSError: File name too long"),
    BadEntry("twice", _zip_of("twice.zip", [("toy.py", FULL), ("toy.py", "X = 1\n")]), "twice.zip holds toy.py twice"),
    BadEntry("crowd", _zip_of("crowd.zip", [("toy.py", FULL), *((f"{n}.txt", "") for n in range(MAX_FILES))]),
             f"crowd.zip holds {MAX_FILES + 1:,} files; a submission may hold at most {MAX_FILES:,}"),
    BadEntry("brackets", _file_of("brackets.ipynb", "[" * 400_000),
             "brackets.ipynb is not a notebook: its JSON nests more than 64 levels deep"),
    BadEntry("metadata", _file_of("metadata.ipynb", '{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": '
                                  + '{"a": ' * 900 + "1" + "}" * 900 + "}"),
             "metadata.ipynb is not a notebook: its JSON nests more than 64 levels deep"),
    BadEntry("fifo", _fifo, "fifo.py is a FIFO (named pipe), not a file or a folder"),
    BadEntry("sock", _socket, "sock.py is a socket, not a file or a folder"),
    BadEntry("zero", _device, "zero.py is a character device, not a file or a folder"),
    BadEntry("grades.csv", _folder_of("grades.csv"), ""),
    BadEntry("report.html", _file_of("report.html.py"), ""),
    BadEntry("students", _folder_of("students"), ""),
    BadEntry("huge", _big_data_file, "the submission folder holds more than 16 MiB"),
    BadEntry("vast", _big_module, "vast.py holds more than 16 MiB"),
    BadEntry("deep", _deep_folder, f"the submission folder has folders more than {MAX_DEPTH} deep"),
    BadEntry("many", _many_files, f"the submission folder holds more than {MAX_FILES} files"),
    BadEntry("mal", _link("mal.py", lambda _, kit: kit / "solutions" / "ex01_toy" / "toy.py"),
             "mal.py is a symbolic link; links are not followed, so hand in the file or folder itself"),
    BadEntry("shadow", _link("shadow.py", lambda *_: Path("/etc/shadow")),
             "shadow.py is a symbolic link; links are not followed"),
    BadEntry("bob", _link("bob", lambda folder, _: folder / "alice"), "bob is a symbolic link"),
    BadEntry("twin", _duplicate, "more than one submission for twin: twin, twin.py"),
    BadEntry("=cmd|' -c calc'!A0", _file_of("=cmd|' -c calc'!A0.py"), ""),
    BadEntry("\\xff", _non_utf8_name, ""),
]


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path, Path]:
    """The whole corpus graded in one class beside alice, who is correct: (the run, the class, OUT)."""
    if shutil.which("zip") is None:
        pytest.skip("the encrypted zip is made with Info-ZIP's zip -P (Debian's zip package), which is missing")
    root = tmp_path_factory.mktemp("bad-entries")
    kit = root / "kit"
    shutil.copytree(REPO / "tests" / "fixtures" / "kit", kit, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    folder = root / "class"
    (folder / "alice").mkdir(parents=True)
    (folder / "alice" / "toy.py").write_text(FULL)
    for entry in CORPUS:
        if entry.make is _device and os.geteuid() != 0:
            continue  # only root may make a device node
        entry.make(folder, kit)
    out = root / "marks"
    scratch = root / "tmp"  # the grader's own scratch folders, which must all be gone when it ends
    scratch.mkdir()
    result = run_grade("batch", str(folder), "--exercise", "ex01", "--jobs", "2", "--out", str(out), cwd=kit,
                       env={"TMPDIR": str(scratch)})
    return result, folder, out


def _expected(entry: BadEntry) -> bool:
    return not (entry.make is _device and os.geteuid() != 0)


def test_the_batch_finishes_and_writes_every_class_file(graded_class):
    result, _, out = graded_class
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    for name in ("grades.csv", "report.html", "checks.csv", "similar.csv"):
        assert (out / name).is_file(), name
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {row[0]: row for row in csv.reader(handle)}
    assert rows["alice"][1:] == [FULL_MARKS, FULL_MARKS]
    expected = {"alice"} | {entry.student for entry in CORPUS if _expected(entry)}
    shown = {name.removeprefix("'") for name in rows} - {"student"}  # a guarded cell starts with '
    assert shown == expected


@pytest.mark.parametrize("entry", [entry for entry in CORPUS if entry.words], ids=lambda entry: entry.student)
def test_a_bad_entry_gets_its_own_one_line_error_report(graded_class, entry):
    if not _expected(entry):
        pytest.skip("only root may make a device node")
    _, _, out = graded_class
    report = json.loads((out / "students" / entry.student / "ex01.json").read_text(encoding="utf-8"))
    assert report["status"] == "error" and report["score"] == 0
    assert entry.words in report["message"] and "\n" not in report["message"].strip()


@pytest.mark.parametrize("entry", [entry for entry in CORPUS if not entry.words], ids=lambda entry: entry.student)
def test_an_honest_module_under_an_odd_name_gets_full_marks(graded_class, entry):
    _, _, out = graded_class
    report = json.loads((out / "students" / entry.student / "ex01.json").read_text(encoding="utf-8"))
    assert (report["status"], report["score"]) == ("pass", 8), report["message"]


def test_no_scratch_folder_outlives_the_batch(graded_class):
    _, folder, _ = graded_class
    left = [path.name for path in (folder.parent / "tmp").iterdir()]
    # The leases' lock folders stay by design (grader.sandbox.isolation); nothing else may.
    assert [name for name in left if not name.startswith(("minimax-kit-cpus-", "minimax-kit-uids"))] == []


SINGLE = {"eve": "eve.zip", "clash": "clash.zip", "fifo": "fifo.py", "metadata": "metadata.ipynb", "mal": "mal.py",
          "longpath": "longpath.zip", "vast": "vast.py"}


@pytest.mark.parametrize("student", sorted(SINGLE))
def test_a_single_grade_of_a_bad_entry_gives_the_same_one_line_error_report(graded_class, student):
    _, folder, out = graded_class
    kit = folder.parent / "kit"
    done = run_grade("ex01", "--submission", str(folder / SINGLE[student]), "--output", "-", cwd=kit,
                     env={"TMPDIR": str(folder.parent / "tmp")})
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    alone = json.loads(done.stdout)
    in_class = json.loads((out / "students" / student / "ex01.json").read_text(encoding="utf-8"))
    assert alone["status"] == "error" and alone["message"] == in_class["message"]
