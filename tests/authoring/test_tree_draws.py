"""The random-tree checks of ex03, ex04 and ex07 draw the same trees they always did.

Their generators live once, in exercises/shared_checks/hidden_random_trees.py, with each
exercise's own figures passed in. What a seed draws is part of a grade, so for seeds 0..19 each
check that draws trees draws them here as it does in a grading run (the same calls through the
same functions, the same order, any other rng call in between included), from
random.Random(f"{seed}:{name}"), and a sha256 of repr() of the draws must match
tests/golden/tree_draws.json, which tests/record_tree_draws.py (now gone; see the history) recorded
from each exercise's own copy of the generators before they were shared.
A repr keeps every leaf's type and every float's digits, so 3 and 3.0 differ.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import sys
import warnings
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
GOLDEN = json.loads((REPO / "tests" / "golden" / "tree_draws.json").read_text(encoding="utf-8"))
FOLDERS = {"ex03": "ex03_tree_minimax", "ex04": "ex04_alpha_beta", "ex07": "ex07_move_ordering"}
SHARED_CHECKS = REPO / "exercises" / "shared_checks"
SHARED_MODULE = "hidden_random_trees"


def load_hidden_checks(exercise: str):
    """The exercise's test_hidden.py as a module of its own name, its helpers found as in a grading run."""
    checks = REPO / "exercises" / FOLDERS[exercise] / "checks"
    saved_path, had_shared = list(sys.path), SHARED_MODULE in sys.modules
    # A grading run lays the shared helpers beside the checks; the exercise's own folder comes first.
    sys.path[:0] = [str(checks), str(SHARED_CHECKS)]
    try:
        spec = importlib.util.spec_from_file_location(f"{exercise}_test_hidden", checks / "test_hidden.py")
        module = importlib.util.module_from_spec(spec)
        with warnings.catch_warnings():  # the grader's own markers are unknown outside a grading run
            warnings.simplefilter("ignore")
            spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved_path
        if not had_shared:  # the module keeps its reference; nothing else here should find it by name
            sys.modules.pop(SHARED_MODULE, None)
    return module


def ex03_draws(m):
    """ex03's checks that draw, each as a function of its rng."""
    return {
        "test_result_types": lambda rng: [m.uniform_tree(rng, 3, 3, m.mixed_leaf)],
        "test_count_leaves_random": lambda rng: m.mixed_trees(rng),
        "test_minimax_random": lambda rng: m.mixed_trees(rng),
        "test_minimax_root_maximises_by_default": lambda rng: m.mixed_trees(rng),
        "test_best_child_random": lambda rng: m.mixed_trees(rng, bare_leaves=False),
        "test_tie_heavy_random_trees": lambda rng: m.tie_heavy_trees(rng),
        "test_deep_trees": lambda rng: m.deep_trees(rng),
        "test_large_trees[uniform]": lambda rng: m.large_tree(rng, "uniform")[0],
        "test_large_trees[ragged]": lambda rng: m.large_tree(rng, "ragged")[0],
        "test_large_trees[broom]": lambda rng: m.large_tree(rng, "broom")[0],
        "test_tree_not_mutated": lambda rng: [
            m.uniform_tree(rng, 3, 4, m.few_values_leaf((0, 1, 2))),
            m.ragged_tree(rng, 6, (1, 2, 3), m.mixed_leaf, 0.25, m.RAGGED_MAX_LEAVES),
        ],
    }


def ex04_knuth_moore(m, rng):
    """test_knuth_moore_bound's trees."""
    shapes = [(3, 4), (2, 6), (2, 1), (3, 0), (2, 3), (3, 3), (4, 3), (3, 5), (4, 4), (5, 3)]
    shapes += [(2, 9), (6, 2)]
    shapes += [(rng.randint(2, 4), rng.randint(1, 5)) for _ in range(4)]
    return [m.reorder(m.distinct_uniform_tree(rng, branching, depth)) for branching, depth in shapes]


def ex04_inside_window(m, rng):
    """test_pruning_value_inside_window's trees, then its rng calls for each tree's window."""
    trees = m.mixed_trees(rng)[:12] + m.tie_heavy_trees(rng)[:12]
    margins = [0.5, 1, 3, 25, m.INF]
    windows = [(rng.random() < 0.5, rng.choice(margins), rng.choice(margins)) for _ in trees]
    return [trees, windows]


