"""Running one exercise's checks against one submission: a pytest subprocess under a wall-clock limit."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from enum import StrEnum
from pathlib import Path
from typing import TypeVar


from grader.grading import PLUGIN
from grader.report import build_report
from grader.catalog import PUBLIC_CHECKS, Exercise, Kit, KitError
from grader.grading.contract import RunFiles
from grader.submission import (
    Submission,
    SubmissionProblem,
    derive_seed,
    prepare_submission,
    unusable_submission_sha256,
)
from grader.sandbox import CPU_SLACK, IMPORT_TIMEOUT, linux_mechanisms, protect_secrets, reaper_command, sweep_workers

T = TypeVar("T")
R = TypeVar("R")
# Collecting the checks and importing the module must finish within this, before budgets apply.
COLLECTION_LIMIT = 120.0
# Added to the sum of the checks' budgets for pytest's own start-up and teardown.
RUN_SLACK = 30.0
# Seconds pytest gets to close its sandbox after Ctrl-C before it is killed.
INTERRUPT_GRACE = 5.0
# Seconds the grade's reaper gets to kill the grading process and sweep after SIGTERM; it runs no
# student code and waits on nothing, so only a machine in trouble needs more than a moment.
REAPER_GRACE = 10.0
# pytest's exit code for an error inside pytest or a plugin (pytest.ExitCode.INTERNAL_ERROR).
PYTEST_INTERNAL_ERROR = 3


class StopAt(StrEnum):
    """When a grade may stop before every check has run; checks left unrun score 0, as scoring fails closed."""

    NEVER = "never"
    FIRST_FAILURE = "first_failure"  # any lost points: enough to know a submission loses points
    FIRST_CATCH = "first_catch"  # a check failed other than by its deadline: enough to know a check catches it


def _pytest_command(files: RunFiles, exercise: Exercise, check_files: list[Path]) -> list[str]:
    return [
        sys.executable, "-P", "-m", "pytest",
        # Plugins are loaded by name only, so nothing else installed can join the grading run.
        "-p", "pytest_timeout", "-p", "pytest_jsonreport.plugin", "-p", PLUGIN,
        # No cache folder; and no unraisable-exception plugin, whose garbage collections at the end
        # cost a grade tens of milliseconds and check nothing a check needs.
        "-p", "no:cacheprovider", "-p", "no:unraisableexception", "--strict-markers",
        "--rootdir", str(files.pytest_root), "-c", str(files.pytest_root / "pytest.ini"),
        "--json-report", "--json-report-file", str(files.raw),
        "--json-report-omit", "collectors", "log", "streams", "warnings",
        # pytest-timeout's signal method is safe here because no student code runs in this process.
        "--timeout", f"{exercise.check_timeout:g}", "--timeout-method", "signal",
        "--grade-config", str(files.config),
        # Default assertion verbosity: -v would make pytest diff long lists with difflib, which can
        # take longer than a check's budget on the big inputs some checks compare.
        "-q", "--no-header", "-p", "no:warnings",
        *(str(path) for path in check_files),
    ]


def _read_json(path: Path):
    """A JSON file the grading process wrote, or None if it is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _wait_for_pytest(process: subprocess.Popen, files: RunFiles, started: float) -> str | None:
    """Wait for pytest under the outer limit; return why it was stopped, or None if it finished."""
    limit, collected = COLLECTION_LIMIT, None
    with _exit_watch(process) as exited:
        while process.poll() is None:
            if collected is None:  # written once, when collection ends
                collected = _read_json(files.collected)
                if collected is not None:
                    limit = sum(check["budget_s"] for check in collected["checks"]) + IMPORT_TIMEOUT + RUN_SLACK
            if time.monotonic() - started > limit:
                _end_reaper(process, signal.SIGTERM, REAPER_GRACE)
                return f"the grading process ran past its {limit:g} s limit and was stopped"
            if exited is not None:  # wakes the moment pytest exits
                select.select([exited], [], [], 0.05)
            else:  # polls with growing sleeps
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=0.05)
    return None


@contextlib.contextmanager
def _exit_watch(process: subprocess.Popen):
    """A pidfd that becomes readable when the process exits, where Linux offers one, else None."""
    try:
        pidfd = os.pidfd_open(process.pid) if linux_mechanisms() else None
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is None:
        yield None
        return
    try:
        yield pidfd
    finally:
        os.close(pidfd)


