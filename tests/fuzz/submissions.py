"""Generators of broken and random toy.py submissions, each drawn from its own seeded random.Random.

Every generator takes a random.Random and the reference solution's bytes and returns the bytes of
one submission. A case's Random is seeded from SEED, its generator's name and its index, so a case
is the same on every run and machine, and adding a generator or a case leaves the others unchanged.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tests.conftest import TOY_KIT

SEED = 20261129
REFERENCE = (TOY_KIT / "solutions" / "ex01_toy" / "toy.py").read_bytes()

# Fragments of Python for token soup. Nothing here can build a loop or a huge number at import
# (no while, no * or **), so a soup that happens to parse ends quickly and the fuzz stays fast.
KEYWORDS = ["def", "return", "if", "else", "elif", "for", "in", "lambda", "class", "import", "from", "raise",
            "try", "except", "finally", "with", "as", "yield", "await", "async", "global", "nonlocal", "pass",
            "None", "True", "False", "not", "and", "or", "is", "del", "assert", "break", "continue", "match",
            "case"]
NAMES = ["add", "pair", "tag", "push", "a", "b", "x", "n", "items", "item", "ValueError", "len", "print", "é",
         "λ", "变量", "_"]
NUMBERS = ["0", "1", "42", "3.14", "1e309", "0x", "0b2", "1_000", "07", "1j", "1__0"]
STRINGS = ['"', "'", '"""', "f'{", "f'{x!z}'", "b'\\xff'", "r'\\'", "'abc'", '"\\N{nope}"', "'\\x4'", "u'é'"]
OPERATORS = [*"()[]{}:;,.=+-/%<>!@&|^~\\", "//", "==", "!=", "->", ":=", "...", "+="]
SPACING = ["\n", "\n    ", "\n\t", " ", "  ", "\r\n", "\x0c", "\\\n", "# junk\n", "\r", "\t"]
SOUP = KEYWORDS + NAMES + NUMBERS + STRINGS + OPERATORS + SPACING

# Byte sequences that are never valid UTF-8: stray continuation and lead bytes, latin-1 letters,
# an encoded surrogate, a code point past U+10FFFF and an overlong encoding.
NOT_UTF8 = [b"\xff", b"\xfe", b"\x80", b"\xbf", b"\xc3", b"\xe9", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"]

# Module-level statements that parse but fail at import, each in its own way.
FAILS_AT_IMPORT = ["1 / 0", "undefined_name", "import no_such_module_for_the_fuzz", "raise SystemExit(3)",
                   "assert False, 'boom'", "[][1]", "{}['key']", "int('x')", "raise KeyboardInterrupt",
                   "add = 5", "from os import no_such_name"]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def soup(rng: random.Random, tokens: int) -> bytes:
    """Random Python-looking fragments: garbage that gets past the tokenizer into the parser."""
    return "".join(rng.choice(SOUP) + rng.choice(["", " "]) for _ in range(tokens)).encode("utf-8")


def random_bytes(rng: random.Random, reference: bytes) -> bytes:
    """Uniformly random bytes, from none at all to a few KiB."""
    return rng.randbytes(rng.choice([0, 1, rng.randint(2, 64), rng.randint(65, 4096)]))


def token_soup(rng: random.Random, reference: bytes) -> bytes:
    """A few lines of random Python fragments."""
    return soup(rng, rng.randint(1, 120))


def truncated_bytes(rng: random.Random, reference: bytes) -> bytes:
    """The reference cut at a random byte, always short of its last character."""
    return reference[: rng.randrange(len(reference.rstrip()))]


def truncated_lines(rng: random.Random, reference: bytes) -> bytes:
    """The reference cut after a random line, sometimes part-way into the next (never complete)."""
    lines = _lines(reference.rstrip())
    keep = rng.randrange(len(lines))
    partial = lines[keep].rstrip(b"\n")
    tail = partial[: rng.randrange(len(partial))] if partial and rng.random() < 0.5 else b""
    return b"".join(lines[:keep]) + tail


def shuffled_lines(rng: random.Random, reference: bytes) -> bytes:
    """The reference's lines in a random order: all of them, or a window of two to five."""
    lines = _lines(reference)
    if rng.random() < 0.5:
        rng.shuffle(lines)
    else:
        start = rng.randrange(len(lines) - 1)
        window = lines[start:start + rng.randint(2, 5)]
        rng.shuffle(window)
        lines[start:start + len(window)] = window
    return b"".join(lines)


def mutated_characters(rng: random.Random, reference: bytes) -> bytes:
    """The reference with one to twelve characters deleted or doubled on random lines."""
    lines = _lines(reference)
    for _ in range(rng.randint(1, 12)):
        index = rng.randrange(len(lines))
        line = lines[index]
        if not line:
            continue
        at = rng.randrange(len(line))
        lines[index] = line[:at] + line[at + 1:] if rng.random() < 0.5 else line[:at + 1] + line[at:]
    return b"".join(lines)


def random_indentation(rng: random.Random, reference: bytes) -> bytes:
    """The reference re-indented: consistently (still valid) or line by line at random."""
    indents = [b"", b" ", b"  ", b"   ", b"\t", b" \t", b"\t ", b"        ", b"\t\t", b"\x0c"]
    lines = _lines(reference)
    if rng.random() < 0.3:
        # One new unit for every level: tabs or a number of spaces, so the module still parses.
        unit = rng.choice([b"\t", b" ", b"  ", b"   ", b"        "])
        out = []
        for line in lines:
            body = line.lstrip(b" ")
            out.append(unit * ((len(line) - len(body)) // 4) + body)
        return b"".join(out)
    chance = rng.uniform(0.05, 0.6)
    return b"".join(rng.choice(indents) + line.lstrip(b" \t") if rng.random() < chance else line for line in lines)


def non_utf8(rng: random.Random, reference: bytes) -> bytes:
    """The reference with bytes that are not UTF-8 in random places (code, strings, comments)."""
    data = reference
    for _ in range(rng.randint(1, 5)):
        at = rng.randrange(len(data) + 1)
        data = data[:at] + rng.choice(NOT_UTF8) + data[at:]
    return data


def nul_bytes(rng: random.Random, reference: bytes) -> bytes:
    """The reference with NUL bytes: inserted anywhere, or padding its end."""
    if rng.random() < 0.3:
        return reference + b"\0" * rng.randint(1, 4096)
    data = reference
    for _ in range(rng.randint(1, 5)):
        at = rng.randrange(len(data) + 1)
        data = data[:at] + b"\0" + data[at:]
    return data


def huge_lines(rng: random.Random, reference: bytes) -> bytes:
    """The reference with one huge line between two of its lines: valid or not, up to 4 MB."""
    size = rng.choice([10**4, 10**5, 10**6, 4 * 10**6])
    depth = rng.choice([150, 201, 1000, 10**5])
    huge = rng.choice([
        b"# " + b"x" * size,                               # a comment: still valid
        b"_s = '" + b"a" * size + b"'",                    # a long string: still valid
        b"x" * size + b" = 1",                             # a long name: still valid
        b"_s = '" + b"a" * size,                           # an unterminated string
        b"_n = " + b"9" * size,                            # an integer past the 4,300-digit limit
        b"_p = " + b"(" * depth + b"0" + b")" * depth,     # parentheses nested past the parser's limit
        b"_e = " + b"1+" * (size // 2) + b"1",             # an expression too deep to compile
        b"_m = " + b"-" * size + b"1",                     # unary minus past the parser's stack
        soup(rng, size // 8).replace(b"\n", b" "),         # a garbage line
    ])
    lines = _lines(reference)
    at = rng.randrange(len(lines) + 1)
    return b"".join(lines[:at]) + huge + b"\n" + b"".join(lines[at:])


def _blocks(reference: bytes) -> list[bytes]:
    """The reference split into its top-level blocks: the docstring and each function."""
    blocks: list[bytes] = []
    for line in _lines(reference):
        if line.strip() and not line[:1].isspace():
            blocks.append(b"")
        if blocks:
            blocks[-1] += line
    return blocks


def mixed_garbage(rng: random.Random, reference: bytes) -> bytes:
    """Some of the reference's functions, in a random order, among lines of garbage.

    The garbage is token soup, random printable text, a statement that fails at import, or a
    comment (which leaves the module valid).
    """
    pieces = [block for block in _blocks(reference) if rng.random() < 0.7]
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        if kind == 0:
            garbage = soup(rng, rng.randint(1, 12)).replace(b"\n", b" ")
        elif kind == 1:
            garbage = "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(1, 60))).encode("utf-8",
                                                                                                   "replace")
        elif kind == 2:
            garbage = rng.choice(FAILS_AT_IMPORT).encode()
        else:
            garbage = b"# " + "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(40)).encode("utf-8", "replace")
        pieces.insert(rng.randint(0, len(pieces)), garbage + b"\n")
    if rng.random() < 0.5:
        rng.shuffle(pieces)
    return b"\n".join(pieces)


# Exceptions a module may raise at import, and pieces of their messages: words, and characters that
# break a one-line message (newlines, tabs, terminal escapes, Unicode line separators).
IMPORT_EXCEPTIONS = ["ValueError", "RuntimeError", "TypeError", "AssertionError", "SystemExit", "KeyboardInterrupt"]
WORDS = ["the", "board", "is", "not", "ready", "expected", "got", "5", "[1, 2]", "é", "→", "🙂", ":", "-"]
BREAKS = ["\n", "\r\n", "\r", "\t", "\x1b[31m", "\x1b]0;pwned\x07", "\x85", "\u2028", "\x00", "\x7f"]


def raises_at_import(rng: random.Random, reference: bytes) -> bytes:
    """The reference with a statement between two functions that raises at import.

    Half the messages are plain words; the rest also hold characters that break a line.
    """
    parts = WORDS + (BREAKS if rng.random() < 0.5 else [])
    message = " ".join(rng.choice(parts) for _ in range(rng.randint(0, 8)))
    statement = f"raise {rng.choice(IMPORT_EXCEPTIONS)}({message!r})\n\n\n".encode()
    blocks = _blocks(reference)
    at = rng.randint(1, len(blocks))
    return b"".join(blocks[:at]) + statement + b"".join(blocks[at:])


GENERATORS = {generator.__name__: generator for generator in (
    random_bytes, token_soup, truncated_bytes, truncated_lines, shuffled_lines, mutated_characters,
    random_indentation, non_utf8, nul_bytes, huge_lines, mixed_garbage, raises_at_import,
)}


@dataclass(frozen=True)
class Case:
    """One generated submission."""

    kind: str
    index: int
    data: bytes

    @property
    def id(self) -> str:
        """The case's test id, such as "truncated_lines-07"."""
        return f"{self.kind}-{self.index:02d}"


def make_case(kind: str, index: int) -> Case:
    """The submission number `index` of generator `kind`, the same on every run."""
    rng = random.Random(f"{SEED}:{kind}:{index}")
    return Case(kind, index, GENERATORS[kind](rng, REFERENCE))


def all_cases(per_kind: int) -> list[Case]:
    """`per_kind` cases of every generator, in a fixed order."""
    return [make_case(kind, index) for kind in GENERATORS for index in range(per_kind)]
