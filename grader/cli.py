"""The `grade` command: parse arguments, dispatch, write the report, exit 0/1/2; `display` does the showing.

Only what the progress list needs is imported at the top: `grade` alone must answer at once, so
the runner, the sandbox, pytest and the other commands' modules are imported where they are used.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from grader.catalog import Exercise, Kit, KitError, load_exercise
from grader.formats import FORMATS, render

if TYPE_CHECKING:
    from rich.console import Console

    from grader.runner import Submission

EXIT_PASS, EXIT_LOST_POINTS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2."""

    def error(self, message):
        raise KitError(message)


class Terminal:
    """The rich Console, made on first use: a grade starts its checks before rich is even loaded."""

    def __init__(self):
        self._console: Console | None = None

    def __call__(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(highlight=False)
        return self._console


def _load_display_meanwhile() -> None:
    """Import the display (and rich) in a thread, while the main thread waits for the checks."""
    import importlib
    import threading

    threading.Thread(target=importlib.import_module, args=("grader.display",), daemon=True).start()


def build_parser() -> argparse.ArgumentParser:
    """The command line of `grade`."""
    parser = _Parser(prog="grade", description="Grade minimax-kit exercises. With no exercise, list your progress.")
    parser.add_argument("exercise", nargs="?", help="ex04, ex04_alpha_beta or alpha_beta")
    parser.add_argument("--all", action="store_true", help="grade every exercise and print one summary")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--submission", type=Path, metavar="PATH", help="grade this file, folder or .zip instead")
    source.add_argument("--solution", action="store_true", help="grade the reference solution")
    parser.add_argument("--seed", type=_seed, help="reproduce a run exactly (default: derived from the code)")
    parser.add_argument("--format", choices=FORMATS, default="json", help="format of the report file")
    parser.add_argument("--output", metavar="FILE", help="where the report goes; - for stdout (no summary)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 whenever a report was written")
    parser.add_argument("--watch", action="store_true", help="grade your file again on every save (Ctrl-C stops)")
    _add_kit_option(parser)
    return parser


def _whole_number(minimum: int):
    """An argparse type: a whole number of at least `minimum`, with a one-line error otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a number >= {minimum}, got {value}")
        return value

    return parse


_seed = _whole_number(0)
_jobs = _whole_number(1)


def _add_kit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kit", type=Path, metavar="DIR", help="the kit's folder (default: found from here)")


def _shown(path: Path, kit: Kit) -> str:
    """A path as the report shows it: relative to the kit when inside it."""
    try:
        return path.resolve().relative_to(kit.root).as_posix()
    except ValueError:
        return str(path)


def _submission(args, kit: Kit, exercise: Exercise) -> tuple[Submission, bool]:
    """What to grade, and whether it is the student's own file in the kit (which updates reports/)."""
    from grader.runner import Submission

    if args.submission is not None:
        if not args.submission.exists():
            raise KitError(f"--submission {args.submission}: no such file or folder")
        return Submission(args.submission, _shown(args.submission, kit)), False
    if args.solution:
        path = exercise.solution_dir(kit.root) / exercise.module
        if not path.is_file():
            raise KitError(f"{path}: the reference solution is missing")
        return Submission(path, _shown(path, kit)), False
    if not exercise.stub_path.is_file():
        raise KitError(f"{exercise.stub_path}: your exercise file is missing")
    return Submission(exercise.stub_path, _shown(exercise.stub_path, kit)), True


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def build_hint_parser() -> argparse.ArgumentParser:
    """The command line of `grade hint`."""
    parser = _Parser(prog="grade hint", description="Show the next hint for an exercise, one more each time.")
    parser.add_argument("exercise", help="ex04, ex04_alpha_beta or alpha_beta")
    parser.add_argument("--all", action="store_true", help="show every hint at once")
    _add_kit_option(parser)
    return parser


def run_hint(argv: list[str], console: Console) -> int:
    """Show the hints seen so far plus the next one, and remember how far the student got."""
    from grader import display

    args = build_hint_parser().parse_args(argv)
    kit = Kit.find(Path.cwd(), args.kit)
    exercise = kit.resolve(args.exercise)
    if not exercise.hints:
        console.print(f"{exercise.id} has no hints.")
        return EXIT_PASS
    record = kit.root / "reports" / "hints.json"
    try:
        seen = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        seen = {}
    if not isinstance(seen, dict):
        seen = {}
    shown = len(exercise.hints) if args.all else min(int(seen.get(exercise.id, 0) or 0) + 1, len(exercise.hints))
    seen[exercise.id] = shown
    _write(record, json.dumps(seen, indent=2) + "\n")
    display.print_hints(console, exercise, shown)
    return EXIT_PASS


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(_seed(part) for part in text.split(","))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"expected seeds such as 1,2,3: {exc}") from None
    return seeds


