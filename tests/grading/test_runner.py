"""The runner: laying out submissions, seeds, protecting secrets, and failing closed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from grader import submission

from grader.grading import launching, pytest_run, runner
from grader.catalog import Kit, KitError
from grader.grading.runner import StopAt, grade
from grader.submission import Submission, SubmissionProblem, derive_seed, prepare_submission
from grader.sandbox.process import NAMESPACES_ENV
from tests.conftest import TOY_KIT, mutant_file
from tests.processes import descendants

GOOD = "def add(a, b):\n    return a + b\n"


def test_a_file_is_copied_under_the_module_name(tmp_path):
    source = tmp_path / "my_homework.py"
    source.write_text(GOOD)
    prepare_submission(source, "toy.py", tmp_path / "out")
    assert (tmp_path / "out" / "toy.py").read_text() == GOOD


def test_a_folder_is_laid_out_from_its_shallowest_module(tmp_path):
    folder = tmp_path / "sub"
    (folder / "deep" / "deeper").mkdir(parents=True)
    (folder / "deep" / "toy.py").write_text(GOOD)
    (folder / "deep" / "helper.py").write_text("X = 1\n")
    (folder / "deep" / "deeper" / "toy.py").write_text("raise SystemExit\n")
    prepare_submission(folder, "toy.py", tmp_path / "out")
    assert (tmp_path / "out" / "toy.py").read_text() == GOOD
    assert (tmp_path / "out" / "helper.py").exists()


def test_symlinks_in_a_folder_are_not_followed(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "toy.py").write_text(GOOD)
    (folder / "secret.txt").symlink_to("/etc/hostname")
    prepare_submission(folder, "toy.py", tmp_path / "out")
    assert not (tmp_path / "out" / "secret.txt").exists()


def test_zip_members_outside_the_module_folder_are_ignored(tmp_path):
    archive = tmp_path / "hw.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("hw/toy.py", GOOD)
        handle.writestr("../escape.py", "X = 1\n")
        handle.writestr("/abs.py", "X = 1\n")
        handle.writestr("other/notes.txt", "x\n")
    prepare_submission(archive, "toy.py", tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["toy.py"]
    assert not (tmp_path / "escape.py").exists()


@pytest.mark.parametrize(
    "content, words",
    [
        (b"PK\x03\x04 broken", "is not a readable zip file"),
        (None, "has no toy.py"),
    ],
)
def test_bad_zips_are_submission_problems(tmp_path, content, words):
    archive = tmp_path / "hw.zip"
    if content is None:
        with zipfile.ZipFile(archive, "w") as handle:
            handle.writestr("readme.txt", "x")
    else:
        archive.write_bytes(content)
    with pytest.raises(SubmissionProblem, match=words):
        prepare_submission(archive, "toy.py", tmp_path / "out")


def _submission_of_size(place: Path, kind: str, size: int) -> Path:
    """A folder or zip holding toy.py and a file of zeros, `size` bytes in all (the folder's file sparse)."""
    place.mkdir()
    if kind == "zip":
        with zipfile.ZipFile(place / "hw.zip", "w", zipfile.ZIP_DEFLATED) as handle:
            handle.writestr("toy.py", GOOD)
            handle.writestr("big.bin", bytes(size - len(GOOD)))
        return place / "hw.zip"
    (place / "toy.py").write_text(GOOD)
    with open(place / "big.bin", "wb") as handle:
        handle.truncate(size - len(GOOD))
    return place


@pytest.mark.parametrize("kind, words", [("folder", "the submission folder holds"), ("zip", "hw.zip unpacks to")])
def test_an_oversized_folder_is_refused(tmp_path, kind, words):
    """The kit's own limit: a submission of exactly MAX_SUBMISSION_BYTES is laid out, one byte more is refused."""
    limit = submission.MAX_SUBMISSION_BYTES
    assert limit == 16 * 2**20  # SECURITY.md's figure
    prepare_submission(_submission_of_size(tmp_path / "at", kind, limit), "toy.py", tmp_path / "at-out")
    assert (tmp_path / "at-out" / "big.bin").stat().st_size == limit - len(GOOD)
    with pytest.raises(SubmissionProblem, match=f"^{words} more than {limit // 2**20} MiB$"):
        prepare_submission(_submission_of_size(tmp_path / "past", kind, limit + 1), "toy.py", tmp_path / "past-out")


def test_the_default_seed_follows_the_code():
    assert derive_seed("ex04", "a" * 64) == derive_seed("ex04", "a" * 64)
    assert derive_seed("ex04", "a" * 64) != derive_seed("ex04", "b" * 64)
    assert derive_seed("ex04", "a" * 64) != derive_seed("ex05", "a" * 64)
    assert 0 <= derive_seed("ex04", "") < 2**32


def test_same_code_same_seed_same_report(toy_kit, validate_report):
    exercise = toy_kit.resolve("ex01")
    submission = Submission(toy_kit.root / "solutions" / "ex01_toy" / "toy.py", "toy.py")
    first, second = (validate_report(grade(toy_kit, exercise, submission)) for _ in range(2))
    assert first["seed"] == second["seed"]
    assert [t["outcome"] for t in first["tests"]] == [t["outcome"] for t in second["tests"]]


@pytest.mark.skipif(os.geteuid() != 0, reason="secrets are protected only when grading as root")
def test_as_root_checks_and_solutions_become_owner_only(toy_kit):
    exercise = toy_kit.resolve("ex01")
    grade(toy_kit, exercise, Submission(exercise.stub_path, "toy.py"))
    for secret in (toy_kit.root, toy_kit.root / "solutions", exercise.checks_dir):
        assert stat.S_IMODE(secret.stat().st_mode) & 0o077 == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="secrets are protected only when grading as root")
