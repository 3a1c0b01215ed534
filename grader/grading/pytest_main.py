"""The grading process's main: pytest, with the grading run's three plugins handed to it as modules.

`python -m pytest -p NAME` would do the same, but for each `-p` pytest 9 first reads the entry
points of every installed distribution, in case one names a plugin NAME (three scans a grade, each
reading every distribution's entry_points.txt), and such an entry point would win over the module meant. Handed over as modules, the
plugins are exactly these, found by import alone.
"""

from __future__ import annotations

import sys

import pytest
import pytest_jsonreport.plugin
import pytest_timeout

from grader.grading import plugin


def main(args: list[str]) -> int:
    """Run pytest on `args` with pytest-timeout, pytest-json-report and the grading plugin."""
    return pytest.main(args, plugins=[pytest_timeout, pytest_jsonreport.plugin, plugin])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
