TABLE = {}
FIRST = TABLE["first"]


def add(a, b):
    return a + b
