"""One grade's pytest process: its command, its start under the grade's reaper, the wait for it under
the outer wall-clock limit, and the checks' bytecode kept between grades."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from grader.catalog import Exercise, Kit, KitError
from grader.run_contract import Collected, RunFiles, RunSettings, SandboxFacts, StopAt, read_json
from grader import sandbox  # the face: the rest of the sandbox loads on first use, once pytest is started
# The launcher and the reaper's script: the standard library only, what a grade needs first.
from grader.sandbox import Launcher, linux_mechanisms, reaper_command
from grader.grading.launching import grading_env
from grader.text import write_bytes_atomically

# Collecting the checks and importing the module must finish within this, before budgets apply.
COLLECTION_LIMIT = 120.0
# Added to the sum of the checks' budgets for pytest's own start-up and teardown.
RUN_SLACK = 30.0
# Seconds pytest gets to close its sandbox after Ctrl-C before it is killed.
INTERRUPT_GRACE = 5.0
# Seconds the grade's reaper gets to kill the grading process and sweep after SIGTERM; it runs no
# student code and waits on nothing, so only a machine in trouble needs more than a moment.
REAPER_GRACE = 10.0
# Seconds between looks for the checks' results while a grade waits to show them (_wait_for_pytest).
CHECKS_OVER_POLL_S = 0.01
# pytest's exit code for an error inside pytest or a plugin (pytest.ExitCode.INTERNAL_ERROR).
PYTEST_INTERNAL_ERROR = 3
# The grading process's main module: pytest with the grading run's plugins (grader/grading/pytest_main.py).
GRADING_MAIN = "grader.grading.pytest_main"
# pytest's built-in plugins that a grading run leaves out (see _pytest_arguments).
UNUSED_PYTEST_PLUGINS = ("junitxml", "doctest", "pastebin", "debugging", "setuponly", "setupplan", "stepwise",
                         "unittest", "tmpdir", "monkeypatch", "recwarn", "logging", "subtests", "threadexception")


def _pytest_arguments(files: RunFiles, kit: Kit, exercise: Exercise, check_files: list[Path]) -> list[str]:
    """pytest's command line for one grade (after `python -S -P -m GRADING_MAIN`, which hands pytest
    its plugins as modules: nothing else installed can join the grading run)."""
    return [
        # No cache folder; and no unraisable-exception plugin, whose garbage collections at the end
        # cost a grade tens of milliseconds and check nothing a check needs.
        "-p", "no:cacheprovider", "-p", "no:unraisableexception",
        # Nor pytest's plugins that a grading run never asks for, whose imports and hooks would only
        # lengthen every grade: other reports, doctests, the debugger, stepping, unittest classes,
        # the fixtures no check uses (tmp_path, monkeypatch, recwarn, caplog, subtests; the checks'
        # API is `student`, `feedback` and `rng`), and the thread-exception hook, which watches
        # threads that no check starts. (legacypath stays: pytest-json-report reads session.fspath.)
        *(argument for name in UNUSED_PYTEST_PLUGINS for argument in ("-p", f"no:{name}")),
        "--strict-markers",
        "--rootdir", str(files.pytest_root), "-c", str(files.pytest_root / "pytest.ini"),
        "--json-report", "--json-report-file", str(files.raw),
        "--json-report-omit", "collectors", "log", "streams", "warnings",
        # pytest-timeout's signal method is safe here because no student code runs in this process.
        "--timeout", f"{exercise.check_timeout:g}", "--timeout-method", "signal",
        "--grade-run", str(files.folder), "--grade-kit", str(kit.root),
        # Default assertion verbosity: -v would make pytest diff long lists with difflib, which can
        # take longer than a check's budget on the big inputs some checks compare.
        "-q", "--no-header", "-p", "no:warnings",
        # No tracebacks: the plugin words every failure itself, and pytest's own long traceback of a
        # failed check (each frame's source parsed anew) costs a failing grade more than its checks.
        "--tb=no",
        *(str(path) for path in check_files),
    ]


def _wait_for_pytest(process: subprocess.Popen, files: RunFiles, started: float,
                     on_checks_over: Callable[[dict], None] | None = None) -> str | None:
    """Wait for pytest under the outer limit; return why it was stopped, or None if it finished.

    With `on_checks_over`, it is called with the raw report as soon as pytest-json-report has written
    it, when the last check has ended and the explanations and diagnosis are still to come.
    """
    limit, collected = COLLECTION_LIMIT, None
    # How often the wait looks for the raw report: often enough that the table's wait is not noticed.
    poll_s = CHECKS_OVER_POLL_S if on_checks_over else 0.05
    with _exit_watch(process) as exited:
        while process.poll() is None:
            if collected is None:  # written once, when collection ends
                collected = Collected.read(files.collected)
                if collected is not None:
                    limit = sum(check.budget_s for check in collected.checks) + sandbox.IMPORT_TIMEOUT + RUN_SLACK
            if on_checks_over is not None and files.raw.exists():
                raw = read_json(files.raw)  # None while it is being written
                if raw is not None:
                    on_checks_over(raw)
                    on_checks_over, poll_s = None, 0.05
            if time.monotonic() - started > limit:
                end_reaper(process, signal.SIGTERM, REAPER_GRACE)
                return f"the grading process ran past its {limit:g} s limit and was stopped"
            if exited is not None:  # wakes the moment pytest exits
                select.select([exited], [], [], poll_s)
            else:  # polls with growing sleeps
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=poll_s)
    return None


@contextlib.contextmanager
def _exit_watch(process: subprocess.Popen):
    """A descriptor that becomes readable when the process exits, where Linux offers one, else None."""
    if hasattr(process, "exit_fd"):  # a launched reaper's own (sandbox.Launcher), kept open by it
        yield process.exit_fd()
        return
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


def end_reaper(process: subprocess.Popen, signum: int, grace: float) -> None:
    """Ask the grade's reaper to end the grading process (SIGINT: let it close; SIGTERM: kill it now)
    and wait for the reaper's sweep; SIGTERM, then SIGKILL to the reaper's group, if it takes too long.

    Only the reaper is signalled: it outlives the grading process, so it can still kill what the
    grade left. SIGKILL to its group is the last resort, and then its orphans go to init.
    """
    for signal_now, wait in ((signum, grace), (signal.SIGTERM, REAPER_GRACE)):
        process.send_signal(signal_now)  # nothing once it has ended, so a pid reused since is never hit
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)  # the reaper leads its own session and group
    process.wait()


def sweep_run_workers(files: RunFiles) -> None:
    """As root, kill whatever the run's workers left under the uids pytest said it used.

    The grade's reaper has already killed every process the grade left that it could find; the
    uids also catch one that escaped it (a process that outlived a reaper killed as a last resort).
    """
    sandbox.sweep_workers(SandboxFacts.read(files.sandbox).uids_used)


def run_checks(kit: Kit, exercise: Exercise, files: RunFiles, settings: RunSettings, started: float,
                collect_only: bool = False) -> tuple[Collected, str | None, dict | None]:
    """Run (or only collect) the exercise's checks in a pytest subprocess under the outer limit.

    Returns the collected checks, why the run was stopped (or None), and pytest-json-report's raw
    report (None if pytest wrote none). A check file that cannot be collected is a KitError.
    """
    process = start_pytest(kit, exercise, files, settings, collect_only=collect_only)
    return finish_pytest(process, exercise, files, started, collect_only)


def start_pytest(kit: Kit, exercise: Exercise, files: RunFiles, settings: RunSettings,
                  collect_only: bool = False, wait_fd: int | None = None, launcher: Launcher | None = None):
    """Lay out the checks and start pytest on them under the grade's reaper (forked by `launcher`, if
    given); with `wait_fd`, it collects, then waits on that pipe for the word that the run's settings
    are written (ReadyGrade)."""
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
    arguments = _pytest_arguments(files, kit, exercise, check_files) + (["--collect-only"] if collect_only else [])
    if settings.stop_at is StopAt.FIRST_FAILURE:
        arguments.append("--maxfail=1")
    with open(files.log, "wb") as log:
        if launcher is not None:  # forked by the launcher, under a reaper it forks first
            waiting = () if wait_fd is None else ("--grade-wait", 0)  # 0: the first of pass_fds
            with contextlib.suppress(sandbox.LauncherEnded):  # killed (by a student, not as root): start afresh
                return launcher.launch(sandbox.Launch(GRADING_MAIN, (*arguments, *waiting), grading_env(),
                                                      str(files.pytest_root), () if wait_fd is None else (wait_fd,)),
                                       log.fileno())
        if wait_fd is not None:
            arguments += ["--grade-wait", str(wait_fd)]
        # pytest runs under a reaper of this grade's own, which kills what the grade leaves behind and
        # nothing else. Its own session: the terminal's Ctrl-C reaches only grade, which passes it on
        # (see end_reaper).
        return subprocess.Popen(
            # -S: no `site`, whose .pth files (an editable install's finder among them) cost every grade
            # tens of milliseconds; the import path comes whole from this process (grading_env).
            reaper_command([sys.executable, "-S", "-P", "-m", GRADING_MAIN, *arguments]),
            cwd=files.pytest_root, env=grading_env(),
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            pass_fds=() if wait_fd is None else (wait_fd,),
        )


def finish_pytest(process: subprocess.Popen, exercise: Exercise, files: RunFiles, started: float,
                  collect_only: bool = False, on_checks_over: Callable[[dict], None] | None = None,
                  ) -> tuple[Collected, str | None, dict | None]:
    """Wait for pytest under the outer limit and read what it wrote (see run_checks and _wait_for_pytest)."""
    try:
        fault = _wait_for_pytest(process, files, started, on_checks_over)
    except KeyboardInterrupt:
        # pytest gets SIGINT, so it closes its sandbox and says which uids it used.
        end_reaper(process, signal.SIGINT, INTERRUPT_GRACE)
        sweep_run_workers(files)
        raise
    except BaseException:  # on_checks_over failed (a closed stdout, say): nothing more is waited for
        end_reaper(process, signal.SIGTERM, REAPER_GRACE)
        sweep_run_workers(files)
        raise
    sweep_run_workers(files)
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