def ex04_draws(m):
    """ex04's checks that draw, each as a function of its rng."""
    return {
        "test_result_is_plain_dict": lambda rng: [m.uniform_tree(rng, 3, 3, m.int_leaf)],
        "test_counting_rule_on_random_trees": lambda rng: m.mixed_trees(rng)[:15] + m.tie_heavy_trees(rng)[::4],
        "test_random_trees_match_oracle": lambda rng: m.mixed_trees(rng),
        "test_tie_heavy_random_trees": lambda rng: m.tie_heavy_trees(rng),
        "test_larger_trees": lambda rng: [
            m.uniform_tree(rng, 4, 6, m.int_leaf),
            m.uniform_tree(rng, 3, 8, m.few_values_leaf((0, 1, 2, 3))),
            m.uniform_tree(rng, 60, 2, m.float_leaf),
            m.ragged_tree(rng, 12, (2, 3, 4, 5), m.mixed_leaf, 0.2, max_leaves=5000),
            m.caterpillar_tree(rng, 120, m.int_leaf, m.BUSH_STOP, m.RAGGED_MAX_LEAVES),
        ],
        "test_knuth_moore_bound": lambda rng: ex04_knuth_moore(m, rng),
        "test_pruning_value_full_window": lambda rng: m.mixed_trees(rng)[:10] + m.tie_heavy_trees(rng)[:6],
        "test_pruning_value_inside_window": lambda rng: ex04_inside_window(m, rng),
        "test_tree_not_mutated": lambda rng: [
            m.uniform_tree(rng, 3, 4, m.few_values_leaf((0, 1, 2))),
            m.ragged_tree(rng, 6, (1, 2, 3), m.mixed_leaf, 0.25, m.RAGGED_MAX_LEAVES),
        ],
    }


def ex07_knuth_moore_fraction(m, rng):
    """test_knuth_moore_fraction's trees."""
    shapes = [(3, 4), (2, 6), (2, 1), (3, 2), (2, 3), (3, 3), (4, 3), (3, 5), (4, 4), (5, 3), (2, 8)]
    shapes += [(rng.randint(2, 5), rng.randint(1, 4)) for _ in range(4)]
    return [m.reorder(m.distinct_uniform_tree(rng, branching, depth)) for branching, depth in shapes]


def ex07_order_knuth_moore(m, rng):
    """test_order_meets_knuth_moore's trees."""
    shapes = [(3, 4), (2, 6), (2, 2), (3, 3), (4, 3), (3, 5), (4, 4), (5, 3), (2, 9), (6, 2)]
    shapes += [(rng.randint(2, 5), rng.randint(2, 4)) for _ in range(4)]
    return [m.distinct_uniform_tree(rng, branching, depth) for branching, depth in shapes]


def ex07_larger(m, rng, depth):
    """The trees of test_larger_trees (depth 6) and test_order_larger_trees (depth 7)."""
    return [
        m.uniform_tree(rng, 4, depth, m.int_leaf),
        m.uniform_tree(rng, 3, 8, m.few_values_leaf((0, 1, 2, 3))),
        m.ragged_tree(rng, 12, (2, 3, 4, 5), m.mixed_leaf, 0.2, max_leaves=5000),
    ]


def ex07_draws(m):
    """ex07's checks that draw, each as a function of its rng."""
    return {
        "test_nothing_pruned": lambda rng: [
            m.reorder(m.distinct_uniform_tree(rng, rng.randint(2, 5), rng.randint(1, 3)), worst_first=True)
            for _ in range(6)
        ],
        "test_random_trees": lambda rng: m.mixed_trees(rng),
        "test_tie_heavy_trees": lambda rng: m.tie_heavy_trees(rng),
        "test_knuth_moore_fraction": lambda rng: ex07_knuth_moore_fraction(m, rng),
        "test_larger_trees": lambda rng: ex07_larger(m, rng, 6),
        "test_order_keeps_the_tree": lambda rng: m.mixed_trees(rng)[:20],
        "test_order_is_best_first_everywhere": lambda rng: m.mixed_trees(rng),
        "test_order_tie_heavy": lambda rng: m.tie_heavy_trees(rng),
        "test_order_meets_knuth_moore": lambda rng: ex07_order_knuth_moore(m, rng),
        "test_order_does_not_mutate": lambda rng: [
            m.distinct_uniform_tree(rng, 3, 3),
            m.ragged_tree(rng, 6, (1, 2, 3), m.mixed_leaf, 0.25, m.RAGGED_MAX_LEAVES),
            m.uniform_tree(rng, 3, 4, m.few_values_leaf((0, 1, 2))),
        ],
        "test_order_larger_trees": lambda rng: ex07_larger(m, rng, 7),
    }


PLANS = {"ex03": ex03_draws, "ex04": ex04_draws, "ex07": ex07_draws}


@pytest.fixture(scope="module")
def draws():
    """Every exercise's draws by name, "ex04/test_larger_trees" and so on."""
    found = {}
    for exercise, plan in PLANS.items():
        for check, draw in plan(load_hidden_checks(exercise)).items():
            found[f"{exercise}/{check}"] = draw
    return found


def test_every_recorded_check_is_drawn_again(draws):
    assert sorted(draws) == sorted(GOLDEN["draws"])


@pytest.mark.parametrize("name", sorted(GOLDEN["draws"]))
def test_same_draws_as_recorded(draws, name):
    got = [hashlib.sha256(repr(draws[name](random.Random(f"{seed}:{name}"))).encode()).hexdigest()
           for seed in range(GOLDEN["seeds"])]
    differ = [seed for seed, (mine, recorded) in enumerate(zip(got, GOLDEN["draws"][name])) if mine != recorded]
    assert differ == [], f"{name} draws other trees than recorded on seeds {differ}"
