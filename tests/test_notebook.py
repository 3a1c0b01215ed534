"""Notebooks turned into modules (magics left out, cells mapped back) and stubs written as notebooks."""

from __future__ import annotations

import ast

import nbformat
import pytest
from nbformat import v4

from grader.notebook import (
    CellsDoNotJoin,
    NotANotebook,
    drop_magics,
    handout_notebook,
    module_cells,
    notebook_module,
    notebook_name,
    readme_cells,
)
from grader.source_map import CellSpan, SourceMap

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user


def _notebook(*cells) -> bytes:
    """A notebook of ("md" | "code", source) cells."""
    made = [(v4.new_markdown_cell if kind == "md" else v4.new_code_cell)(source, id=f"c{number}")
            for number, (kind, source) in enumerate(cells, 1)]
    return nbformat.writes(v4.new_notebook(cells=made)).encode()


@pytest.mark.parametrize("source, expected", [
    ("%matplotlib inline\nimport math", ["pass", "import math"]),
    ("!pip install foo\nx = 1", ["pass", "x = 1"]),
    ("for n in range(3):\n    %time f(n)", ["for n in range(3):", "    pass"]),
    ("if x:\n    !ls", ["if x:", "    pass"]),
    ('!echo "unclosed\ny = 2', ["pass", "y = 2"]),
])
def test_a_line_that_starts_a_statement_with_an_escape_becomes_pass(source, expected):
    assert drop_magics(source) == (expected, True)


@pytest.mark.parametrize("source", [
    "ok = (a\n      != b)",  # black puts operators at the start of continuation lines
    "ok = [a\n      % b for a in c]",
    "total = 3 \\\n    % 2",
    'def f():\n    """Docs.\n\n    % of games won\n    !important\n    """',
    "text = '''\n%s\n'''",
])
def test_continuation_lines_and_lines_in_strings_stay(source):
    assert drop_magics(source) == (source.split("\n"), False)


def test_a_bad_indent_before_a_magic_still_drops_it():
    assert drop_magics("if x:\n        a = 1\n    b = 2\n%time c") == (
        ["if x:", "        a = 1", "    b = 2", "pass"], True)


def test_a_cell_magic_leaves_out_its_whole_cell():
    made = notebook_module(_notebook(("code", "\n%%bash\nls -la\nx = 1"), ("code", "y = 2")), "w.ipynb")
    assert made.source == "# %% cell 1: a cell magic, left out\n# %% cell 2\ny = 2\n"
    assert made.cells == (CellSpan(2, 3, 1),) and made.code_cells == 2 and made.magic_cells == (1,)


def test_cells_are_counted_from_the_top_markdown_included_and_empty_ones_hold_no_lines():
    made = notebook_module(_notebook(("md", "# Title"), ("code", "a = 1\nb = 2"), ("md", "words"),
                                     ("code", ""), ("code", "c = 3\r\nd = 4\r\n")), "w.ipynb")
    assert made.source == "# %% cell 2\na = 1\nb = 2\n# %% cell 4\n# %% cell 5\nc = 3\nd = 4\n"
    assert made.cells == (CellSpan(2, 2, 2), CellSpan(5, 6, 2))
    assert made.code_cells == 3 and made.magic_cells == ()


def test_form_feeds_do_not_split_a_cell_line():
    """Python counts only \\n, \\r\\n and \\r as line ends; str.splitlines would count \\f too."""
    made = notebook_module(_notebook(("code", "x = 1\f\ny = 2")), "w.ipynb")
    assert made.cells == (CellSpan(1, 2, 2),)


# -- what Jupyter runs cell by cell, and one module would refuse


def test_a_future_import_that_opens_a_later_cell_moves_to_the_first_line():
    made = notebook_module(_notebook(("md", "# Work"), ("code", "%matplotlib inline"),
                                     ("code", '"""Docs."""\nfrom __future__ import (\n    annotations,\n)\nx: Later = 1'),
                                     ("code", "y = 1/0")), "work.ipynb")
    lines = made.source.splitlines()
    assert lines[0] == "from __future__ import annotations"
    assert lines[lines.index("# %% cell 3") + 1:][:5] == ['"""Docs."""', "pass", "", "", "x: Later = 1"]
    compile(made.source, "work.ipynb", "exec")  # a module again, and `Later` is never looked up
    # No line of a cell moved: the one that raises is still named by its cell and line.
    source_map = SourceMap("work.ipynb", made.cells)
    assert source_map.place(lines.index("y = 1/0") + 1) == "work.ipynb cell 4 line 1"
    assert made.magic_cells == (2,)


def test_a_future_import_after_other_code_fails_as_it_does_in_jupyter():
    made = notebook_module(_notebook(("code", "x = 1\nfrom __future__ import annotations")), "work.ipynb")
    assert "from __future__ import annotations" in made.source.splitlines()
    with pytest.raises(SyntaxError):  # the worker's import names it: cell 1 line 2
        compile(made.source, "work.ipynb", "exec")


