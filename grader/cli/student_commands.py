"""The student's commands besides grading and playing: hint.

Each takes the arguments `grader.cli.app` parsed and the console, and returns the exit code.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from grader.catalog import Kit
from grader.text import write_text

if TYPE_CHECKING:
    from rich.console import Console

EXIT_PASS = 0


def run_hint(args: argparse.Namespace, console: Console) -> int:
    """Show the hints seen so far plus the next one, and remember how far the student got."""
    from grader.cli import student_view as display

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
    write_text(record, json.dumps(seen, indent=2) + "\n")
    display.print_hints(console, exercise, shown)
    return EXIT_PASS


