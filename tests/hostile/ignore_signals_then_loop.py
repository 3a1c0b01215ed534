"""Attack: ignore or block every catchable signal, then loop forever inside add.

SIGALRM (what signal-based timeouts use), SIGTERM, SIGXCPU, SIGINT, SIGHUP and
SIGUSR1/2 are ignored and blocked, so only SIGKILL can stop the call. The
per-call deadline must still fire. pair, tag and push are correct.

Should score 4 of 8: "pair is a tuple", "tag rejects a negative number" and
"push appends ..." pass; the three add checks time out.
"""

import signal

_IGNORED = (signal.SIGALRM, signal.SIGTERM, signal.SIGXCPU, signal.SIGINT, signal.SIGHUP,
            signal.SIGUSR1, signal.SIGUSR2, signal.SIGVTALRM, signal.SIGPROF)


def add(a, b):
    for sig in _IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, set(_IGNORED))
    while True:
        pass


def pair(x):
    return (x, x)


def tag(n):
    if n < 0:
        raise ValueError(n)
    return {"n": n}


def push(items, item):
    items.append(item)
    return len(items)
