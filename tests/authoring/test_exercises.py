"""Every exercise in the kit is sound, as `grade check` proves it: the reference and alt/ get full
marks, the stub scores 0, every known mistake loses points under the three default seeds, and the metadata,
stub and checks agree."""

from __future__ import annotations

import pytest

from grader.catalog import Kit
from grader.authoring.soundness import DEFAULT_SEEDS
from tests.conftest import REPO, run_grade

EXERCISES = [folder.name for folder in Kit(REPO).exercise_folders()]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_grade_check_proves_the_exercise_sound(exercise):
    # The README's promise, as an instructor runs it: the default seeds, three of them.
    assert len(DEFAULT_SEEDS) == 3
    result = run_grade("check", exercise, cwd=REPO, timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"✓ {exercise}" in result.stdout
