"""How long `grade batch` takes to compare a class's submissions with each other (its similarity step only).

    python bench/similarity.py [--students N] [--exercise ex04|all] [--kind copies|written] [--copiers F]
                               [--jobs J] [--seed S] [--check] [--shards N]

Builds a made-up class of N submissions (default 300) for the exercise, of one of two kinds:

- copies (the default): every student hands in the reference, an alt/ solution or a known mistake
  (mutants.toml), with a random share of its names renamed, its comments reworded and its
  indentation changed, as copiers would. Nearly every pair shares most of its code, and most pairs
  are flagged: the comparison's worst case, whose output is itself of the square of the class.
- written: every student writes their own. Each starts from the reference or an alt/ solution and
  puts statements of their own (an assignment or an assert, with numbers of their own) after
  `--own` (default 0.6) of its statements, so that two students who started from the same program
  share stretches of it (at most about 0.6 of either one's code, as the kit's independently written
  solutions share up to 0.5) and students who started from different ones share a few idioms. A
  share `--copiers` (default 0.02) of the class then hand in a disguised copy of a classmate's
  module, and one in 200 hands in the stub.

Nothing is graded: only the comparison is timed, the step `grade batch` adds, which reads every module,
tokenises it (on `--jobs` processes, default 2), compares the pairs and writes similar.csv and
similarity.json. With `--shards N` the class is also compared as N shards and their merge are,
and the merged files must equal the whole run's. With `--check`, the plain all-pairs
comparison (`compare_every_pair`: copydetect's compare_files on every pair, slow) runs too, and every
pair is held to it: the same flagged pairs, the same figures and spans for every pair that shares
code, all-zero figures for every other. Exit 1 if any differs.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import io
import os
import random
import resource
import sys
import tempfile
import threading
import time
import tokenize
from dataclasses import replace
from pathlib import Path
from typing import Self

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.catalog import Exercise, Kit  # noqa: E402
from grader.classroom import compare_class, find_students, write_similarity  # noqa: E402
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


def own_words(source: str, rng: random.Random, share: float) -> str:
    """The program with a statement of the writer's own (an assignment or an assert, with numbers of their own)
    after a share of its statements, in every block; comments and layout are ast.unparse's."""
    tree = ast.parse(source)

    def statement() -> ast.stmt:
        name, number = f"_w{rng.randrange(100)}", rng.randrange(1000)
        choices = [f"{name} = {number}", f"{name} = ({number}, {rng.randrange(100)})", f"assert {number} >= 0",
                   f"{name} = [{number}] * {rng.randrange(9)}"]
        return ast.parse(choices[rng.randrange(len(choices))]).body[0]

    for node in list(ast.walk(tree)):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
                continue
            written = [block[0]]
            for line in block[1:]:
                if rng.random() < share and not (isinstance(line, ast.ImportFrom) and line.module == "__future__"):
                    written.append(statement())
                written.append(line)
            setattr(node, name, written)
    return ast.unparse(tree) + "\n"


def _programs(kit: Kit, exercise: Exercise, mistakes: bool) -> list[str]:
    """The exercise's reference and alt/ solutions, and its known mistakes if asked for."""
    solutions = exercise.solution_dir(kit.root)
    sources = [(solutions / exercise.module).read_text(encoding="utf-8")]
    sources += [path.read_text(encoding="utf-8") for path in sorted((solutions / "alt").glob("*.py"))]
    if mistakes:
        sources += [apply_mutant(exercise, kit.root, mutant) for mutant in load_mutants(exercise, kit.root)]
    return sources


def make_class(kit: Kit, exercise_id: str, students: int, seed: int, folder: Path, kind: str = "copies",
               own: float = 0.6, copiers: float = 0.02) -> None:
    """Write `students` submissions for the exercise into `folder`, one subfolder each (the kinds: the docstring)."""
    exercise = kit.resolve(exercise_id)
    rng = random.Random(seed)
    written: list[str] = []
    sources = _programs(kit, exercise, mistakes=kind == "copies")
    for index in range(students):
        student = folder / f"student{index:04d}"
        student.mkdir(parents=True)
        if kind == "copies":
            text = disguise(rng.choice(sources), rng)
        elif rng.random() < 0.005:
            text = exercise.stub_path.read_text(encoding="utf-8")
        elif written and rng.random() < copiers:
            text = disguise(rng.choice(written), rng)
        else:
            text = disguise(own_words(rng.choice(sources), rng, own), rng)
            written.append(text)
        (student / exercise.module).write_text(text, encoding="utf-8")


