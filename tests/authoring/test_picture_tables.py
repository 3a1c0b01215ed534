"""The alpha-beta pictures the public checks of ex04 and ex07 show: their tables, checked against an oracle, and the pictures wrong solutions get."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import math
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from grader.catalog import KitError
from grader.grading.tracing import TraceRead, TracingUnavailable
from grader.grading.runner import grade
from grader.submission import Submission
from tests.conftest import REPO, mutant_file


# ---------------------------------------------------------------------------------------------
# The ex04 and ex07 pictures


def _load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


# The shared helper first, under the name the pictures import it by, as a grading run lays it beside them.
SHARED = _load_module("alpha_beta_picture", REPO / "exercises" / "shared_checks" / "alpha_beta_picture.py")
SMALLEST = _load_module("smallest_case", REPO / "exercises" / "shared_checks" / "smallest_case.py")


def _load_picture_module(exercise: str):
    # Each exercise's table of small trees goes by the same name: the picture module takes its own on import.
    _load_module("small_trees", REPO / "exercises" / exercise / "checks" / "small_trees.py")
    return _load_module(f"tree_picture_{exercise}", REPO / "exercises" / exercise / "checks" / "tree_picture.py")


EX04 = _load_picture_module("ex04_alpha_beta")
EX07 = _load_picture_module("ex07_move_ordering")
PICTURE_MODULES = {"ex04_alpha_beta": EX04, "ex07_move_ordering": EX07}
# The READMEs' trees, and a deep one from the hidden checks that the pictures never draw.
EXAMPLE_TREES = [[[3, 5, 2], [9, 1, 0], [7, 4, 8]], [[7, 4, 8], [9, 1, 0], [3, 5, 2]], [[3, 5], [3, 1]],
                    [3, [5, [1, 8]], [[2, 9], 0]], [[5, [8, 1]], 3, [0, [9, 2]]], [[4, 7, 8], [2, 3, 5], [0, 1, 9]],
                    [[[[3, 17], [2, 12]], [[15, 25], [0, 2]]], [[[2, 5], [3, 2]], [[14, 1], [8, 6]]]]]


def _oracle_facts(module, tree, maximizing: bool):
    """Alpha-beta as the README defines it, written afresh here: the Facts that `module` should look up."""
    facts = module.Facts(tree, maximizing)

    def gather(node, path):
        if isinstance(node, list):
            for index, child in enumerate(node):
                gather(child, path + (index,))
        else:
            facts.leaves[path] = node

    def search(node, path, mine, alpha, beta):
        facts.windows[path] = (alpha, beta)
        if not isinstance(node, list):
            facts.order.append(path)
            return node
        pick = max if mine else min
        best = None
        for index, child in enumerate(node):
            score = search(child, path + (index,), not mine, alpha, beta)
            best = score if best is None else pick(best, score)
            alpha, beta = (max(alpha, best), beta) if mine else (alpha, min(beta, best))
            if alpha >= beta:
                if node[index + 1:]:  # stopping after the last child skips nothing
                    facts.cutoffs[path] = (index, alpha, beta)
                break
        facts.values[path] = best
        return best

    gather(tree, ())
    search(tree, (), maximizing, -math.inf, math.inf)
    return facts


def _oracle_minimax(tree, root_max: bool = True) -> dict:
    """Plain minimax, written afresh here: path of every internal node -> its value."""
    values = {}

    def value(node, path, mine):
        if not isinstance(node, list):
            return node
        scores = [value(child, path + (index,), not mine) for index, child in enumerate(node)]
        values[path] = max(scores) if mine else min(scores)
        return values[path]

    value(tree, (), root_max)
    return values


def _typed(table: dict) -> dict:
    """`table` with each value's repr, so that 4 and 4.0 (drawn differently) do not compare equal."""
    return {key: repr(value) for key, value in table.items()}


