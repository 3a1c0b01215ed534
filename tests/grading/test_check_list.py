"""The check list and its wording, as pure functions over plain descriptions of pytest's items (no pytest run)."""

from __future__ import annotations

import pytest

from grader.grading.check_list import (
    BadMarker,
    CheckItem,
    Marker,
    call_timeout,
    check_name,
    describe,
    resolve_requirements,
)
from grader.grading.wording import check_message, explanation, raised_words


def item(nodeid: str, *, doc=None, case=None, **markers) -> CheckItem:
    """A check item; each marker given as its tuple of arguments."""
    function = nodeid.split("::")[1].split("[")[0]
    return CheckItem(nodeid=nodeid, function=function, doc=doc, case=case,
                     markers={name: Marker(tuple(args), {}) for name, args in markers.items()}, source="def f(): ...")


def test_a_check_is_named_by_its_docstring_first_line():
    assert check_name("test_anything", "the worked example\n\n        More words.") == "the worked example"


def test_without_a_docstring_the_function_name_becomes_words():
    assert check_name("test_random_trees_with_ties", None) == "random trees with ties"


def test_hidden_cases_are_only_numbered_and_public_ones_keep_their_ids():
    items = [item("checks/test_hidden.py::test_random[secret-input]", case="secret-input"),
             item("checks/test_hidden.py::test_random[other]", case="other"),
             item("checks/test_public.py::test_example[small]", case="small", points=(2,), hint=("look",))]
    hidden, second, public = describe(items, "test_public.py", 10.0, lambda text: text)
    assert (hidden.id, hidden.name, hidden.code) == ("checks/test_hidden.py::test_random[1]", "random #1", None)
    assert second.id.endswith("[2]") and "secret" not in hidden.name + second.name
    assert (public.id, public.name, public.points, public.hint, public.code) == (
        "checks/test_public.py::test_example[small]", "example [small]", 2.0, "look", "def f(): ...")
    assert hidden.family == public.family.replace("example", "random") == "random"


@pytest.mark.parametrize("markers", [{"points": (0,)}, {"points": (1, 2)}, {"hint": ("  ",)}, {"timeout": ("10",)}])
def test_a_bad_marker_is_one_line_naming_the_check(markers):
    with pytest.raises(BadMarker, match=r"^checks/test_hidden.py::test_x: @pytest.mark.\w+ needs one valid argument"):
        describe([item("checks/test_hidden.py::test_x", **markers)], "test_public.py", 10.0, str)


def test_requires_waits_on_every_case_of_the_functions_it_names():
    items = [item("checks/test_hidden.py::test_random[a]", case="a"), item("checks/test_hidden.py::test_random[b]", case="b"),
             item("checks/test_hidden.py::test_shape", requires=("test_random",))]
    checks, errors = resolve_requirements(items, describe(items, "test_public.py", 10.0, str))
    assert errors == [] and checks[2].requires == ("checks/test_hidden.py::test_random[a]",
                                                    "checks/test_hidden.py::test_random[b]")
    assert checks[0].requires == checks[1].requires == ()


@pytest.mark.parametrize("requires, words", [
    (("test_nothing",), "names no other check of this exercise"),
    (("test_shape",), "names no other check of this exercise"),
    (("test_gated",), "names a check that waits on another itself"),
    ((), "needs the names of test functions"),
])
def test_a_bad_requirement_is_a_fault_of_the_kit(requires, words):
    items = [item("checks/test_hidden.py::test_plain"), item("checks/test_hidden.py::test_gated", requires=("test_plain",)),
             item("checks/test_hidden.py::test_shape", requires=requires)]
    _, errors = resolve_requirements(items, describe(items, "test_public.py", 10.0, str))
    assert len(errors) == 1 and errors[0].startswith("checks/test_hidden.py::test_shape: @pytest.mark.requires")
    assert words in errors[0]


def test_a_hidden_message_keeps_only_its_words_and_hint():
    assert check_message(None, public=False, hint=None, notes=["a picture"]) == "this hidden check failed"
    assert check_message("took too long", public=False, hint="memoise", notes=["a picture"]) == \
        "took too long\nHint: memoise"


def test_a_public_message_puts_the_hint_by_the_failure_and_the_notes_last():
    assert check_message("assert 1 == 2", public=True, hint="look", notes=["pic"]) == "assert 1 == 2\nHint: look\n\npic"
    assert check_message(None, public=True, hint=None, notes=["pic"]) == "this check failed\n\npic"
    assert check_message("assert 1 == 2", public=True, hint=None, notes=[]) == "assert 1 == 2"


def test_pytests_advice_to_rerun_with_v_is_left_out():
    text = "AssertionError: assert [1] == [2]\n  Use -v to get more diff\n  At index 0 diff: 1 != 2"
    assert explanation(text) == "AssertionError: assert [1] == [2]\n  At index 0 diff: 1 != 2"


def test_a_checks_own_call_timeout_is_read_and_a_bad_one_is_a_fault_of_the_kit():
    assert call_timeout(item("checks/test_hidden.py::test_x", call_timeout=(2.5,))) == 2.5
    assert call_timeout(item("checks/test_hidden.py::test_x")) is None
    with pytest.raises(BadMarker, match="@pytest.mark.call_timeout needs one valid argument"):
        call_timeout(item("checks/test_hidden.py::test_x", call_timeout=(-1,)))


def test_an_explanation_names_the_students_function_once():
    pytest_words = ("AssertionError: assert 9 == 5\n"
                    " +  where 9 = student.minimax([3, [5, [1, 8]]])\n"
                    " +    where student.minimax = student.minimax\n"
                    "  Use -v to get more diff")
    assert explanation(pytest_words) == ("AssertionError: assert 9 == 5\n"
                                         " +  where 9 = student.minimax([3, [5, [1, 8]]])")


@pytest.mark.parametrize("pytest_words, words", [
    ("DID NOT RAISE <class 'ValueError'>", "DID NOT RAISE ValueError"),  # pytest 9
    ("DID NOT RAISE ValueError", "DID NOT RAISE ValueError"),  # pytest 8
    ("DID NOT RAISE any of (<class 'ValueError'>, <class 'TypeError'>)", "DID NOT RAISE any of (ValueError, TypeError)"),
    ("assert <class 'int'> == 3", "assert <class 'int'> == 3"),  # only what pytest.raises says is reworded
])
def test_an_expected_exception_is_named_as_the_student_writes_it_whatever_pytest_says(pytest_words, words):
    assert raised_words(pytest_words) == explanation(pytest_words) == words