def _check(exercise: Exercise, folder: Path, result) -> int:
    """How many pairs the index gets other than the plain all-pairs comparison does (0: every one the same)."""
    from grader.classroom import similarity as plain

    every = plain.compare_every_pair(exercise, find_students(folder), result.threshold)
    sharing = sorted((pair for pair in every if pair.shared_tokens), key=plain._order)
    # The index keeps the shared code's spans of the flagged pairs whose two modules the page shows.
    shown = {name for pair in [pair for pair in sharing if pair.flagged][:plain.SIDE_BY_SIDE_PAIRS]
             for name in (pair.first, pair.second)}
    expected = [pair if pair.flagged and {pair.first, pair.second} <= shown
                else replace(pair, first_spans=(), second_spans=()) for pair in sharing]
    wrong = sum(ours != theirs for ours, theirs in zip(result.pairs, expected)) + abs(len(result.pairs) - len(expected))
    wrong += sum(bool(pair.first_in_second or pair.second_in_first or pair.first_spans or pair.flagged)
                 for pair in every if not pair.shared_tokens)
    flagged = {(pair.first, pair.second) for pair in every if pair.flagged}
    same_flags = flagged == {(pair.first, pair.second) for pair in result.pairs if pair.flagged}
    print(f"  check: {len(every)} pairs compared one by one, {len(sharing)} share code, {len(flagged)} flagged; "
          f"flagged pairs {'the same' if same_flags else 'DIFFERENT'}, {wrong} pairs differ")
    return wrong + (not same_flags)


class TreeMemory:
    """The peak, sampled every 20 ms, of the resident memory of this process and every process under it (the pool's
    workers are the forkserver's children, which getrusage never sees). Shared pages count once per process, so the
    figure is on the high side."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.now())
            self._stop.wait(0.02)

    @staticmethod
    def now() -> int:
        """Bytes resident in this process and its descendants."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    pass
        tree, grew = {os.getpid()}, True
        while grew:
            more = {pid for pid, parent in parents.items() if parent in tree} - tree
            tree |= more
            grew = bool(more)
        total = 0
        for pid in tree:
            try:
                total += int((Path("/proc") / str(pid) / "statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, IndexError, ValueError):
                pass
        return total


def _shards(exercise: Exercise, students: list, threshold: float, args, scratch: Path, whole: float) -> int:
    """The class as `grade batch --shard K/N` and `grade batch merge` compare it: each shard its own students (keeping
    their tokenised modules), then the merge the whole class from those. Prints each step's time and whether the
    merged files are the whole run's; returns 1 if they are not."""
    from grader.classroom.shards import shard_of
    from grader.classroom.similarity import merge_comparisons, modules_keeper

    names, shards, times = [student.name for student in students], [], []
    for k in range(1, args.shards + 1):
        mine = [student for student in students if shard_of(student.name, args.shards) == k]
        out = scratch / f"shard{k}"
        started = time.perf_counter()
        write_similarity(compare_class([exercise], mine, jobs=args.jobs, keep=modules_keeper(out, names, threshold)),
                         out)
        times.append(time.perf_counter() - started)
        shards.append((out, {"students": [student.name for student in mine]}))
    started = time.perf_counter()
    write_similarity(merge_comparisons(shards, [exercise.id]), scratch / "merged")
    merge = time.perf_counter() - started
    same = all((scratch / "merged" / name).read_bytes() == (scratch / "whole" / name).read_bytes()
               for name in ("similar.csv", "similarity.json"))
    print(f"  {args.shards} shards: {', '.join(f'{t:.2f}' for t in times)} s, the merge {merge:.2f} s; all together "
          f"{sum(times) + merge:.2f} s, {(sum(times) + merge) / whole:.2f}x the one machine's {whole:.2f} s; merged "
          f"similar.csv and similarity.json {'the same' if same else 'DIFFERENT'} byte for byte", flush=True)
    return 0 if same else 1


def main() -> int:
    """Build the class, time its comparison once, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--exercise", default="ex04", help="an exercise id, or all")
    parser.add_argument("--kind", choices=("copies", "written"), default="copies")
    parser.add_argument("--own", type=float, default=0.6)
    parser.add_argument("--copiers", type=float, default=0.02)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--shards", type=int, default=0, help="also compare the class as this many shards and a merge")
    args = parser.parse_args()
    kit = Kit(Path(__file__).resolve().parent.parent)
    exercises = kit.exercises() if args.exercise == "all" else [kit.resolve(args.exercise)]
    import copydetect  # noqa: F401  (loaded before the clock starts: a batch loads it once)

    wrong = 0
    for exercise in exercises:
        with tempfile.TemporaryDirectory(prefix="minimax-kit-similarity-bench-") as scratch:
            folder = Path(scratch) / "class"
            make_class(kit, exercise.id, args.students, args.seed, folder, args.kind, args.own, args.copiers)
            students = find_students(folder)
            before = TreeMemory.now()
            with TreeMemory() as memory:
                started = time.perf_counter()
                [result] = compare_class([exercise], students, jobs=args.jobs)
                compared = time.perf_counter()
                write_similarity([result], Path(scratch) / "whole")
                seconds = time.perf_counter() - started
            own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{exercise.id}: {args.students} students ({args.kind}), {result.pairs_compared} pairs, "
                  f"{len(result.table)} sharing code, {result.flagged_count} flagged, {len(result.left_out)} left out: "
                  f"{seconds:.2f} s on {args.jobs} jobs, similar.csv and similarity.json written "
                  f"({compared - started:.2f} s to compare, {seconds / max(args.students, 1) * 1000:.1f} ms a "
                  f"student); peak memory {memory.peak / 2**20:.0f} MiB (this process and its workers; "
                  f"{before / 2**20:.0f} MiB before), this process's own peak {own:.0f} MiB", flush=True)
            if args.check:
                wrong += _check(exercise, folder, result)
            if args.shards:
                wrong += _shards(exercise, students, result.threshold, args, Path(scratch), seconds)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
