"""Text: the one truncation helper of the kit (for the grading side and the worker alike), and writing a text file, at once or whole.

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


def write_text_atomically(path, text: str) -> None:
    """Write a UTF-8 text file at `path` whole or not at all: a hidden temporary file beside it, then a rename.

    A reader (a spreadsheet, an LMS import, the next command) never meets half a file, and a failed
    write leaves the file that was there before and no temporary one.
    """
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path, data: bytes) -> None:
    """Write `data` at `path` whole or not at all, as write_text_atomically does."""
    write_parts_atomically(path, [data])


def write_parts_atomically(path, parts) -> None:
    """Write the byte strings of the iterable `parts` at `path`, as they come, whole or not at all."""
    import os  # here, not at the top: the worker loads this file and never writes one
    import tempfile

    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            for part in parts:
                file.write(part)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
