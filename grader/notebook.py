"""Notebooks: a submitted .ipynb read with nbformat and turned into the module it holds, and stubs as notebooks.

The module is the notebook's code cells in order, each after a `# %% cell N` line, so that the
module's hash changes when the cells are renumbered, and the words of a report with it. IPython's
own lines (line magics and shell lines, which start a statement with % or !) become `pass`, which
keeps every line where it was; a cell magic (%% on its first line) leaves out its whole cell.

Jupyter compiles each cell on its own, so a few things run there that one module would refuse. The
module does what Jupyter does where it can: a cell's indentation is taken off as IPython takes it
off, help lines (`len?`) are left out like magics, and `from __future__` imports that open a cell
move to the module's first line. Anything else that compiles as a cell but not as part of the
module is a one-line error that names the cell and says why.
"""

from __future__ import annotations

import __future__
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
# IPython's escapes at the start of a statement: a line magic (%), a shell line (!), a help line (?).
ESCAPES = ("%", "!", "?")
# IPython's help asked at the end of a line: `len?`, `math.floor??`.
HELP_END = re.compile(r"[A-Za-z_][\w.]*\?\??")
# Brackets within brackets in a notebook's JSON. Jupyter's own notebooks nest about 10 deep; json and
# nbformat's schema check recurse once or more per level, and a file nested hundreds deep ends them
# with RecursionError, so the depth is counted before either reads it.
MAX_NOTEBOOK_DEPTH = 64
# A JSON string, quotes and escapes included: brackets inside one are text, not nesting.
JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
# A validation message quotes the offending part of the notebook, which can be a whole cell.
MESSAGE_LIMIT = 120
# What Jupyter needs to open a handout notebook with a Python kernel.
PYTHON_METADATA = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python"}}


class NotANotebook(ValueError):
    """A .ipynb file that nbformat cannot read as a notebook; the message says why, in one line."""


class CellsDoNotJoin(NotANotebook):
    """A notebook whose cells run one by one in Jupyter but cannot be one module; the message names the cell."""


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


def _deeper_than(brackets: bytes, limit: int) -> bool:
    """Counted bracket by bracket, stopping as soon as the depth passes the limit."""
    depth = 0
    for code in brackets:
        depth += 1 if code == ord("(") else -1
        if depth > limit:
            return True
    return False


def nests_deeper_than(data: bytes, limit: int) -> bool:
    """Whether a JSON text's brackets nest more than `limit` deep, found without parsing it.

    Each round takes out every innermost pair, so a balanced text no deeper than `limit` is empty
    after that many rounds, and one that is not empty is deeper. An unbalanced one (not JSON at
    all) is counted bracket by bracket, which stops early at the limit.
    """
    brackets = JSON_STRING.sub(b"", data).translate(bytes.maketrans(b"[]{}", b"()()"), delete=bytes(
        code for code in range(256) if code not in b"[]{}"))
    left = brackets
    for _ in range(limit):
        shorter = left.replace(b"()", b"")
        if len(shorter) == len(left):
            break
        left = shorter
    if not left:
        return False
    if b"()" in left:  # still a pair after `limit` rounds: balanced and deeper
        return True
    return _deeper_than(brackets, limit)


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
    if nests_deeper_than(data, MAX_NOTEBOOK_DEPTH):
        raise NotANotebook(f"{name} is not a notebook: its JSON nests more than {MAX_NOTEBOOK_DEPTH} levels deep")
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
    """A code cell's lines with each magic, shell or help line made `pass`, and whether there was one.

    Only a line that starts a statement counts: a continuation line (`!= b` inside brackets, after
    a backslash) and a line inside a string stay as they are, as IPython leaves them.
    """
    kept: list[str] = []
    dropped = False
    for line in _dedent(_lines(source)):
        # Tokenizing what comes before is needed only for the rare line that starts with an escape.
        escaped = line.lstrip().startswith(ESCAPES) or HELP_END.fullmatch(line.strip())
        if escaped and _ends_between_statements(kept):
            kept.append(_as_pass(line))
            dropped = True
        else:
            kept.append(line)
    return kept, dropped


def _is_cell_magic(source: str) -> bool:
    first = next((line for line in _lines(source) if line.strip()), "")
    return first.lstrip().startswith("%%")


