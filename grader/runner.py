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
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from grader import scoring
from grader.catalog import PUBLIC_CHECKS, Exercise, Kit, KitError
from grader import reaper
from grader.sandbox import IMPORT_TIMEOUT, MAX_SUBMISSION_BYTES, sweep_workers

# Collecting the checks and importing the module must finish within this, before budgets apply.
COLLECTION_LIMIT = 120.0
# Added to the sum of the checks' budgets for pytest's own start-up and teardown.
RUN_SLACK = 30.0
# The CPU backstop of a worker covers every check's budget plus this.
CPU_SLACK = 60
# Seconds pytest gets to close its sandbox after Ctrl-C before it is killed.
INTERRUPT_GRACE = 5.0
# Seconds the grade's reaper gets to kill the grading process and sweep after SIGTERM; it runs no
# student code and waits on nothing, so only a machine in trouble needs more than a moment.
REAPER_GRACE = 10.0
# pytest's exit code for an error inside pytest or a plugin (pytest.ExitCode.INTERNAL_ERROR).
PYTEST_INTERNAL_ERROR = 3


@dataclass(frozen=True)
class Submission:
    """What is being graded: a file, a folder or a zip, and how the report names it."""

    path: Path
    shown_as: str


def derive_seed(exercise_id: str, sha256: str) -> int:
    """The default seed: the same code always draws the same inputs, and any edit draws new ones."""
    return int.from_bytes(hashlib.sha256(f"{exercise_id}:{sha256}".encode()).digest()[:4], "big")


def _copy_tree(source: Path, target: Path, limit: int = MAX_SUBMISSION_BYTES) -> None:
    """Copy regular files only: a symlink could make root copy a file the student may not read."""
    total = 0
    for folder, dirs, files in os.walk(source, followlinks=False):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git")]
        relative = Path(folder).relative_to(source)
        (target / relative).mkdir(parents=True, exist_ok=True)
        for name in files:
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            total += path.stat().st_size
            if total > limit:
                raise _SubmissionProblem(f"the submission folder holds more than {limit // 2**20} MiB")
            shutil.copyfile(path, target / relative / name)


class _SubmissionProblem(Exception):
    """A submission that cannot be graded; it becomes a report with status error."""


def _shallowest(names: list[PurePosixPath], module: str) -> PurePosixPath | None:
    matches = [name for name in names if name.name == module]
    return min(matches, key=lambda p: (len(p.parts), str(p))) if matches else None


def _unpack_zip(path: Path, module: str, target: Path) -> None:
    """Extract the folder of the zip that holds the module, refusing unsafe or oversized members."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = [m for m in archive.infolist() if not m.is_dir()]
            found = _shallowest([PurePosixPath(m.filename) for m in members], module)
            if found is None:
                raise _SubmissionProblem(f"{path.name} has no {module}")
            base = found.parent
            total = 0
            for member in members:
                name = PurePosixPath(member.filename)
                if name.is_absolute() or ".." in name.parts or base not in (name.parent, *name.parents):
                    continue
                total += member.file_size
                if total > MAX_SUBMISSION_BYTES:
                    raise _SubmissionProblem(f"{path.name} unpacks to more than {MAX_SUBMISSION_BYTES // 2**20} MiB")
                destination = target / name.relative_to(base)
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(archive.read(member))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as exc:
        raise _SubmissionProblem(f"{path.name} is not a readable zip file: {exc}") from None


def prepare_submission(submission: Path, module: str, target: Path) -> None:
    """Lay the submission out in `target` with the module at its top; raise _SubmissionProblem if impossible."""
    target.mkdir()
    if submission.is_dir():
        found = _shallowest(
            [PurePosixPath(p.relative_to(submission).as_posix()) for p in submission.rglob(module)], module
        )
        if found is None:
            raise _SubmissionProblem(f"the submission folder has no {module}")
        _copy_tree(submission / found.parent, target)
    elif zipfile.is_zipfile(submission) or submission.suffix.lower() == ".zip":
        _unpack_zip(submission, module, target)
    else:
        shutil.copyfile(submission, target / module)
    if not (target / module).is_file():
        raise _SubmissionProblem(f"the submission has no {module}")
    _check_source_text(target / module)


def _check_source_text(path: Path) -> None:
    """Refuse binary and non-UTF-8 files up front, with a message that says what is wrong and where."""
    data = path.read_bytes()
    if b"\0" in data:
        raise _SubmissionProblem(f"{path.name} is not Python source: it contains NUL bytes (is it a binary file?)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _SubmissionProblem(
            f"{path.name} line {line}: byte 0x{data[exc.start]:02x} is not UTF-8; save the file as UTF-8"
        ) from None


def unusable_submission_sha256(path: Path) -> str | None:
    """What a submission that cannot be laid out is known by: its file's sha256 (a folder has none)."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def submission_sha256(path: Path, module: str) -> str | None:
    """The sha256 a report would give this submission, found without grading it."""
    with tempfile.TemporaryDirectory(prefix="minimax-kit-layout-") as scratch:
        try:
            prepare_submission(path, module, Path(scratch) / "submission")
        except _SubmissionProblem:
            return unusable_submission_sha256(path)
        return hashlib.sha256((Path(scratch) / "submission" / module).read_bytes()).hexdigest()


