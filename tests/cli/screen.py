"""What the command-line tests share: a narrow, plain terminal, and a second exercise in the toy kit."""

from __future__ import annotations

import shutil

NARROW = {"COLUMNS": "80", "NO_COLOR": "1"}


def assert_plain_and_narrow(text: str) -> None:
    """No colour codes (not a terminal, NO_COLOR set), every line fits 80 columns, nothing cut short."""
    assert "\x1b" not in text
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "…" not in text


def one_line(text: str) -> str:
    """The text with its wrapping undone, to find phrases that rich wrapped at 80 columns."""
    return " ".join(text.split())


def add_twin(kit, ex_id: str, slug: str, title: str | None = None) -> None:
    """Copy the toy exercise (without its solutions) under another id, slug and title."""
    folder = kit.root / "exercises" / f"{ex_id}_{slug}"
    shutil.copytree(kit.root / "exercises" / "ex01_toy", folder)
    toml = folder / "exercise.toml"
    text = toml.read_text().replace('id = "ex01"', f'id = "{ex_id}"').replace('slug = "toy"', f'slug = "{slug}"')
    if title is not None:
        text = text.replace('title = "A toy exercise for the grader\'s tests"', f'title = "{title}"')
    toml.write_text(text)
