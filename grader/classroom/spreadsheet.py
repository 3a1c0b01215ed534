"""CSV cells a spreadsheet shows as text: the one guard every CSV the kit writes passes its rows through."""

# Why: a spreadsheet that opens a CSV runs a cell beginning with `=`, `+`, `-` or `@` as a formula,
# and a leading tab or carriage return can hide one. A student chooses their folder's name and a
# roster holds whatever was typed into it, so a student named `=cmd|' -c calc'!A0` would be a
# formula in the teacher's spreadsheet. OWASP's CSV Injection page
# (https://owasp.org/www-community/attacks/CSV_Injection) says to make sure no cell begins with one
# of those six characters, by prefixing a single quote, and to take care of the delimiter and the
# quotes as well: the csv module's quoting already does that part.

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any

# OWASP's list: equals, plus, minus, at, tab (0x09) and carriage return (0x0D).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

# Every text cell is guarded, whoever filled it, except one that is wholly a plain number: a number
# is never a formula, and the kit's own numbers (scores, a change of "-3", a share, a rating) must
# stay numbers for the spreadsheet. Guarding every other cell, rather than the columns known to
# hold outside text, leaves no column to forget: a student's name, a roster value, a check's name.
# ASCII digits only, and the whole cell: "-3" is a number, "-3+A1" or "-٣" is not.
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def safe_cell(cell: Any) -> Any:
    """`cell` as a spreadsheet should show it: a text cell that begins a formula gets a leading `'`."""
    if cell is None or isinstance(cell, (int, float)):
        return cell  # written as the number (or blank) it is
    text = str(cell)
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def safe_rows(rows: Iterable[Iterable[Any]]) -> Iterable[list[Any]]:
    """Each row of `rows` with every cell passed through `safe_cell`."""
    return ([safe_cell(cell) for cell in row] for row in rows)


class SafeWriter:
    """A `csv.writer` whose every cell passes through `safe_cell`."""

    def __init__(self, handle: Any, **options: Any) -> None:
        """A writer onto `handle`, with `csv.writer`'s options (delimiter, quoting, ...)."""
        self._writer = csv.writer(handle, **options)

    def writerow(self, row: Iterable[Any]) -> None:
        """Write one row, guarded."""
        self._writer.writerow([safe_cell(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        """Write every row, guarded."""
        self._writer.writerows(safe_rows(rows))
