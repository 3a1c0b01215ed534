"""The `grade` command end to end, through subprocesses, as students and pipelines run it."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import site
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import GRADE, REPO, run_grade


def test_the_readme_first_command_grades_the_reference_with_full_marks():
    grade = Path(sys.executable).parent / "grade"
    if not grade.exists():
        pytest.skip("the grade console script is not installed next to this interpreter")
    result = subprocess.run([str(grade), "ex04", "--solution"], cwd=REPO, capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(pass)" in result.stdout


def test_listing_shows_progress(toy_kit):
    before = run_grade(cwd=toy_kit.root)
    assert before.returncode == 0
    assert "ex01_toy" in before.stdout and "not started" in before.stdout
    run_grade("ex01", cwd=toy_kit.root)
    after = run_grade(cwd=toy_kit.root)
    assert "0/8" in after.stdout and "partial" in after.stdout


def test_grading_own_work_writes_the_progress_report(toy_kit, validate_report):
    result = run_grade("toy", cwd=toy_kit.root / "exercises")
    assert result.returncode == 1
    report = validate_report(json.loads((toy_kit.root / "reports" / "ex01.json").read_text()))
    assert report["status"] == "fail" and report["score"] == 0
    assert "Report written to reports/ex01.json" in result.stdout
    assert "Score 0/8 (fail)" in result.stdout


def test_the_reference_passes_and_writes_only_where_asked(toy_kit, tmp_path, validate_report):
    out = tmp_path / "out.json"
    result = run_grade("ex01_toy", "--solution", "--output", str(out), cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert validate_report(json.loads(out.read_text()))["status"] == "pass"
    assert not (toy_kit.root / "reports").exists()


def test_output_dash_prints_only_the_json(toy_kit, validate_report):
    result = run_grade("ex01", "--solution", "--output", "-", cwd=toy_kit.root)
    report = validate_report(json.loads(result.stdout))
    assert report["score"] == report["max_score"] == 8


def test_a_submission_that_loses_points_exits_1_unless_exit_zero(toy_kit):
    stub = str(toy_kit.root / "exercises" / "ex01_toy" / "toy.py")
    assert run_grade("ex01", "--submission", stub, cwd=toy_kit.root).returncode == 1
    assert run_grade("ex01", "--submission", stub, "--exit-zero", cwd=toy_kit.root).returncode == 0


def test_seed_reproduces_a_run(toy_kit):
    first = run_grade("ex01", "--solution", "--seed", "42", "--output", "-", cwd=toy_kit.root)
    second = run_grade("ex01", "--solution", "--seed", "42", "--output", "-", cwd=toy_kit.root)
    assert json.loads(first.stdout)["seed"] == json.loads(second.stdout)["seed"] == 42


def test_a_corrupt_zip_gets_a_report_with_status_error(toy_kit, tmp_path, validate_report):
    archive = tmp_path / "student.zip"
    archive.write_bytes(b"PK\x03\x04 not a zip")
    result = run_grade("ex01", "--submission", str(archive), "--output", "-", cwd=toy_kit.root)
    assert result.returncode == 1
    report = validate_report(json.loads(result.stdout))
    assert report["status"] == "error" and "not a readable zip" in report["message"]


def test_the_kit_can_be_named_from_anywhere(toy_kit, tmp_path):
    result = run_grade("ex01", "--solution", "--kit", str(toy_kit.root), cwd=tmp_path)
    assert result.returncode == 0


@pytest.mark.parametrize(
    "args, words",
    [
        (["ex99"], "unknown exercise 'ex99'; the exercises are: ex01_toy"),
        (["ex01", "--submission", "/no/such/file.py"], "--submission /no/such/file.py: no such file or folder"),
        (["ex01", "--seed", "abc"], "expected a whole number, got 'abc'"),
        (["ex01", "--seed", "-3"], "expected a number >= 0"),
        (["ex01", "--format", "yaml"], "invalid choice: 'yaml'"),
        (["ex01", "--solution", "--submission", "x.py"], "not allowed with argument"),
        (["ex01", "--bogus"], "unrecognized arguments: --bogus"),
        (["ex01", "--watch", "--all"], "--watch cannot go with --all"),
        (["ex01", "--watch", "--solution"], "--watch cannot go with --solution"),
        (["ex01", "--watch", "--submission", "x.py"], "--watch cannot go with --submission"),
        (["ex01", "--watch", "--output", "-"], "--watch cannot go with --output -"),
        (["--watch"], "--watch needs an exercise, such as grade ex04 --watch"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(toy_kit, args, words):
    result = run_grade(*args, cwd=toy_kit.root)
    assert result.returncode == 2
    assert words in result.stderr
    assert result.stderr.startswith("grade: ") and result.stderr.count("\n") == 1
    assert not (toy_kit.root / "reports").exists()


def test_a_malformed_exercise_toml_names_the_file_and_field(toy_kit):
    toml = toy_kit.root / "exercises" / "ex01_toy" / "exercise.toml"
    toml.write_text(toml.read_text().replace("call_timeout = 1.0", 'call_timeout = "soon"'))
    result = run_grade("ex01", cwd=toy_kit.root)
    assert result.returncode == 2
    assert "exercise.toml: field 'call_timeout' must be a positive number, got 'soon'" in result.stderr
    assert result.stderr.count("\n") == 1


def test_outside_a_kit_says_how_to_find_one(tmp_path):
    result = run_grade("ex01", cwd=tmp_path)
    assert result.returncode == 2
    assert "no kit found" in result.stderr and "--kit DIR" in result.stderr


def test_a_missing_reference_solution_is_a_kit_fault(toy_kit):
    shutil.rmtree(toy_kit.root / "solutions")
    result = run_grade("ex01", "--solution", cwd=toy_kit.root)
    assert result.returncode == 2
    assert "the reference solution is missing" in result.stderr


def test_failures_show_their_message_and_public_output(toy_kit, tmp_path):
    partial = REPO / "tests" / "golden" / "partial_solution" / "toy.py"
    result = run_grade("ex01", "--submission", str(partial), cwd=toy_kit.root)
    assert result.returncode == 1
    assert "✗ pair is a tuple" in result.stdout
    assert "assert [7, 7] == (7, 7)" in result.stdout
    assert "Hint: A negative n is bad input." in result.stdout
    assert "Score 4/8 (fail)" in result.stdout


def test_what_printed_at_import_is_shown_under_the_table(toy_kit):
    """Its report is a golden one (tests/golden/prints_at_import)."""
    chatty = REPO / "tests" / "golden" / "prints_at_import" / "toy.py"
    result = run_grade("ex01", "--submission", str(chatty), cwd=toy_kit.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("Your module printed while it was imported:\n  | trying add: 5\n  | pair of 7 is (7, 7)\n"
            "  | a warning on stderr\n") in result.stdout


def test_what_printed_before_an_exception_at_import_is_shown_and_reported(toy_kit, tmp_path, validate_report):
    submission = tmp_path / "toy.py"
    submission.write_text("print('building the table')\nTABLE = {}\nFIRST = TABLE['first']\n")
    out = tmp_path / "report.json"
    result = run_grade("ex01", "--submission", str(submission), "--output", str(out), cwd=toy_kit.root)
    assert result.returncode == 1
    assert "Your module printed while it was imported:\n  | building the table\n" in result.stdout
    assert "Nothing could be graded: toy.py line 3: KeyError: 'first'" in result.stdout
    report = validate_report(json.loads(out.read_text()))
    assert report["status"] == "error" and report["score"] == 0
    assert report["submission"]["import_output"] == "building the table\n"


def test_hints_come_one_more_at_a_time(toy_kit):
    first = run_grade("hint", "ex01", cwd=toy_kit.root)
    assert first.returncode == 0
    assert "Hint 1 of 2 (ex01): Read the docstrings." in first.stdout and "Hint 2" not in first.stdout
    second = run_grade("hint", "toy", cwd=toy_kit.root)
    assert "Hint 2 of 2 (ex01): add returns a + b." in second.stdout and "last hint" in second.stdout
    third = run_grade("hint", "ex01", cwd=toy_kit.root)
    assert third.stdout.count("Hint 2 of 2") == 1


def test_hint_errors_are_usage_errors(toy_kit):
    assert run_grade("hint", cwd=toy_kit.root).returncode == 2
    unknown = run_grade("hint", "ex42", cwd=toy_kit.root)
    assert unknown.returncode == 2 and "unknown exercise 'ex42'" in unknown.stderr


def add_twin(kit, ex_id: str, slug: str, title: str | None = None) -> None:
    """Copy the toy exercise (without its solutions) under another id, slug and title."""
    folder = kit.root / "exercises" / f"{ex_id}_{slug}"
    shutil.copytree(kit.root / "exercises" / "ex01_toy", folder)
    toml = folder / "exercise.toml"
    text = toml.read_text().replace('id = "ex01"', f'id = "{ex_id}"').replace('slug = "toy"', f'slug = "{slug}"')
    if title is not None:
        text = text.replace('title = "A toy exercise for the grader\'s tests"', f'title = "{title}"')
    toml.write_text(text)


def test_grade_all_writes_one_summary(toy_kit, tmp_path, validate_report):
    add_twin(toy_kit, "ex02", "twin")
    folder = tmp_path / "student"
    folder.mkdir()
    shutil.copyfile(REPO / "tests" / "golden" / "partial_solution" / "toy.py", folder / "toy.py")
    result = run_grade("--all", "--submission", str(folder), "--output", "-", cwd=toy_kit.root)
    summary = validate_report(json.loads(result.stdout))
    assert result.returncode == 1
    assert [r["exercise"]["id"] for r in summary["exercises"]] == ["ex01", "ex02"]
    assert (summary["score"], summary["max_score"], summary["status"]) == (8, 16, "fail")
    shown = run_grade("--all", "--solution", cwd=toy_kit.root)
    assert shown.returncode == 2 and "ex02_twin" in shown.stderr  # ex02 has no reference solution


def test_grade_all_rejects_a_single_file_and_an_exercise_name(toy_kit):
    stub = str(toy_kit.root / "exercises" / "ex01_toy" / "toy.py")
    assert "give a folder or a .zip" in run_grade("--all", "--submission", stub, cwd=toy_kit.root).stderr
    assert "not both" in run_grade("ex01", "--all", cwd=toy_kit.root).stderr


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
    assert "✗ ex01_toy: 3 problem(s)" in result.stdout
    assert "toy.py: the stub has no # TODO markers" in result.stdout
    assert "alt/broken.py must get full marks but scored 4/8" in result.stdout
    assert "wrong/secretly_right.py got full marks with seed 1: a check is missing" in result.stdout


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


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="hiding the system's interpreters needs root and a mount namespace (unshare)")
def test_weakened_isolation_is_said_in_the_report_and_on_stderr(toy_kit, tmp_path):
    """With no interpreter a worker uid can run, the grade says so; run for real, nothing patched.

    The grader runs from a copy of its interpreter in an owner-only folder (as a Python under /root
    is), and the system's interpreters are hidden in a mount namespace of the grade's own.
    """
    minor = f"python{sys.version_info.major}.{sys.version_info.minor}"
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    python = closed / minor
    shutil.copy2(Path(sys.executable).resolve(), python)
    blank = tmp_path / "not-a-python"
    blank.write_text("")
    system = [path for path in (f"/usr/bin/{minor}", f"/usr/local/bin/{minor}") if Path(path).exists()]
    hide = "".join(f"mount --bind {blank} {path} && " for path in system)
    env = {key: value for key, value in os.environ.items() if key != "GRADE_WORKER_PYTHON"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *site.getsitepackages()])
    out = tmp_path / "report.json"
    result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", hide + 'exec "$@"', "sh",
                             str(python), "-m", "grader.cli", "ex01", "--solution", "--output", str(out)],
                            cwd=toy_kit.root, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    sandbox = json.loads(out.read_text())["environment"]["sandbox"]
    assert sandbox["interpreter"] == str(python) and sandbox["privileges_dropped"] is False
    assert "hidden checks are NOT protected" in sandbox["warning"]
    assert f"grade: warning: {sandbox['warning']}" in result.stderr


# -- what a person sees: the progress list, the result table, failures in words, watch mode

NARROW = {"COLUMNS": "80", "NO_COLOR": "1"}


def assert_plain_and_narrow(text: str) -> None:
    """No colour codes (not a terminal, NO_COLOR set), every line fits 80 columns, nothing cut short."""
    assert "\x1b" not in text
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "…" not in text


def one_line(text: str) -> str:
    """The text with its wrapping undone, to find phrases that rich wrapped at 80 columns."""
    return " ".join(text.split())


def write_last_report(kit, ex_id: str, score: float, max_score: float, status: str) -> None:
    (kit.root / "reports").mkdir(exist_ok=True)
    report = {"exercise": {"id": ex_id}, "score": score, "max_score": max_score, "status": status}
    (kit.root / "reports" / f"{ex_id}.json").write_text(json.dumps(report))


def test_listing_shows_each_status_the_progress_and_what_to_do_next(toy_kit):
    add_twin(toy_kit, "ex02", "twin", "A twin with a much longer title than the first one has")
    add_twin(toy_kit, "ex03", "triplet")
    add_twin(toy_kit, "ex04", "quad")
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    stub.write_text((toy_kit.root / "solutions" / "ex01_toy" / "toy.py").read_text())
    assert run_grade("ex01", cwd=toy_kit.root).returncode == 0  # done, through a real grading
    write_last_report(toy_kit, "ex02", 3, 8, "fail")
    (toy_kit.root / "reports" / "ex03.json").write_text('{"score": 8, "max_sc')  # cut off mid-write
    listing = run_grade(cwd=toy_kit.root, env=NARROW)
    assert listing.returncode == 0 and listing.stderr == ""
    assert_plain_and_narrow(listing.stdout)
    rows = {line.split()[1]: line for line in listing.stdout.splitlines() if line.startswith(("✓", "◐", "○"))}
    assert rows["ex01_toy"].split()[-2:] == ["8/8", "done"]
    assert rows["ex02_twin"].split()[-2:] == ["3/8", "partial"] and "A twin with a much longer" in rows["ex02_twin"]
    assert rows["ex03_triplet"].split()[-3:] == ["-", "not", "started"]
    assert rows["ex04_quad"].split()[-3:] == ["-", "not", "started"]
    text = one_line(listing.stdout)
    assert "reports/ex03.json is not valid JSON, so ex03 shows as not started" in text
    assert "Progress: 1/4 done, 34% ██████████░░░░" in text  # (1 + 3/8) of 4 exercises
    assert "Next: ex02 A twin with a much longer title than the first one has (3/8 so far)" in text
    assert "Traceback" not in listing.stdout + listing.stderr


def test_listing_copes_with_reports_that_are_not_reports_and_says_when_all_is_done(toy_kit):
    add_twin(toy_kit, "ex02", "twin")
    (toy_kit.root / "reports").mkdir()
    (toy_kit.root / "reports" / "ex01.json").write_text('["a list"]')
    (toy_kit.root / "reports" / "ex02.json").write_bytes(b"\xff\xfe not text")
    damaged = run_grade(cwd=toy_kit.root, env=NARROW)
    assert damaged.returncode == 0 and "Traceback" not in damaged.stderr
    assert "reports/ex01.json is not a report of this exercise" in one_line(damaged.stdout)
    assert "reports/ex02.json cannot be read" in one_line(damaged.stdout)
    assert "Progress: 0/2 done, 0%" in damaged.stdout and "Next: ex01" in damaged.stdout
    write_last_report(toy_kit, "ex01", 8, 8, "pass")
    write_last_report(toy_kit, "ex02", 8, 8, "pass")
    done = run_grade(cwd=toy_kit.root, env=NARROW)
    assert "Progress: 2/2 done, 100%" in done.stdout and "All 2 exercises done." in done.stdout
    assert "Next:" not in done.stdout


def test_the_result_is_a_table_then_the_failures_grouped_public_before_hidden(toy_kit):
    long_name = ("pair of seven is the tuple (7, 7), not a list, because tuples are what the game tree "
                 "code downstream hashes")
    public = toy_kit.root / "exercises" / "ex01_toy" / "checks" / "test_public.py"
    public.write_text(public.read_text().replace("def test_pair_is_a_tuple(student):\n",
                                                 f'def test_pair_is_a_tuple(student):\n    """{long_name}"""\n'))
    partial = REPO / "tests" / "golden" / "partial_solution" / "toy.py"
    result = run_grade("ex01", "--submission", str(partial), cwd=toy_kit.root, env=NARROW)
    assert result.returncode == 1
    out = result.stdout
    assert_plain_and_narrow(out)
    assert "check" in out and "points" in out  # the table's header
    assert "✓  add of two small numbers" in out and "2/2" in out
    assert "✗  tag rejects a negative number (hidden)" in out
    assert "time" not in out.split("Failed public checks")[0]  # no slow check, so no time column
    public_part, hidden_part = out.split("Failed public checks")[1].split("Failed hidden checks")
    assert long_name in one_line(public_part)  # wrapped, never cut
    assert "AssertionError: assert [7, 7] == (7, 7)" in public_part
    assert "✗ tag rejects a negative number  0/2" in hidden_part
    assert "DID NOT RAISE ValueError" in hidden_part and "Hint: A negative n is bad input." in hidden_part
    assert "add of random integers" not in hidden_part  # passed checks are not repeated
    assert out.index("Failed hidden checks") < out.index("Score 4/8 (fail)")


def test_a_timeout_says_how_long_was_allowed_and_the_usual_cause(toy_kit):
    looping = REPO / "tests" / "golden" / "infinite_loop" / "toy.py"
    result = run_grade("ex01", "--submission", str(looping), cwd=toy_kit.root, env=NARROW)
    out = result.stdout
    assert_plain_and_narrow(out)
    assert "⏱  add of two small numbers" in out and "1.0 s" in out  # the time column shows slow checks
    text = one_line(out)
    assert "⏱ add of two small numbers 0/2 timed out add did not return within the 1 s allowed for one call" in text
    assert text.count("a search that is too slow: a missing memo, a missing cutoff, or an infinite loop") == 1
    assert "add of random integers #1 0/1 timed out add did not return within the 1 s allowed for one call " \
           "Hint: add must work for any two integers." in text


CRASHING = '''\
import os
import signal


def add(a, b):
    os.kill(os.getpid(), signal.SIGKILL)


def pair(x):
    nested = [x]
    for _ in range(200_000):  # deep enough to overflow the C stack, quick to build
        nested = map(abs, nested)
    return list(nested)


def tag(n):
    return bytearray(2**40)  # far past memory_mb: the allocation fails with MemoryError


def push(items, item):
    os._exit(3)
'''


def test_crashes_are_said_in_words(toy_kit, tmp_path):
    submission = tmp_path / "toy.py"
    submission.write_text(CRASHING)
    result = run_grade("ex01", "--submission", str(submission), cwd=toy_kit.root, env=NARROW)
    out = result.stdout
    assert result.returncode == 1
    assert_plain_and_narrow(out)
    text = one_line(out)
    assert ("add of two small numbers 0/2 crashed the process running your code was killed (SIGKILL) during add: "
            "a limit of the sandbox or another process stopped it") in text
    assert ("pair is a tuple 0/1 crashed the process running your code crashed "
            "(SIGSEGV, a segmentation fault) during pair; on Python 3.11 this is often very deep recursion") in text
    assert "tag rejects a negative number 0/2 your code ran out of memory (limit 256 MB)" in text
    assert "push appends to the list it is given 0/1 crashed your code ended the process it was running in" in text
    assert "the worker" not in out


def test_watch_regrades_on_each_save_and_stops_cleanly_on_ctrl_c(toy_kit, tmp_path):
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    with watching(toy_kit, tmp_path) as session:
        first = session.until("Watching")
        assert "Score 0/8 (fail)" in first and "Report written to reports/ex01.json" in first
        stub.write_text((toy_kit.root / "solutions" / "ex01_toy" / "toy.py").read_text())
        assert "Score 8/8 (pass)" in session.until("Watching")
        assert json.loads((toy_kit.root / "reports" / "ex01.json").read_text())["status"] == "pass"
        stub.write_text("def add(a, b:\n")  # saved half-way through an edit
        broken = session.until("Watching")
        assert "SyntaxError: '(' was never closed" in broken and "Score 0/8 (error)" in broken
        session.process.send_signal(signal.SIGINT)
        assert session.process.wait(timeout=60) == 0
    assert "Stopped watching." in session.rest()
    assert "Traceback" not in session.stderr()


def test_ctrl_c_during_a_watched_grading_stops_the_grading_too(toy_kit, tmp_path):
    if not Path("/proc/self/stat").exists():
        pytest.skip("finding the grading process needs /proc")
    stub = toy_kit.root / "exercises" / "ex01_toy" / "toy.py"
    stub.write_text((REPO / "tests" / "golden" / "infinite_loop" / "toy.py").read_text())
    with watching(toy_kit, tmp_path) as session:
        session.until("Grading")
        deadline = time.monotonic() + 60
        while not (children := child_pids(session.process.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert children, "the grading process never started"
        session.process.send_signal(signal.SIGINT)
        assert session.process.wait(timeout=60) == 0
    assert "Stopped watching." in session.rest()
    assert [pid for pid in children if Path(f"/proc/{pid}").exists()] == []


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # not a process, or one that ended while we looked
            continue
        if entry.name.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


class WatchSession:
    """A running `grade ex01 --watch`, read line by line without blocking the test forever."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, text: str, timeout: float = 120) -> str:
        """The output up to and including the next line holding `text`."""
        seen, deadline = [], time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            assert line is not None, "grade --watch ended early:\n" + "".join(seen) + self.stderr()
            seen.append(line)
            if text in line:
                return "".join(seen)

    def rest(self) -> str:
        """What was printed after the last line read, once the process has ended."""
        seen = []
        while (line := self.lines.get(timeout=30)) is not None:
            seen.append(line)
        return "".join(seen)

    def stderr(self) -> str:
        return self.process.stderr.read() if self.process.poll() is not None else ""


