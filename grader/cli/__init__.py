"""The `grade` command line: its face is `main` (and `console`, the installed script), and nothing in the grader imports it."""

from grader.cli.app import console, main

__all__ = ["console", "main"]
