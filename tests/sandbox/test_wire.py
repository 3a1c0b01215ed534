"""Unit tests for the sandbox wire format in grader/wire.py (values and their encoding).

Values must round-trip exactly (types included), anything else must raise WireError with a message
that says what to return instead, and `loads` must turn any malformed input into WireError.
"""

from __future__ import annotations

import collections
import enum
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.sandbox import wire
from grader.sandbox.wire import HEADER, MAX_DEPTH, MAX_ITEMS, MAX_MESSAGE_BYTES, WireError, dumps, loads


def roundtrip(value):
    message = dumps(value)
    return loads(message[HEADER.size:])


def same(a, b) -> bool:
    """Equal with exactly the same types all the way down; nan equals nan; -0.0 differs from 0.0."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


def nest(depth: int, kind: str, leaf=0):
    """`leaf` wrapped in `depth` containers of one kind ("list", "tuple", "dict") or alternating ("mixed")."""
    value = leaf
    for level in range(depth):
        k = ("list", "tuple", "dict")[level % 3] if kind == "mixed" else kind
        value = [value] if k == "list" else (value,) if k == "tuple" else {"k": value}
    return value


def unnest(value, depth: int, kind: str):
    """Walk down `depth` levels without recursion, checking each container's exact type; return the leaf."""
    for level in reversed(range(depth)):
        k = ("list", "tuple", "dict")[level % 3] if kind == "mixed" else kind
        assert type(value).__name__ == k and len(value) == 1, (level, type(value))
        value = value["k"] if k == "dict" else value[0]
    return value


# -- exact round trips


@pytest.mark.parametrize(
    "value",
    [
        None, True, False, 0, 1, -1, 2**63, -(2**63) - 1, 10**100, -(10**100),
        0.0, -0.0, 1.5, -2.25, 1e308, 5e-324, 0.1, float("inf"), float("-inf"),
        "", "plain", "héllo", "日本語", "🎲 dice", "\x00nul", "line\nbreak", '"quoted" \\ back', "\u2028", "\ud800",
        [], (), {}, [1, "a", None], (1, 2), (1,), {"a": 1, "b": [2, 3]},
        [(1, 2), {"k": (3, [4, {"deep": None}])}],
        ((),), [[]], {"": {}}, {"x": ()},
    ],
    ids=repr,
)
def test_plain_value_round_trips_exactly(value):
    assert same(roundtrip(value), value)


def test_nan_round_trips():
    back = roundtrip([float("nan"), (float("nan"),), {"n": float("nan")}])
    assert type(back[0]) is float and math.isnan(back[0])
    assert type(back[1]) is tuple and math.isnan(back[1][0])
    assert math.isnan(back[2]["n"])


def test_largest_allowed_ints_round_trip():
    biggest = 10**4300 - 1  # 4,300 digits, the conversion limit
    assert roundtrip(biggest) == biggest
    assert roundtrip(-biggest) == -biggest


def test_bools_stay_bools_and_ints_stay_ints():
    back = roundtrip([True, 1, False, 0, 1.0])
    assert [type(x) for x in back] == [bool, int, bool, int, float]


@pytest.mark.parametrize(
    "value",
    [
        {"tuple": [1]},
        {"dict": []},
        {"dict": [["a", 1]]},
        {"tuple": (1,)},
        [["a", 1]],
        [["tuple", [1]]],
        ("dict", []),
        {"tuple": [1], "dict": []},
        {"tuple": {"tuple": {"dict": {}}}},
    ],
    ids=repr,
)
def test_values_that_look_like_tags_come_back_unchanged(value):
    assert same(roundtrip(value), value)


def test_dict_key_order_is_kept():
    value = {"z": 1, "a": 2, "m": 3}
    assert list(roundtrip(value)) == ["z", "a", "m"]


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # includes nan, inf, -inf and -0.0
    | st.text()
)
KEYS = st.text() | st.sampled_from(["tuple", "dict", ""])
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5)
    | st.lists(inner, max_size=5).map(tuple)
    | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)


