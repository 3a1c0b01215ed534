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

from grader.cli.arguments import (
    BATCH_ACTIONS,
    COMMANDS,
    build_batch_action_parser,
    build_command_parser,
    build_parser,
)
from grader.catalog import Exercise, GradeError, Kit, KitError
from grader.report import render
from grader.outcomes import Status

if TYPE_CHECKING:
    from rich.console import Console

    from grader.grading import Launcher, ReadyGrade
    from grader.submission import Submission

EXIT_PASS, EXIT_LOST_POINTS, EXIT_USAGE = 0, 1, 2
# Ctrl-C: 128 + SIGINT, as a shell reports a command its interrupt stopped.
EXIT_INTERRUPTED = 130


class LazyConsole:
    """The rich Console, made on first use: a grade starts its checks before rich is even loaded."""

    def __init__(self):
        self._console: Console | None = None

    def __call__(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(highlight=False)
        return self._console


class TableFirst:
    """A grade's score and check table shown the moment its last check ends (runner.grade's on_table);
    the explanations, diagnosis and notes follow once the grade is done (_deliver)."""

    def __init__(self, terminal: LazyConsole):
        self.terminal = terminal
        self.shown: dict | None = None  # the report as its table was shown

    def __call__(self, report: dict) -> None:
        from grader.cli import student_view as display

        display.print_score_and_table(self.terminal(), report)
        self.shown = report

    def shows(self, report: dict) -> bool:
        """Whether what was shown is still the grade's score: an error after the checks (the grading
        process stopped past its limit) can take every point back, and then the whole report is shown."""
        return self.shown is not None and all(self.shown[key] == report[key] for key in ("status", "score"))


def _load_display_meanwhile() -> None:
    """Import the display (and rich) and prepare it in a thread, while the main thread waits for the checks."""
    import threading

    def prepare() -> None:
        from grader.cli import student_view

        student_view.prepare()

    threading.Thread(target=prepare, daemon=True).start()


def run_command(args: argparse.Namespace, console: Console) -> int:
    """Run a parsed command; each one's module is imported only when it runs."""
    if args.command == "play":
        from grader.cli.play import run_play

        return run_play(args, console)
    if args.command == "hint":
        from grader.cli.student_commands import run_hint

        return run_hint(args, console)
    from grader.cli import instructor_commands as commands

    # Each instructor command "batch diff" is run_batch_diff there, and so on.
    return getattr(commands, "run_" + args.command.replace(" ", "_"))(args, console)


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


def _grade_one(args, kit: Kit, exercise: Exercise, ready: ReadyGrade | None = None,
               launcher: Launcher | None = None, table_first: TableFirst | None = None) -> tuple[dict, list[str]]:
    """Grade one exercise as the arguments say (in `ready`, or forked by `launcher`, when given), showing its
    score and table as soon as its checks end with `table_first`; update reports/ for the student's own work."""
    from grader.grading import grade

    if args.mutant is not None:
        import tempfile

        from grader.known_mistakes import find_mutant, write_mutant
        from grader.submission import Submission

        mutant = find_mutant(exercise, kit.root, args.mutant)
        with tempfile.TemporaryDirectory(prefix="minimax-kit-mutant-") as scratch:
            path = write_mutant(exercise, kit.root, mutant, Path(scratch))
            report = grade(kit, exercise, Submission(path, f"mutant {mutant.name} of {exercise.module}"),
                           seed=args.seed, on_table=table_first)
        return report, []
    submission, own_work = _submission(args, kit, exercise)
    report = (ready.grade(submission, seed=args.seed, on_table=table_first) if ready
              else grade(kit, exercise, submission, seed=args.seed, launcher=launcher, on_table=table_first))
    where = []
    if own_work:
        path = kit.progress_path(exercise)
        from grader.text import write_text

        write_text(path, render(report, "json"))
        where.append(path.relative_to(kit.root).as_posix())
    warning = report["environment"]["sandbox"].get("warning")
    if warning:  # weakened isolation is never silent: it goes to stderr as well as into the report
        print(f"grade: warning: {warning}", file=sys.stderr)
    return report, where


def _format_options(args) -> dict:
    """The options of the report's format that the command line set."""
    return {"hidden_visibility": args.hidden_visibility} if args.hidden_visibility else {}


def _deliver(args, terminal: LazyConsole, document: dict, where: list[str], exercises: list[Exercise],
             table_first: TableFirst | None = None) -> None:
    """Write the report where --output says, and show the result unless the report goes to stdout (only
    what follows the score, where `table_first` has shown the score and table)."""
    if args.output == "-":
        sys.stdout.write(render(document, args.format, **_format_options(args)))
        return
    if args.output:
        from grader.text import write_text

        write_text(Path(args.output), render(document, args.format, **_format_options(args)))
        where = [*where, args.output]
    from grader.cli import student_view as display

    if args.all:
        display.print_overview(terminal(), document, where)
        return

    if table_first is not None and table_first.shows(document):
        display.print_report_rest(terminal(), document, where, exercises[0].withheld_checks())
        return
    if table_first is not None and table_first.shown is not None:
        terminal().print()
    display.print_report(terminal(), document, where, exercises[0].withheld_checks())


def run_watch(args, kit: Kit, exercise: Exercise, terminal: LazyConsole) -> int:
    """Grade the student's file now and on every save until Ctrl-C, which exits 0.

    The next save's grading process is started as soon as a grade is shown, so that pytest's start
    and the checks' collection happen while the student edits (grading.ReadyGrade).
    """
    from rich.text import Text

    from grader.cli.watch import watch_and_grade
    from grader.grading import ReadyGrade

    ready: list[ReadyGrade] = []  # at most one, waiting for the next save

    def grade_once() -> None:
        table_first = TableFirst(terminal)
        try:
            report, where = _grade_one(args, kit, exercise, ready.pop() if ready else None, table_first=table_first)
            _deliver(args, terminal, report, where, [exercise], table_first)
        except GradeError as exc:
            # Said, not fatal: the file may be half-saved, and the next save is graded as usual.
            terminal().print(Text(f"grade: {exc}", style="red"))
        ready.append(ReadyGrade(kit, exercise))

    try:
        watch_and_grade(terminal(), exercise.stub_path, _shown(exercise.stub_path, kit), grade_once)
    finally:
        for waiting in ready:
            waiting.close()
    return EXIT_PASS


def _grade_all(args, kit: Kit, exercises: list[Exercise], ahead: Launcher | None,
               table_first: TableFirst | None = None) -> list[tuple[dict, list[str]]]:
    """Grade each exercise (side by side when several), loading the display meanwhile unless the report goes to
    stdout; the grading processes are forked from `ahead`, if given, or from a launcher started now. One
    exercise's score and table are shown as soon as its checks end, with `table_first`."""
    from grader.grading import ReadyGrade, expected_grade_seconds, grading_launcher, in_parallel

    # Every grading process is forked from one launcher, which imports pytest and the plugins once.
    with grading_launcher(ahead) as launcher:
        if len(exercises) == 1 and args.mutant is None:
            # One grade's pytest starts first, and the display loads while it starts: a thread importing
            # rich beforehand would share this interpreter's lock with everything that comes before it.
            ready = ReadyGrade(kit, exercises[0], launcher=launcher)
            try:
                if args.output != "-":
                    _load_display_meanwhile()
                return [_grade_one(args, kit, exercises[0], ready, table_first=table_first)]
            finally:
                ready.close()  # graded or not (a missing file): its process and folder go
        if args.output != "-":
            _load_display_meanwhile()
        # Exercises are graded side by side, one per CPU: each grading process claims a CPU of its own,
        # so none of them waits for another or runs short of its time limits. The ones whose last grade
        # took longest go first.
        return in_parallel(lambda exercise: _grade_one(args, kit, exercise, launcher=launcher, table_first=table_first),
                           exercises, cost=expected_grade_seconds)


def run(argv: list[str], terminal: LazyConsole, launcher: Launcher | None = None) -> int:
    """Everything `grade` does, returning the exit code; KitError escapes as a usage error."""
    # A first word that names a command is that command; anything else is grade's own command line.
    if argv[:1] == ["batch"] and len(argv) > 1 and argv[1] in BATCH_ACTIONS:
        return run_command(build_batch_action_parser(argv[1]).parse_args(argv[2:]), terminal())
    if argv and argv[0] in COMMANDS:
        return run_command(build_command_parser().parse_args(argv), terminal())
    args = build_parser().parse_args(argv)
    _refuse_bad_watch(args)
    if args.hidden_visibility is not None and args.format != "gradescope":
        raise KitError(f"--hidden-visibility is a Gradescope setting: it goes with --format gradescope, "
                       f"not --format {args.format}")
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
        from grader.cli import student_view as display

        display.print_progress(terminal(), kit, [display.read_progress(kit, exercise) for exercise in kit.exercises()])
        return EXIT_PASS
    else:
        exercises = [kit.resolve(args.exercise)]
    if args.watch:
        return run_watch(args, kit, exercises[0], terminal)
    # One exercise's score and table come first, as soon as its checks end; --all shows an overview.
    table_first = TableFirst(terminal) if not args.all and args.output != "-" else None
    graded = _grade_all(args, kit, exercises, launcher, table_first)
    reports = [report for report, _ in graded]
    where = [path for _, written in graded for path in written]
    if args.all:
        from grader.report import summarize

        document = summarize(reports)
    else:
        document = reports[0]
    _deliver(args, terminal, document, where, exercises, table_first)
    if document["status"] == Status.PASS or args.exit_zero:
        return EXIT_PASS
    return EXIT_LOST_POINTS


def main(argv: list[str] | None = None, launcher: Launcher | None = None) -> int:
    """Everything `grade` does, with the exit code; `launcher`, if given, is the one its grades use (entry.py)."""
    # Before anything else: the sandbox needs POSIX (fork, rlimits, process groups), so native
    # Windows gets one line instead of an ImportError from deep inside.
    if os.name == "nt":
        print("grade: native Windows is not supported; run grade inside WSL (Windows Subsystem for Linux)",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        return run(sys.argv[1:] if argv is None else argv, LazyConsole(), launcher)
    except GradeError as exc:  # a fault in the kit, a usage error, or a sandbox that cannot be set up
        print(f"grade: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C: a grade closes its processes and run folder on its way out
        print("grade: stopped by Ctrl-C", file=sys.stderr)
        return EXIT_INTERRUPTED

