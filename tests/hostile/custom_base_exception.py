"""Attack: raise BaseException subclasses that no `except Exception` catches.

A custom BaseException subclass, GeneratorExit, and one that also pretends to
be pytest's own outcome exceptions by name ("Skipped", "Exit"). None of them may
be raised again as itself in the grading process, where it could skip or end
the check; each becomes a failure that names it.

Should score 0 of 8: every check "failed".
"""


class Skipped(BaseException):
    """Named like pytest's skip outcome, hoping to turn a failure into a skip."""


class Exit(BaseException):
    """Named like pytest's exit outcome."""


class Escape(BaseException):
    pass


def add(a, b):
    raise Escape("not an Exception")


def pair(x):
    raise Skipped("skip me")


def tag(n):
    raise Exit("stop the run")


def push(items, item):
    raise GeneratorExit
