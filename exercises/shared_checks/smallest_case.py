"""The smallest input a student's function gets wrong, from an exercise's table of small cases.

A check helper for the public checks of the exercises that search trees (ex03, ex04, ex07):
`grade export` copies it beside each one's public checks. The table (each exercise's
small_trees.py) lists small inputs in a fixed order of size with the reference's answers, so
nothing here computes an answer; it asks the student's code, through `student.probing()` (a
throwaway worker under a budget, after the check has failed), until an answer differs.
"""

from __future__ import annotations

import math
import textwrap

from grader.checks import Answer, ProbeOver


def small_cases():
    """The exercise's table (its small_trees.py, beside its checks), read only once a check has failed: a
    grade that passes never pays for parsing it."""
    from small_trees import CASES

    return CASES


def first_wrong(student, asks):
    """The first of `asks`, (case, function, args, expected, same), whose answer `same` rejects, with the answer.

    Returns (case, function, args, expected, answer); None when every answer is right, and
    "budget" when the probes' budget ran out first.
    """
    with student.probing() as ask:
        for case, function, args, expected, same in asks:
            try:
                answer = ask(function, *args)
            except ProbeOver:
                return "budget"
            if answer.kind != "returned" or not same(answer.value, expected):
                return case, function, args, expected, answer
    return None


def largest_tree(cases) -> int:
    """The most leaves of any tree in a table."""
    def leaves(tree):
        return sum(map(leaves, tree)) if isinstance(tree, list) else 1

    return max(leaves(case["tree"]) for case in cases)


def smallest_wrong(student, asks, functions: str, draw) -> str | None:
    """The words on the first of `asks` the student's code gets wrong and its picture, `draw(case, function,
    args)`; or why there is none to show (None when the probes' budget ran out first)."""
    found = first_wrong(student, asks)
    words = headline(found, functions, largest_tree(small_cases()))
    if not isinstance(found, tuple):
        return words or None
    case, function, args, _, _ = found
    return "\n".join([words, "", draw(case, function, args)])


def pictures_first(feedback, smallest) -> list:
    """A failed public check's explanation: the pictures of its own trees that the student's code got
    wrong, then `smallest()`, the smallest tree of the table it gets wrong.

    The check adds each picture to the returned list as a function (`pictures.append(lambda:
    fraction_picture(student, tree))`) where it finds the wrong answer. They are drawn only once
    the last check has ended (feedback.on_failure): a traced picture runs the student's code in a
    throwaway worker, which would keep the table of checks waiting. The message reads as if each
    picture had been added at once (feedback.add): the pictures, then the smallest tree.
    """
    pictures: list = []

    def explain():
        return "\n\n".join(text for text in (*(draw() for draw in pictures), smallest()) if text) or None

    feedback.on_failure(explain)
    return pictures


def equal(value, expected) -> bool:
    """The public checks' own test: ==, but a bool is no number."""
    return value == expected and (type(value) is bool) == (type(expected) is bool)


def close(value, expected) -> bool:
    """A float answer within pytest.approx's default tolerance."""
    return (type(value) in (int, float) and type(expected) in (int, float)
            and math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-12))


def answer_words(answer: Answer) -> str:
    """What the student's code did, in words: "it returned 3", "it raised ValueError"."""
    if answer.kind == "returned":
        return f"it returned {answer.value!r}"
    if answer.kind == "raised":
        return f"it raised {answer.value}"
    if answer.value == "no_answer":
        return "it did not answer (it ran out of time or memory, or crashed)"
    return f"it gave no plain answer ({answer.value})"


def call_words(function: str, args: tuple) -> str:
    """The call as code: "minimax([[2, 2], [2, -1]], False)"."""
    return f"{function}({', '.join(map(repr, args))})"


def headline(found, functions: str, largest: int) -> str:
    """The sentence above the picture: the smallest failing call, or why there is none to show."""
    from alpha_beta_picture import WIDTH  # as wide as the picture below it; loaded only by a failed check

    if found == "budget":
        return ""
    if found is None:
        verb = "answer" if " and " in functions else "answers"
        return textwrap.fill(f"Your {functions} {verb} every tree of up to {largest} leaves right; the mistake "
                             "shows only on bigger trees, such as this check's.", WIDTH)
    _, called, args, expected, answer = found
    return textwrap.fill(f"The smallest tree your {called} gets wrong: {call_words(called, args)} should return "
                         f"{expected!r}, but {answer_words(answer)}.", WIDTH)