def protect_secrets(kit: Kit) -> None:
    """As root, make the kit unreadable to the workers' unprivileged uids before any worker starts.

    A fresh clone is world-readable, and the uid drop alone would not hide the hidden checks or the
    solutions: not in their folders, and not in .git's objects either. The kit's root becomes
    owner-only, which closes every path into it at once; the secret folders inside are closed as
    well, in case the kit is reachable by another path. Workers need nothing from the kit: their
    script and the submission are copied out, and their interpreter lies outside.
    """
    if os.geteuid() != 0:
        return
    secrets = (kit.root, kit.root / ".git", kit.root / "solutions", kit.root / "reports",
               *(kit.root / "exercises").glob("*/checks"))
    for secret in secrets:
        if secret.exists():
            os.chmod(secret, secret.stat().st_mode & ~0o077)


def _pytest_command(run_dir: Path, exercise: Exercise, check_files: list[Path]) -> list[str]:
    return [
        sys.executable, "-P", "-m", "pytest",
        # Plugins are loaded by name only, so nothing else installed can join the grading run.
        "-p", "pytest_timeout", "-p", "pytest_jsonreport.plugin", "-p", "grader.plugin",
        # No cache folder; and no unraisable-exception plugin, whose garbage collections at the end
        # cost a grade tens of milliseconds and check nothing a check needs.
        "-p", "no:cacheprovider", "-p", "no:unraisableexception", "--strict-markers",
        "--rootdir", str(run_dir / "pytest"), "-c", str(run_dir / "pytest" / "pytest.ini"),
        "--json-report", "--json-report-file", str(run_dir / "raw.json"),
        "--json-report-omit", "collectors", "log", "streams", "warnings",
        # pytest-timeout's signal method is safe here because no student code runs in this process.
        "--timeout", f"{exercise.check_timeout:g}", "--timeout-method", "signal",
        "--grade-config", str(run_dir / "config.json"),
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


def _wait_for_pytest(process: subprocess.Popen, run_dir: Path, started: float) -> str | None:
    """Wait for pytest under the outer limit; return why it was stopped, or None if it finished."""
    limit, collected = COLLECTION_LIMIT, None
    with _exit_watch(process) as exited:
        while process.poll() is None:
            if collected is None:  # written once, when collection ends
                collected = _read_json(run_dir / "collected.json")
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
        pidfd = os.pidfd_open(process.pid) if reaper.linux_mechanisms() else None
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


def _sweep_workers(run_dir: Path) -> None:
    """As root, kill whatever the run's workers left under the uids pytest said it used.

    The grade's reaper has already killed every process the grade left that it could find; the
    uids also catch one that escaped it (a process that outlived a reaper killed as a last resort).
    """
    sweep_workers((_read_json(run_dir / "sandbox.json") or {}).get("uids_used", []))


def _run_checks(kit: Kit, exercise: Exercise, run_dir: Path, settings: dict, started: float,
                collect_only: bool = False) -> tuple[dict, str | None, dict | None]:
    """Run (or only collect) the exercise's checks in a pytest subprocess under the outer limit.

    Returns the collected checks, why the run was stopped (or None), and pytest-json-report's raw
    report (None if pytest wrote none). A check file that cannot be collected is a KitError.
    """
    checks_dir = run_dir / "pytest" / "checks"
    checks_dir.mkdir(parents=True)
    for path in exercise.checks_dir.glob("*.py"):
        shutil.copyfile(path, checks_dir / path.name)
    (run_dir / "pytest" / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    check_files = [checks_dir / path.name for path in exercise.check_files()]
    if not check_files:
        raise KitError(f"{exercise.checks_dir}: no test_*.py check files")
    config = {
        "module": exercise.module, "functions": list(exercise.functions),
        "call_timeout": exercise.call_timeout, "check_timeout": exercise.check_timeout,
        "memory_mb": exercise.memory_mb, "cpu_slack": CPU_SLACK, "run_dir": str(run_dir),
        "public_file": PUBLIC_CHECKS, **settings,
    }
    (run_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
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
    command = _pytest_command(run_dir, exercise, check_files) + (["--collect-only"] if collect_only else [])
    # pytest runs under a reaper of this grade's own, which kills what the grade leaves behind and
    # nothing else; -I -S: it needs only the standard library. Its own session: the terminal's
    # Ctrl-C reaches only grade, which passes it on (see _end_reaper).
    command = [sys.executable, "-I", "-S", reaper.__file__, "--", *command]
    with open(run_dir / "pytest.log", "wb") as log:
        process = subprocess.Popen(
            command, cwd=run_dir / "pytest", env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            fault = _wait_for_pytest(process, run_dir, started)
        except KeyboardInterrupt:
            # pytest gets SIGINT, so it closes its sandbox and says which uids it used.
            _end_reaper(process, signal.SIGINT, INTERRUPT_GRACE)
            _sweep_workers(run_dir)
            raise
    _sweep_workers(run_dir)
    collected = _read_json(run_dir / "collected.json")
    if collected is not None and collected["errors"]:
        raise KitError(f"the checks could not be collected: {collected['errors'][0]}")
    if collected is None and fault is None:
        log_lines = (run_dir / "pytest.log").read_text(errors="replace").strip().splitlines()
        detail = next((line for line in reversed(log_lines) if line.startswith(("E ", "ERROR"))), None)
        detail = detail or (log_lines[-1] if log_lines else f"pytest exited with {process.returncode}")
        raise KitError(f"{exercise.checks_dir}: the checks could not be collected: {detail.strip()}")
    raw = _read_json(run_dir / "raw.json")
    if fault is None and raw is None and not collect_only:
        fault = f"the grading process exited with status {process.returncode} and wrote no results"
    if fault is None and process.returncode == PYTEST_INTERNAL_ERROR:
        fault = "the grading process stopped with an internal error, so no check can be trusted"
    return collected or {"checks": []}, fault, raw


def collect_checks(kit: Kit, exercise: Exercise) -> list[dict]:
    """The exercise's checks (name, visibility, points), collected without running anything."""
    run_dir = Path(tempfile.mkdtemp(prefix="minimax-kit-collect-"))
    try:
        collected, fault, _ = _run_checks(kit, exercise, run_dir, {"seed": 0, "source_dir": "",
                                                                    "submission_error": None},
                                          time.monotonic(), collect_only=True)
        if fault:
            raise KitError(f"{exercise.checks_dir}: collecting the checks failed: {fault}")
        return collected["checks"]
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def grade(kit: Kit, exercise: Exercise, submission: Submission, seed: int | None = None) -> dict:
    """Grade one submission of one exercise and return the native report."""
    started_at = datetime.now(timezone.utc)
    started = time.monotonic()
    run_dir = Path(tempfile.mkdtemp(prefix="minimax-kit-run-"))
    try:
        source_dir = run_dir / "submission"
        submission_error = None
        try:
            prepare_submission(submission.path, exercise.module, source_dir)
            sha256 = hashlib.sha256((source_dir / exercise.module).read_bytes()).hexdigest()
        except _SubmissionProblem as exc:
            submission_error = str(exc)
            sha256 = unusable_submission_sha256(submission.path)
        if seed is None:
            seed = derive_seed(exercise.id, sha256 or "")
        settings = {"seed": seed, "source_dir": str(source_dir), "submission_error": submission_error}
        collected, fault, raw = _run_checks(kit, exercise, run_dir, settings, started)
        sandbox_info = _read_json(run_dir / "sandbox.json") or {}
        return scoring.build_report(
            exercise={"id": exercise.id, "slug": exercise.slug, "title": exercise.title},
            submission={"path": submission.shown_as, "sha256": sha256},
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
        shutil.rmtree(run_dir, ignore_errors=True)
