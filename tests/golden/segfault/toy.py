def add(a, b):
    nested = [a + b]
    for _ in range(200_000):  # deep enough to overflow the C stack, quick to build
        nested = map(abs, nested)
    return list(nested)[0]


def pair(x):
    return (x, x)
