"""What is graded: a submission (a file, a folder or a zip), laid out with the module at its top, and its hash.

A notebook (.ipynb) may stand for the module anywhere: as the file itself, or in a folder or zip
under the module's stem (alpha_beta.ipynb for alpha_beta.py). It is turned into the module here,
before any worker starts, so the sandbox only ever sees a .py file.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import stat
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from grader.notebook import (
    NOTEBOOK_SUFFIX,
    NotANotebook,
    NotebookModule,
    notebook_module,
    notebook_name,
)
from grader.source_map import SourceMap
from grader.submission_files import (
    MAX_DEPTH,
    MAX_DIRECTORY_BYTES,
    MAX_FILES,
    MAX_SUBMISSION_BYTES,
    OpenFolder,
    SubmissionProblem,
    copy_within,
    entry_mode,
    file_sha256,
    looks_like_zip,
    mib,
    open_file,
    read_file,
    read_within,
    zip_directory,
)

# A line of an unexpected error kept in a submission's one-line problem.
UNEXPECTED_WORDS = 160
# NAME_MAX: a zip member's name part past this cannot be a file here.
MAX_NAME_BYTES = 255

__all__ = [
    "MAX_FILES",
    "MAX_SUBMISSION_BYTES",
    "LaidOut",
    "Layout",
    "Submission",
    "SubmissionProblem",
    "add_given",
    "derive_seed",
    "laid_out",
    "prepare_submission",
    "submission_fingerprint",
    "unusable_submission_sha256",
]


@dataclass(frozen=True)
class Submission:
    """What is being graded: a file, a folder or a zip, and how the report names it.

    `prepared`, if given, is the same submission already laid out (by `laid_out`), which the grade
    then uses instead of laying it out again.
    """

    path: Path
    shown_as: str
    prepared: LaidOut | None = None


def derive_seed(exercise_id: str, sha256: str) -> int:
    """The default seed: the same code always draws the same inputs, and any edit draws new ones."""
    return int.from_bytes(hashlib.sha256(f"{exercise_id}:{sha256}".encode()).digest()[:4], "big")


@dataclass(frozen=True)
class Layout:
    """What prepare_submission laid out: how the report names the module's lines, and the notebook, if any."""

    source_map: SourceMap
    notebook: NotebookModule | None = None

    def report_fields(self) -> dict:
        """What the report's `submission` says besides path and hash: a notebook's cells, when it was one."""
        if self.notebook is None:
            return {}
        return {"notebook": {"file": self.source_map.file, "code_cells": self.notebook.code_cells,
                             "magic_cells": list(self.notebook.magic_cells)}}


def _missing(module: str) -> str:
    return f"{module} (or {notebook_name(module)})"


def _shallowest(names: list[PurePosixPath], module: str) -> PurePosixPath | None:
    """The shallowest file named like the module or its notebook; both in that one folder is a problem."""
    notebook = notebook_name(module)
    matches = [name for name in names if name.name in (module, notebook)]
    if not matches:
        return None
    found = min(matches, key=lambda p: (len(p.parts), str(p)))
    if found.with_name(module) in matches and found.with_name(notebook) in matches:
        folder = f"{found.parent}/" if found.parent.parts else "the submission's top folder"
        raise SubmissionProblem(f"{folder} holds both {module} and {notebook}; keep only the one to be graded")
    return found


def _refuse_members(names: list[PurePosixPath], shown: str) -> None:
    """A zip's chosen members that could not be files here, each a one-line problem before any is unpacked."""
    seen: set[PurePosixPath] = set()
    folders = {parent for name in names for parent in name.parents}
    for name in names:
        if name in seen:
            raise SubmissionProblem(f"{shown} holds {name} twice")
        seen.add(name)
        if name in folders:
            raise SubmissionProblem(f"{shown} holds both a file and a folder named {name}")
        if len(name.parts) > MAX_DEPTH + 1:
            raise SubmissionProblem(f"{shown} has folders more than {MAX_DEPTH} deep")
        longest = max(name.parts, key=lambda part: len(part.encode("utf-8", "surrogateescape")))
        if len(longest.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            raise SubmissionProblem(f"{shown} holds a name longer than {MAX_NAME_BYTES} bytes: {longest[:40]}...")


def _unpack_zip(handle: IO[bytes], shown: str, module: str, target: Path) -> str:
    """Extract the folder of the zip that holds the module (or its notebook), refusing unsafe or oversized
    members before any is read; return the name of the file found, the module's or the notebook's."""
    directory = zip_directory(handle)
    if directory is None:
        raise SubmissionProblem(f"{shown} is not a readable zip file: File is not a zip file")  # zipfile's own words
    members, directory_bytes = directory
    if members > MAX_FILES:
        raise SubmissionProblem(f"{shown} holds {members:,} files; a submission may hold at most {MAX_FILES:,}")
    if directory_bytes > MAX_DIRECTORY_BYTES:
        raise SubmissionProblem(f"{shown} lists its files in more than {mib(MAX_DIRECTORY_BYTES)}")
    try:
        with zipfile.ZipFile(handle) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_FILES:  # the end record undercounted what its directory holds
                raise SubmissionProblem(f"{shown} holds {len(infos):,} files; a submission may hold at most "
                                        f"{MAX_FILES:,}")
            files = [info for info in infos if not info.is_dir()]
            found = _shallowest([PurePosixPath(info.filename) for info in files], module)
            if found is None:
                raise SubmissionProblem(f"{shown} has no {_missing(module)}")
            base = found.parent
            chosen = [(info, PurePosixPath(info.filename)) for info in files]
            chosen = [(info, name) for info, name in chosen
                      if not name.is_absolute() and ".." not in name.parts and base in (name.parent, *name.parents)]
            if any(info.flag_bits & 0x1 for info, _ in chosen):
                raise SubmissionProblem(f"{shown} is encrypted (a zip with a password); zip it again without one")
            _refuse_members([name.relative_to(base) for _, name in chosen], shown)
            too_big = f"{shown} unpacks to more than {mib(MAX_SUBMISSION_BYTES)}"
            if sum(info.file_size for info, _ in chosen) > MAX_SUBMISSION_BYTES:
                raise SubmissionProblem(too_big)
            budget = MAX_SUBMISSION_BYTES
            for info, name in chosen:
                destination = target / name.relative_to(base)
                destination.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as member:
                    budget -= copy_within(member, destination, budget, too_big)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError, zlib.error,
            struct.error) as exc:
        raise SubmissionProblem(f"{shown} is not a readable zip file: {exc}") from None
    return found.name


