"""Pictures of alpha-beta (and of plain minimax) on a small tree, for the failed checks of the exercises that
search trees.

A check helper shared by ex04 and ex07 (`grade export` and the Gradescope bundle copy it into the
checks of each exercise that imports it, so each stands alone). Each exercise's `tree_picture.py`
holds the table of what alpha-beta does on the trees its public checks draw, and the pictures
for its own functions; this module draws them.

The picture draws the tree as an outline with its MAX and MIN levels, marks the leaves alpha-beta looks at (in
order) and the ones it prunes, and says where each cutoff happens. When the student's search can
be traced, a second column shows which leaves it looked at, and a sentence says where it first
went another way.

Tracing works on lists: the student's code gets a copy of the tree whose lists record which
elements are fetched, and by which function. Fetching a leaf is not the same as evaluating it, so
the leaves "your search looked at" are inferred, and shown only when the inference is safe:
- the search is taken to be the code that stops partway through some list (a cutoff); checking
  the tree and counting skipped leaves always read whole lists;
- if no code stops partway anywhere, the search never cut anything off, so it looked at every
  leaf (provided some code walked the whole tree one element at a time); in which order is
  known only if every such walk went the same way;
- the result must agree with what the student's function reported.
Otherwise the picture says that the search could not be traced, and why.

This module ships in the handout, and the search is the students' work, so it searches nothing:
every answer comes from a table.
"""

from __future__ import annotations

import ast
import math
import textwrap
from dataclasses import dataclass, field

from grader.checks import KitError, TracingUnavailable

# The picture's lines fit an 80-column terminal under the report's indentation.
WIDTH = 72
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")

INF = math.inf


@dataclass
class Facts:
    """What alpha-beta does on one tree."""

    tree: object
    root_max: bool
    leaves: dict = field(default_factory=dict)
    """Leaf path -> value, for every leaf, in left-to-right order."""
    order: list = field(default_factory=list)
    """The leaves alpha-beta looks at, in order."""
    windows: dict = field(default_factory=dict)
    """Path of every searched node -> (alpha, beta) when the search enters it."""
    values: dict = field(default_factory=dict)
    """Path of every searched internal node -> the value the search returns for it."""
    cutoffs: dict = field(default_factory=dict)
    """Path of a node that skipped children -> (index of its last searched child, alpha, beta)."""

    def is_max(self, path) -> bool:
        """Whether the player at `path` maximises."""
        return self.root_max == (len(path) % 2 == 0)


@dataclass(frozen=True)
class Searched:
    """A table entry: Facts without the tree, as tuples; a path is the tuple of child indexes from the root."""

    order: tuple
    """The leaves alpha-beta looks at, in order."""
    windows: tuple
    """(path, alpha, beta) for every searched node, as the search enters it."""
    values: tuple
    """(path, value) for every searched internal node."""
    cutoffs: tuple
    """(path, index of its last searched child, alpha, beta) for every node that skipped children."""


def facts_from_table(table, tree, maximizing: bool = True) -> Facts:
    """What alpha-beta (children left to right, stop once alpha >= beta) does on `tree`, looked up in `table`."""
    key, swap = table_key(table, tree, maximizing)
    entry = table[key]
    facts = Facts(tree, maximizing)
    collect_leaves(tree, (), facts.leaves)
    facts.order = list(entry.order)
    facts.windows = {path: (swap.get(alpha, alpha), swap.get(beta, beta)) for path, alpha, beta in entry.windows}
    facts.values = {path: swap.get(value, value) for path, value in entry.values}
    facts.cutoffs = {path: (last, swap.get(alpha, alpha), swap.get(beta, beta))
                     for path, last, alpha, beta in entry.cutoffs}
    return facts


def table_key(table, tree, maximizing: bool):
    """The key of `tree` in `table`, and a map from the table's leaf values to the tree's own leaves."""
    key = (repr(tree), maximizing)
    if key in table:
        return key, {}
    # A student's result that passed `==` against a checked tree may hold 4.0 or True where the table
    # has 4 or 1; the picture shows their leaves, as a search on their tree would.
    for text, root_max in table:
        listed = ast.literal_eval(text)
        if root_max == maximizing and listed == tree:
            ours: dict = {}
            theirs: dict = {}
            collect_leaves(listed, (), ours)
            collect_leaves(tree, (), theirs)
            return (text, root_max), {value: theirs[path] for path, value in ours.items()}
    raise KitError(f"tree_picture.py has no entry for {tree!r} with a {'MAX' if maximizing else 'MIN'} root: "
                   "a public check may draw only the trees in its table")


def collect_leaves(node, path, leaves):
    if isinstance(node, list):
        for index, child in enumerate(node):
            collect_leaves(child, path + (index,), leaves)
    else:
        leaves[path] = node


# ---------------------------------------------------------------------------------------------
# Which leaves the student's search looked at, from the trace.


@dataclass(frozen=True)
class YourSearch:
    """The leaves the student's search looked at."""

    leaves: list
    """In the order it looked at them, or left to right if that order is not known."""
    ordered: bool


