"""Running one exercise's checks against one submission: a pytest subprocess under a wall-clock limit."""

from __future__ import annotations

import contextlib
import hashlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar


from grader.grading import PLUGIN
from grader.report import build_report
from grader.catalog import PUBLIC_CHECKS, Exercise, Kit, KitError
from grader.run_contract import (
    CallRecording,
    Check,
    Collected,
    Diagnosis,
    RunFiles,
    RunSettings,
    SandboxFacts,
    StopAt,
    read_json,
)
from grader.submission import (
    Submission,
    SubmissionProblem,
    derive_seed,
    prepare_submission,
    unusable_submission_sha256,
)
from grader.sandbox import IMPORT_TIMEOUT, linux_mechanisms, reaper_command, sweep_workers
from grader.text import write_bytes_atomically

if TYPE_CHECKING:
    from grader.grading.replay import RecordedCall

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
# The grading process's hash seed, one for every run (see _start_pytest); the worker's is the run's seed.
GRADING_HASH_SEED = "0"


def _pytest_command(files: RunFiles, kit: Kit, exercise: Exercise, check_files: list[Path]) -> list[str]:
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
        "--grade-run", str(files.folder), "--grade-kit", str(kit.root),
        # Default assertion verbosity: -v would make pytest diff long lists with difflib, which can
        # take longer than a check's budget on the big inputs some checks compare.
        "-q", "--no-header", "-p", "no:warnings",
        *(str(path) for path in check_files),
    ]


def _wait_for_pytest(process: subprocess.Popen, files: RunFiles, started: float) -> str | None:
    """Wait for pytest under the outer limit; return why it was stopped, or None if it finished."""
    limit, collected = COLLECTION_LIMIT, None
    with _exit_watch(process) as exited:
        while process.poll() is None:
            if collected is None:  # written once, when collection ends
                collected = Collected.read(files.collected)
                if collected is not None:
                    limit = sum(check.budget_s for check in collected.checks) + IMPORT_TIMEOUT + RUN_SLACK
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
    sweep_workers(SandboxFacts.read(files.sandbox).uids_used)


def _run_checks(kit: Kit, exercise: Exercise, files: RunFiles, settings: RunSettings, started: float,
                collect_only: bool = False) -> tuple[Collected, str | None, dict | None]:
    """Run (or only collect) the exercise's checks in a pytest subprocess under the outer limit.

    Returns the collected checks, why the run was stopped (or None), and pytest-json-report's raw
    report (None if pytest wrote none). A check file that cannot be collected is a KitError.
    """
    process = _start_pytest(kit, exercise, files, settings, collect_only=collect_only)
    return _finish_pytest(process, exercise, files, started, collect_only)


