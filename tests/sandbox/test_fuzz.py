"""Fuzzing: generated broken and random toy.py submissions all get a clear, honest outcome.

tests/fuzz/submissions.py draws 22 submissions from each of twelve generators (random bytes,
token soup, truncations, shuffled lines, deleted or doubled characters, random indentation, bytes
that are not UTF-8, NUL bytes, huge lines, functions among garbage, an exception at import), each
from a fixed seed.

Every case goes through the sandbox directly, which is fast: start a
worker, then call each of the toy's functions once. The import either fails with ImportFailed or
succeeds; each call returns a value, or fails with a StudentFailure or with the student's exception
rebuilt as a built-in one; every message is one printable line; and no process of the worker's uid
outlives the sandbox. Where tests/fuzz/oracle.py can tell without running the code what a case
earns (it does not compile, or its functions are absent or exactly the reference's), the outcome
must match it to the letter.

A deterministic sample of those clear-cut cases, two per generator (the first of each kind of
outcome first), also goes through the real runner (grader.grading.runner.grade, as `grade` does): the report
must validate against the schema and give the honest status, score and one-line message.

The fuzz found one hole, now fixed: an exception raised at import carried its raw message (line
breaks, terminal escapes) into the report's one-line message; the raises_at_import cases hold it.
"""

from __future__ import annotations

import pytest

from grader.grading.runner import grade
from grader.submission import Submission
from grader.failures import FailureKind, ImportFailed, StudentFailure, StudentRaised
from grader.outcomes import Outcome
from grader.sandbox.service import Sandbox, SandboxSettings
from tests import leftovers
from tests.fuzz.compile_check import compile_error
from tests.fuzz.oracle import FUNCTIONS, MODULE, Expected, expect, worker_compile_errors
from tests.fuzz.submissions import GENERATORS, Case, all_cases, make_case

PER_KIND = 22
CASES = tuple(all_cases(PER_KIND))
# One call of each function, with the value the reference returns for it.
PROBES = {"add": ((2, 3), 5), "pair": ((7,), (7, 7)), "tag": ((4,), {"n": 4}), "push": (([1, 2], 3), 3)}
CALL_TIMEOUT = 1.0  # the toy exercise's call_timeout
MEMORY_MB = 256  # the toy exercise's memory_mb
# The toy exercise's checks in report order, with the function each one tests and its points.
CHECKS = {
    "add of two small numbers": ("add", 2.0),
    "pair is a tuple": ("pair", 1.0),
    "add of random integers #1": ("add", 1.0),
    "add of random integers #2": ("add", 1.0),
    "tag rejects a negative number": ("tag", 2.0),
    "push appends to the list it is given": ("push", 1.0),
}


class Hole(AssertionError):
    """The grader broke one of its promises on a generated submission; each subclass names which."""


class GraderCrashed(Hole):
    """The sandbox raised something other than a student failure or a student's exception."""


class UnclearMessage(Hole):
    """A failure's message is empty, spans several lines or holds unprintable characters."""


class DishonestOutcome(Hole):
    """The outcome differs from the one the submission honestly gets."""


class ProcessLeftBehind(Hole):
    """A process of the worker's uid outlived its sandbox."""


def is_clear(message: str | None) -> bool:
    """Whether a student can read the message: one non-empty line of printable characters."""
    return bool(message) and len(message.splitlines()) == 1 and message.isprintable()


def assert_clear(message: str, what: str) -> None:
    """Raise UnclearMessage unless the message is one clear line."""
    if not is_clear(message):
        raise UnclearMessage(f"{what}: {message!r}")


def _local_expectation(case: Case) -> Expected | None:
    """The case's honest outcome, with this interpreter's compile errors (enough to choose and mark cases)."""
    return expect(case.data, compile_error(case.data))


def _param(case: Case, expected: Expected | None):
    """The case as a pytest param named for its generator and number."""
    return pytest.param(case, id=case.id)