def _dedent(lines: list[str]) -> list[str]:
    """The lines without the first line's indentation, as IPython takes it off a cell (pasted code)."""
    first = next((line for line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip())]
    if not indent:
        return lines
    return [line[len(indent):] if line.startswith(indent) else line for line in lines]


def _hoist_futures(lines: list[str]) -> tuple[list[str], list[str]]:
    """The cell's lines with the `from __future__` imports that open it made `pass`, and the features named.

    In Jupyter such an import opens a cell and holds from then on; in a module it must come first.
    """
    try:
        body = ast.parse("\n".join(lines)).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # the worker's import names the cell and line
        return lines, []
    start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    features: list[str] = []
    lines = list(lines)
    for node in body[start:]:
        if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"
                and all(alias.name in __future__.all_feature_names for alias in node.names)):
            break
        features += [alias.name for alias in node.names]
        # Columns count UTF-8 bytes; the statement becomes `pass` and its other lines empty, so no line moves.
        first = lines[node.lineno - 1].encode()
        last = lines[node.end_lineno - 1].encode()
        rest = last[node.end_col_offset:]
        lines[node.lineno - 1] = (first[: node.col_offset] + b"pass" + rest).decode()
        for number in range(node.lineno, node.end_lineno):
            lines[number] = ""
    return lines, features


@dataclass(frozen=True)
class _Cell:
    number: int
    lines: list[str] | None
    """The cell's lines as the module holds them; None for a cell magic, which is left out."""
    dropped: bool


def notebook_module(data: bytes, name: str) -> NotebookModule:
    """The module a notebook file holds; NotANotebook if it is not a notebook, or its cells cannot be one module."""
    notebook = read_notebook(data, name)
    cells: list[_Cell] = []
    features: list[str] = []
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type != "code":
            continue
        if _is_cell_magic(cell.source):
            cells.append(_Cell(number, None, True))
            continue
        lines, dropped = drop_magics(cell.source)
        lines, named = _hoist_futures(lines)
        features += [feature for feature in named if feature not in features]
        cells.append(_Cell(number, lines, dropped))
    parts: list[str] = [f"from __future__ import {', '.join(features)}\n"] if features else []
    spans: list[CellSpan] = []
    line = 1 + len(parts)
    for cell in cells:
        if cell.lines is None:
            parts.append(f"# %% cell {cell.number}: a cell magic, left out\n")
            line += 1
            continue
        parts.append(f"# %% cell {cell.number}\n" + "".join(f"{text}\n" for text in cell.lines))
        if cell.lines:
            spans.append(CellSpan(cell.number, line + 1, len(cell.lines)))
        line += 1 + len(cell.lines)
    made = NotebookModule("".join(parts), tuple(spans), len(cells),
                          tuple(cell.number for cell in cells if cell.dropped))
    _check_cells_join(made, cells, name)
    return made


def _check_cells_join(made: NotebookModule, cells: list[_Cell], name: str) -> None:
    """CellsDoNotJoin if the module does not compile where the cell alone does, as Jupyter compiles it.

    A cell that fails on its own fails in Jupyter too: that is the student's error, and the
    worker's import names it. Only what Jupyter's way of compiling allows is said here.
    """
    try:
        compile(made.source, name, "exec", dont_inherit=True)  # to code: some errors only the compiler finds
        return
    except SyntaxError as exc:
        problem = exc
    except (ValueError, RecursionError, MemoryError):  # null bytes, absurd nesting: the worker's import says so
        return
    span = next((span for span in made.cells if span.first_line <= (problem.lineno or 0) < span.first_line
                 + span.lines), None)
    if span is None:
        return
    cell = next(cell for cell in cells if cell.number == span.cell)
    try:  # top-level await is Jupyter's; the flag lets a cell hold one, as IPython's compiler does
        compile("\n".join(cell.lines or []), name, "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    line = (problem.lineno or 0) - span.first_line + 1
    raise CellsDoNotJoin(f"{name} cell {span.cell} line {line}: {problem.msg}: Jupyter runs this cell on its own, "
                         "but graded, the cells run as one module, where it cannot stand")


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
