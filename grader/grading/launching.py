"""How a grading process starts: its environment, and the launcher that forks it.

The standard library and the sandbox's launcher only: `grade` starts a launcher from here before it
imports the rest of itself (grader/cli/entry.py), so that the launcher's imports and `grade`'s own
run side by side.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from grader.grading import PLUGIN
# The face, which loads only the launcher's module and the reaper's (the standard library).
from grader.sandbox import Launcher, linux_mechanisms

# The grading process's hash seed, one for every run (see grading_env).
GRADING_HASH_SEED = "0"
# What a launcher imports once for all the grades it starts: pytest, the plugins a grading run loads,
# and pytest's built-in plugins that it loads (an import that every grade would otherwise repeat).
LAUNCHER_PRELOAD = ("pytest", "pytest_timeout", "pytest_jsonreport.plugin", PLUGIN, "grader.checks",
                    "_pytest.faulthandler", "_pytest.helpconfig", "_pytest.skipping", "_pytest._argcomplete")


def _grading_path() -> str:
    """The grading process's import path: this process's own, as `site` made it, with the grader's
    folder first (an editable install finds it by a finder that -S leaves out)."""
    import grader

    entries = [os.path.dirname(os.path.dirname(os.path.realpath(grader.__file__))),
               *(entry for entry in sys.path if entry and os.path.isabs(entry))]
    return os.pathsep.join(dict.fromkeys(entries))


def grading_env() -> dict[str, str]:
    """The grading process's environment: this process's, less what would change a report, plus the run's own."""
    # A report must not depend on where it was graded, so what would change it is left out: pytest's
    # own variables (PYTEST_ADDOPTS=-x in a student's shell would stop the run at the first failed
    # check, and PYTEST_PLUGINS would bring a plugin into the grading run), and CI and BUILD_NUMBER,
    # with which pytest writes long "Full diff" explanations (difflib, slow on big values).
    env = {name: value for name, value in os.environ.items()
           if name not in ("CI", "BUILD_NUMBER") and not name.startswith("PYTEST_")}
    # Bytecode may be cached: the grader's own modules then load from it, not compiled every grade
    # (the checks' copies' lands in the run folder, and _Bytecode keeps it for the next grade).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=_grading_path(),
               # pytest prints some differences in set order, so its hash seed is fixed: the same
               # submission and seed give the same report, also from a process started before the
               # submission (and so its seed) was known.
               PYTHONHASHSEED=GRADING_HASH_SEED)
    return env


def start_launcher() -> Launcher | None:
    """A started launcher, where Linux offers its mechanisms; else None, and each grade starts a
    fresh interpreter. Its owner ends it (close())."""
    if not linux_mechanisms() or not hasattr(os, "pidfd_open"):
        return None
    # Its interpreter starts as a grading process's would (-S -P, the same environment), so a grade
    # it forks runs as one started afresh would.
    return Launcher(grading_env(), LAUNCHER_PRELOAD)


@contextlib.contextmanager
def grading_launcher(ahead: Launcher | None = None) -> Iterator[Launcher | None]:
    """A launcher for the grades run inside the block: `ahead` if given (its owner ends it), else one
    started now and ended with the block (None where there is none, as start_launcher())."""
    if ahead is not None:
        yield ahead
        return
    launcher = start_launcher()
    if launcher is None:
        yield None
        return
    with launcher:
        yield launcher