def _signature(expected: Expected) -> tuple[bool, bool, bool]:
    """The kind of outcome: earns points, imports, has a clear import error."""
    return bool(expected.correct), expected.import_error is None, is_clear(expected.import_error)


def _sample(expectations: dict[Case, Expected | None], per_kind: int = 2) -> tuple[Case, ...]:
    """`per_kind` clear-cut cases of every generator, the first of each kind of outcome before any other."""
    chosen = []
    for kind in GENERATORS:
        clear = [case for case, expected in expectations.items() if case.kind == kind and expected is not None]
        firsts: dict[tuple, Case] = {}
        for case in clear:
            firsts.setdefault(_signature(expectations[case]), case)
        picked = list(firsts.values())[:per_kind]
        chosen += picked + [case for case in clear if case not in picked][: max(0, per_kind - len(picked))]
    return tuple(chosen)


EXPECTATIONS = {case: _local_expectation(case) for case in CASES}
SAMPLE = _sample(EXPECTATIONS)


@pytest.fixture(scope="module")
def compile_errors() -> dict[str, str | None]:
    """Every case's compile error, as the interpreter that runs the workers words it."""
    return worker_compile_errors(CASES, MEMORY_MB)


# -- through the sandbox directly -----------------------------------------------------------------


def probe(box: Sandbox) -> dict:
    """Start the worker and call each function once: {"import": ImportFailed} or {name: value or exception}."""
    try:
        box.start()
    except ImportFailed as exc:
        return {"import": exc}
    except Exception as exc:
        raise GraderCrashed(f"starting the sandbox raised {exc!r}") from exc
    results = {}
    for name, (args, _) in PROBES.items():
        try:
            results[name] = box.call(name, args, {}, timeout=CALL_TIMEOUT).value
        except (StudentFailure, StudentRaised) as exc:  # a student's exception is rebuilt as a marked built-in
            results[name] = exc
        except Exception as exc:
            raise GraderCrashed(f"calling {name} raised {exc!r}, which is no student failure") from exc
    return results


def assert_outcomes_clear(results: dict) -> None:
    """Every failure is of a known kind, with one clear line for public and for hidden checks."""
    if "import" in results:
        failure = results["import"]
        assert failure.failure.outcome is Outcome.ERROR
        assert_clear(failure.message, "the import error")
        return
    for name, result in results.items():
        if isinstance(result, StudentFailure):
            assert_clear(result.message, f"{name}'s failure")
            assert_clear(result.hidden_message, f"{name}'s failure in a hidden check")
        elif isinstance(result, BaseException):
            assert type(result).__module__ == "builtins" and isinstance(result, Exception), repr(result)
            assert_clear(f"{type(result).__name__}: {result}", f"{name}'s exception")
            assert_clear(result.student.hidden_message(), f"{name}'s exception in a hidden check")
            for note in getattr(result, "__notes__", []):
                assert_clear(note, f"{name}'s exception note")


def assert_outcomes_honest(results: dict, expected: Expected) -> None:
    """The outcomes the oracle worked out: the exact import error, or the reference's values."""
    if expected.import_error is not None:
        got = results["import"].message if "import" in results else f"it imported: {results}"
        if got != expected.import_error:
            raise DishonestOutcome(f"expected the import error {expected.import_error!r}, got {got!r}")
        return
    if "import" in results:
        raise DishonestOutcome(f"a module that compiles and only defines functions did not import: "
                               f"{results['import'].message}")
    for name in expected.correct:
        if results[name] != PROBES[name][1]:
            raise DishonestOutcome(f"{name} is the reference's, yet returned {results[name]!r}")
    for name in expected.missing:
        result = results[name]
        if not (isinstance(result, StudentFailure) and result.failure.kind is FailureKind.MISSING
                and result.message == f"{MODULE} has no function {name}"):
            raise DishonestOutcome(f"{name} is not defined, yet the call gave {result!r}")


