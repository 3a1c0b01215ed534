"""`grade new`: lay out a new exercise and its solution folders, working from the first minute."""

from __future__ import annotations

import re
from pathlib import Path

from grader.catalog import EXERCISE_DIR, ID_RANGE, LONGER_ID, Kit, KitError

_TOML = '''format_version = 1
id = "{id}"
slug = "{slug}"
title = "{title}"
module = "{slug}.py"
functions = ["solve"]
# Measure your naive alt/ solution on the heaviest check and keep at least 5x headroom.
call_timeout = 2.0
check_timeout = 20.0
memory_mb = 512
hints = [
    "A first, gentle hint.",
    "A hint that nearly gives the answer.",
]
'''

_README = '''# {id} · {title}

Explain the idea in the kit's own words, state the rules exactly, and give the public examples.

## What to write

`solve(n)` returns `2 * n`. It raises `ValueError` for a negative `n`.

```python
solve(3)   # 6
solve(10)  # 20
```

## Checking your work

Run `grade {id}`. Hidden checks also run; a failed hidden check shows its name and a hint, never its
inputs. `grade hint {id}` gives the next hint.
'''

_STUB = '''"""{id}: {title}."""


def solve(n):
    """Return 2 * n; raise ValueError for a negative n."""
    # TODO: check n, then compute the answer.
    raise NotImplementedError("solve is not written yet")
'''

_PUBLIC = '''"""Public checks for {id}: exactly the README's examples."""

import pytest


# Two inputs with different answers: a solve that always answers 6 must not pass.
@pytest.mark.points(2)
def test_readme_example(student):
    """the README's examples"""
    assert student.solve(3) == 6
    assert student.solve(10) == 20
'''

_HIDDEN = '''"""Hidden checks for {id}. Compute expected values here, never by importing solutions/."""

import pytest


@pytest.mark.hint("Try small and large numbers by hand.")
def test_random_numbers(student, rng):
    """random numbers"""
    for _ in range(20):
        n = rng.randint(0, 10**6)
        assert student.solve(n) == 2 * n


# A check of robustness pays only once solve computes correctly: code that raises ValueError for
# every input must not earn it.
@pytest.mark.requires("test_random_numbers")
@pytest.mark.hint("Bad input raises ValueError; good input still gets its answer.")
def test_negative_input(student):
    """a negative number is refused"""
    with pytest.raises(ValueError):
        student.solve(-1)
'''

_REFERENCE = '''"""Reference solution for {id}."""


def solve(n):
    if n < 0:
        raise ValueError(f"n must be >= 0, got {{n}}")
    return 2 * n
'''

_NAIVE = '''"""A plain, naive but correct solution for {id}: it must get full marks."""


def solve(n):
    if n < 0:
        raise ValueError("negative")
    total = 0
    for _ in range(2):
        total += n
    return total
'''

_MUTANTS = '''# Known mistakes of {id}, each the reference with an edit: grade check applies and grades each
# one, and requires it to lose points (in the checks caught_by names); grade {id} --mutant NAME
# shows the feedback a student with that mistake gets. A mistake that is a whole program of its
# own (a hard-coded answer, say) goes in wrong/ as a file instead. See docs/authoring.md.
format_version = 1

[[mutant]]
name = "accepts_negative"
why = "a negative n is never rejected"
caught_by = ["test_negative_input"]
edits = [{{find = "    if n < 0:\\n        raise ValueError(f\\"n must be >= 0, got {{n}}\\")\\n", replace = ""}}]
'''



def scaffold(kit: Kit, ex_id: str, slug: str, title: str) -> list[Path]:
    """Create exercises/<id>_<slug>/ and solutions/<id>_<slug>/; return the files written."""
    name = f"{ex_id}_{slug}"
    if LONGER_ID.match(ex_id):
        raise KitError(f"new exercise {ex_id!r}: {ID_RANGE}; the kit has room for 99")
    if not EXERCISE_DIR.match(name):
        raise KitError(f"new exercise {ex_id!r} {slug!r}: the id must look like ex10 and the slug like "
                       "alpha_beta (lowercase letters, digits and underscores)")
    if not title.strip() or '"' in title or "\n" in title:
        raise KitError(f"new exercise title {title!r}: give a one-line title without double quotes")
    taken = [folder.name for folder in kit.exercise_folders() if re.match(rf"^{ex_id}_", folder.name)]
    if taken or (kit.root / "solutions" / name).exists():
        raise KitError(f"new exercise {ex_id}: {', '.join(taken) or name} already exists")
    fields = {"id": ex_id, "slug": slug, "title": title.strip()}
    exercise = kit.root / "exercises" / name
    solution = kit.root / "solutions" / name
    files = {
        exercise / "exercise.toml": _TOML,
        exercise / "README.md": _README,
        exercise / f"{slug}.py": _STUB,
        exercise / "checks" / "test_public.py": _PUBLIC,
        exercise / "checks" / "test_hidden.py": _HIDDEN,
        solution / f"{slug}.py": _REFERENCE,
        solution / "alt" / "naive.py": _NAIVE,
        solution / "mutants.toml": _MUTANTS,
    }
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**fields), encoding="utf-8")
    return list(files)
