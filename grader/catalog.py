"""Finding the kit, its exercises and their `exercise.toml` metadata."""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

FORMAT_VERSION = 1
EXERCISE_DIR = re.compile(r"^(ex\d\d)_([a-z][a-z0-9_]*)$")
# Ids have two digits (ex01 to ex99): the report schema, the folder order and the ids' names rely on it.
LONGER_ID = re.compile(r"^ex\d{3,}(_|$)")
ID_RANGE = "exercise ids run from ex01 to ex99"
PUBLIC_CHECKS = "test_public.py"
# An exercise may ship a game for `grade play` in this file beside its stub.
GAME_FILE = "play.py"
# Check helpers that several exercises import live once, in exercises/shared_checks/.
SHARED_CHECKS = "shared_checks"
# A check helper named so is hidden-only: imported by the hidden checks alone, and never shipped.
HIDDEN_HELPER_PREFIX = "hidden_"
# In a handout, what the hidden checks left out were worth (`grade export` writes it into checks/).
WITHHELD_FILE = "withheld.json"
# In a handout, which known mistake answers what on the public checks, as digests (`grade export`
# writes it into the exercise's folder; a kit with its solutions diagnoses from their code).
MISTAKE_DIGESTS_FILE = "known_mistakes.json"


class GradeError(Exception):
    """An error `grade` prints as one line and exits 2 on: a KitError, or the sandbox's SandboxError."""


class KitError(GradeError):
    """A usage error or a fault in the kit itself; the CLI prints it as one line and exits 2."""