def your_leaves(reads, sizes, facts: Facts, visited: int | None, pruned: int | None,
                reported: str = "the counts it reported") -> YourSearch:
    """The leaves the student's search looked at, as far as the reads and its own counts can tell."""
    # `visited` and `pruned` are the counts the student's function reported (None where it reports
    # none). Whatever cannot be told raises TracingUnavailable, which the picture reports.
    groups: dict = {}
    for read in reads:
        groups.setdefault((read.function, read.line), []).append(read)
    if not any(read.path in facts.leaves for read in reads):
        raise TracingUnavailable("your code never read a leaf from the lists it was given")
    stopping = [group for group in groups.values() if _stops_partway(group, sizes)]
    if stopping:
        searches = {(group[0].function, group[0].line) for group in stopping}
        searched = [read for read in reads if (read.function, read.line) in searches]
        if any(read.how == "bulk" for read in searched):
            raise TracingUnavailable("your search copies a node's children before looking at them, so which "
                                     "ones it used cannot be told")
        yours = YourSearch(list(dict.fromkeys(read.path for read in searched if read.path in facts.leaves)), True)
    else:
        yours = _full_walk(groups, facts)
    # Fetching a leaf is not always evaluating it (a loop may fetch the next child, then stop), so
    # the student's own counts must confirm the leaves found.
    seen = len(yours.leaves)
    if seen != visited and (pruned is None or seen + pruned != len(facts.leaves)):
        raise TracingUnavailable(f"the leaves your code read do not add up with {reported}")
    return yours


def _stops_partway(group, sizes) -> bool:
    """Whether this code read some, but not all, of the elements of some list."""
    taken: dict = {}
    for read in group:
        taken.setdefault(read.container, set()).add(read.index)
    return any(len(indexes) < sizes[container] for container, indexes in taken.items())


def _full_walk(groups, facts: Facts) -> YourSearch:
    """Every leaf, when no code ever stopped partway through a list; in order if every walk agrees."""
    walks = []
    for group in groups.values():
        leaves = list(dict.fromkeys(read.path for read in group if read.path in facts.leaves))
        bulk = any(read.how == "bulk" for read in group)
        if bulk and len(leaves) < len(facts.leaves):
            raise TracingUnavailable("your search copies a node's children before looking at them, so which "
                                     "ones it used cannot be told")
        if not bulk and len(leaves) == len(facts.leaves):
            walks.append(leaves)
    if not walks:
        raise TracingUnavailable("your code never walked the tree one element at a time")
    if any(walk != walks[0] for walk in walks):
        # Checking the tree and searching it may walk it in different orders; which is which is unknown.
        return YourSearch(list(facts.leaves), False)
    return YourSearch(walks[0], True)


# ---------------------------------------------------------------------------------------------
# Words


def num(value) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def _where(path) -> str:
    return "tree" + "".join(f"[{index}]" for index in path)


def _kind(facts: Facts, path) -> str:
    return "MAX" if facts.is_max(path) else "MIN"


def _node_words(facts: Facts, path) -> str:
    """'the root', 'the second MIN node (tree[1])' or 'the MAX node tree[0][1]'."""
    if not path:
        return "the root"
    if len(path) == 1 and path[0] < len(ORDINALS):
        return f"the {ORDINALS[path[0]]} {_kind(facts, path)} node ({_where(path)})"
    return f"the {_kind(facts, path)} node {_where(path)}"


def _leaf_words(facts: Facts, path) -> str:
    return f"leaf {num(facts.leaves[path])} ({_where(path)})"


def _after_words(facts: Facts, path) -> str:
    """How to name the child after which a node stopped."""
    if path in facts.leaves:
        return f"once {_leaf_words(facts, path)} is seen"
    return f"once {_where(path)} has been searched"


def first_difference(facts: Facts, yours: YourSearch) -> tuple[str, tuple | None, tuple | None]:
    """Where the student's search first leaves alpha-beta's: (how, their leaf, alpha-beta's leaf)."""
    # `how` is "same", "extra" (they looked at a leaf alpha-beta prunes), "missed" (they never looked
    # at a leaf alpha-beta looks at) or "order" (they looked at both, the other way round). Without
    # their order, their leaves are all the leaves, left to right, so "order" cannot happen.
    yours = yours.leaves
    for index in range(max(len(facts.order), len(yours))):
        expected = facts.order[index] if index < len(facts.order) else None
        got = yours[index] if index < len(yours) else None
        if expected == got:
            continue
        if got is not None and got not in facts.order:
            return "extra", got, expected
        if expected not in yours:
            return "missed", got, expected
        return "order", got, expected
    return "same", None, None


