"""The worker's namespaces: what its root holds, what it sees of the machine, and how they are reported."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from grader.sandbox.namespaces import SCRATCH_MB, _folders_to_bind, linux_namespaces_possible, namespaces_held
from grader.sandbox.service import Sandbox, SandboxSettings
from tests.conftest import namespaces_work

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user

needs_namespaces = pytest.mark.skipif(not (linux_namespaces_possible() and namespaces_work()),
                                      reason="the kernel or the container refuses this user the namespaces")

LOOKER = '''
import errno, os, socket

def processes():
    return sorted(int(name) for name in os.listdir("/proc") if name.isdigit())

def root():
    return sorted(os.listdir("/"))

def fill(folder):
    # Files of 16 MiB each, well under the worker's file size limit, until the folder is full.
    written = 0
    try:
        for number in range(20):
            with open(os.path.join(folder, f"filler-{number}"), "wb") as handle:
                for _ in range(16):
                    handle.write(b"x" * 2**20)
                    handle.flush()
                    written += 2**20
    except OSError as exc:
        return [written // 2**20, errno.errorcode[exc.errno]]
    return [written // 2**20, None]

def connect(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError as exc:
        return type(exc).__name__
    return "connected"
'''


@pytest.fixture
def box(tmp_path):
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "mod.py").write_text(textwrap.dedent(LOOKER))
    sandbox = Sandbox(SandboxSettings(module="mod.py", functions=("processes", "root", "fill", "connect"),
                                      source_dir=folder, memory_mb=512, cpu_seconds=60, hash_seed=0))
    sandbox.start()
    yield sandbox
    sandbox.close()


def call(box: Sandbox, name: str, *args):
    return box.call(name, args, {}, timeout=20).value


@needs_namespaces
def test_every_namespace_holds_and_the_report_says_so(box):
    assert box.environment()["namespaces"] == {"net": True, "ipc": True, "mnt": True, "pid": True}


@needs_namespaces
def test_the_worker_sees_only_its_own_processes(box):
    assert call(box, "processes") == [1, 2]  # the launch's process 1, and the worker


@needs_namespaces
def test_the_root_holds_the_program_folders_and_scratch_only(box):
    seen = set(call(box, "root"))
    # The interpreter's installation may lie elsewhere (a venv in the user's home): its top folder shows.
    installation = {Path(folder).parts[1] for folder in _folders_to_bind(box.interpreter)}
    assert seen <= {*installation, "dev", "proc", "tmp", "var"}
    assert seen.isdisjoint({"root", "srv", "opt", "work", "mnt", "media"} - installation)
    assert {"usr", "tmp", "proc", "dev"} <= seen


@needs_namespaces
@pytest.mark.parametrize("folder", ["/tmp", "/var/tmp", "/dev/shm"])
def test_a_full_scratch_folder_is_the_workers_own(box, folder):
    written, error = call(box, "fill", folder)
    assert error == "ENOSPC" and SCRATCH_MB - 2 <= written <= SCRATCH_MB
    assert not list(Path(folder).glob("filler-*"))  # nothing of it in the machine's own folder


@needs_namespaces
def test_the_machines_loopback_is_out_of_reach(box):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as server:
        assert call(box, "connect", server.getsockname()[1]) in ("OSError", "ConnectionRefusedError")


def test_the_interpreters_installation_is_bound_in():
    binds = _folders_to_bind(sys.executable)
    real = Path(sys.executable).resolve()
    assert any(str(real).startswith(folder + "/") for folder in binds)


def test_a_wrapper_outside_an_installation_brings_only_its_folder(tmp_path):
    wrapper = tmp_path / "python3.11"
    wrapper.write_text("#!/bin/sh\n")
    assert str(tmp_path) in _folders_to_bind(str(wrapper)) and str(tmp_path.parent) not in _folders_to_bind(str(wrapper))


def test_a_namespace_counts_as_held_only_when_it_differs_from_the_graders():
    own = {name: os.readlink(f"/proc/self/ns/{name}") for name in ("net", "ipc", "mnt", "pid")}
    assert namespaces_held({**own, "own_proc": True, "private_root": True}) == dict.fromkeys(own, False)
    other = {name: "other:[1]" for name in own}
    assert namespaces_held({**other, "own_proc": True, "private_root": True}) == dict.fromkeys(own, True)
    # A PID namespace whose /proc is still the machine's, or a mount namespace that still shows the
    # grade's folders, does not count.
    assert namespaces_held({**other, "own_proc": False, "private_root": False}) == {
        "net": True, "ipc": True, "mnt": False, "pid": False}
