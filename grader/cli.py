"""The `grade` command: parse arguments, dispatch, write the report, exit 0/1/2; `display` does the showing.

Only what the progress list needs is imported at the top: `grade` alone must answer at once, so
the runner, the sandbox, pytest and the other commands' modules are imported where they are used.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from grader.catalog import Exercise, Kit, KitError
from grader.formats import FORMATS, render
from grader.outcomes import Status

if TYPE_CHECKING:
    from rich.console import Console

    from grader.submission import Submission

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


# Every command but grading itself: its one-line help, and where its code lives (imported when used).
COMMANDS = {
    "hint": "show the next hint for an exercise",
    "play": "play a game in the terminal against your own code (or the reference)",
    "check": "instructors: prove exercises sound (reference, alt/, wrong/, stub)",
    "new": "instructors: scaffold a new exercise and its solution folders",
    "export": "instructors: write the student handout or a Gradescope autograder bundle",
    "batch": "instructors: grade a class into one report per submission and grades.csv",
}


def build_parser() -> argparse.ArgumentParser:
    """The command line of `grade` itself: grade an exercise, every exercise, or (with neither) list progress."""
    commands = "\n".join(f"  {name:<8}{text}" for name, text in COMMANDS.items())
    parser = _Parser(
        prog="grade", usage="grade [EXERCISE | --all] [options]\n       grade COMMAND [options]",
        description="Grade minimax-kit exercises. With no exercise, list your progress.",
        epilog=f"commands (grade COMMAND --help for each):\n{commands}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("exercise", nargs="?", help="ex04, ex04_alpha_beta or alpha_beta")
    parser.add_argument("--all", action="store_true", help="grade every exercise and print one summary")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--submission", type=Path, metavar="PATH", help="grade this file, folder or .zip instead")
    source.add_argument("--solution", action="store_true", help="grade the reference solution")
    source.add_argument("--mutant", metavar="NAME",
                        help="grade a known mistake of the reference (its mutants.toml), as a student who made it")
    parser.add_argument("--seed", type=_seed, help="reproduce a run exactly (default: derived from the code)")
    parser.add_argument("--format", choices=FORMATS, default="json", help="format of the report file")
    parser.add_argument("--output", metavar="FILE", help="where the report goes; - for stdout (no summary)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 whenever a report was written")
    parser.add_argument("--watch", action="store_true", help="grade your file again on every save (Ctrl-C stops)")
    _add_kit_option(parser)
    return parser


def build_command_parser() -> argparse.ArgumentParser:
    """The commands, as argparse subparsers: `grade COMMAND ...` and `grade COMMAND --help`."""
    parser = _Parser(prog="grade", description="The commands of grade besides grading.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, text in COMMANDS.items():
        command = subparsers.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        ARGUMENTS[name](command)
        _add_kit_option(command)
    return parser


def _hint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("exercise", help="ex04, ex04_alpha_beta or alpha_beta")
    parser.add_argument("--all", action="store_true", help="show every hint at once")


def _play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help="the game to play; with none, list the games")
    parser.add_argument("--solution", action="store_true", help="play against the reference solution instead")
    parser.add_argument("--first", choices=("you", "ai"), help="who moves first (default: asked)")


def _check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("exercises", nargs="*", help="exercises to check (default with --all: every one)")
    parser.add_argument("--all", action="store_true", help="check every exercise")
    parser.add_argument("--seeds", type=_seeds, help="seeds for the wrong/ solutions, such as 1,2,3 (default: three)")
    parser.add_argument("--jobs", type=_jobs, default=None, help="grading runs at once (default: one per CPU)")
    parser.add_argument("--mutation-report", action="store_true",
                        help="advisory: grade automatic operator mutants of each reference; show the score and "
                             "each survivor as a diff")


def _new_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="the new id, such as ex10")
    parser.add_argument("slug", help="the folder suffix and module name, such as endgame_tables")
    parser.add_argument("title", help='the title, such as "Endgame tables"')


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", type=Path, help="folder for the student handout")
    parser.add_argument("--gradescope", type=Path, metavar="FILE.zip", help="write a Gradescope autograder zip")
    parser.add_argument("--exercise", help="with --gradescope: one exercise per assignment (default: all)")


def _batch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, help="the class's submissions")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--exercise", help="the exercise every submission is for")
    which.add_argument("--all", action="store_true", help="grade every exercise for every student")
    parser.add_argument("--jobs", type=_jobs, default=None, help="submissions graded at once (default: one per CPU)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the reports and grades.csv")
    parser.add_argument("--force", action="store_true", help="regrade even unchanged submissions")
    parser.add_argument("--seed", type=_seed, help="the same seed for every submission")


ARGUMENTS = {"hint": _hint_arguments, "play": _play_arguments, "check": _check_arguments, "new": _new_arguments,
             "export": _export_arguments, "batch": _batch_arguments}


def run_command(args: argparse.Namespace, console: Console) -> int:
    """Run a parsed command; each one's module is imported only when it runs."""
    if args.command == "play":
        from grader.play import run_play

        return run_play(args, console)
    from grader import commands

    runs = {"hint": commands.run_hint, "check": commands.run_check, "new": commands.run_new,
            "export": commands.run_export, "batch": commands.run_batch}
    return runs[args.command](args, console)


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
    from grader.submission import Submission

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


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(_seed(part) for part in text.split(","))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"expected seeds such as 1,2,3: {exc}") from None
    return seeds


