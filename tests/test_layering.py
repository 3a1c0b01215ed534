"""The grader's layering (docs/modules.md): data flows one way, and no module imports one above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GRADER = Path(__file__).resolve().parent.parent / "grader"

# The layers of docs/modules.md, from the bottom up.
LAYERS = [
    {"outcomes", "wire", "reaper", "run_files", "catalog", "source_map"},
    {"failures", "isolation", "namespaces", "cpu_time", "submission", "notebook", "tracing", "mutants", "shards",
     "nothing"},
    {"worker_process", "sandbox", "scoring", "formats", "item_analysis"},
    {"plugin", "proxy", "runner"},
    {"validation", "mutation", "export", "batch", "class_report", "scaffold", "play", "watch", "display",
     "arguments"},
    {"commands", "cli"},
]
LAYER = {name: depth for depth, names in enumerate(LAYERS) for name in names}
# The worker script runs apart, in the worker process, and may import only the wire format.
APART = {"worker": {"wire", "worker_trace"}, "worker_trace": {"wire"}}


def _grader_imports(path: Path) -> set[str]:
    """The grader modules a module imports anywhere in it, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[1] for alias in node.names
                      if alias.name.startswith("grader.") and alias.name.count(".") == 1}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "grader":
                found |= {alias.name for alias in node.names if (GRADER / f"{alias.name}.py").is_file()}
            elif node.module.startswith("grader."):
                found.add(node.module.split(".")[1])
    return found


MODULES = {path.stem: _grader_imports(path) for path in GRADER.glob("*.py") if path.stem != "__init__"}


def test_every_module_has_a_layer():
    assert set(MODULES) == set(LAYER) | set(APART)


@pytest.mark.parametrize("module", sorted(LAYER))
def test_a_module_imports_only_its_own_layer_or_below(module):
    above = {name for name in MODULES[module] if name in LAYER and LAYER[name] > LAYER[module]}
    assert not above, f"grader/{module}.py imports {sorted(above)}, which lie above it"


def test_lower_modules_never_import_the_cli_or_the_display():
    for module, imports in MODULES.items():
        if module not in ("cli", "commands", "watch"):
            assert not imports & {"cli", "commands", "display"}, f"grader/{module}.py imports {imports}"


def test_the_worker_imports_only_the_wire_format():
    for module, allowed in APART.items():
        assert MODULES[module] <= allowed


def test_there_are_no_import_cycles():
    def visit(module: str, path: tuple[str, ...]) -> None:
        for imported in sorted(MODULES.get(module, ())):
            assert imported not in path, f"an import cycle: {' -> '.join([*path, imported])}"
            visit(imported, (*path, imported))

    for module in MODULES:
        visit(module, (module,))


def test_no_module_holds_more_than_one_jobs_worth_of_lines():
    sizes = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in GRADER.glob("*.py")}
    assert {name: size for name, size in sizes.items() if size > 420} == {}