# A shell's background job ignores SIGINT and its children inherit that, so a test run from one could
# not press Ctrl-C: this restores SIGINT, then becomes `python -m grader.cli ...` in the same process.
RESTORE_CTRL_C = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


@contextlib.contextmanager
def watching(kit, cwd: Path):
    """`grade ex01 --watch` on the kit, killed at the end if a failed assertion left it running."""
    process = subprocess.Popen(
        [sys.executable, "-c", RESTORE_CTRL_C, *GRADE[1:], "ex01", "--watch", "--kit", str(kit.root)], cwd=cwd,
        env={**os.environ, **NARROW, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield WatchSession(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# Python as native Windows has it, as far as grade can tell: os.name and sys.platform say so, and
# the POSIX-only modules do not import. Set up before anything of the kit is imported.
AS_ON_WINDOWS = """
import os, sys
os.name, sys.platform = "nt", "win32"
for name in ("fcntl", "resource", "termios", "pwd", "grp", "posix"):
    sys.modules[name] = None
from grader.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("args", [[], ["ex04", "--solution"], ["--all"], ["check", "--all"]])
def test_native_windows_gets_one_line_pointing_to_wsl(args):
    result = subprocess.run([sys.executable, "-c", AS_ON_WINDOWS, *args], cwd=REPO, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert "not supported" in result.stderr and "WSL" in result.stderr


COMMAND_NAMES = ("hint", "play", "check", "new", "export", "batch")


def test_grade_help_lists_every_command_with_one_line_each():
    result = run_grade("--help", cwd=REPO)
    assert result.returncode == 0
    listed = [line.split()[0] for line in result.stdout.split("commands (grade COMMAND --help for each):")[1]
              .strip().splitlines()]
    assert listed == list(COMMAND_NAMES)


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_each_command_has_its_own_help(command):
    result = run_grade(command, "--help", cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: grade {command} ")
    assert "--kit DIR" in result.stdout


@pytest.mark.parametrize("args, words", [
    (["hint"], "the following arguments are required: exercise"),
    (["play", "--first", "nobody"], "argument --first: invalid choice: 'nobody'"),
    (["check", "--all", "--jobs", "0"], "argument --jobs: expected a number >= 1, got 0"),
    (["new", "ex10"], "the following arguments are required: slug, title"),
    (["export", "--bogus"], "unrecognized arguments: --bogus"),
    (["batch", "somewhere"], "the following arguments are required: --out"),
    (["ex04", "--seed", "-1"], "argument --seed: expected a number >= 0, got -1"),
])
def test_bad_arguments_to_any_command_are_one_line_and_exit_2(args, words):
    result = run_grade(*args, cwd=REPO)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert result.stdout == ""


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
