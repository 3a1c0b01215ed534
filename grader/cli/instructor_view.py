"""What `grade` shows an instructor: grade check's verdicts, a class graded in a batch, and what a regrade changed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from grader.cli.student_view import print_wrapped
from grader.outcomes import Regraded

if TYPE_CHECKING:
    from grader.classroom import ExerciseSimilarity, Matching, MarkChange, Regrade


def print_soundness(console: Console, name: str, facts: list[str], problems: list[str]) -> None:
    """`grade check`'s line for one exercise: what held, or every problem found."""
    if not problems:
        console.print(Text.assemble((f"✓ {name}", "green"), f": {', '.join(facts)}"))
        return
    console.print(Text.assemble((f"✗ {name}", "red"), f": {len(problems)} problem(s)"))
    for problem in problems:
        print_wrapped(console, Text(problem), 4)


def batch_progress(console: Console):
    """The progress bar of `grade batch`; it disappears when done."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    return Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               console=console, transient=True)


# Why a batch graded a report again, in words.
REGRADED_WORDS = {
    Regraded.NEW: "new", Regraded.FORCED: "--force", Regraded.SUBMISSION: "submission changed",
    Regraded.CHECKS: "checks changed", Regraded.KIT: "kit version changed", Regraded.SEED: "seed changed",
    Regraded.GRADER_ERROR: "an error on the grader's side last time",
    Regraded.CONTENTION: "again alone after CPU contention",
}


def regraded_words(reasons: Mapping[Regraded, int]) -> str:
    """"3 reused (nothing changed), 2 graded (1 new, 1 checks changed)" from counts per reason; a side with
    none is left out ("4 graded (4 new)"), and "nothing graded" when there were none at all."""
    reused = reasons.get(Regraded.REUSED, 0)
    graded = {reason: count for reason, count in reasons.items() if reason is not Regraded.REUSED and count}
    why = ", ".join(f"{graded[reason]} {words}" for reason, words in REGRADED_WORDS.items() if reason in graded)
    parts = [f"{reused} reused (nothing changed)"] if reused else []
    if graded:
        parts.append(f"{sum(graded.values())} graded ({why})")
    return ", ".join(parts) or "nothing graded"


def print_batch_summary(console: Console, stats: dict, exercise_count: int, reasons: Mapping[Regraded, int],
                        gradebook: Path) -> None:
    """How many were graded and why, where the gradebook is, and how the totals spread."""
    console.print(Text(f"Graded {stats['students']} students on {exercise_count} exercise(s): "
                       f"{regraded_words(reasons)}. Gradebook: {gradebook}"))
    if stats["students"]:
        counted = [f"{stats['full_marks']} with full marks" if stats["full_marks"] else "none with full marks"]
        if stats["errors"]:
            counted.append(f"{stats['errors']} with a submission that did not run")
        console.print(Text(f"  totals out of {stats['possible']:g}: mean {stats['mean']:.1f}, median "
                           f"{stats['median']:g}, lowest {stats['lowest']:g}, highest {stats['highest']:g}; "
                           + ", ".join(counted)))


def print_similarity(console: Console, results: list[ExerciseSimilarity], table: Path) -> None:
    """One line: how many pairs of submissions are similar enough to list, on which exercises, and where all are."""
    pairs = sum(result.pairs_compared for result in results)
    flagged = [(result.exercise, result.flagged_count) for result in results if result.flagged_count]
    threshold = f" at or above {results[0].threshold:g}" if results else ""
    where = f" ({', '.join(f'{exercise}: {count}' for exercise, count in flagged)})" if flagged else ""
    count = sum(count for _, count in flagged)
    console.print(Text(f"Similar submissions: {count or 'none'} of {pairs} pairs compared"
                       f"{threshold}{where}. Every pair: {table}"))


def _signed(value: float | None) -> Text:
    """A change of points, "+2" in green or "-1" in red; a dash where there is none to show."""
    if value is None:
        return Text("—")
    return Text(f"{value:+g}", style="green" if value > 0 else "red" if value < 0 else "")


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def _what_changed(change: MarkChange) -> str:
    """The last column: the checks that changed, one a line, or why one of the two reports is missing."""
    from grader.classroom import ChangeKind, check_change_text

    words = {ChangeKind.STUDENT_ONLY_OLD: "student only in OLD", ChangeKind.STUDENT_ONLY_NEW: "student only in NEW",
             ChangeKind.REPORT_ONLY_OLD: "report only in OLD", ChangeKind.REPORT_ONLY_NEW: "report only in NEW"}
    if change.kind in words:
        return words[change.kind]
    return "\n".join(check_change_text(check) for check in change.checks) or "no check changed"


def print_regrade(console: Console, regrade: Regrade, table_path: Path) -> None:
    """`grade batch diff`'s answer: one line when nothing changed, else a table of every changed mark and a summary."""
    from rich.table import Table

    compared = f"{regrade.students} students on {regrade.exercises} exercise(s) compared"
    if not regrade.changes:
        console.print(Text(f"No mark changed: {compared} ({table_path} holds only its header)"))
        return
    table = Table("student", "exercise", "old", "new", "change", "checks")
    for change in regrade.changes:
        # As Text: a str cell is read as rich markup, and a student may name a folder "[/]".
        table.add_row(Text(change.student), change.exercise, _score(change.old), _score(change.new),
                      _signed(change.change), Text(_what_changed(change)))
    console.print(table)
    console.print(Text(f"{len(regrade.changes)} mark(s) changed: {compared}. Changes: {table_path}"))
    for label, names in (("students only in OLD", regrade.students_only_old),
                         ("students only in NEW", regrade.students_only_new),
                         ("exercises only in OLD", regrade.exercises_only_old),
                         ("exercises only in NEW", regrade.exercises_only_new)):
        if names:
            console.print(Text(f"  {label}: {', '.join(names)}"))


# The terminal shows the top of the table; arena.csv and arena.html hold all of it.
ARENA_ROWS_SHOWN = 10


def print_arena(console: Console, result, table: Path, page: Path) -> None:
    """The top of `grade arena`'s table, and where the whole of it went."""
    from rich.table import Table

    swiss = f" (Swiss, {result.rounds} rounds)" if result.rounds else ""
    shown = Table(title=f"{result.exercise.id} arena: {len(result.standings)} players, {len(result.games)} games"
                        f"{swiss}, seed {result.seed}", title_justify="left")
    for column in ("#", "player", "rating", "W", "D", "L", "forfeits"):
        shown.add_column(column, justify="left" if column == "player" else "right")
    for rank, standing in enumerate(result.standings[:ARENA_ROWS_SHOWN], start=1):
        name = standing.player if standing.kind == "student" else f"{standing.player} ({standing.kind})"
        shown.add_row(str(rank), Text(name), f"{standing.rating:.2f}", str(standing.wins), str(standing.draws),
                      str(standing.losses), str(standing.forfeits))
    console.print(shown)
    hidden = len(result.standings) - ARENA_ROWS_SHOWN
    if hidden > 0:
        console.print(Text(f"  ... and {hidden} more"))
    console.print(Text(f"Table: {table}; leaderboard and every game: {page}"))


def roster_problems(matching: Matching, roster: Path, where: Path) -> list[str]:
    """One line per mismatch of a roster and a class: a folder with no row, then a row with no submission."""
    return ([f"{roster}: no row for folder {name}" for name in matching.unlisted]
            + [f"{roster} line {row.line}: {row.folder} has no submission in {where}" for row in matching.unsubmitted])
