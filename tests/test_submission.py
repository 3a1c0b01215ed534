"""Submissions laid out for grading: files, folders and zips, and notebooks standing for the module in each."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat import v4

from grader.grading.runner import grade
from grader.source_map import SourceMap
from grader.submission import (
    Submission,
    SubmissionProblem,
    derive_seed,
    prepare_submission,
    submission_fingerprint,
)
from tests.conftest import REPO, run_grade

SOLUTION = (REPO / "tests" / "fixtures" / "kit" / "solutions" / "ex01_toy" / "toy.py").read_text(encoding="utf-8")


def notebook_text(*cells: str, markdown_first: bool = True) -> str:
    """A notebook whose code cells are `cells`, after a markdown cell unless told not to."""
    made = [v4.new_code_cell(source, id=f"code-{number}") for number, source in enumerate(cells, 1)]
    if markdown_first:
        made.insert(0, v4.new_markdown_cell("# The toy exercise", id="intro"))
    return nbformat.writes(v4.new_notebook(cells=made))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- the layout


def test_a_py_file_is_laid_out_as_the_module_and_named_as_itself(tmp_path):
    layout = prepare_submission(write(tmp_path / "mine.py", SOLUTION), "toy.py", tmp_path / "out")
    assert (tmp_path / "out" / "toy.py").read_text() == SOLUTION
    assert layout.source_map == SourceMap("toy.py") and layout.report_fields() == {}


def test_a_notebook_file_becomes_the_module_of_its_code_cells_in_order(tmp_path):
    path = write(tmp_path / "work.ipynb", notebook_text("import math", "def add(a, b):\n    return a + b"))
    layout = prepare_submission(path, "toy.py", tmp_path / "out")
    assert (tmp_path / "out" / "toy.py").read_text() == (
        "# %% cell 2\nimport math\n# %% cell 3\ndef add(a, b):\n    return a + b\n")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["toy.py"]  # the sandbox sees a .py only
    assert layout.source_map.place(5) == "work.ipynb cell 3 line 2"
    assert layout.report_fields() == {"notebook": {"file": "work.ipynb", "code_cells": 2, "magic_cells": []}}


@pytest.mark.parametrize("inner", ["toy.ipynb", "deep/er/toy.ipynb"])
def test_a_folder_may_hold_the_notebook_instead_of_the_module(tmp_path, inner):
    write(tmp_path / "sub" / inner, notebook_text(SOLUTION))
    write(tmp_path / "sub" / Path(inner).parent / "data.txt", "kept")
    layout = prepare_submission(tmp_path / "sub", "toy.py", tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["data.txt", "toy.py"]
    assert layout.source_map.file == "toy.ipynb"


def test_a_zip_may_hold_the_notebook_instead_of_the_module(tmp_path):
    with zipfile.ZipFile(tmp_path / "work.zip", "w") as archive:
        archive.writestr("handin/toy.ipynb", notebook_text(SOLUTION))
        archive.writestr("handin/notes.md", "kept")
    layout = prepare_submission(tmp_path / "work.zip", "toy.py", tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["notes.md", "toy.py"]
    assert layout.notebook is not None and layout.notebook.code_cells == 1


def test_the_shallowest_of_module_and_notebook_wins(tmp_path):
    write(tmp_path / "sub" / "toy.ipynb", notebook_text("x = 1"))
    write(tmp_path / "sub" / "old" / "toy.py", "x = 2\n")
    assert prepare_submission(tmp_path / "sub", "toy.py", tmp_path / "out").source_map.file == "toy.ipynb"


def test_a_folder_with_both_the_module_and_its_notebook_is_refused(tmp_path):
    write(tmp_path / "sub" / "work" / "toy.py", SOLUTION)
    write(tmp_path / "sub" / "work" / "toy.ipynb", notebook_text(SOLUTION))
    with pytest.raises(SubmissionProblem, match=r"^work/ holds both toy.py and toy.ipynb; keep only the one to be graded$"):
        prepare_submission(tmp_path / "sub", "toy.py", tmp_path / "out")


def test_a_zip_with_both_at_its_top_is_refused(tmp_path):
    with zipfile.ZipFile(tmp_path / "work.zip", "w") as archive:
        archive.writestr("toy.py", SOLUTION)
        archive.writestr("toy.ipynb", notebook_text(SOLUTION))
    with pytest.raises(SubmissionProblem, match="^the submission's top folder holds both toy.py and toy.ipynb"):
        prepare_submission(tmp_path / "work.zip", "toy.py", tmp_path / "out")


def test_a_folder_or_zip_with_neither_names_both(tmp_path):
    write(tmp_path / "sub" / "other.ipynb", notebook_text(SOLUTION))
    with pytest.raises(SubmissionProblem, match=r"^the submission folder has no toy.py \(or toy.ipynb\)$"):
        prepare_submission(tmp_path / "sub", "toy.py", tmp_path / "out")
    with zipfile.ZipFile(tmp_path / "work.zip", "w") as archive:
        archive.writestr("other.py", SOLUTION)
    with pytest.raises(SubmissionProblem, match=r"^work.zip has no toy.py \(or toy.ipynb\)$"):
        prepare_submission(tmp_path / "work.zip", "toy.py", tmp_path / "out2")


@pytest.mark.parametrize("content, words", [
    (b"def add(a, b):\n    return a + b\n", "work.ipynb is not a notebook: it is not valid JSON (line 1 column 1: "),
    (b'{"cells": [}', "work.ipynb is not a notebook: it is not valid JSON (line 1 column 12: Expecting value)"),
    (b"\xff\xfe{}", "work.ipynb is not a notebook: byte 0xff at offset 0 is not UTF-8 text"),
    (b"[1, 2]", "work.ipynb is not a notebook: its JSON has no nbformat version"),
    (b'{"cells": []}', "work.ipynb is not a notebook: its JSON has no nbformat version"),
    (b'{"nbformat": "4", "nbformat_minor": 5}', "work.ipynb is not a notebook: nbformat cannot read its format version (nbformat '4', nbformat_minor 5)"),
    (b'{"nbformat": 9, "nbformat_minor": 0}', "work.ipynb is not a notebook: nbformat cannot read its format version (nbformat 9, nbformat_minor 0)"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": "abc"}).encode(),
     "work.ipynb is not a notebook: its cells are not a list of cells"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [1]}).encode(),
     "work.ipynb is not a notebook: its cells are not a list of cells"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 4, "cells": []}).encode(),
     "work.ipynb is not a notebook: nbformat finds it invalid: 'metadata' is a required property"),
    (json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": 5}).encode(),
     "work.ipynb is not a notebook: nbformat finds it invalid at worksheets: 5 is not of type 'array'"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 4, "metadata": {},
                 "cells": [{"cell_type": "code", "source": 5, "metadata": {}}]}).encode(),
     "work.ipynb is not a notebook: nbformat finds it invalid at cells/0: "),
])
def test_a_file_that_is_not_a_notebook_says_so_in_one_line(tmp_path, content, words):
    path = tmp_path / "work.ipynb"
    path.write_bytes(content)
    with pytest.raises(SubmissionProblem) as caught:
        prepare_submission(path, "toy.py", tmp_path / "out")
    assert str(caught.value).startswith(words) and "\n" not in str(caught.value)


def test_a_notebook_in_a_folder_that_is_not_one_is_named_as_it_is_there(tmp_path):
    write(tmp_path / "sub" / "toy.ipynb", "print('hi')\n")
    with pytest.raises(SubmissionProblem, match=r"^toy.ipynb is not a notebook: it is not valid JSON"):
        prepare_submission(tmp_path / "sub", "toy.py", tmp_path / "out")


def test_a_notebook_file_too_big_to_parse_is_refused_before_it_is_read(tmp_path):
    notebook = json.loads(notebook_text("x = 1"))
    notebook["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x" * (17 * 2**20)}]
    path = write(tmp_path / "work.ipynb", json.dumps(notebook))
    with pytest.raises(SubmissionProblem, match="^work.ipynb holds more than 16 MiB; clear its outputs and hand it in"):
        prepare_submission(path, "toy.py", tmp_path / "out")


def test_an_older_notebook_format_is_read_too(tmp_path):
    old = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"metadata": {}, "cells": [
        {"cell_type": "code", "input": "x = 1", "language": "python", "outputs": []}]}]}
    prepare_submission(write(tmp_path / "old.ipynb", json.dumps(old)), "toy.py", tmp_path / "out")
    assert (tmp_path / "out" / "toy.py").read_text() == "# %% cell 1\nx = 1\n"


def test_cells_without_ids_are_read_without_a_warning(tmp_path, recwarn):
    notebook = json.loads(notebook_text("x = 1"))
    for cell in notebook["cells"]:
        del cell["id"]
    prepare_submission(write(tmp_path / "work.ipynb", json.dumps(notebook)), "toy.py", tmp_path / "out")
    assert (tmp_path / "out" / "toy.py").read_text() == "# %% cell 2\nx = 1\n"
    assert [str(warning.message) for warning in recwarn] == []


# -- the fingerprint: batch reuses a report while what the grade sees stays the same


def test_a_notebooks_fingerprint_follows_its_code_not_its_outputs(tmp_path):
    path = write(tmp_path / "work.ipynb", notebook_text(SOLUTION))
    first = submission_fingerprint(path, "toy.py")
    # Running the notebook again changes its outputs and counts, not its code: the same fingerprint.
    notebook = nbformat.reads(path.read_text(), 4)
    notebook.cells[1].execution_count = 7
    notebook.cells[1].outputs = [v4.new_output("stream", text="ran\n")]
    path.write_text(nbformat.writes(notebook))
    assert submission_fingerprint(path, "toy.py") == first
    # Renumbering the cells renumbers what the report says, so it is another submission.
    notebook.cells.insert(0, v4.new_markdown_cell("more words", id="more"))
    path.write_text(nbformat.writes(notebook))
    assert submission_fingerprint(path, "toy.py") != first


def test_a_notebook_that_is_not_one_is_known_by_its_file_hash(tmp_path):
    path = write(tmp_path / "work.ipynb", "not json")
    assert submission_fingerprint(path, "toy.py") == hashlib.sha256(b"not json").hexdigest()


def test_every_file_of_a_folder_counts_in_its_fingerprint(tmp_path):
    folder = tmp_path / "alice"
    write(folder / "toy.py", SOLUTION)
    write(folder / "helpers.py", "SIZE = 3\n")
    first = submission_fingerprint(folder, "toy.py")
    write(folder / "helpers.py", "SIZE = 4\n")
    assert submission_fingerprint(folder, "toy.py") != first
    (folder / "helpers.py").unlink()
    assert submission_fingerprint(folder, "toy.py") != first


# -- graded: the cells run as the module, and the report speaks of cells


def test_a_failing_cell_is_named_with_its_line_and_where_it_raised(toy_kit, tmp_path, validate_report):
    path = write(tmp_path / "work.ipynb", notebook_text(SOLUTION, "total = add(1, 2)\nprint(tag(-total))"))
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "work.ipynb"), seed=1))
    assert report["status"] == "error" and report["score"] == 0
    assert report["message"] == ("work.ipynb cell 3 line 2 (raised in tag at cell 2 line 14): "
                                 "ValueError: n must be >= 0, got -3")


def test_what_cells_printed_before_one_failed_is_kept(toy_kit, tmp_path, validate_report):
    path = write(tmp_path / "work.ipynb", notebook_text(SOLUTION, "print('trying tag')", "print(tag(-1))"))
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "work.ipynb"), seed=1))
    assert report["status"] == "error" and report["message"].startswith("work.ipynb cell 4 line 1")
    assert report["submission"]["import_output"] == "trying tag\n"


def test_a_syntax_error_is_named_by_cell_and_line(toy_kit, tmp_path, validate_report):
    path = write(tmp_path / "work.ipynb", notebook_text(SOLUTION, "x = 1\nif x:\nprint(x)"))
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "work.ipynb"), seed=1))
    assert report["status"] == "error"
    assert report["message"].startswith("work.ipynb cell 3 line 3: IndentationError: expected an indented block")


def test_a_cell_that_needs_ipython_fails_at_import_naming_it(toy_kit, tmp_path, validate_report):
    path = write(tmp_path / "work.ipynb", notebook_text(SOLUTION, "display(add(1, 2))"))
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "work.ipynb"), seed=1))
    assert report["message"] == "work.ipynb cell 3 line 1: NameError: name 'display' is not defined"


def test_an_exception_in_a_call_is_placed_in_its_cell(toy_kit, tmp_path, validate_report):
    broken = SOLUTION.replace("return a + b", "return a + b + offset")
    path = write(tmp_path / "work.ipynb", notebook_text("import math", broken))
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "work.ipynb"), seed=1))
    public, hidden = report["tests"][0], report["tests"][2]
    assert public["message"] == ("your code raised NameError: name 'offset' is not defined "
                                 "(work.ipynb cell 3 line 5 in add)")
    # A hidden check names no line: the student's process could make any line number up.
    assert hidden["message"].startswith("your code raised NameError\n")


def test_top_level_code_runs_at_import_as_in_the_notebook(toy_kit, tmp_path, validate_report):
    """An example call's effect is there when the checks call: a cell ran before them."""
    doubled = SOLUTION.replace("return a + b", "return (a + b) * SCALE")
    path = write(tmp_path / "work.ipynb", notebook_text(doubled, "SCALE = 1\nprint(add(2, 3))\nSCALE = 2"))
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "work.ipynb"), seed=1))
    assert report["tests"][0]["name"] == "add of two small numbers" and report["tests"][0]["score"] == 0
    # The same module as a .py file gives the very same checks, output included.
    module = tmp_path / "toy.py"
    prepare_submission(path, "toy.py", tmp_path / "laid")
    module.write_bytes((tmp_path / "laid" / "toy.py").read_bytes())
    as_module = grade(toy_kit, toy_kit.resolve("ex01"), Submission(module, "toy.py"), seed=1)
    assert [(t["outcome"], t["output"]) for t in report["tests"]] == \
        [(t["outcome"], t["output"]) for t in as_module["tests"]]
    # What the cell printed goes into the report, as for any module that prints at import.
    assert report["submission"]["import_output"] == as_module["submission"]["import_output"] == "5\n"
    assert report["submission"]["sha256"] == as_module["submission"]["sha256"]


