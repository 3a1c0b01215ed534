"""The sandbox worker: imports the student's module once and serves calls over two pipes.

This file runs as its own script, under the worker's interpreter and (as root) an unprivileged
uid, so it imports only the standard library, and the wire format and the truncation helper from the
copies of wire.py and text.py that the grading side puts next to it.
"""

import json
import os
import sys
import types

if __package__:  # imported as grader.sandbox.worker (the kit's tests)
    from grader import text as cut
    from grader.sandbox import wire, worker_trace
else:
    # Run as a script, with wire.py and worker_trace.py beside it. Loaded by their paths: -P keeps
    # this folder off sys.path, and as a worker uid the folder cannot even be listed (mode 0711).
    import importlib.util

    def _load(name, registered):
        spec = importlib.util.spec_from_file_location(registered, os.path.join(os.path.dirname(__file__), f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[registered] = module
        spec.loader.exec_module(module)
        return module

    # The truncation helper under a name of the kit's own, so that a student's own text.py (in a
    # zip, say) is still the module the student's `import text` finds.
    cut = _load("text", "minimax_kit_text")
    wire = _load("wire", "wire")
    worker_trace = _load("worker_trace", "worker_trace")


def _safe_str(exc):
    """str(exc), which runs student code; a failing or odd __str__ must not break the worker."""
    try:
        text = str(exc)
    except BaseException:  # the student's __str__ may raise anything; the worker must answer anyway
        return "<the exception's message could not be printed>"
    return cut.truncate(text, wire.MAX_TEXT) if type(text) is str else ""


def _describe_exception(exc, module_path):
    """The parts of a student exception the grading side may show: type, message, student lines."""
    kind = type(exc)
    builtin_chain = [
        cls.__name__ for cls in kind.__mro__ if cls.__module__ == "builtins" and issubclass(cls, BaseException)
    ]
    lines = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if os.path.realpath(code.co_filename) == module_path:
            lines.append([tb.tb_lineno, code.co_name])
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) and exc.filename and os.path.realpath(exc.filename) == module_path:
        lines.append([exc.lineno or 0, "<module>"])
    return {
        "type": cut.truncate(kind.__name__, 200),
        "builtins": builtin_chain,
        "is_exception": isinstance(exc, Exception),
        # A SyntaxError's str() repeats the file and line, which the grading side prints anyway.
        "message": cut.truncate(str(exc.msg), wire.MAX_TEXT) if isinstance(exc, SyntaxError) else _safe_str(exc),
        "lines": lines[-wire.MAX_TRACE_LINES:],
    }


class _Output:
    """Captures fds 1 and 2 into unlinked files, read back and cleared around each call."""

    def __init__(self, folder):
        self.written = True  # not known yet: the first reset clears the files
        self.fds = {}
        for name, target in (("stdout", 1), ("stderr", 2)):
            path = os.path.join(folder, f".{name}")
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
            os.unlink(path)
            os.dup2(fd, target)
            os.close(fd)
            self.fds[name] = target
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)

    def reset(self):
        # Most calls print nothing, and then there is nothing to clear. (What a lingering thread
        # prints between calls is then kept for the next call's output, which is where it shows.)
        if not self.written:
            return
        for fd in self.fds.values():
            try:
                os.ftruncate(fd, 0)
            except OSError:  # the student may have closed or replaced the fd; output is then lost
                pass
        self.written = False

    def collect(self):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # a replaced or closed stream must not break the reply
                pass
        captured = {}
        for name, fd in self.fds.items():
            try:
                size = os.fstat(fd).st_size
                data = os.pread(fd, wire.OUTPUT_CAP, 0) if size else b""
            except OSError:
                size, data = 0, b""
            self.written = self.written or size > 0
            text = data.decode("utf-8", "replace")
            if size > wire.OUTPUT_CAP:
                text += "\n[... truncated]"
            captured[name] = text
        return captured


