"""Attack: smuggle the hidden checks' inputs into the report.

A failed hidden check must never show its inputs; it does show the student's
exception type and where in the student's file it was raised. All three are
under the student's control: add raises an exception class it creates on the
fly, named after its arguments ("Input_123_m456"); tag raises from a function
whose code object is renamed after its argument ("n_is_4"); push raises from a
line whose number encodes its arguments (line 1000 * item + len(items), via
code compiled under this file's name). pair is correct.

Should score 1 of 8 ("pair is a tuple" passes), and no hidden check's message
should contain its inputs.
"""


def add(a, b):
    name = f"Input_{a}_{b}".replace("-", "m")
    raise type(name, (ValueError,), {})("look at my name")


def pair(x):
    return (x, x)


def _raise():
    raise RuntimeError("look at my caller's name")


def tag(n):
    if n < 0:
        raise ValueError(n)
    renamed = _raise.__code__.replace(co_name=f"n_is_{n}")
    leak = type(_raise)(renamed, globals())
    leak()


def push(items, item):
    line = 1000 * item + len(items)
    exec(compile("\n" * (line - 1) + "raise RuntimeError('look at my line number')", __file__, "exec"))
