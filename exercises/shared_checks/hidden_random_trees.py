"""Random game trees and the small tree oracle for the hidden checks of ex03, ex04 and ex07.

Hidden-only: its name starts with `hidden_`, only test_hidden.py files import it, and it never
ships to students (it draws the trees the hidden checks ask about and computes their answers).

A tree is a number (a leaf) or a non-empty list of trees. Every generator takes the check's rng
and the exercise's own figures as arguments. What a seed draws is part of each exercise's grade:
the generators must keep making the same rng calls in the same order, and
tests/authoring/test_tree_draws.py holds them to tests/golden/tree_draws.json.
"""

import math

INF = math.inf

# Tiny sets of leaf values for tie-heavy trees. rng.choice picks by position, so the order of the
# sets is part of what a seed draws.
TIE_SETS = ((0, 1), (0, 1, 2), (-1, 0, 1), (3, 3, 3, 4), (5,), (0.5, 1.5), (-2, 2))
# The same, then a set in which an int and a float of the same value tie.
TIE_SETS_WITH_INT_AND_FLOAT = TIE_SETS + ((1, 1.0, 2),)


# --------------------------------------------------------------------------
# The oracle: leaf counting, plain minimax, alpha-beta with its counts, reordering.
# Kept deliberately small and obvious.
# --------------------------------------------------------------------------

def leaf_total(tree):
    """Number of leaves in a tree."""
    return sum(leaf_total(child) for child in tree) if isinstance(tree, list) else 1


def plain_minimax(tree, maximizing=True):
    """Minimax value, every leaf looked at, the player flipping at every level."""
    if not isinstance(tree, list):
        return tree
    values = [plain_minimax(child, not maximizing) for child in tree]
    return max(values) if maximizing else min(values)


def alpha_beta(tree, maximizing=True, alpha=-INF, beta=INF):
    """Alpha-beta with a >= cutoff, children left to right: (value, leaves evaluated, leaves skipped)."""
    if not isinstance(tree, list):
        return tree, 1, 0
    evaluated = skipped = 0
    value = -INF if maximizing else INF
    for position, child in enumerate(tree):
        child_value, seen, missed = alpha_beta(child, not maximizing, alpha, beta)
        evaluated += seen
        skipped += missed
        if maximizing:
            value = max(value, child_value)
            alpha = max(alpha, value)
        else:
            value = min(value, child_value)
            beta = min(beta, value)
        if alpha >= beta:
            skipped += sum(leaf_total(rest) for rest in tree[position + 1:])
            break
    return value, evaluated, skipped


def reorder(tree, maximizing=True, worst_first=False):
    """A copy with every node's children sorted best-first (or worst-first) for its player."""
    if not isinstance(tree, list):
        return tree
    children = [reorder(child, not maximizing, worst_first) for child in tree]
    children.sort(key=lambda child: plain_minimax(child, not maximizing), reverse=maximizing != worst_first)
    return children


