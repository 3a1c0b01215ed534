"""Whether a toy.py compiles, and the worker's one-line import error when it does not.

The oracle needs the answer of the interpreter that runs the workers, which may be another patch
release than the test's own (as root, a system Python: 3.11.2 says ValueError where 3.11.7 says
SyntaxError for a NUL byte). So this file is also a script for that interpreter, using only the
standard library: `python compile_check.py FOLDER MEMORY_BYTES` prints {file name: error or null}
for every file in FOLDER, under the worker's address-space limit.
"""

import json
import os
import sys

MODULE = "toy.py"


def compile_error(data):
    """The message the worker gives a module that fails to compile ("toy.py line 3: SyntaxError: ..."), or None."""
    try:
        # compile, never exec: the worker's import compiles these same bytes the same way.
        compile(data, MODULE, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return _one_line(f"{MODULE} line {exc.lineno or 0}", type(exc).__name__, str(exc.msg))
    except (ValueError, RecursionError, MemoryError) as exc:
        return _one_line(MODULE, type(exc).__name__, str(exc))
    return None


def _one_line(place, kind, text):
    return f"{place}: {kind}: {text}" if text else f"{place}: {kind}"


def main():
    """Print {name: compile error or None} for every file of the folder in argv[1]."""
    import resource

    folder, memory = sys.argv[1], int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    errors = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            errors[name] = compile_error(handle.read())
    json.dump(errors, sys.stdout)


if __name__ == "__main__":
    main()
