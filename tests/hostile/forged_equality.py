"""Attack: return objects whose __eq__ says yes to everything.

An always-equal object, a tuple of float subclasses with a forged __eq__, a
dict subclass with a forged __eq__ (and a matching __hash__ and __ne__), a set,
and an instance of a custom class. A check comparing them in-process would pass;
across the boundary only exact plain types are accepted.

Should score 0 of 8: every check "failed", with a message saying what to
return instead.
"""


class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


class SlyFloat(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = float.__hash__


class SlyDict(dict):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__


class Answer:
    """A custom class that claims to be whatever it is compared with."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def add(a, b):
    return AlwaysEqual() if a % 2 else Answer(a + b)


def pair(x):
    return (SlyFloat(x), SlyFloat(x))


def tag(n):
    if n < 0:
        raise ValueError(n)
    return SlyDict(n=n)


def push(items, item):
    items.append(item)
    return {len(items)}
