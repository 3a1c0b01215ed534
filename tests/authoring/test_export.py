"""Scaffolding, the student handout and the Gradescope bundle, driven through the CLI."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.authoring.export import public_check_modules
from grader.notebook import handout_notebook, module_cells, notebook_name
from grader.grading.runner import grade
from grader.submission import Submission
from tests.conftest import REPO, mutant_file, run_grade
from tests.workflows import assert_valid_workflow


def _distinctive_lines(path: Path) -> set[str]:
    """Lines long and particular enough that finding one elsewhere means the file leaked."""
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if len(line.strip()) >= 25}


def test_grade_new_scaffolds_an_exercise_that_passes_grade_check(toy_kit):
    result = run_grade("new", "ex07", "endgame_tables", "Endgame tables", cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    assert "created exercises/ex07_endgame_tables/checks/test_hidden.py" in result.stdout
    check = run_grade("check", "ex07", "--seeds", "1", cwd=toy_kit.root)
    assert check.returncode == 0, check.stdout
    assert "✓ ex07_endgame_tables" in check.stdout


@pytest.mark.parametrize("exercise_id, mistake", [("ex04", "strict_greater"), ("ex09", "misere_as_normal"),
                                                  ("ex01", "last_counter_wins")])
def test_a_known_mistake_graded_in_the_handout_is_named(repo_kit, handout, tmp_path, exercise_id, mistake):
    """The handout has neither the reference nor the mistakes' code, only their sealed answers to the public
    checks; a student who makes a known mistake there is still told which."""
    exercise = repo_kit.resolve(exercise_id)
    wrong = exercise.solution_dir(REPO) / "wrong" / f"{mistake}.py"
    path = wrong if wrong.is_file() else mutant_file(repo_kit, exercise_id, mistake, tmp_path)
    result = run_grade(exercise_id, "--submission", str(path), "--output", "-", cwd=handout)
    report = json.loads(result.stdout)
    assert report["score"] < report["max_score"]
    assert mistake in [entry["mistake"] for entry in report["diagnosis"]]
    assert all(check.startswith("checks/test_public.py::") for entry in report["diagnosis"] for check in entry["checks"])
    solution = exercise.solution_dir(REPO) / exercise.module
    passed = json.loads(run_grade(exercise_id, "--submission", str(solution), "--output", "-", cwd=handout).stdout)
    assert passed["status"] == "pass" and passed["diagnosis"] == []


@pytest.mark.parametrize(
    "args, words",
    [
        (["ex01", "again", "Again"], "ex01: ex01_toy already exists"),
        (["exercise9", "x", "X"], "the id must look like ex10"),
        (["ex09", "Bad-Slug", "X"], "the id must look like ex10"),
        (["ex09", "fine", 'Say "hi"'], "give a one-line title without double quotes"),
    ],
)
def test_grade_new_refuses_bad_names(toy_kit, args, words):
    result = run_grade("new", *args, cwd=toy_kit.root)
    assert result.returncode == 2 and words in result.stderr


@pytest.fixture(scope="module")
def handout(tmp_path_factory) -> Path:
    """The real kit's student handout, exported once for the tests that read it."""
    folder = tmp_path_factory.mktemp("export") / "handout"
    result = run_grade("export", str(folder), cwd=REPO)
    assert result.returncode == 0, result.stderr
    return folder