def _refuse_bad_watch(args) -> None:
    """--watch grades the student's own file again on each save, so it goes with one exercise and a summary."""
    if not args.watch:
        return
    clashes = [flag for flag, given in (("--all", args.all), ("--solution", args.solution),
                                        ("--mutant", args.mutant is not None),
                                        ("--submission", args.submission is not None),
                                        ("--output -", args.output == "-")) if given]
    if clashes:
        raise KitError(f"--watch cannot go with {clashes[0]}: it grades your own file again each time you save it")
    if args.exercise is None:
        raise KitError("--watch needs an exercise, such as grade ex04 --watch")


def _grade_one(args, kit: Kit, exercise: Exercise) -> tuple[dict, list[str]]:
    """Grade one exercise as the arguments say; update reports/ for the student's own work."""
    from grader.runner import grade

    if args.mutant is not None:
        import tempfile

        from grader.mutants import find_mutant, write_mutant
        from grader.submission import Submission

        mutant = find_mutant(exercise, kit.root, args.mutant)
        with tempfile.TemporaryDirectory(prefix="minimax-kit-mutant-") as scratch:
            path = write_mutant(exercise, kit.root, mutant, Path(scratch))
            report = grade(kit, exercise, Submission(path, f"mutant {mutant.name} of {exercise.module}"), seed=args.seed)
        return report, []
    submission, own_work = _submission(args, kit, exercise)
    report = grade(kit, exercise, submission, seed=args.seed)
    where = []
    if own_work:
        path = kit.progress_path(exercise)
        from grader.commands import write_text

        write_text(path, render(report, "json"))
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
        from grader.commands import write_text

        write_text(Path(args.output), render(document, args.format))
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

    from grader.isolation import SandboxError
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
    # A first word that names a command is that command; anything else is grade's own command line.
    if argv and argv[0] in COMMANDS:
        return run_command(build_command_parser().parse_args(argv), terminal())
    args = build_parser().parse_args(argv)
    _refuse_bad_watch(args)
    kit = Kit.find(Path.cwd(), args.kit)
    if args.all:
        if args.exercise is not None:
            raise KitError("name one exercise or pass --all, not both")
        if args.mutant is not None:
            raise KitError("--mutant names a mistake of one exercise: give the exercise, not --all")
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
    from grader.runner import in_parallel

    # Exercises are graded side by side, one per CPU: each grading process claims a CPU of its own,
    # so none of them waits for another or runs short of its time limits.
    graded = in_parallel(lambda exercise: _grade_one(args, kit, exercise), exercises)
    reports = [report for report, _ in graded]
    where = [path for _, written in graded for path in written]
    if args.all:
        from grader.scoring import summarize

        document = summarize(reports)
    else:
        document = reports[0]
    _deliver(args, terminal, document, where, exercises)
    if document["status"] == Status.PASS or args.exit_zero:
        return EXIT_PASS
    return EXIT_LOST_POINTS


def _one_line_errors() -> tuple[type[Exception], ...]:
    """The errors `grade` prints as one line with exit 2: KitError, and SandboxError once the sandbox is loaded.

    Only code that imported the sandbox can raise SandboxError, and the progress list never imports
    it, so it is looked up rather than imported here.
    """
    sandbox = sys.modules.get("grader.isolation")
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
