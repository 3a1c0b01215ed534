"""Notebooks: a submitted .ipynb read with nbformat and turned into the module it holds, and stubs as notebooks.

The module is the notebook's code cells in order, each after a `# %% cell N` line, so that the
module's hash changes when the cells are renumbered, and the words of a report with it. IPython's
own lines (line magics and shell lines, which start a statement with % or !) become `pass`, which
keeps every line where it was; a cell magic (%% on its first line) leaves out its whole cell.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.source_map import CellSpan

if TYPE_CHECKING:
    import nbformat

NOTEBOOK_SUFFIX = ".ipynb"
# IPython's escapes at the start of a statement: a line magic (%) and a shell line (!).
ESCAPES = ("%", "!")
# A validation message quotes the offending part of the notebook, which can be a whole cell.
MESSAGE_LIMIT = 120
# What Jupyter needs to open a handout notebook with a Python kernel.
PYTHON_METADATA = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python"}}


class NotANotebook(ValueError):
    """A .ipynb file that nbformat cannot read as a notebook; the message says why, in one line."""


@dataclass(frozen=True)
class NotebookModule:
    """The module a notebook holds, and where each of its code cells sits in it."""

    source: str
    cells: tuple[CellSpan, ...]
    """The code cells that hold code, in order."""
    code_cells: int
    """How many code cells the notebook has, empty ones and cell magics included."""
    magic_cells: tuple[int, ...]
    """The cells whose IPython magics or shell lines were left out."""


def notebook_name(module: str) -> str:
    """The notebook that may stand for a module: "alpha_beta.py" -> "alpha_beta.ipynb"."""
    return module.removesuffix(".py") + NOTEBOOK_SUFFIX


def _lines(text: str) -> list[str]:
    """A text's lines as Python counts them (\\n, \\r\\n or \\r), without their ends."""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines[-1] == "" else lines


def read_notebook(data: bytes, name: str) -> nbformat.NotebookNode:
    """A notebook file's contents as an nbformat v4 notebook; NotANotebook if it is not one."""
    # Imported here: nbformat brings jsonschema and traitlets, which only notebooks need to pay for.
    import nbformat
    import nbformat.reader

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotANotebook(f"{name} is not a notebook: byte 0x{data[exc.start]:02x} at offset {exc.start} "
                           "is not UTF-8 text") from None
    try:
        raw = nbformat.reader.parse_json(text)
    except nbformat.reader.NotJSONError as exc:
        cause = exc.__cause__  # nbformat raises from json's own error, which knows the place
        where = ""
        if isinstance(cause, json.JSONDecodeError):
            where = f" (line {cause.lineno} column {cause.colno}: {cause.msg})"
        raise NotANotebook(f"{name} is not a notebook: it is not valid JSON{where}") from None
    if type(raw) is not dict or "nbformat" not in raw:
        raise NotANotebook(f"{name} is not a notebook: its JSON has no nbformat version")
    major, minor = nbformat.reader.get_version(raw)
    if type(major) is not int or type(minor) is not int or major not in nbformat.versions:
        raise NotANotebook(f"{name} is not a notebook: nbformat cannot read its format version "
                           f"(nbformat {major!r}, nbformat_minor {minor!r})")
    cells = raw.get("cells")
    if major == 4 and not (type(cells) is list and all(type(cell) is dict for cell in cells)):
        # nbformat's own repairs walk the cells before its schema can say what is wrong with them.
        raise NotANotebook(f"{name} is not a notebook: its cells are not a list of cells")
    if (major, minor) >= (4, 5):
        # Cell ids mean nothing to grading; nbformat would add missing ones itself, with a warning.
        for number, cell in enumerate(cells, 1):
            cell.setdefault("id", f"cell-{number}")
    try:
        nbformat.validate(raw)  # before reading: nbformat reads only what its schema allows
        return nbformat.convert(nbformat.versions[major].to_notebook_json(raw, minor=minor), 4)
    except (nbformat.ValidationError, nbformat.NBFormatError) as exc:
        path = "/".join(map(str, getattr(exc, "absolute_path", None) or ()))
        message = (getattr(exc, "message", None) or str(exc)).splitlines()[0]
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT] + "..."
        raise NotANotebook(f"{name} is not a notebook: nbformat finds it invalid"
                           f"{f' at {path}' if path else ''}: {message}") from None


