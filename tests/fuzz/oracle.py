"""What a generated toy.py honestly earns, worked out without running it (compile and ast only).

Only clear-cut submissions get an answer: one that does not compile (so it cannot import), or one
whose top level holds nothing but constants, side-effect-free function definitions and perhaps a
`raise ValueError("text")`, each of the toy's functions either absent or identical, node for node,
to the reference's. Anything else (a function that differs from the reference, another statement
at module level) gets None: its score would need running it, which is the grader's job, not the
oracle's.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox.isolation import choose_interpreter
from tests.fuzz.compile_check import MODULE
from tests.fuzz.submissions import REFERENCE, Case

FUNCTIONS = ("add", "pair", "tag", "push")
COMPILE_CHECK = Path(__file__).with_name("compile_check.py")
# Built-in exceptions whose str() is exactly the one string they are raised with.
PLAIN_EXCEPTIONS = {"ValueError", "RuntimeError", "TypeError", "AssertionError", "SystemExit", "KeyboardInterrupt"}


@dataclass(frozen=True)
class Expected:
    """The outcome a submission honestly gets."""

    import_error: str | None
    """The worker's import error when the module cannot import (it does not compile, or raises), else None."""
    correct: tuple[str, ...]
    """The toy's functions that are exactly the reference's, in the exercise's order."""
    missing: tuple[str, ...]
    """The toy's functions the module does not define, in the exercise's order."""


def worker_compile_errors(cases: tuple[Case, ...], memory_mb: int) -> dict[str, str | None]:
    """Each case's compile error (by case id) as the workers' interpreter reports it, under their memory limit."""
    interpreter, _ = choose_interpreter(os.geteuid() == 0)
    with tempfile.TemporaryDirectory(prefix="minimax-kit-fuzz-") as folder:
        for case in cases:
            Path(folder, case.id).write_bytes(case.data)
        result = subprocess.run([interpreter, "-s", "-P", str(COMPILE_CHECK), folder, str(memory_mb * 2**20)],
                                capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout)


def _reference_defs() -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in ast.parse(REFERENCE).body if isinstance(node, ast.FunctionDef)}


def _side_effect_free(node: ast.FunctionDef) -> bool:
    """Whether defining this function can run nothing: no decorators, defaults or annotations."""
    args = node.args
    every_arg = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    return (not node.decorator_list and node.returns is None and not args.defaults
            and not any(args.kw_defaults) and all(arg.annotation is None for arg in every_arg))


def _raises_plainly(node: ast.stmt) -> bool:
    """Whether the statement is `raise E("constant text")` for a plain built-in exception E."""
    return (isinstance(node, ast.Raise) and node.cause is None and isinstance(node.exc, ast.Call)
            and isinstance(node.exc.func, ast.Name) and node.exc.func.id in PLAIN_EXCEPTIONS
            and not node.exc.keywords and len(node.exc.args) == 1
            and isinstance(node.exc.args[0], ast.Constant) and type(node.exc.args[0].value) is str)


def expect(data: bytes, error: str | None) -> Expected | None:
    """The honest outcome of importing `data` as toy.py and calling its functions, or None if unclear.

    A top-level `raise ValueError("text")` (or another plain built-in exception) ends the import
    with the message "toy.py line N: ValueError: text", where every character of text that does not
    print (a line break, a terminal escape) is shown escaped, as repr() shows it, to keep one line.

    `error` is the module's compile error: from worker_compile_errors, as the workers' interpreter
    words it, or from compile_error, this interpreter's (a few errors are worded differently).
    """
    if error is not None:
        return Expected(error, (), FUNCTIONS)
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # the two interpreters disagree on whether it compiles; the sandbox tests decide
    reference = _reference_defs()
    # A top-level def named like a global the reference uses (ValueError, len) would change it.
    globals_used = {node.id for function in reference.values() for node in ast.walk(function)
                    if isinstance(node, ast.Name)}
    defined: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if _raises_plainly(node) and node.exc.func.id not in defined:
            text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in node.exc.args[0].value)
            place = f"{MODULE} line {node.lineno}: {node.exc.func.id}"
            return Expected(f"{place}: {text}" if text else place, (), FUNCTIONS)
        if not isinstance(node, ast.FunctionDef) or not _side_effect_free(node) or node.name in globals_used:
            return None
        defined[node.name] = node  # a later definition replaces an earlier one, as at import
    for name in FUNCTIONS:
        if name in defined and ast.dump(defined[name]) != ast.dump(reference[name]):
            return None
    return Expected(None, tuple(name for name in FUNCTIONS if name in defined),
                    tuple(name for name in FUNCTIONS if name not in defined))
