"""Reading what a student handed in: no link is followed, and every limit is checked before a byte is read.

A class folder is filled by students, so anything in it may be hostile: a FIFO that blocks its
reader forever, a device that never ends, a link to a file only root may read, a zip of a hundred
thousand members. Each reader here looks first (lstat, fstat, a zip's end record), refuses in one
line what is past a limit, and only then reads, within that limit.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Self

# A submission is copied into every worker, whose disk is a small tmpfs (namespaces.WORK_MB):
# past this it is not a course's work.
MAX_SUBMISSION_BYTES = 16 * 2**20
# Files in a submission folder, or members in a zip. An exercise needs a handful; each one costs
# a copy, and an inode of the worker's tmpfs (namespaces.WORK_INODES).
MAX_FILES = 1000
# Folders within folders in a submission folder: each level is walked by opening its folders one
# by one from the top, so that a link swapped in mid-walk is never followed.
MAX_DEPTH = 32
# A zip's central directory, read whole by zipfile before any member: room for MAX_FILES members
# with long names and extra fields, and no more.
MAX_DIRECTORY_BYTES = 4 * 2**20
# Folders a walk leaves out: tools' records, not the student's work.
SKIPPED_FOLDERS = frozenset({"__pycache__", ".git"})
# What a read asks for at a time: memory stays flat whatever a file's size.
CHUNK_BYTES = 2**20

_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # O_NONBLOCK: a FIFO never blocks the open
_OPEN_FOLDER = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


class SubmissionProblem(Exception):
    """A submission that cannot be graded; it becomes a report with status error."""


def mib(limit: int) -> str:
    """A byte limit as the one-line errors say it: "16 MiB"."""
    return f"{limit // 2**20} MiB"


def kind_of(mode: int) -> str:
    """What a file of this mode is, in words: "a FIFO (named pipe)", "a folder", "a file"."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    return _KINDS.get(stat.S_IFMT(mode), "an unknown kind of file")


def entry_mode(path: Path, shown: str) -> int:
    """The mode of a submission's own path, by lstat: a regular file or a folder, else a one-line problem.

    Nothing is opened first: opening a FIFO blocks, and opening a device may do what the device does.
    A link is not followed, even to a file in the class folder: a link to the reference solution,
    or to /etc/shadow, would be read with the grader's rights, not the student's.
    """
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise SubmissionProblem(f"{shown} cannot be read: {exc.strerror}") from None
    if stat.S_ISLNK(mode):
        raise SubmissionProblem(f"{shown} is a symbolic link; links are not followed, so hand in the file or "
                                "folder itself")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise SubmissionProblem(f"{shown} is {kind_of(mode)}, not a file or a folder")
    return mode


