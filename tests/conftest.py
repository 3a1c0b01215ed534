"""Shared fixtures for the kit's own tests: the kits, the report schema, and a way to run `grade`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader.catalog import Kit
from grader.report.formats import load_schema

REPO = Path(__file__).resolve().parent.parent
TOY_KIT = Path(__file__).resolve().parent / "fixtures" / "kit"
GRADE = [sys.executable, "-m", "grader.cli"]


def memory_cgroups_work() -> bool:
    """Whether this machine lets the grader give a worker a memory cgroup: root, a mounted memory
    controller, and the right to make a group under this process's own (tried, then undone)."""
    from grader.sandbox.isolation import MemoryCgroup, own_memory_cgroup

    parent = own_memory_cgroup() if os.geteuid() == 0 else None
    if parent is None:
        return False
    try:
        MemoryCgroup(parent, f"minimax-kit-probe-{os.getpid()}", 64 * 2**20).remove()
    except OSError:
        return False
    return True


def namespaces_work(uid: int | None = None) -> bool:
    """Whether `uid` (default: this process's) may give a process the namespaces a worker gets:
    tried with util-linux's unshare, inside a user namespace unless the uid is root."""
    uid = os.geteuid() if uid is None else uid
    command = ["unshare", "--net", "--ipc", "--mount", "--pid", "--fork", "true"]
    if uid != 0:
        command.insert(1, "--user")
    switch = {"user": uid, "group": uid, "extra_groups": []} if uid != os.geteuid() else {}
    try:
        return subprocess.run(command, capture_output=True, timeout=30, **switch).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="session")
def schema_validator():
    """Validates a native report (or a summary) against the schema shipped in the package."""
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture
def validate_report(schema_validator):
    """Assert that a report is valid against the schema, and return it."""

    def check(report: dict) -> dict:
        schema_validator.validate(report)
        return report

    return check


@pytest.fixture
def toy_kit(tmp_path) -> Kit:
    """A private copy of the toy kit, so tests may write reports and change files freely."""
    root = tmp_path / "kit"
    shutil.copytree(TOY_KIT, root, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    return Kit(root)


@pytest.fixture(scope="session")
def repo_kit() -> Kit:
    """The real kit in this repository."""
    return Kit(REPO)


def mutant_file(kit: Kit, exercise_id: str, name: str, folder: Path) -> Path:
    """A known mistake of the reference (solutions/exNN/mutants.toml), written out as a submission file."""
    from grader.known_mistakes import find_mutant, write_mutant

    exercise = kit.resolve(exercise_id)
    return write_mutant(exercise, kit.root, find_mutant(exercise, kit.root, name), folder)


def run_grade(*args: str, cwd: Path, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the `grade` CLI in a subprocess, as a user or CI would."""
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [*GRADE, *args], cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout, check=False
    )


def golden_report(case: str) -> dict:
    """A golden report of the toy exercise, with the times and environment its stable view leaves out."""
    report = json.loads((REPO / "tests" / "golden" / case / "expected.json").read_text(encoding="utf-8"))
    tests = [{**test, "duration_s": 0.01} for test in report["tests"]]
    return {**report, "tests": tests, "environment": {"python": "3.11", "sandbox": {"timeout_s": 2.0}}}