def _assert_same_facts(got, want):
    assert got.order == want.order
    for name in ("leaves", "windows", "values", "cutoffs"):
        assert _typed(getattr(got, name)) == _typed(getattr(want, name)), name


@pytest.mark.parametrize("module", [EX04, EX07], ids=["ex04", "ex07"])
@pytest.mark.parametrize("tree", EXAMPLE_TREES)
def test_the_oracle_matches_the_curriculum_and_the_picture_fits_80_columns(module, tree):
    facts = _oracle_facts(module, tree, True)
    known = {str([[3, 5, 2], [9, 1, 0], [7, 4, 8]]): (4, 8), str([[7, 4, 8], [9, 1, 0], [3, 5, 2]]): (4, 6),
             str([[3, 5], [3, 1]]): (3, 3), str([3, [5, [1, 8]], [[2, 9], 0]]): (5, 7),
             str(EXAMPLE_TREES[-1]): (3, 7)}
    if str(tree) in known:
        assert (facts.values[()], len(facts.order)) == known[str(tree)]
    picture = module.render(facts, None, ["a note " * 30])
    assert all(len(line) <= SHARED.WIDTH for line in picture.splitlines())
    pruned_lines = [line for line in picture.splitlines() if line.endswith(" pruned")]
    assert len(pruned_lines) == len(facts.leaves) - len(facts.order)


TABLE_ENTRIES = [pytest.param(module, key, id=f"{name[:4]} {key[0]} {'MAX' if key[1] else 'MIN'}")
                 for name, module in PICTURE_MODULES.items() for key in module.SEARCHES]


@pytest.mark.parametrize("module, key", TABLE_ENTRIES)
def test_every_table_entry_is_what_alpha_beta_does(module, key):
    """The shipped modules look alpha-beta up rather than search; the table must say what a search says."""
    text, maximizing = key
    tree = ast.literal_eval(text)
    assert repr(tree) == text
    _assert_same_facts(module.alpha_beta_facts(tree, maximizing), _oracle_facts(module, tree, maximizing))


@pytest.mark.parametrize("key", list(EX07.MINIMAX_VALUES), ids=lambda key: key[0])
def test_every_minimax_table_entry_is_the_minimax_value(key):
    text, maximizing = key
    tree = ast.literal_eval(text)
    assert repr(tree) == text and maximizing is True  # order_best_first's root always maximises
    assert _typed(EX07.minimax_values(tree)) == _typed(_oracle_minimax(tree))


def test_a_tree_equal_to_a_table_tree_is_drawn_with_its_own_leaves():
    """order_best_first may return 4.0 or True where the checks' tree has 4 or 1, and still pass `==`."""
    tree = [[4.0, 7, 8], [2, 3, 5], [False, True, 9.0]]
    _assert_same_facts(EX07.alpha_beta_facts(tree), _oracle_facts(EX07, tree, True))
    tree = [[3, 5, 2.0], [9, True, False], [7, 4, 8]]
    assert _typed(EX07.minimax_values(tree)) == _typed(_oracle_minimax(tree))
    assert "MIN = 2.0   children best first: 2.0, 3, 5" in EX07.order_picture(tree)


@pytest.mark.parametrize("module", [EX04, EX07], ids=["ex04", "ex07"])
def test_a_tree_missing_from_the_table_is_a_kit_fault_not_a_search(module):
    with pytest.raises(KitError, match=r"no entry for \[\[1, 2\], \[3\]\] with a MAX root"):
        module.alpha_beta_facts([[1, 2], [3]])
    with pytest.raises(KitError, match="with a MIN root"):
        module.alpha_beta_facts([[7, 4, 8], [9, 1, 0], [3, 5, 2]], False)


class _Untraceable:
    """A student whose search cannot be traced: enough for a picture to look its tree up."""

    def traced(self, name, *args, **kwargs):
        raise TracingUnavailable("this test traces nothing")