def open_file(name: str | Path, shown: str, *, folder: int | None = None) -> IO[bytes]:
    """A regular file opened for reading without following a link (relative to the open `folder`, if given)."""
    try:
        descriptor = os.open(name, _OPEN_FILE, dir_fd=folder)
    except OSError as exc:
        raise SubmissionProblem(f"{shown} cannot be read: {exc.strerror}") from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise SubmissionProblem(f"{shown} is {kind_of(mode)}, not a file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def read_within(handle: IO[bytes], shown: str, limit: int = MAX_SUBMISSION_BYTES) -> bytes:
    """All of an open file, refused in one line if its size, before or during the read, passes `limit`."""
    if os.fstat(handle.fileno()).st_size > limit:
        raise SubmissionProblem(f"{shown} holds more than {mib(limit)}")
    data = handle.read(limit + 1)  # one byte past the limit: a file that grew after fstat is caught too
    if len(data) > limit:
        raise SubmissionProblem(f"{shown} holds more than {mib(limit)}")
    return data


def read_file(path: Path, shown: str, limit: int = MAX_SUBMISSION_BYTES) -> bytes:
    """A regular file's bytes, checked against `limit` before they are read."""
    with open_file(path, shown) as handle:
        return read_within(handle, shown, limit)


def copy_within(source: IO[bytes], target: Path, limit: int, too_big: str) -> int:
    """Copy an open file to `target` in chunks, at most `limit` bytes, else SubmissionProblem(too_big); the bytes."""
    copied = 0
    with open(target, "xb") as out:  # "x": the fresh layout folder holds nothing that could be a link
        while chunk := source.read(min(CHUNK_BYTES, limit - copied + 1)):
            copied += len(chunk)
            if copied > limit:
                raise SubmissionProblem(too_big)
            out.write(chunk)
    return copied


def file_sha256(path: Path, limit: int = MAX_SUBMISSION_BYTES) -> str | None:
    """A regular file's sha256, read in chunks, or None if it is not one or is past `limit`."""
    try:
        with open_file(path, path.name) as handle:
            if os.fstat(handle.fileno()).st_size > limit:
                return None
            digest = hashlib.sha256()
            while chunk := handle.read(CHUNK_BYTES):
                digest.update(chunk)
            return digest.hexdigest()
    except SubmissionProblem:
        return None


# -- folders


@dataclass(frozen=True)
class FolderFile:
    """A regular file below a submission folder: where, relative to the folder, and how big when listed."""

    relative: PurePosixPath
    size: int
    modified_ns: int


def _open_below(root: int, parts: tuple[str, ...], shown: str) -> int:
    """A folder below the open `root`, opened one level at a time so that no level may be a link."""
    descriptor = os.dup(root)
    try:
        for part in parts:
            below = os.open(part, _OPEN_FOLDER, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = below
    except OSError as exc:
        os.close(descriptor)
        raise SubmissionProblem(f"{shown}/{'/'.join(parts)} cannot be read: {exc.strerror}") from None
    return descriptor


class OpenFolder:
    """A submission folder held open: its files listed by lstat, and each read below the open folder."""

    def __init__(self, path: Path, shown: str):
        self.shown = shown
        try:
            self.root = os.open(path, _OPEN_FOLDER)
        except OSError as exc:
            raise SubmissionProblem(f"{shown} cannot be read: {exc.strerror}") from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        os.close(self.root)

    def files(self) -> list[FolderFile]:
        """Every regular file below, in order; links and other kinds are left out, and nothing is opened."""
        found: list[FolderFile] = []
        pending: list[tuple[str, ...]] = [()]
        while pending:
            parts = pending.pop()
            descriptor = _open_below(self.root, parts, self.shown)
            try:
                with os.scandir(descriptor) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False) and entry.name not in SKIPPED_FOLDERS:
                            if len(parts) >= MAX_DEPTH:
                                raise SubmissionProblem(f"{self.shown} has folders more than {MAX_DEPTH} deep")
                            pending.append((*parts, entry.name))
                        elif entry.is_file(follow_symlinks=False):
                            facts = entry.stat(follow_symlinks=False)
                            found.append(FolderFile(PurePosixPath(*parts, entry.name), facts.st_size,
                                                    facts.st_mtime_ns))
                            if len(found) > MAX_FILES:
                                raise SubmissionProblem(f"{self.shown} holds more than {MAX_FILES} files")
            finally:
                os.close(descriptor)
        return sorted(found, key=lambda file: file.relative.parts)

    def open(self, relative: PurePosixPath) -> IO[bytes]:
        """A file below the folder, opened without following a link at any level."""
        descriptor = _open_below(self.root, relative.parts[:-1], self.shown)
        try:
            return open_file(relative.name, f"{self.shown}/{relative}", folder=descriptor)
        finally:
            os.close(descriptor)


# -- zips


_END = b"PK\x05\x06"
_END_SIZE = 22
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_END = b"PK\x06\x06"


def _zip64_directory(handle: IO[bytes], locator_at: int) -> tuple[int, int] | None:
    """Members and central-directory bytes from a ZIP64 end record, found through its locator."""
    handle.seek(locator_at)
    locator = handle.read(20)
    if len(locator) < 20 or locator[:4] != _ZIP64_LOCATOR:
        return None
    handle.seek(struct.unpack("<Q", locator[8:16])[0])
    record = handle.read(56)
    if len(record) < 56 or record[:4] != _ZIP64_END:
        return None
    return struct.unpack("<Q", record[32:40])[0], struct.unpack("<Q", record[40:48])[0]


def zip_directory(handle: IO[bytes]) -> tuple[int, int] | None:
    """A zip's member count and central-directory size, from its end record alone; None if it has none.

    zipfile reads the whole central directory when it opens a zip, so these are checked first
    (the end record is the last 22 bytes, before a comment of at most 64 KiB).
    """
    size = os.fstat(handle.fileno()).st_size
    tail_size = min(size, _END_SIZE + 0xFFFF)
    handle.seek(size - tail_size)
    tail = handle.read(tail_size)
    at = tail.rfind(_END)
    if at < 0 or len(tail) - at < _END_SIZE:
        return None
    members, directory = struct.unpack("<HI", tail[at + 10: at + 16])
    if members == 0xFFFF or directory == 0xFFFFFFFF:  # ZIP64: the counts are in a record before this one
        return _zip64_directory(handle, size - tail_size + at - 20)
    return members, directory


def looks_like_zip(handle: IO[bytes]) -> bool:
    """Whether an open file begins as a zip does (a local header, or the end record of an empty zip)."""
    handle.seek(0)
    start = handle.read(4)
    handle.seek(0)
    return start in (b"PK\x03\x04", _END)
