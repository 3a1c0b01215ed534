"""Pictures of alpha-beta on a small tree, added to the message of a failed public check of best_counter_bid.

The drawing and the reading of the trace are shared with ex07 (alpha_beta_picture.py); this file
holds what is ex04's own: the table of what alpha-beta does on the trees its public checks draw,
and how a best_counter_bid answer is checked against the trace.
"""

from __future__ import annotations

from types import MappingProxyType

from alpha_beta_picture import INF, Facts, Searched, divergence, facts_from_table, render, your_leaves
from grader.checks import TracingUnavailable
from smallest_case import equal, small_cases, smallest_wrong


def counts_picture(student, tree) -> str:
    """The picture for a failed check of best_counter_bid(tree), with the student's search traced where possible."""
    facts = alpha_beta_facts(tree)
    try:
        trace = student.traced("best_counter_bid", tree)
        counts = _reported(trace.value)
        if counts is None:
            raise TracingUnavailable("best_counter_bid did not return the dict of counts to check the trace "
                                     "against")
        yours = your_leaves(trace.reads, trace.sizes, facts, *counts)
    except TracingUnavailable as exc:
        return render(facts, None, [f"(Your search could not be traced: {exc}.)"])
    return render(facts, yours, [divergence(facts, yours), *_count_notes(counts, facts, yours.leaves)])


def smallest_wrong_picture(student, function: str) -> str | None:
    """The smallest tree of small_trees.py on which `function` answers wrongly, with alpha-beta's search on it."""
    return smallest_wrong(student, _asks(function), function, _draw)


def _draw(case, function: str, args: tuple) -> str:
    root_max = args[1] if function == "minimax_with_pruning" else True
    tree = case["tree"]
    return render(facts_from_table({(repr(tree), root_max): Searched(*case["search"][root_max])}, tree, root_max),
                  None, [])


def _asks(function: str):
    """(case, function, args, expected, same) for every case of the table, as `function` is asked about it."""
    for case in small_cases():
        if function == "best_counter_bid":
            yield case, function, (case["tree"],), case["best_counter_bid"], equal
        else:
            for root_max in (True, False):
                yield case, function, (case["tree"], root_max), case["minimax_with_pruning"][root_max], equal


def values_picture(tree, maximizing: bool = True) -> str:
    """The picture of alpha-beta on `tree`, not traced: a search that reports no counts cannot be checked."""
    return render(alpha_beta_facts(tree, maximizing), None, [])


def alpha_beta_facts(tree, maximizing: bool = True) -> Facts:
    """What alpha-beta does on `tree`, one of the trees the public checks draw (from SEARCHES)."""
    return facts_from_table(SEARCHES, tree, maximizing)


def _reported(value):
    """The (visited, pruned) counts a best_counter_bid answer claims, or None for other answers."""
    if type(value) is dict and type(value.get("nodes_visited")) is int and type(value.get("nodes_pruned")) is int:
        return value["nodes_visited"], value["nodes_pruned"]
    return None


def _count_notes(counts, facts: Facts, yours: list) -> list:
    """Where the counts the student reported differ from what their own search did."""
    visited, pruned = counts
    notes = []
    if visited != len(yours):
        notes.append(f"You reported nodes_visited = {visited}, but your search looked at {len(yours)} leaves; "
                     "only leaves count.")
    if pruned != len(facts.leaves) - len(yours):
        notes.append(f"You reported nodes_pruned = {pruned}, but {len(facts.leaves) - len(yours)} leaves lie "
                     "where your search never looked.")
    return notes


# ---------------------------------------------------------------------------------------------
# What alpha-beta does on the trees the public checks draw: looked up, not searched for, since the
# search is the students' work. tests/grading/test_tracing.py recomputes every entry with an oracle of its
# own and checks that the table holds exactly the trees the public checks draw.

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
    ("[[3, 5, 2], [9, 1, 0], [7, 4, 8]]", False): Searched(
        order=((0, 0), (0, 1), (0, 2), (1, 0), (2, 0)),
        windows=(
            ((), -INF, INF), ((0,), -INF, INF), ((0, 0), -INF, INF), ((0, 1), 3, INF), ((0, 2), 5, INF),
            ((1,), -INF, 5), ((1, 0), -INF, 5), ((2,), -INF, 5), ((2, 0), -INF, 5),
        ),
        values=(((0,), 5), ((1,), 9), ((2,), 7), ((), 5)),
        cutoffs=(((1,), 0, 9, 5), ((2,), 0, 7, 5)),
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
    ("[[3, 5], [3, 1]]", True): Searched(
        order=((0, 0), (0, 1), (1, 0)),
        windows=(
            ((), -INF, INF), ((0,), -INF, INF), ((0, 0), -INF, INF), ((0, 1), -INF, 3), ((1,), 3, INF),
            ((1, 0), 3, INF),
        ),
        values=(((0,), 3), ((1,), 3), ((), 3)),
        cutoffs=(((1,), 0, 3, 3),),
    ),
})