def _copy_folder(submission: Path, module: str, target: Path) -> str:
    """Copy the folder below `submission` that holds the module (or its notebook), regular files only;
    return the name of the file found. Every size is known from lstat before a byte is copied."""
    shown = "the submission folder"
    with OpenFolder(submission, shown) as folder:
        files = folder.files()
        found = _shallowest([file.relative for file in files], module)
        if found is None:
            raise SubmissionProblem(f"{shown} has no {_missing(module)}")
        base = found.parent
        chosen = [file for file in files if base in file.relative.parents]
        too_big = f"{shown} holds more than {mib(MAX_SUBMISSION_BYTES)}"
        if sum(file.size for file in chosen) > MAX_SUBMISSION_BYTES:
            raise SubmissionProblem(too_big)
        budget = MAX_SUBMISSION_BYTES
        for file in chosen:
            destination = target / file.relative.relative_to(base)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with folder.open(file.relative) as source:
                budget -= copy_within(source, destination, budget, too_big)
    return found.name


def _write_module(data: bytes, shown_as: str, target: Path) -> NotebookModule:
    """Turn a notebook's bytes into the module it holds, written to `target`."""
    try:
        made = notebook_module(data, shown_as)
    except NotANotebook as exc:
        raise SubmissionProblem(str(exc)) from None
    target.write_text(made.source, encoding="utf-8")
    return made


def _notebook_bytes(handle: IO[bytes], shown_as: str) -> bytes:
    """A notebook's bytes; it is parsed in the grading process, before any worker's limit applies."""
    try:
        return read_within(handle, shown_as)
    except SubmissionProblem:  # outputs (plots) are what make a notebook big
        raise SubmissionProblem(f"{shown_as} holds more than {mib(MAX_SUBMISSION_BYTES)}; "
                                "clear its outputs and hand it in again") from None


def prepare_submission(submission: Path, module: str, target: Path, given: tuple[Path, ...] = ()) -> Layout:
    """Lay the submission out in `target` with the module at its top; raise SubmissionProblem if impossible.

    The exercise's `given` modules (its rules, say) are laid beside the module from the kit.
    """
    target.mkdir()
    try:
        layout = _lay_out(submission, module, target)
    except SubmissionProblem:
        raise
    except Exception as exc:
        # A student's file is untrusted input: whatever it makes the layout raise is that student's
        # one-line error report, never the end of a class's batch. An OSError's own words only: its file names are the grader's scratch paths, not the student's.
        text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        words = (text.splitlines() or [""])[0][:UNEXPECTED_WORDS]
        raise SubmissionProblem(f"{submission.name} could not be laid out: {type(exc).__name__}"
                                f"{f': {words}' if words else ''}") from exc
    add_given(given, target)
    return layout


def add_given(given: tuple[Path, ...], target: Path) -> None:
    """Copy the exercise's given modules into `target`, over any file of the same name.

    The kit's copy always wins: a submission that brought its own rules (a heuristic that
    flatters its search, say) would be graded on rules the checks never agreed to.
    """
    for path in given:
        shutil.copyfile(path, target / path.name)


