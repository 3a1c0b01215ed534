"""The kit's library of known mistakes: the mutants of `solutions/exNN/mutants.toml` and the `wrong/` programs.

`grade check` proves each one loses points, and grading names the one a failed submission's
answers match (its diagnosis). Both read them here, as `KnownMistake`s.

Mutants are named edits of the reference, read, checked and applied here.

A wrong solution that is the reference plus one mistake goes stale the moment the reference is
fixed; a mutant cannot, since it is made from the reference every time it is graded. Each mutant
is a name, a one-line why, find/replace edits (each `find` must occur exactly once in the
reference) and, optionally, the checks that must fail for it (`caught_by`, test function names).
Those checks must fail on a value, an exception or a crash: a deadline alone does not show that a
check catches the mistake, and on a busy machine it comes first. A mistake that changes nothing
but time (a missing memo) says so in `deadline`, a one-line reason, and then a timeout counts.
A mistake that breaks one rule may cap what it costs with `max_cost`, the most points it may lose
(the points of that rule's own checks); `grade check` grades it whole and proves the cap.

    format_version = 1

    [[mutant]]
    name = "strict_greater"
    why = "cuts off only when alpha > beta, so ties are searched"
    caught_by = ["test_ties_are_cut_off"]
    edits = [{find = "if alpha >= beta:", replace = "if alpha > beta:"}]
    max_cost = 2
"""

from __future__ import annotations

import ast
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.catalog import Exercise, KitError

MUTANTS_FILE = "mutants.toml"
FORMAT_VERSION = 1
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_FIELDS = {"name", "why", "edits", "caught_by", "deadline", "max_cost"}


@dataclass(frozen=True)
class Edit:
    """One find/replace on the reference's text."""

    find: str
    replace: str


@dataclass(frozen=True)
class Mutant:
    """One known mistake: the reference with these edits applied."""

    name: str
    why: str
    edits: tuple[Edit, ...]
    caught_by: tuple[str, ...]
    """Test functions that must fail for this mutant; empty means any lost points count (not a timeout alone)."""
    deadline: str = ""
    """Why a timeout is the point (the mistake changes no answer, only the time); empty: a timeout does not count."""
    max_cost: float | None = None
    """The most points the mistake may cost (its own rule's checks); None: no cap."""


def mutants_path(exercise: Exercise, kit_root: Path) -> Path:
    """Where the exercise's mutants live."""
    return exercise.solution_dir(kit_root) / MUTANTS_FILE


def _text(value, where: str, field: str, allow_empty: bool = False) -> str:
    if type(value) is not str or (not allow_empty and not value.strip()):
        raise KitError(f"{where}: field '{field}' must be a {'string' if allow_empty else 'non-empty string'}, "
                       f"got {value!r}")
    return value


def _mutant(entry, where: str, index: int) -> Mutant:
    """One [[mutant]] table, checked field by field."""
    if type(entry) is not dict:
        raise KitError(f"{where}: mutant #{index} must be a table, got {entry!r}")
    name = entry.get("name")
    label = f"{where}: mutant {name!r}" if type(name) is str else f"{where}: mutant #{index}"
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise KitError(f"{label}: unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})")
    for field in ("name", "why", "edits"):
        if field not in entry:
            raise KitError(f"{label}: missing field '{field}'")
    if type(name) is not str or not NAME.match(name):
        raise KitError(f"{label}: field 'name' must be lowercase letters, digits and underscores, got {name!r}")
    why = _text(entry["why"], label, "why")
    if "\n" in why:
        raise KitError(f"{label}: field 'why' must be one line")
    edits = entry["edits"]
    if type(edits) is not list or not edits:
        raise KitError(f"{label}: field 'edits' must be a non-empty list of {{find, replace}} tables")
    parsed = []
    for number, edit in enumerate(edits, 1):
        if type(edit) is not dict or set(edit) != {"find", "replace"}:
            raise KitError(f"{label}: edit #{number} must have exactly the fields 'find' and 'replace', got {edit!r}")
        parsed.append(Edit(_text(edit["find"], label, f"edits[{number}].find"),
                           _text(edit["replace"], label, f"edits[{number}].replace", allow_empty=True)))
    caught_by = entry.get("caught_by", [])
    if type(caught_by) is not list or not all(type(check) is str and check.startswith("test_") for check in caught_by):
        raise KitError(f"{label}: field 'caught_by' must be a list of test function names, got {caught_by!r}")
    deadline = entry.get("deadline", "")
    if type(deadline) is not str or "\n" in deadline:
        raise KitError(f"{label}: field 'deadline' must be one line saying why a timeout is the point, got {deadline!r}")
    if deadline.strip() and not caught_by:
        raise KitError(f"{label}: field 'deadline' needs 'caught_by', the checks whose deadlines catch the mistake")
    max_cost = entry.get("max_cost")
    if max_cost is not None and (type(max_cost) not in (int, float) or not math.isfinite(max_cost) or max_cost <= 0):
        raise KitError(f"{label}: field 'max_cost' must be a positive number, the most points the mistake may cost, "
                       f"got {max_cost!r}")
    return Mutant(name, why, tuple(parsed), tuple(caught_by), deadline.strip(),
                  None if max_cost is None else float(max_cost))


