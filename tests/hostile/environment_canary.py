"""Attack: read the grader's environment (tokens, paths) from inside the worker.

The test sets a canary variable in the grading process's environment before
grading. add returns os.environ as a dict (a public check prints returned
values in its failure message), pair prints os.environ, and the import prints
it too; tag tries to read the grading process's own environment through
/proc/<ppid>/environ, and push through /proc/1/environ. The worker's
environment is built from scratch, and as root /proc/<pid>/environ of a root
process is unreadable, so the canary must appear nowhere in the report.

Should score 0 of 8: every check "failed"; the canary is not in the report,
while the worker's own variables (PYTHONHASHSEED) are.
"""

import os

print("IMPORT ENV", dict(os.environ))


def _proc_environ(pid):
    """Another process's environment, the variables that look secret first (output is capped)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            entries = handle.read().decode(errors="replace").split("\0")
    except OSError as exc:
        return f"DENIED {type(exc).__name__}"
    return " ".join(sorted(entries, key=lambda entry: not any(word in entry.upper() for word in SECRET_LOOKING)))


SECRET_LOOKING = ("TOKEN", "SECRET", "KEY", "CANARY", "PASSWORD")


def add(a, b):
    return dict(os.environ)


def pair(x):
    print("CALL ENV", dict(os.environ))
    print("PARENT ENV", _proc_environ(os.getppid()))
    return None


def tag(n):
    return _proc_environ(os.getppid())


def push(items, item):
    return _proc_environ(1)