def test_the_default_seed_of_a_notebook_follows_its_module(toy_kit, tmp_path):
    path = write(tmp_path / "work.ipynb", notebook_text(SOLUTION))
    report = grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, "work.ipynb"))
    assert report["seed"] == derive_seed("ex01", report["submission"]["sha256"])


# -- the CLI: magics reported in the report and in words


def test_magics_are_left_out_and_their_cells_named(toy_kit, tmp_path, validate_report):
    path = write(tmp_path / "work.ipynb", notebook_text(
        "%load_ext autoreload\nimport math", "%%bash\necho hi", SOLUTION,
        "for n in range(2):\n    !echo {n}\nok = (add(1, 2)\n      != 4)"))
    shown = run_grade("ex01", "--submission", str(path), cwd=toy_kit.root)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "work.ipynb: IPython magics and shell lines were left out of cells 2, 3 and 5" in shown.stdout
    report = validate_report(json.loads(run_grade("ex01", "--submission", str(path), "--output", "-",
                                                  cwd=toy_kit.root).stdout))
    assert report["submission"]["notebook"] == {"file": "work.ipynb", "code_cells": 4, "magic_cells": [2, 3, 5]}
    assert report["score"] == report["max_score"]


def test_a_notebook_submission_that_is_not_one_exits_1_with_a_report(toy_kit, tmp_path, validate_report):
    path = write(tmp_path / "work.ipynb", "not json")
    graded = run_grade("ex01", "--submission", str(path), "--output", "-", cwd=toy_kit.root)
    assert graded.returncode == 1
    report = validate_report(json.loads(graded.stdout))
    assert report["status"] == "error"
    assert report["message"] == "work.ipynb is not a notebook: it is not valid JSON (line 1 column 1: Expecting value)"
