"""Attack: carry a hidden call's inputs to a later worker, or a later grade, in kernel keys.

Keys belong to no namespace: one linked into the uid's user keyring outlives the process that made
it, and a key in the grader's session keyring is the worker's too unless it leaves that keyring.
add stores its inputs as a key in the user keyring and in the session keyring; tag ends its worker,
so push runs in a new one, whose import (like every import here) looks for such a key, and for a
key the test put in the grader's session keyring, and prints what it found. push then raises with
it, so a hidden check's entry would carry it too. Everything else is honest.

Should score 6 of 8: tag (2 points) "crashed"; no "CARRIED" and no grader key anywhere in the report, and
the import says the key calls were refused.
"""

import ctypes
import errno
import os

_libc = ctypes.CDLL(None, use_errno=True)
_CALL = {"add_key": 248, "keyctl": 250}  # x86_64's numbers; the test runs there
_USER, _SESSION = -4, -3
_SEARCH, _READ = 10, 11


def _syscall(name, *args):
    found = _libc.syscall(ctypes.c_long(_CALL[name]), *args)
    return found, errno.errorcode.get(ctypes.get_errno(), "?")


def _find(keyring, description):
    """The payload of a user key of that description reachable from the keyring, or why not."""
    key, why = _syscall("keyctl", ctypes.c_long(_SEARCH), ctypes.c_long(keyring), b"user", description,
                        ctypes.c_long(0))
    if key < 0:
        return None, why
    buffer = ctypes.create_string_buffer(256)
    size, why = _syscall("keyctl", ctypes.c_long(_READ), ctypes.c_long(key), buffer, ctypes.c_long(256))
    return (buffer.raw[:size].decode() if size >= 0 else None), why


def _look():
    carried, why = _find(_USER, b"minimax-kit-carry")
    token, token_why = _find(_SESSION, os.environ.get("GRADER_KEY", "minimax-kit-grader-key").encode())
    print("KEY CALLS", why, token_why)
    return [text for text in (carried, token) if text]


FOUND = _look()
for text in FOUND:
    print("FOUND", text)


def add(a, b):
    for keyring in (_USER, _SESSION):
        payload = f"CARRIED {a} {b}".encode()
        _syscall("add_key", b"user", b"minimax-kit-carry", payload, ctypes.c_long(len(payload)), ctypes.c_long(keyring))
    return a + b


def pair(x):
    return (x, x)


def tag(n):
    os._exit(3)


def push(items, item):
    if FOUND:
        raise RuntimeError(" ".join(FOUND))
    items.append(item)
    return len(items)