def _end_reaper(process: subprocess.Popen, signum: int, grace: float) -> None:
    """Ask the grade's reaper to end the grading process (SIGINT: let it close; SIGTERM: kill it now)
    and wait for the reaper's sweep; SIGTERM, then SIGKILL to the reaper's group, if it takes too long.

    Only the reaper is signalled: it outlives the grading process, so it can still kill what the
    grade left. SIGKILL to its group is the last resort, and then its orphans go to init.
    """
    for signal_now, wait in ((signum, grace), (signal.SIGTERM, REAPER_GRACE)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal_now)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _sweep_workers(files: RunFiles) -> None:
    """As root, kill whatever the run's workers left under the uids pytest said it used.

    The grade's reaper has already killed every process the grade left that it could find; the
    uids also catch one that escaped it (a process that outlived a reaper killed as a last resort).
    """
    sweep_workers((_read_json(files.sandbox) or {}).get("uids_used", []))


def _run_checks(kit: Kit, exercise: Exercise, files: RunFiles, settings: dict, started: float,
                collect_only: bool = False, stop_at: StopAt = StopAt.NEVER) -> tuple[dict, str | None, dict | None]:
    """Run (or only collect) the exercise's checks in a pytest subprocess under the outer limit.

    Returns the collected checks, why the run was stopped (or None), and pytest-json-report's raw
    report (None if pytest wrote none). A check file that cannot be collected is a KitError.
    """
    checks_dir = files.pytest_root / "checks"
    checks_dir.mkdir(parents=True)
    # The checks and their helpers, with the shared helpers beside them as pytest imports them. All
    # the shared ones go (a few small files): finding which are imported would parse every check.
    shared = sorted(exercise.shared_checks_dir.glob("*.py"))
    for path in [*shared, *sorted(exercise.checks_dir.glob("*.py"))]:  # an exercise's own file wins
        shutil.copyfile(path, checks_dir / path.name)
    (files.pytest_root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    check_files = [checks_dir / path.name for path in exercise.check_files()]
    if not check_files:
        raise KitError(f"{exercise.checks_dir}: no test_*.py check files")
    config = {
        "module": exercise.module, "functions": list(exercise.functions),
        "call_timeout": exercise.call_timeout, "check_timeout": exercise.check_timeout,
        "memory_mb": exercise.memory_mb, "cpu_slack": CPU_SLACK, "run_dir": str(files.folder),
        "public_file": PUBLIC_CHECKS, "stop_at_catch": stop_at is StopAt.FIRST_CATCH, **settings,
    }
    files.config.write_text(json.dumps(config), encoding="utf-8")
    protect_secrets(kit)
    # pytest writes long "Full diff" explanations (difflib, slow on big values) when it sees CI or
    # BUILD_NUMBER set; a report must not depend on where it was graded, so they are left out.
    env = {name: value for name, value in os.environ.items() if name not in ("CI", "BUILD_NUMBER")}
    # Bytecode may be cached: the grader's own modules then load from it, not compiled every grade
    # (the checks are copied into the run folder, so theirs lands there and goes with it).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               # pytest prints some differences in set order; the same seed must give the same report.
               PYTHONHASHSEED=str(int(settings["seed"]) % 2**32))
    command = _pytest_command(files, exercise, check_files) + (["--collect-only"] if collect_only else [])
    if stop_at is StopAt.FIRST_FAILURE:
        command.append("--maxfail=1")
    # pytest runs under a reaper of this grade's own, which kills what the grade leaves behind and
    # nothing else. Its own session: the terminal's Ctrl-C reaches only grade, which passes it on
    # (see _end_reaper).
    command = reaper_command(command)
    with open(files.log, "wb") as log:
        process = subprocess.Popen(
            command, cwd=files.pytest_root, env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            fault = _wait_for_pytest(process, files, started)
        except KeyboardInterrupt:
            # pytest gets SIGINT, so it closes its sandbox and says which uids it used.
            _end_reaper(process, signal.SIGINT, INTERRUPT_GRACE)
            _sweep_workers(files)
            raise
    _sweep_workers(files)
    collected = _read_json(files.collected)
    if collected is not None and collected["errors"]:
        raise KitError(f"the checks could not be collected: {collected['errors'][0]}")
    if collected is None and fault is None:
        log_lines = files.log.read_text(errors="replace").strip().splitlines()
        detail = next((line for line in reversed(log_lines) if line.startswith(("E ", "ERROR"))), None)
        detail = detail or (log_lines[-1] if log_lines else f"pytest exited with {process.returncode}")
        raise KitError(f"{exercise.checks_dir}: the checks could not be collected: {detail.strip()}")
    raw = _read_json(files.raw)
    if fault is None and raw is None and not collect_only:
        fault = f"the grading process exited with status {process.returncode} and wrote no results"
    if fault is None and process.returncode == PYTEST_INTERNAL_ERROR:
        fault = "the grading process stopped with an internal error, so no check can be trusted"
    return collected or {"checks": []}, fault, raw


def collect_checks(kit: Kit, exercise: Exercise) -> list[dict]:
    """The exercise's checks (name, visibility, points), collected without running anything."""
    files = RunFiles(Path(tempfile.mkdtemp(prefix="minimax-kit-collect-")))
    try:
        collected, fault, _ = _run_checks(kit, exercise, files, {"seed": 0, "source_dir": "",
                                                                    "submission_error": None},
                                          time.monotonic(), collect_only=True)
        if fault:
            raise KitError(f"{exercise.checks_dir}: collecting the checks failed: {fault}")
        return collected["checks"]
    finally:
        shutil.rmtree(files.folder, ignore_errors=True)


def grade(kit: Kit, exercise: Exercise, submission: Submission, seed: int | None = None,
          stop_at: StopAt = StopAt.NEVER) -> dict:
    """Grade one submission of one exercise and return the native report.

    `stop_at` may end the grade early, when only whether the submission loses points matters (the
    mutation report, grade check's mistakes): a mutant that makes the search slow then costs one
    deadline, not all.
    """
    started_at = datetime.now(timezone.utc)
    started = time.monotonic()
    files = RunFiles(Path(tempfile.mkdtemp(prefix="minimax-kit-run-")))
    try:
        source_dir = files.submission
        submission_error = None
        layout = None
        try:
            layout = prepare_submission(submission.path, exercise.module, source_dir)
            sha256 = hashlib.sha256((source_dir / exercise.module).read_bytes()).hexdigest()
        except SubmissionProblem as exc:
            submission_error = str(exc)
            sha256 = unusable_submission_sha256(submission.path)
        if seed is None:
            seed = derive_seed(exercise.id, sha256 or "")
        settings = {"seed": seed, "source_dir": str(source_dir), "submission_error": submission_error,
                    # A notebook's cells name the module's lines in what the report says.
                    "source_map": layout.source_map.as_data() if layout else None}
        collected, fault, raw = _run_checks(kit, exercise, files, settings, started, stop_at=stop_at)
        sandbox_info = _read_json(files.sandbox) or {}
        return build_report(
            exercise={"id": exercise.id, "slug": exercise.slug, "title": exercise.title},
            submission={"path": submission.shown_as, "sha256": sha256, **(layout.report_fields() if layout else {})},
            seed=seed,
            collected=collected["checks"],
            raw=raw,
            sandbox=sandbox_info,
            fault=fault,
            started_at=started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            duration_s=time.monotonic() - started,
            call_timeout=exercise.call_timeout,
        )
    finally:
        shutil.rmtree(files.folder, ignore_errors=True)


def default_jobs() -> int:
    """How many grades run side by side unless told: one per CPU this process may use.

    Each grading process claims a CPU of its own (isolation.CpuLease), so more would only queue.
    """
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def in_parallel(function: Callable[[T], R], items: list[T], jobs: int | None = None,
                done: Callable[[], None] | None = None) -> list[R]:
    """`function` over `items`, `jobs` at a time (default_jobs() if None), as threads of this process.

    Results come back in the order of `items`; `done` is called as each one finishes (a progress
    bar). Each grade runs in processes of its own under its own reaper, so threads are enough.
    """
    from concurrent.futures import ThreadPoolExecutor, as_completed

    results: list = [None] * len(items)
    with ThreadPoolExecutor(max_workers=max(1, min(jobs or default_jobs(), len(items) or 1))) as pool:
        futures = {pool.submit(function, item): index for index, item in enumerate(items)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if done is not None:
                done()
    return results
