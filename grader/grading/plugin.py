"""The pytest side of grading: markers, the `student` and `rng` fixtures, and per-check feedback.

pytest loads this module with `-p grader.grading.plugin` in the grading process, which never runs student
code itself: every call goes through the sandbox. The hooks only collect; `scoring` turns what they
recorded (and pytest-json-report's raw report) into the score report.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import random
import signal
import sys
from pathlib import Path

import pytest

from grader.failures import (
    Failure,
    FailureKind,
    ImportFailed,
    StudentFailure,
    StudentRaised,
    import_failed,
)
from grader.grading.contract import RunFiles
from grader.grading.proxy import Feedback, StudentProxy
from grader.outcomes import Outcome
from grader.report import cap
from grader.sandbox import CpuLease, CpuTime, Sandbox, SandboxSettings, cpu_time, become_subreaper
from grader.source_map import SourceMap

MARKERS = {
    "points(n)": "the check is worth n points (default 1); each parametrized case is one check",
    "hint(text)": "shown to the student when this check fails, even when the check is hidden",
    "call_timeout(seconds)": "deadline for each call into student code made by this check",
    "requires(*names)": ("the check earns its points only once every check of these test functions has passed "
                         "(each case of a parametrized one): for checks of robustness, shape or non-mutation"),
}

GRADING = pytest.StashKey["GradingSession"]()


def pytest_addoption(parser):
    """The one option the runner passes: where this run's settings are."""
    parser.addoption("--grade-config", default=None, help="JSON settings of a minimax-kit grading run")


def pytest_configure(config):
    """Register the markers, and start a grading session when the runner asked for one."""
    for marker, text in MARKERS.items():
        config.addinivalue_line("markers", f"{marker}: {text}")
    path = config.getoption("--grade-config")
    if path:
        session = GradingSession(json.loads(Path(path).read_text(encoding="utf-8")))
        config.stash[GRADING] = session
        config.pluginmanager.register(session, "minimax-kit-grading")


def check_name(item: pytest.Item) -> str:
    """The first line of the check's docstring, or its function name in words."""
    doc = (getattr(item.function, "__doc__", None) or "").strip()
    if doc:
        return doc.splitlines()[0].strip()
    name = item.originalname
    return name.removeprefix("test_").replace("_", " ")


def _marker_value(item: pytest.Item, name: str, check):
    """The single argument of a marker, validated by `check`, or None when the marker is absent."""
    marker = item.get_closest_marker(name)
    if marker is None:
        return None
    if len(marker.args) != 1 or marker.kwargs or not check(marker.args[0]):
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{name} needs one valid argument, got {marker.args!r}")
    return marker.args[0]


def _is_rerun_advice(line: str) -> bool:
    """Whether a line of pytest's is its advice to rerun with -v or -vv, which a student cannot take."""
    words = line.lower()
    return any(f"use -{'v' * count} to {what}" in words for count in (1, 2, 3) for what in ("get more diff", "show"))


def _explain(excinfo) -> str:
    """pytest's one-exception summary, without its advice to rerun with -v (students cannot)."""
    lines = excinfo.exconly().splitlines()
    return "\n".join(line for line in lines if not _is_rerun_advice(line)).rstrip()


def _source_map(settings: dict) -> SourceMap | None:
    """How the run names the module's lines: a notebook's cells, or None for a plain .py file."""
    data = settings.get("source_map")
    return SourceMap.from_data(data) if data else None


def _positive(value) -> bool:
    return type(value) in (int, float) and value > 0


@pytest.fixture
def student(request) -> StudentProxy:
    """A proxy to the submitted module, which runs in the sandbox worker."""
    grading = request.config.stash[GRADING]
    timeout = _marker_value(request.node, "call_timeout", _positive) or grading.settings["call_timeout"]
    return StudentProxy(grading.sandbox(), float(timeout), grading.outputs.setdefault(request.node.nodeid, []))


@pytest.fixture
def feedback(request) -> Feedback:
    """Extra text for this check's failure message; shown only by public checks."""
    grading = request.config.stash[GRADING]
    return Feedback(grading.notes.setdefault(request.node.nodeid, []))


@pytest.fixture
def rng(request) -> random.Random:
    """A random.Random seeded from the run's seed and this check, so every run can be repeated."""
    grading = request.config.stash[GRADING]
    return random.Random(f"{grading.settings['seed']}:{request.node.nodeid}")


