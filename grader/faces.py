"""A wing's face: the names it exports, each loaded from its module when first asked for.

A face imports nothing until a name is used, so `grade` on its own (the progress list) never loads
the sandbox, pytest or the class report's libraries.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(package: str, exports: dict[str, str]) -> Callable[[str], object]:
    """A module `__getattr__` for `package` that loads each name of `exports` from its module on first use."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(f"{package}.{module}")
        # A name the face exports under its module's own name is the module itself (the wire format).
        return loaded if name == module else getattr(loaded, name)

    return __getattr__