def build_check_parser() -> argparse.ArgumentParser:
    """The command line of `grade check`."""
    from grader.validation import DEFAULT_SEEDS

    parser = _Parser(prog="grade check", description="Prove exercises sound: reference, alt/, wrong/ and stub.")
    parser.add_argument("exercises", nargs="*", help="exercises to check (default with --all: every one)")
    parser.add_argument("--all", action="store_true", help="check every exercise")
    parser.add_argument("--seeds", type=_seeds, default=DEFAULT_SEEDS, help="seeds for the wrong/ solutions (1,2,3)")
    parser.add_argument("--jobs", type=_jobs, default=None, help="grading runs at once (default: one per core)")
    _add_kit_option(parser)
    return parser


def run_check(argv: list[str], console: Console) -> int:
    """One line per exercise: what held, or every problem found; exit 1 if any exercise is unsound."""
    from grader import display

    from grader.validation import check_exercise

    args = build_check_parser().parse_args(argv)
    kit = Kit.find(Path.cwd(), args.kit)
    if args.all == bool(args.exercises):
        raise KitError("name the exercises to check, or pass --all")
    folders = kit.exercise_folders() if args.all else [kit.resolve(name).path for name in args.exercises]
    sound = True
    for folder in folders:
        try:
            exercise = load_exercise(folder)
        except KitError as exc:
            display.print_soundness(console, folder.name, [], [str(exc)])
            sound = False
            continue
        result = check_exercise(kit, exercise, seeds=args.seeds, jobs=args.jobs)
        display.print_soundness(console, exercise.name, result.facts, result.problems)
        sound = sound and result.ok
    return EXIT_PASS if sound else EXIT_LOST_POINTS


def run_new(argv: list[str], console: Console) -> int:
    """`grade new ex10 slug "Title"`: scaffold an exercise that passes `grade check` at once."""
    from rich.text import Text

    from grader.scaffold import scaffold

    parser = _Parser(prog="grade new", description="Scaffold a new exercise and its solution folders.")
    parser.add_argument("id", help="the new id, such as ex10")
    parser.add_argument("slug", help="the folder suffix and module name, such as endgame_tables")
    parser.add_argument("title", help='the title, such as "Endgame tables"')
    _add_kit_option(parser)
    args = parser.parse_args(argv)
    kit = Kit.find(Path.cwd(), args.kit)
    for path in scaffold(kit, args.id, args.slug, args.title):
        console.print(Text(f"  created {path.relative_to(kit.root)}"))
    console.print(Text.assemble("Next: write the task, the checks and the solutions, then run ",
                                (f"grade check {args.id}", "bold"), ". See docs/authoring.md."))
    return EXIT_PASS


