"""The wire format between the grading side and the sandbox worker: one definition for both ends.

The worker runs it from a copy next to its own script, under the worker's interpreter and (as
root) an unprivileged uid, so it imports only the standard library and nothing else of the kit.

Every message is a 4-byte big-endian length, then its body. A reply (the worker's, so the student's)
is UTF-8 JSON, the only body the grading side ever reads. Its values are encoded so that they
round-trip exactly: lists stay JSON arrays, a tuple becomes {"tuple": [...]}, and a dict becomes
{"dict": [[key, value], ...]}. Because every real dict is wrapped, a JSON object is always a tag,
so student data can never be mistaken for one.

A request (the grading side's, read only by the worker) is checked as a reply's values are, and
then written by marshal (dumps_request, loads_request): the checks' large arguments, such as trees
of 10^5 float leaves, are written and read several times faster than as JSON.
"""

import json
import marshal
import os
import re
import struct
import sys
from itertools import chain

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
# A trace longer than this is cut off (and says so): enough for any tree a public check draws.
MAX_TRACE_READS = 100_000
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
# What a tree of plain lists holds: such a tree is its own wire form (see _Encoder.list_tree).
_LIST_OR_SCALAR = _SCALARS | {list}


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
        # Each entry's last field says whether a tree of lists may be taken whole (list_tree): not
        # below a list that was tried and failed, so that no value is scanned twice.
        stack = [(value, 0, root, 0, True)]
        while stack:
            value, depth, target, slot, whole = stack.pop()
            self._count(1, depth)
            kind = type(value)
            if kind in _SCALARS:  # an int over 4,300 digits fails in json, and dumps says why
                target[slot] = value
            elif (kind is list or kind is tuple) and _SCALARS.issuperset(map(type, value)):
                # Scalars only, as in the leaf lists that make up most of a game tree: copied whole, at
                # C speed, with the same checks the walk makes item by item.
                self._count(len(value), depth + 1)
                target[slot] = list(value) if kind is list else {"tuple": list(value)}
            elif kind is list and whole and self.list_tree(value, depth):
                target[slot] = value
            elif kind is list or kind is tuple:
                out = [None] * len(value)
                target[slot] = out if kind is list else {"tuple": out}
                whole = whole and kind is tuple  # a list here was tried and failed
                stack.extend((item, depth + 1, out, index, whole) for index, item in enumerate(value))
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
                        stack.append((item, depth + 1, pair, 1, whole))
                self._count(scalars, depth + 1)
                target[slot] = {"dict": pairs}
            else:
                # The envelope is level 0 and the returned value level 1; deeper means "inside" the value.
                named = _article(kind.__name__)
                where = named if depth <= 1 else f"a value containing {named}"
                raise WireError(f"{where}; return {_suggestion(value)}")
        return root[0]


    def list_tree(self, value, depth):
        """Whether `value`, a list at `depth`, holds only lists and scalars all the way down, within the limits.

        Such a tree, as most game trees are, needs no wire form of its own: json writes it as it is.
        It is checked a level at a time, the types of a whole level taken at C speed, and counted as
        the walk above would count it. Anything else (a tuple, a dict, a subclass, a limit passed) is left to
        the walk, which encodes it or says what is wrong.
        """
        items, level = self.items, [value]
        while level:
            below = sum(map(len, level))  # values one level down, each an item
            items += below
            if items > MAX_ITEMS or (below and depth + 1 > MAX_DEPTH):
                return False
            kinds = set(map(type, chain.from_iterable(level)))  # the types of everything one level down
            if not kinds <= _LIST_OR_SCALAR:
                return False
            if kinds == {list}:
                level = list(chain.from_iterable(level))
            else:
                level = [child for child in chain.from_iterable(level) if type(child) is list]
            depth += 1
        self.items = items
        return True


def drain(generator):
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


# marshal's format version 2: no shared references, so a value that appears twice in a request
# reaches the worker as two copies, as it would through JSON (later versions keep one, shared).
_REQUEST_FORMAT = 2


def dumps_request(message):
    """Encode a request of the grading side's for the worker, with its length prefix; raise WireError
    if it cannot cross.

    Its values pass the checks of dumps() (exact types, depth, size). It is written by marshal,
    which keeps every one of those types as it is; only the worker reads it (loads_request). The
    grading side never reads marshal, whose reader is not safe against data made to harm it.
    """
    _Encoder().encode(message)
    body = marshal.dumps(message, _REQUEST_FORMAT)
    if len(body) > MAX_MESSAGE_BYTES:
        raise WireError(f"a value too large ({len(body):,} bytes; the limit is {MAX_MESSAGE_BYTES:,})")
    return HEADER.pack(len(body)) + body


def loads_request(body):
    """Read a request in the worker (see dumps_request)."""
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError) as exc:
        raise WireError(f"malformed request: {exc}") from None


# A JSON string, escapes included: blanked before the decoder's values are counted.
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
# A well-formed message of MAX_ITEMS items holds at most three JSON values per item: a dict entry
# is a pair list, its key and its value; a tag adds an object and its list. The envelope adds a few.
MAX_JSON_VALUES = 3 * MAX_ITEMS + 64


def _too_many_json_values(body):
    """Whether `body` holds more JSON values than MAX_JSON_VALUES, counted without building any.

    Every value but the first follows "[", "," or ":" outside a string. Counted first with the
    strings in (at C speed, never too few), then, if that is too many, with them blanked out; a
    body of very many strings (each a value, unless a key before ":") is refused before that.
    """
    def structural(text):
        return 1 + text.count(b"[") + text.count(b",") + text.count(b":")

    if structural(body) <= MAX_JSON_VALUES:
        return False
    strings = (body.count(b'"') - body.count(b'\\"')) // 2
    if strings - body.count(b":") > MAX_JSON_VALUES:
        return True
    return structural(_JSON_STRING.sub(b'""', body)) > MAX_JSON_VALUES


def loads(body):
    """Parse a message body; tags in it come back as tuples and dicts.

    A body the worker's encoder could not have made (more values than its item limit allows) is
    refused before a single value is built: the grading process, not the worker, would pay for it.
    """
    # A body has no more values than bytes, so only a big one needs counting.
    if len(body) > MAX_JSON_VALUES and _too_many_json_values(body):
        raise WireError(f"malformed message: more values than {MAX_ITEMS:,} items can make")
    try:
        text = body.decode("utf-8")
        if len(body) <= _SHALLOW_BYTES:
            return _JSON_DECODER.decode(text)
        with _RecursionRoom():
            return _JSON_DECODER.decode(text)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"malformed message: {exc}") from None


def read_exactly(fd, size):
    chunks, remaining = [], size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
