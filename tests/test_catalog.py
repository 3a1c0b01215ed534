"""Unit tests for grader/catalog.py: exercise.toml validation, finding the kit, resolving names.

Every malformed exercise.toml must raise KitError with a one-line message that names the file,
the field and what was expected.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from grader.catalog import Exercise, Kit, KitError, load_exercise

MISSING = object()

# Each field as a TOML literal; tests override or drop single fields.
VALID = {
    "format_version": "1",
    "id": '"ex07"',
    "slug": '"sample"',
    "title": '"A sample exercise"',
    "module": '"sample.py"',
    "functions": '["best_move", "score"]',
    "call_timeout": "1.5",
    "check_timeout": "20",
    "memory_mb": "512",
    "hints": '["Start small.", "Think recursively."]',
}


def make_kit(root: Path) -> Path:
    """A minimal kit: pyproject.toml beside exercises/."""
    (root / "exercises").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    return root


def write_toml(root: Path, folder: str = "ex07_sample", raw: str | bytes | None = None, **fields) -> Path:
    """Write exercises/<folder>/exercise.toml from VALID with `fields` overridden (MISSING drops one)."""
    make_kit(root)
    path = root / "exercises" / folder
    path.mkdir(parents=True, exist_ok=True)
    if raw is None:
        merged = {**VALID, **fields}
        raw = "".join(f"{key} = {value}\n" for key, value in merged.items() if value is not MISSING)
    if isinstance(raw, bytes):
        (path / "exercise.toml").write_bytes(raw)
    else:
        (path / "exercise.toml").write_text(raw, encoding="utf-8")
    return path


def load_error(folder: Path) -> str:
    """The message of the KitError that loading `folder` raises; it must be one line naming the file."""
    with pytest.raises(KitError) as info:
        load_exercise(folder)
    message = str(info.value)
    assert "\n" not in message and "\r" not in message, message
    assert str(folder / "exercise.toml") in message, message
    return message


# -- a valid file


def test_valid_file_loads_every_field(tmp_path):
    folder = write_toml(tmp_path, stub_may_score='"ships a deliberately broken helper"')
    ex = load_exercise(folder)
    assert ex == Exercise(
        format_version=1,
        id="ex07",
        slug="sample",
        title="A sample exercise",
        module="sample.py",
        functions=("best_move", "score"),
        call_timeout=1.5,
        check_timeout=20.0,
        memory_mb=512,
        hints=("Start small.", "Think recursively."),
        stub_may_score="ships a deliberately broken helper",
        path=folder,
    )


def test_valid_file_field_types_are_exact(tmp_path):
    ex = load_exercise(write_toml(tmp_path))
    assert type(ex.functions) is tuple and type(ex.hints) is tuple
    assert type(ex.call_timeout) is float and type(ex.check_timeout) is float  # "20" in TOML is an int
    assert type(ex.memory_mb) is int and type(ex.format_version) is int


def test_absent_stub_may_score_means_none(tmp_path):
    assert load_exercise(write_toml(tmp_path)).stub_may_score is None


def test_empty_hints_list_is_allowed(tmp_path):
    assert load_exercise(write_toml(tmp_path, hints="[]")).hints == ()


def test_exercise_is_frozen(tmp_path):
    ex = load_exercise(write_toml(tmp_path))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.title = "changed"  # type: ignore[misc]


def test_derived_paths_and_names(tmp_path):
    folder = write_toml(tmp_path)
    ex = load_exercise(folder)
    assert ex.name == "ex07_sample"
    assert ex.stub_path == folder / "sample.py"
    assert ex.checks_dir == folder / "checks"
    assert ex.solution_dir(tmp_path) == tmp_path / "solutions" / "ex07_sample"


# -- malformed files


@pytest.mark.parametrize(
    "field, expected",
    [
        ("format_version", "an integer"),
        ("id", "a string"),
        ("slug", "a string"),
        ("title", "a string"),
        ("module", "a string"),
        ("functions", "a list of strings"),
        ("call_timeout", "a positive number"),
        ("check_timeout", "a positive number"),
        ("memory_mb", "a positive integer"),
        ("hints", "a list of strings"),
    ],
)
def test_missing_field_is_named_with_what_was_expected(tmp_path, field, expected):
    message = load_error(write_toml(tmp_path, **{field: MISSING}))
    assert f"missing field '{field}'" in message
    assert expected in message


@pytest.mark.parametrize(
    "field, literal, expected",
    [
        # strings
        ("title", "7", "a string"),
        ("title", '""', "a string"),
        ("title", '"   "', "a string"),
        ("title", '["A title"]', "a string"),
        ("id", "7", "a string"),
        ("slug", "true", "a string"),
        ("module", "1.5", "a string"),
        # positive numbers
        ("call_timeout", '"1.5"', "a positive number"),
        ("check_timeout", "[20]", "a positive number"),
        # positive integers
        ("memory_mb", "512.0", "a positive integer"),
        ("memory_mb", '"512"', "a positive integer"),
        ("memory_mb", "0", "a positive integer"),
        ("memory_mb", "-512", "a positive integer"),
        # lists of strings
        ("functions", '"best_move"', "a list of strings"),
        ("functions", "[1, 2]", "a list of strings"),
        ("functions", '["best_move", 3]', "a list of strings"),
        ("functions", '["best_move", ""]', "a list of strings"),
        ("hints", '"just one hint"', "a list of strings"),
        ("hints", '[["nested"]]', "a list of strings"),
        # integers
        ("format_version", '"1"', "an integer"),
        ("format_version", "1.0", "an integer"),
        ("format_version", "true", "an integer"),
    ],
)
def test_wrong_type_names_field_and_expected_kind(tmp_path, field, literal, expected):
    message = load_error(write_toml(tmp_path, **{field: literal}))
    assert f"field '{field}' must be {expected}" in message


@pytest.mark.parametrize("field", ["call_timeout", "check_timeout", "memory_mb"])
@pytest.mark.parametrize("literal", ["true", "false"])
def test_bool_is_not_a_number(tmp_path, field, literal):
    message = load_error(write_toml(tmp_path, **{field: literal}))
    assert f"field '{field}' must be a positive" in message


@pytest.mark.parametrize("field", ["call_timeout", "check_timeout"])
@pytest.mark.parametrize("literal", ["0", "0.0", "-1", "-0.5", "inf", "-inf", "nan"])
def test_timeout_must_be_positive_and_finite(tmp_path, field, literal):
    message = load_error(write_toml(tmp_path, **{field: literal}))
    assert f"field '{field}' must be a positive number" in message


def test_unknown_field_is_named(tmp_path):
    message = load_error(write_toml(tmp_path, colour='"red"'))
    assert "unknown field 'colour'" in message
    assert "known:" in message and "call_timeout" in message


def test_unknown_field_with_a_newline_in_its_key_is_still_one_line(tmp_path):
    load_error(write_toml(tmp_path, **{'"odd\\nkey"': "1"}))


def test_invalid_toml_is_reported(tmp_path):
    message = load_error(write_toml(tmp_path, raw='format_version = 1\ntitle = "unterminated\n'))
    assert "not valid TOML" in message


def test_non_utf8_file_is_reported(tmp_path):
    message = load_error(write_toml(tmp_path, raw=b'format_version = 1\ntitle = "caf\xe9"\n'))
    assert "not valid TOML" in message
    assert "utf-8" in message.lower()


def test_missing_file_is_reported(tmp_path):
    make_kit(tmp_path)
    folder = tmp_path / "exercises" / "ex07_sample"
    folder.mkdir()
    assert "file not found" in load_error(folder)


def test_format_version_2_is_rejected(tmp_path):
    message = load_error(write_toml(tmp_path, format_version="2"))
    assert "field 'format_version' must be 1, got 2" in message


@pytest.mark.parametrize("field, literal", [("id", '"ex08"'), ("slug", '"other"'), ("id", '"ex7"')])
def test_id_and_slug_must_match_the_folder_name(tmp_path, field, literal):
    message = load_error(write_toml(tmp_path, **{field: literal}))
    assert "'id' and 'slug' must match the folder name" in message
    assert "('ex07', 'sample')" in message


@pytest.mark.parametrize(
    "module", ["sample", "sample.txt", "alpha-beta.py", "1sample.py", "sub/sample.py", "../sample.py", ".py",
               "sample.py.bak", "sample .py"],
)
def test_bad_module_name_is_rejected(tmp_path, module):
    message = load_error(write_toml(tmp_path, module=f'"{module}"'))
    assert "field 'module' must be a Python file name" in message
    assert repr(module) in message


def test_empty_functions_is_rejected(tmp_path):
    message = load_error(write_toml(tmp_path, functions="[]"))
    assert "field 'functions' must name at least one function" in message


@pytest.mark.parametrize("literal", ["1", "true", '["reason"]', '""', "{ why = 'x' }"])
def test_stub_may_score_must_be_a_string(tmp_path, literal):
    message = load_error(write_toml(tmp_path, stub_may_score=literal))
    assert "field 'stub_may_score' must be a string" in message


# -- finding the kit


def test_find_walks_up_from_a_nested_folder(tmp_path):
    folder = write_toml(tmp_path / "kit")
    nested = folder / "checks" / "deeper"
    nested.mkdir(parents=True)
    assert Kit.find(nested).root == (tmp_path / "kit").resolve()


def test_find_skips_a_folder_with_only_pyproject(tmp_path):
    root = make_kit(tmp_path / "kit")
    inner = root / "solutions" / "ex07_sample"
    inner.mkdir(parents=True)
    (inner / "pyproject.toml").write_text("", encoding="utf-8")
    assert Kit.find(inner).root == root.resolve()


def test_find_honours_an_override(tmp_path):
    root = make_kit(tmp_path / "other_kit")
    elsewhere = make_kit(tmp_path / "here")
    assert Kit.find(elsewhere, override=root).root == root.resolve()


def test_find_rejects_an_override_that_is_not_a_kit(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(KitError) as info:
        Kit.find(make_kit(tmp_path / "kit"), override=tmp_path / "plain")
    message = str(info.value)
    assert "\n" not in message
    assert "--kit" in message and str(tmp_path / "plain") in message


def test_find_without_a_kit_says_how_to_fix_it(tmp_path):
    start = tmp_path / "no" / "kit" / "here"
    start.mkdir(parents=True)
    with pytest.raises(KitError) as info:
        Kit.find(start)
    message = str(info.value)
    assert "\n" not in message
    assert "no kit found" in message and str(start) in message and "--kit" in message


# -- resolving names


@pytest.mark.parametrize("name", ["ex07", "ex07_sample", "sample"])
def test_resolve_accepts_id_folder_and_slug(tmp_path, name):
    write_toml(tmp_path)
    write_toml(tmp_path, folder="ex02_other", id='"ex02"', slug='"other"')
    ex = Kit(tmp_path).resolve(name)
    assert (ex.id, ex.slug, ex.path) == ("ex07", "sample", tmp_path / "exercises" / "ex07_sample")


@pytest.mark.parametrize("name", ["ex99", "ex7", "samp", "Sample", ""])
def test_resolve_unknown_name_lists_the_exercises(tmp_path, name):
    write_toml(tmp_path)
    write_toml(tmp_path, folder="ex02_other", id='"ex02"', slug='"other"')
    with pytest.raises(KitError) as info:
        Kit(tmp_path).resolve(name)
    message = str(info.value)
    assert "\n" not in message
    assert f"unknown exercise {name!r}" in message
    assert "ex02_other, ex07_sample" in message


def test_exercises_are_listed_in_id_order_ignoring_other_folders(tmp_path):
    write_toml(tmp_path)
    write_toml(tmp_path, folder="ex02_other", id='"ex02"', slug='"other"')
    (tmp_path / "exercises" / "notes").mkdir()
    assert [ex.name for ex in Kit(tmp_path).exercises()] == ["ex02_other", "ex07_sample"]


# -- check files


def test_check_files_put_the_public_file_first(tmp_path):
    ex = load_exercise(write_toml(tmp_path))
    ex.checks_dir.mkdir()
    for name in ("test_zeta.py", "test_hidden.py", "test_public.py", "test_a_extra.py", "helpers.py"):
        (ex.checks_dir / name).write_text("", encoding="utf-8")
    assert [p.name for p in ex.check_files()] == ["test_public.py", "test_a_extra.py", "test_hidden.py", "test_zeta.py"]


def test_an_exercise_id_past_ex99_is_refused_with_the_range(toy_kit):
    (toy_kit.root / "exercises" / "ex100_overflow").mkdir()
    with pytest.raises(KitError, match=r"ex100_overflow: exercise ids run from ex01 to ex99"):
        toy_kit.exercises()


def test_grade_new_refuses_an_id_past_ex99(toy_kit):
    from grader.authoring.scaffolding import scaffold

    with pytest.raises(KitError, match=r"new exercise 'ex100': exercise ids run from ex01 to ex99"):
        scaffold(toy_kit, "ex100", "overflow", "Overflow")
    assert not (toy_kit.root / "exercises" / "ex100_overflow").exists()


# -- given modules


def test_given_modules_are_files_of_the_exercise(tmp_path):
    folder = write_toml(tmp_path, given='["rules.py"]')
    (folder / "rules.py").write_text("WIN = 1\n", encoding="utf-8")
    exercise = load_exercise(folder)
    assert exercise.given == ("rules.py",) and exercise.given_paths == (folder / "rules.py",)
    assert load_exercise(write_toml(tmp_path / "none")).given == ()


@pytest.mark.parametrize("literal, words", [
    ('"rules.py"', "field 'given' must be a list of strings"),
    ('["rules"]', "field 'given' must list Python files other than 'sample.py', got 'rules'"),
    ('["../rules.py"]', "got '../rules.py'"),
    ('["sample.py"]', "got 'sample.py'"),
    ('["absent.py"]', "field 'given' names 'absent.py', which is not a file of the exercise"),
])
def test_a_bad_given_field_is_one_line_naming_it(tmp_path, literal, words):
    assert words in load_error(write_toml(tmp_path, given=literal))
