"""A Slurm cluster of one node on this machine, from Debian's packages, for the tests that submit jobs to it.

munged, slurmctld and slurmd run in the foreground as this test's children, with a random key
and slurm.conf in a folder of their own, on ports nobody else holds, so they touch no Slurm or
munge the machine may have. The plugins need neither systemd nor cgroups (a container may have
neither): processes are tracked through /proc and tasks are not confined.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

PROGRAMS = ("munged", "munge", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "sinfo")
INSTALL = "Debian's slurmctld, slurmd, slurm-client and munge, which .ci/run installs"
START_S = 30
# The node's CPUs as Slurm counts them, whatever this machine has (slurmd takes the configured
# count: SlurmdParameters=config_overrides): enough for a task of --cpus-per-task=2.
NODE_CPUS = 2

SLURM_CONF = """\
ClusterName=minimaxkit
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={folder}/run/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/run/slurmctld.pid
SlurmdPidFile={folder}/run/slurmd.pid
SlurmctldLogFile={folder}/log/slurmctld.log
SlurmdLogFile={folder}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


class SlurmUnavailable(Exception):
    """Slurm could not start here, and why, in one line."""


def program(name: str) -> str | None:
    """Where `name` is: on the PATH, or in /usr/sbin (where Debian puts the daemons) if the PATH lacks it."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _last_line(*paths: Path) -> str:
    """The last error line of the first of these logs that says anything, else its last line."""
    for path in paths:
        lines = path.read_text(errors="replace").strip().splitlines() if path.is_file() else []
        errors = [line for line in lines if "error" in line.lower()]
        if lines:
            return (errors or lines)[-1].strip()
    return "its log is empty"


class SlurmCluster:
    """One node and its controller, started by `start()` and ended, with every job, by `stop()`."""

    def __init__(self):
        # Not under pytest's own tmp folder: munged wants every folder above its socket open to all.
        self.folder = Path(tempfile.mkdtemp(prefix="minimax-kit-slurm-"))
        self.folder.chmod(0o755)
        self.conf = self.folder / "slurm.conf"
        self.daemons: list[tuple[str, subprocess.Popen]] = []

    @property
    def env(self) -> dict[str, str]:
        """This environment, talking to this cluster (and no Slurm this process may itself run under)."""
        kept = {key: value for key, value in os.environ.items() if not key.startswith(("SLURM_", "SBATCH_"))}
        return {**kept, "SLURM_CONF": str(self.conf)}

    def run(self, *command: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run([program(command[0]), *command[1:]], env=self.env, capture_output=True, text=True,
                              timeout=timeout, check=False)

    def _spawn(self, name: str, *command: str) -> None:
        log = (self.folder / "log" / f"{name}.out").open("w")
        with log:
            process = subprocess.Popen([program(command[0]), *command[1:]], env=self.env, stdin=subprocess.DEVNULL,
                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.daemons.append((name, process))

    def _wait(self, what: str, ready, log: Path) -> None:
        deadline = time.monotonic() + START_S
        while not ready():
            for name, process in self.daemons:
                if process.poll() is not None:
                    said = _last_line(self.folder / "log" / f"{name}.log", self.folder / "log" / f"{name}.out")
                    raise SlurmUnavailable(f"{name} exited with {process.returncode}: {said}")
            if time.monotonic() > deadline:
                raise SlurmUnavailable(f"{what} not ready in {START_S} s: {_last_line(log)}")
            time.sleep(0.2)

    def start(self) -> None:
        run, log = self.folder / "run", self.folder / "log"
        for name, mode in (("munge", 0o700), ("run", 0o755), ("log", 0o755), ("state", 0o700), ("spool", 0o700)):
            (self.folder / name).mkdir(mode=mode)
        key = self.folder / "munge" / "munge.key"  # this cluster's own: random bytes, for munged's eyes only
        key.touch(mode=0o600)
        key.write_bytes(os.urandom(128))
        self._spawn("munged", "munged", "--foreground", f"--socket={run}/munge.socket", f"--key-file={key}",
                    f"--pid-file={run}/munged.pid", f"--seed-file={self.folder}/munge/munged.seed",
                    f"--log-file={log}/munged.log")
        encodes = [program("munge"), "--socket", f"{run}/munge.socket", "--no-input"]
        self._wait("munged", lambda: subprocess.run(encodes, capture_output=True, timeout=10).returncode == 0,
                   log / "munged.log")
        host = socket.gethostname().split(".")[0]  # slurmctld and slurmd each look for their own short name
        self.conf.write_text(SLURM_CONF.format(host=host, folder=self.folder, cpus=NODE_CPUS,
                                               ctld_port=_free_port(), slurmd_port=_free_port()))
        self._spawn("slurmctld", "slurmctld", "-D", "-c")
        self._wait("slurmctld", lambda: self.run("scontrol", "ping").returncode == 0, log / "slurmctld.log")
        self._spawn("slurmd", "slurmd", "-D")
        self._wait("the node", lambda: self.run("sinfo", "--noheader", "--format=%t").stdout.strip() == "idle",
                   log / "slurmd.log")

    def jobs(self) -> list[dict[str, str]]:
        """Every job the controller knows of, finished ones too, as `scontrol show job` tells its fields."""
        shown = self.run("scontrol", "--oneliner", "show", "job")
        assert shown.returncode == 0, shown.stderr
        return [dict(field.split("=", 1) for field in line.split() if "=" in field)
                for line in shown.stdout.splitlines() if line.startswith("JobId=")]

    def wait_for_jobs(self, timeout: float) -> list[dict[str, str]]:
        """Every job, once none is pending or running; or once those left wait for a job that failed."""
        deadline = time.monotonic() + timeout
        while True:
            jobs = self.jobs()
            waiting = [job for job in jobs if job["JobState"] in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING")]
            if not waiting or all(job.get("Reason") == "DependencyNeverSatisfied" for job in waiting):
                return jobs
            if time.monotonic() > deadline:
                raise AssertionError(f"Slurm jobs still waiting after {timeout:g} s: "
                                     f"{[(job['JobId'], job['JobState'], job.get('Reason')) for job in waiting]}")
            time.sleep(0.5)

    def stop(self) -> None:
        """Cancel every job, end the daemons (munged last) and remove the cluster's folder."""
        if any(name == "slurmctld" for name, _ in self.daemons):
            with contextlib.suppress(subprocess.TimeoutExpired, AssertionError):  # a controller that died
                self.run("scancel", "--full", "--user", "root", timeout=10)
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline and any(
                        job["JobState"] in ("RUNNING", "COMPLETING") for job in self.jobs()):
                    time.sleep(0.2)
        for name, process in reversed(self.daemons):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=15)
        self.daemons.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def slurm_cluster() -> Iterator[SlurmCluster]:
    """A running one-node cluster, or a skip that says why there is none (a failure in CI, which installs Slurm)."""
    if os.geteuid() != 0:
        pytest.skip("starting slurmd needs root (it starts each job as the user who submitted it)")
    absent = [name for name in PROGRAMS if program(name) is None]
    if absent:
        pytest.skip(f"Slurm is not installed ({', '.join(absent)} missing): {INSTALL}")
    cluster = SlurmCluster()
    try:
        try:
            cluster.start()
        except SlurmUnavailable as why:
            if os.environ.get("CI"):
                pytest.fail(f"Slurm could not start, though .ci/run installs it: {why}")
            pytest.skip(f"Slurm could not start here: {why}")
        yield cluster
    finally:
        cluster.stop()