def test_an_indented_cell_is_taken_back_to_the_margin_as_ipython_does():
    made = notebook_module(_notebook(("code", "    def f():\n        return 1\n    x = f()")), "work.ipynb")
    assert made.source.splitlines()[1:] == ["def f():", "    return 1", "x = f()"]


@pytest.mark.parametrize("line", ["len?", "math.floor??", "?len"])
def test_a_help_line_is_left_out_like_a_magic(line):
    made = notebook_module(_notebook(("code", f"import math\n{line}")), "work.ipynb")
    assert made.source.splitlines()[1:] == ["import math", "pass"] and made.magic_cells == (1,)


def test_top_level_await_runs_in_jupyter_but_not_in_a_module_and_is_named():
    with pytest.raises(CellsDoNotJoin) as caught:
        notebook_module(_notebook(("md", "# Work"), ("code", "import asyncio"),
                                  ("code", "x = 1\nawait asyncio.sleep(0)")), "work.ipynb")
    assert str(caught.value) == ("work.ipynb cell 3 line 2: 'await' outside function: Jupyter runs this cell on "
                                 "its own, but graded, the cells run as one module, where it cannot stand")


def test_a_cell_that_fails_on_its_own_is_left_to_the_import_to_name():
    made = notebook_module(_notebook(("code", "x = (1,")), "work.ipynb")
    assert made.source.splitlines()[1:] == ["x = (1,"]


def test_a_notebook_that_is_not_one_raises_a_value_error():
    with pytest.raises(NotANotebook, match="^w.ipynb is not a notebook: it is not valid JSON") as caught:
        notebook_module(b"", "w.ipynb")
    assert isinstance(caught.value, ValueError)


def test_notebook_name_is_the_module_stem_with_ipynb():
    assert notebook_name("alpha_beta.py") == "alpha_beta.ipynb"


# -- the source map


def test_a_plain_file_names_its_own_lines():
    source = SourceMap("toy.py")
    assert source.place(12) == "toy.py line 12" and source.locate(12) is None
    assert source.places([3]) == "toy.py line 3" and source.places([3, 5]) == "toy.py lines 3, 5"


def test_a_notebook_names_cells_and_lines_within_them():
    source = SourceMap("w.ipynb", (CellSpan(2, 2, 2), CellSpan(5, 6, 2)))
    assert source.locate(3) == (2, 2) and source.place(6) == "w.ipynb cell 5 line 1"
    assert source.places([2, 7]) == "w.ipynb cell 2 line 1, cell 5 line 2"
    # A line before every cell, and one past the last cell's end (an error found at the end of the file).
    assert source.place(1) == "w.ipynb line 1" and source.locate(8) == (5, 3)
    assert SourceMap.from_data(source.as_data()) == source


# -- handouts


def test_a_readme_is_cut_at_its_top_headings_but_never_inside_code():
    readme = "# Title\n\nIntro.\n\n## Part\n\n```python\n# a comment, not a heading\nx = 1\n```\n\n### Small\ntext\n"
    assert readme_cells(readme) == ["# Title\n\nIntro.",
                                    "## Part\n\n```python\n# a comment, not a heading\nx = 1\n```\n\n### Small\ntext"]


def test_a_stub_is_cut_into_its_header_and_each_function_with_what_sits_on_it():
    """Comment lines just above a function go with it; code between functions stays with the one before."""
    stub = ('"""Docs."""\n\nimport math\n\n\n# Helper note.\n@decorate\ndef one():\n    pass\n\n\n'
            "LIMIT = 3\n\n\nclass Two:\n    pass\n")
    assert module_cells(stub) == ['"""Docs."""\n\nimport math',
                                  "# Helper note.\n@decorate\ndef one():\n    pass\n\n\nLIMIT = 3",
                                  "class Two:\n    pass"]


def test_a_handout_notebook_is_valid_and_holds_the_stub_as_its_module():
    stub = '"""Docs."""\n\n\ndef one():\n    raise NotImplementedError  # TODO\n'
    text = handout_notebook("# Task\n\nDo it.", stub, "grade ex01 --submission one.ipynb")
    notebook = nbformat.reads(text, 4)
    nbformat.validate(notebook)
    assert [cell.cell_type for cell in notebook.cells] == ["markdown", "markdown", "code", "code"]
    assert "grade ex01 --submission one.ipynb" in notebook.cells[1].source
    assert notebook.metadata.kernelspec.name == "python3"
    made = notebook_module(text.encode(), "one.ipynb")
    assert ast.dump(ast.parse(made.source)) == ast.dump(ast.parse(stub))
    assert text == handout_notebook("# Task\n\nDo it.", stub, "grade ex01 --submission one.ipynb")  # no random ids