@pytest.mark.parametrize("namespaces, denied", [("off", "PermissionError"), ("on", "FileNotFoundError")])
def test_as_root_a_submission_cannot_open_the_hidden_checks_or_solutions(tmp_path, monkeypatch, namespaces, denied):
    """Owner-only to the worker's uid; in a root of its own, not there at all."""
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    # A world-readable kit in a world-traversable place, as a fresh clone would be.
    place = Path(tempfile.mkdtemp(prefix="minimax-kit-open-"))
    try:
        _snoop_on_a_world_readable_kit(place, tmp_path, denied)
    finally:
        shutil.rmtree(place)


def _snoop_on_a_world_readable_kit(place: Path, tmp_path: Path, denied: str) -> None:
    os.chmod(place, 0o755)
    kit = Kit(place / "kit")
    shutil.copytree(TOY_KIT, kit.root, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    for folder, _, files in os.walk(kit.root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    targets = [kit.root / "exercises" / "ex01_toy" / "checks" / "test_hidden.py",
               kit.root / "solutions" / "ex01_toy" / "toy.py", kit.root / "pyproject.toml"]
    snoop = tmp_path / "snoop.py"
    snoop.write_text(
        f"TARGETS = {[str(t) for t in targets]!r}\n"
        "SNOOPED = []\n"
        "def add(a, b):\n"
        "    for target in TARGETS if not SNOOPED else ():  # once: the check calls add twice\n"
        "        try:\n"
        "            print('READ', open(target).read()[:20])\n"
        "        except OSError as exc:\n"
        "            print('DENIED', type(exc).__name__)\n"
        "    SNOOPED.append(1)\n"
        "    return a + b\n"
    )
    report = grade(kit, kit.resolve("ex01"), Submission(snoop, "snoop.py"), seed=1)
    output = report["tests"][0]["output"]
    assert report["tests"][0]["name"] == "add of two small numbers"
    assert output.count(f"DENIED {denied}") == 3 and "READ" not in output


def _add_check(kit, source: str) -> None:
    (kit.root / "exercises" / "ex01_toy" / "checks" / "test_zz_extra.py").write_text(source)


def test_a_grading_process_that_dies_fails_closed(toy_kit, validate_report, launcher):
    _add_check(toy_kit, "import os\n\ndef test_dies(student):\n    os._exit(0)\n")
    exercise = toy_kit.resolve("ex01")
    solution = Submission(toy_kit.root / "solutions" / "ex01_toy" / "toy.py", "toy.py")
    report = validate_report(grade(toy_kit, exercise, solution, seed=1, launcher=launcher))
    assert report["status"] == "error"
    assert report["score"] == 0
    assert "wrote no results" in report["message"]
    assert all(test["score"] == 0 for test in report["tests"])


def test_the_outer_wall_clock_limit_stops_a_stuck_grading_process(toy_kit, monkeypatch, validate_report, launcher):
    # A check that blocks pytest-timeout's SIGALRM can only be stopped by the outer limit.
    _add_check(
        toy_kit,
        "import signal, time\nimport pytest\n\n@pytest.mark.timeout(1)\ndef test_stuck(student):\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n    time.sleep(120)\n",
    )
    toml = toy_kit.root / "exercises" / "ex01_toy" / "exercise.toml"
    toml.write_text(toml.read_text().replace("check_timeout = 10.0", "check_timeout = 1.0"))
    # The kit's own figures (SECURITY.md), shrunk here only so that the test is quick; the sum is the kit's.
    assert (pytest_run.RUN_SLACK, pytest_run.sandbox.IMPORT_TIMEOUT) == (30.0, 10.0)
    monkeypatch.setattr(pytest_run, "RUN_SLACK", 1.0)
    monkeypatch.setattr(pytest_run.sandbox, "IMPORT_TIMEOUT", 1.0)
    exercise = toy_kit.resolve("ex01")
    solution = Submission(toy_kit.root / "solutions" / "ex01_toy" / "toy.py", "toy.py")
    report = validate_report(grade(toy_kit, exercise, solution, seed=1, launcher=launcher))
    assert report["status"] == "error"
    # Every check's budget (check_timeout, 1 s) + IMPORT_TIMEOUT + RUN_SLACK.
    assert f"ran past its {len(report['tests']) + 2} s limit" in report["message"]
    assert report["duration_s"] < 30
    assert report["score"] == 0


def test_checks_that_cannot_be_collected_are_a_kit_fault(toy_kit):
    _add_check(toy_kit, "def test_broken(:\n")
    exercise = toy_kit.resolve("ex01")
    with pytest.raises(KitError, match="could not be collected"):
        grade(toy_kit, exercise, Submission(exercise.stub_path, "toy.py"))


def test_a_bad_points_marker_is_a_kit_fault(toy_kit):
    _add_check(toy_kit, "import pytest\n\n@pytest.mark.points(-1)\ndef test_bad(student):\n    pass\n")
    exercise = toy_kit.resolve("ex01")
    with pytest.raises(KitError, match="points"):
        grade(toy_kit, exercise, Submission(exercise.stub_path, "toy.py"))


def test_an_exercise_without_check_files_is_a_kit_fault(toy_kit):
    exercise = toy_kit.resolve("ex01")
    for path in exercise.checks_dir.glob("test_*.py"):
        path.unlink()
    with pytest.raises(KitError, match="no test_"):
        grade(toy_kit, exercise, Submission(exercise.stub_path, "toy.py"))


def test_a_check_can_tell_the_student_why_with_pytest_fail_even_when_hidden(toy_kit):
    exercise = toy_kit.resolve("ex01")
    wrong = toy_kit.root / "wrong_push.py"
    wrong.write_text(Path(toy_kit.root / "solutions" / "ex01_toy" / "toy.py").read_text().replace(
        "items.append(item)", "items = items + [item]"))
    report = grade(toy_kit, exercise, Submission(wrong, "wrong_push.py"), seed=1)
    push = next(test for test in report["tests"] if test["name"] == "push appends to the list it is given")
    assert push["visibility"] == "hidden"
    assert push["message"] == "push must append to the list it was given"


def test_first_failure_stops_the_run_and_the_checks_left_unrun_score_nothing(toy_kit, validate_report):
    exercise = toy_kit.resolve("ex01")
    wrong = toy_kit.root / "wrong.py"
    wrong.write_text("def add(a, b):\n    return 0\n\ndef pair(x):\n    return 0\n\n"
                     "def tag(n):\n    return 0\n\ndef push(items, item):\n    return 0\n")
    whole = validate_report(grade(toy_kit, exercise, Submission(wrong, "wrong.py"), seed=1))
    early = validate_report(grade(toy_kit, exercise, Submission(wrong, "wrong.py"), seed=1, stop_at=StopAt.FIRST_FAILURE))
    assert [t["id"] for t in early["tests"]] == [t["id"] for t in whole["tests"]]
    failed = [t for t in whole["tests"] if t["outcome"] != "passed"]
    assert len(failed) > 1  # so stopping at the first one leaves some unrun
    assert early["score"] <= whole["score"] < whole["max_score"]
    assert sum(t["outcome"] == "failed" for t in early["tests"]) == 1


def test_first_catch_runs_past_a_timeout_and_stops_at_a_failure_on_a_value(toy_kit, validate_report):
    """A deadline may be a busy machine's doing, so grade check's mutants run on until a check fails otherwise."""
    exercise = toy_kit.resolve("ex01")
    wrong = toy_kit.root / "wrong.py"
    wrong.write_text("def add(a, b):\n    while True:\n        pass\n\ndef pair(x):\n    return [x, x]\n\n"
                     "def tag(n):\n    return {'n': n}\n\ndef push(items, item):\n    return 0\n")
    report = validate_report(grade(toy_kit, exercise, Submission(wrong, "wrong.py"), seed=1,
                                   stop_at=StopAt.FIRST_CATCH))
    assert [(t["name"], t["outcome"]) for t in report["tests"]][:3] == [
        ("add of two small numbers", "timeout"), ("pair is a tuple", "failed"),
        ("add of random integers #1", "error")]  # unrun after the catch, so scored 0
    assert all(t["outcome"] == "error" and t["score"] == 0 for t in report["tests"][2:])


def test_given_modules_come_from_the_kit_and_a_known_mistake_that_imports_them_is_diagnosed(toy_kit, tmp_path):
    folder = toy_kit.root / "exercises" / "ex01_toy"
    (folder / "rules.py").write_text("def bonus():\n    return 10\n")
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text() + 'given = ["rules.py"]\n')
    uses_rules = "from rules import bonus\n\n"
    reference = toy_kit.root / "solutions" / "ex01_toy" / "toy.py"
    reference.write_text(uses_rules + reference.read_text().replace("return a + b", "return a + b + bonus() - 10"))
    (toy_kit.root / "solutions" / "ex01_toy" / "wrong" / "adds_the_bonus.py").write_text(
        '"""WRONG ON PURPOSE: add keeps the bonus."""\n\n' + reference.read_text().replace(" - 10", ""))
    exercise = toy_kit.resolve("ex01")
    assert exercise.given == ("rules.py",)
    # The submission brings rules of its own that would make its add right: the kit's copy wins.
    student = tmp_path / "student"
    student.mkdir()
    (student / "rules.py").write_text("def bonus():\n    return 0\n")
    shutil.copyfile(toy_kit.root / "solutions" / "ex01_toy" / "wrong" / "adds_the_bonus.py", student / "toy.py")
    report = grade(toy_kit, exercise, Submission(student, "student"))
    lost = {test["name"] for test in report["tests"] if test["score"] < test["max_score"]}
    assert "add of two small numbers" in lost
    # The known mistake's own code imports the given module too, in the diagnosis's replay.
    assert [entry["mistake"] for entry in report["diagnosis"]] == ["adds_the_bonus"]
    assert grade(toy_kit, exercise, Submission(reference, "reference"))["status"] == "pass"


# -- a grade made ready before its submission (grade --watch)

# A run seed whose hash seed, were the grading process's taken from it, orders strict_greater's
# "Differing items" apart from a ready grade's (made before its seed is known): the runner fixes one.
SEED_ORDERING_SETS_APART = 1


def _without_timings(report: dict) -> dict:
    """A report without what differs between two runs of the same grade: when it ran, how long, CPU waits,
    the uid leased (others may be taken by grades beside it), and which checks the diagnosis named (it
    has a share of the grade's time, and keeps what it found by then)."""
    report = json.loads(json.dumps(report))
    for field in ("started_at", "duration_s"):
        report.pop(field)
    for mistake in report.get("diagnosis") or []:
        mistake.pop("checks")
    for test in report["tests"]:
        test.pop("duration_s", None)
    report["environment"]["sandbox"].pop("cpu", None)
    report["environment"]["sandbox"].pop("uid", None)
    return report


def _until_collected(ready: runner.ReadyGrade, timeout: float = 60) -> None:
    """Wait until the ready grade's pytest has collected its checks and waits for a submission."""
    deadline = time.monotonic() + timeout
    while not ready.files.collected.exists():
        assert ready.process.poll() is None, ready.files.log.read_text()
        assert time.monotonic() < deadline, "the ready grade never collected its checks"
        time.sleep(0.02)


@pytest.mark.parametrize("submitted", ["reference", "strict_greater"])
def test_a_ready_grade_gives_the_report_a_cold_grade_gives(repo_kit, tmp_path, submitted, validate_report):
    exercise = repo_kit.resolve("ex04")
    path = (exercise.solution_dir(repo_kit.root) / exercise.module if submitted == "reference"
            else mutant_file(repo_kit, "ex04", submitted, tmp_path))
    submission = Submission(path, exercise.module)
    cold = validate_report(grade(repo_kit, exercise, submission, seed=SEED_ORDERING_SETS_APART))
    ready = runner.ReadyGrade(repo_kit, exercise)
    _until_collected(ready)
    warm = validate_report(ready.grade(submission, seed=SEED_ORDERING_SETS_APART))
    assert (cold["status"], cold["score"] < cold["max_score"]) == (("pass", False) if submitted == "reference"
                                                                   else ("fail", True))
    assert _without_timings(warm) == _without_timings(cold)
    assert not ready.files.folder.exists()


@pytest.mark.parametrize("submitted", ["reference", "strict_greater"])
def test_a_grade_forked_by_a_launcher_gives_the_report_a_fresh_grade_gives(repo_kit, tmp_path, submitted,
                                                                          validate_report):
    exercise = repo_kit.resolve("ex04")
    path = (exercise.solution_dir(repo_kit.root) / exercise.module if submitted == "reference"
            else mutant_file(repo_kit, "ex04", submitted, tmp_path))
    submission = Submission(path, exercise.module)
    fresh = validate_report(grade(repo_kit, exercise, submission, seed=SEED_ORDERING_SETS_APART))
    with launching.grading_launcher() as launcher:
        if launcher is None:
            pytest.skip("no launcher without the Linux mechanisms")
        forked = [validate_report(grade(repo_kit, exercise, submission, seed=SEED_ORDERING_SETS_APART,
                                        launcher=launcher)) for _ in range(2)]
    assert (fresh["status"], fresh["score"] < fresh["max_score"]) == (("pass", False) if submitted == "reference"
                                                                     else ("fail", True))
    # The second grade forked by the same launcher gives the same report: nothing of the first stayed.
    assert _without_timings(forked[0]) == _without_timings(forked[1]) == _without_timings(fresh)


def test_a_grade_asked_for_no_diagnosis_names_no_mistake_and_is_otherwise_the_same(repo_kit, tmp_path,
                                                                                   validate_report):
    """grade check grades the code it reads only the score of (the stub, the alts, do-nothing code) undiagnosed."""
    exercise = repo_kit.resolve("ex04")
    submission = Submission(mutant_file(repo_kit, "ex04", "strict_greater", tmp_path), exercise.module)
    diagnosed, undiagnosed = (validate_report(grade(repo_kit, exercise, submission, seed=1, diagnose=diagnose))
                              for diagnose in (True, False))
    assert "strict_greater" in [entry["mistake"] for entry in diagnosed["diagnosis"]]
    assert undiagnosed["diagnosis"] == []
    assert ({**_without_timings(undiagnosed), "diagnosis": None}
            == {**_without_timings(diagnosed), "diagnosis": None})


def test_a_grade_whose_launcher_has_ended_starts_afresh(toy_kit, validate_report):
    with launching.grading_launcher() as launcher:
        if launcher is None:
            pytest.skip("no launcher without the Linux mechanisms")
    solution = Submission(toy_kit.root / "solutions" / "ex01_toy" / "toy.py", "toy.py")
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), solution, seed=1, launcher=launcher))
    assert report["status"] == "pass"


