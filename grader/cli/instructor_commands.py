"""The instructor's commands: check, new, export, and batch with its report, merge and diff.

Each takes the arguments `grader.cli.app` parsed and the console, and returns the exit code; a
KitError escapes to `grader.cli.app`, which says it in one line with exit code 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from grader.catalog import Kit, KitError, load_exercise

if TYPE_CHECKING:
    from rich.console import Console

    from grader.classroom import ClassGrades, LmsFormat, Matching, Roster

EXIT_PASS = 0
EXIT_LOST_POINTS = 1


def run_check(args: argparse.Namespace, console: Console) -> int:
    """One line per exercise: what held, or every problem found; exit 1 if any exercise is unsound."""
    from grader.cli import instructor_view as display
    from grader.authoring import DEFAULT_SEEDS, check_exercise, check_fairness, fair_seeds
    from grader.grading import grading_launcher

    kit = Kit.find(Path.cwd(), args.kit)
    if args.all == bool(args.exercises):
        raise KitError("name the exercises to check, or pass --all")
    folders = kit.exercise_folders() if args.all else [kit.resolve(name).path for name in args.exercises]
    if args.mutation_report:
        return _mutation_report(kit, folders, args, console)
    sound = True
    # Every grading process of the command is forked from one launcher, which imports pytest once.
    with grading_launcher() as launcher:
        for folder in folders:
            try:
                exercise = load_exercise(folder)
            except KitError as exc:
                display.print_soundness(console, folder.name, [], [str(exc)])
                sound = False
                continue
            if args.fair_seeds:
                result = check_fairness(kit, exercise, fair_seeds(args.fair_seeds), jobs=args.jobs, launcher=launcher)
            else:
                result = check_exercise(kit, exercise, seeds=args.seeds or DEFAULT_SEEDS, jobs=args.jobs,
                                        launcher=launcher)
            display.print_soundness(console, exercise.name, result.facts, result.problems)
            sound = sound and result.ok
    return EXIT_PASS if sound else EXIT_LOST_POINTS


def _mutation_report(kit: Kit, folders: list[Path], args: argparse.Namespace, console: Console) -> int:
    """Advisory, so it exits 0 whatever survives: one line per exercise, then each survivor as a diff."""
    from rich.text import Text

    from grader.authoring import mutation_report, survivor_diff
    from grader.known_mistakes import load_equivalent

    for folder in folders:
        exercise = load_exercise(folder)
        report = mutation_report(kit, exercise, load_equivalent(exercise, kit.root), jobs=args.jobs)
        total = len(report.killed) + len(report.survived)
        console.print(Text(f"{exercise.name}: {len(report.killed)} of {total} operator mutants killed "
                           f"({report.score:.0%}), {len(report.equivalent)} marked equivalent, "
                           f"{len(report.survived)} survived", style="bold"))
        if report.stale:
            console.print(Text(f"{exercise.name}: marked equivalent but no longer made, so the reference changed "
                               f"under them: {', '.join(report.stale)}", style="yellow"))
        reference = (exercise.solution_dir(kit.root) / exercise.module).read_text(encoding="utf-8")
        for mutant in report.survived:
            console.print(Text(survivor_diff(reference, mutant, exercise.module)))
    return EXIT_PASS


def run_new(args: argparse.Namespace, console: Console) -> int:
    """`grade new ex10 slug "Title"`: scaffold an exercise that passes `grade check` at once."""
    from rich.text import Text

    from grader.authoring import scaffold

    kit = Kit.find(Path.cwd(), args.kit)
    for path in scaffold(kit, args.id, args.slug, args.title):
        console.print(Text(f"  created {path.relative_to(kit.root)}"))
    console.print(Text.assemble("Next: write the task, the checks and the solutions, then run ",
                                (f"grade check {args.id}", "bold"), ". See docs/authoring.md."))
    return EXIT_PASS


def run_export(args: argparse.Namespace, console: Console) -> int:
    """`grade export DIR` (student handout) or `grade export --gradescope FILE.zip` (autograder bundle)."""
    from rich.text import Text

    from grader.authoring import export_gradescope, export_handout
    from grader.report import DEFAULT_HIDDEN_VISIBILITY

    kit = Kit.find(Path.cwd(), args.kit)
    if (args.target is None) == (args.gradescope is None):
        raise KitError("give either a folder for the handout or --gradescope FILE.zip")
    if args.gradescope is not None:
        if args.notebooks:
            raise KitError("--notebooks goes with a handout folder; the Gradescope bundle grades what is submitted")
        exercise = kit.resolve(args.exercise) if args.exercise else None
        export_gradescope(kit, args.gradescope, exercise,
                          hidden_visibility=args.hidden_visibility or DEFAULT_HIDDEN_VISIBILITY)
        console.print(Text(f"Gradescope bundle written to {args.gradescope}"))
        return EXIT_PASS
    if args.exercise:
        raise KitError("--exercise goes with --gradescope; the handout holds every exercise")
    if args.hidden_visibility:
        raise KitError("--hidden-visibility goes with --gradescope; a handout holds no hidden checks")
    names = export_handout(kit, args.target, notebooks=args.notebooks)
    console.print(Text(f"Handout with {len(names)} exercises{' and their notebooks' if args.notebooks else ''} "
                       f"written to {args.target} (no hidden checks, no solutions)"))
    return EXIT_PASS


def run_batch(args: argparse.Namespace, console: Console) -> int:
    """`grade batch DIR --exercise exNN|--all --jobs N --out OUT`: grade a class into reports and grades.csv."""
    from grader import classroom
    from grader.cli import instructor_view as display
    from grader.grading import grading_launcher

    _refuse_bad_gradebook(args)
    kit = Kit.find(Path.cwd(), args.kit)
    exercises = kit.exercises() if args.all else [kit.resolve(args.exercise)]
    students = roster = classroom.find_students(args.folder)
    classroom.ClassFolder(args.out).refuse_earlier_layout()  # not a folder half in each layout
    if args.shard is not None:
        students = [student for student in roster if classroom.shard_of(student.name, args.shard.count) == args.shard.index]
    lms = matching = None
    if args.gradebook is not None:  # before grading: a roster that does not fit costs no grading run
        lms = classroom.LMS_FORMATS[args.gradebook]
        matching = _matched_roster(classroom.read_roster(args.roster, lms), [student.name for student in students],
                                   args.folder, allow_missing=args.allow_missing)
    modules: dict[tuple[str, str], str | None] = {}
    with display.batch_progress(console) as progress, grading_launcher() as launcher:
        task = progress.add_task("grading", total=len(students) * len(exercises))
        results, reasons = classroom.run_batch(kit, exercises, students, args.out, jobs=args.jobs, force=args.force,
                                               seed=args.seed, advance=lambda: progress.advance(task),
                                               launcher=launcher, modules=modules)
    out = classroom.ClassFolder(args.out)
    classroom.write_gradebook(results, [exercise.id for exercise in exercises], out.gradebook)
    display.print_batch_summary(console, classroom.distribution(results, exercises), len(exercises), reasons,
                                out.gradebook)
    if args.shard is not None:
        from rich.text import Text

        classroom.write_manifest(args.out, args.shard, [s.name for s in students], [s.name for s in roster], exercises,
                       args.seed)
        console.print(Text(f"Shard {args.shard} of the class: {len(students)} of its {len(roster)} students. "
                           "Put the shards together with grade batch merge OUT SHARD_DIRS..."))
    _compare_submissions(args, exercises, students, roster, console, modules)
    if students:
        classroom.write_class_report(classroom.attempts_of(results), args.out)
        _said_class_report(console, args.out)
    if lms is not None:
        _write_lms_gradebook(console, lms, classroom.class_grades(classroom.attempts_of(results), args.out), matching,
                             args.out)
    return EXIT_PASS


def _compare_submissions(args: argparse.Namespace, exercises: list, students: list, roster: list, console: Console,
                         modules: dict[tuple[str, str], str | None]) -> None:
    """Compare the students' submissions into OUT/similar.csv and similarity.json, unless told not to, on --jobs
    processes; `modules` are those the grades already laid out."""
    from grader import classroom
    from grader.cli import instructor_view as display

    if args.no_similarity:  # the page must not show a comparison of submissions this run never read
        classroom.forget_similarity(args.out)
        return
    threshold = classroom.DEFAULT_THRESHOLD if args.similarity_threshold is None else args.similarity_threshold
    # A shard compares its own students, and keeps their tokenised modules: `grade batch merge`
    # compares the whole class from every shard's, so no module is tokenised twice.
    keep = None if args.shard is None else classroom.modules_keeper(args.out, [s.name for s in roster], threshold)
    with display.batch_progress(console) as progress:
        task = progress.add_task("comparing", total=len(exercises))
        similar = classroom.compare_class(exercises, students, threshold, advance=lambda: progress.advance(task),
                                          known=modules, jobs=args.jobs, keep=keep)
    classroom.write_similarity(similar, args.out)
    display.print_similarity(console, similar, classroom.ClassFolder(args.out).similar_table)


def _refuse_bad_gradebook(args: argparse.Namespace) -> None:
    """--roster and --allow-missing go with --gradebook, which needs a roster and the whole class."""
    if args.gradebook is None:
        for flag, given in (("--roster", args.roster is not None), ("--allow-missing", args.allow_missing)):
            if given:
                raise KitError(f"{flag} goes with --gradebook LMS: it says how to write an LMS gradebook")
        return
    if args.roster is None:
        raise KitError(f"--gradebook {args.gradebook} needs --roster CSV: the roster says which {args.gradebook} "
                       "student each submission folder is")
    if args.shard is not None:
        raise KitError("--gradebook needs the whole class, not a shard: merge the shards, then run "
                       "grade batch gradebook OUT --lms LMS --roster CSV")


def _matched_roster(roster: Roster, students: list[str], where: Path, *, allow_missing: bool) -> Matching:
    """The roster against the class; each mismatch goes to stderr, and without --allow-missing stops everything."""
    import sys

    from grader.classroom import match_roster
    from grader.cli.instructor_view import roster_problems

    matching = match_roster(roster, students)
    problems = roster_problems(matching, roster.path, where)
    # Several lines, so they go before the one-line error that ends the command (or as warnings).
    for problem in problems:
        print(f"grade: {'warning: ' if allow_missing else ''}{problem}", file=sys.stderr)
    if problems and not allow_missing:
        raise KitError(f"{roster.path}: does not match {where} ({len(matching.unlisted)} folder(s) with no row, "
                       f"{len(matching.unsubmitted)} row(s) with no submission), so no gradebook was written; fix "
                       "the roster, or pass --allow-missing to write the matched students only")
    if not matching.matched:
        raise KitError(f"{roster.path}: no row names a folder of {where}, so no gradebook was written")
    return matching


def _write_lms_gradebook(console: Console, lms: LmsFormat, grades: ClassGrades, matching: Matching, out: Path) -> None:
    """OUT/gradebook-LMS.csv for the roster's students that have a submission, and where it went."""
    from rich.text import Text

    from grader.classroom import ClassFolder, gradebook_rows, write_lms_gradebook

    path = ClassFolder(out).lms_gradebook(lms.name)
    write_lms_gradebook(lms, gradebook_rows(lms, grades, matching.matched), path)
    console.print(Text(f"{lms.title} gradebook: {path} ({len(matching.matched)} students, {len(grades.exercises)} "
                       "exercise(s); docs/gradebooks.md says how to import it)"))


