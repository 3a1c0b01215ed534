"""Pictures of alpha-beta and minimax on a small tree, added to the message of a failed public check.

The drawing and the reading of the trace are shared with ex04 (alpha_beta_picture.py); this file
holds what is ex07's own: the tables of what alpha-beta and minimax do on the trees its public
checks draw, how a pruned_fraction answer is checked against the trace, and the picture of the
values order_best_first sorts by.
"""

from __future__ import annotations

import math
import textwrap
from types import MappingProxyType

from alpha_beta_picture import (INF, WIDTH, Facts, Searched, divergence, facts_from_table, num, outline, render,
                                table_key, your_leaves)
from grader.checks import TracingUnavailable
from smallest_case import close, equal, small_cases, smallest_wrong


def fraction_picture(student, tree) -> str:
    """The picture for a failed check of pruned_fraction(tree), with the student's search traced where possible."""
    facts = alpha_beta_facts(tree)
    try:
        trace = student.traced("pruned_fraction", tree)
        pruned = _pruned_leaves(trace.value, len(facts.leaves))
        if pruned is None:
            raise TracingUnavailable("pruned_fraction did not return a whole number of leaves over "
                                     f"{len(facts.leaves)} to check the trace against")
        # A fraction of visited leaves instead of pruned ones also confirms what the search read.
        yours = your_leaves(trace.reads, trace.sizes, facts, pruned, pruned, "the fraction it returned")
    except TracingUnavailable as exc:
        return render(facts, None, [f"(Your search could not be traced: {exc}.)"])
    notes = [divergence(facts, yours)]
    total, seen = len(facts.leaves), len(yours.leaves)
    if pruned != total - seen:
        notes.append(f"pruned_fraction returned {pruned}/{total}, the share of leaves your search looked at; it "
                     f"should be the share it skipped, {total - seen}/{total}.")
    return render(facts, yours, notes)


def smallest_wrong_picture(student, *functions: str) -> str | None:
    """The smallest tree of small_trees.py on which one of `functions` (pruned_fraction, order_best_first), in
    turn, answers wrongly, with alpha-beta's search on it or every node's minimax value."""
    asks = ((case, function, (case["tree"],), case[function], close if function == "pruned_fraction" else equal)
            for function in functions for case in small_cases())
    return smallest_wrong(student, asks, " and ".join(functions), _draw)


def _draw(case, function: str, args: tuple) -> str:
    tree = case["tree"]
    if function == "pruned_fraction":
        return render(facts_from_table({(repr(tree), True): Searched(*case["search"][True])}, tree, True), None, [])
    return order_picture(tree, dict(case["values"][True]))


def order_picture(tree, values: dict | None = None) -> str:
    """The tree with every node's minimax value: what order_best_first sorts each node's children by."""
    values = minimax_values(tree) if values is None else values
    lines = [text for text, _ in outline(tree, (), "", "", lambda path: _value_label(tree, values, path))]
    header = ("Every node's minimax value. At a MAX node the children come highest value first, at a MIN "
              "node lowest first; the player changes at every level, leaf or list.")
    return "\n".join([textwrap.fill(header, WIDTH), "", *lines])


def alpha_beta_facts(tree, maximizing: bool = True) -> Facts:
    """What alpha-beta does on `tree`, one of the trees the public checks draw (from SEARCHES)."""
    return facts_from_table(SEARCHES, tree, maximizing)


def _pruned_leaves(fraction, total: int) -> int | None:
    """How many leaves a pruned_fraction answer says were pruned, or None if it is no such fraction."""
    if type(fraction) not in (int, float) or not math.isfinite(fraction):
        return None
    pruned = round(fraction * total)
    return pruned if math.isclose(pruned, fraction * total, abs_tol=1e-9) and 0 <= pruned <= total else None


# ---------------------------------------------------------------------------------------------
# What alpha-beta and minimax do on the trees the public checks draw: looked up, not searched for,
# since the searches are the students' work. tests/grading/test_tracing.py recomputes every entry with an
# oracle of its own and checks that the table holds exactly the trees the public checks draw.