def _apply_limits(limits):
    """Lower the rlimits before any student code runs; an unprivileged process cannot raise them again."""
    import resource

    names = {
        "as": "RLIMIT_AS", "cpu": "RLIMIT_CPU", "fsize": "RLIMIT_FSIZE", "nofile": "RLIMIT_NOFILE",
        "nproc": "RLIMIT_NPROC", "core": "RLIMIT_CORE",
    }
    held = {}
    for key, value in limits.items():
        which = getattr(resource, names[key], None)
        if which is None:
            held[key] = False
            continue
        try:
            resource.setrlimit(which, (value, value))
            # macOS accepts RLIMIT_AS but does not enforce it, so there it never counts as held.
            held[key] = resource.getrlimit(which) == (value, value) and not (key == "as" and sys.platform == "darwin")
        except (ValueError, OSError):
            # macOS refuses RLIMIT_AS, for example; the report's environment says which limits held.
            held[key] = False
    return held


def _die_with_parent(linux):
    """Ask Linux to kill this worker if its parent dies, so no worker outlives a grade.

    The parent is the grading process, or the launch's waiting process when the worker is the
    first of a PID namespace (which sees its parent as process 0); that one dies with the grade.
    """
    if not (linux and sys.platform.startswith("linux")):
        return False
    import ctypes
    import signal

    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG = 1
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return False
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(70)
    return True


def _confinement(outside, keyctl):
    """Which namespaces this worker runs in, whether its /proc is its own, and whether the grade's folder is out of sight."""

    def link(path):
        try:
            return os.readlink(path)
        except OSError:
            return None

    found = {name: link(f"/proc/self/ns/{name}") for name in ("net", "ipc", "mnt", "pid")}
    own_proc = link("/proc/self") == str(os.getpid())  # a /proc of its own PID namespace, not the machine's
    return {**found, "own_proc": own_proc, "private_root": not os.path.exists(outside),
            "keys_refused": _keys_refused(keyctl)}


def _keys_refused(keyctl):
    """Whether the kernel refuses this process key calls (its seccomp filter): one harmless keyctl."""
    if keyctl is None or not sys.platform.startswith("linux"):
        return False
    import ctypes
    import errno

    libc = ctypes.CDLL(None, use_errno=True)
    KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING = 0, -3
    found = libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(KEYCTL_GET_KEYRING_ID),
                         ctypes.c_long(KEY_SPEC_SESSION_KEYRING), ctypes.c_long(0))
    return found == -1 and ctypes.get_errno() == errno.EPERM


def _copy_submission(source, folder):
    """Copy the submission's files into this worker's own folder (a capped tmpfs), links as links.

    None for a copy that went through; else the import's error, as the worker reports one.
    """
    import shutil

    try:
        shutil.copytree(source, folder, symlinks=True, dirs_exist_ok=True)
    except (OSError, shutil.Error) as exc:  # ENOSPC: more than the folder's cap
        return {"type": "OSError", "builtins": ["OSError"], "is_exception": True, "lines": [],
                "message": f"the submission could not be copied into the worker's folder: {exc}"[:wire.MAX_TEXT]}
    return None


def _import_student(module_name, folder, module_path):
    import importlib

    sys.path.insert(0, folder)
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # a syntax error, an exception or even SystemExit at import
        return None, _describe_exception(exc, module_path)
    if os.path.realpath(getattr(module, "__file__", "") or "") != module_path:
        return None, {"type": "ImportError", "builtins": ["ImportError"], "is_exception": True,
                      "message": f"importing {module_name} did not load {os.path.basename(module_path)}",
                      "lines": []}
    return module, None