def divergence(facts: Facts, yours: YourSearch) -> str:
    """One sentence on where the student's search first went another way than alpha-beta."""
    how, got, expected = first_difference(facts, yours)
    if how == "extra":
        # The skipped child holding `got` hangs from the one node on its path that stopped early.
        cut = next(got[:depth] for depth in range(len(got))
                   if got[:depth] in facts.cutoffs and got[depth] > facts.cutoffs[got[:depth]][0])
        last, alpha, beta = facts.cutoffs[cut]
        start = "Your search" if yours.ordered else "Your search never stopped early, so it looked at every leaf. It"
        return (f"{start} looked at {_leaf_words(facts, got)}; alpha-beta skips it, because at "
                f"{_node_words(facts, cut)} alpha = {num(alpha)} >= beta = {num(beta)} "
                f"{_after_words(facts, cut + (last,))}.")
    if how == "missed":
        alpha, beta = facts.windows[expected]
        return (f"Your search never looked at {_leaf_words(facts, expected)}; alpha-beta does, because when "
                f"it gets there alpha = {num(alpha)} < beta = {num(beta)}, so nothing cuts it off.")
    if how == "order":
        return (f"Your search looked at {_leaf_words(facts, got)} before {_leaf_words(facts, expected)}; "
                "alpha-beta looks at them the other way round, since it searches children left to right.")
    if not yours.ordered:
        return "Your search looked at exactly the leaves alpha-beta looks at."
    return "Your search looked at exactly the leaves alpha-beta looks at, in the same order."


# ---------------------------------------------------------------------------------------------
# Drawing


def render(facts: Facts, yours: YourSearch | None, notes: list) -> str:
    """The picture: a header, the outline of the tree with one or two columns, and the notes."""
    total, seen = len(facts.leaves), len(facts.order)
    header = (f"Alpha-beta on this tree looks at {seen} of its {total} leaves and prunes {total - seen}. "
              "It searches children left to right and stops at a node once alpha >= beta. Numbers give the "
              "order in which leaves are looked at.")
    rows = list(outline(facts.tree, (), "", "", lambda path: _label(facts, path)))
    marked = None
    if yours is not None:
        how, got, expected = first_difference(facts, yours)
        marked = expected if how == "missed" else got
    columns = ["alpha-beta"] + (["your search"] if yours is not None else [])
    leaf_width = max(len(text) for text, path in rows if path in facts.leaves)
    widths = [len(column) for column in columns]
    lines = [" " * (leaf_width + 2) + "  ".join(columns)]
    ab_rank = {path: rank for rank, path in enumerate(facts.order, 1)}
    if yours is None:
        your_rank = {}
    elif yours.ordered:
        your_rank = {path: str(rank) for rank, path in enumerate(yours.leaves, 1)}
    else:
        your_rank = dict.fromkeys(yours.leaves, "yes")
    for text, path in rows:
        if path not in facts.leaves:
            lines.append(text)
            continue
        cells = [str(ab_rank.get(path, "pruned"))]
        if yours is not None:
            cells.append(your_rank.get(path, "-"))
        line = text.ljust(leaf_width + 2) + "  ".join(cell.rjust(width) for cell, width in zip(cells, widths))
        if path == marked:
            line += "  <--"
        lines.append(line.rstrip())
    paragraphs = [textwrap.fill(text, WIDTH) for text in [header, *(note for note in notes if note)]]
    return "\n".join([paragraphs[0], "", *lines, *(["", *paragraphs[1:]] if paragraphs[1:] else [])])


def outline(node, path, lead, branch, label):
    """(text, path) for the node at `path` and everything under it, as an indented outline."""
    if not isinstance(node, list):
        yield f"{lead}{branch}{num(node)}", path
        return
    yield f"{lead}{branch}{label(path)}", path
    below = lead + ("" if not branch else "    " if branch.startswith("`") else "|   ")
    for index, child in enumerate(node):
        yield from outline(child, path + (index,), below, "`-- " if index == len(node) - 1 else "+-- ", label)


def minimax_picture(tree, values: dict, root_max: bool) -> str:
    """The tree as an outline, every list with its player and minimax value (`values`: path -> value)."""
    def label(path):
        return f"{'MAX' if root_max == (len(path) % 2 == 0) else 'MIN'} = {num(values[path])}"

    header = (f"Minimax on this tree, {'MAX' if root_max else 'MIN'} at the root: each list's value, the player "
              "changing at every level.")
    return "\n".join([textwrap.fill(header, WIDTH), "", *(text for text, _ in outline(tree, (), "", "", label))])


def _label(facts: Facts, path) -> str:
    """'MIN = 2', 'MIN <= 1   cutoff: alpha 2 >= beta 1', or 'MAX (pruned)'."""
    kind = _kind(facts, path)
    if path not in facts.values:
        return f"{kind} (pruned)"
    value = facts.values[path]
    alpha, beta = facts.windows[path]
    relation = "<=" if value <= alpha else ">=" if value >= beta else "="
    label = f"{kind} {relation} {num(value)}"
    if path in facts.cutoffs:
        _, alpha, beta = facts.cutoffs[path]
        label += f"   cutoff: alpha {num(alpha)} >= beta {num(beta)}"
    return label
