"""The sandbox worker: imports the student's module once and serves calls over two pipes.

This file runs as its own script, under the worker's interpreter and (as root) an unprivileged
uid, so it imports only the standard library and nothing from the kit. The grading side imports
the wire format from here too, so both ends share one definition.

Wire format: every message is a 4-byte big-endian length, then UTF-8 JSON. Values are encoded so
that they round-trip exactly: lists stay JSON arrays, a tuple becomes {"tuple": [...]}, and a dict
becomes {"dict": [[key, value], ...]}. Because every real dict is wrapped, a JSON object is always
a tag, so student data can never be mistaken for one.
"""

import json
import opcode
import os
import struct
import sys
import types

HEADER = struct.Struct(">I")
# A 10^5-leaf tree is about 2 MB of JSON; 32 MiB leaves room for bigger answers and still bounds
# what one message can make the grading process allocate.
MAX_MESSAGE_BYTES = 32 * 2**20
# ex03's trees are about 200 levels deep; 1,500 leaves room while keeping decoding bounded.
MAX_DEPTH = 1500
# Containers and scalars in one value: bounds the work of encoding a huge or cyclic-looking answer.
MAX_ITEMS = 2_000_000
# A returned generator is drained to a list of at most this many items.
MAX_GENERATOR_ITEMS = 100_000
# Student stdout/stderr kept per call; the rest is reported as truncated.
OUTPUT_CAP = 64 * 1024
# Lines of the student's traceback and characters of an exception message sent back.
MAX_TRACE_LINES = 20
MAX_TEXT = 2000
# json's C code recurses once per JSON level and obeys the recursion limit; a dict's tag makes
# three JSON levels of one value level (object, list of pairs, pair).
_WIRE_RECURSION_LIMIT = 3 * MAX_DEPTH + 500


class WireError(Exception):
    """A value that cannot cross the sandbox boundary."""


_PLAIN = {
    dict: "a plain dict",
    list: "a plain list",
    tuple: "a plain tuple",
    int: "a plain int",
    float: "a plain float",
    str: "a plain str",
    set: "a list or tuple",
    frozenset: "a list or tuple",
}


