"""The `grade` command line: its face is `main`, and nothing in the grader imports it."""

from grader.cli.app import main

__all__ = ["main"]
