"""`grade exNN` end to end, through subprocesses, as students and pipelines run it: the report, the exit codes, the words."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, run_grade
from tests.cli.screen import NARROW, add_twin, assert_plain_and_narrow, one_line

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user


def test_the_readme_first_command_grades_the_reference_with_full_marks():
    grade = Path(sys.executable).parent / "grade"
    if not grade.exists():
        pytest.skip("the grade console script is not installed next to this interpreter")
    result = subprocess.run([str(grade), "ex04", "--solution"], cwd=REPO, capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(pass)" in result.stdout


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


def test_the_result_is_a_table_and_the_score_then_the_failures_grouped_public_before_hidden(toy_kit):
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
    # The score comes with the table, as soon as the checks end; the failures in words follow.
    assert out.index("✗  tag rejects") < out.index("Score 4/8 (fail)") < out.index("Failed public checks")


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


def _command_lines() -> dict[int, list[bytes]]:
    """Every process's pid and command line, as /proc shows them."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                found[int(entry.name)] = (entry / "cmdline").read_bytes().split(b"\0")
    return found


def _grade_let_go(seed: int) -> tuple[Path, int] | None:
    """The run folder and reaper of the toy kit's grade once its runner has handed pytest the settings of `seed`.

    The reaper and its grading process both work in the run's pytest folder, however they were
    started (a fresh interpreter or a launcher's fork); the reaper is the one whose parent does not.
    """
    folders = {}
    for pid in _command_lines():
        with contextlib.suppress(OSError):
            folders[pid] = os.readlink(f"/proc/{pid}/cwd")
    for pid, cwd in folders.items():
        folder = Path(cwd).parent
        if Path(cwd).name != "pytest" or not folder.name.startswith("minimax-kit-run-"):
            continue
        with contextlib.suppress(OSError, ValueError, KeyError):
            settings = json.loads((folder / "settings.json").read_text(encoding="utf-8"))
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            if (settings["seed"], settings["module"]) == (seed, "toy.py") and folders.get(parent) != cwd:
                return folder, pid
    return None


def _has_worker(reaper: int) -> bool:
    """Whether a sandbox worker of the grade under this reaper is up: pytest's session has started."""
    return any(f'"grade_pid": {reaper},'.encode() in b" ".join(args) for args in _command_lines().values())


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="follows the grade's processes through /proc")
def test_ctrl_c_during_a_grade_stops_it_at_once_in_one_line_with_exit_130(toy_kit):
    from grader.grading.pytest_run import INTERRUPT_GRACE
    from tests.cli.test_watch import RESTORE_CTRL_C
    from tests.conftest import GRADE

    # Ctrl-C comes once the runner has let the grade go, while pytest still collects the checks (one
    # check file takes seconds to import); the student's module would never finish importing.
    exercise = toy_kit.root / "exercises" / "ex01_toy"
    with open(exercise / "checks" / "test_hidden.py", "a", encoding="utf-8") as checks:
        checks.write("\n\nimport time\n\ntime.sleep(10)\n")
    (exercise / "toy.py").write_text("while True:\n    pass\n", encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-c", RESTORE_CTRL_C, *GRADE[1:], "ex01", "--seed", "5",
                                "--kit", str(toy_kit.root)], cwd=toy_kit.root, env={**os.environ, **NARROW},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline, let_go = time.monotonic() + 60, None
        while not (let_go and _has_worker(let_go[1])) and time.monotonic() < deadline:
            let_go = _grade_let_go(5)
            time.sleep(0.05)
        assert let_go is not None and _has_worker(let_go[1])
        run_folder, reaper = let_go
        time.sleep(0.2)  # the runner writes the word to go just after the settings, and pytest collects for 10 s
        pressed = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        stopped_after = time.monotonic() - pressed
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, out + err
    assert err == "grade: stopped by Ctrl-C\n"
    assert not (toy_kit.root / "reports").exists() and not run_folder.exists()
    assert not _has_worker(reaper) and not [args for args in _command_lines().values() if str(toy_kit.root).encode() in args]
    # Not a speed check: a grading process that did not stop on its own is killed only once this
    # grace has passed (a Ctrl-C during collection used to wait for the student's import instead).
    assert stopped_after < INTERRUPT_GRACE


def test_the_display_is_ready_before_the_checks_end(toy_kit, tmp_path):
    """What rich loads on first use is loaded while the checks run: none of it while the student waits."""
    # A fresh interpreter running `grade`, told when pytest has ended; the display's thread is waited
    # for there, so only what the report itself still loads is counted.
    script = f"""
import json, sys, threading
from grader.cli import entry
from grader.grading import pytest_run
wait, seen = pytest_run._wait_for_pytest, []
def waited(*args, **kwargs):
    fault = wait(*args, **kwargs)
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join()
    seen.append(set(sys.modules))
    return fault
pytest_run._wait_for_pytest = waited
code = entry.grade_command(["--kit", {str(toy_kit.root)!r}, "toy", "--solution", "--output", {str(tmp_path / "r.json")!r}])
print(json.dumps([code, sorted(set(sys.modules) - seen[0])]))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    code, loaded = json.loads(done.stdout.splitlines()[-1])
    assert code == 0 and [name for name in loaded if name.startswith("rich")] == []