@dataclass(frozen=True)
class Exercise:
    """One exercise, as its folder and `exercise.toml` describe it."""

    format_version: int
    """Version of the exercise.toml format; only 1 exists."""
    id: str
    """Short id such as "ex04"; must match the folder name."""
    slug: str
    """Folder suffix such as "alpha_beta"; must match the folder name."""
    title: str
    """Human title such as "Alpha-beta pruning"."""
    module: str
    """The file the student edits, such as "alpha_beta.py"."""
    functions: tuple[str, ...]
    """Names the checks call; the grader reports any the submission lacks."""
    call_timeout: float
    """Seconds allowed for one call into student code."""
    check_timeout: float
    """Seconds allowed for one whole check (pytest-timeout)."""
    memory_mb: int
    """Address-space limit of the sandbox worker, in MiB."""
    hints: tuple[str, ...]
    """Progressive hints, first gentle, last nearly the answer."""
    stub_may_score: str | None
    """Why the untouched stub may score above 0; None means it must score 0."""
    path: Path
    """The exercise folder."""
    given: tuple[str, ...] = ()
    """Modules of the exercise's own (its rules, say) that the student's module imports and never edits."""
    arena: str | None = None
    """The game of the exercise's play.py that `grade arena` plays the class's code at; None for no arena."""

    @property
    def name(self) -> str:
        """The folder name, such as "ex04_alpha_beta"."""
        return f"{self.id}_{self.slug}"

    @property
    def stub_path(self) -> Path:
        """The stub the student edits."""
        return self.path / self.module

    @property
    def given_paths(self) -> tuple[Path, ...]:
        """The given modules' files, in the exercise folder."""
        return tuple(self.path / name for name in self.given)

    @property
    def checks_dir(self) -> Path:
        """The folder of pytest check files."""
        return self.path / "checks"

    def check_files(self) -> list[Path]:
        """Check files in report order: the public file first, then the others by name."""
        files = sorted(self.checks_dir.glob("test_*.py"))
        return sorted(files, key=lambda p: p.name != PUBLIC_CHECKS)

    @property
    def shared_checks_dir(self) -> Path:
        """The kit's folder of check helpers that several exercises import."""
        return self.path.parent / SHARED_CHECKS

    def withheld_checks(self) -> dict | None:
        """In a handout, how many hidden checks (and points) were left out of this exercise, if any."""
        try:
            return json.loads((self.checks_dir / WITHHELD_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def check_helpers(self, start: list[Path]) -> list[Path]:
        """The helper modules the files `start` import, directly or not: the exercise's own, then shared ones.

        An import resolves to the exercise's checks folder first, then to the shared folder, as it
        does in a grading run, where both are copied side by side.
        """
        found: list[Path] = []
        pending = list(start)
        while pending:
            try:
                tree = ast.parse(pending.pop().read_text(encoding="utf-8"))
            except SyntaxError:  # a broken check file: pytest's collection reports it, with its line
                continue
            names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            names |= {node.module for node in ast.walk(tree)
                      if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module}
            for name in sorted(names):
                file_name = f"{name.split('.')[0]}.py"
                path = next((folder / file_name for folder in (self.checks_dir, self.shared_checks_dir)
                             if (folder / file_name).is_file()), None)
                if path is not None and path not in start and path not in found:
                    found.append(path)
                    pending.append(path)
        return found

    def fingerprint(self) -> str:
        """A sha256 of all of the exercise that decides a grade: exercise.toml, its checks and the shared helpers.

        Every file of the checks folder counts, not only test files: a helper or data file there
        changes what the checks do, and so does any shared helper, since a run lays them all out.
        """
        digest = hashlib.sha256()
        for root in (self.path / "exercise.toml", self.checks_dir, self.shared_checks_dir):
            files = [root] if root.is_file() else sorted(root.rglob("*")) if root.is_dir() else []
            for path in files:
                if path.is_file() and "__pycache__" not in path.parts:
                    digest.update(path.relative_to(self.path.parent).as_posix().encode() + b"\0"
                                  + path.read_bytes() + b"\0")
        return digest.hexdigest()

    @property
    def mistake_digests_path(self) -> Path:
        """Where a handout keeps its known mistakes' digests."""
        return self.path / MISTAKE_DIGESTS_FILE

    def solution_dir(self, kit_root: Path) -> Path:
        """The folder of this exercise's reference, alt and wrong solutions."""
        return kit_root / "solutions" / self.name


def _field(data: dict, key: str, where: str, kind: str):
    """Fetch one required field and check its type, naming the file and field on error."""
    if key not in data:
        raise KitError(f"{where}: missing field '{key}' (expected {kind})")
    value = data[key]
    ok = {
        "an integer": type(value) is int,
        "a string": type(value) is str and value.strip() != "",
        "a positive number": type(value) in (int, float) and math.isfinite(value) and value > 0,
        "a positive integer": type(value) is int and value > 0,
        "a list of strings": type(value) is list and all(type(v) is str and v.strip() for v in value),
    }[kind]
    if not ok:
        raise KitError(f"{where}: field '{key}' must be {kind}, got {value!r}")
    return value


_FIELDS = {
    "format_version", "id", "slug", "title", "module", "functions", "call_timeout",
    "check_timeout", "memory_mb", "hints", "stub_may_score", "given", "arena",
}


def load_exercise(folder: Path) -> Exercise:
    """Read and validate one exercise folder's `exercise.toml`."""
    toml_path = folder / "exercise.toml"
    where = str(toml_path)
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KitError(f"{where}: file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise KitError(f"{where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise KitError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})")
    version = _field(data, "format_version", where, "an integer")
    if version != FORMAT_VERSION:
        raise KitError(f"{where}: field 'format_version' must be {FORMAT_VERSION}, got {version!r}")
    match = EXERCISE_DIR.match(folder.name)
    if not match:
        raise KitError(f"{where}: the folder name must look like ex04_alpha_beta")
    ex_id = _field(data, "id", where, "a string")
    slug = _field(data, "slug", where, "a string")
    if (ex_id, slug) != match.groups():
        raise KitError(
            f"{where}: fields 'id' and 'slug' must match the folder name "
            f"({match.group(1)!r}, {match.group(2)!r}), got ({ex_id!r}, {slug!r})"
        )
    module = _field(data, "module", where, "a string")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\.py", module):
        raise KitError(f"{where}: field 'module' must be a Python file name such as 'alpha_beta.py', got {module!r}")
    functions = _field(data, "functions", where, "a list of strings")
    if not functions:
        raise KitError(f"{where}: field 'functions' must name at least one function")
    hints = _field(data, "hints", where, "a list of strings")
    stub_may_score = data.get("stub_may_score")
    if stub_may_score is not None:
        stub_may_score = _field(data, "stub_may_score", where, "a string")
    given = _field(data, "given", where, "a list of strings") if "given" in data else []
    for name in given:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\.py", name) or name == module:
            raise KitError(f"{where}: field 'given' must list Python files other than {module!r}, got {name!r}")
        if not (folder / name).is_file():
            raise KitError(f"{where}: field 'given' names {name!r}, which is not a file of the exercise")
    arena = _field(data, "arena", where, "a string") if "arena" in data else None
    return Exercise(
        format_version=version,
        id=ex_id,
        slug=slug,
        title=_field(data, "title", where, "a string"),
        module=module,
        functions=tuple(functions),
        call_timeout=float(_field(data, "call_timeout", where, "a positive number")),
        check_timeout=float(_field(data, "check_timeout", where, "a positive number")),
        memory_mb=_field(data, "memory_mb", where, "a positive integer"),
        hints=tuple(hints),
        stub_may_score=stub_may_score,
        path=folder,
        given=tuple(given),
        arena=arena,
    )


@dataclass(frozen=True)
class Kit:
    """A kit checkout: the folder holding `exercises/`, `solutions/` and `pyproject.toml`."""

    root: Path

    @classmethod
    def find(cls, start: Path, override: Path | None = None) -> "Kit":
        """The kit at `override`, or else the nearest ancestor of `start` that looks like one."""
        if override is not None:
            root = override.resolve()
            if not cls._looks_like_kit(root):
                raise KitError(f"--kit {override}: no exercises/ folder and pyproject.toml there")
            return cls(root)
        here = start.resolve()
        for folder in (here, *here.parents):
            if cls._looks_like_kit(folder):
                return cls(folder)
        raise KitError(
            f"no kit found in {here} or its parents (a kit has exercises/ and pyproject.toml); "
            "run grade inside the kit or pass --kit DIR"
        )

    @staticmethod
    def _looks_like_kit(folder: Path) -> bool:
        return (folder / "exercises").is_dir() and (folder / "pyproject.toml").is_file()

    def exercise_folders(self) -> list[Path]:
        """Every exercise folder, in id order; a folder with a longer id is refused, not skipped."""
        folders = [p for p in (self.root / "exercises").iterdir() if p.is_dir()]
        for folder in folders:
            if LONGER_ID.match(folder.name):
                raise KitError(f"{folder}: {ID_RANGE}, so this folder cannot be an exercise; give it a two-digit id")
        return sorted((p for p in folders if EXERCISE_DIR.match(p.name)), key=lambda p: p.name)

    def exercises(self) -> list[Exercise]:
        """Every exercise, loaded and validated."""
        return [load_exercise(folder) for folder in self.exercise_folders()]

    def progress_path(self, exercise: Exercise) -> Path:
        """Where `grade exNN` keeps the student's last report of their own work, which `grade` lists."""
        return self.root / "reports" / f"{exercise.id}.json"

    def resolve(self, name: str) -> Exercise:
        """The exercise named by its id ("ex04"), folder name ("ex04_alpha_beta") or slug ("alpha_beta")."""
        for folder in self.exercise_folders():
            ex_id, slug = EXERCISE_DIR.match(folder.name).groups()
            if name in (ex_id, slug, folder.name):
                return load_exercise(folder)
        known = ", ".join(f.name for f in self.exercise_folders()) or "none"
        raise KitError(f"unknown exercise {name!r}; the exercises are: {known}")
