"""What a grade's processes ran and waited for a CPU, read from the kernel, and when that is contention."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from grader.sandbox.cpu_accounting import CONTENDED_SHARE, CONTENDED_WAIT_S, CpuTime, cpu_time, worker_pid
from grader.sandbox.process import NAMESPACES_ENV
from tests.conftest import namespaces_work
from tests.sandbox.test_sandbox import make_sandbox

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = [pytest.mark.ordinary_user, pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux's /proc")]

S = 10**9
SPIN = "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end: pass"


def test_contention_needs_a_long_wait_that_is_a_large_share():
    share_wait = CONTENDED_WAIT_S / CONTENDED_SHARE  # the run at which the two bounds meet
    assert CpuTime(int((share_wait - CONTENDED_WAIT_S) * S), int(CONTENDED_WAIT_S * S)).contended
    assert not CpuTime(int(share_wait * 10 * S), int(CONTENDED_WAIT_S * S)).contended, "a small share"
    assert not CpuTime(0, int(CONTENDED_WAIT_S * S) - 1).contended, "too short a wait"
    assert (CpuTime(5, 7) - CpuTime(2, 9)) == CpuTime(3, 0)


def test_a_process_that_ran_is_read_and_one_that_is_gone_reads_as_nothing():
    before = cpu_time()
    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    assert (cpu_time() - before).ran_ns >= 0.04 * S
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert cpu_time(gone.pid) == CpuTime()


def test_a_process_sharing_its_cpu_with_spinners_in_sessions_of_their_own_is_contended():
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("needs CPU affinity")
    cpu = min(os.sched_getaffinity(0))
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN.format(s=6)], start_new_session=True,
                                 preexec_fn=lambda: os.sched_setaffinity(0, {cpu})) for _ in range(3)]
    try:
        measured = subprocess.Popen([sys.executable, "-c", SPIN.format(s=3)], start_new_session=True,
                                    preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        time.sleep(2.5)
        used = cpu_time(measured.pid)
        measured.wait()
    finally:
        for spinner in spinners:
            spinner.kill(), spinner.wait()
    # Four sessions on one CPU: the measured one runs about a quarter of the time it wants.
    assert used.contended, used


BUSY = """
import time

def add(a, b):
    end = time.process_time() + 0.2
    while time.process_time() < end:
        pass
    return a + b

def echo(value):
    return value
"""


@pytest.mark.parametrize("namespaces", ["on", "off"])
def test_the_worker_is_found_and_what_it_ran_is_counted_when_it_closes(namespaces, tmp_path, monkeypatch):
    monkeypatch.setenv(NAMESPACES_ENV, namespaces)
    box = make_sandbox(tmp_path, BUSY)
    try:
        box.start()
        launched = box._worker.process.pid
        pid = worker_pid(launched)
        status = open(f"/proc/{pid}/status").read()
        nspid = next(line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:"))
        if namespaces == "on" and namespaces_work():
            assert pid != launched and nspid[-1] == "2"
        else:
            assert pid == launched
        assert b"worker.py" in open(f"/proc/{pid}/cmdline", "rb").read()
        assert box.call("add", (2, 3), {}, timeout=5).value == 5
    finally:
        box.close()
    assert box.cpu.total.ran_ns >= 0.15 * S, box.cpu.total
