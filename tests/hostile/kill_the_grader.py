"""Attack: stop and kill the grading process, the worker's parent, then answer correctly.

The worker's parent is the pytest process that holds the checks. Every call
(and the import) first sends SIGSTOP and SIGKILL to os.getppid() and to its
process group, then returns the right value. Run as root, the worker has its
own unprivileged uid, so both signals fail with PermissionError and the grading
process carries on; the correct answers then earn their points. (Without the
uid drop the grading process would die and the report would fail closed.)

Should score 8 of 8 when graded as root: the kill is refused, the values are right.
"""

import os
import signal


def _kill_the_grader():
    parent = os.getppid()
    for attempt in (
        lambda: os.kill(parent, signal.SIGSTOP),
        lambda: os.killpg(os.getpgid(parent), signal.SIGSTOP),
        lambda: os.kill(parent, signal.SIGKILL),
        lambda: os.killpg(os.getpgid(parent), signal.SIGKILL),
    ):
        try:
            attempt()
        except OSError:
            pass


_kill_the_grader()


def add(a, b):
    _kill_the_grader()
    return a + b


def pair(x):
    _kill_the_grader()
    return (x, x)


def tag(n):
    _kill_the_grader()
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    _kill_the_grader()
    items.append(item)
    return len(items)
