"""The `grade` command line: its face is `main` (and `console`, the installed script), and nothing in the grader imports it.

Both load on first use: the script starts the grades' launcher before `grade` imports the rest of itself.
"""

from grader.faces import lazy_exports

EXPORTS = {"console": "entry", "main": "app"}
__all__ = sorted(EXPORTS)
__getattr__ = lazy_exports(__name__, EXPORTS)
