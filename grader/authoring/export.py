"""`grade export`: the student handout (no hidden checks, no solutions) and the Gradescope bundle."""

from __future__ import annotations

import json
import shutil
import stat
import zipfile
from pathlib import Path

import grader
from grader.catalog import GAME_FILE, HIDDEN_HELPER_PREFIX, PUBLIC_CHECKS, WITHHELD_FILE, Exercise, Kit, KitError
from grader.grading import collect_checks, grade_recording_calls, in_parallel, mistake_digests
from grader.known_mistakes import MUTANTS_FILE, known_mistakes
from grader.notebook import handout_notebook, notebook_name
from grader.report import DEFAULT_HIDDEN_VISIBILITY
from grader.run_contract import CallRecording
from grader.submission import Submission

# How long replaying one exercise's known mistakes on its public checks' calls may take.
DIGESTS_LIMIT_S = 300.0


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

_NOTEBOOK_README = """
Each exercise also comes as a notebook beside its file (`alpha_beta.ipynb` beside `alpha_beta.py`):
the task, then the same functions in code cells. Work in whichever you like, and grade the notebook
with `grade ex04 --submission exercises/ex04_alpha_beta/alpha_beta.ipynb`. Its code cells, in order,
are the module; IPython magics and shell lines (`%`, `!`) are left out.
"""

_WORKFLOW = """# GitHub Classroom autograding: on each push, grade every exercise with its public checks and
# record the points with GitHub Classroom's own reporter (classroom-resources/autograding-grading-
# reporter). Each exercise is one runner; the reporter reads its result as base64 JSON from
# <RUNNER>_RESULTS. The hidden checks are not in this repository: they run when the work is marked.
name: Autograding
on: [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  autograding:
    runs-on: ubuntu-latest
    # GitHub Classroom's own first commit needs no grading.
    if: github.actor != 'github-classroom[bot]'
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the kit
        run: python -m pip install -e .
      - name: Grade
        id: grade
        run: |
          mkdir -p classroom
          for exercise in {ids}; do
            # The kit's own feedback for people, then the runner result for the reporter.
            grade "$exercise" --format classroom --output "classroom/$exercise.json" --exit-zero
            echo "$exercise=$(base64 -w0 "classroom/$exercise.json")" >> "$GITHUB_OUTPUT"
          done
      - name: Autograding reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
{env}
        with:
          runners: {runners}
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
  --format gradescope --hidden-visibility {hidden_visibility} --output "$root/results/results.json" --exit-zero
status=$?
if [ ! -s "$root/results/results.json" ]; then
  # Even a broken autograder must leave Gradescope a result it can show.
  printf '{{"score": 0, "output": "The autograder failed (exit %s); please tell your instructor.", "tests": []}}\\n' \\
    "$status" > "$root/results/results.json"
fi
"""


def classroom_workflow(exercises: list[Exercise]) -> str:
    """The handout's GitHub Actions workflow: each exercise graded, then GitHub Classroom's reporter."""
    ids = [exercise.id for exercise in exercises]
    env = "\n".join(f"          {id_.upper()}_RESULTS: ${{{{ steps.grade.outputs.{id_} }}}}" for id_ in ids)
    return _WORKFLOW.format(ids=" ".join(ids), env=env, runners=",".join(ids))


def public_check_modules(exercise: Exercise) -> list[Path]:
    """The helper modules the public checks import, directly or not (shared ones too): they ship with them.

    A hidden-only helper (`hidden_*.py`: an oracle, a generator of hidden inputs) never ships; a
    public check that imports one is a fault of the kit, refused in one line.
    """
    # Only what the public checks import ships, so a helper of the hidden checks never reaches a handout.
    helpers = exercise.check_helpers([exercise.checks_dir / PUBLIC_CHECKS])
    for helper in helpers:
        if helper.name.startswith(HIDDEN_HELPER_PREFIX):
            raise KitError(f"{exercise.checks_dir / PUBLIC_CHECKS}: imports {helper.name}, a hidden-only helper, "
                           "which never ships to students")
    return helpers


def _copy_package(target: Path) -> None:
    source = Path(grader.__file__).parent
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def _refuse_full_target(path: Path) -> None:
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise KitError(f"{path}: the export target must be a new or empty folder")


def _empty_target(path: Path) -> None:
    _refuse_full_target(path)
    path.mkdir(parents=True, exist_ok=True)


def _write_notebook(exercise: Exercise, folder: Path) -> None:
    """The exercise's stub as a notebook beside it, with the README's text above the code."""
    name = notebook_name(exercise.module)
    command = f"grade {exercise.id} --submission exercises/{exercise.name}/{name}"
    text = handout_notebook((exercise.path / "README.md").read_text(encoding="utf-8"),
                            exercise.stub_path.read_text(encoding="utf-8"), command)
    (folder / name).write_text(text, encoding="utf-8")