def _start_pytest(kit: Kit, exercise: Exercise, files: RunFiles, settings: RunSettings,
                  collect_only: bool = False, wait_fd: int | None = None) -> subprocess.Popen:
    """Lay out the checks and start pytest on them under the grade's reaper; with `wait_fd`, it
    collects, then waits on that pipe for the word that the run's settings are written (ReadyGrade)."""
    checks_dir = files.pytest_root / "checks"
    checks_dir.mkdir(parents=True)
    # The checks and their helpers, with the shared helpers beside them as pytest imports them. All
    # the shared ones go (a few small files): finding which are imported would parse every check.
    shared = sorted(exercise.shared_checks_dir.glob("*.py"))
    # An exercise's own file wins over a shared one; the given modules come too, for checks that
    # compute their answers with the exercise's rules.
    # copy2 keeps each file's time, which a cached module's bytecode is checked against (see _Bytecode).
    for path in [*shared, *sorted(exercise.checks_dir.glob("*.py")), *exercise.given_paths]:
        shutil.copy2(path, checks_dir / path.name)
    _Bytecode(exercise, checks_dir).seed()
    (files.pytest_root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    check_files = [checks_dir / path.name for path in exercise.check_files()]
    if not check_files:
        raise KitError(f"{exercise.checks_dir}: no test_*.py check files")
    settings.write(files.settings)
    # pytest writes long "Full diff" explanations (difflib, slow on big values) when it sees CI or
    # BUILD_NUMBER set; a report must not depend on where it was graded, so they are left out.
    env = {name: value for name, value in os.environ.items() if name not in ("CI", "BUILD_NUMBER")}
    # Bytecode may be cached: the grader's own modules then load from it, not compiled every grade
    # (the checks are copied into the run folder, so theirs lands there and goes with it).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               # pytest prints some differences in set order, so its hash seed is fixed: the same
               # submission and seed give the same report, also from a process started before the
               # submission (and so its seed) was known.
               PYTHONHASHSEED=GRADING_HASH_SEED)
    command = _pytest_command(files, kit, exercise, check_files) + (["--collect-only"] if collect_only else [])
    if wait_fd is not None:
        command += ["--grade-wait", str(wait_fd)]
    if settings.stop_at is StopAt.FIRST_FAILURE:
        command.append("--maxfail=1")
    # pytest runs under a reaper of this grade's own, which kills what the grade leaves behind and
    # nothing else. Its own session: the terminal's Ctrl-C reaches only grade, which passes it on
    # (see _end_reaper).
    command = reaper_command(command)
    with open(files.log, "wb") as log:
        return subprocess.Popen(
            command, cwd=files.pytest_root, env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            pass_fds=() if wait_fd is None else (wait_fd,),
        )


def _finish_pytest(process: subprocess.Popen, exercise: Exercise, files: RunFiles, started: float,
                   collect_only: bool = False) -> tuple[Collected, str | None, dict | None]:
    """Wait for pytest under the outer limit and read what it wrote (see _run_checks)."""
    try:
        fault = _wait_for_pytest(process, files, started)
    except KeyboardInterrupt:
        # pytest gets SIGINT, so it closes its sandbox and says which uids it used.
        _end_reaper(process, signal.SIGINT, INTERRUPT_GRACE)
        _sweep_workers(files)
        raise
    _sweep_workers(files)
    _Bytecode(exercise, files.pytest_root / "checks").keep()
    collected = Collected.read(files.collected)
    if collected is not None and collected.errors:
        raise KitError(f"the checks could not be collected: {collected.errors[0]}")
    if collected is None and fault is None:
        log_lines = files.log.read_text(errors="replace").strip().splitlines()
        detail = next((line for line in reversed(log_lines) if line.startswith(("E ", "ERROR"))), None)
        detail = detail or (log_lines[-1] if log_lines else f"pytest exited with {process.returncode}")
        raise KitError(f"{exercise.checks_dir}: the checks could not be collected: {detail.strip()}")
    raw = read_json(files.raw)  # pytest-json-report's raw report
    if fault is None and raw is None and not collect_only:
        fault = f"the grading process exited with status {process.returncode} and wrote no results"
    if fault is None and process.returncode == PYTEST_INTERNAL_ERROR:
        fault = "the grading process stopped with an internal error, so no check can be trusted"
    return collected or Collected(()), fault, raw


class _Bytecode:
    """The checks' compiled bytecode, kept between grades in the exercise's checks folder (__pycache__).

    A grade's checks are fresh copies, so without a cache pytest would rewrite every check file's
    asserts and Python compile every helper on every grade (bench/RESULTS.md has what it costs).
    A cached file is used only if it still fits its source: pytest checks its rewritten checks
    against the source's hash, and Python its other modules against size and time (kept by copy2).
    Safe to trust as the grader's own bytecode is: only the grading process writes the run's
    folder, and no worker can reach it or the kit.
    """

    def __init__(self, exercise: Exercise, checks_dir: Path):
        self.cache = exercise.checks_dir / "__pycache__"
        self.run_cache = checks_dir / "__pycache__"

    def seed(self) -> None:
        """Copy what the cache holds into the run's checks folder, before pytest imports anything."""
        if self.cache.is_dir():
            shutil.copytree(self.cache, self.run_cache, ignore=shutil.ignore_patterns(".*"))

    def keep(self) -> None:
        """Put what this run compiled anew into the cache; a kit that cannot be written grades without one."""
        if not self.run_cache.is_dir():
            return
        try:
            self.cache.mkdir(exist_ok=True)
            for compiled in self.run_cache.glob("*.pyc"):
                kept = self.cache / compiled.name
                data = compiled.read_bytes()
                if not kept.is_file() or kept.read_bytes() != data:
                    write_bytes_atomically(kept, data)  # grades side by side may keep the same file
        except OSError:  # a read-only kit (a shared install): only the next grade's speed is lost
            return


