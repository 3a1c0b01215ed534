"""The files through which the runner and the grading process's plugin talk: one definition for both."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunFiles:
    """A grading run's folder and the files in it; each side writes only its own."""

    folder: Path

    @property
    def config(self) -> Path:
        """The runner's settings for the plugin (module, limits, seed, the submission's folder)."""
        return self.folder / "config.json"

    @property
    def collected(self) -> Path:
        """The plugin's list of checks, written once collection ends and before any check runs."""
        return self.folder / "collected.json"

    @property
    def sandbox(self) -> Path:
        """The plugin's facts about the sandbox: the import's error and output, missing functions, environment, uids."""
        return self.folder / "sandbox.json"

    @property
    def raw(self) -> Path:
        """pytest-json-report's raw report."""
        return self.folder / "raw.json"

    @property
    def log(self) -> Path:
        """pytest's own output, for a collection error's message."""
        return self.folder / "pytest.log"

    @property
    def pytest_root(self) -> Path:
        """pytest's rootdir, holding the copied checks and an empty pytest.ini."""
        return self.folder / "pytest"

    @property
    def submission(self) -> Path:
        """The submission, laid out with the module at its top."""
        return self.folder / "submission"
