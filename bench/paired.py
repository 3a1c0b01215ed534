"""Two installs of the kit, graded alternately: how much slower or faster one grade is in the second.

    python bench/paired.py BEFORE_KIT AFTER_KIT [--runs N] exNN[:MUTANT]... [all]

Each kit is a checkout with its own venv in .venv (as the README's first command makes one). Each
exercise's reference (or, for exNN:MUTANT, that known mistake, a grade that fails; for `all`,
`grade --all --solution`) is graded N
times in each kit, alternating which goes first, and the medians are compared: a ratio taken in
one run, so the machine's drift cancels out.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path


def grade_seconds(kit: Path, target: str) -> float:
    """The wall time of one `grade exNN --solution` (or `--mutant NAME`) in `kit`, with its own venv's Python."""
    exercise, _, mutant = target.partition(":")
    which = ["--mutant", mutant] if mutant else ["--solution"]
    if exercise == "all":
        exercise = "--all"
    command = [str(kit / ".venv" / "bin" / "python"), "-m", "grader.cli", exercise, *which, "--seed", "1",
               "--output", "/dev/null", "--exit-zero"]
    # Bytecode cached as on a student's machine: a shell that forbids writing it would have each
    # kit recompile whatever its last edit left stale, on every run.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    subprocess.run(command, cwd=kit, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    """Print one line per exercise: both medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("exercises", nargs="+")
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    for exercise in args.exercises:
        times: dict[Path, list[float]] = {args.before: [], args.after: []}
        for kit in (args.before, args.after):  # a first grade each, untimed, writes the bytecode caches
            grade_seconds(kit, exercise)
        for run in range(args.runs):
            for kit in (args.before, args.after) if run % 2 == 0 else (args.after, args.before):
                times[kit].append(grade_seconds(kit, exercise))
        before, after = statistics.median(times[args.before]), statistics.median(times[args.after])
        print(f"{exercise}: before {before * 1000:.0f} ms, after {after * 1000:.0f} ms, after/before "
              f"{after / before:.3f} (median of {args.runs} alternating runs each)")


if __name__ == "__main__":
    main()
