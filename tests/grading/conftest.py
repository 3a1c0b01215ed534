"""Fixtures the grading wing's tests share."""

from __future__ import annotations

import pytest

from grader.grading import launching


@pytest.fixture(params=["fresh", "launcher"])
def launcher(request):
    """None (each grading process a fresh interpreter), or a launcher that forks them (Linux)."""
    if request.param == "fresh":
        yield None
        return
    with launching.grading_launcher() as started:
        if started is None:
            pytest.skip("no launcher without the Linux mechanisms")
        yield started