class _ReadLog(Mapping):
    """A read-only view of a table that remembers which keys were read."""

    def __init__(self, table):
        self.table = table
        self.read = set()

    def __getitem__(self, key):
        value = self.table[key]
        self.read.add(key)
        return value

    def __iter__(self):
        return iter(self.table)

    def __len__(self):
        return len(self.table)


def _literal(node, line: int):
    """The value of a literal in the public checks, or a failure saying the picture's input is not fixed."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pytest.fail(f"test_public.py line {line}: a picture must draw a literal tree (or one an earlier "
                    f"`assert name == literal` pins down), not {ast.unparse(node)}")


def _argument(node, call, function, checks):
    """What the argument `node` of the picture `call` inside `function` holds when the call runs."""
    if not isinstance(node, ast.Name):
        return _literal(node, call.lineno)
    # The name's value is fixed by the last statement before the call that binds it to a literal or
    # asserts it equal to one; a student's result reaches a picture only after such an assert.
    fixes = []
    for statement in ast.walk(function):
        if isinstance(statement, ast.Assign) and any(getattr(target, "id", None) == node.id
                                                     for target in statement.targets):
            fixes.append((statement.lineno, statement.value))
        elif (isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare)
              and getattr(statement.test.left, "id", None) == node.id
              and [type(op) for op in statement.test.ops] == [ast.Eq]):
            fixes.append((statement.lineno, statement.test.comparators[0]))
    fixes = [fix for fix in fixes if fix[0] < call.lineno]
    if fixes:
        return _literal(max(fixes, key=lambda fix: fix[0])[1], call.lineno)
    constants = {target.id: statement.value for statement in checks.body if isinstance(statement, ast.Assign)
                 for target in statement.targets if isinstance(target, ast.Name)}
    return _literal(constants[node.id], call.lineno)


@pytest.mark.parametrize("exercise", sorted(PICTURE_MODULES))
def test_the_tables_hold_exactly_the_trees_the_public_checks_draw(exercise, monkeypatch):
    """Every picture call in test_public.py is drawn from the table, and every table entry is drawn."""
    module = PICTURE_MODULES[exercise]
    checks = ast.parse((REPO / "exercises" / exercise / "checks" / "test_public.py").read_text(encoding="utf-8"))
    pictures = {alias.name for statement in checks.body
                if isinstance(statement, ast.ImportFrom) and statement.module == "tree_picture"
                for alias in statement.names}
    logs = {name: _ReadLog(getattr(module, name)) for name in ("SEARCHES", "MINIMAX_VALUES")
            if hasattr(module, name)}
    for name, log in logs.items():
        monkeypatch.setattr(module, name, log)
    drawn = 0
    for function in (statement for statement in checks.body if isinstance(statement, ast.FunctionDef)):
        for call in ast.walk(function):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) in pictures):
                continue
            if call.func.id == "smallest_wrong_picture":  # draws from small_trees.py: test_small_cases.py
                continue
            picture = getattr(module, call.func.id)
            bound = inspect.signature(picture).bind(*call.args, **{word.arg: word.value for word in call.keywords})
            arguments = {name: _Untraceable() if name == "student" else _argument(node, call, function, checks)
                         for name, node in bound.arguments.items()}
            assert all(len(line) <= SHARED.WIDTH for line in picture(**arguments).splitlines())
            drawn += 1
    assert drawn >= 4, "the public checks should draw the README's trees"
    for name, log in logs.items():
        assert log.read == set(log.table), f"{name} holds trees no public check draws"


def _read(path, function="search", line=1, how="loop", container=0, index=0):
    return TraceRead(path, function, line, how, container, index)


def test_the_search_is_the_code_that_stops_partway_through_a_list():
    facts = EX04.alpha_beta_facts([[3, 5, 2], [9, 1, 0], [7, 4, 8]])
    everything = [(0,), (0, 0), (0, 1), (0, 2), (1,), (1, 0), (1, 1), (1, 2), (2,), (2, 0), (2, 1), (2, 2)]
    containers = {(): 0, (0,): 1, (1,): 2, (2,): 3}
    check = [_read(path, "check", 1, "loop", containers[path[:-1]], path[-1]) for path in everything]
    search = [_read(path, "search", 9, "loop", containers[path[:-1]], path[-1]) for path in everything
              if path != (1, 2)]
    count = [_read((1, 2), "count", 20, "loop", 4, 0)]
    sizes = (3, 3, 3, 3, 1)
    yours = EX04.your_leaves(check + search + count, sizes, facts, 8, 1)
    assert yours.ordered and yours.leaves == facts.order
    assert EX04.divergence(facts, yours).startswith("Your search looked at exactly the leaves")
    with pytest.raises(TracingUnavailable, match="do not add up"):
        EX04.your_leaves(check + search + count, sizes, facts, 9, 0)
    # No code stopped early: every leaf was looked at, and the first pruned one is named.
    no_cut = EX04.your_leaves(check + [_read(r.path, "search", 9, "loop", r.container, r.index) for r in check],
                              (3, 3, 3, 3), facts, 9, 0)
    assert no_cut.leaves == list(facts.leaves)
    assert "leaf 0 (tree[1][2])" in EX04.divergence(facts, no_cut)
    assert "alpha = 2 >= beta = 1 once leaf 1 (tree[1][1]) is seen" in EX04.divergence(facts, no_cut)


def _grade_solution(repo_kit, exercise_id: str, path: Path) -> dict:
    report = grade(repo_kit, repo_kit.resolve(exercise_id), Submission(path, path.name), seed=20261129)
    return {test["name"]: test for test in report["tests"]}


def test_ex04_pictures_for_wrong_solutions(repo_kit, tmp_path):
    no_cutoff = _grade_solution(repo_kit, "ex04", mutant_file(repo_kit, "ex04", "no_cutoff", tmp_path))
    worked = no_cutoff["worked example [[3,5,2],[9,1,0],[7,4,8]], and in a mirror"]["message"]
    assert "+-- MIN <= 1   cutoff: alpha 2 >= beta 1" in worked
    assert "|   `-- 0      pruned          yes  <--" in worked
    assert "leaf 0 (tree[1][2]); alpha-beta skips it, because at the second MIN\nnode (tree[1])" in worked
    counting = _grade_solution(repo_kit, "ex04", mutant_file(repo_kit, "ex04", "counts_internal_nodes", tmp_path))
    message = counting["a tie is enough for a cutoff: [[3,5],[3,1]], and in a mirror"]["message"]
    assert "Your search looked at exactly the leaves alpha-beta looks at, in the\nsame order." in message
    assert "You reported nodes_visited = 6, but your search looked at 3 leaves" in message
    for report in (no_cutoff, counting):
        for test in report.values():
            if test["visibility"] == "hidden":
                assert "Alpha-beta on this tree" not in (test["message"] or "")
    reference = _grade_solution(repo_kit, "ex04", REPO / "solutions" / "ex04_alpha_beta" / "alpha_beta.py")
    assert all(test["outcome"] == "passed" for test in reference.values())


def test_ex07_pictures_for_wrong_solutions(repo_kit, tmp_path):
    visited = _grade_solution(repo_kit, "ex07", mutant_file(repo_kit, "ex07", "fraction_of_visited", tmp_path))
    message = visited["fix pruned_fraction: the worked example skips 1 leaf of 9"]["message"]
    assert "pruned_fraction returned 8/9, the share of leaves your search looked at" in message
    order = _grade_solution(repo_kit, "ex07", mutant_file(repo_kit, "ex07", "sorts_only_root", tmp_path))
    message = order["order_best_first on the worked example, then pruned_fraction on the result"]["message"]
    assert "MAX = 4   children best first: 4, 2, 0" in message
