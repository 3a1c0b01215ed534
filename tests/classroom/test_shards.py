"""`grade batch --shard K/N` and `grade batch merge`: slices of a class that add up to the whole."""

from __future__ import annotations

import csv
import gzip
import json
import shutil

import pytest

from grader.catalog import Kit, KitError
from grader.classroom.shards import Shard, inputs_path, parse_shard, shard_of
from tests.conftest import REPO, TOY_KIT, run_grade

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user

GOLDEN = REPO / "tests" / "golden"
# What a report says about the run rather than the work: when, how long, and which worker uid the
# grade drew from the pool. No two gradings share these.
TIMINGS = {"started_at", "duration_s", "uid"}


def test_k_of_n_is_parsed_and_anything_else_refused():
    assert parse_shard("2/3") == Shard(2, 3) and str(Shard(2, 3)) == "2/3"
    for text, words in (("0/3", "K must run from 1 to N"), ("4/3", "K must run from 1 to N"),
                        ("2", "expected K/N"), ("a/b", "expected K/N"), ("1/2/3", "expected K/N"), ("-1/2", "K/N")):
        with pytest.raises(ValueError, match=words):
            parse_shard(text)


def test_a_student_keeps_their_shard_when_others_join():
    first = [f"student{index:03d}" for index in range(150)]
    before = {name: shard_of(name, 3) for name in first}
    later = first + [f"latecomer{index}" for index in range(40)]
    assert all(shard_of(name, 3) == before[name] for name in later if name in before)
    sizes = [sum(shard == k for shard in before.values()) for k in (1, 2, 3)]
    assert sum(sizes) == 150 and min(sizes) >= 35  # a hash, so only roughly equal


