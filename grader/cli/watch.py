"""`grade exNN --watch`: grade the student's file again each time it is saved, until Ctrl-C."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.text import Text

from grader.cli.student_view import print_wrapped

# How often, in milliseconds, the watcher wakes when nothing changed; see watch_and_grade for why.
IDLE_WAKE_MS = 200


def watch_and_grade(console: Console, path: Path, shown_as: str, grade_once: Callable[[], None]) -> None:
    """Run `grade_once` now and after every save of `path`; return when the student presses Ctrl-C."""
    import watchfiles  # here, not at the top: it brings in anyio, which nothing else in `grade` needs

    def is_the_file(change, changed: str) -> bool:
        # Editors often save by writing another file and renaming it, so the folder is watched.
        return Path(changed).name == path.name

    # The watcher starts before the first grading, so a save made while a grading runs is seen
    # afterwards; it wakes on timeouts too, which is what starts the first grading.
    changes = watchfiles.watch(path.parent, watch_filter=is_the_file, recursive=False,
                               yield_on_timeout=True, rust_timeout=IDLE_WAKE_MS)
    first = True
    try:
        for changed in changes:
            if not (changed or first):
                continue
            first = False
            if not path.is_file():
                print_wrapped(console, Text(f"{shown_as} is gone; waiting for it to be saved again.", style="yellow"))
                continue
            if console.is_terminal:
                console.clear()
            print_wrapped(console, Text(f"Grading {shown_as} ...", style="dim"))
            grade_once()
            print_wrapped(console, Text(f"Watching {shown_as}: it is graded again each time you save it. "
                                        "Press Ctrl-C to stop.", style="dim"))
    except KeyboardInterrupt:
        console.print(Text("Stopped watching.", style="dim"))
    finally:
        changes.close()