def knuth_moore(branching, depth):
    """Leaves alpha-beta evaluates on a perfectly ordered uniform tree with distinct leaves."""
    # -(-depth // 2) is ceil(depth / 2) in integers, exact however large the answer.
    return branching ** -(-depth // 2) + branching ** (depth // 2) - 1


def same_tree(a, b):
    """Equal values and equal types all the way down (so 3 and 3.0 differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))
    return a == b


# --------------------------------------------------------------------------
# Leaves. A leaf maker takes the rng and returns one leaf.
# --------------------------------------------------------------------------

def int_leaf(rng):
    """A whole number, often negative."""
    return rng.randint(-99, 99)


def float_leaf_within(bound):
    """A leaf maker: a float with all its digits in [-bound, bound], often negative."""
    return lambda rng: rng.uniform(-bound, bound)


def mixed_leaf_within(bound, digits):
    """A leaf maker: an int or a float of `digits` decimals in [-bound, bound], so 3 and 3.0 can meet."""

    def make_leaf(rng):
        return rng.randint(-bound, bound) if rng.random() < 0.5 else float(round(rng.uniform(-bound, bound), digits))

    return make_leaf


def few_values_leaf(values):
    """A leaf maker drawing from a tiny set, so that equal values are everywhere."""
    return lambda rng: rng.choice(values)


# --------------------------------------------------------------------------
# Trees.
# --------------------------------------------------------------------------

def uniform_tree(rng, branching, depth, make_leaf):
    """Every internal node has `branching` children; every leaf is at `depth`."""
    if depth == 0:
        return make_leaf(rng)
    return [uniform_tree(rng, branching, depth - 1, make_leaf) for _ in range(branching)]


def distinct_uniform_tree(rng, branching, depth):
    """A uniform tree whose leaves are all different, in random positions."""
    scores = rng.sample(range(-10**6, 10**6), branching ** depth)
    return uniform_tree(rng, branching, depth, lambda _rng: scores.pop())


def ragged_tree(rng, max_depth, widths, make_leaf, stop_chance, max_leaves):
    """Leaves at uneven depths, and no more branching once max_leaves have grown; a list unless max_depth is 0."""
    grown = 0

    def grow(depth):
        nonlocal grown
        if depth == max_depth or grown >= max_leaves or (depth > 0 and rng.random() < stop_chance):
            grown += 1
            return make_leaf(rng)
        return [grow(depth + 1) for _ in range(rng.choice(widths))]

    return grow(0)


def caterpillar_tree(rng, length, make_leaf, bush_stop, bush_leaves):
    """A spine `length` lists long with a few small ragged bushes, grown with bush_stop and bush_leaves, off every level."""
    node = make_leaf(rng)
    for _ in range(length):
        bushes = [ragged_tree(rng, 3, (1, 2, 3), make_leaf, bush_stop, bush_leaves) for _ in range(rng.randint(0, 3))]
        bushes.insert(rng.randint(0, len(bushes)), node)
        node = bushes
    return node


def mixed_trees(rng, float_leaf, mixed_leaf, max_leaves, min_depth=1, flat_lists=0, bare_leaves=False):
    """Small and medium trees of many shapes, shuffled: uniform, ragged, one-child chains, deep, wide, flat."""
    # What differs between exercises: the leaves, the ragged trees' cap, how shallow a uniform tree
    # may be, and whether flat lists and bare leaves are among the trees (before the shuffle).
    trees = []
    for _ in range(8):
        branching = rng.randint(2, 4)
        depth = rng.randint(min_depth, 4 if branching == 4 else 5)
        trees.append(uniform_tree(rng, branching, depth, int_leaf))
    for _ in range(8):
        trees.append(ragged_tree(rng, rng.randint(2, 7), (1, 2, 3, 4), int_leaf, 0.3, max_leaves))
    for _ in range(6):
        trees.append(ragged_tree(rng, rng.randint(2, 6), (2, 3), float_leaf, 0.25, max_leaves))
    for _ in range(6):
        trees.append(ragged_tree(rng, rng.randint(3, 9), (1, 1, 1, 2, 3), mixed_leaf, 0.15, max_leaves))
    for _ in range(4):
        trees.append(ragged_tree(rng, 40, (1, 2, 2, 3), int_leaf, 0.35, 400))
    for _ in range(4):
        trees.append(ragged_tree(rng, 3, tuple(range(4, 10)), mixed_leaf, 0.1, max_leaves))
    for _ in range(flat_lists):
        trees.append([mixed_leaf(rng) for _ in range(rng.randint(1, 12))])
    if bare_leaves:
        trees += [int_leaf(rng), float_leaf(rng)]
    rng.shuffle(trees)
    return trees


def tie_heavy_trees(rng, tie_sets, count, min_depth, max_leaves, flat_lists=0, shuffle=False):
    """Trees whose leaves come from a handful of values: count uniform, count ragged, flat_lists flat."""
    trees = []
    for _ in range(count):
        make_leaf = few_values_leaf(rng.choice(tie_sets))
        trees.append(uniform_tree(rng, rng.randint(2, 4), rng.randint(min_depth, 4), make_leaf))
    for _ in range(count):
        make_leaf = few_values_leaf(rng.choice(tie_sets))
        trees.append(ragged_tree(rng, rng.randint(2, 7), (1, 2, 3, 4), make_leaf, 0.25, max_leaves))
    for _ in range(flat_lists):
        make_leaf = few_values_leaf(rng.choice(tie_sets))
        trees.append([make_leaf(rng) for _ in range(rng.randint(2, 8))])
    if shuffle:
        rng.shuffle(trees)
    return trees


# --------------------------------------------------------------------------
# The smallest failing tree, for a failed hidden check's explanation (feedback.on_failure). The
# exercise's table of small trees (small_trees.py, smallest first) is asked first: most mistakes,
# and every unwritten stub, go wrong on one of its first trees, in a few milliseconds. Only when
# those trees are all answered right does hypothesis draw bigger random trees and shrink the
# first one the student's code gets wrong to a minimal one (fewer and smaller lists, smaller
# leaves); it costs about a second, most of it hypothesis's own. It asks through student.probing(),
# a throwaway worker under a budget, so it never changes the check's outcome. A hidden check's
# explanation is kept for after the due date: it shows a tree.
# --------------------------------------------------------------------------

# The trees of the exercise's table asked first: those of up to this many leaves (a few dozen, the
# table's first). Most mistakes show on them; one that shows only on floats, say, would cost every
# tree of the table, a few hundred calls, before hypothesis's turn.
TABLE_LEAVES = 3
# Small leaves, negative ones included (a best that starts at 0 goes wrong on them), few children.
SHRINK_LEAVES = (-5, 9)
SHRINK_WIDTH = 4
SHRINK_EXAMPLES = 150


def smallest_failing_tree(student, function, expected, extra_args=(), same=None, shown_keys=()):
    """The smallest tree (a list) found on which `function(tree, *extra_args)` differs from `expected(tree)`:
    the first of the exercise's small trees, or else hypothesis.find's.

    Returns (tree, the expected answer, the student's Answer), or None when no failing tree turned
    up within the examples, or the probes' budget ran out first. `shown_keys`: the fields of an
    answer that is a dict, which the explanation may name (student.probing).
    """
    from grader.checks import ProbeOver
    from smallest_case import small_cases

    same = same or (lambda value, right: value == right and type(value) is not bool)
    answers = {}
    with student.probing(shown_keys=shown_keys) as ask:
        def wrong(tree):
            answer = ask(function, tree, *extra_args)
            answers[repr(tree)] = answer
            return answer.kind != "returned" or not same(answer.value, expected(tree))

        try:
            # The hidden checks ask about lists only (a bare leaf is not a tree for best_child).
            small = (case["tree"] for case in small_cases() if leaf_total(case["tree"]) <= TABLE_LEAVES)
            tree = next((tree for tree in small if isinstance(tree, list) and wrong(tree)), None)
            if tree is None:
                tree = _shrunk_failing_tree(wrong)
        except ProbeOver:
            return None
    return None if tree is None else (tree, expected(tree), answers[repr(tree)])


def _shrunk_failing_tree(wrong):
    """hypothesis.find's smallest tree (a list) for which `wrong(tree)` holds; None if none turned up."""
    from hypothesis import HealthCheck, find, settings, strategies
    from hypothesis.errors import NoSuchExample

    subtrees = strategies.recursive(strategies.integers(*SHRINK_LEAVES),
                                    lambda children: strategies.lists(children, min_size=1, max_size=SHRINK_WIDTH),
                                    max_leaves=12)
    trees = strategies.lists(subtrees, min_size=1, max_size=SHRINK_WIDTH)
    try:
        # derandomize: the same student meets the same trees on every grade.
        return find(trees, wrong, settings=settings(database=None, max_examples=SHRINK_EXAMPLES, deadline=None,
                                                    derandomize=True, suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return None


def minimax_by_path(tree, maximizing=True):
    """Path of every list in `tree` -> its plain minimax value (what the tree pictures label lists with)."""
    values = {}

    def walk(node, path, mine):
        if not isinstance(node, list):
            return node
        scores = [walk(child, path + (index,), not mine) for index, child in enumerate(node)]
        values[path] = max(scores) if mine else min(scores)
        return values[path]

    walk(tree, (), maximizing)
    return values


def smallest_failing_picture(student, function, expected, extra_args=(), same=None, maximizing=True, shown_keys=()):
    """The words and picture of smallest_failing_tree, or None; for a hidden check's on_failure."""
    import textwrap

    from alpha_beta_picture import WIDTH, minimax_picture
    from smallest_case import answer_words, call_words

    found = smallest_failing_tree(student, function, expected, extra_args, same, shown_keys)
    if found is None:
        return None
    tree, right, answer = found
    words = textwrap.fill(f"The smallest tree found on which your {function} goes wrong: "
                          f"{call_words(function, (tree, *extra_args))} should return {right!r}, but "
                          f"{answer_words(answer)}.", WIDTH)
    return "\n".join([words, "", minimax_picture(tree, minimax_by_path(tree, maximizing), maximizing)])
