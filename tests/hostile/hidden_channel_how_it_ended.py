"""Attack: spell a number into a hidden check's entry through how the worker ends.

add exits with status NUMBER % 200 + 1, tag kills its own process with the
real-time signal SIGRTMIN + NUMBER % 8, and push returns an object of a class
named for NUMBER, which cannot cross the channel. A public check may give the
status, the signal and the class; a hidden check may say only that the code
ended its process, was killed by a signal, or returned no plain data. NUMBER
is filled in by the test, which grades the attack twice with different numbers.

Should score 1 of 8 (pair is a tuple); the hidden entries are the same whatever NUMBER is.
"""

import os
import signal

NUMBER = int("@NUMBER@")


def add(a, b):
    os._exit(NUMBER % 200 + 1)


def pair(x):
    return (x, x)


def tag(n):
    os.kill(os.getpid(), signal.SIGRTMIN + NUMBER % 8)


def push(items, item):
    return type(f"Value{NUMBER}", (), {})()