def run_export(argv: list[str], console: Console) -> int:
    """`grade export DIR` (student handout) or `grade export --gradescope FILE.zip` (autograder bundle)."""
    from rich.text import Text

    from grader.export import export_gradescope, export_handout

    parser = _Parser(prog="grade export", description="Export the student handout or a Gradescope bundle.")
    parser.add_argument("target", nargs="?", type=Path, help="folder for the student handout")
    parser.add_argument("--gradescope", type=Path, metavar="FILE.zip", help="write a Gradescope autograder zip")
    parser.add_argument("--exercise", help="with --gradescope: one exercise per assignment (default: all)")
    _add_kit_option(parser)
    args = parser.parse_args(argv)
    kit = Kit.find(Path.cwd(), args.kit)
    if (args.target is None) == (args.gradescope is None):
        raise KitError("give either a folder for the handout or --gradescope FILE.zip")
    if args.gradescope is not None:
        exercise = kit.resolve(args.exercise) if args.exercise else None
        export_gradescope(kit, args.gradescope, exercise)
        console.print(Text(f"Gradescope bundle written to {args.gradescope}"))
        return EXIT_PASS
    if args.exercise:
        raise KitError("--exercise goes with --gradescope; the handout holds every exercise")
    names = export_handout(kit, args.target)
    console.print(Text(f"Handout with {len(names)} exercises written to {args.target} "
                       "(no hidden checks, no solutions)"))
    return EXIT_PASS


def run_batch_command(argv: list[str], console: Console) -> int:
    """`grade batch DIR --exercise exNN|--all --jobs N --out OUT`: grade a class into reports and grades.csv."""
    from grader import display

    from grader.batch import distribution, find_students, run_batch, write_gradebook

    parser = _Parser(prog="grade batch", description="Grade a class: one subfolder, .py or .zip per student.")
    parser.add_argument("folder", type=Path, help="the class's submissions")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--exercise", help="the exercise every submission is for")
    which.add_argument("--all", action="store_true", help="grade every exercise for every student")
    parser.add_argument("--jobs", type=_jobs, default=1, help="submissions graded at once (default 1)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the reports and grades.csv")
    parser.add_argument("--force", action="store_true", help="regrade even unchanged submissions")
    parser.add_argument("--seed", type=_seed, help="the same seed for every submission")
    _add_kit_option(parser)
    args = parser.parse_args(argv)
    kit = Kit.find(Path.cwd(), args.kit)
    exercises = kit.exercises() if args.all else [kit.resolve(args.exercise)]
    students = find_students(args.folder)
    with display.batch_progress(console) as progress:
        task = progress.add_task("grading", total=len(students) * len(exercises))
        results, reused = run_batch(kit, exercises, students, args.out, jobs=args.jobs, force=args.force,
                                    seed=args.seed, advance=lambda: progress.advance(task))
    write_gradebook(results, exercises, args.out / "grades.csv")
    display.print_batch_summary(console, distribution(results, exercises), len(exercises), reused,
                                args.out / "grades.csv")
    return EXIT_PASS


def run_play(argv: list[str], console: Console) -> int:
    """`grade play`, imported when used: it brings in the sandbox, which the progress list must not wait for."""
    from grader.play import run_play as play

    return play(argv, console)


SUBCOMMANDS = {"hint": run_hint, "check": run_check, "new": run_new, "export": run_export,
               "batch": run_batch_command, "play": run_play}


def _refuse_bad_watch(args) -> None:
    """--watch grades the student's own file again on each save, so it goes with one exercise and a summary."""
    if not args.watch:
        return
    clashes = [flag for flag, given in (("--all", args.all), ("--solution", args.solution),
                                        ("--submission", args.submission is not None),
                                        ("--output -", args.output == "-")) if given]
    if clashes:
        raise KitError(f"--watch cannot go with {clashes[0]}: it grades your own file again each time you save it")
    if args.exercise is None:
        raise KitError("--watch needs an exercise, such as grade ex04 --watch")


def _grade_one(args, kit: Kit, exercise: Exercise) -> tuple[dict, list[str]]:
    """Grade one exercise as the arguments say; update reports/ for the student's own work."""
    from grader.runner import grade

    submission, own_work = _submission(args, kit, exercise)
    report = grade(kit, exercise, submission, seed=args.seed)
    where = []
    if own_work:
        path = kit.progress_path(exercise)
        _write(path, render(report, "json"))
        where.append(path.relative_to(kit.root).as_posix())
    warning = report["environment"]["sandbox"].get("warning")
    if warning:  # weakened isolation is never silent: it goes to stderr as well as into the report
        print(f"grade: warning: {warning}", file=sys.stderr)
    return report, where


