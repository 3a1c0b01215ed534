"""Attack: leave sleeping child processes behind, some escaped with os.setsid().

At import and in every call the worker forks one child that sleeps in the
worker's session, and one that calls os.setsid() and forks again (a daemon
that killpg on the worker's group cannot reach). Each sleeps for ten minutes
and would outlive the grade. Then the call answers correctly.

Should score 8 of 8, and leave no process of the worker uids behind (the
grader kills every process of the uid when a worker ends).
"""

import os
import time


def _spawn_sleepers():
    for escape in (False, True):
        try:
            child = os.fork()
        except OSError:  # RLIMIT_NPROC: enough processes already
            return
        if child == 0:
            try:
                if escape:
                    os.setsid()
                    if os.fork() != 0:
                        os._exit(0)
                time.sleep(600)
            finally:
                os._exit(0)
        if escape:
            os.waitpid(child, 0)  # the intermediate child exits at once; its grandchild is orphaned


_spawn_sleepers()


def add(a, b):
    _spawn_sleepers()
    return a + b


def pair(x):
    _spawn_sleepers()
    return (x, x)


def tag(n):
    _spawn_sleepers()
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    _spawn_sleepers()
    items.append(item)
    return len(items)
