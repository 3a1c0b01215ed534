"""What a traced call's code read from its arguments, as the `student.traced` proxy call returns it.

Feedback only: a failed public check of ex04 or ex07 draws what the student's search looked at.
The trace comes from the worker, where student code could touch it, so it is checked before use.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.sandbox import wire


class TracingUnavailable(Exception):
    """What the student's code read could not be traced reliably; the message says why, for feedback."""


# Why a traced call can go differently from a plain one, said where that is the likely cause.
TRACED_LISTS_HINT = ("this happens, for example, when code tests type(x) is list rather than "
                      "isinstance(x, list)")


@dataclass(frozen=True)
class TraceRead:
    """One element that the student's code fetched from a traced argument's nested lists."""

    path: tuple[int, ...]
    """Where the element sits in the argument: (1, 2) is arg[1][2]."""
    function: str
    """The student's function (or comprehension) that fetched it, "?" if none of the student's code did."""
    line: int
    """The first line of that function, which tells apart functions of the same name."""
    how: str
    """How it was fetched: "loop" (by a for loop), "index" (as arg[i]) or "bulk" (list(), sorted() and the like)."""
    container: int
    """Which list, or slice of one, it came from: a number into Trace.sizes."""
    index: int
    """Its position in that list or slice."""


@dataclass(frozen=True)
class Trace:
    """A traced call: what it returned and, in order, every element its code fetched."""

    value: object
    reads: tuple[TraceRead, ...]
    sizes: tuple[int, ...]
    """The length of each list (and slice of one) the reads came from."""


def parse_trace(raw) -> tuple[tuple[TraceRead, ...], tuple[int, ...]]:
    """The worker's trace as TraceReads; anything malformed (student code can touch it) is unavailable."""
    malformed = TracingUnavailable("the trace came back malformed")
    if type(raw) is not dict:
        raise malformed
    if raw.get("mutated") is True:
        raise TracingUnavailable("your code changed the lists it was given, so what it read cannot be matched "
                                 "to places in them")
    if raw.get("truncated") is True:
        raise TracingUnavailable(f"your code read more than {wire.MAX_TRACE_READS:,} elements")
    sites, sizes, reads = raw.get("sites"), raw.get("sizes"), raw.get("reads")
    if not (type(sites) is list and type(sizes) is list and type(reads) is list
            and all(type(size) is int and size >= 0 for size in sizes)
            and all(type(site) is list and len(site) == 3 and type(site[0]) is str and type(site[1]) is int
                    and site[2] in ("loop", "index", "bulk") for site in sites)):
        raise malformed
    parsed = []
    for read in reads:
        if not (type(read) is tuple and len(read) == 4 and type(read[0]) is tuple
                and all(type(step) is int for step in read[0]) and all(type(n) is int for n in read[1:])
                and 0 <= read[1] < len(sites) and 0 <= read[2] < len(sizes) and 0 <= read[3] < sizes[read[2]]):
            raise malformed
        function, line, how = sites[read[1]]
        parsed.append(TraceRead(read[0], function, line, how, read[2], read[3]))
    return tuple(parsed), tuple(sizes)
