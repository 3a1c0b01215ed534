"""One cold grade, broken into its phases by timestamps taken in each process it runs.

    python bench/phases.py [--runs N] [EXERCISE ...]     # default: 9 runs each of ex01 and ex04

Each run starts `grade EXERCISE --solution --output -` afresh (as `python bench/phases.py --grade ...`,
which is the `grade` command with probes put round a few of the grader's functions), and the
grading process's pytest loads this file as a plugin (PYTEST_PLUGINS), which stamps its own
hooks and the sandbox's first worker. Every stamp is wall-clock time (time.time(), one clock for
every process), appended as a JSON line to the file PHASES_FILE names. Nothing in grader/ is
changed: the probes wrap functions from outside, and cost microseconds each.

The phases (the medians over the runs, and their share of the whole):

    start-up           the driver's spawn to `grade` starting its grades' launcher (interpreter, first imports)
    pytest start       the launcher importing pytest and the plugins (beside `grade` importing the rest of
                       itself and laying the checks out), the grading process forked, pytest configured
    collection         pytest collecting the checks (and the plugin writing their list)
    checks             the first check's setup to the last check's teardown (the worker's start inside)
      worker start     of which: the first worker let go, its hello, and the student's module imported
    worker spawn       the sandbox's first process started ahead of need (at session start, so it overlaps
                       collection; not a phase of its own)
    pytest end         the last teardown to pytest's exit seen by `grade` (the JSON report, the sandbox closed)
    report             `grade` reading the results and building the report, then writing it out
    exit               `grade` returning to its process ending (interpreter shutdown)

Beside it, plain pytest on the same checks with the reference imported in-process
(bench/naive_plugin.py, as `bench.py grading` runs it), timed whole: the physical limit.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NoReturn

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
ENV_FILE = "PHASES_FILE"


def stamp(event: str) -> None:
    """Append one event with the time now to the run's stamp file (nothing when none is set)."""
    path = os.environ.get(ENV_FILE)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"event": event, "t": time.time(), "pid": os.getpid()}) + "\n")


# ---- the pytest side: loaded by name through PYTEST_PLUGINS in the grading process ----

stamp("pytest: plugins loading")


def pytest_configure(config):
    """pytest and its plugins are up; wrap the sandbox's worker start to stamp the first one."""
    stamp("pytest: configured")
    from grader.sandbox import service

    original = service.Sandbox._ensure_worker

    def ensure_worker(self):
        starting = self._worker is None or self._worker.process is None
        if starting:
            stamp("worker: start")
        try:
            return original(self)
        finally:
            if starting:
                stamp("worker: ready")

    service.Sandbox._ensure_worker = ensure_worker
    spawn = service.Sandbox._spawn

    def spawned(self):
        stamp("worker: spawn")
        try:
            return spawn(self)
        finally:
            stamp("worker: spawned")

    service.Sandbox._spawn = spawned


def pytest_collection_finish(session):
    stamp("pytest: collected")


def pytest_runtest_setup(item):
    stamp("check: setup")


def pytest_runtest_teardown(item, nextitem):
    stamp("check: teardown")


def pytest_unconfigure(config):
    stamp("pytest: unconfigure")


# ---- the grade side: `python bench/phases.py --grade ARGS...` is `grade ARGS...` with probes ----

def _graded_with_probes(argv: list[str]) -> NoReturn:
    """Run the grade command in this process as the `grade` script does (grader/cli/entry.py), stamping when
    its launcher starts, when pytest starts and ends, and when the report is built."""
    stamp("grade: interpreter up")
    from grader.cli import entry
    from grader.grading import launching

    # The grading process's environment leaves out the shell's PYTEST_* variables; this probe's plugin is put back.
    clean = launching.grading_env

    def grading_env() -> dict[str, str]:
        return {**clean(), "PYTEST_PLUGINS": "phases"}

    launching.grading_env = grading_env

    launcher = None
    if entry.grades_at_once(argv):  # first, as the script starts it
        from grader.grading import start_launcher

        launcher = start_launcher()
    stamp("grade: launcher started")
    import grader.report
    from grader.cli import main
    from grader.grading import pytest_run

    popen, wait, build = pytest_run.subprocess.Popen, pytest_run._wait_for_pytest, grader.report.build_report

    class Popen(popen):
        def __init__(self, *args, **kwargs):
            stamp("grade: pytest launched")
            super().__init__(*args, **kwargs)

    def wait_for_pytest(*args, **kwargs):
        try:
            return wait(*args, **kwargs)
        finally:
            stamp("grade: pytest ended")

    def build_report(*args, **kwargs):
        try:
            return build(*args, **kwargs)
        finally:
            stamp("grade: report built")

    # The runner takes build_report from the report's face when it needs it, so the face's name is the one to wrap.
    pytest_run.subprocess.Popen, pytest_run._wait_for_pytest, grader.report.build_report = (
        Popen, wait_for_pytest, build_report)
    pytest_run.grading_env = grading_env
    try:
        code = main(argv, launcher=launcher)
    finally:
        if launcher is not None:
            launcher.close()
    sys.stdout.flush()
    stamp("grade: returned")
    os._exit(code)  # as the installed script ends (grader.cli.entry): no interpreter teardown