def _lay_out(submission: Path, module: str, target: Path) -> Layout:
    shown = submission.name
    if stat.S_ISDIR(entry_mode(submission, shown)):
        chosen = _copy_folder(submission, module, target)
    else:
        with open_file(submission, shown) as handle:
            if submission.suffix.lower() == ".zip" or looks_like_zip(handle):
                chosen = _unpack_zip(handle, shown, module, target)
            elif submission.suffix.lower() == NOTEBOOK_SUFFIX:
                made = _write_module(_notebook_bytes(handle, shown), shown, target / module)
                return Layout(SourceMap(shown, made.cells), made)
            else:
                copy_within(handle, target / module, MAX_SUBMISSION_BYTES,
                            f"{shown} holds more than {mib(MAX_SUBMISSION_BYTES)}")
                chosen = module
    layout = Layout(SourceMap(module))
    if chosen != module:  # the notebook of a folder or zip: the worker gets only the module made from it
        with open_file(target / chosen, chosen) as handle:
            made = _write_module(_notebook_bytes(handle, chosen), chosen, target / module)
        (target / chosen).unlink()
        layout = Layout(SourceMap(chosen, made.cells), made)
    if not (target / module).is_file():
        raise SubmissionProblem(f"the submission has no {module}")
    _check_source_text(target / module)
    return layout


def _check_source_text(path: Path) -> None:
    """Refuse binary and non-UTF-8 files up front, with a message that says what is wrong and where."""
    data = path.read_bytes()
    if b"\0" in data:
        raise SubmissionProblem(f"{path.name} is not Python source: it contains NUL bytes (is it a binary file?)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SubmissionProblem(
            f"{path.name} line {line}: byte 0x{data[exc.start]:02x} is not UTF-8; save the file as UTF-8"
        ) from None


def unusable_submission_sha256(path: Path) -> str | None:
    """What a submission that cannot be laid out is known by: its file's sha256, if it is a regular
    file within the limit (a folder, a FIFO or a 3 GiB file has none)."""
    return file_sha256(path)


def _stream_digest(digest: hashlib._Hash, path: Path) -> None:
    with open(path, "rb") as handle:  # a file the layout wrote: within the limit, and no link
        while chunk := handle.read(2**20):
            digest.update(chunk)


def _tree_digest(folder: Path) -> hashlib._Hash:
    """A sha256 over every file of a laid-out folder: each one's relative path and bytes, in order, read in chunks."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(path.relative_to(folder).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        _stream_digest(digest, path)
        digest.update(b"\0")
    return digest


def _unusable_fingerprint(path: Path, problem: str) -> str:
    """What a submission that cannot be laid out is known by, read within the limits: a file's sha256 if
    it is a regular file within the limit, else the problem, the entry's lstat and a folder's listing."""
    sha256 = file_sha256(path)
    if sha256 is not None:
        return sha256
    digest = hashlib.sha256(problem.encode("utf-8", "surrogateescape"))
    try:
        facts = path.lstat()
        digest.update(f"{facts.st_mode}:{facts.st_size}:{facts.st_mtime_ns}".encode())
    except OSError as exc:
        digest.update(str(exc.errno).encode())
    if path.is_dir() and not path.is_symlink():
        try:
            with OpenFolder(path, path.name) as folder:
                for file in folder.files():
                    digest.update(f"{file.relative}:{file.size}:{file.modified_ns}\0".encode("utf-8", "surrogateescape"))
        except SubmissionProblem as exc:
            digest.update(str(exc).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


@dataclass(frozen=True)
class LaidOut:
    """A submission laid out once, for a whole grade: the folder and its layout, or the problem; its
    module's sha256 (or the unusable file's), and the fingerprint a batch decides reuse by."""

    folder: Path
    layout: Layout | None
    problem: str | None
    sha256: str | None
    fingerprint: str

    def module_text(self, module: str) -> str | None:
        """The laid-out module's text (UTF-8, as the layout checked), or None if it could not be laid out."""
        return None if self.layout is None else (self.folder / module).read_text(encoding="utf-8")

    def copy_to(self, target: Path, given: tuple[Path, ...]) -> None:
        """The laid-out files in the new folder `target`, with the exercise's given modules beside them."""
        shutil.copytree(self.folder, target, symlinks=True)
        add_given(given, target)


@contextlib.contextmanager
def laid_out(path: Path, module: str) -> Iterator[LaidOut]:
    """The submission at `path` laid out in a scratch folder that lasts while the context does.

    The fingerprint is a sha256 of all of a submission that a grade sees: every file laid out, and
    how a notebook's lines are named. A notebook is fingerprinted by the module made from it, so
    new outputs with the same code change nothing.
    """
    with tempfile.TemporaryDirectory(prefix="minimax-kit-layout-") as scratch:
        target = Path(scratch) / "submission"
        try:
            layout = prepare_submission(path, module, target)
        except SubmissionProblem as exc:
            yield LaidOut(target, None, str(exc), unusable_submission_sha256(path),
                          _unusable_fingerprint(path, str(exc)))
            return
        digest = _tree_digest(target)
        digest.update(repr(sorted(layout.source_map.as_data().items())).encode())
        sha256 = hashlib.sha256(read_file(target / module, module, limit=2 * MAX_SUBMISSION_BYTES)).hexdigest()
        yield LaidOut(target, layout, None, sha256, digest.hexdigest())


def submission_fingerprint(path: Path, module: str) -> str:
    """A sha256 of all of a submission that a grade sees (see `laid_out`)."""
    with laid_out(path, module) as submission:
        return submission.fingerprint
