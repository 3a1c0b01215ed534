"""The sandbox worker: imports the student's module once and serves calls over two pipes.

This file runs as its own script, under the worker's interpreter and (as root) an unprivileged
uid, so it imports only the standard library, and the wire format from the copy of wire.py that
the grading side puts next to it.
"""

import json
import opcode
import os
import sys
import types

if __package__:  # imported as grader.worker (the kit's tests)
    from grader import wire
else:
    # Run as a script, with wire.py beside it. Loaded by its path: -P keeps this folder off
    # sys.path, and as a worker uid the folder cannot even be listed (mode 0711), only opened.
    import importlib.util

    _spec = importlib.util.spec_from_file_location("wire", os.path.join(os.path.dirname(__file__), "wire.py"))
    wire = importlib.util.module_from_spec(_spec)
    sys.modules["wire"] = wire
    _spec.loader.exec_module(wire)


def _safe_str(exc):
    """str(exc), which runs student code; a failing or odd __str__ must not break the worker."""
    try:
        text = str(exc)
    except BaseException:  # the student's __str__ may raise anything; the worker must answer anyway
        return "<the exception's message could not be printed>"
    return wire.truncate(text, wire.MAX_TEXT) if type(text) is str else ""


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
        "type": wire.truncate(kind.__name__, 200),
        "builtins": builtin_chain,
        "is_exception": isinstance(exc, Exception),
        # A SyntaxError's str() repeats the file and line, which the grading side prints anyway.
        "message": wire.truncate(str(exc.msg), wire.MAX_TEXT) if isinstance(exc, SyntaxError) else _safe_str(exc),
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


def _die_with_parent(parent_pid, linux):
    """Ask Linux to kill this worker if the grading process dies, so no worker outlives a grade."""
    if not (linux and sys.platform.startswith("linux")):
        return False
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG = 1
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return False
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(70)
    return True


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


# ---------------------------------------------------------------------------------------------
# Tracing: a diagnostic call that records which elements of an argument's nested lists the
# student's code fetches. It feeds only the feedback text of a public check that has already
# failed, never a score; student code can reach the recorder through the lists it is given and
# forge entries, which can mislead only that text about its own call.

# Turning a traced call's answer back into plain lists recurses; this stays well inside the
# interpreter's recursion limit, and such answers come from small trees.
MAX_TRACED_DEPTH = 400
_FOR_ITER = opcode.opmap["FOR_ITER"]


class _Recorder:
    """The fetches of one traced call: element path, code site, list (or slice view) and index."""

    def __init__(self, module_path):
        self.module_path = module_path
        self.reads = []
        self.sites = {}
        self.sizes = []
        self.own_code = {}
        self.mutated = False
        self.truncated = False

    def container(self, size):
        """A number for one traced list or slice view of one, remembering its length."""
        self.sizes.append(size)
        return len(self.sizes) - 1

    def fetched(self, node, index, caller, iterating):
        """Record that code in `caller` fetched node[index], by indexing or by iterating over node."""
        paths = node._paths
        if self.mutated or self.truncated or paths is None:
            return
        if len(self.reads) >= wire.MAX_TRACE_READS:
            self.truncated = True
            return
        index = range(len(paths))[index]
        how = "index"
        if iterating:
            # A for loop takes one element per round; list(), sorted(), extend() and the like take
            # them all at once, which says nothing about which ones the code goes on to use.
            how = "loop" if caller.f_code.co_code[caller.f_lasti] == _FOR_ITER else "bulk"
        frame = caller
        while frame is not None and not self._own(frame.f_code):
            frame = frame.f_back
        code = frame.f_code if frame is not None else None
        site = self.sites.setdefault((code, how), len(self.sites))
        self.reads.append((paths[index], site, node._container, index))

    def _own(self, code):
        """Whether `code` lies in the student's module (remembered per code object)."""
        own = self.own_code.get(code)
        if own is None:
            own = self.own_code[code] = os.path.realpath(code.co_filename) == self.module_path
        return own

    def report(self):
        """The trace as plain values for the reply."""
        sites = [None] * len(self.sites)
        for (code, how), number in self.sites.items():
            sites[number] = [code.co_name, code.co_firstlineno, how] if code is not None else ["?", 0, how]
        return {"reads": self.reads, "sites": sites, "sizes": self.sizes,
                "mutated": self.mutated, "truncated": self.truncated}


class _TracedList(list):
    """A list that tells its recorder which of its elements student code fetches."""

    __slots__ = ("_container", "_is_view", "_paths", "_recorder")

    def __iter__(self):
        index = 0
        while index < list.__len__(self):
            item = list.__getitem__(self, index)
            self._recorder.fetched(self, index, sys._getframe(1), True)
            yield item
            index += 1

    def __reversed__(self):
        index = list.__len__(self) - 1
        while 0 <= index < list.__len__(self):
            item = list.__getitem__(self, index)
            self._recorder.fetched(self, index, sys._getframe(1), True)
            yield item
            index -= 1

    def __getitem__(self, key):
        item = list.__getitem__(self, key)
        if type(key) is slice:
            if self._paths is None:  # a changed view is traced no more, and neither are its slices
                return item
            # A slice is a view whose fetches still name the original elements.
            return _traced_list(item, self._paths[key], self._recorder, is_view=True)
        self._recorder.fetched(self, key, sys._getframe(1), False)
        return item

    def copy(self):
        """A view of every element, like self[:]."""
        return self[:]