def load_mutants(exercise: Exercise, kit_root: Path) -> list[Mutant]:
    """The exercise's mutants, in file order; none when it has no mutants.toml."""
    path = mutants_path(exercise, kit_root)
    where = str(path)
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise KitError(f"{where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"format_version", "mutant", "equivalent"})
    if unknown:
        raise KitError(f"{where}: unknown field {unknown[0]!r} (known: equivalent, format_version, mutant)")
    if data.get("format_version") != FORMAT_VERSION:
        raise KitError(f"{where}: field 'format_version' must be {FORMAT_VERSION}, got {data.get('format_version')!r}")
    entries = data.get("mutant", [])
    if type(entries) is not list:
        raise KitError(f"{where}: 'mutant' must be an array of tables ([[mutant]])")
    mutants = [_mutant(entry, where, index) for index, entry in enumerate(entries, 1)]
    names = [mutant.name for mutant in mutants]
    for name in names:
        if names.count(name) > 1:
            raise KitError(f"{where}: mutant {name!r}: the name is used twice")
    return mutants


def load_equivalent(exercise: Exercise, kit_root: Path) -> dict[str, str]:
    """The operator mutants (`grade check --mutation-report` names) that mutants.toml marks equivalent, with why."""
    path = mutants_path(exercise, kit_root)
    if not path.is_file():
        return {}
    load_mutants(exercise, kit_root)  # the whole file must be sound first
    reasons = tomllib.loads(path.read_text(encoding="utf-8")).get("equivalent", {})
    if type(reasons) is not dict:
        raise KitError(f"{path}: field 'equivalent' must be a table of mutant names and reasons, such as "
                       f"\"comparison-3\" = \"why no check can tell it from the reference\"")
    for name, reason in reasons.items():
        if type(reason) is not str or not reason.strip():
            raise KitError(f"{path}: equivalent mutant {name!r}: the reason must be a non-empty string")
    return reasons


def find_mutant(exercise: Exercise, kit_root: Path, name: str) -> Mutant:
    """The mutant of this name; an unknown name is a KitError listing the valid ones."""
    mutants = load_mutants(exercise, kit_root)
    for mutant in mutants:
        if mutant.name == name:
            return mutant
    known = ", ".join(mutant.name for mutant in mutants) or "none"
    raise KitError(f"{exercise.id} has no mutant {name!r}; its mutants are: {known}")


def apply_mutant(exercise: Exercise, kit_root: Path, mutant: Mutant) -> str:
    """The reference's source with the mutant's edits made; a stale or broken edit is a one-line KitError."""
    reference = exercise.solution_dir(kit_root) / exercise.module
    source = reference.read_text(encoding="utf-8")
    label = f"{exercise.id} mutant {mutant.name!r}"
    for edit in mutant.edits:
        count = source.count(edit.find)
        if count != 1:
            raise KitError(f"{label}: find {edit.find!r} occurs {count} times in {reference.name}; "
                           "it must occur exactly once")
        source = source.replace(edit.find, edit.replace)
    try:
        compile(source, f"{mutant.name}/{exercise.module}", "exec")
    except SyntaxError as exc:
        raise KitError(f"{label}: the edited {exercise.module} does not compile: line {exc.lineno}: {exc.msg}") from None
    return source


def write_mutant(exercise: Exercise, kit_root: Path, mutant: Mutant, folder: Path) -> Path:
    """Write the mutant as a submission file under `folder`; return its path."""
    path = folder / mutant.name / exercise.module
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(apply_mutant(exercise, kit_root, mutant), encoding="utf-8")
    return path


WRONG_PREFIXES = ("WRONG ON PURPOSE:", "WRONG:")


@dataclass(frozen=True)
class KnownMistake:
    """One known mistake as a program: its name, the one line that says what it gets wrong, and its code."""

    name: str
    why: str
    source: str
    origin: str
    """Where it comes from: "mutant" (an edit of the reference in mutants.toml) or "wrong" (a wrong/ program)."""


def wrong_why(source: str, path: Path) -> str:
    """A wrong/ program's why: the first line of its docstring, without its "WRONG ON PURPOSE:" label."""
    try:
        doc = ast.get_docstring(ast.parse(source)) or ""
    except SyntaxError as exc:
        raise KitError(f"{path}: line {exc.lineno}: {exc.msg}") from None
    first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    for prefix in WRONG_PREFIXES:
        if first.startswith(prefix):
            first = first[len(prefix):].strip()
    if not first:
        raise KitError(f"{path}: a wrong/ program needs a docstring whose first line says what it gets wrong")
    return first


def known_mistakes(exercise: Exercise, kit_root: Path) -> list[KnownMistake]:
    """Every known mistake of the exercise: its mutants in file order, then its wrong/ programs by name."""
    mistakes = [KnownMistake(mutant.name, mutant.why, apply_mutant(exercise, kit_root, mutant), "mutant")
                for mutant in load_mutants(exercise, kit_root)]
    taken = {mistake.name for mistake in mistakes}
    for path in sorted((exercise.solution_dir(kit_root) / "wrong").glob("*.py")):
        if path.stem in taken:
            raise KitError(f"{path}: a mutant in {MUTANTS_FILE} has the same name; a diagnosis must name one mistake")
        source = path.read_text(encoding="utf-8")
        mistakes.append(KnownMistake(path.stem, wrong_why(source, path), source, "wrong"))
    return mistakes


def reference_source(exercise: Exercise, kit_root: Path) -> str | None:
    """The reference solution's code, or None where the kit ships without solutions (a student handout)."""
    path = exercise.solution_dir(kit_root) / exercise.module
    return path.read_text(encoding="utf-8") if path.is_file() else None
