def add(a, b):
    nested = [a + b]
    for _ in range(10**6):
        nested = map(abs, nested)
    return list(nested)[0]


def pair(x):
    return (x, x)