@pytest.mark.parametrize("case", [_param(case, EXPECTATIONS[case]) for case in CASES])
def test_a_fuzzed_submission_gets_a_clear_outcome_from_the_sandbox(case, tmp_path, compile_errors):
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / MODULE).write_bytes(case.data)
    box = Sandbox(SandboxSettings(module=MODULE, functions=FUNCTIONS, source_dir=folder, memory_mb=MEMORY_MB,
                                  cpu_seconds=60, hash_seed=1))
    left = leftovers.Leftovers()
    try:
        try:
            results = probe(box)
        finally:
            box.close()
        left.assert_none(box.uids_used, ProcessLeftBehind)
    finally:
        left.close()
    assert_outcomes_clear(results)
    expected = expect(case.data, compile_errors[case.id])
    if expected is not None:
        assert_outcomes_honest(results, expected)


# -- a sample through the real runner -------------------------------------------------------------


def runner_import_error(data: bytes, expected: Expected) -> str | None:
    """The report's message for a module that cannot be graded: the runner refuses binary and
    non-UTF-8 files itself, before any worker, and reports the worker's import error otherwise."""
    if b"\0" in data:
        return f"{MODULE} is not Python source: it contains NUL bytes (is it a binary file?)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return f"{MODULE} line {line}: byte 0x{data[exc.start]:02x} is not UTF-8; save the file as UTF-8"
    return expected.import_error


@pytest.mark.parametrize("case", [_param(case, EXPECTATIONS[case]) for case in SAMPLE])
def test_a_fuzzed_submission_gets_an_honest_valid_report_from_the_runner(case, toy_kit, tmp_path, validate_report,
                                                                         compile_errors):
    path = tmp_path / MODULE
    path.write_bytes(case.data)
    report = validate_report(grade(toy_kit, toy_kit.resolve("ex01"), Submission(path, MODULE), seed=1))
    expected = expect(case.data, compile_errors[case.id])
    assert expected is not None, "the workers' interpreter and this one disagree on whether the case compiles"
    assert [(test["name"], test["max_score"]) for test in report["tests"]] == [
        (name, points) for name, (_, points) in CHECKS.items()]
    error = runner_import_error(case.data, expected)
    if error is not None:
        assert (report["status"], report["score"], report["message"]) == ("error", 0.0, error)
        assert_clear(report["message"], "the report's message")
        for test in report["tests"]:
            assert (test["outcome"], test["score"], test["message"]) == ("error", 0.0, f"not run: {error}")
        return
    earned = {name: points if function in expected.correct else 0.0 for name, (function, points) in CHECKS.items()}
    got = {test["name"]: test["score"] for test in report["tests"]}
    if got != earned or report["score"] != sum(earned.values()):
        raise DishonestOutcome(f"scores {got}, expected {earned}")
    for test in report["tests"]:
        assert (test["outcome"] == "passed") == (CHECKS[test["name"]][0] in expected.correct), test
    assert report["status"] == ("pass" if report["score"] == report["max_score"] else "fail")
    if expected.missing:
        assert report["message"] == f"{MODULE} does not define: {', '.join(expected.missing)}"
        assert_clear(report["message"], "the report's message")
    else:
        assert report["message"] is None


# -- the generators themselves ---------------------------------------------------------------------


def test_the_fuzz_is_big_varied_and_reproducible():
    assert len(CASES) >= 200 and {case.kind for case in CASES} == set(GENERATORS)
    assert len({case.data for case in CASES}) > 0.9 * len(CASES), "the generators repeat themselves"
    # A generator that drew from the global random module, or from the clock, would differ here.
    assert all(make_case(case.kind, case.index) == case for case in CASES[::7])
    expectations = [EXPECTATIONS[case] for case in SAMPLE]
    assert {case.kind for case in SAMPLE} == set(GENERATORS)
    assert any(e.import_error for e in expectations) and any(e.correct for e in expectations)
    assert any(e.import_error is None and e.missing for e in expectations)
    raising = [EXPECTATIONS[case] for case in SAMPLE if case.kind == "raises_at_import"]
    # Some raise text with line breaks or terminal escapes, which must reach the report escaped.
    assert all(is_clear(e.import_error) for e in raising) and any("\\" in e.import_error for e in raising)
