"""A check function's source text, for the check list of public checks, found from its file's syntax tree.

inspect.getsource finds a function's end with the tokenizer, whose patterns a fresh grading process
compiles on its first use: about 7 ms of every cold grade, for text the file's syntax tree already
bounds. The text is the same: from the function's first line (its first decorator) to its last
statement's last line, and on over the comment lines after it that are indented as its body is
(inspect counts those as the block's).
"""

from __future__ import annotations

import ast
import inspect
import sys
import tokenize
from types import FunctionType


class CheckSources:
    """The source of check functions, each check file read and parsed once (one collection's worth)."""

    def __init__(self):
        self._files: dict[str, tuple[list[str], dict[int, int]]] = {}

    def of(self, function: FunctionType) -> str:
        """`function`'s source, decorators included, as inspect.getsource gives it."""
        unwrapped = inspect.unwrap(function)  # as inspect does: a wrapper's own code is not the check's
        code = unwrapped.__code__
        # A check file's bytecode comes from the kit's cache, compiled in an earlier run's folder, so
        # co_filename can name a folder that is gone; the module's __file__ is where this run read it.
        module = sys.modules.get(unwrapped.__module__)
        path = getattr(module, "__file__", None) or code.co_filename
        try:
            lines, ends = self._file(path)
        except (OSError, SyntaxError, ValueError):  # no such file (code made by exec): inspect says why
            lines, ends = [], {}
        end = ends.get(code.co_firstlineno)
        if end is None:  # not a def of the file as parsed: the tokenizer's way, and its error
            return inspect.getsource(function)
        return "".join(lines[code.co_firstlineno - 1:end])

    def _file(self, path: str) -> tuple[list[str], dict[int, int]]:
        """The file's lines, and each function's last line by its first (the first decorator's, if any)."""
        if path not in self._files:
            with tokenize.open(path) as file:  # the encoding the file declares, as the import read it
                text = file.read()
            lines, ends = text.splitlines(keepends=True), {}
            for node in ast.walk(ast.parse(text, filename=path)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
                    ends[first] = _end_with_comments(lines, node)
            self._files[path] = (lines, ends)
        return self._files[path]


def _end_with_comments(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The function's last line as inspect's block finder sees it: its last statement's, or a later
    comment line's indented at least as its body, up to the next line of code."""
    end = node.end_lineno
    if node.body[0].lineno == node.lineno:  # a one-line def has no indented body to hold comments
        return end
    body_column = node.body[0].col_offset  # bytes, but indentation is ASCII
    for number, line in enumerate(lines[end:], start=end + 1):
        stripped = line.lstrip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        if len(line) - len(stripped) >= body_column:
            end = number
    return end
