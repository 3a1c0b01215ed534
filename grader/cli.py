"""The `grade` command: parse arguments, grade, print a summary, write the report, exit 0/1/2."""

from __future__ import annotations

import argparse
import json
import os
import sys
import zipfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grader.batch import distribution, find_students, run_batch, write_gradebook
from grader.catalog import Exercise, Kit, KitError, load_exercise
from grader.export import export_gradescope, export_handout, withheld_checks
from grader.formats import FORMATS, render
from grader.runner import Submission, grade
from grader.sandbox import SandboxError
from grader.scaffold import scaffold
from grader.scoring import summarize
from grader.validation import DEFAULT_SEEDS, check_exercise

EXIT_PASS, EXIT_LOST_POINTS, EXIT_USAGE = 0, 1, 2
OUTCOME_MARKS = {"passed": "[green]✓[/]", "failed": "[red]✗[/]", "error": "[red]![/]",
                 "timeout": "[yellow]⏱[/]", "crashed": "[red]☠[/]"}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2."""

    def error(self, message):
        raise KitError(message)


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


def print_summary(console: Console, report: dict, where: list[str]) -> None:
    """One line per check with its points, the message of each failure, the total and the report's place."""
    exercise = report["exercise"]
    console.print(f"[bold]{exercise['id']} {escape(exercise['title'])}[/]  ({escape(report['submission']['path'])})")
    for test in report["tests"]:
        mark = OUTCOME_MARKS[test["outcome"]]
        tag = "" if test["visibility"] == "public" else " [dim](hidden)[/]"
        console.print(f"  {mark} {escape(test['name'])}{tag}  [dim]{test['score']:g}/{test['max_score']:g}[/]")
        if test["outcome"] != "passed" and test["message"]:
            for line in test["message"].splitlines()[:12]:
                console.print(f"      [dim]{escape(line)}[/]")
        if test["outcome"] != "passed" and test["output"]:
            console.print("      [dim]your output:[/]")
            for line in test["output"].splitlines()[:6]:
                console.print(f"      [dim]| {escape(line)}[/]")
    if report["message"]:
        console.print(f"[bold red]{escape(report['message'])}[/]")
    colour = {"pass": "green", "fail": "yellow", "error": "red"}[report["status"]]
    console.print(f"[bold {colour}]Score {report['score']:g}/{report['max_score']:g} ({report['status']})[/]  "
                  f"[dim]seed {report['seed']}[/]")
    for path in where:
        console.print(f"[dim]Report written to {escape(path)}[/]")


def print_overview(console: Console, summary: dict, where: list[str]) -> None:
    """One line per exercise with its score and status, then the total, for `grade --all`."""
    colours = {"pass": "green", "fail": "yellow", "error": "red"}
    for report in summary["exercises"]:
        exercise = report["exercise"]
        line = f"  {exercise['id']} {escape(exercise['title'])}  {report['score']:g}/{report['max_score']:g}"
        console.print(f"{line}  [{colours[report['status']]}]{report['status']}[/]")
        if report["message"]:
            console.print(f"      [dim]{escape(report['message'])}[/]")
    colour = colours[summary["status"]]
    console.print(f"[bold {colour}]Total {summary['score']:g}/{summary['max_score']:g} ({summary['status']})[/]")
    for path in where:
        console.print(f"[dim]Report written to {escape(path)}[/]")


def list_progress(console: Console, kit: Kit) -> None:
    """The exercises with each one's last score and status, like `rustlings list`."""
    table = Table(show_header=True, header_style="bold")
    for column in ("exercise", "title", "last score", "status"):
        table.add_column(column)
    for exercise in kit.exercises():
        try:
            last = json.loads((kit.root / "reports" / f"{exercise.id}.json").read_text(encoding="utf-8"))
            score = f"{last['score']:g}/{last['max_score']:g}"
            status = "[green]done[/]" if last["status"] == "pass" else "[yellow]partial[/]"
        except (OSError, ValueError, KeyError, TypeError):
            score, status = "-", "[dim]not started[/]"
        table.add_row(exercise.name, escape(exercise.title), score, status)
    console.print(table)
    console.print("Grade one with [bold]grade ex04[/]; see the reference's full marks with [bold]grade ex04 --solution[/].")


def _submission(args, kit: Kit, exercise: Exercise) -> tuple[Submission, bool]:
    """What to grade, and whether it is the student's own file in the kit (which updates reports/)."""
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
    for number, hint in enumerate(exercise.hints[:shown], start=1):
        console.print(f"[bold]Hint {number} of {len(exercise.hints)}[/] ({exercise.id}): {escape(hint)}")
    if shown == len(exercise.hints):
        console.print("[dim]That is the last hint.[/]")
    else:
        console.print(f"[dim]Run grade hint {exercise.id} again for the next one.[/]")
    return EXIT_PASS


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(_seed(part) for part in text.split(","))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"expected seeds such as 1,2,3: {exc}") from None
    return seeds


def build_check_parser() -> argparse.ArgumentParser:
    """The command line of `grade check`."""
    parser = _Parser(prog="grade check", description="Prove exercises sound: reference, alt/, wrong/ and stub.")
    parser.add_argument("exercises", nargs="*", help="exercises to check (default with --all: every one)")
    parser.add_argument("--all", action="store_true", help="check every exercise")
    parser.add_argument("--seeds", type=_seeds, default=DEFAULT_SEEDS, help="seeds for the wrong/ solutions (1,2,3)")
    parser.add_argument("--jobs", type=_jobs, default=None, help="grading runs at once (default: one per core)")
    _add_kit_option(parser)
    return parser


