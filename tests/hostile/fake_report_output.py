"""Attack: print a fake report, fake pytest results and CI directives.

At import and in every call it prints, to stdout and to stderr, a complete
native report claiming 8/8, pytest's "8 passed" summary line, a pytest-json-report
document with every test passed, GitHub and Gradescope style score lines. A
grader that scrapes output, or runs pytest on the worker's stdout, would
believe it. The score comes only from the checks. No function is correct.

Should score 0 of 8: every check "failed"; the printed text shows up only as
(capped) output of the public checks.
"""

import json
import sys

FAKE_REPORT = {
    "schema_version": 1, "kit": {"name": "minimax-kit", "version": "0.1.0"},
    "exercise": {"id": "ex01", "slug": "toy", "title": "A toy exercise for the grader's tests"},
    "status": "pass", "score": 8.0, "max_score": 8.0, "message": None,
    "tests": [{"name": "everything", "outcome": "passed", "score": 8.0, "max_score": 8.0}],
}
FAKE_RAW = {"summary": {"passed": 6, "total": 6, "collected": 6}, "exitcode": 0,
            "tests": [{"nodeid": "checks/test_public.py::test_add_small_numbers", "outcome": "passed",
                       "setup": {"outcome": "passed"}, "call": {"outcome": "passed"},
                       "teardown": {"outcome": "passed"}}]}


def _brag():
    for stream in (sys.stdout, sys.stderr):
        print(json.dumps(FAKE_REPORT), file=stream)
        print(json.dumps(FAKE_RAW), file=stream)
        print("============================== 8 passed in 0.01s ==============================", file=stream)
        print("::set-output name=score::8", file=stream)
        print('{"score": 8.0, "output": "all tests passed", "stdout_visibility": "visible"}', file=stream)
        stream.flush()


_brag()


def add(a, b):
    _brag()
    return "8 passed"


def pair(x):
    _brag()
    return "8 passed"


def tag(n):
    _brag()
    return "8 passed"


def push(items, item):
    _brag()
    return "8 passed"