def test_the_handout_has_no_hidden_checks_and_no_solutions(repo_kit, handout):
    assert not (handout / "solutions").exists()
    assert not list(handout.rglob("test_hidden.py"))
    # `grade play` works in the handout: every game file ships beside its stub.
    games = sorted(path.parent.name for path in (REPO / "exercises").glob("*/play.py"))
    assert games and sorted(path.parent.name for path in handout.glob("exercises/*/play.py")) == games
    # The given modules ship as they are: the stubs import them.
    given = [path for exercise in repo_kit.exercises() for path in exercise.given_paths]
    assert given and all((handout / path.relative_to(REPO)).read_bytes() == path.read_bytes() for path in given)
    # Lines that legitimately ship (the grader, public checks, stubs) do not count as leaks.
    shipped = set().union(*(_distinctive_lines(path) for path in (REPO / "grader").rglob("*.py")))
    secrets = set()
    for exercise in repo_kit.exercises():
        # The README and the given modules are public by nature: a solution may use their lines.
        public = [exercise.checks_dir / "test_public.py", *public_check_modules(exercise), *exercise.given_paths,
                  exercise.path / "README.md"]
        shipped |= _distinctive_lines(exercise.stub_path).union(*map(_distinctive_lines, public))
        for path in exercise.checks_dir.glob("*.py"):
            if path not in public:
                secrets |= _distinctive_lines(path)
        for path in exercise.solution_dir(REPO).rglob("*.py"):
            secrets |= _distinctive_lines(path)
    secrets -= shipped
    assert secrets, "the kit should have hidden checks and solutions to keep out"
    for path in handout.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".md", ".toml", ".json", ".yml"):
            leaked = _distinctive_lines(path) & secrets
            assert not leaked, f"{path.relative_to(handout)} holds hidden text: {sorted(leaked)[:3]}"
    # The known mistakes ship only as sealed entries: no name, no why, no answer in the clear.
    tables = sorted(handout.glob("exercises/*/known_mistakes.json"))
    assert len(tables) == len(repo_kit.exercises())
    for table in tables:
        data = json.loads(table.read_text())
        texts = [*data["mistakes"], *data["calls"], *(entry for entries in data["calls"].values() for entry in entries)]
        assert all(set(text) <= set("0123456789abcdef") for text in texts), table
    workflow = (handout / ".github" / "workflows" / "grade.yml").read_text()
    assert_valid_workflow(workflow, "the handout's .github/workflows/grade.yml")
    # Every exercise is graded and handed to GitHub Classroom's reporter (run in tests/report/test_classroom_format.py).
    ids = " ".join(exercise.id for exercise in repo_kit.exercises())
    assert f"for exercise in {ids}; do" in workflow
    assert "runners: " + ids.replace(" ", ",") in workflow


# Calls that pick among values, as a search picks a move; an ordering comparison does the same.
_CHOOSING_CALLS = {"max", "min", "sorted", "sort"}
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _called_name(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)


def _chooses(function: ast.AST) -> bool:
    """Whether `function` compares values for order or calls max, min, sorted or sort."""
    return any((isinstance(node, ast.Compare) and any(isinstance(op, _ORDERINGS) for op in node.ops))
               or (isinstance(node, ast.Call) and _called_name(node) in _CHOOSING_CALLS)
               for node in ast.walk(function))


def _searches_in(source: str) -> list[str]:
    """The recursive functions in `source` that choose between values, and its alpha-beta cutoff tests."""
    module = ast.parse(source)
    functions: dict = {}
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
    calls = {name: {_called_name(node) for function in defs for node in ast.walk(function)
                    if isinstance(node, ast.Call)} & set(functions)
             for name, defs in functions.items()}
    found = []
    for name, defs in functions.items():
        reached, pending = set(), list(calls[name])
        while pending:
            callee = pending.pop()
            if callee not in reached:
                reached.add(callee)
                pending.extend(calls[callee])
        if name in reached and any(map(_chooses, defs)):
            found.append(f"{name}() is recursive and chooses between values")
    for node in ast.walk(module):
        if isinstance(node, ast.Compare) and any(isinstance(op, _ORDERINGS) for op in node.ops):
            sides = [ast.unparse(side).lower() for side in (node.left, *node.comparators)]
            if any("alpha" in side for side in sides) and any("beta" in side for side in sides):
                found.append(f"line {node.lineno} compares alpha with beta: {ast.unparse(node)}")
    return found


def test_the_criterion_for_a_search_finds_minimax_and_alpha_beta():
    minimax = "def value(node, mine):\n    return max(value(c, not mine) for c in node) if mine else node\n"
    cutoff = "def step(alpha, beta):\n    return alpha >= beta\n"
    drawing = "def rows(node, depth):\n    for child in node:\n        yield from rows(child, depth + 1)\n"
    assert _searches_in(minimax) == ["value() is recursive and chooses between values"]
    assert _searches_in(cutoff) == ["line 2 compares alpha with beta: alpha >= beta"]
    assert _searches_in(drawing) == []