class ReadyGrade:
    """A grading process started before its submission: pytest up, the checks collected and the
    sandbox's worker started, waiting for one submission to grade.

    Every grade is one: grade() starts it before laying the submission out, and `grade --watch`
    keeps one ready for the next save, which is then graded without pytest's start. The run's
    settings are written only once the submission is laid out, and the worker started ahead is
    handed its copy only then, so a ready grade has run no student code, earlier or current.
    """

    def __init__(self, kit: Kit, exercise: Exercise, stop_at: StopAt = StopAt.NEVER):
        self.kit, self.exercise, self.stop_at = kit, exercise, stop_at
        self.files = RunFiles(Path(tempfile.mkdtemp(prefix="minimax-kit-run-")))
        self.started = time.monotonic()
        self.used = False
        wait_r, self._go_w = os.pipe()
        try:
            # Collection needs only what every run of the exercise shares; the rest comes with the submission.
            self.process = _start_pytest(kit, exercise, self.files,
                                         _run_settings(exercise, 0, self.files.submission, None, stop_at=stop_at),
                                         wait_fd=wait_r)
        except BaseException:
            os.close(self._go_w)
            shutil.rmtree(self.files.folder, ignore_errors=True)
            raise
        finally:
            os.close(wait_r)

    def grade(self, submission: Submission, seed: int | None = None) -> dict:
        """Grade the submission in this process, as grade() would; a ready grade grades once."""
        return _grade(self, submission, seed, None, CallRecording.NONE)[0]

    def _go(self, settings: RunSettings, started: float) -> tuple[Collected, str | None, dict | None]:
        """Hand the waiting pytest its settings and wait for it as _run_checks does."""
        settings.write(self.files.settings)
        with contextlib.suppress(BrokenPipeError):  # it died just now; _finish_pytest says how
            os.write(self._go_w, b"go\n")
        self._close_pipe()
        return _finish_pytest(self.process, self.exercise, self.files, started)

    def _close_pipe(self) -> None:
        if self._go_w is not None:
            os.close(self._go_w)
            self._go_w = None

    def close(self) -> None:
        """Stop the process if it still waits, sweep, and remove its folder."""
        self._close_pipe()
        if self.process.poll() is None:
            _end_reaper(self.process, signal.SIGTERM, REAPER_GRACE)
        _sweep_workers(self.files)
        shutil.rmtree(self.files.folder, ignore_errors=True)


def _run_settings(exercise: Exercise, seed: int, source_dir: Path | None, submission_error: str | None,
                  source_map=None, stop_at: StopAt = StopAt.NEVER) -> RunSettings:
    """What the plugin is told of this run."""
    return RunSettings(module=exercise.module, functions=tuple(exercise.functions),
                       call_timeout=exercise.call_timeout, check_timeout=exercise.check_timeout,
                       memory_mb=exercise.memory_mb, public_file=PUBLIC_CHECKS, seed=seed,
                       source_dir=str(source_dir) if source_dir else None, submission_error=submission_error,
                       source_map=source_map, stop_at=stop_at, exercise=exercise.id)


