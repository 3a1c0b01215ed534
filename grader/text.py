"""Text: the one truncation helper of the kit (for the grading side and the worker alike), and writing a text file.

Standard library only: the worker loads this file beside its script (see grader/sandbox/process.py).
"""

TRUNCATED = " [... truncated]"


def truncate(text, limit, marker=TRUNCATED):
    """`text` cut to at most `limit` characters, ending with `marker` when it was cut; None stays None."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - len(marker)] + marker


def write_text(path, text: str) -> None:
    """Write a UTF-8 text file at `path` (a pathlib.Path), making its folder first."""
    # Not annotated as a Path: the worker loads this file, and need not import pathlib for it.
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