# ---- the driver ----

def _first(events: list[dict], name: str) -> float:
    return next(event["t"] for event in events if event["event"] == name)


def _last(events: list[dict], name: str) -> float:
    return [event["t"] for event in events if event["event"] == name][-1]


def one_run(exercise: str) -> dict[str, float]:
    """One cold grade of the exercise's reference; each phase's seconds."""
    with tempfile.TemporaryDirectory(prefix="minimax-kit-phases-") as scratch:
        stamps = Path(scratch) / "stamps.jsonl"
        env = {**os.environ, ENV_FILE: str(stamps), "PYTEST_PLUGINS": "phases",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(BENCH), os.environ.get("PYTHONPATH")]))}
        began = time.time()
        done = subprocess.run([sys.executable, __file__, "--grade", exercise, "--solution", "--output", "-"],
                              cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        ended = time.time()
        if done.returncode != 0:
            raise SystemExit(f"grade {exercise} --solution failed ({done.returncode}): {done.stderr[-500:]}")
        events = [json.loads(line) for line in stamps.read_text(encoding="utf-8").splitlines()]
    spawn = _first(events, "worker: spawned") - _first(events, "worker: spawn")
    worker = _first(events, "worker: ready") - _first(events, "worker: start")
    return {
        "start-up": _first(events, "grade: launcher started") - began,
        "pytest start": _first(events, "pytest: configured") - _first(events, "grade: launcher started"),
        "collection": _first(events, "pytest: collected") - _first(events, "pytest: configured"),
        "checks": _last(events, "check: teardown") - _first(events, "check: setup"),
        "  worker start": worker,
        "worker spawn (ahead, beside collection)": spawn,
        "pytest end": _first(events, "grade: pytest ended") - _last(events, "check: teardown"),
        "report": _first(events, "grade: returned") - _first(events, "grade: pytest ended"),
        "exit": ended - _first(events, "grade: returned"),
        "whole": ended - began,
    }


def plain_pytest(exercise: str) -> float:
    """Seconds for plain pytest on the exercise's checks with the reference in-process (bench.py's baseline)."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(BENCH))
    from bench import naive_time  # noqa: E402  (bench/bench.py: the same baseline `bench.py grading` takes)
    from grader.catalog import Kit  # noqa: E402

    return naive_time(Kit(ROOT), Kit(ROOT).resolve(exercise))


def main() -> None:
    if sys.argv[1:2] == ["--grade"]:
        _graded_with_probes(sys.argv[2:])
    parser = argparse.ArgumentParser(description="A cold grade, phase by phase.")
    parser.add_argument("exercises", nargs="*", default=["ex01", "ex04"])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    for exercise in args.exercises:
        runs, plain = [], []
        for _ in range(args.runs):  # alternating, so a drift in the machine's speed reaches both alike
            runs.append(one_run(exercise))
            plain.append(plain_pytest(exercise))
        whole = statistics.median(run["whole"] for run in runs)
        print(f"\n{exercise} --solution, median of {args.runs} cold grades: {whole * 1000:.0f} ms; plain pytest "
              f"{statistics.median(plain) * 1000:.0f} ms ({whole / statistics.median(plain):.2f}x)")
        print("| phase | ms | share |\n|---|---|---|")
        for phase in runs[0]:
            if phase == "whole":
                continue
            median = statistics.median(run[phase] for run in runs)
            print(f"| {phase} | {median * 1000:.0f} | {median / whole:.0%} |")


if __name__ == "__main__":
    main()