def test_no_module_the_handout_ships_from_a_checks_folder_holds_a_search(repo_kit):
    """The public checks and their helpers ship, so none may hold the search the students write.

    A search, as the READMEs teach it, is a recursive function that chooses between the values of
    what it reaches (an ordering comparison, or max, min, sorted or sort), and alpha-beta also tests
    `alpha >= beta`. So no shipped check-folder module may hold a function that calls itself
    (directly or through other functions of the module) and chooses between values, nor an ordering
    comparison of anything named alpha with anything named beta. Recursion that only walks a tree
    (collecting leaves, drawing an outline) compares nothing, and strings and comments are not code.
    """
    shipped = [path for exercise in repo_kit.exercises()
               for path in (exercise.checks_dir / "test_public.py", *public_check_modules(exercise))]
    assert any(path.name == "tree_picture.py" for path in shipped)
    assert any(path.name == "alpha_beta_picture.py" for path in shipped)  # the shared helper ships too
    for path in shipped:
        found = _searches_in(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(REPO)} ships with the handout but holds a search: {found}"


def test_the_handout_installs_and_grades_the_public_checks(handout, tmp_path):
    # A copy of the module's handout, so that the install and the reports it writes touch no other test's.
    handout = Path(shutil.copytree(handout, tmp_path / "handout"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-e", str(handout)],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-2000:]
    graded = subprocess.run([str(venv / "bin" / "grade"), "ex04"], cwd=handout, capture_output=True, text=True,
                            timeout=300, env={**os.environ, "COLUMNS": "200"})
    assert graded.returncode == 1, graded.stdout + graded.stderr
    assert "(hidden)" not in graded.stdout
    assert "hidden checks worth" in graded.stdout and "also run" in graded.stdout
    report = json.loads((handout / "reports" / "ex04.json").read_text())
    assert {test["visibility"] for test in report["tests"]} == {"public"}
    # The shared check helper was copied into each exercise that imports it, and nowhere else, and
    # the handout's public checks import it: a wrong answer's message holds the picture it draws.
    assert not (handout / "exercises" / "shared_checks").exists()
    for name in ("ex04_alpha_beta", "ex07_move_ordering"):
        assert (handout / "exercises" / name / "checks" / "alpha_beta_picture.py").is_file()
    wrong = tmp_path / "alpha_beta.py"
    wrong.write_text("def minimax_with_pruning(node, maximizing, alpha=float('-inf'), beta=float('inf')):\n"
                     "    return 4\n\n"
                     "def best_counter_bid(tree):\n"
                     "    return {'value': 4, 'nodes_visited': 9, 'nodes_pruned': 0, 'total_leaves': 9}\n")
    graded = subprocess.run([str(venv / "bin" / "grade"), "ex04", "--submission", str(wrong), "--output", "-"],
                            cwd=handout, capture_output=True, text=True, timeout=300)
    messages = "\n".join(test["message"] or "" for test in json.loads(graded.stdout)["tests"])
    assert "Alpha-beta on this tree looks at 8 of its 9 leaves and prunes 1." in messages, messages


def test_the_gradescope_bundle_puts_shared_helpers_into_each_exercise_that_imports_them(repo_kit, tmp_path):
    bundle = tmp_path / "autograder.zip"
    assert run_grade("export", "--gradescope", str(bundle), cwd=REPO).returncode == 0
    with zipfile.ZipFile(bundle) as archive:
        names = set(archive.namelist())
    assert {"exercises/ex04_alpha_beta/checks/alpha_beta_picture.py",
            "exercises/ex07_move_ordering/checks/alpha_beta_picture.py"} <= names
    assert not any(name.startswith("exercises/shared_checks/") for name in names)
    assert "exercises/ex01_simple_nim/checks/alpha_beta_picture.py" not in names


def test_export_usage_errors(toy_kit, tmp_path):
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "x").write_text("x")
    assert "must be a new or empty folder" in run_grade("export", str(occupied), cwd=toy_kit.root).stderr
    assert "give either a folder" in run_grade("export", cwd=toy_kit.root).stderr
    assert "must be a .zip" in run_grade("export", "--gradescope", str(tmp_path / "b.tar"), cwd=toy_kit.root).stderr
    refused = run_grade("export", str(tmp_path / "h"), "--hidden-visibility", "hidden", cwd=toy_kit.root)
    assert refused.returncode == 2 and "--hidden-visibility goes with --gradescope" in refused.stderr
    bad = run_grade("export", "--gradescope", str(tmp_path / "b.zip"), "--hidden-visibility", "later", cwd=toy_kit.root)
    assert bad.returncode == 2 and "invalid choice: 'later'" in bad.stderr


@pytest.mark.parametrize("chosen", [None, "after_published"])
def test_the_gradescope_bundle_grades_a_submission_into_results_json(toy_kit, tmp_path, chosen):
    bundle = tmp_path / "autograder.zip"
    visibility = ["--hidden-visibility", chosen] if chosen else []
    result = run_grade("export", "--gradescope", str(bundle), "--exercise", "ex01", *visibility, cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        assert "setup.sh" in names and "run_autograder" in names
        # Of the solutions, only what a diagnosis at marking time reads: the reference and the known mistakes.
        assert sorted(name for name in names if name.startswith("solutions/")) == [
            "solutions/ex01_toy/toy.py", "solutions/ex01_toy/wrong/pair_as_list.py"]
        assert "exercises/ex01_toy/checks/test_hidden.py" in names
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "submission" / "toy.py").write_text((REPO / "tests/golden/partial_solution/toy.py").read_text())
    grade = Path(sys.executable).parent / "grade"
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "GRADE": str(grade)}
    run = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 4 and len(results["tests"]) == 6
    assert {t["status"] for t in results["tests"]} == {"passed", "failed"}
    # Hidden checks are shown when the instructor chose, after the due date unless told.
    native = {t["name"]: t["visibility"] for t in json.loads(grade_native(toy_kit))["tests"]}
    for test in results["tests"]:
        expected = "visible" if native[test["name"]] == "public" else (chosen or "after_due_date")
        assert test["visibility"] == expected, test["name"]
    assert results["output_format"] == results["test_output_format"] == results["test_name_format"] == "text"
    assert results["output"].endswith("Your answers match a known mistake: pair returns a list where a tuple is "
                                      "asked for. (on 'pair is a tuple', 2 hidden checks)")


