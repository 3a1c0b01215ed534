def add(a, b):
    print("adding", a, b)
    return a + b


def pair(x):
    return [x, x]


def tag(n):
    return {"n": n}


def push(items, item):
    return len(items) + 1
