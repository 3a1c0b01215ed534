"""The run's contract: each file the runner and the plugin exchange, written and read back as its dataclass."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.outcomes import Outcome
from grader.run_contract import (
    Check,
    CheckFeedback,
    Collected,
    CpuWait,
    Explained,
    RunFiles,
    RunSettings,
    SandboxFacts,
    StopAt,
)
from grader.source_map import CellSpan, SourceMap


def test_the_settings_read_back_as_written_with_a_notebooks_source_map(tmp_path):
    source_map = SourceMap("w.ipynb", (CellSpan(cell=3, first_line=1, lines=4),))
    settings = RunSettings(module="toy.py", functions=("add", "pair"), call_timeout=1.0, check_timeout=5.0,
                           memory_mb=256, public_file="test_public.py", seed=7, source_dir=str(tmp_path),
                           submission_error=None, source_map=source_map, stop_at=StopAt.FIRST_CATCH)
    files = RunFiles(tmp_path)
    settings.write(files.settings)
    assert RunSettings.read(files.settings) == settings


def test_the_checks_and_the_sandbox_facts_read_back_as_written(tmp_path):
    files = RunFiles(tmp_path)
    check = Check(nodeid="checks/test_hidden.py::test_g", id="checks/test_hidden.py::test_g", name="g",
                  visibility="hidden", points=2.0, hint="look", budget_s=5.0, code=None, family="g",
                  requires=("checks/test_hidden.py::test_f",))
    collected = Collected((check,), ("checks/test_bad.py: SyntaxError",))
    collected.write(files.collected)
    assert Collected.read(files.collected) == collected
    facts = SandboxFacts(import_output="hello\n", missing_functions=("pair",), environment={"uid": 61000},
                         uids_used=(61000, 61001), cpu=CpuWait(contended=True, waited_s=3))
    facts.write(files.sandbox)
    assert SandboxFacts.read(files.sandbox) == facts


def test_a_file_the_plugin_never_wrote_reads_as_nothing(tmp_path):
    files = RunFiles(tmp_path)
    assert Collected.read(files.collected) is None
    assert SandboxFacts.read(files.sandbox) == SandboxFacts()
    files.collected.write_text("{half", encoding="utf-8")  # a process killed while it wrote
    assert Collected.read(files.collected) is None


def test_feedback_round_trips_through_a_checks_metadata():
    feedback = CheckFeedback(Outcome.FAILED, "assert 1 == 2", {"kind": "assertion"}, "printed")
    assert CheckFeedback.from_metadata(feedback.as_metadata()) == feedback


@pytest.mark.parametrize("metadata", [None, [], {}, {"outcome": "passed"},
                                      {"outcome": "fine", "message": None, "failure": None, "output": None},
                                      {"outcome": "passed", "message": None, "failure": None, "output": None,
                                       "extra": 1}])
def test_metadata_that_is_not_the_plugins_feedback_is_none(metadata):
    assert CheckFeedback.from_metadata(metadata) is None


def test_explained_feedback_replaces_only_its_own_checks_metadata(tmp_path):
    files = RunFiles(tmp_path)
    feedback = CheckFeedback(Outcome.FAILED, "assert 1 == 2\n\nEXPLAINED", {"kind": "assertion"})
    explained = Explained({"t.py::f": feedback})
    explained.write(files.explained)
    assert Explained.read(files.explained) == explained
    raw = {"exitcode": 1, "tests": [{"nodeid": "t.py::f", "metadata": {"outcome": "failed"}},
                                    {"nodeid": "t.py::g", "metadata": {"outcome": "passed"}}]}
    tests = explained.into(raw)["tests"]
    assert tests[0]["metadata"]["message"].endswith("EXPLAINED") and tests[1] == raw["tests"][1]
    assert raw["tests"][0]["metadata"] == {"outcome": "failed"}  # the raw report itself is left as it was
    assert explained.into(None) is None


@pytest.mark.parametrize("written", [None, "{half", "[]", '{"feedback": 3}',
                                     '{"feedback": {"t.py::f": {"outcome": 1}}}'])
def test_explained_feedback_that_is_missing_or_not_the_plugins_reads_as_none(tmp_path, written):
    files = RunFiles(tmp_path)
    if written is not None:
        files.explained.write_text(written, encoding="utf-8")
    assert Explained.read(files.explained) == Explained()


def test_the_run_folder_names_each_file_once(tmp_path):
    files = RunFiles(Path(tmp_path))
    paths = [files.settings, files.collected, files.sandbox, files.raw, files.explained, files.diagnosis, files.calls,
             files.log, files.pytest_root, files.submission]
    assert len(set(paths)) == len(paths) and all(path.parent == tmp_path for path in paths)


# Rewrites of the settings file while another process reads it: a ready grade's pytest reads the
# exercise's settings at its start while the runner may already be writing the submission's.
REWRITES = 400
WRITER = """
import sys
from pathlib import Path
from grader.run_contract import RunSettings
path = Path(sys.argv[1])
for seed in range(int(sys.argv[2])):
    RunSettings(module="toy.py", functions=("add",) * 50, call_timeout=1.0, check_timeout=5.0, memory_mb=256,
                public_file="test_public.py", seed=seed, source_dir=str(path.parent), submission_error=None).write(path)
"""


def test_a_reader_never_meets_half_a_settings_file(tmp_path):
    import subprocess
    import sys

    files = RunFiles(tmp_path)
    settings = RunSettings(module="toy.py", functions=("add",), call_timeout=1.0, check_timeout=5.0, memory_mb=256,
                           public_file="test_public.py", seed=0, source_dir=str(tmp_path), submission_error=None)
    settings.write(files.settings)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(files.settings), str(REWRITES)])
    torn = 0
    while writer.poll() is None:
        try:
            RunSettings.read(files.settings)
        except ValueError:  # half a file: not JSON, or JSON without every field
            torn += 1
    assert writer.wait() == 0
    assert torn == 0
    assert [path.name for path in tmp_path.iterdir()] == ["settings.json"]