@given(VALUES)
@settings(max_examples=300, deadline=None, database=None)
def test_any_plain_value_round_trips_exactly(value):
    assert same(roundtrip(value), value)


# -- the length prefix


def test_header_is_four_bytes_big_endian():
    assert HEADER.size == 4
    assert dumps("a" * 298)[:4] == (300).to_bytes(4, "big")  # '"' + 298 characters + '"'


@pytest.mark.parametrize("value", [None, "x" * 70_000, [1, (2, 3), {"k": "v"}], {}])
def test_length_prefix_matches_the_body(value):
    message = dumps(value)
    (size,) = HEADER.unpack(message[: HEADER.size])
    assert size == len(message) - HEADER.size
    assert same(loads(message[HEADER.size:]), value)


# -- values that cannot cross


class MyDict(dict):
    pass


class MyList(list):
    pass


class MyInt(int):
    pass


class MyFloat(float):
    pass


class Colour(enum.IntEnum):
    RED = 1


class AlwaysEqual:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def _function():
    return 1


def _generator():
    yield 1


ANYTHING_PLAIN = "return only None, bool, int, float, str, list, tuple and dict with str keys"


@pytest.mark.parametrize(
    "value, names, instead",
    [
        ({1, 2}, "a set", "return a list or tuple"),
        (frozenset({1}), "a frozenset", "return a list or tuple"),
        (MyDict(a=1), "a MyDict", "return a plain dict"),
        (collections.OrderedDict(a=1), "an OrderedDict", "return a plain dict"),
        (collections.defaultdict(list), "a defaultdict", "return a plain dict"),
        (MyList([1]), "a MyList", "return a plain list"),
        (MyInt(3), "a MyInt", "return a plain int"),
        (Colour.RED, "a Colour", "return a plain int"),
        (MyFloat(1.5), "a MyFloat", "return a plain float"),
        (AlwaysEqual(), "an AlwaysEqual", ANYTHING_PLAIN),
        (b"bytes", "a bytes", ANYTHING_PLAIN),
        (_function, "a function", ANYTHING_PLAIN),
        (_generator(), "a generator", ANYTHING_PLAIN),
        ({1: 2}, "int key", "use str keys"),
        ({(1, 2): 3}, "tuple key", "use str keys"),
        ({None: 3}, "NoneType key", "use str keys"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else v[:20],
)
def test_unsupported_value_names_its_type_and_the_fix(value, names, instead):
    with pytest.raises(WireError) as info:
        dumps(value)
    message = str(info.value)
    assert names in message
    assert instead in message


def test_always_equal_object_is_rejected_even_inside_a_container():
    with pytest.raises(WireError, match="AlwaysEqual"):
        dumps({"value": [1, (2, AlwaysEqual())]})


def test_nested_bad_value_is_described_as_contained():
    with pytest.raises(WireError, match=r"^a value containing a set; return a list or tuple$"):
        dumps([[1, {2}]])


def test_int_over_4300_digits_is_a_clear_failure():
    with pytest.raises(WireError, match="integer with more than 4,300 digits"):
        dumps([1, 10**4300])


def test_negative_int_over_4300_digits_is_a_clear_failure():
    with pytest.raises(WireError, match="4,300 digits"):
        dumps(-(10**4300))


def test_a_list_that_contains_itself_is_rejected():
    loop: list = []
    loop.append(loop)
    with pytest.raises(WireError, match="nested more than"):
        dumps(loop)


def test_a_dict_that_contains_itself_is_rejected():
    loop: dict = {}
    loop["self"] = loop
    with pytest.raises(WireError, match="nested more than"):
        dumps(loop)


# -- depth


@pytest.mark.parametrize(
    "kind",
    [
        "list",
        "tuple",
        "dict",
        "mixed",
    ],
)
def test_value_nested_max_depth_round_trips(kind):
    back = roundtrip(nest(MAX_DEPTH, kind))
    assert unnest(back, MAX_DEPTH, kind) == 0


@pytest.mark.parametrize("kind", ["list", "tuple", "dict", "mixed"])
def test_value_nested_deeper_than_max_depth_is_rejected(kind):
    with pytest.raises(WireError, match=f"nested more than {MAX_DEPTH} levels"):
        dumps(nest(MAX_DEPTH + 1, kind))


@pytest.mark.parametrize("kind", ["list", "tuple", "dict", "mixed"])
def test_grading_side_decodes_1000_deep_nesting_inside_a_reply(kind):
    message = dumps({"kind": "returned", "value": nest(1000, kind, leaf="leaf"), "output": {"stdout": ""}})
    reply = loads(message[HEADER.size:])
    assert unnest(reply["value"], 1000, kind) == "leaf"


# -- size


def test_more_than_max_items_is_rejected():
    with pytest.raises(WireError, match="too large"):
        dumps([0] * MAX_ITEMS)  # the list itself plus MAX_ITEMS leaves


def test_exactly_max_items_is_accepted(monkeypatch):
    monkeypatch.setattr(wire, "MAX_ITEMS", 10)
    assert roundtrip([0] * 9) == [0] * 9  # 10 items: the list and 9 leaves
    with pytest.raises(WireError, match="more than 10 items"):
        dumps([0] * 10)


@pytest.mark.parametrize("shape", ["dict of scalars", "list of empty tuples", "list of one-entry dicts"])
def test_the_largest_values_the_encoder_allows_are_decoded(shape):
    """The decoder's count of JSON values never refuses what the encoder let through."""
    room = MAX_ITEMS - 20  # the reply's envelope takes a few items
    # (a dict's entries are the longest JSON per item: three quarters of them fill the size limit)
    value = {"dict of scalars": lambda: {f"k{i}": i for i in range(room * 3 // 4)},
             "list of empty tuples": lambda: [()] * room,
             "list of one-entry dicts": lambda: [{"a": 0}] * (room // 2)}[shape]()
    message = dumps({"kind": "returned", "value": value})
    assert loads(message[HEADER.size:])["value"] == value


FORGED_WORST = """
import resource, sys
from grader.sandbox import wire
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
body = b"[" + b"[]," * (wire.MAX_MESSAGE_BYTES // 3 - 1) + b"[]]"  # 11 million empty lists, within the size limit
try:
    wire.loads(body)
    print("decoded", end=" ")
except wire.WireError:
    print("refused", end=" ")
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_a_forged_frame_of_many_values_is_refused_before_it_is_built():
    """The grading process's peak memory on the worst forged frame: the body and a little more.

    Decoded, its 11 million empty lists took 834 MiB more (measured on the code before the count);
    refused, 64 MiB: the 32 MiB body and its copy."""
    done = subprocess.run([sys.executable, "-c", FORGED_WORST], capture_output=True, text=True, timeout=120,
                          cwd=Path(wire.__file__).parent.parent, check=True)
    verdict, peak_mb = done.stdout.split()
    assert verdict == "refused"
    assert int(peak_mb) < 3 * MAX_MESSAGE_BYTES // 2**20, f"{peak_mb} MiB over the interpreter's own"


def test_message_over_max_bytes_is_rejected():
    with pytest.raises(WireError, match="too large"):
        dumps("x" * MAX_MESSAGE_BYTES)  # plus two quotes


def test_16_mb_message_round_trips():
    text = "y" * (16 * 2**20)
    assert roundtrip(text) == text


def _tree(leaves: int, rng: random.Random):
    """A nested-list game tree with exactly `leaves` integer leaves."""
    if leaves == 1:
        return rng.randint(-100, 100)
    parts = rng.randint(2, min(10, leaves))
    sizes = [leaves // parts] * parts
    for i in range(leaves % parts):
        sizes[i] += 1
    return [_tree(size, rng) for size in sizes]


def _count_leaves(tree) -> int:
    return sum(_count_leaves(child) for child in tree) if type(tree) is list else 1


def test_100000_leaf_tree_round_trips():
    tree = _tree(10**5, random.Random(3))
    assert _count_leaves(tree) == 10**5
    message = dumps({"kind": "returned", "value": tree})
    assert len(message) < 16 * 2**20
    assert loads(message[HEADER.size:])["value"] == tree


# -- malformed input to loads


@pytest.mark.parametrize(
    "body",
    [
        b"", b"   ", b"{", b"[1,", b"[1]]", b"1 2", b"nul", b"\x00", b"'single'", b"[1,]", b"{\"tuple\": [1],}",
        b"1" * 5000,  # an int over the 4,300-digit limit
    ],
    ids=repr,
)
def test_loads_rejects_malformed_json(body):
    with pytest.raises(WireError, match="malformed message"):
        loads(body)


@pytest.mark.parametrize("body", [b"\xff", b'"\xc3\x28"', b'["ok", "\xed\xa0\x80"]', b"\xfe\xff\x00[\x00]"], ids=repr)
def test_loads_rejects_invalid_utf8(body):
    with pytest.raises(WireError, match="malformed message"):
        loads(body)


@pytest.mark.parametrize(
    "body",
    [
        b'{"x": 1}',
        b'[1, {"x": 1}]',
        b"{}",
        b'{"tuple": 1}',
        b'{"tuple": [1], "x": 2}',
        b'{"tuple": [1], "dict": []}',
        b'{"dict": {}}',
        b'{"dict": [[1, 2]]}',
        b'{"dict": [["a"]]}',
        b'{"dict": [["a", 1, 2]]}',
        b'{"dict": [{"tuple": ["a", 1]}]}',
        b'{"dict": [[{"tuple": []}, 1]]}',
    ],
    ids=repr,
)
def test_loads_rejects_objects_that_are_not_tags(body):
    with pytest.raises(WireError, match="not a wire tag"):
        loads(body)


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"tuple":' * 100_000 + b"[]" + b"}" * 100_000,
        b"[" * 100_000,
    ],
    ids=["array", "tuple tags", "unclosed"],
)
def test_loads_rejects_100000_deep_json_with_wire_error(body):
    with pytest.raises(WireError):
        loads(body)


@given(st.binary(max_size=200))
@settings(max_examples=300, deadline=None, database=None)
def test_loads_raises_only_wire_error_on_random_bytes(body):
    try:
        loads(body)
    except WireError:
        pass


@given(VALUES, st.data())
@settings(max_examples=200, deadline=None, database=None)
def test_loads_raises_only_wire_error_on_corrupted_messages(value, data):
    body = bytearray(dumps(value)[HEADER.size:])
    position = data.draw(st.integers(0, len(body) - 1))
    body[position] = data.draw(st.integers(0, 255))
    try:
        loads(bytes(body))
    except WireError:
        pass


# -- trees of plain lists, which json writes as they are


def test_a_tree_of_lists_over_max_items_is_rejected(monkeypatch):
    monkeypatch.setattr(wire, "MAX_ITEMS", 10)
    assert roundtrip([[0] * 3, [[0] * 3]]) == [[0] * 3, [[0] * 3]]  # 10 items: 3 lists and 7 values below the top
    with pytest.raises(WireError, match="more than 10 items"):
        dumps([[0] * 3, [[0] * 4]])


@given(st.recursive(st.integers(-5, 5), lambda children: st.lists(children, max_size=4), max_leaves=40), st.data())
@settings(max_examples=200, deadline=None)
def test_a_tree_of_lists_with_one_other_value_inside_keeps_it(tree, data):
    """A tuple, dict or bool deep in a tree of lists comes back as itself, and a subclass is refused."""
    path, node = [], tree
    while type(node) is list and node:
        index = data.draw(st.integers(0, len(node) - 1))
        path.append(index)
        node = node[index]
    odd = data.draw(st.sampled_from([(1, 2), {"k": [3]}, True, 2.5, "s", None, _Int(7)]))
    if not path:
        tree = [odd]
    else:
        parent = tree
        for index in path[:-1]:
            parent = parent[index]
        parent[path[-1]] = odd
    if type(odd) is _Int:
        with pytest.raises(WireError, match="_Int"):
            dumps(tree)
    else:
        assert same(roundtrip(tree), tree)


class _Int(int):
    """An int subclass, which no value on the wire may hold."""



def test_a_deep_tree_of_lists_with_a_tuple_at_the_bottom_is_tried_whole_once(monkeypatch):
    """A chain of lists that is not a tree of lists only at its bottom is tried whole once, not once per level,
    which would scan it MAX_DEPTH times over."""
    tried = []
    list_tree = wire._Encoder.list_tree

    def counted(self, value, depth):
        tried.append(depth)
        return list_tree(self, value, depth)

    monkeypatch.setattr(wire._Encoder, "list_tree", counted)
    value = nest(MAX_DEPTH - 1, "list", leaf=(1,))  # the tuple's item is at the deepest level allowed
    assert unnest(roundtrip(value), MAX_DEPTH - 1, "list") == (1,)
    assert tried == [0]


# -- requests: the grading side's, checked as replies are and read by the worker alone


def request_roundtrip(value):
    message = wire.dumps_request(value)
    (size,) = HEADER.unpack(message[: HEADER.size])
    assert size == len(message) - HEADER.size
    return wire.loads_request(message[HEADER.size:])


@pytest.mark.parametrize(
    "value",
    [None, True, False, 0, 2**63, 10**100, -0.0, 5e-324, float("inf"), "", "héllo", "\ud800", "\x00nul",
     [], (), {}, (1,), [True, 1, 1.0], {"b": 1, "a": (2, [3.5, {"deep": None}])}, {"dict": [["k", 1]]},
     {"tuple": [1]}, [[[-1.25, 2], [3]], [[4.5]]]],
    ids=repr,
)
def test_a_plain_value_crosses_exactly_as_a_request(value):
    assert same(request_roundtrip(value), value)


@given(VALUES)
@settings(max_examples=300, deadline=None, database=None)
def test_any_plain_value_crosses_exactly_as_a_request(value):
    assert same(request_roundtrip(value), value)


def test_nan_crosses_as_a_request():
    assert math.isnan(request_roundtrip(float("nan")))


@pytest.mark.parametrize("kind", ["list", "tuple", "dict", "mixed"])
def test_a_request_nested_max_depth_crosses(kind):
    assert unnest(request_roundtrip(nest(MAX_DEPTH, kind)), MAX_DEPTH, kind) == 0


def test_a_value_twice_in_a_request_reaches_the_worker_as_two_copies():
    """As through JSON: student code that changes one in place must not change the other."""
    shared = [1, [2]]
    back = request_roundtrip({"args": [[shared, shared], shared]})
    first, second = back["args"][0]
    assert first == second == back["args"][1] == shared
    assert first is not second and first[1] is not second[1] and back["args"][1] is not first


@pytest.mark.parametrize(("value", "words"), [
    ({1, 2}, "a set; return a list or tuple"),
    ([[collections.OrderedDict(a=1)]], "a value containing an OrderedDict; return a plain dict"),
    ({1: "a"}, "a dict with an int key; use str keys"),
    (nest(MAX_DEPTH + 1, "list"), f"nested more than {MAX_DEPTH} levels"),
])
def test_a_request_is_checked_as_a_reply_is(value, words):
    with pytest.raises(WireError, match=words.replace("(", r"\(")) as request:
        wire.dumps_request(value)
    with pytest.raises(WireError) as reply:
        dumps(value)
    assert str(request.value) == str(reply.value)


def test_a_request_over_max_items_is_refused(monkeypatch):
    monkeypatch.setattr(wire, "MAX_ITEMS", 1000)
    with pytest.raises(WireError, match="more than 1,000 items"):
        wire.dumps_request({"args": [list(range(1001))]})


def test_a_malformed_request_is_a_wire_error():
    with pytest.raises(WireError, match="malformed request"):
        wire.loads_request(b"\xff\x00")