def _deliver(args, terminal: Terminal, document: dict, where: list[str], exercises: list[Exercise]) -> None:
    """Write the report where --output says, and show the result unless the report goes to stdout."""
    if args.output == "-":
        sys.stdout.write(render(document, args.format))
        return
    if args.output:
        _write(Path(args.output), render(document, args.format))
        where = [*where, args.output]
    from grader import display

    if args.all:
        display.print_overview(terminal(), document, where)
        return
    from grader.export import withheld_checks

    display.print_report(terminal(), document, where, withheld_checks(exercises[0]))


def run_watch(args, kit: Kit, exercise: Exercise, terminal: Terminal) -> int:
    """Grade the student's file now and on every save until Ctrl-C, which exits 0."""
    from rich.text import Text

    from grader.sandbox import SandboxError
    from grader.watch import watch_and_grade

    def grade_once() -> None:
        try:
            report, where = _grade_one(args, kit, exercise)
            _deliver(args, terminal, report, where, [exercise])
        except (KitError, SandboxError) as exc:
            # Said, not fatal: the file may be half-saved, and the next save is graded as usual.
            terminal().print(Text(f"grade: {exc}", style="red"))

    watch_and_grade(terminal(), exercise.stub_path, _shown(exercise.stub_path, kit), grade_once)
    return EXIT_PASS


def run(argv: list[str], terminal: Terminal) -> int:
    """Everything `grade` does, returning the exit code; KitError escapes as a usage error."""
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:], terminal())
    args = build_parser().parse_args(argv)
    _refuse_bad_watch(args)
    kit = Kit.find(Path.cwd(), args.kit)
    if args.all:
        if args.exercise is not None:
            raise KitError("name one exercise or pass --all, not both")
        import zipfile

        if args.submission is not None and args.submission.is_file() and not zipfile.is_zipfile(args.submission):
            raise KitError(f"--submission {args.submission}: with --all, give a folder or a .zip holding every module")
        exercises = kit.exercises()
    elif args.exercise is None:
        from grader import display

        display.print_progress(terminal(), kit, [display.read_progress(kit, exercise) for exercise in kit.exercises()])
        return EXIT_PASS
    else:
        exercises = [kit.resolve(args.exercise)]
    if args.watch:
        return run_watch(args, kit, exercises[0], terminal)
    if args.output != "-":
        _load_display_meanwhile()
    from concurrent.futures import ThreadPoolExecutor

    # Exercises are graded side by side, one per CPU: each grading process claims a CPU of its own,
    # so none of them waits for another or runs short of its time limits.
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=min(len(exercises), cpus)) as pool:
        graded = list(pool.map(lambda exercise: _grade_one(args, kit, exercise), exercises))
    reports = [report for report, _ in graded]
    where = [path for _, written in graded for path in written]
    if args.all:
        from grader.scoring import summarize

        document = summarize(reports)
    else:
        document = reports[0]
    _deliver(args, terminal, document, where, exercises)
    if document["status"] == "pass" or args.exit_zero:
        return EXIT_PASS
    return EXIT_LOST_POINTS


def _one_line_errors() -> tuple[type[Exception], ...]:
    """The errors `grade` prints as one line with exit 2: KitError, and SandboxError once the sandbox is loaded.

    Only code that imported the sandbox can raise SandboxError, and the progress list never imports
    it, so it is looked up rather than imported here.
    """
    sandbox = sys.modules.get("grader.sandbox")
    return (KitError, sandbox.SandboxError) if sandbox is not None else (KitError,)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point."""
    # Before anything else: the sandbox needs POSIX (fork, rlimits, process groups), so native
    # Windows gets one line instead of an ImportError from deep inside.
    if os.name == "nt":
        print("grade: native Windows is not supported; run grade inside WSL (Windows Subsystem for Linux)",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        return run(sys.argv[1:] if argv is None else argv, Terminal())
    except _one_line_errors() as exc:  # evaluated when an error arrives, after any import of the sandbox
        print(f"grade: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
