"""`grade check --mutation-report`: automatic operator mutants of a reference, and how many the checks kill.

Advisory, not a gate: a surviving mutant is a place to look, either a check to sharpen or an
equivalent mutant (one no test could tell from the reference). Mutants are made from the
reference's syntax tree, one operator at one place each (after cosmic-ray's operator-per-job
model); each is spliced into the source over the span of the node it changes, so its diff shows
only that change. A line marked `# pragma: no mutate` is left alone, and `mutants.toml` may list
names with a reason in its `[equivalent]` table to leave out of the score.
"""

from __future__ import annotations

import ast
import copy
import difflib
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.catalog import Exercise, Kit
from grader.grading import StopAt, grade, in_parallel
from grader.submission import Submission

PRAGMA = "# pragma: no mutate"
# Comparison flips and boundary changes: each operator and what it becomes.
COMPARISONS = {ast.Lt: (ast.GtE, ast.LtE), ast.LtE: (ast.Gt, ast.Lt), ast.Gt: (ast.LtE, ast.GtE),
               ast.GtE: (ast.Lt, ast.Gt), ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,),
               ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,)}


@dataclass(frozen=True)
class OperatorMutant:
    """One automatic mutant: which operator changed what, where, and the mutated source."""

    name: str
    """Operator and occurrence, such as "comparison-3": stable while the reference does not change."""
    line: int
    source: str


def _variants(node: ast.AST) -> list[tuple[str, ast.AST | None]]:
    """(operator, mutated node) for every standard change of this node; None removes a statement."""
    found: list[tuple[str, ast.AST | None]] = []
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        for replacement in COMPARISONS.get(type(node.ops[0]), ()):
            changed = copy.deepcopy(node)
            changed.ops = [replacement()]
            found.append(("comparison", changed))
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("max", "min"):
        changed = copy.deepcopy(node)
        changed.func.id = "min" if node.func.id == "max" else "max"
        found.append(("max-min", changed))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        found += [("constant+1", ast.Constant(node.value + 1)), ("constant-1", ast.Constant(node.value - 1))]
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        found.append(("true-false", ast.Constant(not node.value)))
    elif isinstance(node, ast.BoolOp):
        changed = copy.deepcopy(node)
        changed.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        found.append(("and-or", changed))
    elif isinstance(node, (ast.Break, ast.Continue, ast.Return)):
        found.append((f"remove-{type(node).__name__.lower()}", None))
    return found


def operator_mutants(source: str) -> list[OperatorMutant]:
    """Every operator mutant of `source` that still compiles, in source order."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    counts: dict[str, int] = {}
    mutants = []
    nodes = sorted((node for node in ast.walk(ast.parse(source)) if hasattr(node, "end_lineno")),
                   key=lambda node: (node.lineno, node.col_offset))
    for node in nodes:
        if PRAGMA in lines[node.lineno - 1]:
            continue
        for operator, changed in _variants(node):
            start = offsets[node.lineno - 1] + len(lines[node.lineno - 1].encode()[:node.col_offset].decode())
            end = offsets[node.end_lineno - 1] + len(lines[node.end_lineno - 1].encode()[:node.end_col_offset].decode())
            text = "pass" if changed is None else ast.unparse(changed)
            if changed is not None and not isinstance(changed, ast.Constant):
                text = f"({text})"  # a spliced expression keeps its place among its neighbours
            mutated = source[:start] + text + source[end:]
            try:
                compile(mutated, "<mutant>", "exec")
            except SyntaxError:
                continue
            counts[operator] = counts.get(operator, 0) + 1
            mutants.append(OperatorMutant(f"{operator}-{counts[operator]}", node.lineno, mutated))
    return mutants


@dataclass(frozen=True)
class MutationReport:
    """What the checks made of an exercise's operator mutants."""

    exercise: Exercise
    killed: list[OperatorMutant]
    survived: list[OperatorMutant]
    equivalent: list[OperatorMutant]
    stale: list[str]
    """Names marked equivalent that no mutant has any more: the reference changed under them."""

    @property
    def score(self) -> float:
        """The share of the mutants that are not equivalent which some check killed."""
        counted = len(self.killed) + len(self.survived)
        return len(self.killed) / counted if counted else 1.0


def mutation_report(kit: Kit, exercise: Exercise, equivalent: dict[str, str], seed: int = 1,
                    jobs: int | None = None) -> MutationReport:
    """Grade every operator mutant of the exercise's reference, side by side; a mutant dies if it loses points."""
    reference = exercise.solution_dir(kit.root) / exercise.module
    mutants = operator_mutants(reference.read_text(encoding="utf-8"))
    graded = [mutant for mutant in mutants if mutant.name not in equivalent]
    with tempfile.TemporaryDirectory(prefix="minimax-kit-mutation-") as scratch:
        def run(mutant: OperatorMutant) -> bool:
            path = Path(scratch) / mutant.name / exercise.module
            path.parent.mkdir()
            path.write_text(mutant.source, encoding="utf-8")
            report = grade(kit, exercise, Submission(path, f"{mutant.name} of {exercise.module}"), seed=seed,
                           stop_at=StopAt.FIRST_FAILURE)
            return report["score"] < report["max_score"]

        killed = in_parallel(run, graded, jobs)
    return MutationReport(exercise, [m for m, dead in zip(graded, killed) if dead],
                          [m for m, dead in zip(graded, killed) if not dead],
                          [m for m in mutants if m.name in equivalent],
                          sorted(set(equivalent) - {m.name for m in mutants}))


def survivor_diff(reference: str, mutant: OperatorMutant, module: str) -> str:
    """A surviving mutant as a unified diff against the reference."""
    return "".join(difflib.unified_diff(reference.splitlines(keepends=True), mutant.source.splitlines(keepends=True),
                                        f"reference/{module}", f"{mutant.name}/{module}", n=1))