# (repr of the tree, whether its root maximises) -> what alpha-beta does on it.
SEARCHES = MappingProxyType({
    ("[[3, 5, 2], [9, 1, 0], [7, 4, 8]]", True): Searched(
        order=((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2)),
        windows=(
            ((), -INF, INF), ((0,), -INF, INF), ((0, 0), -INF, INF), ((0, 1), -INF, 3), ((0, 2), -INF, 3),
            ((1,), 2, INF), ((1, 0), 2, INF), ((1, 1), 2, 9), ((2,), 2, INF), ((2, 0), 2, INF),
            ((2, 1), 2, 7), ((2, 2), 2, 4),
        ),
        values=(((0,), 2), ((1,), 1), ((2,), 4), ((), 4)),
        cutoffs=(((1,), 1, 2, 1),),
    ),
    ("[[7, 4, 8], [9, 1, 0], [3, 5, 2]]", True): Searched(
        order=((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)),
        windows=(
            ((), -INF, INF), ((0,), -INF, INF), ((0, 0), -INF, INF), ((0, 1), -INF, 7), ((0, 2), -INF, 4),
            ((1,), 4, INF), ((1, 0), 4, INF), ((1, 1), 4, 9), ((2,), 4, INF), ((2, 0), 4, INF),
        ),
        values=(((0,), 4), ((1,), 1), ((2,), 3), ((), 4)),
        cutoffs=(((1,), 1, 4, 1), ((2,), 0, 4, 3)),
    ),
    ("[[4, 7, 8], [2, 3, 5], [0, 1, 9]]", True): Searched(
        order=((0, 0), (0, 1), (0, 2), (1, 0), (2, 0)),
        windows=(
            ((), -INF, INF), ((0,), -INF, INF), ((0, 0), -INF, INF), ((0, 1), -INF, 4), ((0, 2), -INF, 4),
            ((1,), 4, INF), ((1, 0), 4, INF), ((2,), 4, INF), ((2, 0), 4, INF),
        ),
        values=(((0,), 4), ((1,), 2), ((2,), 0), ((), 4)),
        cutoffs=(((1,), 0, 4, 2), ((2,), 0, 4, 0)),
    ),
    ("[3, [5, [1, 8]], [[2, 9], 0]]", True): Searched(
        order=((0,), (1, 0), (1, 1, 0), (1, 1, 1), (2, 0, 0), (2, 0, 1), (2, 1)),
        windows=(
            ((), -INF, INF), ((0,), -INF, INF), ((1,), 3, INF), ((1, 0), 3, INF), ((1, 1), 3, 5),
            ((1, 1, 0), 3, 5), ((1, 1, 1), 3, 5), ((2,), 5, INF), ((2, 0), 5, INF), ((2, 0, 0), 5, INF),
            ((2, 0, 1), 5, INF), ((2, 1), 5, 9),
        ),
        values=(((1, 1), 8), ((1,), 5), ((2, 0), 9), ((2,), 0), ((), 5)),
        cutoffs=(),
    ),
    ("[[5, [8, 1]], 3, [0, [9, 2]]]", True): Searched(
        order=((0, 0), (0, 1, 0), (1,), (2, 0)),
        windows=(
            ((), -INF, INF), ((0,), -INF, INF), ((0, 0), -INF, INF), ((0, 1), -INF, 5), ((0, 1, 0), -INF, 5),
            ((1,), 5, INF), ((2,), 5, INF), ((2, 0), 5, INF),
        ),
        values=(((0, 1), 8), ((0,), 5), ((2,), 0), ((), 5)),
        cutoffs=(((0, 1), 0, 8, 5), ((2,), 0, 5, 0)),
    ),
})


# (repr of the tree, True: its root maximises) -> (path, minimax value) for every internal node.
MINIMAX_VALUES = MappingProxyType({
    ("[[3, 5, 2], [9, 1, 0], [7, 4, 8]]", True): (((0,), 2), ((1,), 0), ((2,), 4), ((), 4)),
    ("[3, [5, [1, 8]], [[2, 9], 0]]", True): (((1, 1), 8), ((1,), 5), ((2, 0), 9), ((2,), 0), ((), 5)),
})


def minimax_values(tree) -> dict:
    """Path of every internal node of `tree` (a MAX root) -> its plain minimax value, from MINIMAX_VALUES."""
    key, swap = table_key(MINIMAX_VALUES, tree, True)
    return {path: swap.get(value, value) for path, value in MINIMAX_VALUES[key]}


def _value_label(tree, values, path) -> str:
    """'MAX = 4   children best first: 4, 2, 1'."""
    node = tree
    for index in path:
        node = node[index]
    maximizing = len(path) % 2 == 0
    scores = sorted((values.get(path + (index,), child) for index, child in enumerate(node)), reverse=maximizing)
    return (f"{'MAX' if maximizing else 'MIN'} = {num(values[path])}   children best first: "
            f"{', '.join(map(num, scores))}")