def _ends_between_statements(lines: list[str]) -> bool:
    """Whether the next line after these would start a statement: no bracket, string or backslash left open."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("".join(f"{line}\n" for line in lines)).readline):
            pass
    except tokenize.TokenError:  # the end came inside brackets, a string, or after a backslash
        return False
    except SyntaxError:  # a bad indent: the module's own compile names it
        return True
    return True


def _as_pass(line: str) -> str:
    return line[: len(line) - len(line.lstrip())] + "pass"


def drop_magics(source: str) -> tuple[list[str], bool]:
    """A code cell's lines with each magic or shell line made `pass`, and whether there was one.

    Only a line that starts a statement counts: a continuation line (`!= b` inside brackets, after
    a backslash) and a line inside a string stay as they are, as IPython leaves them.
    """
    kept: list[str] = []
    dropped = False
    for line in _lines(source):
        # Tokenizing what comes before is needed only for the rare line that starts with an escape.
        if line.lstrip().startswith(ESCAPES) and _ends_between_statements(kept):
            kept.append(_as_pass(line))
            dropped = True
        else:
            kept.append(line)
    return kept, dropped


def _is_cell_magic(source: str) -> bool:
    first = next((line for line in _lines(source) if line.strip()), "")
    return first.lstrip().startswith("%%")


def notebook_module(data: bytes, name: str) -> NotebookModule:
    """The module a notebook file holds; NotANotebook if it is not a notebook."""
    notebook = read_notebook(data, name)
    parts: list[str] = []
    spans: list[CellSpan] = []
    magic: list[int] = []
    code_cells = 0
    line = 1
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type != "code":
            continue
        code_cells += 1
        if _is_cell_magic(cell.source):
            magic.append(number)
            parts.append(f"# %% cell {number}: a cell magic, left out\n")
            line += 1
            continue
        lines, dropped = drop_magics(cell.source)
        if dropped:
            magic.append(number)
        parts.append(f"# %% cell {number}\n" + "".join(f"{text}\n" for text in lines))
        if lines:
            spans.append(CellSpan(number, line + 1, len(lines)))
        line += 1 + len(lines)
    return NotebookModule("".join(parts), tuple(spans), code_cells, tuple(magic))


# -- handouts: an exercise's README and stub as a notebook


def readme_cells(text: str) -> list[str]:
    """A README cut into cells, one per heading of level 1 or 2 (never inside a fenced code block)."""
    cells: list[list[str]] = [[]]
    fenced = False
    for line in _lines(text):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith(("# ", "## ")) and any(part.strip() for part in cells[-1]):
            cells.append([])
        cells[-1].append(line)
    return ["\n".join(cell).strip("\n") for cell in cells if any(part.strip() for part in cell)]


def module_cells(source: str) -> list[str]:
    """A module cut into cells: what comes before its first function or class, then each top-level
    function or class with its decorators and the comment lines just above it."""
    lines = _lines(source)
    cuts = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            while start > 1 and lines[start - 2].lstrip().startswith("#"):
                start -= 1
            cuts.append(start - 1)
    bounds = [0, *cuts, len(lines)]
    pieces = ["\n".join(lines[begin:end]).strip("\n") for begin, end in zip(bounds, bounds[1:])]
    return [piece for piece in pieces if piece.strip()]


def handout_notebook(readme: str, stub: str, grade_command: str) -> str:
    """An exercise as a notebook: the README's text as markdown cells, then the stub's parts as code cells."""
    import nbformat
    from nbformat import v4

    how = (f"Complete the functions below (the `# TODO`s), then grade this notebook with "
           f"`{grade_command}`. IPython magics and shell lines (`%`, `!`) are left out when it is graded.")
    cells = [v4.new_markdown_cell(text, id=f"readme-{number}")
             for number, text in enumerate([*readme_cells(readme), how], 1)]
    cells += [v4.new_code_cell(text, id=f"code-{number}") for number, text in enumerate(module_cells(stub), 1)]
    notebook = v4.new_notebook(cells=cells, metadata=PYTHON_METADATA)
    nbformat.validate(notebook)
    return nbformat.writes(notebook)
