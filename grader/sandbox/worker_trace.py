"""Tracing, on the worker's side: a diagnostic call records which elements of its arguments' nested lists
student code fetches.

It feeds only the feedback text of a public check that has already failed, never a score; student
code can reach the recorder through the lists it is given and forge entries, which can mislead only
that text about its own call. Like worker.py it runs in the worker process, beside a copy of
wire.py, and imports only the standard library and the wire format.
"""

import opcode
import os
import sys

if __package__:  # imported as grader.sandbox.worker_trace (the kit's tests)
    from grader.sandbox import wire
else:  # loaded by worker.py, which put the wire format in sys.modules first
    wire = sys.modules["wire"]

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


def untraced(value, depth=0):
    """`value` with every traced list turned back into a plain one, so the answer crosses as usual."""
    if depth > MAX_TRACED_DEPTH:
        raise wire.WireError(f"a traced call's answer nested more than {MAX_TRACED_DEPTH} levels deep")
    kind = type(value)
    if kind is _TracedList or kind is list:
        return [untraced(item, depth + 1) for item in list.__iter__(value)]
    if kind is tuple:
        return tuple(untraced(item, depth + 1) for item in value)
    if kind is dict:
        return {key: untraced(item, depth + 1) for key, item in value.items()}
    return value


def start_trace(args, positions, module_path):
    """Swap the traced arguments for recording copies; returns the recorder, or None if not tracing."""
    if not positions:
        return None
    recorder = _Recorder(module_path)
    for position in positions:
        if type(position) is int and 0 <= position < len(args):
            args[position] = _traced_tree(args[position], recorder)
    return recorder
