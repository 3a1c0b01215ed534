"""What `grade` shows an instructor: grade check's verdicts, and a class graded in a batch."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.cli.student_view import print_wrapped
from grader.outcomes import Regraded


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
    """"3 reused (nothing changed), 2 graded (1 new, 1 checks changed)" from counts per reason."""
    reused = reasons.get(Regraded.REUSED, 0)
    graded = {reason: count for reason, count in reasons.items() if reason is not Regraded.REUSED and count}
    why = ", ".join(f"{graded[reason]} {words}" for reason, words in REGRADED_WORDS.items() if reason in graded)
    return f"{reused} reused (nothing changed), {sum(graded.values())} graded" + (f" ({why})" if why else "")


def print_batch_summary(console: Console, stats: dict, exercise_count: int, reasons: Mapping[Regraded, int],
                        gradebook: Path) -> None:
    """How many were graded and why, where the gradebook is, and how the totals spread."""
    console.print(Text(f"Graded {stats['students']} students on {exercise_count} exercise(s): "
                       f"{regraded_words(reasons)}. Gradebook: {gradebook}"))
    if stats["students"]:
        console.print(Text(f"  totals out of {stats['possible']:g}: mean {stats['mean']:.1f}, median "
                           f"{stats['median']:g}, lowest {stats['lowest']:g}, highest {stats['highest']:g}; "
                           f"{stats['full_marks']} with full marks, {stats['errors']} with a submission "
                           "that did not run"))
