"""Attack: escape the worker's session and become another program, leaving nothing that names the grade.

At import the worker forks a child that calls os.setsid(), forks again (a daemon
that killpg on the worker's group cannot reach) and execs /bin/sleep for ten
minutes. The sleeper's command line is then "sleep 600": nothing in it says
which grade started it, so only its uid and when it started tell it apart.
Then every call answers correctly.

Should score 8 of 8, and leave no process of the worker uids behind.
"""

import os

try:
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["sleep", "600"])
        finally:
            os._exit(0)
except OSError:  # RLIMIT_NPROC: enough processes already
    pass


def add(a, b):
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)
