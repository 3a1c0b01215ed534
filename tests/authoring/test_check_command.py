"""`grade check` end to end: a sound exercise passes, and every way an exercise can be unsound is named."""

from __future__ import annotations

import pytest

from tests.conftest import run_grade

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user


def test_grade_check_passes_a_sound_exercise(toy_kit):
    result = run_grade("check", "--all", "--seeds", "1,2", cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout
    assert ("✓ ex01_toy: reference 8/8, stub 0/8, 1 alt, 1 wrong x 2 seeds, do-nothing 10/10 at 0"
            in result.stdout)


def test_grade_check_pays_nothing_for_the_references_own_answer_returned_as_a_constant(toy_kit):
    """A check that asks one input pays a module that returns the reference's answer to it, whatever it is asked."""
    public = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_public.py"
    public.write_text(public.read_text() + '\n\ndef test_tag_of_four(student):\n    """tag of 4"""\n'
                                           '    assert student.tag(4) == {"n": 4}\n')
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1, result.stdout
    assert ("code that computes nothing (every function returns the first answer the reference gave the "
            "public checks) scored 1/9: tag of 4") in result.stdout


def test_grade_check_grades_the_hand_written_code_that_computes_nothing(toy_kit):
    nothing = toy_kit.root / "solutions" / "ex01_toy" / "nothing"
    nothing.mkdir()
    (nothing / "adds_only.py").write_text("def add(a, b):\n    return a + b\n")
    (nothing / "answers_nothing.py").write_text("def add(a, b):\n    return None\n")
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1, result.stdout
    assert "✗ ex01_toy: 1 problem(s)" in result.stdout
    assert ("code that computes nothing (solutions/ex01_toy/nothing/adds_only.py) scored 4/8: add of two small "
            "numbers, add of random integers") in result.stdout


def test_grade_check_fair_seeds_grades_the_reference_and_alts_under_each_seed(toy_kit):
    alt = toy_kit.root / "solutions" / "ex01_toy" / "alt" / "plain.py"
    sound = run_grade("check", "ex01", "--fair-seeds", "3", cwd=toy_kit.root)
    assert sound.returncode == 0, sound.stdout
    assert "✓ ex01_toy: reference and 1 alt at full marks on 3 seeds (1 seed-dependent checks)" in sound.stdout
    # Wrong only for large sums that are odd multiples of 3: some seeds draw one, others do not.
    wrong_sometimes = "def add(a, b):\n    if a + b > 100 and (a + b) % 6 == 3:\n        return 0\n"
    alt.write_text(alt.read_text().replace("def add(a, b):\n", wrong_sometimes))
    unfair = run_grade("check", "ex01", "--fair-seeds", "12", cwd=toy_kit.root)
    assert unfair.returncode == 1, unfair.stdout
    failing = [line for line in unfair.stdout.splitlines() if "with seed" in line]
    assert failing and all("alt/plain.py must get full marks but scored" in line for line in failing)
    assert len(failing) < 12


def test_grade_check_fair_seeds_passes_over_an_exercise_without_a_seed_dependent_check(toy_kit):
    hidden = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_hidden.py"
    hidden.write_text(hidden.read_text().replace("def test_add_random(student, rng, case):\n"
                                                 "    \"\"\"add of random integers\"\"\"\n"
                                                 "    a, b = rng.randint(-10**6, 10**6), rng.randint(-10**6, 10**6)\n",
                                                 "def test_add_random(student, case):\n"
                                                 "    \"\"\"add of random integers\"\"\"\n"
                                                 "    a, b = 12345 * case, -678\n"))
    result = run_grade("check", "ex01", "--fair-seeds", "30", cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout
    assert "✓ ex01_toy: no seed-dependent check" in result.stdout


def test_grade_check_fails_an_exercise_that_pays_code_which_computes_nothing(toy_kit):
    """A check of robustness that asserts nothing correct pays a module that raises ValueError everywhere."""
    (toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_lenient.py").write_text(
        'import pytest\n\n\ndef test_pair_rejects_nothing_in_particular(student):\n'
        '    """pair raises ValueError for None"""\n    with pytest.raises(ValueError):\n'
        '        student.pair(None)\n')
    solutions = toy_kit.root / "solutions" / "ex01_toy"
    for path in (solutions / "toy.py", solutions / "alt" / "plain.py"):  # so that only the battery can fail
        path.write_text(path.read_text().replace("def pair(x):\n", "def pair(x):\n    if x is None:\n"
                                                                     "        raise ValueError(x)\n"))
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1, result.stdout
    assert ("code that computes nothing (every function raises ValueError) scored 1/9: "
            "pair raises ValueError for None") in result.stdout


def test_grade_check_names_every_problem(toy_kit):
    solutions = toy_kit.root / "solutions" / "ex01_toy"
    # A wrong solution that is in fact right means a check is missing; an alt that is wrong is unfair.
    (solutions / "wrong" / "secretly_right.py").write_text((solutions / "toy.py").read_text())
    (solutions / "alt" / "broken.py").write_text((solutions / "wrong" / "pair_as_list.py").read_text())
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    stub.write_text(stub.read_text().replace("# TODO", "# to do"))
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1
    assert "✗ ex01_toy: 4 problem(s)" in result.stdout
    assert "toy.py: the stub has no # TODO markers" in result.stdout
    assert "alt/broken.py must get full marks but scored 4/8" in result.stdout
    assert "wrong/secretly_right.py got full marks with seed 1: a check is missing" in result.stdout
    # and no diagnosis could ever name it, since every call of every check gets the reference's answer
    assert ("ex01: known mistake 'secretly_right' answers every check's call as the reference does, so no "
            "diagnosis can name it: sharpen a check") in " ".join(result.stdout.split())


def test_grade_check_reports_a_malformed_exercise_and_goes_on(toy_kit):
    toml = toy_kit.root / "exercises" / "ex01_toy" / "exercise.toml"
    toml.write_text(toml.read_text().replace("hints = ", "hints_typo = "))
    result = run_grade("check", "--all", cwd=toy_kit.root)
    assert result.returncode == 1
    assert "✗ ex01_toy" in result.stdout and "unknown field 'hints_typo'" in result.stdout


def test_grade_check_usage_errors(toy_kit):
    assert "name the exercises to check, or pass --all" in run_grade("check", cwd=toy_kit.root).stderr
    assert "expected seeds such as 1,2,3" in run_grade("check", "--all", "--seeds", "x", cwd=toy_kit.root).stderr
    assert "expected a number >= 1, got 0" in run_grade("check", "--all", "--fair-seeds", "0", cwd=toy_kit.root).stderr


def test_grade_check_refuses_a_public_check_that_waits_on_a_hidden_one(toy_kit):
    """The handout holds only the public checks, where a requirement on a hidden one could not be collected."""
    public = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_public.py"
    public.write_text(public.read_text().replace("def test_pair_is_a_tuple(student):",
                                                 '@pytest.mark.requires("test_add_random")\n'
                                                 "def test_pair_is_a_tuple(student):"))
    result = run_grade("check", "ex01", "--seeds", "1", cwd=toy_kit.root)
    assert result.returncode == 1, result.stdout
    assert ("test_public.py: test_pair_is_a_tuple requires test_add_random, which is not a public check, "
            "so the handout could not collect it") in result.stdout
