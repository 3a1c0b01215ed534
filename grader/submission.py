"""What is graded: a submission (a file, a folder or a zip), laid out with the module at its top, and its hash.

A notebook (.ipynb) may stand for the module anywhere: as the file itself, or in a folder or zip
under the module's stem (alpha_beta.ipynb for alpha_beta.py). It is turned into the module here,
before any worker starts, so the sandbox only ever sees a .py file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.notebook import NOTEBOOK_SUFFIX, NotANotebook, NotebookModule, notebook_module, notebook_name
from grader.source_map import SourceMap

# A submission folder is copied for every worker; a bigger one is not a submission.
MAX_SUBMISSION_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Submission:
    """What is being graded: a file, a folder or a zip, and how the report names it."""

    path: Path
    shown_as: str


def derive_seed(exercise_id: str, sha256: str) -> int:
    """The default seed: the same code always draws the same inputs, and any edit draws new ones."""
    return int.from_bytes(hashlib.sha256(f"{exercise_id}:{sha256}".encode()).digest()[:4], "big")


def _copy_tree(source: Path, target: Path, limit: int = MAX_SUBMISSION_BYTES) -> None:
    """Copy regular files only: a symlink could make root copy a file the student may not read."""
    total = 0
    for folder, dirs, files in os.walk(source, followlinks=False):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git")]
        relative = Path(folder).relative_to(source)
        (target / relative).mkdir(parents=True, exist_ok=True)
        for name in files:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            total += path.stat().st_size
            if total > limit:
                raise SubmissionProblem(f"the submission folder holds more than {limit // 2**20} MiB")
            shutil.copyfile(path, target / relative / name)


class SubmissionProblem(Exception):
    """A submission that cannot be graded; it becomes a report with status error."""


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


def _unpack_zip(path: Path, module: str, target: Path) -> str:
    """Extract the folder of the zip that holds the module (or its notebook), refusing unsafe or oversized
    members; return the name of the file found, the module's or the notebook's."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            found = _shallowest([PurePosixPath(m.filename) for m in members], module)
            if found is None:
                raise SubmissionProblem(f"{path.name} has no {_missing(module)}")
            base = found.parent
            total = 0
            for member in members:
                name = PurePosixPath(member.filename)
                if name.is_absolute() or ".." in name.parts or base not in (name.parent, *name.parents):
                    continue
                total += member.file_size
                if total > MAX_SUBMISSION_BYTES:
                    raise SubmissionProblem(f"{path.name} unpacks to more than {MAX_SUBMISSION_BYTES // 2**20} MiB")
                destination = target / name.relative_to(base)
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(archive.read(member))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as exc:
        raise SubmissionProblem(f"{path.name} is not a readable zip file: {exc}") from None
    return found.name


def _write_module(notebook: Path, shown_as: str, target: Path) -> NotebookModule:
    """Turn a notebook into the module it holds, written to `target`."""
    # Parsed in the grading process, before any limit of a worker's applies; outputs (plots) make it big.
    if notebook.stat().st_size > MAX_SUBMISSION_BYTES:
        raise SubmissionProblem(f"{shown_as} holds more than {MAX_SUBMISSION_BYTES // 2**20} MiB; "
                                "clear its outputs and hand it in again")
    try:
        made = notebook_module(notebook.read_bytes(), shown_as)
    except NotANotebook as exc:
        raise SubmissionProblem(str(exc)) from None
    target.write_text(made.source, encoding="utf-8")
    return made


def prepare_submission(submission: Path, module: str, target: Path, given: tuple[Path, ...] = ()) -> Layout:
    """Lay the submission out in `target` with the module at its top; raise SubmissionProblem if impossible.

    The exercise's `given` modules (its rules, say) are laid beside the module from the kit.
    """
    target.mkdir()
    layout = _lay_out(submission, module, target)
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
    if submission.is_dir():
        names = [*submission.rglob(module), *submission.rglob(notebook_name(module))]
        found = _shallowest([PurePosixPath(p.relative_to(submission).as_posix()) for p in names], module)
        if found is None:
            raise SubmissionProblem(f"the submission folder has no {_missing(module)}")
        _copy_tree(submission / found.parent, target)
        chosen = found.name
    elif zipfile.is_zipfile(submission) or submission.suffix.lower() == ".zip":
        chosen = _unpack_zip(submission, module, target)
    elif submission.suffix.lower() == NOTEBOOK_SUFFIX:
        made = _write_module(submission, submission.name, target / module)
        return Layout(SourceMap(submission.name, made.cells), made)
    else:
        shutil.copyfile(submission, target / module)
        chosen = module
    layout = Layout(SourceMap(module))
    if chosen != module:  # the notebook of a folder or zip: the worker gets only the module made from it
        made = _write_module(target / chosen, chosen, target / module)
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
    """What a submission that cannot be laid out is known by: its file's sha256 (a folder has none)."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _tree_digest(folder: Path) -> hashlib._Hash:
    """A sha256 over every file below `folder`: each one's relative path and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest


def submission_fingerprint(path: Path, module: str) -> str:
    """A sha256 of all of a submission that a grade sees: every file laid out, and how a notebook's lines are named.

    A notebook is fingerprinted by the module made from it, so new outputs with the same code
    change nothing; a submission that cannot be laid out, by all of what was handed in.
    """
    with tempfile.TemporaryDirectory(prefix="minimax-kit-layout-") as scratch:
        target = Path(scratch) / "submission"
        try:
            layout = prepare_submission(path, module, target)
        except SubmissionProblem:
            return (_tree_digest(path) if path.is_dir() else hashlib.sha256(path.read_bytes())).hexdigest()
        digest = _tree_digest(target)
        digest.update(repr(sorted(layout.source_map.as_data().items())).encode())
        return digest.hexdigest()
