"""Code that computes nothing, for `grade check`: fixed behaviours, and the reference's own answers as constants.

A check that pays a constant of the right shape pays for no work. The plainest constants are the
values the checks compare against, so besides the fixed behaviours the battery holds modules whose
every function returns what the reference answered to one of the public examples, whatever it is
asked. Those answers are recorded by running the public checks against the reference, in a
pytest process of its own, with a `student` that calls the reference directly: the reference is
the kit's own code, so it needs no sandbox, and only plain literal values are kept.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.catalog import PUBLIC_CHECKS, Exercise, KitError

# Fixed behaviours: every function of the exercise does one of these. The input, returned, is what
# a mutation check sees.
FIXED = {
    "returns 0": "return 0",
    "returns None": "return None",
    "raises ValueError": "raise ValueError('nothing is computed here')",
    "returns its first argument": "return args[0] if args else None",
    "returns []": "return []",
    "returns ()": "return ()",
    "returns {}": "return {}",
    "returns False": "return False",
}
# How many of a function's distinct recorded answers become constant modules: the first public
# example's answer, and a few more, so that a check whose inputs all share one answer shows up.
RECORDED_ANSWERS = 4  # at most four: the labels name them first to fourth
# The public checks of the reference run in well under a second; a minute is only a backstop.
RECORD_TIMEOUT_S = 60

# The conftest that stands in for the grader's plugin while the public checks run against the
# reference: `student` calls it directly and writes down each answer as a literal.
_RECORDER = '''\
import ast, importlib.util, json, random, sys
import pytest

_spec = importlib.util.spec_from_file_location("reference_under_record", {reference!r})
_module = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _module
_spec.loader.exec_module(_module)
_answers = {{}}


def _keep(name, value):
    text = repr(value)
    try:
        again = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return
    if again == value and type(again) is type(value):
        kept = _answers.setdefault(name, [])
        if text not in kept:
            kept.append(text)


class _Recorder:
    def __getattr__(self, name):
        function = getattr(_module, name)

        def call(*args, **kwargs):
            value = function(*args, **kwargs)
            _keep(name, value)
            return value
        return call

    def call_observed(self, name, *args, **kwargs):
        return getattr(self, name)(*args, **kwargs), args, kwargs


class _Feedback:
    def add(self, text):
        pass

    def on_failure(self, explain):
        pass


@pytest.fixture
def student():
    return _Recorder()


@pytest.fixture
def feedback():
    return _Feedback()


@pytest.fixture
def rng(request):
    return random.Random(request.node.nodeid)


def pytest_sessionfinish(session, exitstatus):
    with open({answers!r}, "w", encoding="utf-8") as out:
        json.dump(_answers, out)
'''


@dataclass(frozen=True)
class NothingModule:
    """One module of the battery: what its functions do, and where it was written."""

    label: str
    path: Path


def recorded_answers(exercise: Exercise, reference: Path, timeout: float = RECORD_TIMEOUT_S) -> dict[str, list[str]]:
    """Each function's distinct answers, as literals, in the order the reference gave them to the public checks."""
    with tempfile.TemporaryDirectory(prefix="minimax-kit-record-") as scratch:
        folder = Path(scratch)
        public = exercise.checks_dir / PUBLIC_CHECKS
        if not public.is_file():
            return {}
        helpers = [path for path in sorted(exercise.checks_dir.glob("*.py")) if not path.name.startswith("test_")]
        # The given modules too: the reference imports them, from the folder pytest runs in.
        for path in [*sorted(exercise.shared_checks_dir.glob("*.py")), *helpers, public, *exercise.given_paths]:
            shutil.copyfile(path, folder / path.name)
        answers = folder / "answers.json"
        (folder / "conftest.py").write_text(
            _RECORDER.format(reference=str(reference), answers=str(answers)), encoding="utf-8")
        (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            # Failing checks do not matter here: only the answers the reference gave are kept.
            subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore",
                            PUBLIC_CHECKS], cwd=folder, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise KitError(f"{public}: the public checks did not end within {timeout:g} s against "
                           "the reference, so its answers could not be recorded") from None
        if not answers.is_file():
            raise KitError(f"{public}: running the public checks against the reference recorded nothing")
        found = json.loads(answers.read_text(encoding="utf-8"))
    return {name: found[name] for name in exercise.functions if found.get(name)}


def _module_text(label: str, bodies: dict[str, str]) -> str:
    """A module whose functions take anything and run the given one-line bodies."""
    functions = "\n\n".join(f"def {name}(*args, **kwargs):\n    {body}\n" for name, body in bodies.items())
    return f'"""Computes nothing: {label}."""\n\n\n{functions}'


def battery(exercise: Exercise, answers: dict[str, list[str]], folder: Path) -> list[NothingModule]:
    """The fixed behaviours, then the recorded answers as constants, each written as a module under `folder`."""
    plans = [(f"every function {label}", {name: body for name in exercise.functions})
             for label, body in FIXED.items()]
    for index in range(min(max(map(len, answers.values()), default=0), RECORDED_ANSWERS)):
        # A function with fewer answers keeps returning its last; one never asked returns None.
        bodies = {name: f"return {answers[name][min(index, len(answers[name]) - 1)]}" if name in answers
                  else "return None" for name in exercise.functions}
        ordinal = ("first", "second", "third", "fourth")[index]
        plans.append((f"every function returns the {ordinal} answer the reference gave the public checks", bodies))
    modules = []
    for index, (label, bodies) in enumerate(plans):
        path = folder / f"nothing_{index}" / exercise.module
        path.parent.mkdir(parents=True)
        path.write_text(_module_text(label, bodies), encoding="utf-8")
        modules.append(NothingModule(label, path))
    return modules

