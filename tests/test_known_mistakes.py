"""Known mistakes as named edits of the reference: mutants.toml read, checked, applied and graded."""

from __future__ import annotations

import json

import pytest

from grader.catalog import KitError
from grader.known_mistakes import apply_mutant, find_mutant, known_mistakes, load_mutants, mutants_path
from tests.conftest import mutant_file, run_grade

GOOD = '''format_version = 1

[[mutant]]
name = "add_off_by_one"
why = "add forgets nothing but adds one"
caught_by = ["test_add_small_numbers"]
edits = [{find = "return a + b", replace = "return a + b + 1"}]

[[mutant]]
name = "pair_of_three"
why = "pair returns three copies"
edits = [{find = "return (x, x)", replace = "return (x, x, x)"}]
'''


def _write(toy_kit, text: str):
    exercise = toy_kit.resolve("ex01")
    mutants_path(exercise, toy_kit.root).write_text(text)
    return exercise


def test_mutants_load_in_file_order_and_apply_to_the_reference(toy_kit):
    exercise = _write(toy_kit, GOOD)
    mutants = load_mutants(exercise, toy_kit.root)
    assert [mutant.name for mutant in mutants] == ["add_off_by_one", "pair_of_three"]
    assert mutants[0].caught_by == ("test_add_small_numbers",) and mutants[1].caught_by == ()
    assert "return a + b + 1" in apply_mutant(exercise, toy_kit.root, mutants[0])


