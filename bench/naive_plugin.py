"""The baseline for bench.py: the same checks with the solution imported straight into pytest.

This is how a pytest-in-one-process grader works: no worker, no uid, no copies across a
boundary. It exists only to measure what the sandbox costs, and must never become a mode of
the product: student code here shares the process with the checks and could rewrite them.
"""

from __future__ import annotations

import importlib
import os
import random
import types

import pytest

MARKERS = ("points(n)", "hint(text)", "call_timeout(seconds)")


def pytest_configure(config):
    """Register the kit's markers, as the real plugin does."""
    for marker in MARKERS:
        config.addinivalue_line("markers", marker)


class DirectProxy:
    """`student.name(*args)` calls the imported module directly; generators are drained as the worker does."""

    def __init__(self, module: types.ModuleType):
        self._module = module

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        function = getattr(self._module, name)

        def call(*args, **kwargs):
            result = function(*args, **kwargs)
            return list(result) if isinstance(result, types.GeneratorType) else result

        return call

    def call_observed(self, name: str, *args, **kwargs):
        """The value, and the arguments after the call (the very objects, since nothing was copied)."""
        return getattr(self, name)(*args, **kwargs), args, kwargs


@pytest.fixture(scope="session")
def _solution_module():
    return importlib.import_module(os.environ["BENCH_MODULE"])


@pytest.fixture
def student(_solution_module) -> DirectProxy:
    """The solution module, called in this very process."""
    return DirectProxy(_solution_module)


class NoFeedback:
    """The `feedback` fixture: the baseline passes every check, so extra failure text is dropped."""

    def add(self, text: str) -> None:
        """Drop the text."""

    def on_failure(self, explain) -> None:
        """Drop the explanation: it would run only after a failure, and the baseline fails nothing."""


@pytest.fixture
def feedback() -> NoFeedback:
    """A stand-in for the real plugin's failure feedback."""
    return NoFeedback()


@pytest.fixture
def rng(request) -> random.Random:
    """Seeded exactly as the real plugin seeds it, so both runs draw the same inputs."""
    return random.Random(f"{os.environ['BENCH_SEED']}:{request.node.nodeid}")
