"""The grader's layout (docs/modules.md): a root of shared vocabulary, one wing per job, each behind its face.

Data flows one way, from the command line to the report: the root imports no wing; the sandbox and
the report import only the root; grading imports their faces; the class tools and the authoring
tools import grading's and the report's; the command line imports faces only, and nothing imports
it. Outside a wing, code imports only the wing's face (its `__init__`), and checks import only
`grader.checks`.
"""

from __future__ import annotations

import ast
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GRADER = ROOT / "grader"
# The wings each wing may import (besides the root and itself), by their faces.
MAY_IMPORT = {
    "sandbox": set(),
    "report": set(),
    "grading": {"sandbox", "report"},
    "classroom": {"grading", "report"},
    "authoring": {"grading", "report"},
    "cli": {"sandbox", "grading", "report", "classroom", "authoring"},
}
WINGS = set(MAY_IMPORT)
# Files that run as scripts of their own (the worker, the reaper) or beside the worker: the standard
# library only, and for the worker its siblings loaded by path.
STANDALONE = {"grader/sandbox/worker.py": {"grader.sandbox.wire", "grader.sandbox.worker_trace", "grader.text"},
              "grader/sandbox/worker_trace.py": {"grader.sandbox.wire"},
              "grader/sandbox/wire.py": set(), "grader/sandbox/reaper.py": set(), "grader/text.py": set()}
# The advisory size of a module: a module split by job may be longer, and one past this says so.
ADVISORY_LINES = 420


def _imports(path: Path) -> list[tuple[str, str | None]]:
    """Every grader import in a file, at the top or inside a function: (module, name imported from it or None)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names if alias.name.split(".")[0] == "grader"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "grader":
            found += [(node.module, alias.name) for alias in node.names]
    return found


def _wing(path: Path) -> str:
    """The wing a grader file belongs to, or "root"."""
    parts = path.relative_to(GRADER).parts
    return parts[0] if len(parts) > 1 else "root"


def _face_exports(wing: str) -> set[str]:
    """The names a wing's face exports: its EXPORTS, and what it defines or imports itself."""
    tree = ast.parse((GRADER / wing / "__init__.py").read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "EXPORTS" for t in node.targets):
            names |= {key.value for key in node.value.keys}
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


FILES = sorted(path for path in GRADER.rglob("*.py") if "__pycache__" not in path.parts)
MODULE_FILES = [path for path in FILES if path.name != "__init__.py"]


def _imported_wing(module: str, name: str | None) -> tuple[str, bool]:
    """The wing (or "root") an import reaches, and whether it goes through the wing's face."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in WINGS:
        return parts[1], len(parts) == 2
    if len(parts) == 1 and name in WINGS:  # from grader import sandbox: the face itself
        return name, True
    return "root", True


def test_every_wing_has_a_face_with_all():
    for wing in WINGS:
        face = GRADER / wing / "__init__.py"
        assert face.is_file(), f"grader/{wing}/ has no face"
        assert "__all__" in face.read_text(encoding="utf-8"), f"grader/{wing}/__init__.py has no __all__"


@pytest.mark.parametrize("path", MODULE_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_module_imports_only_what_its_wing_may(path):
    wing = _wing(path)
    relative = str(path.relative_to(ROOT))
    for module, name in _imports(path):
        if relative in STANDALONE:
            assert module in STANDALONE[relative] or f"{module}.{name}" in STANDALONE[relative], \
                f"{relative} runs apart and may not import {module}"
            continue
        target, through_face = _imported_wing(module, name)
        if target in ("root", wing):
            if wing == "root" and relative != "grader/checks.py":
                assert target == "root", f"{relative} is in the root, which imports no wing, but imports {module}"
            continue
        if relative == "grader/checks.py":  # the check writer's face: grading's face, for the tracing errors
            allowed = {"grading"}
        else:
            allowed = MAY_IMPORT.get(wing, set())
        assert target in allowed, f"{relative} ({wing}) may not import the {target} wing ({module})"
        assert through_face, f"{relative} imports {module}, inside the {target} wing: import its face instead"
        from_face_itself = module == "grader" and name == target  # from grader import classroom
        assert from_face_itself or name is None or name in _face_exports(target), \
            f"{relative}: the {target} face has no {name}"


def test_nothing_imports_the_command_line():
    for path in FILES:
        if _wing(path) != "cli":
            assert all(_imported_wing(module, name)[0] != "cli" for module, name in _imports(path)), path


def test_faces_import_nothing_but_their_lazy_loader():
    for wing in WINGS:
        # The command line's face too: the installed script's entry point loads on first use, so that
        # `grade` can start its launcher before it imports the rest of itself (cli/entry.py).
        assert _imports(GRADER / wing / "__init__.py") == [("grader.faces", "lazy_exports")], wing


def test_every_exported_name_exists():
    for wing in WINGS:
        face = __import__(f"grader.{wing}", fromlist=["__all__"])
        for name in face.__all__:
            assert getattr(face, name) is not None, f"grader.{wing}.{name}"


def test_checks_import_only_the_check_writers_face():
    for path in sorted((ROOT / "exercises").glob("*/checks/*.py")) + sorted((ROOT / "exercises").glob("shared_checks/*.py")):
        modules = {module for module, _ in _imports(path)}
        assert modules <= {"grader.checks"}, f"{path.relative_to(ROOT)} imports {sorted(modules)}"


def test_there_are_no_import_cycles():
    """Among the grader's modules, counting only imports at a module's top level (which run at import)."""
    def top_level(path: Path) -> set[str]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("grader"):
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names if alias.name.startswith("grader")}
        return found

    def name_of(path: Path) -> str:
        return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")

    graph = {name_of(path): top_level(path) for path in FILES}

    def visit(module: str, path: tuple[str, ...]) -> None:
        for imported in sorted(graph.get(module, ())):
            assert imported not in path, f"an import cycle: {' -> '.join([*path, imported])}"
            visit(imported, (*path, imported))

    for module in graph:
        visit(module, (module,))


def _loaded_by(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `code`."""
    import json
    import subprocess

    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    return set(json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                                         cwd=ROOT).stdout))


def test_starting_grade_loads_neither_the_sandbox_nor_pytest_nor_the_instructors_tools():
    """`grade` on its own (the progress list) must start fast: the lazy faces load only what it uses."""
    loaded = _loaded_by("import grader.cli.app")
    wings = {name.split(".")[1] for name in loaded if name.startswith("grader.") and name.count(".") >= 1} & WINGS
    assert wings == {"cli", "report"}, wings
    assert not {"pytest", "rich", "jinja2", "matplotlib"} & loaded


def test_the_script_starts_the_launcher_before_it_imports_the_rest_of_grade():
    """What `grade EXERCISE` loads before its launcher starts is the standard library and the launcher's own modules."""
    loaded = _loaded_by("from grader.cli import console\nfrom grader.grading import start_launcher")
    assert {name for name in loaded if name.startswith("grader")} == {
        "grader", "grader.cli", "grader.cli.entry", "grader.faces", "grader.grading", "grader.grading.launching",
        "grader.sandbox", "grader.sandbox.launcher", "grader.sandbox.reaper"}


def test_module_size_is_advisory():
    """A module past the advisory size is named, not failed: modules split by job, not by line count."""
    long = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in FILES}
    long = {name: size for name, size in long.items() if size > ADVISORY_LINES}
    if long:
        warnings.warn(f"modules past {ADVISORY_LINES} lines: {long}", stacklevel=1)