@pytest.fixture(scope="module")
def toy_kit_module(tmp_path_factory) -> Kit:
    """One copy of the toy kit for this module's gradings, which take a while."""
    root = tmp_path_factory.mktemp("shards-kit") / "kit"
    shutil.copytree(TOY_KIT, root, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    return Kit(root)


@pytest.fixture(scope="module")
def class_folder(tmp_path_factory):
    """Nine students: full, partial and broken work under different names."""
    folder = tmp_path_factory.mktemp("shards") / "class"
    folder.mkdir()
    cases = ["full_solution", "partial_solution", "syntax_error"]
    for index in range(9):
        shutil.copyfile(GOLDEN / cases[index % 3] / "toy.py", folder / f"s{index}.py")
    return folder


def _batch(kit, folder, out, *extra):
    result = run_grade("batch", str(folder), "--exercise", "ex01", "--seed", "7", "--jobs", "2",
                       "--out", str(out), *extra, cwd=kit.root)
    assert result.returncode == 0, result.stderr
    return result


def _table_without_timings(path):
    """checks.csv's rows, less the columns of seconds."""
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    keep = [index for index, name in enumerate(rows[0]) if not name.endswith("_duration_s")]
    assert len(keep) == len(rows[0]) - 2
    return [[row[index] for index in keep] for row in rows]


def _without_timings(value):
    if isinstance(value, dict):
        return {key: _without_timings(item) for key, item in value.items() if key not in TIMINGS}
    if isinstance(value, list):
        return [_without_timings(item) for item in value]
    return value


@pytest.fixture(scope="module")
def graded(toy_kit_module, class_folder, tmp_path_factory):
    """The class graded at once, and as three shards."""
    root = tmp_path_factory.mktemp("graded")
    _batch(toy_kit_module, class_folder, root / "whole")
    for k in (1, 2, 3):
        said = _batch(toy_kit_module, class_folder, root / f"shard{k}", "--shard", f"{k}/3")
        assert f"Shard {k}/3 of the class" in said.stdout
    return root


def test_three_shards_merged_equal_the_class_graded_at_once(toy_kit_module, graded):
    merged = graded / "merged"
    result = run_grade("batch", "merge", str(merged), *(str(graded / f"shard{k}") for k in (1, 2, 3)),
                       cwd=toy_kit_module.root)
    assert result.returncode == 0, result.stderr
    whole = graded / "whole"
    assert (merged / "grades.csv").read_bytes() == (whole / "grades.csv").read_bytes()
    assert _table_without_timings(merged / "checks.csv") == _table_without_timings(whole / "checks.csv")
    reports = sorted(path.relative_to(whole) for path in whole.glob("students/*/ex*.json"))
    assert len(reports) == 9
    assert sorted(path.relative_to(merged) for path in merged.glob("students/*/ex*.json")) == reports
    # What made each report comes along, so a batch run into the merged folder reuses them.
    for path in reports:
        assert (merged / inputs_path(path)).read_text() == (whole / inputs_path(path)).read_text()
    for path in reports:
        ours, theirs = json.loads((merged / path).read_text()), json.loads((whole / path).read_text())
        assert _without_timings(ours) == _without_timings(theirs), path
        # A merged report is the shard's own file, byte for byte.
        shard = next(graded / f"shard{k}" / path for k in (1, 2, 3) if (graded / f"shard{k}" / path).exists())
        assert (merged / path).read_bytes() == shard.read_bytes()
    assert (merged / "report.html").is_file()
    sizes = [len(json.loads((graded / f"shard{k}" / "shard.json").read_text())["students"]) for k in (1, 2, 3)]
    assert sum(sizes) == 9


def _similar(folder) -> list[list[str]]:
    with open(folder / "similar.csv", newline="") as handle:
        return list(csv.reader(handle))[1:]


def test_the_merge_compares_the_whole_class_from_the_shards_modules(toy_kit_module, graded, tmp_path):
    """Each shard compares its own students and keeps their tokenised modules; the merge compares the whole
    class from those, and its similar.csv and similarity.json are the whole run's, byte for byte."""
    merged = tmp_path / "merged"
    result = run_grade("batch", "merge", str(merged), *(str(graded / f"shard{k}") for k in (1, 2, 3)),
                       cwd=toy_kit_module.root)
    assert result.returncode == 0, result.stderr
    whole = graded / "whole"
    for name in ("similar.csv", "similarity.json"):
        assert (merged / name).read_bytes() == (whole / name).read_bytes(), name
    assert (merged / "report.html").read_text().count('class="similar-pair"') == \
        (whole / "report.html").read_text().count('class="similar-pair"') > 0
    owner = {name: k for k in (1, 2, 3)
             for name in json.loads((graded / f"shard{k}" / "shard.json").read_text())["students"]}
    pairs = _similar(whole)
    # The copies in this class fall in different shards: pairs only the merge can compare.
    assert any(owner[row[0]] != owner[row[1]] and row[-1] == "yes" for row in pairs)
    for k in (1, 2, 3):
        shard = graded / f"shard{k}"
        assert (shard / "compared-modules" / "ex01.json.gz").is_file()
        assert _similar(shard) == [row for row in pairs if owner[row[0]] == owner[row[1]] == k]
    assert not (merged / "compared-modules").exists() and not (whole / "compared-modules").exists()


def test_the_merge_keeps_the_class_order_which_is_the_folders_not_the_names(tmp_path):
    """`ann-2/` lists before `ann.py` in the class folder, but `ann` sorts before `ann-2`: which of a pair comes
    first (whose share is a_in_b) follows the folder, in the merge as in one batch."""
    from grader.classroom import find_students
    from grader.classroom.similarity import (
        compare_class,
        forget_similarity,
        merge_comparisons,
        modules_keeper,
        write_similarity,
    )
    from tests.classroom.test_similarity import EX04, REFERENCE, SOLUTIONS, disguised

    folder = tmp_path / "class"
    folder.mkdir()
    naive = (SOLUTIONS / "alt" / "naive.py").read_text()
    extra = "\n\ndef _extra(q):\n    w = {1: 'a'}\n    while q > 9:\n        q //= 3\n        w[q] = [~q]\n" \
        "    return w\n"
    for name, text in (("ann.py", REFERENCE), ("ann-2", disguised(REFERENCE) + extra),
                       ("bob.py", naive), ("bob-2", disguised(naive)), ("cy.py", REFERENCE + naive)):
        target = folder / name / EX04.module if not name.endswith(".py") else folder / name
        target.parent.mkdir(exist_ok=True)
        target.write_text(text)
    students = find_students(folder)
    assert [student.name for student in students] == ["ann-2", "ann", "bob-2", "bob", "cy"]
    write_similarity(compare_class([EX04], students, jobs=1), tmp_path / "whole")
    shards = []
    for k in (1, 2, 3):
        mine = [student for student in students if shard_of(student.name, 3) == k]
        out = tmp_path / f"shard{k}"
        compare_class([EX04], mine, jobs=1, keep=modules_keeper(out, [student.name for student in students], 0.7))
        shards.append((out, {"students": [student.name for student in mine]}))
    assert sum(bool(manifest["students"]) for _, manifest in shards) >= 2
    write_similarity(merge_comparisons(shards, ["ex04"]), tmp_path / "merged")
    for name in ("similar.csv", "similarity.json"):
        assert (tmp_path / "merged" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    [row] = [row for row in _similar(tmp_path / "whole") if {"ann", "ann-2"} == set(row[:2])]
    assert row[:2] == ["ann-2", "ann"] and float(row[3]) < float(row[4]) == 1.0
    # A shard graded again with --no-similarity keeps no modules a later merge could take for this run's.
    forget_similarity(shards[0][0])
    assert not (shards[0][0] / "compared-modules").exists() and not (shards[0][0] / "similar.csv").exists()


def _shards_copied(graded, tmp_path) -> list:
    for k in (1, 2, 3):
        shutil.copytree(graded / f"shard{k}", tmp_path / f"shard{k}")
    return [str(tmp_path / f"shard{k}") for k in (1, 2, 3)]


def _kept(shard) -> tuple:
    path = shard / "compared-modules" / "ex01.json.gz"
    return path, json.loads(gzip.decompress(path.read_bytes()))


@pytest.mark.parametrize("change, words", [
    (lambda shard: shutil.rmtree(shard / "compared-modules"), "{shard3} did not (grade it again without"),
    (lambda shard: _kept(shard)[0].write_bytes(gzip.compress(json.dumps(
        {**_kept(shard)[1], "threshold": 0.5}).encode())), "differ in similarity threshold (0.5 against 0.7)"),
    (lambda shard: _kept(shard)[0].write_bytes(b"not gzip"), "{kept}: unreadable: "),
    (lambda shard: _kept(shard)[0].write_bytes(gzip.compress(json.dumps(
        {**_kept(shard)[1], "students": [{"student": 3}]}).encode())),
     "{kept}: not the compared modules of a grade batch shard: field 'student' must be str, got 3"),
    (lambda shard: _kept(shard)[0].write_bytes(gzip.compress(json.dumps(
        {**_kept(shard)[1], "students": _kept(shard)[1]["students"][1:]}).encode())),
     "{kept}: not the compared modules of ex01 for the shard's students"),
    (lambda shard: _kept(shard)[0].write_bytes(gzip.compress(json.dumps(
        {**_kept(shard)[1], "students": [{**entry, "offsets": [0, 0.5]} if "offsets" in entry else entry
                                         for entry in _kept(shard)[1]["students"]]}).encode())),
     "{kept}: not the compared modules of a grade batch shard: offsets must be pairs of whole numbers"),
])
def test_shards_whose_comparisons_do_not_fit_are_refused_in_one_line(toy_kit_module, graded, tmp_path, change, words):
    shards = _shards_copied(graded, tmp_path)
    change(tmp_path / "shard3")
    result = run_grade("batch", "merge", str(tmp_path / "out"), *shards, cwd=toy_kit_module.root)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    kept = tmp_path / "shard3" / "compared-modules" / "ex01.json.gz"
    assert words.format(shard3=tmp_path / "shard3", kept=kept) in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_shards_that_all_skipped_the_comparison_merge_without_one(toy_kit_module, graded, tmp_path):
    shards = _shards_copied(graded, tmp_path)
    for k in (1, 2, 3):
        for name in ("compared-modules", "similar.csv", "similarity.json"):
            target = tmp_path / f"shard{k}" / name
            shutil.rmtree(target) if target.is_dir() else target.unlink()
    result = run_grade("batch", "merge", str(tmp_path / "out"), *shards, cwd=toy_kit_module.root)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "out" / "similar.csv").exists() and (tmp_path / "out" / "grades.csv").is_file()


@pytest.mark.parametrize("shards, words", [
    ((1, 2), "missing shards: 3/3 (the merge needs all 3)"),
    ((1, 2, 2, 3), "are both shard 2/3"),
])
def test_missing_and_overlapping_shards_are_refused(toy_kit_module, graded, tmp_path, shards, words):
    result = run_grade("batch", "merge", str(tmp_path / "out"), *(str(graded / f"shard{k}") for k in shards),
                       cwd=toy_kit_module.root)
    assert result.returncode == 2 and words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())  # nothing half-written


