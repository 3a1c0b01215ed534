"""Attack: a loop in add that catches every exception, BaseException included.

Whatever an in-process timeout raises (TimeoutError, KeyboardInterrupt,
SystemExit, pytest's Failed) is swallowed, and the loop goes on. Only killing
the worker stops it. pair, tag and push are correct.

Should score 4 of 8: pair, tag and push pass; the three add checks time out.
"""

import time


def add(a, b):
    while True:
        try:
            while True:
                time.sleep(0.001)
        except BaseException:  # noqa: BLE001 - swallowing everything is the attack
            continue
        finally:
            continue  # noqa: B012 - even a return or a re-raise is swallowed here


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)
