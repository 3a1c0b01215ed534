def add(a, b):
    return sum(range(10**12))


def pair(x):
    return (x, x)
