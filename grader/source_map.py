"""Where a line of the graded module came from: a line of the file itself, or a line of a notebook's cell."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CellSpan:
    """One code cell of a notebook, as it sits in the module made from the notebook."""

    cell: int
    """The cell's number in the notebook, counting every cell from 1 at the top, markdown cells too."""
    first_line: int
    """The line of the module that holds the cell's first line."""
    lines: int
    """How many lines the cell has."""


@dataclass(frozen=True)
class SourceMap:
    """How the report names a line of the graded module: "toy.py line 12", or "work.ipynb cell 3 line 2"."""

    file: str
    """The file the student wrote: the module itself, or the notebook it was made from."""
    cells: tuple[CellSpan, ...] = ()
    """A notebook's code cells in module order; empty for a plain .py file, whose lines are its own."""

    def locate(self, line: int) -> tuple[int, int] | None:
        """The (cell, line within the cell) of a module line, or None for a plain file or a line before every cell.

        A line past a cell's end (a syntax error found where the next cell begins, or at the end)
        belongs to that cell, one line past its last, as Jupyter would say when running it alone.
        """
        holder = None
        for span in self.cells:
            if span.first_line > line:
                break
            holder = span
        return (holder.cell, line - holder.first_line + 1) if holder is not None else None

    def where(self, line: int) -> str:
        """A line's place within the file, such as "line 12" or "cell 3 line 2"."""
        found = self.locate(line)
        return f"cell {found[0]} line {found[1]}" if found else f"line {line}"

    def place(self, line: int) -> str:
        """One line in words, such as "toy.py line 12" or "work.ipynb cell 3 line 2"."""
        return f"{self.file} {self.where(line)}"

    def places(self, lines: list[int]) -> str:
        """Several lines in words, such as "toy.py lines 3, 5" or "work.ipynb cell 3 line 2, cell 4 line 1"."""
        if not self.cells:
            return f"{self.file} line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"
        return f"{self.file} {', '.join(self.where(line) for line in lines)}"

    def as_data(self) -> dict:
        """The map as JSON data, for the grading process's settings."""
        return {"file": self.file, "cells": [[s.cell, s.first_line, s.lines] for s in self.cells]}

    @classmethod
    def from_data(cls, data: dict) -> SourceMap:
        """The map that as_data() wrote."""
        return cls(str(data["file"]), tuple(CellSpan(int(c), int(f), int(n)) for c, f, n in data["cells"]))
