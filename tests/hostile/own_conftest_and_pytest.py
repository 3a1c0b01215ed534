"""Attack: ship a conftest.py and a fake pytest.py next to the module.

The test lays out a submission folder holding this file as toy.py, plus
conftest.py and pytest.py written from CONFTEST and PYTEST below. If the
grading process ever collected the conftest, its hook would turn every check
into a pass; if it imported the fake pytest, the whole run would be the
student's. Both first write a marker file next to MARKER (filled in by the test:
a folder only root can write to), naming the importer's folder, so any import
by the grading process is visible. The
grading process never has the submission on sys.path or under its rootdir.
Inside the worker they are ordinary files: add imports the fake pytest there
and prints what it got, harmlessly. No function is correct.

Should score 0 of 8: every check "failed"; neither marker file exists.
"""

MARKER = "@MARKER@"

CONFTEST = '''
import os
import pytest

MARKER = "@MARKER@"
with open(MARKER + ".conftest", "w") as handle:
    handle.write(f"conftest.py imported by pid {os.getpid()} uid {os.getuid()} in {os.getcwd()}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None


def pytest_collection_modifyitems(items):
    del items[:]
'''

PYTEST = '''
import os

FAKE = True
MARKER = "@MARKER@"
try:
    with open(f"{MARKER}.pytest.{os.getpid()}", "w") as handle:
        handle.write(f"pytest.py imported by pid {os.getpid()} uid {os.getuid()} in {os.getcwd()}")
except OSError:
    pass


def main(*args, **kwargs):
    return 0


def __getattr__(name):
    return lambda *args, **kwargs: (lambda function: function)
'''


def add(a, b):
    import pytest  # in the worker, the submission's folder comes first: this is the fake

    print("imported pytest from", pytest.__file__, "fake:", getattr(pytest, "FAKE", False))
    return None


def pair(x):
    return None


def tag(n):
    return None


def push(items, item):
    return None
