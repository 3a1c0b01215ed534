"""GitHub Actions workflows checked as GitHub reads them: against its workflow schema, offline.

The schema is SchemaStore's `github-workflow.json`, in the copy that check-jsonschema (a test
dependency) ships and validates with; its YAML reader reads `on:` as a key, as GitHub does."""

from __future__ import annotations

import subprocess
import sys

WORKFLOW_SCHEMA = "vendor.github-workflows"


def assert_valid_workflow(text: str, name: str) -> None:
    """Fail, with the validator's own words, unless `text` is a workflow GitHub's schema accepts."""
    checked = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", WORKFLOW_SCHEMA,
                              "--force-filetype", "yaml", "-"], input=text, capture_output=True, text=True,
                             timeout=60, check=False)
    assert checked.returncode == 0, f"{name} is not a valid GitHub Actions workflow:\n{checked.stdout}{checked.stderr}"
