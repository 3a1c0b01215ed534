"""minimax-kit's grader: run an exercise's checks against a submission in a sandbox and report a score."""

__version__ = "0.1.0"

from grader.catalog import Exercise, Kit, KitError  # noqa: E402
from grader.runner import Submission, grade  # noqa: E402

__all__ = ["Exercise", "Kit", "KitError", "Submission", "__version__", "grade"]
