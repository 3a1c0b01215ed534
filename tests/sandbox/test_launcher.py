"""The launcher: one process that imports once and forks each grade's reaper and grading process.

tests/sandbox/test_reaper.py runs the reaper's promises through it too; these are its own: what a
launched process is given, that nothing of one launch reaches the next, and how it ends.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from grader.sandbox import Launch, Launcher, LauncherEnded
from tests.sandbox.test_reaper import LEAVE_A_DAEMON, kill_grade_and_expect_all_dead, launch_code, launcher_env

pytestmark = [pytest.mark.ordinary_user,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the launcher needs Linux")]


@pytest.fixture
def launcher(tmp_path):
    with Launcher(launcher_env(tmp_path), ("json",)) as started:
        yield started


def test_a_launch_gets_exactly_its_environment_its_folder_and_its_arguments(launcher, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (tmp_path / "show.py").write_text(textwrap.dedent("""
        import json, os, sys
        json.dump({"env": dict(os.environ), "cwd": os.getcwd(), "argv": sys.argv[1:]}, open("seen.json", "w"))
    """))
    env = {**launcher_env(tmp_path), "ONLY_THIS": "yes"}
    with open(tmp_path / "log.txt", "wb") as log:
        process = launcher.launch(Launch("show", ("-q", "two words"), env, str(folder)), log.fileno())
    assert process.wait(timeout=30) == 0
    seen = json.loads((folder / "seen.json").read_text())
    assert seen == {"env": env, "cwd": str(folder), "argv": ["-q", "two words"]}


def test_a_passed_descriptor_becomes_its_number_in_the_arguments(launcher, tmp_path):
    code = """
        import os, sys
        data = os.read(int(sys.argv[1]), 100)
        open("got.txt", "wb").write(data)
    """
    (tmp_path / "reader.py").write_text(textwrap.dedent(code))
    read_end, write_end = os.pipe()
    try:
        with open(tmp_path / "log.txt", "wb") as log:
            process = launcher.launch(Launch("reader", (0,), launcher_env(tmp_path), str(tmp_path), (read_end,)),
                                      log.fileno())
        os.write(write_end, b"go")
    finally:
        os.close(read_end)
        os.close(write_end)
    assert process.wait(timeout=30) == 0
    assert (tmp_path / "got.txt").read_bytes() == b"go"


def test_output_goes_to_the_log_and_an_uncaught_exception_ends_with_1(launcher, tmp_path):
    process = launch_code(launcher, "print('to the log')\nraise ValueError('boom')\n", tmp_path)
    assert process.wait(timeout=30) == 1
    log = (tmp_path / "under_test.log").read_text()
    assert "to the log" in log and "ValueError: boom" in log


def test_nothing_of_one_launch_reaches_the_next(launcher, tmp_path):
    """Each launch is forked from the launcher as it was before any launch: a module one launch
    imported, or a global it set, is not in the next (a grading process never served another grade)."""
    (tmp_path / "left_behind.py").write_text("VALUE = 'from the first launch'\n")
    first = launch_code(launcher, "import left_behind, json\njson.SEEN = 1\n", tmp_path)
    assert first.wait(timeout=30) == 0
    second = launch_code(launcher, textwrap.dedent("""
        import json, sys
        open("second.txt", "w").write(f"{'left_behind' in sys.modules} {hasattr(json, 'SEEN')}")
    """), tmp_path)
    assert second.wait(timeout=30) == 0
    assert (tmp_path / "second.txt").read_text() == "False False"


def test_launches_from_several_threads_each_get_their_own_process(launcher, tmp_path):
    codes: dict[int, int] = {}

    def run(index: int) -> None:
        process = launch_code(launcher, f"import sys\nsys.exit({index + 10})\n", tmp_path, f"thread_{index}")
        codes[index] = process.wait(timeout=30)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert codes == {index: index + 10 for index in range(4)}


def test_a_request_too_large_is_refused_in_one_line(launcher, tmp_path):
    env = {**launcher_env(tmp_path), "HUGE": "x" * (2 << 20)}
    with open(tmp_path / "log.txt", "wb") as log, pytest.raises(ValueError) as refused:
        launcher.launch(Launch("anything", (), env, str(tmp_path)), log.fileno())
    assert "\n" not in str(refused.value)
    assert "a launch of anything is too large for the launcher" in str(refused.value)


@pytest.mark.parametrize("how", ["closed", "killed"])
def test_a_launcher_that_has_ended_says_so(tmp_path, how):
    launcher = Launcher(launcher_env(tmp_path), ())
    if how == "killed":
        launcher._process.kill()
        launcher._process.wait()
    else:
        launcher.close()
    with pytest.raises(LauncherEnded, match="the launcher has ended"):
        launch_code(launcher, "pass\n", tmp_path)
    launcher.close()


def test_a_launcher_that_never_launched_ends_at_close_without_finishing_its_imports(tmp_path):
    """One started ahead for grades that never came (`grade` with a usage error) holds nothing, so
    close() does not wait for the imports it is in the middle of."""
    (tmp_path / "slow_to_import.py").write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    launcher = Launcher(launcher_env(tmp_path), ("slow_to_import",))
    began = time.monotonic()
    launcher.close()
    # Waiting for the import's end would take 10 s (close()'s own limit) before the kill.
    assert time.monotonic() - began < 5
    assert launcher._process.poll() is not None


def test_when_grade_dies_the_launcher_and_every_grade_it_started_die(tmp_path):
    """The `grade` process is SIGKILLed mid-grade: the launcher, the reaper, the grading process and
    the daemon it left all end."""
    runner = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from grader.sandbox import Launcher
        from tests.sandbox.test_reaper import launch_code, launcher_env
        folder = Path({str(tmp_path)!r})
        launcher = Launcher(launcher_env(folder), ())
        process = launch_code(launcher, {LEAVE_A_DAEMON + "time.sleep(600)"!r}, folder)
        print(launcher._process.pid, process.pid, flush=True)
        time.sleep(600)
    """)
    kill_grade_and_expect_all_dead(runner, Path(__file__).resolve().parents[2], tmp_path, ("launcher", "reaper"))