def _serve(request_fd, reply_fd, settings):
    folder = os.getcwd()
    module_path = os.path.realpath(os.path.join(folder, settings["module"]))
    held = _apply_limits(settings["limits"])
    held["die_with_parent"] = _die_with_parent(settings["linux"])
    confinement = _confinement(settings["outside"], settings.get("keyctl"))
    output = _Output(folder)

    def reply(message):
        wire.write_all(reply_fd, wire.dumps(message))

    # The grader may start a worker ahead of need. It says go once this process is in its memory
    # cgroup, with the limits known only by then (the CPU backstop); only then may student code run.
    size = wire.HEADER.unpack(wire.read_exactly(request_fd, wire.HEADER.size))[0]
    go = wire.loads_request(wire.read_exactly(request_fd, size))
    held.update(_apply_limits(go["limits"]))
    # The grading process's CPU, so that a call's ping-pong stays on one CPU (isolation.CpuLease). The
    # worker starts on any CPU, beside the collection, and keeps to this one before student code runs.
    if go.get("cpus") and hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, go["cpus"])
        except OSError:  # a CPU outside this process's cpuset: for speed only, so it runs where it may
            pass
    # Facts about the worker go out before any student code runs, so that no student can forge them.
    reply({"kind": "hello", "python": sys.version.split()[0], "limits": held, "confinement": confinement})
    error = settings.get("submission") and _copy_submission(settings["submission"], folder)
    module, error = (None, error) if error else _import_student(settings["module"][: -len(".py")], folder, module_path)
    ready = {"kind": "ready", "output": output.collect()}
    if module is None:
        reply({**ready, "error": error})
        return
    ready["functions"] = sorted(name for name in settings["functions"] if callable(getattr(module, name, None)))
    reply(ready)

    while True:
        try:
            size = wire.HEADER.unpack(wire.read_exactly(request_fd, wire.HEADER.size))[0]
            request = wire.loads_request(wire.read_exactly(request_fd, size))
        except EOFError:
            return
        output.reset()
        name = request["name"]
        function = getattr(module, name, None)
        if not callable(function):
            reply({"kind": "missing", "name": name, "output": output.collect()})
            continue
        args, kwargs = request["args"], request["kwargs"]
        recorder = worker_trace.start_trace(args, request.get("trace"), module_path)
        try:
            result = function(*args, **kwargs)
            if type(result) is types.GeneratorType:
                result = wire.drain(result)
            if recorder is not None:
                result = worker_trace.untraced(result)
        except wire.WireError as exc:
            reply({"kind": "bad_value", "problem": str(exc), "output": output.collect()})
            continue
        except BaseException as exc:  # SystemExit and KeyboardInterrupt end only this call
            reply({"kind": "raised", "error": _describe_exception(exc, module_path), "output": output.collect()})
            continue
        message = {"kind": "returned", "value": result}
        captured = output.collect()
        if captured["stdout"] or captured["stderr"]:  # most calls print nothing: no output means none
            message["output"] = captured
        if recorder is not None:
            message["trace"] = recorder.report()
        if request["observe"]:
            message["args"], message["kwargs"] = args, kwargs
        try:
            encoded = wire.dumps(message)
        except wire.WireError as exc:
            encoded = wire.dumps({"kind": "bad_value", "problem": str(exc), "output": captured})
        except BaseException:  # an odd metaclass can run student code even while types are checked
            problem = "a value that could not be encoded; return plain values"
            encoded = wire.dumps({"kind": "bad_value", "problem": problem, "output": captured})
        wire.write_all(reply_fd, encoded)


def _join_memory_cgroup(fd):
    """Move this process into its memory cgroup through the grader's descriptor, then close it.

    First of all, so the wait for the move passes while the grading side collects its checks; the
    grading side checks the move before it says go, and makes it itself if this one failed.
    """
    if fd is None:
        return
    try:
        os.write(fd, b"0")  # 0: the writer itself
    except OSError:  # refused (an older cgroup v2 checks the writer's own rights): go() moves it instead
        pass
    finally:
        os.close(fd)


def main():
    """Entry point: worker.py REQUEST_FD REPLY_FD SETTINGS_JSON."""
    request_fd, reply_fd = int(sys.argv[1]), int(sys.argv[2])
    settings = json.loads(sys.argv[3])
    _join_memory_cgroup(settings.get("memory_cgroup_fd"))
    _serve(request_fd, reply_fd, settings)


if __name__ == "__main__":
    main()