def mistake_table(kit: Kit, exercise: Exercise) -> dict | None:
    """The handout's known_mistakes.json for an exercise: its known mistakes sealed with their answers to the
    public checks' calls (grading.MistakeDigests); None when it has no known mistake or no solutions here."""
    reference = exercise.solution_dir(kit.root) / exercise.module
    if not reference.is_file():
        return None
    mistakes = known_mistakes(exercise, kit.root)
    if not mistakes:
        return None
    report, calls = grade_recording_calls(kit, exercise, Submission(reference, reference.name), CallRecording.PUBLIC)
    if report["status"] != "pass":
        raise KitError(f"{reference}: the reference must pass its checks before its mistakes can ship "
                       f"(run grade check {exercise.id})")
    table = mistake_digests([call for recorded in calls.values() for call in recorded], mistakes,
                            reference.read_text(encoding="utf-8"), DIGESTS_LIMIT_S, exercise.given_paths)
    if table is None:
        raise KitError(f"{exercise.id}: replaying its known mistakes on the public checks took over "
                       f"{DIGESTS_LIMIT_S:g} s")
    return table.as_data()


def export_handout(kit: Kit, target: Path, notebooks: bool = False) -> list[str]:
    """Write the student handout to `target`, with each stub as a notebook too if asked; return the exercise names."""
    _refuse_full_target(target)
    exercises = kit.exercises()
    # Each exercise's reference graded once, in parallel: the calls its known mistakes are sealed against.
    # First, so that a reference that fails stops the export before anything is written.
    tables = in_parallel(lambda exercise: mistake_table(kit, exercise), exercises)
    _empty_target(target)
    shutil.copyfile(kit.root / "pyproject.toml", target / "pyproject.toml")
    (target / "README.md").write_text(_STUDENT_README + (_NOTEBOOK_README if notebooks else ""), encoding="utf-8")
    (target / ".gitignore").write_text("__pycache__/\n*.egg-info/\n.venv/\nreports/\nclassroom/\n", encoding="utf-8")
    workflow = target / ".github" / "workflows" / "grade.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(classroom_workflow(kit.exercises()), encoding="utf-8")
    _copy_package(target / "grader")
    names = []
    for exercise, table in zip(exercises, tables):
        folder = target / "exercises" / exercise.name
        (folder / "checks").mkdir(parents=True)
        # The given modules too: the stub imports them, and they are the exercise's public rules.
        for source in (exercise.path / "exercise.toml", exercise.path / "README.md", exercise.stub_path,
                       *exercise.given_paths, exercise.checks_dir / PUBLIC_CHECKS, *public_check_modules(exercise)):
            if not source.is_file():
                raise KitError(f"{source}: missing, so the handout cannot be made (run grade check {exercise.id})")
            # A shared helper goes into the exercise's own checks, so each exercise stands alone.
            inside = source.is_relative_to(exercise.path)
            shutil.copyfile(source, folder / (source.relative_to(exercise.path) if inside else Path("checks", source.name)))
        if notebooks:
            _write_notebook(exercise, folder)
        game = exercise.path / GAME_FILE  # `grade play` in the handout needs the game's own rules
        if game.is_file():
            shutil.copyfile(game, folder / GAME_FILE)
        hidden = [check for check in collect_checks(kit, exercise) if not check.public]
        withheld = {"checks": len(hidden), "points": sum(check.points for check in hidden)}
        (folder / "checks" / WITHHELD_FILE).write_text(json.dumps(withheld) + "\n", encoding="utf-8")
        if table is not None:  # the handout's diagnosis: no solution, no mistake's code, only sealed answers
            (folder / exercise.mistake_digests_path.name).write_text(json.dumps(table) + "\n", encoding="utf-8")
        names.append(exercise.name)
    return names


def export_gradescope(kit: Kit, archive: Path, exercise: Exercise | None = None,
                      hidden_visibility: str = DEFAULT_HIDDEN_VISIBILITY) -> None:
    """Write a Gradescope autograder zip: setup.sh, run_autograder and the kit without its solutions."""
    if archive.suffix != ".zip":
        raise KitError(f"--gradescope {archive}: the bundle must be a .zip file")
    target = exercise.id if exercise else "--all"
    run_autograder = _RUN_AUTOGRADER.format(target=target, hidden_visibility=hidden_visibility)
    scripts = {"setup.sh": _SETUP_SH, "run_autograder": run_autograder}
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
            # The known mistakes and the reference they are told from, for the diagnosis at marking time,
            # where the hidden checks' inputs change with each submission. Closed to the workers' uids as
            # the hidden checks are (SECURITY.md); alt/ and nothing/ stay behind.
            solutions = item.solution_dir(kit.root)
            for path in [solutions / item.module, solutions / MUTANTS_FILE, *sorted(solutions.glob("wrong/*.py"))]:
                if path.is_file():
                    bundle.write(path, f"solutions/{item.name}/{path.relative_to(solutions).as_posix()}")
