"""How a grading process starts (grader/grading/launching.py): the environment it is given, whichever
way it starts (a fresh interpreter, or forked by a launcher)."""

from __future__ import annotations

from grader.grading import launching
from grader.grading.runner import grade
from grader.submission import Submission
from tests.conftest import mutant_file


def test_pytest_s_own_variables_in_the_graders_environment_change_no_report(repo_kit, tmp_path, monkeypatch,
                                                                            launcher, validate_report):
    """PYTEST_ADDOPTS=-x in a student's shell would stop the grade at the first failed check and cost
    them the marks of every check after it; PYTEST_PLUGINS would load a plugin into the grading run."""
    exercise = repo_kit.resolve("ex04")
    submission = Submission(mutant_file(repo_kit, "ex04", "strict_greater", tmp_path), exercise.module)
    plain = validate_report(grade(repo_kit, exercise, submission, seed=1, launcher=launcher))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x --timeout=0.001")
    monkeypatch.setenv("PYTEST_PLUGINS", "no_such_plugin_anywhere")
    assert "PYTEST_ADDOPTS" not in launching.grading_env()
    stirred = validate_report(grade(repo_kit, exercise, submission, seed=1, launcher=launcher))
    assert plain["status"] == stirred["status"] == "fail"
    assert 0 < stirred["score"] == plain["score"] < plain["max_score"]
    assert [(test["name"], test["outcome"]) for test in stirred["tests"]] == \
        [(test["name"], test["outcome"]) for test in plain["tests"]]


def test_an_installed_plugin_named_like_a_grading_plugin_does_not_join_the_run(repo_kit, tmp_path, monkeypatch,
                                                                             validate_report):
    """A distribution on the import path whose pytest entry point bears a grading plugin's module name
    (`pytest -p pytest_timeout` would load it instead) is not loaded: the plugins are handed over as modules."""
    joined = tmp_path / "joined"
    site = tmp_path / "site"
    (site / "impostor-1.0.dist-info").mkdir(parents=True)
    (site / "impostor-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: impostor\nVersion: 1.0\n")
    (site / "impostor-1.0.dist-info" / "entry_points.txt").write_text(
        "[pytest11]\npytest_timeout = impostor_plugin\n")
    (site / "impostor_plugin.py").write_text(f"def pytest_configure(config):\n    open({str(joined)!r}, 'w').close()\n")
    monkeypatch.syspath_prepend(str(site))  # the grading process takes its import path from this one
    exercise = repo_kit.resolve("ex01")
    reference = exercise.solution_dir(repo_kit.root) / exercise.module
    report = validate_report(grade(repo_kit, exercise, Submission(reference, exercise.module), seed=1))
    assert report["status"] == "pass" and report["score"] == report["max_score"]
    assert not joined.exists()