def run_batch_gradebook(args: argparse.Namespace, console: Console) -> int:
    """`grade batch gradebook OUT --lms LMS --roster CSV`: OUT's grades as that LMS imports them, grading nothing."""
    from grader.classroom import LMS_FORMATS, read_class_grades, read_roster

    lms = LMS_FORMATS[args.lms]
    grades = read_class_grades(args.out)
    matching = _matched_roster(read_roster(args.roster, lms), list(grades.scores), args.out,
                               allow_missing=args.allow_missing)
    _write_lms_gradebook(console, lms, grades, matching, args.out)
    return EXIT_PASS


def _said_class_report(console: Console, out: Path) -> None:
    """Where the class report and the per-check table went."""
    from rich.text import Text

    from grader.classroom import ClassFolder

    folder = ClassFolder(out)
    console.print(Text(f"Class report: {folder.page} (per check: {folder.checks_table}; "
                       f"per known mistake: {folder.mistakes_table})"))


def run_batch_report(args: argparse.Namespace, console: Console) -> int:
    """`grade batch report OUT`: rebuild report.html and checks.csv from the reports in OUT, grading nothing."""
    from rich.text import Text

    from grader.classroom import read_reports, write_class_report

    analysis = write_class_report(read_reports(args.out), args.out)
    console.print(Text(f"Read the reports of {len(analysis.students)} students on {len(analysis.exercises)} "
                       "exercise(s)."))
    _said_class_report(console, args.out)
    return EXIT_PASS