def test_mismatched_shards_are_refused(toy_kit_module, graded, class_folder, tmp_path):
    other_seed = tmp_path / "other"
    result = run_grade("batch", str(class_folder), "--exercise", "ex01", "--seed", "8", "--out", str(other_seed),
                       "--shard", "3/3", cwd=toy_kit_module.root)
    assert result.returncode == 0, result.stderr
    merged = run_grade("batch", "merge", str(tmp_path / "out"), str(graded / "shard1"), str(graded / "shard2"),
                       str(other_seed), cwd=toy_kit_module.root)
    assert merged.returncode == 2 and "mismatched shards:" in merged.stderr and "differ in seed (8 against 7)" in merged.stderr
    bigger = tmp_path / "bigger"
    shutil.copytree(class_folder, bigger)
    shutil.copyfile(GOLDEN / "full_solution" / "toy.py", bigger / "newcomer.py")
    _batch(toy_kit_module, bigger, tmp_path / "newclass", "--shard", "3/3")
    merged = run_grade("batch", "merge", str(tmp_path / "out2"), str(graded / "shard1"), str(graded / "shard2"),
                       str(tmp_path / "newclass"), cwd=toy_kit_module.root)
    assert merged.returncode == 2 and "differ in class (its students)" in merged.stderr


def test_merge_usage_errors(toy_kit_module, graded, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    result = run_grade("batch", "merge", str(tmp_path / "out"), str(plain), cwd=toy_kit_module.root)
    assert result.returncode == 2 and f"{plain}: not a shard (no shard.json" in result.stderr
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "x").write_text("x")
    result = run_grade("batch", "merge", str(occupied), str(graded / "shard1"), cwd=toy_kit_module.root)
    assert result.returncode == 2 and "the merge goes into a new or empty folder" in result.stderr
    result = run_grade("batch", "merge", str(tmp_path / "out"), cwd=toy_kit_module.root)
    assert result.returncode == 2 and "give the shard folders to merge" in result.stderr
    bad = run_grade("batch", "class", "--exercise", "ex01", "--out", str(tmp_path / "o"), "--shard", "4/3",
                    cwd=toy_kit_module.root)
    assert bad.returncode == 2 and "--shard: K must run from 1 to N, got '4/3'" in bad.stderr