def collect_checks(kit: Kit, exercise: Exercise) -> tuple[Check, ...]:
    """The exercise's checks (name, visibility, points), collected without running anything."""
    files = RunFiles(Path(tempfile.mkdtemp(prefix="minimax-kit-collect-")))
    try:
        collected, fault, _ = _run_checks(kit, exercise, files, _run_settings(exercise, 0, None, None),
                                          time.monotonic(), collect_only=True)
        if fault:
            raise KitError(f"{exercise.checks_dir}: collecting the checks failed: {fault}")
        return collected.checks
    finally:
        shutil.rmtree(files.folder, ignore_errors=True)


def grade(kit: Kit, exercise: Exercise, submission: Submission, seed: int | None = None,
          stop_at: StopAt = StopAt.NEVER, diagnosis_limit_s: float | None = None, explain: bool = True) -> dict:
    """Grade one submission of one exercise and return the native report.

    `stop_at` may end the grade early, when only whether the submission loses points matters (the
    mutation report, grade check's mistakes): a mutant that makes the search slow then costs one
    deadline, not all. `diagnosis_limit_s` replaces the diagnosis's default share of the grade's time;
    `explain=False` leaves out the failed checks' explanations (feedback.on_failure), for grade check.
    """
    # pytest starts first, and collects while the submission is laid out.
    return _grade(ReadyGrade(kit, exercise, stop_at), submission, seed, diagnosis_limit_s, CallRecording.NONE,
                  explain)[0]


def grade_recording_calls(kit: Kit, exercise: Exercise, submission: Submission, recording: CallRecording,
                          seed: int | None = None) -> tuple[dict, dict[str, list[RecordedCall]]]:
    """Grade, and also return the calls the checks (public ones, or all) made, by check nodeid."""
    return _grade(ReadyGrade(kit, exercise), submission, seed, None, recording, explain=False)


def _grade(ready: ReadyGrade, submission: Submission, seed: int | None, diagnosis_limit_s: float | None,
           recording: CallRecording, explain: bool = True) -> tuple[dict, dict[str, list[RecordedCall]]]:
    """Grade in `ready`, which is then closed: the report, and the calls the run kept."""
    if ready.used:
        raise RuntimeError("a ReadyGrade grades one submission")
    ready.used = True
    if ready.process.poll() is not None:  # it ended before its submission came: grade in a new one
        ready.close()
        ready = ReadyGrade(ready.kit, ready.exercise, ready.stop_at)
        ready.used = True
    kit, exercise, files = ready.kit, ready.exercise, ready.files
    started_at = datetime.now(timezone.utc)
    started = time.monotonic()
    try:
        source_dir = files.submission
        submission_error = None
        layout = None
        try:
            layout = prepare_submission(submission.path, exercise.module, source_dir, exercise.given_paths)
            sha256 = hashlib.sha256((source_dir / exercise.module).read_bytes()).hexdigest()
        except SubmissionProblem as exc:
            submission_error = str(exc)
            sha256 = unusable_submission_sha256(submission.path)
        if seed is None:
            seed = derive_seed(exercise.id, sha256)
        # A notebook's cells name the module's lines in what the report says.
        settings = replace(_run_settings(exercise, seed, source_dir, submission_error,
                                         layout.source_map if layout else None, ready.stop_at),
                           diagnosis_limit_s=diagnosis_limit_s, record_calls=recording, explain=explain)
        collected, fault, raw = ready._go(settings, started)
        report = build_report(
            exercise={"id": exercise.id, "slug": exercise.slug, "title": exercise.title},
            submission={"path": submission.shown_as, "sha256": sha256, **(layout.report_fields() if layout else {})},
            seed=seed,
            collected=collected.checks,
            raw=raw,
            sandbox=SandboxFacts.read(files.sandbox),
            fault=fault,
            started_at=started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            duration_s=time.monotonic() - started,
            call_timeout=exercise.call_timeout,
            diagnosis=Diagnosis.read(files.diagnosis),
        )
        if recording is CallRecording.NONE:
            return report, {}
        from grader.grading.replay import read_calls  # only grade export and grade check keep calls

        return report, read_calls(files.calls)
    finally:
        ready.close()


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