def run_check(argv: list[str], console: Console) -> int:
    """One line per exercise: what held, or every problem found; exit 1 if any exercise is unsound."""
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
            console.print(f"[red]✗ {folder.name}[/]: {escape(str(exc))}")
            sound = False
            continue
        result = check_exercise(kit, exercise, seeds=args.seeds, jobs=args.jobs)
        if result.ok:
            console.print(f"[green]✓ {exercise.name}[/]: {escape(', '.join(result.facts))}")
        else:
            sound = False
            console.print(f"[red]✗ {exercise.name}[/]: {len(result.problems)} problem(s)")
            for problem in result.problems:
                console.print(f"    {escape(problem)}")
    return EXIT_PASS if sound else EXIT_LOST_POINTS


def run_new(argv: list[str], console: Console) -> int:
    """`grade new ex10 slug "Title"`: scaffold an exercise that passes `grade check` at once."""
    parser = _Parser(prog="grade new", description="Scaffold a new exercise and its solution folders.")
    parser.add_argument("id", help="the new id, such as ex10")
    parser.add_argument("slug", help="the folder suffix and module name, such as endgame_tables")
    parser.add_argument("title", help='the title, such as "Endgame tables"')
    _add_kit_option(parser)
    args = parser.parse_args(argv)
    kit = Kit.find(Path.cwd(), args.kit)
    for path in scaffold(kit, args.id, args.slug, args.title):
        console.print(f"  created {escape(str(path.relative_to(kit.root)))}")
    console.print(f"Next: write the task, the checks and the solutions, then run [bold]grade check {args.id}[/]. "
                  "See docs/authoring.md.")
    return EXIT_PASS


def run_export(argv: list[str], console: Console) -> int:
    """`grade export DIR` (student handout) or `grade export --gradescope FILE.zip` (autograder bundle)."""
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
        console.print(f"Gradescope bundle written to {escape(str(args.gradescope))}")
        return EXIT_PASS
    if args.exercise:
        raise KitError("--exercise goes with --gradescope; the handout holds every exercise")
    names = export_handout(kit, args.target)
    console.print(f"Handout with {len(names)} exercises written to {escape(str(args.target))} "
                  "(no hidden checks, no solutions)")
    return EXIT_PASS


def run_batch_command(argv: list[str], console: Console) -> int:
    """`grade batch DIR --exercise exNN|--all --jobs N --out OUT`: grade a class into reports and grades.csv."""
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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("grading", total=len(students) * len(exercises))
        results, reused = run_batch(kit, exercises, students, args.out, jobs=args.jobs, force=args.force,
                                    seed=args.seed, advance=lambda: progress.advance(task))
    write_gradebook(results, exercises, args.out / "grades.csv")
    stats = distribution(results, exercises)
    console.print(f"Graded {stats['students']} students on {len(exercises)} exercise(s)"
                  f" ({reused} unchanged and not regraded). Gradebook: {escape(str(args.out / 'grades.csv'))}")
    if stats["students"]:
        console.print(f"  totals out of {stats['possible']:g}: mean {stats['mean']:.1f}, median {stats['median']:g}, "
                      f"lowest {stats['lowest']:g}, highest {stats['highest']:g}; "
                      f"{stats['full_marks']} with full marks, {stats['errors']} with a submission that did not run")
    return EXIT_PASS


SUBCOMMANDS = {"hint": run_hint, "check": run_check, "new": run_new, "export": run_export,
               "batch": run_batch_command}


def run(argv: list[str], console: Console) -> int:
    """Everything `grade` does, returning the exit code; KitError escapes as a usage error."""
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:], console)
    args = build_parser().parse_args(argv)
    kit = Kit.find(Path.cwd(), args.kit)
    if args.all:
        if args.exercise is not None:
            raise KitError("name one exercise or pass --all, not both")
        if args.submission is not None and args.submission.is_file() and not zipfile.is_zipfile(args.submission):
            raise KitError(f"--submission {args.submission}: with --all, give a folder or a .zip holding every module")
        exercises = kit.exercises()
    elif args.exercise is None:
        list_progress(console, kit)
        return EXIT_PASS
    else:
        exercises = [kit.resolve(args.exercise)]
    reports, where = [], []
    for exercise in exercises:
        submission, own_work = _submission(args, kit, exercise)
        report = grade(kit, exercise, submission, seed=args.seed)
        if own_work:
            _write(kit.root / "reports" / f"{exercise.id}.json", render(report, "json"))
            where.append(f"reports/{exercise.id}.json")
        reports.append(report)
        warning = report["environment"]["sandbox"].get("warning")
        if warning:  # weakened isolation is never silent: it goes to stderr as well as into the report
            print(f"grade: warning: {warning}", file=sys.stderr)
    document = summarize(reports) if args.all else reports[0]
    if args.output == "-":
        sys.stdout.write(render(document, args.format))
    else:
        if args.output:
            _write(Path(args.output), render(document, args.format))
            where.append(args.output)
        if args.all:
            print_overview(console, document, where)
        else:
            print_summary(console, document, where)
            withheld = withheld_checks(exercises[0])
            if withheld:
                console.print(f"[dim]These were the public checks. When your work is marked, {withheld['checks']} "
                              f"hidden checks worth {withheld['points']:g} points also run.[/]")
    if document["status"] == "pass" or args.exit_zero:
        return EXIT_PASS
    return EXIT_LOST_POINTS


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point."""
    if os.name == "nt":
        print("grade: Windows is not supported yet; use Linux, macOS or WSL", file=sys.stderr)
        return EXIT_USAGE
    console = Console(highlight=False)
    try:
        return run(sys.argv[1:] if argv is None else argv, console)
    except (KitError, SandboxError) as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
