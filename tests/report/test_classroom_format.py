"""GitHub Classroom: the handout's workflow, run step by step, ends in GitHub Classroom's own reporter.

The grade step's script is taken from the exported workflow and run in the handout; its outputs
go to the reporter the way the workflow's `env` and `with` say, and the reporter is the file GitHub
runs for `classroom-resources/autograding-grading-reporter@v1` (tests/fixtures/classroom_reporter).
What the student reads in the log, the reporter's table and the points it records for GitHub
Classroom must all equal the kit's own report.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.catalog import Kit
from grader.authoring.export import export_handout
from tests.conftest import REPO, TOY_KIT

REPORTER = REPO / "tests" / "fixtures" / "classroom_reporter" / "main.js"
NODE = shutil.which("node")
GOLDEN = REPO / "tests" / "golden"
SUBMISSIONS = {
    "passing": TOY_KIT / "solutions" / "ex01_toy" / "toy.py",
    "failing": GOLDEN / "partial_solution" / "toy.py",
    "erroring": GOLDEN / "syntax_error" / "toy.py",
}

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = [pytest.mark.ordinary_user,
              pytest.mark.skipif(NODE is None, reason="Node is not installed (.ci/run installs it)")]


@pytest.fixture(scope="module")
def handout(tmp_path_factory) -> Path:
    """The toy kit's handout, as a student's GitHub Classroom repository holds it."""
    root = tmp_path_factory.mktemp("classroom") / "kit"
    shutil.copytree(TOY_KIT, root, ignore=shutil.ignore_patterns("reports"))
    target = tmp_path_factory.mktemp("classroom") / "handout"
    export_handout(Kit(root), target)
    return target


def workflow_steps(handout: Path) -> dict[str, dict]:
    """The handout workflow's steps, by name."""
    workflow = yaml.safe_load((handout / ".github" / "workflows" / "grade.yml").read_text())
    (job,) = workflow["jobs"].values()
    return {step.get("name", step.get("uses")): step for step in job["steps"]}


def run_the_workflow(handout: Path, submission: Path, tmp_path: Path) -> tuple[str, subprocess.CompletedProcess]:
    """The grade step's log, and the reporter's run, for a student who pushed `submission`."""
    work = tmp_path / "repo"
    shutil.copytree(handout, work)
    shutil.copyfile(submission, work / "exercises" / "ex01_toy" / "toy.py")
    steps = workflow_steps(work)
    outputs = tmp_path / "github_output"
    outputs.write_text("")
    env = {**os.environ, "GITHUB_OUTPUT": str(outputs), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    graded = subprocess.run(["bash", "-e", "-c", steps["Grade"]["run"]], cwd=work, env=env,
                            capture_output=True, text=True, timeout=300)
    assert graded.returncode == 0, graded.stderr
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    reporter = steps["Autograding reporter"]
    assert reporter["uses"] == "classroom-resources/autograding-grading-reporter@v1"
    reporter_env = {"PATH": os.environ["PATH"], "INPUT_RUNNERS": reporter["with"]["runners"]}
    for name, expression in reporter["env"].items():
        (output,) = re.fullmatch(r"\$\{\{ steps\.grade\.outputs\.(\w+) \}\}", expression).groups()
        reporter_env[name] = values[output]
    reported = subprocess.run([NODE, str(REPORTER)], env=reporter_env, capture_output=True, text=True, timeout=60)
    return graded.stdout, reported


def kit_report(tmp_path: Path) -> dict:
    """The kit's own report of the grade the workflow ran (the student's progress file)."""
    return json.loads((tmp_path / "repo" / "reports" / "ex01.json").read_text())


@pytest.mark.parametrize("case", sorted(SUBMISSIONS))
def test_the_log_the_table_and_the_recorded_points_agree_with_the_kit(case, handout, tmp_path):
    log, reported = run_the_workflow(handout, SUBMISSIONS[case], tmp_path)
    report = kit_report(tmp_path)
    score, most = report["score"], report["max_score"]
    assert most == 3  # the toy's public checks: one of 2 points, one of 1
    assert f"Total points for ex01: {score:.2f}/{most:g}" in reported.stdout
    table_total = re.search(r"│ Total:\s*│ (\S+)\s*│ (\S+)\s*│", reported.stdout)
    assert table_total and (float(table_total[1]), float(table_total[2])) == (score, most)
    assert f"::notice title=Autograding complete::Points {score:g}/{most:g}" in reported.stdout
    recorded = re.search(r"::notice title=Autograding report::(.*)", reported.stdout)
    assert recorded and json.loads(recorded[1]) == {"totalPoints": score, "maxPoints": most}
    assert "Test code:" not in reported.stdout  # no check's source dumped into the log
    # The reporter fails the job unless every check passed, as the kit's exit status would.
    assert (reported.returncode == 0) == (report["status"] == "pass")
    # The hidden checks are not in the handout: the log says they run when the work is marked.
    withheld = json.loads((handout / "exercises" / "ex01_toy" / "checks" / "withheld.json").read_text())
    assert (f"When your work is marked, {withheld['checks']} hidden checks worth {withheld['points']:g} points "
            "also run.") in " ".join(log.split())


def test_a_failed_public_check_shows_its_message(handout, tmp_path):
    _, reported = run_the_workflow(handout, SUBMISSIONS["failing"], tmp_path)
    report = kit_report(tmp_path)
    failed = [test for test in report["tests"] if test["outcome"] != "passed"]
    assert failed
    for test in failed:
        first_line = test["message"].splitlines()[0]
        assert f"❌ {test['name']}" in reported.stdout and first_line in reported.stdout


def test_an_erroring_submission_says_why_in_the_reporter(handout, tmp_path):
    _, reported = run_the_workflow(handout, SUBMISSIONS["erroring"], tmp_path)
    assert kit_report(tmp_path)["status"] == "error"
    assert "SyntaxError" in reported.stdout and "::error::Some tests errored." in reported.stdout


def test_a_check_worth_several_points_counts_as_that_many_entries(handout, tmp_path):
    run_the_workflow(handout, SUBMISSIONS["failing"], tmp_path)
    result = json.loads((tmp_path / "repo" / "classroom" / "ex01.json").read_text())
    report = kit_report(tmp_path)
    assert len(result["tests"]) == sum(int(test["max_score"]) for test in report["tests"])
    assert sum(entry["score"] for entry in result["tests"]) == report["score"]