def _article(name):
    """A type name with its article: "a set", "an int"."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _suggestion(value):
    """How to say what to return instead of an unsupported value."""
    for base, words in _PLAIN.items():
        if isinstance(value, base):
            return words
    return "only None, bool, int, float, str, list, tuple and dict with str keys"


# The exact types a value may hold besides lists, tuples and dicts (subclasses are refused).
_SCALARS = frozenset({type(None), bool, int, float, str})


class _Encoder:
    """Turns a plain value into its JSON-ready wire form, checking exact types.

    It walks the value with its own stack rather than by recursion: CPython 3.11 slows down badly
    when a recursion keeps crossing certain depths, which deep game trees do many times over.
    """

    def __init__(self):
        self.items = 0

    def _count(self, items, depth):
        """Count `items` more items at `depth`, within the limits on size and nesting."""
        self.items += items
        if self.items > MAX_ITEMS:
            raise WireError(f"a value too large (more than {MAX_ITEMS:,} items)")
        if items and depth > MAX_DEPTH:
            raise WireError(f"a value nested more than {MAX_DEPTH} levels deep")

    def encode(self, value):
        root = [None]
        stack = [(value, 0, root, 0)]
        while stack:
            value, depth, target, slot = stack.pop()
            self._count(1, depth)
            kind = type(value)
            if kind in _SCALARS:  # an int over 4,300 digits fails in json, and dumps says why
                target[slot] = value
            elif (kind is list or kind is tuple) and _SCALARS.issuperset(map(type, value)):
                # Scalars only, as in the leaf lists that make up most of a game tree: copied whole, at
                # C speed, with the same checks the walk makes item by item.
                self._count(len(value), depth + 1)
                target[slot] = list(value) if kind is list else {"tuple": list(value)}
            elif kind is list or kind is tuple:
                out = [None] * len(value)
                target[slot] = out if kind is list else {"tuple": out}
                stack.extend((item, depth + 1, out, index) for index, item in enumerate(value))
            elif kind is dict:
                pairs, scalars = [], 0
                for key, item in value.items():
                    if type(key) is not str:
                        raise WireError(f"a dict with {_article(type(key).__name__)} key; use str keys")
                    pair = [key, item]
                    pairs.append(pair)
                    if type(item) in _SCALARS:  # settled here, without a trip through the stack
                        scalars += 1
                    else:
                        stack.append((item, depth + 1, pair, 1))
                self._count(scalars, depth + 1)
                target[slot] = {"dict": pairs}
            else:
                # The envelope is level 0 and the returned value level 1; deeper means "inside" the value.
                named = _article(kind.__name__)
                where = named if depth <= 1 else f"a value containing {named}"
                raise WireError(f"{where}; return {_suggestion(value)}")
        return root[0]


def _drain(generator):
    """A returned generator, drained to a list (running student code, so inside the call)."""
    drained = []
    for item in generator:
        if len(drained) >= MAX_GENERATOR_ITEMS:
            raise WireError(f"a generator of more than {MAX_GENERATOR_ITEMS:,} items")
        drained.append(item)
    return drained


class _RecursionRoom:
    """Raise the recursion limit while json walks a deep value, then put it back."""

    def __enter__(self):
        self.saved = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.saved, _WIRE_RECURSION_LIMIT + len(_frames())))

    def __exit__(self, *exc_info):
        sys.setrecursionlimit(self.saved)


def _frames():
    """The current Python frames (to size the recursion allowance)."""
    frame, frames = sys._getframe(), []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def _decode_tag(obj):
    """json object_hook: every JSON object on the wire is a tuple or dict tag."""
    if len(obj) == 1:
        if type(obj.get("tuple")) is list:
            return tuple(obj["tuple"])
        pairs = obj.get("dict")
        if type(pairs) is list and all(type(p) is list and len(p) == 2 and type(p[0]) is str for p in pairs):
            return dict(pairs)
    raise WireError("a message holds an object that is not a wire tag")


# Built once: json.dumps and json.loads with options build a new coder on every call.
_JSON_ENCODER = json.JSONEncoder(separators=(",", ":"))
_JSON_DECODER = json.JSONDecoder(object_hook=_decode_tag)
# json needs no extra recursion room for a small message, even deep inside pytest: a text nests at
# most one level per byte, and a value at most three JSON levels per item. Small calls skip the
# cost of making room.
_SHALLOW_BYTES = 300
_SHALLOW_ITEMS = 100


def dumps(message):
    """Encode a message of plain values, with its length prefix; raise WireError if it cannot cross."""
    encoder = _Encoder()
    wire_form = encoder.encode(message)
    try:
        if encoder.items <= _SHALLOW_ITEMS:
            body = _JSON_ENCODER.encode(wire_form).encode("utf-8")
        else:
            with _RecursionRoom():
                body = _JSON_ENCODER.encode(wire_form).encode("utf-8")
    except ValueError:  # the only one json raises here: Python prints no integer over 4,300 digits
        raise WireError("a value containing an integer with more than 4,300 digits; "
                        "return a smaller number or a str") from None
    if len(body) > MAX_MESSAGE_BYTES:
        raise WireError(f"a value too large ({len(body):,} bytes of JSON; the limit is {MAX_MESSAGE_BYTES:,})")
    return HEADER.pack(len(body)) + body


def loads(body):
    """Parse a message body; tags in it come back as tuples and dicts."""
    try:
        text = body.decode("utf-8")
        if len(body) <= _SHALLOW_BYTES:
            return _JSON_DECODER.decode(text)
        with _RecursionRoom():
            return _JSON_DECODER.decode(text)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"malformed message: {exc}") from None


def _read_exactly(fd, size):
    chunks, remaining = [], size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# ---------------------------------------------------------------------------------------------
# The serving side, run only inside the worker process.


def _cap(text, limit=MAX_TEXT):
    return text if len(text) <= limit else text[:limit] + " [... truncated]"


def _safe_str(exc):
    """str(exc), which runs student code; a failing or odd __str__ must not break the worker."""
    try:
        text = str(exc)
    except BaseException:  # the student's __str__ may raise anything; the worker must answer anyway
        return "<the exception's message could not be printed>"
    return _cap(text) if type(text) is str else ""


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
        "type": _cap(kind.__name__, 200),
        "builtins": builtin_chain,
        "is_exception": isinstance(exc, Exception),
        # A SyntaxError's str() repeats the file and line, which the grading side prints anyway.
        "message": _cap(str(exc.msg)) if isinstance(exc, SyntaxError) else _safe_str(exc),
        "lines": lines[-MAX_TRACE_LINES:],
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
                data = os.pread(fd, OUTPUT_CAP, 0) if size else b""
            except OSError:
                size, data = 0, b""
            self.written = self.written or size > 0
            text = data.decode("utf-8", "replace")
            if size > OUTPUT_CAP:
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

# A trace longer than this is cut off (and says so): enough for any tree a public check draws.
MAX_TRACE_READS = 100_000
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
        if len(self.reads) >= MAX_TRACE_READS:
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
        raise WireError(f"a traced call's answer nested more than {MAX_TRACED_DEPTH} levels deep")
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
        _write_all(reply_fd, dumps(message))

    # The grader may start a worker ahead of need. It says go once this process is in its memory
    # cgroup, with the limits known only by then (the CPU backstop); only then may student code run.
    go = loads(_read_exactly(request_fd, HEADER.unpack(_read_exactly(request_fd, HEADER.size))[0]))
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
            size = HEADER.unpack(_read_exactly(request_fd, HEADER.size))[0]
            request = loads(_read_exactly(request_fd, size))
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
                result = _drain(result)
            if recorder is not None:
                result = _untraced(result)
        except WireError as exc:
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
            encoded = dumps(message)
        except WireError as exc:
            encoded = dumps({"kind": "bad_value", "problem": str(exc), "output": captured})
        except BaseException:  # an odd metaclass can run student code even while types are checked
            problem = "a value that could not be encoded; return plain values"
            encoded = dumps({"kind": "bad_value", "problem": problem, "output": captured})
        _write_all(reply_fd, encoded)


def main():
    """Entry point: worker.py REQUEST_FD REPLY_FD SETTINGS_JSON."""
    request_fd, reply_fd = int(sys.argv[1]), int(sys.argv[2])
    settings = json.loads(sys.argv[3])
    _serve(request_fd, reply_fd, settings)


if __name__ == "__main__":
    main()
