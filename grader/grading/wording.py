"""A failed check's message: what the student may see of it, public or hidden. Pure functions."""

from __future__ import annotations

import re

# pytest's introspection of `student.NAME(...)` ends in "where student.NAME = student.NAME": it says nothing.
_SELF_EVIDENT = re.compile(r"^\s*\+\s+where (.+) = \1$")
# pytest.raises names the class it expected by its repr since pytest 9 ("DID NOT RAISE <class
# 'ValueError'>"), and by its name before: a message says the name whichever pytest is installed.
_CLASS_REPR = re.compile(r"<class '(?:builtins\.)?([\w.]+)'>")


def is_rerun_advice(line: str) -> bool:
    """Whether a line of pytest's is its advice to rerun with -v or -vv, which a student cannot take."""
    words = line.lower()
    return any(f"use -{'v' * count} to {what}" in words for count in (1, 2, 3) for what in ("get more diff", "show"))


def explanation(exception_only: str) -> str:
    """pytest's one-exception summary, without its advice to rerun with -v (students cannot) and without
    lines that say a name is itself."""
    lines = [raised_words(line) for line in exception_only.splitlines()]
    return "\n".join(line for line in lines if not is_rerun_advice(line) and not _SELF_EVIDENT.match(line)).rstrip()


def raised_words(line: str) -> str:
    """A "DID NOT RAISE" line with each class named as a student writes it: ValueError, not <class 'ValueError'>."""
    return _CLASS_REPR.sub(r"\1", line) if "DID NOT RAISE" in line else line


def check_message(words: str | None, *, public: bool, hint: str | None, notes: list[str]) -> str | None:
    """The message of a failed check: its words, then its hint, then (public only) the check's notes.

    A hidden check always says something, if only that it failed; its notes (a picture of its
    input, say) are never shown.
    """
    if not public:
        return "\n".join(part for part in (words, hint and f"Hint: {hint}") if part) or "this hidden check failed"
    message = f"{words}\nHint: {hint}" if hint else words
    if notes:
        # The hint stays next to the failure; notes (a picture, say) are longer, so they come last.
        message = "\n\n".join([message or "this check failed", *notes])
    return message
