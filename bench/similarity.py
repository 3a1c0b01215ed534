"""How long `grade batch` takes to compare a class's submissions with each other (its similarity step only).

    python bench/similarity.py [--students N] [--exercise ex04] [--seed S]

Builds a made-up class of N submissions (default 300) for the exercise: its reference, its alt/
solutions and its known mistakes (mutants.toml), each handed in again and again with a random share
of its names renamed, its comments reworded and its indentation changed, as copiers would. Nothing
is graded: only `compare_class` is timed, the step that reads every module and compares every pair.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import random
import sys
import tempfile
import time
import tokenize
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.catalog import Kit  # noqa: E402
from grader.classroom import compare_class, find_students  # noqa: E402
from grader.known_mistakes import apply_mutant, load_mutants  # noqa: E402


def disguise(source: str, rng: random.Random) -> str:
    """The program with a random share of the names it defines renamed, its comments reworded and its indentation
    changed; the names the checks call (the public functions) are kept."""
    tree = ast.parse(source)
    imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    public = {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}
    defined = ({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
               | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
               | {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))})
    candidates = sorted(name for name in defined - imported - public - set(dir(builtins)) if not name.startswith("__"))
    share = rng.random()
    names = {name: f"{rng.choice(['x', 'val', 'tmp', 'my'])}_{index}" for index, name in enumerate(candidates)
             if rng.random() < share}
    width = rng.choice([2, 3, 4, 8])
    tokens = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        text = token.string
        if token.type == tokenize.NAME:
            text = names.get(text, text)
        elif token.type == tokenize.COMMENT and rng.random() < 0.7:
            text = f"# note {rng.randrange(1000)}"
        elif token.type == tokenize.INDENT:
            text = " " * (len(text) // 4 * width)
        tokens.append((token.type, text))
    return tokenize.untokenize(tokens)


def make_class(kit: Kit, exercise_id: str, students: int, seed: int, folder: Path) -> None:
    """Write `students` submissions for the exercise into `folder`, one subfolder each."""
    exercise = kit.resolve(exercise_id)
    solutions = exercise.solution_dir(kit.root)
    sources = [(solutions / exercise.module).read_text(encoding="utf-8")]
    sources += [path.read_text(encoding="utf-8") for path in sorted((solutions / "alt").glob("*.py"))]
    sources += [apply_mutant(exercise, kit.root, mutant) for mutant in load_mutants(exercise, kit.root)]
    rng = random.Random(seed)
    for index in range(students):
        student = folder / f"student{index:04d}"
        student.mkdir(parents=True)
        (student / exercise.module).write_text(disguise(rng.choice(sources), rng), encoding="utf-8")


def main() -> None:
    """Build the class, time its comparison once, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--exercise", default="ex04")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    kit = Kit(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory(prefix="minimax-kit-similarity-bench-") as scratch:
        folder = Path(scratch) / "class"
        make_class(kit, args.exercise, args.students, args.seed, folder)
        import copydetect  # noqa: F401  (loaded before the clock starts: a batch loads it once)

        started = time.perf_counter()
        [result] = compare_class([kit.resolve(args.exercise)], find_students(folder))
        seconds = time.perf_counter() - started
    pairs = len(result.pairs)
    print(f"{args.exercise}: {args.students} students, {pairs} pairs compared, {len(result.flagged)} flagged, "
          f"{len(result.left_out)} left out: {seconds:.2f} s ({seconds / max(args.students, 1) * 1000:.1f} ms a "
          f"student, {seconds / max(pairs, 1) * 1e6:.0f} us a pair)")


if __name__ == "__main__":
    main()
