"""A launcher: one process that imports a grading run's modules once, then forks each grade's reaper
and grading process from itself, so that a grade does not pay for an interpreter and its imports.

`grade --all`, `grade check` and `grade batch` run many grades from one `grade` process. Each grade
would start a fresh interpreter and import pytest and its plugins, a few hundred milliseconds of
CPU each time. The launcher pays that once: it is started with the grading environment, imports
the modules it is given, and waits for requests on a socket. For each request it forks a child
that becomes the grade's reaper (reaper.reap: a session of its own, a child subreaper, killed
with the launcher), and that child forks the grading process, which runs its module's main.

Why it stays as safe as a fresh interpreter:
- the launcher runs nothing but imports: no check is collected and no student code runs in it or
  in any process before it forks, so every grading process starts as a copy of the same clean state,
  and no grading process ever served another grade;
- student code still runs only in the sandbox's workers, which each grading process starts afresh
  (exec, not fork);
- the launcher is single-threaded, so forking it is safe; `grade` itself, which runs grades as
  threads, never forks for them;
- when `grade` ends or dies, the launcher reads the end of its socket and exits, and each reaper
  it forked is told by PR_SET_PDEATHSIG and kills its grading process, as a reaper does when
  `grade` dies.

Linux only (pidfds); elsewhere grades start as fresh interpreters under reaper.py.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import runpy
import signal
import socket
import subprocess
import sys
import threading
from collections import namedtuple

from grader.sandbox.reaper import end_as, reap

# `grade EXERCISE` starts its launcher before anything else (grader/cli/entry.py), and each import
# before that start delays it: so no dataclasses here (with inspect and ast, 17 ms), and json is
# imported where a request is made or read.

# The largest request (a grade's argument list and environment) the launcher reads in one message.
MAX_REQUEST_BYTES = 1 << 20
# File descriptors one request may pass: the grade's log, its status pipe, and the ones it names.
MAX_PASSED_FDS = 8


class LauncherEnded(OSError):
    """The launcher is gone (killed, or closed): a grade it cannot start must start afresh."""


class Launch(namedtuple("Launch", ("module", "args", "env", "cwd", "pass_fds"), defaults=((),))):
    """One grading process to start: `python -m module *args` in `cwd` with exactly `env`.

    module (str), args (a tuple of str and int), env (a dict of str), cwd (str), pass_fds (a tuple
    of descriptors, none unless given). An element of `args` that is an int names one of `pass_fds`
    by position: the grading process gets that descriptor, and the argument becomes its number there.
    """

    __slots__ = ()


class LaunchedProcess:
    """A grade's reaper started by the launcher: what the runner needs of a Popen (pid, poll, wait,
    returncode, send_signal), with its end seen on a status pipe, since it is not `grade`'s child."""

    def __init__(self, pid: int, pidfd: int | None, status_r: int):
        self.pid, self.returncode = pid, None
        self._pidfd, self._status_r = pidfd, status_r
        self._lock = threading.Lock()

    def exit_fd(self) -> int:
        """A descriptor that becomes readable once the reaper has ended."""
        return self._status_r

    def poll(self) -> int | None:
        """The reaper's exit code (negative for a signal) once it has ended, else None."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.wait(0.0)
        return None

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the reaper's end; subprocess.TimeoutExpired if it has not ended within `timeout`."""
        import select

        with self._lock:
            if self.returncode is not None:
                return self.returncode
            if not select.select([self._status_r], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0.0)
            text = b""
            while chunk := os.read(self._status_r, 64):
                text += chunk
            # A reaper writes its code just before it ends; one killed outright (SIGKILL) wrote nothing.
            self.returncode = int(text) if text.strip() else -signal.SIGKILL
            self._close()
            return self.returncode

    def send_signal(self, signum: int) -> None:
        """Signal the reaper, through its pidfd, so that a pid reused after its end is never hit."""
        if self.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signum)
            else:  # the launcher could not open one (a kernel before 5.3)
                os.kill(self.pid, signum)

    def _close(self) -> None:
        os.close(self._status_r)
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def __del__(self):
        if self.returncode is None:
            with contextlib.suppress(OSError):
                self._close()