def grade_native(kit) -> str:
    """The toy's partial solution graded in the native format."""
    partial = REPO / "tests/golden/partial_solution/toy.py"
    return run_grade("ex01", "--submission", str(partial), "--seed", "1", "--output", "-", cwd=kit.root).stdout


def test_run_autograder_leaves_a_result_even_when_grading_fails(toy_kit, tmp_path):
    bundle = tmp_path / "autograder.zip"
    run_grade("export", "--gradescope", str(bundle), cwd=toy_kit.root)
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "GRADE": "/bin/false"}
    subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, timeout=60, check=False)
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and "autograder failed" in results["output"]


# -- handout notebooks: each stub as a notebook beside it


def _defined(source: str) -> set[str]:
    return {node.name for node in ast.parse(source).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _paste_solution(notebook_text: str, solution: str) -> str:
    """The notebook as a student fills it in: each function's cell holds the solution's function, and the
    first code cell the solution's opening (docstring, imports) and its helpers."""
    import nbformat

    notebook = nbformat.reads(notebook_text, 4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    pieces = module_cells(solution)
    in_stub = set().union(*(_defined(cell.source) for cell in code))
    for cell in code:
        names = _defined(cell.source)
        cell.source = "\n\n\n".join(piece for piece in pieces if _defined(piece) & names) if names else ""
    code[0].source = "\n\n\n".join(piece for piece in pieces if not _defined(piece) & in_stub)
    return nbformat.writes(notebook)


def test_export_notebooks_writes_each_stub_as_a_notebook_that_grades(toy_kit, tmp_path, validate_report):
    handout = tmp_path / "handout"
    result = run_grade("export", str(handout), "--notebooks", cwd=toy_kit.root)
    assert result.returncode == 0, result.stderr
    assert "Handout with 1 exercises and their notebooks written to" in result.stdout
    assert "grade ex04 --submission exercises/ex04_alpha_beta/alpha_beta.ipynb" in (handout / "README.md").read_text()
    notebook = handout / "exercises" / "ex01_toy" / "toy.ipynb"
    import nbformat

    cells = nbformat.read(notebook, 4).cells
    assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# ex01 · A toy exercise")
    assert "grade ex01 --submission exercises/ex01_toy/toy.ipynb" in cells[1].source
    assert [cell.source.split("(")[0] for cell in cells[3:]] == ["def add", "def pair", "def tag", "def push"]
    untouched = run_grade("ex01", "--submission", str(notebook), "--output", "-", cwd=handout)
    assert untouched.returncode == 1
    assert validate_report(json.loads(untouched.stdout))["score"] == 0
    solved = tmp_path / "solved.ipynb"
    solved.write_text(_paste_solution(notebook.read_text(), (toy_kit.root / "solutions/ex01_toy/toy.py").read_text()))
    graded = run_grade("ex01", "--submission", str(solved), "--output", "-", cwd=handout)
    report = validate_report(json.loads(graded.stdout))
    # The handout runs the public checks only.
    assert graded.returncode == 0 and report["score"] == report["max_score"] == 3


def test_a_plain_handout_has_no_notebooks(toy_kit, tmp_path):
    assert run_grade("export", str(tmp_path / "plain"), cwd=toy_kit.root).returncode == 0
    assert not list((tmp_path / "plain").rglob("*.ipynb"))
    assert "notebook" not in (tmp_path / "plain" / "README.md").read_text()


def test_notebooks_go_with_a_handout_folder_only(toy_kit, tmp_path):
    result = run_grade("export", "--gradescope", str(tmp_path / "b.zip"), "--notebooks", cwd=toy_kit.root)
    assert result.returncode == 2 and "--notebooks goes with a handout folder" in result.stderr


@pytest.mark.parametrize("exercise_id", ["ex01", "ex04"])
def test_a_real_exercise_as_a_notebook_scores_0_untouched_and_full_marks_solved(repo_kit, tmp_path, exercise_id):
    exercise = repo_kit.resolve(exercise_id)
    text = handout_notebook((exercise.path / "README.md").read_text(encoding="utf-8"),
                            exercise.stub_path.read_text(encoding="utf-8"), "grade")
    untouched = tmp_path / notebook_name(exercise.module)
    untouched.write_text(text, encoding="utf-8")
    assert grade(repo_kit, exercise, Submission(untouched, untouched.name), seed=1)["score"] == 0
    solved = tmp_path / "solved.ipynb"
    solution = (exercise.solution_dir(REPO) / exercise.module).read_text(encoding="utf-8")
    solved.write_text(_paste_solution(text, solution), encoding="utf-8")
    report = grade(repo_kit, exercise, Submission(solved, solved.name), seed=1)
    assert report["status"] == "pass" and report["score"] == report["max_score"] > 0


def test_every_stub_as_a_notebook_defines_the_functions_the_checks_call(repo_kit):
    from grader.notebook import notebook_module

    for exercise in repo_kit.exercises():
        text = handout_notebook((exercise.path / "README.md").read_text(encoding="utf-8"),
                                exercise.stub_path.read_text(encoding="utf-8"), "grade")
        made = notebook_module(text.encode(), "stub.ipynb")
        assert set(exercise.functions) <= _defined(made.source), exercise.id
        assert made.magic_cells == (), exercise.id


def test_a_hidden_only_helper_never_ships_and_a_public_check_may_not_import_one(toy_kit, tmp_path):
    """`hidden_*.py` in a checks folder is the hidden checks' alone: not in the handout, and no public check's."""
    checks = toy_kit.resolve("ex01").checks_dir
    (checks / "hidden_oracle.py").write_text("def expected(a, b):\n    return a + b\n")
    hidden = checks / "test_hidden.py"
    hidden.write_text("import hidden_oracle  # noqa: F401\n" + hidden.read_text())
    handout = tmp_path / "handout"
    assert run_grade("export", str(handout), cwd=toy_kit.root).returncode == 0
    assert not list(handout.rglob("hidden_oracle.py"))
    public = checks / "test_public.py"
    public.write_text("import hidden_oracle  # noqa: F401\n" + public.read_text())
    refused = run_grade("export", str(tmp_path / "again"), cwd=toy_kit.root)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "imports hidden_oracle.py, a hidden-only helper, which never ships to students" in refused.stderr


def test_a_reference_that_fails_stops_the_export_before_anything_is_written(toy_kit, tmp_path):
    reference = toy_kit.root / "solutions" / "ex01_toy" / "toy.py"
    reference.write_text(reference.read_text().replace("return a + b", "return a + b + 1"))
    handout = tmp_path / "handout"
    result = run_grade("export", str(handout), cwd=toy_kit.root)
    assert result.returncode == 2
    assert result.stderr == (f"grade: {reference}: the reference must pass its checks before its mistakes can ship "
                             "(run grade check ex01)\n")
    assert not handout.exists()