def test_a_ready_grade_runs_no_student_code_before_its_submission(toy_kit, validate_report):
    """Made ready while one version of the file is saved, it grades the version saved later, as from cold."""
    exercise = toy_kit.resolve("ex01")
    stub = exercise.stub_path  # the stub scores 0
    solution = toy_kit.root / "solutions" / "ex01_toy" / "toy.py"
    ready = runner.ReadyGrade(toy_kit, exercise)
    _until_collected(ready)
    # Collected and waiting, with its worker started and holding no copy of the file yet.
    workers = [pid for pid in descendants(ready.process.pid)
               if b"worker.py" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert workers
    for pid in workers:
        assert "toy.py" not in os.listdir(f"/proc/{pid}/cwd")
    stub.write_text(solution.read_text())
    warm = validate_report(ready.grade(Submission(stub, "toy.py"), seed=5))
    cold = validate_report(grade(toy_kit, exercise, Submission(stub, "toy.py"), seed=5))
    assert warm["status"] == "pass" and _without_timings(warm) == _without_timings(cold)
    with pytest.raises(RuntimeError, match="grades one submission"):
        ready.grade(Submission(stub, "toy.py"))


def test_a_ready_grade_let_go_unused_leaves_nothing(toy_kit):
    ready = runner.ReadyGrade(toy_kit, toy_kit.resolve("ex01"))
    _until_collected(ready)
    waiting = [ready.process.pid, *descendants(ready.process.pid)]
    ready.close()
    assert ready.process.poll() is not None and not ready.files.folder.exists()
    assert [pid for pid in waiting if Path(f"/proc/{pid}").exists()] == []


def test_a_ready_grade_whose_process_died_grades_from_cold(toy_kit, validate_report):
    exercise = toy_kit.resolve("ex01")
    ready = runner.ReadyGrade(toy_kit, exercise)
    _until_collected(ready)
    os.kill(ready.process.pid, signal.SIGKILL)
    ready.process.wait()
    solution = Submission(toy_kit.root / "solutions" / "ex01_toy" / "toy.py", "toy.py")
    assert validate_report(ready.grade(solution))["status"] == "pass"