@pytest.mark.parametrize("text, words", [
    ("format_version = 2\n", "field 'format_version' must be 1, got 2"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\n", "mutant 'x': missing field 'edits'"),
    ("format_version = 1\n[[mutant]]\nname = 'Bad Name'\nwhy = 'y'\nedits = [{find = 'a', replace = 'b'}]\n",
     "mutant 'Bad Name': field 'name' must be lowercase letters"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = ''\nedits = [{find = 'a', replace = 'b'}]\n",
     "mutant 'x': field 'why' must be a non-empty string"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\nedits = [{find = 'a'}]\n",
     "mutant 'x': edit #1 must have exactly the fields 'find' and 'replace'"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\nedits = [{find = 'a', replace = 'b'}]\ncaught_by = [3]\n",
     "mutant 'x': field 'caught_by' must be a list of test function names"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\nedits = [{find = 'a', replace = 'b'}]\nhow = 1\n",
     "mutant 'x': unknown field 'how'"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\nedits = [{find = 'a', replace = 'b'}]\n"
     "[[mutant]]\nname = 'x'\nwhy = 'z'\nedits = [{find = 'c', replace = 'd'}]\n", "mutant 'x': the name is used twice"),
    ("format_version = 1\n[[mutant\n", "not valid TOML"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\nedits = [{find = 'a', replace = 'b'}]\n"
     "deadline = 'only slower'\n", "mutant 'x': field 'deadline' needs 'caught_by'"),
    ("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\nedits = [{find = 'a', replace = 'b'}]\n"
     "caught_by = ['test_a']\ndeadline = 3\n", "mutant 'x': field 'deadline' must be one line"),
    *[("format_version = 1\n[[mutant]]\nname = 'x'\nwhy = 'y'\nedits = [{find = 'a', replace = 'b'}]\n"
       f"max_cost = {bad}\n", f"mutant 'x': field 'max_cost' must be a positive number, the most points the "
       f"mistake may cost, got {shown}")
      for bad, shown in [("0", "0"), ("-1", "-1"), ("'2'", "'2'"), ("true", "True"), ("inf", "inf"), ("nan", "nan"),
                         ("[2]", "[2]")]],
])
def test_a_malformed_mutants_file_names_the_file_the_mutant_and_the_field(toy_kit, text, words):
    exercise = _write(toy_kit, text)
    with pytest.raises(KitError) as caught:
        load_mutants(exercise, toy_kit.root)
    assert str(caught.value).startswith(str(mutants_path(exercise, toy_kit.root)) + ": ")
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_a_stale_find_and_an_edit_that_does_not_compile_are_one_line_each_in_grade_check(toy_kit):
    _write(toy_kit, GOOD + '''
[[mutant]]
name = "stale"
why = "the reference no longer says this"
edits = [{find = "return a - b", replace = "return a"}]

[[mutant]]
name = "broken"
why = "an edit that breaks the syntax"
edits = [{find = "return (x, x)", replace = "return (x, x"}]
''')
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1, result.stdout
    assert ("ex01 mutant 'stale': find 'return a - b' occurs 0 times in toy.py; it must occur exactly once"
            in " ".join(result.stdout.split()))
    exercise = toy_kit.resolve("ex01")
    with pytest.raises(KitError, match=r"ex01 mutant 'broken': the edited toy.py does not compile: line \d+: "):
        apply_mutant(exercise, toy_kit.root, find_mutant(exercise, toy_kit.root, "broken"))


def test_grade_check_proves_each_mutant_and_its_caught_by_checks(toy_kit):
    _write(toy_kit, GOOD)
    passed = run_grade("check", "ex01", "--seeds", "1,2", cwd=toy_kit.root)
    assert passed.returncode == 0, passed.stdout
    assert "1 wrong and 2 mutants x 2 seeds" in passed.stdout
    # A mutant its caught_by checks do not catch, and one that keeps full marks: both are problems.
    _write(toy_kit, GOOD.replace('caught_by = ["test_add_small_numbers"]', 'caught_by = ["test_pair_is_a_tuple"]')
           + '\n[[mutant]]\nname = "harmless"\nwhy = "a comment"\nedits = [{find = "return a + b", '
             'replace = "return a + b  # still right"}]\n')
    failed = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    text = " ".join(failed.stdout.split())
    assert failed.returncode == 1
    assert "ex01 mutant 'add_off_by_one' (seed 1): test_pair_is_a_tuple, in its caught_by, did not fail" in text
    assert "ex01 mutant 'harmless' (seed 1) got full marks: a check is missing (a comment)" in text


def test_max_cost_is_read_as_a_number_of_points(toy_kit):
    exercise = _write(toy_kit, GOOD.replace('caught_by = ["test_add_small_numbers"]',
                                            'caught_by = ["test_add_small_numbers"]\nmax_cost = 4'))
    mutants = load_mutants(exercise, toy_kit.root)
    assert mutants[0].max_cost == 4.0 and mutants[1].max_cost is None


# add_off_by_one fails add's two checks: test_add_small_numbers (2 points) and both cases of
# test_add_random (1 point each), so it costs 4 of the toy's points.
ADD_COSTS_FOUR = GOOD.replace('caught_by = ["test_add_small_numbers"]', "@CAP@")


@pytest.mark.parametrize("cap", ['caught_by = ["test_add_small_numbers"]\n', ""])
def test_grade_check_fails_a_mutant_that_costs_more_than_its_max_cost(toy_kit, cap):
    """Over the cap is one line naming the exercise, the mutant, the cost, the cap and the checks, with
    or without caught_by (without it, the grade must still run every check to know the cost)."""
    _write(toy_kit, ADD_COSTS_FOUR.replace("@CAP@", cap + "max_cost = 3"))
    failed = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert failed.returncode == 1, failed.stdout
    assert ("ex01 mutant 'add_off_by_one' (seed 1) costs 4 points, over its max_cost of 3: "
            "test_add_small_numbers 2, test_add_random 2") in " ".join(failed.stdout.split())
    _write(toy_kit, ADD_COSTS_FOUR.replace("@CAP@", cap + "max_cost = 4"))
    passed = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert passed.returncode == 0, passed.stdout


# add never ends, so its checks only time out; with pair's edit too, a later check catches it on a value.
SLOW_ADD_ONLY = ('format_version = 1\n\n[[mutant]]\nname = "slow_add"\nwhy = "add loops forever"\n'
                 'edits = [{find = "return a + b", replace = "while True:\\n        pass"}]\n')
SLOW_ADD_AND_LIST_PAIR = SLOW_ADD_ONLY.replace("pass\"}]", 'pass"}, {find = "return (x, x)", replace = "return [x, x]"}]')


def test_a_mutant_caught_only_by_a_timeout_is_not_caught(toy_kit):
    _write(toy_kit, SLOW_ADD_ONLY)
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1
    assert ("ex01 mutant 'slow_add' (seed 1) lost points only by timing out, which does not show that a check "
            "catches it") in " ".join(result.stdout.split())


SLOW_ADD = ('format_version = 1\n\n[[mutant]]\nname = "slow_add"\nwhy = "add loops forever"\n'
            'caught_by = ["test_add_small_numbers"]\n@DEADLINE@'
            'edits = [{find = "return a + b", replace = "while True:\\n        pass"}]\n')


def test_a_caught_by_check_that_only_times_out_does_not_catch_unless_the_deadline_is_the_point(toy_kit):
    _write(toy_kit, SLOW_ADD.replace("@DEADLINE@", ""))
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1
    assert ("ex01 mutant 'slow_add' (seed 1): test_add_small_numbers, in its caught_by, failed only by timing "
            "out") in " ".join(result.stdout.split())
    _write(toy_kit, SLOW_ADD.replace("@DEADLINE@", 'deadline = "the mistake is that add never ends"\n'))
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout
    assert "✓ ex01" in result.stdout


def _proof_grade(toy_kit, tmp_path, mutants: str, name: str = "slow_add", target: str | None = None) -> dict:
    """The mutant graded as grade check's proof grades it: every mistake decided, under the proof's limit."""
    from grader.authoring.soundness import DIAGNOSIS_PROOF_LIMIT_S
    from grader.grading import grade
    from grader.submission import Submission

    exercise = _write(toy_kit, mutants)
    path = mutant_file(toy_kit, "ex01", name, tmp_path)
    return grade(toy_kit, exercise, Submission(path, path.name), seed=1, diagnosis_limit_s=DIAGNOSIS_PROOF_LIMIT_S,
                 explain=False, diagnosis_target=target)


def test_the_proof_diagnoses_no_grade_whose_checks_only_timed_out(toy_kit, tmp_path):
    """grade check reads a diagnosis only where a check caught the code on an answer, so none is made:
    replaying every mistake on timed-out calls under their own limits took most of such a grade."""
    report = _proof_grade(toy_kit, tmp_path, SLOW_ADD_ONLY)
    lost = {test["failure"]["kind"] for test in report["tests"] if test["score"] < test["max_score"]}
    assert lost == {"timeout"}
    assert report["diagnosis"] == []


def test_the_proof_diagnoses_the_timed_out_checks_too_once_a_later_check_catches_the_code(toy_kit, tmp_path):
    report = _proof_grade(toy_kit, tmp_path, SLOW_ADD_AND_LIST_PAIR)
    public = {test["id"].split("::")[1]: test["failure"]["kind"] for test in report["tests"]
              if "test_public" in test["id"] and test["score"] < test["max_score"]}
    assert public == {"test_add_small_numbers": "timeout", "test_pair_is_a_tuple": "assertion"}
    (named,) = report["diagnosis"]
    assert named["mistake"] == "slow_add"
    assert {"checks/test_public.py::test_add_small_numbers", "checks/test_public.py::test_pair_is_a_tuple"} <= set(
        named["checks"])


def test_the_proof_of_a_mistake_named_on_every_failed_check_replays_no_other(toy_kit, tmp_path):
    # A second mistake that answers every call as add_off_by_one does: a whole diagnosis names both.
    twins = GOOD + ('\n[[mutant]]\nname = "adds_one_too"\nwhy = "adds one too"\n'
                    'edits = [{find = "return a + b", replace = "return a + b + 1"}]\n')
    whole = _proof_grade(toy_kit, tmp_path / "whole", twins, "add_off_by_one")
    assert [entry["mistake"] for entry in whole["diagnosis"]] == ["add_off_by_one", "adds_one_too"]
    proof = _proof_grade(toy_kit, tmp_path / "proof", twins, "add_off_by_one", target="add_off_by_one")
    assert [entry["mistake"] for entry in proof["diagnosis"]] == ["add_off_by_one"]


def _lost(name: str, kind: str) -> dict:
    return {"id": f"checks/test_hidden.py::{name}", "score": 0.0, "max_score": 1.0, "failure": {"kind": kind}}


@pytest.mark.parametrize("caught_by", [(), ("test_slow",)])
def test_a_check_that_only_waits_on_a_timed_out_one_does_not_catch_either(caught_by):
    """A check gated on one that timed out fails by waiting: no more proof than the deadline itself."""
    from grader.known_mistakes import Mutant
    from grader.authoring.soundness import mutant_problems

    report = {"status": "fail", "tests": [_lost("test_slow", "timeout"), _lost("test_gated", "waiting")]}
    mutant = Mutant("slow", "slow", (), caught_by)
    assert "only by timing out" in " ".join(mutant_problems(mutant, 1, report))
    report["tests"].append(_lost("test_value", "assertion"))
    if not caught_by:
        assert mutant_problems(mutant, 1, report) == []
    assert mutant_problems(Mutant("slow", "slow", (), ("test_slow",), deadline="only slower"), 1, report) == []


def _report(status: str, *tests: dict) -> dict:
    return {"status": status, "tests": list(tests)}


def test_grade_check_grades_again_alone_only_a_verdict_that_rests_on_a_timeout():
    """Side by side on a busy machine a check can time out for the load alone; such a verdict is retried."""
    from grader.known_mistakes import Mutant
    from grader.authoring.soundness import regraded_alone, rests_on_the_machine as rests_on_a_timeout

    mutant = Mutant("m", "m", (), ())
    timed_out = _report("fail", _lost("test_slow", "timeout"))
    caught = _report("fail", _lost("test_slow", "timeout"), _lost("test_value", "assertion"))
    assert rests_on_a_timeout("mutant", mutant, 1, timed_out)
    assert not rests_on_a_timeout("mutant", mutant, 1, caught)
    assert not rests_on_a_timeout("mutant", Mutant("m", "m", (), ("test_slow",), deadline="only slower"), 1,
                                  timed_out)
    assert rests_on_a_timeout("alt", None, None, timed_out)
    assert not rests_on_a_timeout("alt", None, None, _report("fail", _lost("test_value", "assertion")))
    assert not rests_on_a_timeout("reference", None, None, _report("pass"))
    assert not rests_on_a_timeout("stub", None, None, timed_out)
    # Only the timed-out one is graded again, and its second report replaces the first in place.
    outcomes = [("a", caught), ("b", timed_out), ("c", caught)]
    again = []
    regraded = regraded_alone(outcomes, lambda job: again.append(job) or (job, caught),
                              lambda job, report: rests_on_a_timeout("mutant", mutant, 1, report))
    assert again == ["b"] and regraded == [("a", caught), ("b", caught), ("c", caught)]


FAILED_RUN = "the grading process stopped with an internal error, so no check can be trusted"


def _failed_run() -> dict:
    """A grade whose run failed: every check not counted, for the run's reason (scoring's `fault`)."""
    lost = [{**_lost(name, "error"), "message": f"not counted: {FAILED_RUN}"} for name in ("test_a", "test_b")]
    return {**_report("error", *lost), "message": FAILED_RUN}


def test_a_grade_whose_run_failed_is_graded_again_and_then_said_as_such():
    """A run that failed says nothing of the code: graded again alone, and if it fails again, named as what it is."""
    from grader.known_mistakes import Mutant
    from grader.authoring.soundness import _lost as lost_words, mutant_problems, rests_on_the_machine, run_failed

    mutant = Mutant("m", "m", (), ())
    assert run_failed(_failed_run())
    # An import that fails is the submission's doing, and catches a mistake: not a failed run.
    assert not run_failed({**_report("error", _lost("test_a", "import")), "message": "m.py: NameError"})
    assert not run_failed(_report("fail", _lost("test_a", "error"), _lost("test_b", "assertion")))
    for kind, known in (("mutant", mutant), ("reference", None), ("alt", None)):
        assert rests_on_the_machine(kind, known, 1, _failed_run())
    assert not rests_on_the_machine("stub", None, 1, _failed_run())
    assert mutant_problems(mutant, 1, _failed_run()) == [f"mutant 'm' (seed 1) could not be graded: {FAILED_RUN}"]
    assert lost_words(_failed_run()) == FAILED_RUN


def test_a_mutant_caught_only_by_a_timeout_names_the_checks_that_timed_out():
    from grader.known_mistakes import Mutant
    from grader.authoring.soundness import mutant_problems

    report = _report("fail", _lost("test_slow", "timeout"), _lost("test_gated", "waiting"))
    assert mutant_problems(Mutant("m", "m", (), ()), 1, report)[0].endswith("(timed out: test_slow)")


def test_grade_mutant_grades_it_as_a_student_with_that_mistake(toy_kit):
    _write(toy_kit, GOOD)
    result = run_grade("ex01", "--mutant", "pair_of_three", "--output", "-", cwd=toy_kit.root)
    report = json.loads(result.stdout)
    assert result.returncode == 1 and report["status"] == "fail"  # graded, and it lost points
    assert report["submission"]["path"] == "mutant pair_of_three of toy.py"
    assert {test["name"]: test["score"] for test in report["tests"]}["pair is a tuple"] == 0.0
    assert report["diagnosis"] == [{"mistake": "pair_of_three", "why": "pair returns three copies",
                                    "checks": ["checks/test_public.py::test_pair_is_a_tuple"]}]
    assert not (toy_kit.root / "reports" / "ex01.json").exists()  # only the student's own work is recorded


def test_an_unknown_mutant_lists_the_valid_ones(toy_kit):
    _write(toy_kit, GOOD)
    result = run_grade("ex01", "--mutant", "nope", cwd=toy_kit.root)
    assert result.returncode == 2
    assert result.stderr == "grade: ex01 has no mutant 'nope'; its mutants are: add_off_by_one, pair_of_three\n"
    assert "--mutant names a mistake of one exercise" in run_grade("--all", "--mutant", "x", cwd=toy_kit.root).stderr


def test_a_mutant_named_as_a_wrong_program_is_one_problem_in_grade_check(toy_kit):
    _write(toy_kit, GOOD.replace('name = "pair_of_three"', 'name = "pair_as_list"'))
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1
    problems = [line for line in result.stdout.splitlines() if line.startswith("    ") and line.strip()]
    assert len([line for line in problems if "has the same name" in line]) == 1
    assert "diagnosed" not in result.stdout  # the library could not be read, so nothing was diagnosed to blame


def test_known_mistakes_lists_mutants_then_wrong_programs_with_their_whys(toy_kit):
    exercise = _write(toy_kit, GOOD)
    mistakes = known_mistakes(exercise, toy_kit.root)
    assert [(m.name, m.origin) for m in mistakes] == [("add_off_by_one", "mutant"), ("pair_of_three", "mutant"),
                                                      ("pair_as_list", "wrong")]
    assert mistakes[2].why == "pair returns a list where a tuple is asked for."
    assert "return (x, x, x)" in mistakes[1].source


@pytest.mark.parametrize("doc", ["", '"""WRONG ON PURPOSE:"""\n', "# a comment, no docstring\n"])
def test_a_wrong_program_must_say_what_it_gets_wrong(toy_kit, doc):
    exercise = toy_kit.resolve("ex01")
    path = exercise.solution_dir(toy_kit.root) / "wrong" / "silent.py"
    path.write_text(doc + "def add(a, b):\n    return 0\n")
    with pytest.raises(KitError) as caught:
        known_mistakes(exercise, toy_kit.root)
    assert str(caught.value) == (f"{path}: a wrong/ program needs a docstring whose first line says what it "
                                 "gets wrong")


# The seed reaches only test_add_random, which takes `rng`: under seed 2 it draws 736740 for a, and
# under seed 1 two negative numbers, so an add that is wrong only above 100 is caught under seed 2 alone.
WRONG_ABOVE_A_HUNDRED = '{find = "return a + b", replace = "return a + b + (a > 100)"}'
PAIR_OF_THREE = '{find = "return (x, x)", replace = "return (x, x, x)"}'


def _mutant(name: str, *edits: str, extra: str = "") -> str:
    return (f'format_version = 1\n\n[[mutant]]\nname = "{name}"\nwhy = "a known mistake"\n{extra}'
            f'edits = [{", ".join(edits)}]\n')


def test_the_first_seeds_verdict_stands_where_no_check_it_rests_on_draws_from_the_seed(toy_kit):
    """Both mutants and the wrong/ solution are caught by checks without `rng`, so seed 2 grades none of them."""
    _write(toy_kit, GOOD)
    result = run_grade("check", "ex01", "--seeds", "1,2", cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout
    assert ("the first seed's verdict stood for 3 later-seed grades: no check it rests on draws from the seed"
            in " ".join(result.stdout.split()))


def test_a_mistake_caught_by_a_seeded_check_is_graded_whole_under_every_later_seed(toy_kit):
    _write(toy_kit, _mutant("wrong_above_a_hundred", WRONG_ABOVE_A_HUNDRED))
    result = run_grade("check", "ex01", "--seeds", "2,1", cwd=toy_kit.root)
    text = " ".join(result.stdout.split())
    assert result.returncode == 1, result.stdout
    assert "ex01 mutant 'wrong_above_a_hundred' (seed 1) got full marks: a check is missing" in text
    assert "(seed 2)" not in text and "stood for" not in text


def test_a_later_seed_adds_its_seeded_checks_to_the_first_seeds_for_a_max_cost(toy_kit):
    """Under seed 1 the mutant costs test_pair_is_a_tuple's point; under seed 2 test_add_random's too.
    Seed 2 runs test_add_random alone and carries test_pair_is_a_tuple's outcome over from seed 1."""
    _write(toy_kit, _mutant("pair_of_three_and_wrong_above_a_hundred", PAIR_OF_THREE, WRONG_ABOVE_A_HUNDRED,
                            extra="max_cost = 1\n"))
    result = run_grade("check", "ex01", "--seeds", "1,2", cwd=toy_kit.root)
    text = " ".join(result.stdout.split())
    assert result.returncode == 1, result.stdout
    assert ("ex01 mutant 'pair_of_three_and_wrong_above_a_hundred' (seed 2) costs 2 points, over its max_cost of 1: "
            "test_pair_is_a_tuple 1, test_add_random 1") in text
    assert "(seed 1)" not in text


def test_a_grade_of_some_checks_runs_them_and_what_they_wait_on_and_leaves_the_rest_unrun(toy_kit, tmp_path):
    from grader.grading import grade
    from grader.submission import Submission

    exercise = toy_kit.resolve("ex01")
    public = exercise.checks_dir / "test_public.py"
    public.write_text(public.read_text().replace("def test_pair_is_a_tuple(student):",
                                                 "@pytest.mark.requires('test_add_small_numbers')\n"
                                                 "def test_pair_is_a_tuple(student):"))
    reference = exercise.solution_dir(toy_kit.root) / exercise.module
    report = grade(toy_kit, exercise, Submission(reference, reference.name), seed=1,
                   only=frozenset({"test_pair_is_a_tuple", "test_add_random"}))
    ran = {test["id"].split("::")[1] for test in report["tests"] if test["outcome"] == "passed"}
    assert ran == {"test_add_small_numbers", "test_pair_is_a_tuple", "test_add_random[1]", "test_add_random[2]"}
    unrun = [test for test in report["tests"] if test["outcome"] != "passed"]
    assert unrun and all(test["failure"]["kind"] == "error" and test["score"] == 0 for test in unrun)