class GradingSession:
    """The grading run inside pytest: the check list, the sandbox, and what each check showed."""

    def __init__(self, settings: dict):
        self.settings = settings
        self.files = RunFiles(Path(settings["run_dir"]))
        self.checks: dict[str, dict] = {}
        self.outputs: dict[str, list[str]] = {}
        self.notes: dict[str, list[str]] = {}
        self.failures: dict[str, dict] = {}
        self.collection_errors: list[str] = []
        self._sandbox: Sandbox | None = None
        self.cpu_lease: CpuLease | None = None
        self.cpu_start = CpuTime()
        self.exitstatus: int | None = None

    # -- collection: the list of checks is written before anything runs, so scoring fails closed.

    def pytest_collectreport(self, report):
        """Remember check files that failed to import: a fault in the kit, not in the submission."""
        if report.failed:
            lines = [line for line in str(report.longrepr).splitlines() if line.startswith("E ")]
            detail = lines[-1][1:].strip() if lines else str(report.longrepr).strip().splitlines()[-1]
            self.collection_errors.append(f"{report.nodeid}: {detail}")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        """Record every check with its name, visibility, points and budget."""
        public_file = self.settings["public_file"]
        case_numbers: dict[tuple[str, str], int] = {}
        for item in items:
            path = Path(item.nodeid.split("::", 1)[0])
            visibility = "public" if path.name == public_file else "hidden"
            name = check_name(item)
            report_id = item.nodeid
            callspec = getattr(item, "callspec", None)
            if callspec is not None:
                key = (str(path), item.originalname)
                case_numbers[key] = case_numbers.get(key, 0) + 1
                if visibility == "hidden":
                    # Parametrize ids can spell out hidden inputs, so hidden cases are only numbered.
                    report_id = f"{path}::{item.originalname}[{case_numbers[key]}]"
                    name = f"{name} #{case_numbers[key]}"
                else:
                    name = f"{name} [{callspec.id}]"
            points = _marker_value(item, "points", _positive)
            hint = _marker_value(item, "hint", lambda v: type(v) is str and v.strip())
            budget = _marker_value(item, "timeout", _positive) or self.settings["check_timeout"]
            self.checks[item.nodeid] = {
                "nodeid": item.nodeid, "id": report_id, "name": name, "visibility": visibility,
                "points": float(points if points is not None else 1), "hint": hint, "budget_s": float(budget),
                # Exercism shows a check's code; only public code may be shown, since hidden code holds inputs.
                "code": cap(inspect.getsource(item.function)) if visibility == "public" else None,
                # What a gated check waits on says this name: the check's, without its case's number.
                "family": check_name(item), "requires": [],
            }
        self._resolve_requirements(items)
        collected = {"checks": list(self.checks.values()), "errors": self.collection_errors}
        self.files.collected.write_text(json.dumps(collected), encoding="utf-8")

    def _resolve_requirements(self, items) -> None:
        """Turn each @pytest.mark.requires into the nodeids it waits on; a bad one is a fault in the kit."""
        by_function: dict[str, list[str]] = {}
        for item in items:
            by_function.setdefault(item.originalname, []).append(item.nodeid)
        gated = {item.nodeid for item in items if item.get_closest_marker("requires") is not None}
        for item in items:
            marker = item.get_closest_marker("requires")
            if marker is None:
                continue
            names = marker.args
            if not names or marker.kwargs or not all(type(name) is str for name in names):
                self.collection_errors.append(f"{item.nodeid}: @pytest.mark.requires needs the names of test "
                                              f"functions, got {names!r}")
                continue
            for name in names:
                waited = by_function.get(name)
                if not waited or item.nodeid in waited:
                    self.collection_errors.append(f"{item.nodeid}: @pytest.mark.requires({name!r}) names no other "
                                                  "check of this exercise")
                elif gated & set(waited):
                    # One level only: a requirement that waits itself could make a cycle.
                    self.collection_errors.append(f"{item.nodeid}: @pytest.mark.requires({name!r}) names a check "
                                                  "that waits on another itself")
                else:
                    self.checks[item.nodeid]["requires"].extend(waited)

    def pytest_sessionstart(self, session):
        """Start the worker's interpreter now, so it boots while pytest collects the checks."""
        if session.config.option.collectonly:
            return
        if os.geteuid() != 0:  # before any worker starts, so that its orphans come to this process
            become_subreaper()
        # Also before any worker starts: workers keep to the CPU this process claims.
        self.cpu_lease = CpuLease()
        self.cpu_start = cpu_time()
        if not self.settings.get("submission_error"):
            self.sandbox().boot()

    def pytest_collection_finish(self, session):
        """Start the sandbox and import the module once, before the first check."""
        if session.config.option.collectonly:
            return
        info: dict = {}
        if self.settings.get("submission_error"):
            info["import_error"] = self.settings["submission_error"]
        else:
            sandbox = self.sandbox()
            # A backstop only: every check's budget, plus slack, of CPU for one worker.
            cpu_seconds = math.ceil(sum(c["budget_s"] for c in self.checks.values()) + self.settings["cpu_slack"])
            try:
                sandbox.start(cpu_seconds)
            except ImportFailed as exc:
                info["import_error"] = exc.message
            else:
                info["missing_functions"] = sandbox.missing_functions()
            # Kept on a failed import too: what printed before the exception is what the student needs.
            info["import_output"] = sandbox.import_output
            info["environment"] = sandbox.environment()
        self._write_sandbox_info(info)

    def _write_sandbox_info(self, info: dict):
        path = self.files.sandbox
        saved = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        saved.update(info)
        path.write_text(json.dumps(saved), encoding="utf-8")

    def sandbox(self) -> Sandbox:
        """The run's sandbox, created on first use."""
        if self.settings.get("submission_error"):
            raise import_failed(self.settings["submission_error"])
        if self._sandbox is None:
            self._sandbox = Sandbox(
                SandboxSettings(
                    module=self.settings["module"],
                    functions=tuple(self.settings["functions"]),
                    source_dir=Path(self.settings["source_dir"]),
                    memory_mb=int(self.settings["memory_mb"]),
                    # Replaced by the checks' own backstop once they are collected (start()).
                    cpu_seconds=int(self.settings["cpu_slack"]),
                    hash_seed=int(self.settings["seed"]) % 2**32,
                    # The runner starts this process under the grade's reaper.
                    owner_pid=os.getppid(),
                    source_map=_source_map(self.settings),
                )
            )
        return self._sandbox

    def pytest_sessionfinish(self, session, exitstatus):
        """Stop the last worker and note which uids were used, for the runner's final sweep."""
        self.exitstatus = int(exitstatus)
        if self._sandbox is not None:
            self._sandbox.close()
            # The checks ran here and the student's code in the workers: a wait in either can
            # turn into a timeout that says nothing about the student's code.
            used = cpu_time() - self.cpu_start + self._sandbox.cpu.total
            self._write_sandbox_info({"uids_used": sorted(self._sandbox.uids_used),
                                      "cpu": {"contended": used.contended, "waited_s": used.waited_ns // 10**9}})

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config):
        """End the grading process at once: every file the runner reads is written by now, and the
        interpreter's own teardown (thousands of modules and objects) would only delay the grade."""
        if self.exitstatus is None:  # no session ran (an error in the command line): let pytest finish
            return
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(self.exitstatus)

    # -- per-check feedback

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        """Keep the first failure of each check; attach the feedback to the teardown report."""
        outcome = yield
        report = outcome.get_result()
        check = self.checks.get(item.nodeid)
        if check is None:
            return
        if call.excinfo is not None and item.nodeid not in self.failures:
            self.failures[item.nodeid] = self._describe_failure(check, call, self.notes.get(item.nodeid, []))
            kind = self.failures[item.nodeid]["failure"]["kind"]
            if self.settings.get("stop_at_catch") and kind not in (FailureKind.TIMEOUT, FailureKind.ERROR):
                # The check caught the submission on a value, an exception or a crash; the rest cannot change that.
                item.session.shouldstop = "a check caught the submission"
        if call.when == "teardown":
            feedback = self.failures.get(item.nodeid, {"outcome": str(Outcome.PASSED), "message": None, "failure": None})
            outputs = "".join(self.outputs.pop(item.nodeid, []))
            self.notes.pop(item.nodeid, None)
            # A hidden check never shows the student's output: it can echo a hidden input.
            feedback["output"] = cap(outputs) if check["visibility"] == "public" and outputs else None
            report.user_properties.append(("minimax_kit", feedback))

    def _describe_failure(self, check: dict, call, notes: list[str]) -> dict:
        """Classify a failed stage and write the message the student may see, with the check's notes if public."""
        exc = call.excinfo.value
        public = check["visibility"] == "public"
        hint = check["hint"]
        if isinstance(exc, StudentFailure):  # a call's failure, or the check's own time limit (see set_timer)
            failure = exc.failure
            message = failure.words(public)
        elif call.when != "call":
            failure = Failure(FailureKind.ERROR)
            stage = "start" if call.when == "setup" else "finish"
            message = _explain(call.excinfo) if public else f"the check could not {stage}"
        elif isinstance(exc, pytest.fail.Exception):
            # A message the check's author wrote for the student; safe to show even when hidden.
            failure, message = Failure(FailureKind.ASSERTION), str(exc)
        elif isinstance(exc, StudentRaised):
            failure = exc.student.failure(exc.student.call)
            message = failure.words(public)
        else:  # the check's assertion failed, or it choked on what the student's code returned
            failure = Failure(FailureKind.ASSERTION)
            message = _explain(call.excinfo) if public else None
        if not public:
            message = "\n".join(part for part in (message, hint and f"Hint: {hint}") if part) or "this hidden check failed"
        elif hint:
            message = f"{message}\nHint: {hint}"
        if public and notes:
            # The hint stays next to the failure; notes (a picture, say) are longer, so they come last.
            message = "\n\n".join([message or "this check failed", *notes])
        return {"outcome": str(failure.outcome), "message": cap(message), "failure": failure.facts(public)}

    # -- the check's own time limit

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_set_timer(self, item, settings):
        """Enforce pytest-timeout's limit for a check with an alarm that fails it as a timeout of the check.

        pytest-timeout resolves the limit (marker, then command line) and asks for the timer here;
        its own signal method would fail the check with a message, which could only be told from a
        check's failure by its words. No student code runs in this process, so the alarm is safe.
        """
        limit = float(settings.timeout)
        if limit <= 0:
            return None

        def on_alarm(signum, frame):
            raise StudentFailure(Failure(FailureKind.TIMEOUT, limit_s=limit))

        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_timeout_cancel_timer(self, item):
        """Stop the check's alarm."""
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        return True
