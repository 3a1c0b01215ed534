"""The whole class path at a course's size: grading, similarity, the class page, a gradebook and the arena.

    python bench/class_scale.py --students N [--exercise ex04] [--arena-exercise ex08]
                                [--arena-students M] [--arena-args "..."] [--phases grade,similarity,...]
                                [--seed S] [--keep DIR]

Builds a made-up class of N students, as a course's drop-box holds it: most hand in the exercise's
reference, an alt/ solution or a known mistake, renamed and re-spaced as copiers do (bench/similarity.py's
`disguise`), as a folder, a zip or a notebook; the rest hand in the stub, an empty folder, a broken zip
or a .ipynb that is no notebook. Each phase then runs as the `grade` command an instructor types, with
`--jobs 2`, and its time and peak memory (its process and every child it waited for) are printed:

    grade        grade batch CLASS --exercise EX --jobs 2 --out OUT --no-similarity
    similarity   grade batch CLASS --exercise EX --jobs 2 --out OUT   (every report reused; lays out and compares)
    page         grade batch report OUT
    gradebook    grade batch gradebook OUT --lms canvas --roster ROSTER
    arena        grade arena ARENA_EX ARENA_CLASS --out ARENA_OUT --jobs 2   (the first M students)
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
import zipfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from grader.catalog import Exercise, Kit  # noqa: E402
from grader.known_mistakes import apply_mutant, load_mutants  # noqa: E402

KIT = Path(__file__).resolve().parent.parent
PHASES = ("grade", "similarity", "page", "gradebook", "arena")
# What a course's drop-box holds besides honest work, as shares of the class.
UNUSABLE_SHARES = {"stub": 0.05, "empty": 0.03, "broken_zip": 0.03, "not_a_notebook": 0.02}
# How honest work is handed in, as shares of it.
HANDED_IN_AS = {"folder": 0.7, "zip": 0.15, "notebook": 0.15}


@dataclass(frozen=True)
class Phase:
    """One step of the class path as it ran: how long, and the most memory its processes held at once."""

    name: str
    seconds: float
    peak_mib: float
    exit_code: int


def _renamed_locals(function: ast.FunctionDef | ast.AsyncFunctionDef, rng: random.Random) -> None:
    """Rename, in place, a random share of the names a function assigns (never its parameters or globals)."""
    arguments = function.args
    parameters = {arg.arg for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                      *filter(None, [arguments.vararg, arguments.kwarg])]}
    declared = {name for node in ast.walk(function) if isinstance(node, (ast.Global, ast.Nonlocal))
                for name in node.names}
    assigned = sorted({node.id for node in ast.walk(function)
                       if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)} - parameters - declared)
    share = rng.random()
    names = {name: f"{rng.choice(['val', 'tmp', 'my', 'v'])}_{index}" for index, name in enumerate(assigned)
             if rng.random() < share}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = names[node.id]


def disguise(source: str, rng: random.Random) -> str:
    """The program as a copier hands it in, working as before: a random share of each function's own
    names renamed, comments gone (ast.unparse), and indented by another width."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in tree.body:
            _renamed_locals(node, rng)
    width = rng.choice([2, 3, 4, 8])
    tokens = [(token.type, " " * (len(token.string) // 4 * width) if token.type == tokenize.INDENT else token.string)
              for token in tokenize.generate_tokens(io.StringIO(ast.unparse(tree) + "\n").readline)]
    return tokenize.untokenize(tokens)


def sources(kit: Kit, exercise: Exercise) -> list[str]:
    """The exercise's honest and mistaken programs: the reference, its alt/ solutions and its known mistakes."""
    solutions = exercise.solution_dir(kit.root)
    found = [(solutions / exercise.module).read_text(encoding="utf-8")]
    found += [path.read_text(encoding="utf-8") for path in sorted((solutions / "alt").glob("*.py"))]
    return found + [apply_mutant(exercise, kit.root, mutant) for mutant in load_mutants(exercise, kit.root)]


def _notebook(source: str) -> str:
    import nbformat
    from nbformat import v4

    cells = [v4.new_markdown_cell("My work", id="intro"), v4.new_code_cell(source, id="work")]
    return nbformat.writes(v4.new_notebook(cells=cells))


def _hand_in(folder: Path, name: str, modules: dict[str, str], how: str) -> None:
    """A student's honest modules, handed in as a folder, a zip or (one module) a notebook beside the rest."""
    if how == "zip":
        with zipfile.ZipFile(folder / f"{name}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
            for module, text in modules.items():
                archive.writestr(f"work/{module}", text)
        return
    (folder / name).mkdir()
    for index, (module, text) in enumerate(modules.items()):
        if how == "notebook" and index == 0:
            (folder / name / module.replace(".py", ".ipynb")).write_text(_notebook(text), encoding="utf-8")
        else:
            (folder / name / module).write_text(text, encoding="utf-8")


def make_class(kit: Kit, exercises: list[Exercise], students: int, seed: int, folder: Path) -> None:
    """`students` entries in `folder`, each with a module for every exercise (see the module's docstring)."""
    rng = random.Random(seed)
    programs = {exercise.module: sources(kit, exercise) for exercise in exercises}
    folder.mkdir(parents=True)
    for index in range(students):
        name = f"student{index:04d}"
        kind = rng.choices([*UNUSABLE_SHARES, "honest"],
                           weights=[*UNUSABLE_SHARES.values(), 1 - sum(UNUSABLE_SHARES.values())])[0]
        if kind == "stub":
            (folder / name).mkdir()
            for exercise in exercises:
                shutil.copyfile(exercise.stub_path, folder / name / exercise.module)
        elif kind == "empty":
            (folder / name).mkdir()
        elif kind == "broken_zip":
            (folder / f"{name}.zip").write_bytes(b"PK\x03\x04 cut short by an upload")
        elif kind == "not_a_notebook":
            (folder / f"{name}.ipynb").write_text("{'cells': not json", encoding="utf-8")
        else:
            how = rng.choices(list(HANDED_IN_AS), weights=list(HANDED_IN_AS.values()))[0]
            _hand_in(folder, name, {module: disguise(rng.choice(texts), rng) for module, texts in programs.items()},
                     how)


def run_phase(name: str, command: list[str], log: Path) -> Phase:
    """Run one phase's command, and measure it by wait4: wall time and the peak resident memory."""
    started = time.perf_counter()
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, cwd=KIT)
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return Phase(name, seconds, usage.ru_maxrss / 1024, process.returncode)


def main() -> None:
    """Build the class, run each phase once, and print a line per phase."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--exercise", default="ex04")
    parser.add_argument("--arena-exercise", default="ex08")
    parser.add_argument("--arena-students", type=int, default=None, help="the first M students play (default: all)")
    parser.add_argument("--arena-args", default="", help="more arguments for grade arena, such as a schedule")
    parser.add_argument("--phases", default=",".join(PHASES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="build here and keep the class and its outputs")
    args = parser.parse_args()
    phases = args.phases.split(",")
    if unknown := set(phases) - set(PHASES):
        parser.error(f"--phases: no such phase {', '.join(sorted(unknown))}; the phases are {', '.join(PHASES)}")
    kit = Kit(KIT)
    graded = kit.resolve(args.exercise)
    arena = kit.resolve(args.arena_exercise)
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="minimax-kit-class-scale-"))
    try:
        started = time.perf_counter()
        make_class(kit, [graded, arena], args.students, args.seed, scratch / "class")
        print(f"class of {args.students} made in {time.perf_counter() - started:.1f} s at {scratch / 'class'}")
        out, grade = scratch / "marks", [sys.executable, "-m", "grader.cli"]
        roster = scratch / "roster.csv"
        roster.write_text("folder,id\n" + "".join(f"student{index:04d},{100000 + index}\n"
                                                  for index in range(args.students)), encoding="utf-8")
        batch = [*grade, "batch", str(scratch / "class"), "--exercise", graded.id, "--jobs", "2", "--out", str(out)]
        commands = {
            "grade": [*batch, "--no-similarity"],
            "similarity": batch,
            "page": [*grade, "batch", "report", str(out)],
            "gradebook": [*grade, "batch", "gradebook", str(out), "--lms", "canvas", "--roster", str(roster)],
        }
        if "arena" in phases:
            players = scratch / "arena-class"
            players.mkdir(exist_ok=True)
            for entry in sorted((scratch / "class").iterdir())[: args.arena_students]:
                (shutil.copytree if entry.is_dir() else shutil.copyfile)(entry, players / entry.name)
            commands["arena"] = [*grade, "arena", arena.id, str(players), "--out", str(scratch / "arena"),
                                 "--jobs", "2", *shlex.split(args.arena_args)]
        print(f"{'phase':<12} {'seconds':>9} {'peak MiB':>9}  exit")
        for name in phases:
            phase = run_phase(name, commands[name], scratch / f"{name}.log")
            print(f"{phase.name:<12} {phase.seconds:>9.1f} {phase.peak_mib:>9.0f}  {phase.exit_code}", flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
