"""minimax-kit's grader: run an exercise's checks against a submission in a sandbox and report a score."""

__version__ = "0.1.0"

__all__ = ["Exercise", "GradeError", "Kit", "KitError", "Submission", "__version__", "grade"]


def __getattr__(name: str):
    """The names above, each imported on first use.

    `grade` alone (the progress list) must start fast, and `grade EXERCISE` starts its launcher
    before it imports the catalog (grader/cli/entry.py); the runner brings in the sandbox.
    """
    if name in ("Exercise", "GradeError", "Kit", "KitError"):
        from grader import catalog

        return getattr(catalog, name)
    if name == "grade":
        from grader import grading

        return grading.grade
    if name == "Submission":
        from grader.submission import Submission

        return Submission
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
