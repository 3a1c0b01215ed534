"""The smallest tree ex03's functions get wrong, drawn, for a failed public check.

The answers come from small_trees.py, a table of small trees with the reference's answers (the
search is the students' work, so nothing here searches); smallest_case.py asks the student's code
about each tree, in the table's order of size, until an answer is wrong.
"""

from __future__ import annotations

from smallest_case import equal, small_cases, smallest_wrong


def _asks(function: str):
    """(case, function, args, expected, same) for every case of the table that `function` is asked about."""
    for case in small_cases():
        tree = case["tree"]
        if function == "minimax":
            for root_max in (True, False):
                yield case, "minimax", (tree, root_max), case["minimax"][root_max], equal
        elif function == "count_leaves":
            yield case, "count_leaves", (tree,), case["count_leaves"], equal
        elif case["best_child"] is not None:
            yield case, "best_child", (tree,), case["best_child"], equal


def smallest_wrong_picture(student, function: str) -> str | None:
    """The smallest tree on which `function` answers wrongly, drawn with every list's minimax value."""
    return smallest_wrong(student, _asks(function), function, _draw)


def _draw(case, function: str, args: tuple) -> str:
    from alpha_beta_picture import minimax_picture  # only a failed check draws: a passing grade never loads it

    root_max = args[1] if function == "minimax" else True
    return minimax_picture(case["tree"], dict(case["values"][root_max]), root_max)