def _mutator(name):
    """A changing list method: after a change, positions in the list no longer name tree elements."""
    base = getattr(list, name)

    def method(self, *args, **kwargs):
        if self._is_view:
            self._paths = None  # a changed copy of some children: its fetches are no longer traced
        else:
            self._recorder.mutated = True
        return base(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in ("__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend", "insert", "pop",
              "remove", "clear", "sort", "reverse"):
    setattr(_TracedList, _name, _mutator(_name))
del _name


def _traced_list(items, paths, recorder, is_view=False):
    """A _TracedList of `items`, whose elements are the tree elements at `paths`."""
    node = _TracedList(items)
    node._paths, node._recorder, node._is_view = paths, recorder, is_view
    node._container = recorder.container(len(paths))
    return node


def _traced_tree(tree, recorder):
    """A copy of `tree` in which every list, however deep, is a _TracedList (built without recursion)."""
    if type(tree) is not list:
        return tree
    root = _traced_list(tree, tuple((index,) for index in range(len(tree))), recorder)
    pending = [root]
    while pending:
        node = pending.pop()
        for index in range(list.__len__(node)):
            child = list.__getitem__(node, index)
            if type(child) is list:
                path = node._paths[index]
                traced = _traced_list(child, tuple(path + (i,) for i in range(len(child))), recorder)
                list.__setitem__(node, index, traced)
                pending.append(traced)
    return root


def _untraced(value, depth=0):
    """`value` with every traced list turned back into a plain one, so the answer crosses as usual."""
    if depth > MAX_TRACED_DEPTH:
        raise wire.WireError(f"a traced call's answer nested more than {MAX_TRACED_DEPTH} levels deep")
    kind = type(value)
    if kind is _TracedList or kind is list:
        return [_untraced(item, depth + 1) for item in list.__iter__(value)]
    if kind is tuple:
        return tuple(_untraced(item, depth + 1) for item in value)
    if kind is dict:
        return {key: _untraced(item, depth + 1) for key, item in value.items()}
    return value


def _start_trace(args, positions, module_path):
    """Swap the traced arguments for recording copies; returns the recorder, or None if not tracing."""
    if not positions:
        return None
    recorder = _Recorder(module_path)
    for position in positions:
        if type(position) is int and 0 <= position < len(args):
            args[position] = _traced_tree(args[position], recorder)
    return recorder


def _serve(request_fd, reply_fd, settings):
    folder = os.getcwd()
    module_path = os.path.realpath(os.path.join(folder, settings["module"]))
    held = _apply_limits(settings["limits"])
    held["die_with_parent"] = _die_with_parent(settings["parent_pid"], settings["linux"])
    output = _Output(folder)

    def reply(message):
        wire.write_all(reply_fd, wire.dumps(message))

    # The grader may start a worker ahead of need. It says go once this process is in its memory
    # cgroup, with the limits known only by then (the CPU backstop); only then may student code run.
    size = wire.HEADER.unpack(wire.read_exactly(request_fd, wire.HEADER.size))[0]
    go = wire.loads(wire.read_exactly(request_fd, size))
    held.update(_apply_limits(go["limits"]))
    # Facts about the worker go out before any student code runs, so that no student can forge them.
    reply({"kind": "hello", "python": sys.version.split()[0], "limits": held})
    module, error = _import_student(settings["module"][: -len(".py")], folder, module_path)
    ready = {"kind": "ready", "output": output.collect()}
    if module is None:
        reply({**ready, "error": error})
        return
    ready["functions"] = sorted(name for name in settings["functions"] if callable(getattr(module, name, None)))
    reply(ready)

    while True:
        try:
            size = wire.HEADER.unpack(wire.read_exactly(request_fd, wire.HEADER.size))[0]
            request = wire.loads(wire.read_exactly(request_fd, size))
        except EOFError:
            return
        output.reset()
        name = request["name"]
        function = getattr(module, name, None)
        if not callable(function):
            reply({"kind": "missing", "name": name, "output": output.collect()})
            continue
        args, kwargs = request["args"], request["kwargs"]
        recorder = _start_trace(args, request.get("trace"), module_path)
        try:
            result = function(*args, **kwargs)
            if type(result) is types.GeneratorType:
                result = wire.drain(result)
            if recorder is not None:
                result = _untraced(result)
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


def main():
    """Entry point: worker.py REQUEST_FD REPLY_FD SETTINGS_JSON."""
    request_fd, reply_fd = int(sys.argv[1]), int(sys.argv[2])
    settings = json.loads(sys.argv[3])
    _serve(request_fd, reply_fd, settings)


if __name__ == "__main__":
    main()
