"""Attack: spell a number into a hidden check's message through an exception's line, name and text.

Every call into add, tag and push raises from code compiled under this very
file's name at line NUMBER (the file is padded with that many blank lines
below, so the line exists), from a function and an exception class named
for NUMBER, with NUMBER in its message. A public check shows all of that; a
hidden check may say only which built-in class was raised. NUMBER is filled
in by the test, which grades the attack twice with different numbers.

Should score 1 of 8 (pair is a tuple); the hidden entries are the same whatever NUMBER is.
"""

NUMBER = int("@NUMBER@")
PADDING = "@PADDING@"


class Spelled(ValueError):
    pass


Spelled.__name__ = Spelled.__qualname__ = f"Spelled{NUMBER}"
SOURCE = "\n" * (NUMBER - 1) + f"def raise_{NUMBER}():\n    raise Spelled('{NUMBER}')\n"
namespace = {"Spelled": Spelled}
exec(compile(SOURCE, __file__, "exec"), namespace)


def add(a, b):
    namespace[f"raise_{NUMBER}"]()


def pair(x):
    return (x, x)


def tag(n):
    namespace[f"raise_{NUMBER}"]()


def push(items, item):
    namespace[f"raise_{NUMBER}"]()
