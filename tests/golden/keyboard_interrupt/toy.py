def add(a, b):
    raise KeyboardInterrupt


def pair(x):
    return (x, x)
