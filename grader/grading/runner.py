"""Grading one submission of one exercise: a pytest process started ahead of it (ReadyGrade), then the report."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from grader.grading.costs import remember_grade_seconds
from grader.grading.pytest_run import (
    REAPER_GRACE,
    end_reaper,
    finish_pytest,
    run_checks,
    start_pytest,
    sweep_run_workers,
)
from grader.catalog import PUBLIC_CHECKS, Exercise, Kit, KitError
from grader.run_contract import (
    CallRecording,
    Check,
    Collected,
    Diagnosis,
    Explained,
    RunFiles,
    RunSettings,
    SandboxFacts,
    StopAt,
)

if TYPE_CHECKING:
    from grader.grading.replay import RecordedCall
    from grader.grading.launching import Launcher
    from grader.submission import Submission

T = TypeVar("T")
R = TypeVar("R")
class ReadyGrade:
    """A grading process started before its submission: pytest up, the checks collected and the
    sandbox's worker started, waiting for one submission to grade.

    Every grade is one: grade() starts it before laying the submission out, and `grade --watch`
    keeps one ready for the next save, which is then graded without pytest's start. The run's
    settings are written only once the submission is laid out, and the worker started ahead is
    handed its copy only then, so a ready grade has run no student code, earlier or current.
    """

    def __init__(self, kit: Kit, exercise: Exercise, stop_at: StopAt = StopAt.NEVER, launcher: Launcher | None = None):
        self.kit, self.exercise, self.stop_at, self.launcher = kit, exercise, stop_at, launcher
        self.files = RunFiles(Path(tempfile.mkdtemp(prefix="minimax-kit-run-")))
        self.used = self.swept = False
        wait_r, self._go_w = os.pipe()
        try:
            # Collection needs only what every run of the exercise shares; the rest comes with the submission.
            self.process = start_pytest(kit, exercise, self.files,
                                        _run_settings(exercise, 0, self.files.submission, None, stop_at=stop_at),
                                        wait_fd=wait_r, launcher=launcher)
        except BaseException:
            os.close(self._go_w)
            shutil.rmtree(self.files.folder, ignore_errors=True)
            raise
        finally:
            os.close(wait_r)

    def grade(self, submission: Submission, seed: int | None = None,
              on_table: Callable[[dict], None] | None = None) -> dict:
        """Grade the submission in this process, as grade() would; a ready grade grades once."""
        return _grade(self, submission, seed, None, CallRecording.NONE, on_table=on_table)[0]

    def _go(self, settings: RunSettings, started: float, on_checks_over: Callable[[dict], None] | None = None,
            ) -> tuple[Collected, str | None, dict | None]:
        """Hand the waiting pytest its settings and wait for it as run_checks does."""
        settings.write(self.files.settings)
        with contextlib.suppress(BrokenPipeError):  # it died just now; finish_pytest says how
            os.write(self._go_w, b"go\n")
        self._close_pipe()
        self.swept = True  # finish_pytest sweeps the run's uids whichever way it ends
        return finish_pytest(self.process, self.exercise, self.files, started, on_checks_over=on_checks_over)

    def _close_pipe(self) -> None:
        if self._go_w is not None:
            os.close(self._go_w)
            self._go_w = None

    def close(self) -> None:
        """Stop the process if it still waits, sweep, and remove its folder."""
        self._close_pipe()
        if self.process.poll() is None:
            end_reaper(self.process, signal.SIGTERM, REAPER_GRACE)
        if not self.swept:
            sweep_run_workers(self.files)
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
        collected, fault, _ = run_checks(kit, exercise, files, _run_settings(exercise, 0, None, None),
                                          time.monotonic(), collect_only=True)
        if fault:
            raise KitError(f"{exercise.checks_dir}: collecting the checks failed: {fault}")
        return collected.checks
    finally:
        shutil.rmtree(files.folder, ignore_errors=True)


def grade(kit: Kit, exercise: Exercise, submission: Submission, seed: int | None = None,
          stop_at: StopAt = StopAt.NEVER, diagnosis_limit_s: float | None = None, explain: bool = True,
          launcher: Launcher | None = None, diagnosis_target: str | None = None,
          on_table: Callable[[dict], None] | None = None, only: frozenset[str] = frozenset(),
          diagnose: bool = True) -> dict:
    """Grade one submission of one exercise and return the native report.

    `stop_at` may end the grade early, when only whether the submission loses points matters (the
    mutation report, grade check's mistakes): a mutant that makes the search slow then costs one
    deadline, not all. `diagnosis_limit_s` replaces the diagnosis's default share of the grade's time;
    `explain=False` leaves out the failed checks' explanations (feedback.on_failure), for grade check.
    `diagnosis_target` names the known mistake the submission is, for grade check's proof, which asks
    whether the diagnosis names it.
    `only` names the test functions whose checks run (with the checks they wait on), for grade check's
    proof; the others score 0 as checks that never ran.
    `diagnose=False` leaves out the diagnosis, for grade check's code graded for its score alone.
    With `launcher` (grading_launcher()), the grading process is forked from it rather than started afresh.
    `on_table` is called with the report as it stands once the last check has ended: its score and
    checks are final, and the failed checks' explanations and the diagnosis are still to come.
    """
    # pytest starts first, and collects while the submission is laid out.
    return _grade(ReadyGrade(kit, exercise, stop_at, launcher), submission, seed, diagnosis_limit_s, CallRecording.NONE,
                  explain, diagnosis_target, on_table, only, diagnose)[0]


def grade_recording_calls(kit: Kit, exercise: Exercise, submission: Submission, recording: CallRecording,
                          seed: int | None = None, launcher: Launcher | None = None,
                          ) -> tuple[dict, dict[str, list[RecordedCall]]]:
    """Grade, and also return the calls the checks (public ones, or all) made, by check nodeid."""
    return _grade(ReadyGrade(kit, exercise, launcher=launcher), submission, seed, None, recording, explain=False)


def _grade(ready: ReadyGrade, submission: Submission, seed: int | None, diagnosis_limit_s: float | None,
           recording: CallRecording, explain: bool = True, diagnosis_target: str | None = None,
           on_table: Callable[[dict], None] | None = None, only: frozenset[str] = frozenset(),
           diagnose: bool = True) -> tuple[dict, dict[str, list[RecordedCall]]]:
    """Grade in `ready`, which is then closed: the report, and the calls the run kept."""
    if ready.used:
        raise RuntimeError("a ReadyGrade grades one submission")
    ready.used = True
    if ready.process.poll() is not None:  # it ended before its submission came: grade in a new one
        ready.close()
        ready = ReadyGrade(ready.kit, ready.exercise, ready.stop_at, ready.launcher)
        ready.used = True
    # Loaded here, not with the runner: a grade starts its pytest first, and loads these while pytest starts.
    from grader.report import build_report
    from grader.submission import SubmissionProblem, derive_seed, prepare_submission, unusable_submission_sha256

    exercise, files = ready.exercise, ready.files
    started_at = datetime.now(timezone.utc)
    started = time.monotonic()
    try:
        source_dir = files.submission
        submission_error = None
        layout = None
        prepared = submission.prepared
        if prepared is not None:  # laid out once by the caller (a batch), which fingerprinted it
            layout, submission_error, sha256 = prepared.layout, prepared.problem, prepared.sha256
            if layout is not None:
                prepared.copy_to(source_dir, exercise.given_paths)
            else:
                source_dir.mkdir()
        else:
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
                           diagnosis_limit_s=diagnosis_limit_s, diagnosis_target=diagnosis_target,
                           record_calls=recording, explain=explain, only=only, diagnose=diagnose)

        def report_of(checks: tuple[Check, ...], raw: dict | None, fault: str | None, diagnosis: Diagnosis) -> dict:
            return build_report(
                exercise={"id": exercise.id, "slug": exercise.slug, "title": exercise.title},
                submission={"path": submission.shown_as, "sha256": sha256,
                            **(layout.report_fields() if layout else {})},
                seed=seed,
                collected=checks,
                raw=raw,
                sandbox=SandboxFacts.read(files.sandbox),
                fault=fault,
                started_at=started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                duration_s=time.monotonic() - started,
                call_timeout=exercise.call_timeout,
                diagnosis=diagnosis,
            )

        def checks_over(raw: dict) -> None:
            # Collected before any check ran, so it is there; the explanations and diagnosis come later.
            collected = Collected.read(files.collected)
            if on_table is not None and collected is not None and not collected.errors:
                on_table(report_of(collected.checks, raw, None, Diagnosis()))

        collected, fault, raw = ready._go(settings, started, checks_over if on_table else None)
        report = report_of(collected.checks, Explained.read(files.explained).into(raw), fault,
                           Diagnosis.read(files.diagnosis))
        if ready.stop_at is StopAt.NEVER and not only:  # a grade cut short says little of what a whole one costs
            remember_grade_seconds(exercise, time.monotonic() - started)
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
                done: Callable[[], None] | None = None, cost: Callable[[T], float] | None = None) -> list[R]:
    """`function` over `items`, `jobs` at a time (default_jobs() if None), as threads of this process.

    Results come back in the order of `items`; `done` is called as each one finishes (a progress
    bar). Each grade runs in processes of its own under its own reaper, so threads are enough.
    With `cost`, the costliest items start first: a long grade started last would run on alone
    while the other CPUs sit idle.
    """
    from concurrent.futures import ThreadPoolExecutor, as_completed

    results: list = [None] * len(items)
    with ThreadPoolExecutor(max_workers=max(1, min(jobs or default_jobs(), len(items) or 1))) as pool:
        order = sorted(range(len(items)), key=lambda index: -cost(items[index])) if cost else range(len(items))
        futures = {pool.submit(function, items[index]): index for index in order}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if done is not None:
                done()
    return results