def run_batch_merge(args: argparse.Namespace, console: Console) -> int:
    """`grade batch merge OUT SHARD_DIRS...`: the shards of one class as one folder, as if graded at once."""
    from rich.text import Text

    from grader.classroom import ClassFolder, merge_shards, read_reports, write_class_report, write_gradebook

    results, exercise_ids = merge_shards(args.shards, args.out)
    gradebook = ClassFolder(args.out).gradebook
    write_gradebook(results, exercise_ids, gradebook)
    console.print(Text(f"Merged {len(args.shards)} shards: {len(results)} students on {len(exercise_ids)} "
                       f"exercise(s), grades in {gradebook}"))
    if results:
        write_class_report(read_reports(args.out), args.out)
        _said_class_report(console, args.out)
    return EXIT_PASS



def run_batch_diff(args: argparse.Namespace, console: Console) -> int:
    """`grade batch diff OLD NEW`: every mark a regrade changed, on screen and in NEW/changes.csv; exit 0 either way."""
    from grader.cli import instructor_view as display
    from grader.classroom import ClassFolder, diff_folders, write_changes

    regrade = diff_folders(args.old, args.new)  # both folders read in full before anything is written
    table = ClassFolder(args.new).changes_table
    write_changes(regrade, table)
    display.print_regrade(console, regrade, table)
    # A report, not a verdict: changed marks are what a regrade is for, so they are no failure.
    return EXIT_PASS


def run_arena(args: argparse.Namespace, console: Console) -> int:
    """`grade arena EXERCISE CLASS --out OUT`: every game played, rated, and written as arena.csv and arena.html."""
    from grader import classroom
    from grader.cli import instructor_view as display

    kit = Kit.find(Path.cwd(), args.kit)
    exercise = kit.resolve(args.exercise)
    students = classroom.find_students(args.folder)
    if not students:
        raise KitError(f"arena {args.folder}: no submissions in the folder")
    with display.batch_progress(console) as progress:
        task = progress.add_task("playing", total=None)
        result = classroom.run_arena(kit, exercise, students, seed=args.seed, jobs=args.jobs,
                                     move_timeout=args.move_timeout, advance=lambda: progress.advance(task),
                                     planned=lambda count: progress.update(task, total=count),
                                     schedule_kind=args.schedule)
    table, page = classroom.write_arena(result, args.out)
    display.print_arena(console, result, table, page)
    return EXIT_PASS
