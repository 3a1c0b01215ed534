"""`grade export`: the student handout (no hidden checks, no solutions) and the Gradescope bundle."""

from __future__ import annotations

import json
import shutil
import stat
import zipfile
from pathlib import Path

import grader
from grader.catalog import GAME_FILE, PUBLIC_CHECKS, Exercise, Kit, KitError
from grader.runner import collect_checks

WITHHELD_FILE = "withheld.json"

_STUDENT_README = """# minimax-kit: your exercises

Install once, then grade an exercise:

```sh
python3 -m venv .venv && . .venv/bin/activate && python -m pip install -e . && grade ex04
```

Each folder in `exercises/` holds a README with the task, a file with `# TODO`s for you to complete,
and the public checks. `grade ex04` runs those checks against your file and tells you how many
hidden checks will also run when your work is marked. `grade` lists your progress, and
`grade hint ex04` gives the next hint.
"""

_WORKFLOW = """# Grades every exercise on each push with the public checks, and keeps the report as an artifact.
name: grade
on: [push, workflow_dispatch]
jobs:
  grade:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - run: python -m pip install -e .
      - run: grade --all --format junit --output grade-report.xml --exit-zero
      - run: grade --all
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: grade-report
          path: grade-report.xml
"""

_SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once to build the autograder image: a Python 3.11 and the kit in a venv.
set -euo pipefail
apt-get update
apt-get install -y python3.11 python3.11-venv || apt-get install -y python3 python3-venv
python=$(command -v python3.11 || command -v python3)
"$python" -m venv /autograder/venv
/autograder/venv/bin/python -m pip install /autograder/source
"""

_RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grade /autograder/submission, write results.json.
# AUTOGRADER_ROOT and GRADE exist so that the kit's tests can run this script on a fake tree.
set -u
root="${{AUTOGRADER_ROOT:-/autograder}}"
grade="${{GRADE:-$root/venv/bin/grade}}"
mkdir -p "$root/results"
"$grade" {target} --kit "$root/source" --submission "$root/submission" \\
  --format gradescope --output "$root/results/results.json" --exit-zero
status=$?
if [ ! -s "$root/results/results.json" ]; then
  # Even a broken autograder must leave Gradescope a result it can show.
  printf '{{"score": 0, "output": "The autograder failed (exit %s); please tell your instructor.", "tests": []}}\\n' \\
    "$status" > "$root/results/results.json"
fi
"""


def withheld_checks(exercise: Exercise) -> dict | None:
    """In a handout, how many hidden checks (and points) were left out of this exercise, if any."""
    try:
        return json.loads((exercise.checks_dir / WITHHELD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def public_check_modules(exercise: Exercise) -> list[Path]:
    """The helper modules the public checks import, directly or not (shared ones too): they ship with them."""
    # Only what the public checks import ships, so a helper of the hidden checks never reaches a handout.
    return exercise.check_helpers([exercise.checks_dir / PUBLIC_CHECKS])


def _copy_package(target: Path) -> None:
    source = Path(grader.__file__).parent
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def _empty_target(path: Path) -> None:
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise KitError(f"{path}: the export target must be a new or empty folder")
    path.mkdir(parents=True, exist_ok=True)


def export_handout(kit: Kit, target: Path) -> list[str]:
    """Write the student handout to `target`; return the exercise names it holds."""
    _empty_target(target)
    shutil.copyfile(kit.root / "pyproject.toml", target / "pyproject.toml")
    (target / "README.md").write_text(_STUDENT_README, encoding="utf-8")
    (target / ".gitignore").write_text("__pycache__/\n*.egg-info/\n.venv/\nreports/\n", encoding="utf-8")
    workflow = target / ".github" / "workflows" / "grade.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(_WORKFLOW, encoding="utf-8")
    _copy_package(target / "grader")
    names = []
    for exercise in kit.exercises():
        folder = target / "exercises" / exercise.name
        (folder / "checks").mkdir(parents=True)
        for source in (exercise.path / "exercise.toml", exercise.path / "README.md", exercise.stub_path,
                       exercise.checks_dir / PUBLIC_CHECKS, *public_check_modules(exercise)):
            if not source.is_file():
                raise KitError(f"{source}: missing, so the handout cannot be made (run grade check {exercise.id})")
            # A shared helper goes into the exercise's own checks, so each exercise stands alone.
            inside = source.is_relative_to(exercise.path)
            shutil.copyfile(source, folder / (source.relative_to(exercise.path) if inside else Path("checks", source.name)))
        game = exercise.path / GAME_FILE  # `grade play` in the handout needs the game's own rules
        if game.is_file():
            shutil.copyfile(game, folder / GAME_FILE)
        hidden = [check for check in collect_checks(kit, exercise) if check["visibility"] == "hidden"]
        withheld = {"checks": len(hidden), "points": sum(check["points"] for check in hidden)}
        (folder / "checks" / WITHHELD_FILE).write_text(json.dumps(withheld) + "\n", encoding="utf-8")
        names.append(exercise.name)
    return names


def export_gradescope(kit: Kit, archive: Path, exercise: Exercise | None = None) -> None:
    """Write a Gradescope autograder zip: setup.sh, run_autograder and the kit without its solutions."""
    if archive.suffix != ".zip":
        raise KitError(f"--gradescope {archive}: the bundle must be a .zip file")
    target = exercise.id if exercise else "--all"
    scripts = {"setup.sh": _SETUP_SH, "run_autograder": _RUN_AUTOGRADER.format(target=target)}
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in scripts.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            bundle.writestr(info, text)
        bundle.write(kit.root / "pyproject.toml", "pyproject.toml")
        bundle.writestr("README.md", "The minimax-kit autograder bundle for Gradescope.\n")
        package = Path(grader.__file__).parent
        for path in sorted(package.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                bundle.write(path, f"grader/{path.relative_to(package).as_posix()}")
        exercises = [exercise] if exercise else kit.exercises()
        for item in exercises:
            for path in sorted(item.path.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    bundle.write(path, f"exercises/{item.name}/{path.relative_to(item.path).as_posix()}")
            # Shared helpers go into each exercise's checks that imports them: each stands alone.
            for path in item.check_helpers(item.check_files()):
                if not path.is_relative_to(item.path):
                    bundle.write(path, f"exercises/{item.name}/checks/{path.name}")
