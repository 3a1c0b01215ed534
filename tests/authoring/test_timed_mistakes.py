"""A known mistake of time alone answers as the reference may: grade check does not ask its answers to differ."""

from __future__ import annotations

from grader.authoring.soundness import _alike_problems
from grader.grading.replay import Answer, RecordedCall
from grader.known_mistakes import KnownMistake


def test_a_mistake_of_time_alone_may_answer_as_the_reference_does(toy_kit):
    exercise = toy_kit.resolve("ex01")
    reference = (exercise.solution_dir(toy_kit.root) / exercise.module).read_text()
    # Its replay ended within the call's limit, as a slow mistake's may on a fast moment: the same answers.
    calls = {"checks/test_public.py::test_add_small_numbers":
             [RecordedCall("add", (2, 3), {}, False, Answer("returned", 5), 1.0)]}
    mistakes = [KnownMistake("slow_add", "adds slowly", reference, "mutant")]
    assert _alike_problems(toy_kit, exercise, mistakes, calls, timed={"slow_add"}) == []
    # Without a deadline reason the same answers are a check too blunt to name it.
    problems = _alike_problems(toy_kit, exercise, mistakes, calls, timed=set())
    assert problems == ["ex01: known mistake 'slow_add' answers every check's call as the reference does, so no "
                        "diagnosis can name it: sharpen a check"]