class Launcher:
    """The `grade` side of a launcher process: start() it, launch() grades from any thread, close() it."""

    def __init__(self, env: dict[str, str], preload: tuple[str, ...]):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._socket, self._lock = ours, threading.Lock()
        self._launched = False
        with theirs:
            # Its own session, so the terminal's Ctrl-C reaches only `grade`, which passes it on; and
            # the root as its folder, so that it holds none of the folders the grades it starts use.
            self._process = subprocess.Popen(
                [sys.executable, "-S", "-P", "-m", __name__, str(theirs.fileno()), *preload],
                env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),), start_new_session=True)

    def launch(self, launch: Launch, log_fd: int) -> LaunchedProcess:
        """Fork a reaper and its grading process for `launch`, its output to `log_fd`."""
        import json

        status_r, status_w = os.pipe()
        try:
            request = json.dumps({"module": launch.module, "args": list(launch.args), "env": launch.env,
                                  "cwd": launch.cwd}).encode()
            if len(request) > MAX_REQUEST_BYTES or len(launch.pass_fds) + 2 > MAX_PASSED_FDS:
                raise ValueError(f"a launch of {launch.module} is too large for the launcher: {len(request)} bytes "
                                 f"and {len(launch.pass_fds)} descriptors, against {MAX_REQUEST_BYTES} and "
                                 f"{MAX_PASSED_FDS - 2}")
            with self._lock:  # grades run as threads; one request and its reply at a time
                self._launched = True
                try:
                    socket.send_fds(self._socket, [request], [log_fd, status_w, *launch.pass_fds])
                    reply, fds, _, _ = socket.recv_fds(self._socket, 4096, 1)
                except OSError as exc:  # a closed socket, or a launcher killed since
                    raise LauncherEnded(f"the launcher has ended: {exc}") from exc
            if not reply:
                raise LauncherEnded("the launcher has ended")
        except BaseException:
            os.close(status_r)
            raise
        finally:
            os.close(status_w)
        return LaunchedProcess(json.loads(reply)["pid"], fds[0] if fds else None, status_r)

    def close(self) -> None:
        """End the launcher: it sees its socket close and exits; reapers it forked still running are told."""
        self._socket.close()
        if not self._launched:  # started ahead for grades that never came (grade's usage error): it holds
            self._process.kill()  # nothing, and need not finish its imports first
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # stuck in an import: it holds no grade, so it can be killed
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> Launcher:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---- the launcher process ----


def _serve(channel: socket.socket) -> None:
    """Answer launch requests until `grade` closes its end of the channel."""
    import json

    # Its children (the reapers) are reaped by the kernel; `grade` learns of each end from the
    # reaper's status pipe. Each reaper sets SIGCHLD back, so it can wait for its grading process.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    while True:
        try:
            request, fds, _, _ = socket.recv_fds(channel, MAX_REQUEST_BYTES, MAX_PASSED_FDS)
        except ConnectionResetError:
            return
        if not request:
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 70  # EX_SOFTWARE, if the reaper's own set-up fails
            try:
                channel.close()
                code = _become_reaper(json.loads(request), fds)
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        try:
            pidfd = [os.pidfd_open(pid)]
        except OSError:  # it has already ended (its status pipe says how), or the kernel has no pidfds
            pidfd = []
        socket.send_fds(channel, [json.dumps({"pid": pid}).encode()], pidfd)
        for fd in pidfd:
            os.close(fd)


def _become_reaper(request: dict, fds: list[int]) -> int:
    """In the launcher's child: set up as the grade's process would be, reap the grading process, and
    end as it ended, after writing its exit code to the status pipe."""
    log, status, *passed = fds
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    argv = [str(passed[arg]) if isinstance(arg, int) else arg for arg in request["args"]]

    def start() -> int:
        child = os.fork()
        if child == 0:
            os.close(status)
            _run_module(request["module"], argv)
        return child

    returncode = reap(start)
    os.write(status, f"{returncode}\n".encode())
    end_as(returncode)
    return returncode


def _run_module(module: str, args: list[str]) -> None:
    """In the grading process: run `module` as `python -m module *args` would, then end with its code."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.argv = [module, *args]
    code = 0
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # what an interpreter would print before ending with 1
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def main(argv: list[str]) -> None:
    """launcher.py FD MODULE...: import each MODULE, then serve launch requests on socket FD."""
    channel = socket.socket(fileno=int(argv[0]))
    # The imports make objects that live as long as the process: the cyclic collector only slows
    # them down, and once they are done, gc.freeze() keeps them out of every later collection. A
    # forked process's collector then never writes to those objects' headers, so the reaper and the
    # grading process share the launcher's pages instead of copying each one they touch.
    gc.disable()
    for module in argv[1:]:
        importlib.import_module(module)
    gc.freeze()
    gc.enable()
    _serve(channel)
    os._exit(0)  # nothing to flush: the interpreter's teardown of every module it loaded would only delay `grade`


if __name__ == "__main__":
    main(sys.argv[1:])