@pytest.mark.parametrize("change, words", [
    ({"students": None}, "field 'students' must be a list, got None"),
    ({"shard": "2"}, "field 'shard' must be a whole number, got '2'"),
    ({"shard": 4}, "shard 4 of 3, or its students, cannot be right"),
    ({"format_version": 9}, "not a shard manifest of format_version 1"),
])
def test_a_broken_manifest_is_refused_in_one_line(toy_kit_module, graded, tmp_path, change, words):
    for k in (1, 2, 3):
        shutil.copytree(graded / f"shard{k}", tmp_path / f"shard{k}")
    manifest = tmp_path / "shard2" / "shard.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), **change}))
    result = run_grade("batch", "merge", str(tmp_path / "out"), *(str(tmp_path / f"shard{k}") for k in (1, 2, 3)),
                       cwd=toy_kit_module.root)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert f"{manifest}: {words}" in result.stderr


def test_a_shard_with_a_report_missing_is_incomplete(toy_kit_module, graded, tmp_path):
    for k in (1, 2, 3):
        shutil.copytree(graded / f"shard{k}", tmp_path / f"shard{k}")
    victim = next((tmp_path / "shard1").glob("students/*/ex01.json"))
    victim.unlink()
    result = run_grade("batch", "merge", str(tmp_path / "out"), *(str(tmp_path / f"shard{k}") for k in (1, 2, 3)),
                       cwd=toy_kit_module.root)
    assert result.returncode == 2 and f"{victim}: missing or unreadable, so shard 1/3 is incomplete" in result.stderr
    assert not (tmp_path / "out").exists()


def test_shards_an_earlier_kit_wrote_are_refused_not_read_as_empty(toy_kit_module, graded, tmp_path):
    """An earlier kit kept each report as OUT/STUDENT/exNN.json: such a shard is refused, saying so, and nothing written."""
    for k in (1, 2, 3):
        shard = tmp_path / f"shard{k}"
        shutil.copytree(graded / f"shard{k}", shard)
        for student in (shard / "students").iterdir():
            student.rename(shard / student.name)
        (shard / "students").rmdir()
    result = run_grade("batch", "merge", str(tmp_path / "out"), *(str(tmp_path / f"shard{k}") for k in (1, 2, 3)),
                       cwd=toy_kit_module.root)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert f"grade: {tmp_path / 'shard1'}: written by an earlier kit" in result.stderr
    assert "grade the class again into a new folder" in result.stderr
    assert not (tmp_path / "out").exists()


def test_kit_error_is_the_merge_refusal_type():
    from grader.classroom.shards import check_shards

    with pytest.raises(KitError):
        check_shards([REPO / "nowhere"])
