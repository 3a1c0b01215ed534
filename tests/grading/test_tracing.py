"""Tracing a call (`student.traced`): what the student's code read from a tree, in a worker of its own, and pictures that never change a score."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from grader.catalog import Kit
from grader.grading.proxy import StudentProxy
from grader.grading.tracing import TracingUnavailable
from grader.grading.runner import grade
from grader.submission import Submission
from grader.sandbox.service import Sandbox, SandboxSettings

STUDENT = '''
def first_leaves(tree, k):
    """The first k leaves, left to right, reading no further than needed."""
    seen = []

    def walk(node):
        for child in node:
            if len(seen) == k:
                return
            if isinstance(child, list):
                walk(child)
            else:
                seen.append(child)

    walk(tree)
    return seen


def by_index(tree):
    return [tree[i] for i in range(len(tree) - 1, -1, -1)]


def tail_sum(tree):
    return sum(tree[1:])


def copied(tree):
    return sorted(tree)


def middle(tree):
    return tree[1]


def leaves_typed(tree):
    def count(node):
        return sum(count(child) for child in node) if type(node) is list else 1
    return count(tree)


def leaves_checked(tree):
    def count(node):
        if type(node) is list:
            return sum(count(child) for child in node)
        if type(node) is not int:
            raise ValueError("a leaf must be an int")
        return 1
    return count(tree)


def sorted_copy(tree):
    children = tree[:]
    children.sort(key=lambda child: -child)
    return children[1:] + [tree[0]]


def grows(tree):
    tree.append(0)
    return len(tree)


CALLS = []


def calls(tree):
    CALLS.append(1)
    return len(CALLS)
'''


def make_proxy(tmp_path: Path, source: str = STUDENT) -> tuple[StudentProxy, Sandbox, list]:
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "mod.py").write_text(textwrap.dedent(source), encoding="utf-8")
    sandbox = Sandbox(SandboxSettings(module="mod.py", functions=(), source_dir=folder, memory_mb=256,
                                      cpu_seconds=60, hash_seed=1, import_timeout=5.0))
    outputs: list = []
    return StudentProxy(sandbox, 5.0, outputs, []), sandbox, outputs


@pytest.fixture
def proxy(tmp_path):
    student, sandbox, _ = make_proxy(tmp_path)
    yield student
    sandbox.close()


TREE = [[1, 2], [3, [4, 5]], 6]


def leaf_paths(trace) -> list:
    return [read.path for read in trace.reads if read.path in {(0, 0), (0, 1), (1, 0), (1, 1, 0), (1, 1, 1), (2,)}]


def test_a_trace_lists_the_leaves_read_in_order_with_the_function_that_read_them(proxy):
    trace = proxy.traced("first_leaves", TREE, 3)
    assert trace.value == [1, 2, 3]
    # Each loop in walk fetches one more child before it sees that it has enough: fetching is
    # not evaluating, which is why the pictures check what the trace says against the counts.
    assert [read.path for read in trace.reads] == [(0,), (0, 0), (0, 1), (1,), (1, 0), (1, 1), (2,)]
    assert leaf_paths(trace) == [(0, 0), (0, 1), (1, 0), (2,)]
    assert {(read.function, read.how) for read in trace.reads} == {("walk", "loop")}
    assert trace.sizes[trace.reads[0].container] == 3


def test_indexing_slices_and_copies_are_told_apart(proxy):
    by_index = proxy.traced("by_index", TREE)
    assert [(read.path, read.how) for read in by_index.reads] == [((2,), "index"), ((1,), "index"), ((0,), "index")]
    tail = proxy.traced("tail_sum", [1, 2, 3])
    # A slice is a view: its reads still name the tree's elements, from a list of its own length.
    assert [read.path for read in tail.reads] == [(1,), (2,)] and tail.value == 5
    assert {tail.sizes[read.container] for read in tail.reads} == {2}
    assert {read.how for read in proxy.traced("copied", [3, 1, 2]).reads} == {"bulk"}


def test_a_traced_call_returns_plain_values_even_when_it_hands_back_part_of_the_tree(proxy):
    trace = proxy.traced("middle", TREE)
    assert trace.value == [3, [4, 5]] and type(trace.value) is list and type(trace.value[1]) is list


@pytest.mark.parametrize("name, words", [
    ("leaves_typed", "gave a different answer when the lists it was given were traced"),
    ("leaves_checked", "raised ValueError when the lists it was given were traced"),
])
def test_code_that_tests_type_is_list_gets_tracing_not_available(proxy, name, words):
    assert getattr(proxy, name)(TREE) == 6
    with pytest.raises(TracingUnavailable) as caught:
        proxy.traced(name, TREE)
    assert words in str(caught.value) and "type(x) is list rather than isinstance(x, list)" in str(caught.value)


def test_a_sorted_slice_is_a_copy_that_is_no_longer_traced(proxy):
    trace = proxy.traced("sorted_copy", [1, 3, 2])
    assert trace.value == [2, 1, 1]
    assert [(read.path, read.how) for read in trace.reads] == [((0,), "index")]


def test_code_that_changes_the_tree_gets_tracing_not_available(proxy):
    with pytest.raises(TracingUnavailable, match="changed the lists it was given"):
        proxy.traced("grows", [1, 2])


def test_tracing_runs_in_a_worker_of_its_own_and_leaves_the_checks_worker_alone(tmp_path):
    student, sandbox, outputs = make_proxy(tmp_path)
    try:
        assert student.calls([1]) == 1
        # The throwaway worker answers 1, then 2: a stateful answer is not traced...
        with pytest.raises(TracingUnavailable, match="different answer"):
            student.traced("calls", [1])
        # ...and the checks' worker never saw those calls, nor their output.
        assert student.calls([1]) == 2
        assert len(outputs) == 2
    finally:
        sandbox.close()
    if sandbox.drop_privileges:  # the throwaway workers' uids are swept at the end of the run too:
        assert len(sandbox.uids_used) == 3  # the checks', the throwaway's, and the next one's, started ahead


def test_a_failed_traced_call_is_tracing_not_available(tmp_path):
    student, sandbox, _ = make_proxy(tmp_path, "def loop(tree):\n    while True:\n        pass\n")
    student._timeout = 0.5
    try:
        with pytest.raises(TracingUnavailable, match="the traced call failed: loop did not return within 0.5 s"):
            student.traced("loop", [1])
    finally:
        sandbox.close()


# ---------------------------------------------------------------------------------------------
# The `feedback` fixture: public checks only, and never a change of score.

FEEDBACK_CHECKS = '''

def test_public_with_picture(student, feedback):
    """public with a picture"""
    got = student.add(0, 0)
    if got != 0:
        try:
            trace = student.traced("add", 0, 0)
            feedback.add(f"PICTURE-PUBLIC reads={len(trace.reads)}")
        except TracingUnavailable as exc:
            feedback.add(f"PICTURE-PUBLIC unavailable: {exc}")
    assert got == 0


def test_public_passing(student, feedback):
    """public passing"""
    feedback.add("PICTURE-PASSED")
    assert student.pair(1) == (1, 1)
'''

HIDDEN_FEEDBACK_CHECKS = '''

def test_hidden_with_picture(student, feedback):
    """hidden with a picture"""
    got = student.add(10, 20)
    if got != 30:
        feedback.add(f"PICTURE-HIDDEN {got}")
        try:
            feedback.add(f"PICTURE-HIDDEN {student.traced('add', 10, 20)}")
        except TracingUnavailable as exc:
            feedback.add(f"PICTURE-HIDDEN {exc}")
    assert got == 30
'''

# The same checks without pictures or tracing.
PLAIN_CHECKS = '''

def test_public_with_picture(student):
    """public with a picture"""
    assert student.add(0, 0) == 0


def test_public_passing(student):
    """public passing"""
    assert student.pair(1) == (1, 1)
'''

PLAIN_HIDDEN_CHECKS = '''

def test_hidden_with_picture(student):
    """hidden with a picture"""
    assert student.add(10, 20) == 30
'''

# add is right on its first and third calls only, so one extra call in the checks' worker would
# change which later checks pass.
STATEFUL = '''
CALLS = []

def add(a, b):
    CALLS.append(1)
    return a + b if len(CALLS) in (1, 4) or (a, b) == (-4, 1) else a + b + 1

def pair(x):
    return (x, x)

def tag(n):
    if n < 0:
        raise ValueError("negative")
    return {"n": n}

def push(items, item):
    items.append(item)
    return len(items)
'''


def _grade_toy(kit: Kit, with_pictures: bool, validate) -> dict:
    checks = kit.root / "exercises" / "ex01_toy" / "checks"
    public, hidden = checks / "test_public.py", checks / "test_hidden.py"
    if with_pictures:
        public.write_text("from grader.grading.tracing import TracingUnavailable\n" + public.read_text() + FEEDBACK_CHECKS)
        hidden.write_text("from grader.grading.tracing import TracingUnavailable\n" + hidden.read_text()
                          + HIDDEN_FEEDBACK_CHECKS)
    else:
        public.write_text(public.read_text() + PLAIN_CHECKS)
        hidden.write_text(hidden.read_text() + PLAIN_HIDDEN_CHECKS)
    submitted = kit.root / "submitted.py"
    submitted.write_text(STATEFUL)
    return validate(grade(kit, kit.resolve("ex01"), Submission(submitted, "submitted.py"), seed=5))


def test_pictures_show_only_on_failed_public_checks_and_never_change_a_score(toy_kit, tmp_path, validate_report):
    plain_kit = Kit(tmp_path / "plain")
    shutil.copytree(toy_kit.root, plain_kit.root)
    with_pictures = _grade_toy(toy_kit, True, validate_report)
    without = _grade_toy(plain_kit, False, validate_report)

    def outcomes(report):
        return [(test["id"], test["outcome"], test["score"]) for test in report["tests"]]

    assert outcomes(with_pictures) == outcomes(without)
    assert with_pictures["score"] == without["score"]
    tests = {test["name"]: test for test in with_pictures["tests"]}
    public = tests["public with a picture"]
    assert public["outcome"] == "failed"
    assert public["message"].startswith("AssertionError: assert 1 == 0")
    # In its own worker, the stateful add answers differently when traced than when called again.
    assert public["message"].endswith("\n\nPICTURE-PUBLIC unavailable: your code gave a different answer when "
                                      "the lists it was given were traced; this happens, for example, when code "
                                      "tests type(x) is list rather than isinstance(x, list)")
    assert tests["public passing"]["message"] is None
    hidden = tests["hidden with a picture"]
    assert hidden["outcome"] == "failed" and hidden["message"] == "this hidden check failed"
    assert not any("PICTURE" in (test["message"] or "") for test in with_pictures["tests"]
                   if test["visibility"] == "hidden")
    # The stateful add shows that the checks' worker made exactly the calls the checks made.
    assert tests["add of random integers #1"]["outcome"] == "passed"
    assert tests["add of random integers #2"]["outcome"] == "failed"
