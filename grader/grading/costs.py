"""How long an exercise's last grade took, kept beside its checks' bytecode, so that grades run side
by side can start with the longest."""

from __future__ import annotations

import contextlib
from pathlib import Path

from grader.catalog import Exercise
from grader.text import write_text_atomically

# In the checks' bytecode cache (pytest_run._Bytecode), which no grade copies from: a dot-file.
COST_FILE = ".last-grade-seconds"


def _cost_path(exercise: Exercise) -> Path:
    return exercise.checks_dir / "__pycache__" / COST_FILE


def remember_grade_seconds(exercise: Exercise, seconds: float) -> None:
    """Keep how long a whole grade of the exercise took; a kit that cannot be written keeps nothing."""
    path = _cost_path(exercise)
    # A read-only kit (a shared install) only loses the order of its next `grade --all`.
    with contextlib.suppress(OSError):
        path.parent.mkdir(exist_ok=True)
        write_text_atomically(path, f"{seconds:.3f}\n")


def expected_grade_seconds(exercise: Exercise) -> float:
    """How long the exercise's last grade took, or 0.0 if no grade of it is on record (or the record is unreadable)."""
    try:
        seconds = float(_cost_path(exercise).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0.0
    return seconds if 0.0 <= seconds < float("inf") else 0.0
