"""docs/sharding.md's recipes as printed there: the Slurm array run on a real Slurm, the GitHub Actions
matrix checked against GitHub's workflow schema.

Each recipe is read from the doc's fenced blocks under its heading, as .ci/run reads the README's
commands, so the documented text is the tested one."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.classroom.test_shards import _table_without_timings, _without_timings
from tests.conftest import REPO, TOY_KIT, run_grade
from tests.slurm import slurm_cluster
from tests.workflows import assert_valid_workflow

SHARDING = REPO / "docs" / "sharding.md"
GOLDEN = REPO / "tests" / "golden"
# Six students, two of each: full marks, some marks, and code that does not even import.
CLASS = {f"s{index}": case for index, case in
         enumerate(["full_solution", "partial_solution", "syntax_error"] * 2)}
SLICES = 3
# The one-node cluster has 2 CPUs and each task asks for --cpus-per-task=2: the tasks run one by one.
JOBS_S = 150


def _without_the_load(report: dict) -> dict:
    """A report less what the machine's load decides, besides the times and uid test_shards leaves out: how
    long its processes waited for a CPU (environment.sandbox.cpu), and its diagnosis, which is cut off at a
    deadline of wall time (grader/grading/diagnosis.py), so that on a busy machine the same submission
    may be diagnosed in one run and not in the next, sliced or not (mistakes.csv is left out for that)."""
    environment = report.get("environment", {})
    sandbox = {key: value for key, value in environment.get("sandbox", {}).items() if key != "cpu"}
    return {**{key: value for key, value in report.items() if key != "diagnosis"},
            "environment": {**environment, "sandbox": sandbox}}


def recipe(heading: str, language: str) -> list[str]:
    """The fenced `language` blocks of docs/sharding.md's section `## heading`, in order."""
    text = SHARDING.read_text(encoding="utf-8")
    section = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, f"docs/sharding.md has no section '## {heading}'"
    return re.findall(rf"^```{language}\n(.*?)^```$", section.group(1), re.S | re.M)


def one_machine_command(script: str) -> list[str]:
    """The array script's `grade batch` with its slicing taken away: --shard, and --out and --jobs, which
    name each slice's folder and CPUs. What is left is the class, the exercises and the seed."""
    (line,) = [line for line in script.replace("\\\n", " ").splitlines() if line.startswith("grade batch")]
    words, kept = shlex.split(line), []
    while words:
        word = words.pop(0)
        if word in ("--shard", "--out", "--jobs"):
            words.pop(0)
        else:
            kept.append(word)
    return kept[1:]


@pytest.fixture
def slurm():
    with slurm_cluster() as cluster:
        yield cluster


@pytest.mark.slow
def test_the_slurm_array_merges_into_what_one_machine_grades(slurm, tmp_path):
    script, submit = recipe("Slurm: an array", "sh")
    assert script.startswith("#!/bin/bash\n") and "#SBATCH --array=" in script
    # The kit's folder as the doc lays it out: the kit, its class in submissions/, the script beside them.
    kit = tmp_path / "kit"
    shutil.copytree(TOY_KIT, kit, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    (kit / "submissions").mkdir()
    for name, case in CLASS.items():
        shutil.copyfile(GOLDEN / case / "toy.py", kit / "submissions" / f"{name}.py")
    # N chosen as the doc says, in the array's size (and nowhere else).
    array = re.findall(r"^#SBATCH --array=1-\d+$", script, re.M)
    assert len(array) == 1, array
    (kit / "mark-the-class.sh").write_text(script.replace(array[0], f"#SBATCH --array=1-{SLICES}"))
    # Submitted with this Python's `grade` first on the PATH, as `. .venv/bin/activate` puts it (the
    # grades' own settings, such as GRADE_UID_RANGE, pass through too).
    env = {**slurm.env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    submitted = subprocess.run(["bash", "-euo", "pipefail", "-c", submit], cwd=kit, env=env, capture_output=True,
                               text=True, timeout=60, check=False)
    assert submitted.returncode == 0, submitted.stderr
    jobs = slurm.wait_for_jobs(JOBS_S)
    logs = "\n".join(f"== {path.name}\n{path.read_text(errors='replace')}" for path in sorted(kit.glob("slurm-*.out")))
    states = sorted((job["JobId"], job.get("ArrayTaskId", "-"), job["JobState"], job.get("Reason", "")) for job in jobs)
    assert len(jobs) == SLICES + 1 and all(job["JobState"] == "COMPLETED" for job in jobs), f"{states}\n{logs}"
    for k in range(1, SLICES + 1):
        shard = json.loads((kit / "shards" / f"shard-{k}" / "shard.json").read_text())
        assert (shard["shard"], shard["of"]) == (k, SLICES), shard

    # The same class on one machine, by the same command without its slicing.
    whole_command = one_machine_command(script)
    assert whole_command[:2] == ["batch", "submissions/"], whole_command
    whole = run_grade(*whole_command, "--out", "whole", "--jobs", "2", cwd=kit)
    assert whole.returncode == 0, whole.stderr
    merged, whole = kit / "marks", kit / "whole"
    for name in ("grades.csv", "similar.csv", "similarity.json"):
        assert (merged / name).read_bytes() == (whole / name).read_bytes(), name
    assert _table_without_timings(merged / "checks.csv") == _table_without_timings(whole / "checks.csv")
    reports = sorted(path.relative_to(whole) for path in whole.glob("students/*/ex*.json"))
    assert len(reports) == len(CLASS)
    assert sorted(path.relative_to(merged) for path in merged.glob("students/*/ex*.json")) == reports
    for path in reports:
        ours, theirs = json.loads((merged / path).read_text()), json.loads((whole / path).read_text())
        assert _without_timings(_without_the_load(ours)) == _without_timings(_without_the_load(theirs)), path
    assert (merged / "report.html").is_file()


def test_the_github_actions_matrix_is_a_valid_workflow_of_n_slices():
    (workflow,) = recipe("GitHub Actions: a matrix", "yaml")
    assert_valid_workflow(workflow, "docs/sharding.md's GitHub Actions matrix")
    jobs = yaml.safe_load(workflow)["jobs"]
    slices = jobs["shard"]["strategy"]["matrix"]["k"]
    n = len(slices)
    assert slices == list(range(1, n + 1))
    runs = [step["run"] for job in jobs.values() for step in job["steps"] if "run" in step]
    assert any(f'--shard "${{{{ matrix.k }}}}/{n}"' in run for run in runs), runs
    assert any(run.startswith("grade batch merge marks/ ") and
               run.split()[4:] == [f"shards/shard-{k}" for k in slices] for run in runs), runs
