"""A check function's source from its file's syntax tree: the same text inspect.getsource gives."""

from __future__ import annotations

import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path

import pytest

from grader.grading.check_source import CheckSources

ROOT = Path(__file__).resolve().parents[2]
SHARED_CHECKS = ROOT / "exercises" / "shared_checks"
CHECK_FILES = sorted([*ROOT.glob("exercises/*/checks/*.py"), *SHARED_CHECKS.glob("*.py")])


def _functions(module):
    """Every function the module defines at its top level or in its classes."""
    found, stack = [], list(vars(module).values())
    while stack:
        value = stack.pop()
        if inspect.isclass(value) and value.__module__ == module.__name__:
            stack.extend(vars(value).values())
        elif inspect.isfunction(value) and value.__module__ == module.__name__:
            found.append(value)
    return found


def _load(path: Path, monkeypatch):
    """The file imported as the grading run imports it: the helpers beside it, the shared ones and the
    modules the exercise gives on the path."""
    monkeypatch.syspath_prepend(str(SHARED_CHECKS))
    monkeypatch.syspath_prepend(str(path.parent.parent))
    monkeypatch.syspath_prepend(str(path.parent))
    for sibling in path.parent.glob("*.py"):  # each exercise has its own small_trees, hidden_oracle, ...
        monkeypatch.delitem(sys.modules, sibling.stem, raising=False)
    spec = importlib.util.spec_from_file_location(f"check_source_{path.parent.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_kit_has_check_files_to_compare():
    assert len(CHECK_FILES) >= 20


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda path: str(path.relative_to(ROOT / "exercises")))
def test_every_function_of_every_check_file_has_the_text_inspect_gives(path, monkeypatch):
    module = _load(path, monkeypatch)
    functions = _functions(module)
    assert functions or not path.name.startswith("test_")  # a helper may hold data only
    sources = CheckSources()
    for function in functions:
        assert _text_or_error(sources.of, function) == _text_or_error(inspect.getsource, function), function.__qualname__


def _text_or_error(find, function):
    """The source `find` gives, or the kind of error it raises (a dataclass's made methods have no file)."""
    try:
        return find(function)
    except OSError as exc:
        return type(exc)


ODD_SHAPES = '''
import functools


def plain(a):
    return a


def tagged(label):
    return lambda function: function


@tagged(
    "two lines",
)
@functools.lru_cache(maxsize=None)
def decorated(b):
    x = [
        b,
    ]
    return x
    # a comment after the last statement, inside the block


async def waits():
    return 1


def one_liner(): return 2


class Holder:
    @property
    def value(self):
        def inner():
            return 3
        return inner


def outer():
    def nested(c):
        """Nested."""
        if c:
            return c
        return None
    return nested
'''


def test_odd_shapes_have_the_text_inspect_gives(tmp_path, monkeypatch):
    path = tmp_path / "odd_shapes.py"
    path.write_text(ODD_SHAPES, encoding="utf-8")
    module = _load(path, monkeypatch)
    functions = [module.plain, module.decorated.__wrapped__, module.waits, module.one_liner,
                 module.Holder.value.fget, module.Holder().value, module.outer, module.outer()]
    sources = CheckSources()
    for function in functions:
        assert sources.of(function) == inspect.getsource(function), function.__qualname__
    assert sources.of(module.decorated.__wrapped__).startswith('@tagged(\n    "two lines",\n)\n@functools')
    assert sources.of(module.outer()).startswith("    def nested(c):\n")


def test_a_function_not_written_in_its_file_falls_back_to_the_tokenizer(tmp_path, monkeypatch):
    path = tmp_path / "made.py"
    path.write_text(textwrap.dedent('''
        SOURCE = "def made():\\n    return 1\\n"
        exec(compile("\\n" * 40 + SOURCE, __file__, "exec"))
    '''), encoding="utf-8")
    module = _load(path, monkeypatch)
    with pytest.raises(OSError):  # what inspect.getsource says of it: no such lines in the file
        inspect.getsource(module.made)
    with pytest.raises(OSError):
        CheckSources().of(module.made)


def test_a_file_is_read_once_per_collection(tmp_path, monkeypatch):
    path = tmp_path / "twice.py"
    path.write_text("def one():\n    return 1\n\n\ndef two():\n    return 2\n", encoding="utf-8")
    module = _load(path, monkeypatch)
    sources = CheckSources()
    assert sources.of(module.one) == "def one():\n    return 1\n"
    path.write_text("# changed after the first read\n", encoding="utf-8")
    assert sources.of(module.two) == "def two():\n    return 2\n"


def test_a_function_compiled_in_a_folder_since_removed_is_read_from_its_modules_file(tmp_path, monkeypatch):
    """The checks' cached bytecode names the run folder it was compiled in, which a later run has removed."""
    path = tmp_path / "cached.py"
    path.write_text("def one():\n    return 1\n", encoding="utf-8")
    module = _load(path, monkeypatch)
    module.one.__code__ = module.one.__code__.replace(co_filename=str(tmp_path / "gone" / "cached.py"))
    # pytest's rewriting loader has no get_source, so the tokenizer's way cannot find the text either.
    monkeypatch.setattr(module, "__loader__", None)
    monkeypatch.setattr(module, "__spec__", None)
    with pytest.raises(OSError):
        inspect.getsource(module.one)
    assert CheckSources().of(module.one) == "def one():\n    return 1\n"
