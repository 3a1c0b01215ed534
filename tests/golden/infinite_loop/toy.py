def add(a, b):
    while True:
        pass


def pair(x):
    return (x, x)
