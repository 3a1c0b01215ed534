"""Writing a native report in the formats that pipelines read."""

from __future__ import annotations

import json
from importlib import resources

FORMATS = ("json",)


def load_schema() -> dict:
    """The JSON Schema of the native report, shipped inside the package."""
    return json.loads(resources.files("grader").joinpath("report.schema.json").read_text(encoding="utf-8"))


def render(report: dict, fmt: str = "json") -> str:
    """The report as text in format `fmt`."""
    if fmt == "json":
        return json.dumps(report, indent=2, allow_nan=False) + "\n"
    raise ValueError(f"unknown report format {fmt!r}; choose one of: {', '.join(FORMATS)}")
