"""Similar submissions (grader/classroom/similarity.py): pairs of students' modules compared by copydetect.

Most tests compare made-up classes for ex04 directly: the reference, the independently written
alts, the stub, and the reference disguised as a copier might hand it in. One real `grade batch`
run (module scope) covers the command line, similar.csv, similarity.json and the class page.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import csv
import html
import io
import json
import math
import re
import shutil
import tokenize
import zipfile
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import pytest

from grader.catalog import Kit
from grader.classroom import similarity
from grader.classroom.batch import find_students
from grader.classroom.class_report import marked_code, render_page
from grader.classroom.item_analysis import analyse_class
from grader.classroom.similarity import (
    DEFAULT_THRESHOLD,
    MIN_SHARED_TOKENS,
    SIMILAR_COLUMNS,
    LeftOut,
    compare_exercise,
    read_similarity,
    write_similarity,
)
from grader.cli import main
from tests.browser import headless_chromium, severe_console_errors
from tests.conftest import REPO, mutant_file, run_grade

KIT = Kit(REPO)
EX04 = KIT.resolve("ex04")
SOLUTIONS = REPO / "solutions" / "ex04_alpha_beta"
REFERENCE = (SOLUTIONS / "alpha_beta.py").read_text()
# What the checks call: a copier keeps these names, or the copy would not be graded at all.
KEEP = {"minimax_with_pruning", "best_counter_bid"}
SCRIPT_COMMENT = "# <script>alert('a comment')</script> & more\n"


def disguised(source: str) -> str:
    """The program as a copier hands it in: every name it defines renamed, every comment reworded, other
    spacing (half the indentation, spaces redone, a blank line after each line that opens a block)."""
    tree = ast.parse(source)
    imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    defined = ({node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
               | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
               | {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))})
    renamed = sorted(name for name in defined - imported - set(dir(builtins)) - KEEP if not name.startswith("__"))
    names = {name: f"thing{index}" for index, name in enumerate(renamed)}
    tokens, previous = [], None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        kind, text = token.type, token.string
        if kind == tokenize.NAME:
            text = names.get(text, text)
        elif kind == tokenize.COMMENT:
            text = "# my own words here"
        elif kind == tokenize.INDENT:
            text = " " * (len(text) // 2)
        tokens.append((kind, text))
        if kind == tokenize.NEWLINE and previous is not None and previous.string == ":":
            tokens.append((tokenize.NL, "\n"))
        previous = token
    # untokenize's compatible mode lays the tokens out with spacing of its own.
    return tokenize.untokenize(tokens)


def _tokens(source: str, kind: int) -> set[str]:
    """The text of every token of one kind in a module."""
    return {token.string for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type == kind}


def _class(folder: Path, submissions: dict[str, str | Path]) -> Path:
    """A class folder: each student's module text as STUDENT/alpha_beta.py, or a file copied as it is."""
    for name, what in submissions.items():
        if isinstance(what, Path):
            shutil.copyfile(what, folder / f"{name}{what.suffix}")
        else:
            (folder / name).mkdir(parents=True)
            (folder / name / EX04.module).write_text(what)
    return folder


def _compare(folder: Path, threshold: float = DEFAULT_THRESHOLD):
    """The class in `folder` compared on ex04."""
    return compare_exercise(EX04, find_students(folder), threshold)


def test_a_copy_with_every_name_comment_and_space_changed_is_flagged(tmp_path):
    copy = disguised(REFERENCE)
    compile(copy, "copy", "exec")  # still a program
    assert {"_count_valid_leaves", "_search", "tally", "node", "alpha"} <= _tokens(REFERENCE, tokenize.NAME) - \
        _tokens(copy, tokenize.NAME)
    comments = _tokens(REFERENCE, tokenize.COMMENT)
    assert comments and not comments & _tokens(copy, tokenize.COMMENT)
    result = _compare(_class(tmp_path, {"alice": REFERENCE, "bob": copy}))
    [pair] = result.pairs
    assert (pair.first, pair.second, pair.flagged) == ("alice", "bob", True)
    assert min(pair.first_in_second, pair.second_in_first) > 0.9 and pair.shared_tokens >= MIN_SHARED_TOKENS
    assert pair.first_spans and pair.second_spans and result.left_out == ()


def test_independently_written_solutions_are_not_flagged(tmp_path):
    result = _compare(_class(tmp_path, {"ann": REFERENCE, "ben": SOLUTIONS / "alt" / "naive.py",
                                        "cat": SOLUTIONS / "alt" / "explicit_stack.py"}))
    assert len(result.pairs) == 3 and result.flagged == ()
    assert max(pair.similarity for pair in result.pairs) < 0.2  # measured at most 0.07


def test_stubs_and_the_same_small_start_on_the_stub_are_never_flagged(tmp_path):
    stub = EX04.stub_path.read_text()
    reworded = stub.replace("# TODO: a leaf is its own value.", "#   a leaf:   its own value").replace("\n\n", "\n\n\n")
    start = stub.replace('    raise NotImplementedError("minimax_with_pruning is not written yet")',
                         "    if not isinstance(node, list):\n        return node\n"
                         '    raise NotImplementedError("minimax_with_pruning is not written yet")')
    result = _compare(_class(tmp_path, {"amy": stub, "bo": stub, "cy": reworded, "di": start, "ed": start}))
    assert result.left_out == (("amy", LeftOut.STUB), ("bo", LeftOut.STUB), ("cy", LeftOut.STUB))
    # The same two lines on the stub are all either student added, yet too little to be a sign of copying.
    [pair] = result.pairs
    assert (pair.first_in_second, pair.second_in_first) == (1.0, 1.0)
    assert pair.shared_tokens < MIN_SHARED_TOKENS and not pair.flagged


def test_what_cannot_be_read_or_is_too_large_is_left_out(tmp_path):
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 broken")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no module here")
    (tmp_path / "binary.py").write_bytes(b"\x00\x01 not text")
    # The kit's own limit, reached with one long comment: exactly MAX_MODULE_CHARS is compared, one more is not.
    longest = REFERENCE + "#" * (similarity.MAX_MODULE_CHARS - len(REFERENCE) - 1) + "\n"
    _class(tmp_path, {"huge": longest + "\n", "longest": longest, "whole": REFERENCE})
    result = _compare(tmp_path)
    assert dict(result.left_out) == {"binary": LeftOut.UNUSABLE, "broken": LeftOut.UNUSABLE,
                                     "empty": LeftOut.UNUSABLE, "huge": LeftOut.TOO_LARGE}
    assert [(pair.first, pair.second) for pair in result.pairs] == [("longest", "whole")]


def test_modules_the_grades_laid_out_are_compared_as_they_are(tmp_path):
    """`known`: the batch's grades laid these modules out already; one that could not be, or is too long, is left
    out for that reason, as a module read here would be."""
    folder = _class(tmp_path, {"ann": REFERENCE, "bob": REFERENCE, "cy": REFERENCE, "di": REFERENCE})
    known = {("ann", "ex04"): disguised(REFERENCE), ("bob", "ex04"): None,
             ("cy", "ex04"): REFERENCE + "#" * similarity.MAX_MODULE_CHARS}
    result = compare_exercise(EX04, find_students(folder), known=known)
    assert result.left_out == (("bob", LeftOut.UNUSABLE), ("cy", LeftOut.TOO_LARGE))
    [pair] = result.pairs
    assert (pair.first, pair.second, pair.flagged) == ("ann", "di", True)
    assert result.section().code_of("ann") == disguised(REFERENCE)


def test_a_zip_and_a_notebook_are_read_as_the_module_they_hold(tmp_path):
    import nbformat

    with zipfile.ZipFile(tmp_path / "alice.zip", "w") as archive:
        archive.writestr("handin/alpha_beta.py", REFERENCE)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("My alpha-beta"),
                                               nbformat.v4.new_code_cell(disguised(REFERENCE))])
    nbformat.write(notebook, tmp_path / "bob.ipynb")
    [pair] = _compare(tmp_path).pairs
    assert (pair.first, pair.second, pair.flagged) == ("alice", "bob", True)


def _rows(path: Path) -> list[list[str]]:
    """A CSV file's rows, header first."""
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_similar_csv_has_every_pair_that_shares_code_most_similar_first_and_reads_back(tmp_path):
    folder = _class(tmp_path / "class", {"alice": REFERENCE, "bob": disguised(REFERENCE),
                                         "carol": SOLUTIONS / "alt" / "naive.py", "dave": EX04.stub_path})
    (folder / "erin.zip").write_bytes(b"PK\x03\x04 broken")
    result = _compare(folder)
    out = tmp_path / "marks"
    write_similarity([result], out)
    header, *rows = _rows(out / "similar.csv")
    assert header == SIMILAR_COLUMNS
    # alice, bob and carol; dave handed in the stub and erin a broken zip, so they share nothing beyond the stub.
    assert sorted((row[0], row[1]) for row in rows) == list(combinations(["alice", "bob", "carol"], 2))
    assert all(row[2] == "ex04" for row in rows)
    assert rows[0][:2] == ["alice", "bob"] and rows[0][-1] == "yes"
    assert [row[-1] for row in rows[1:]] == ["no"] * 2
    similarities = [max(float(row[3]), float(row[4])) for row in rows]
    assert similarities == sorted(similarities, reverse=True) and all(int(row[5]) > 0 for row in rows)
    assert result.left_out == (("dave", LeftOut.STUB), ("erin", LeftOut.UNUSABLE)) and result.pairs_compared == 3
    # similarity.json holds what the page shows: the flagged pairs and their code, read back the same.
    assert read_similarity(out) == {"ex04": result.section()}
    assert dict(result.section().code) == {"alice": REFERENCE, "bob": disguised(REFERENCE)}
    assert sorted(path.name for path in out.iterdir()) == ["similar.csv", "similarity.json"]


def _function(source: str, name: str) -> str:
    """The source of one top-level function of a module."""
    [node] = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name == name]
    return ast.get_source_segment(source, node)


def test_the_threshold_is_applied(tmp_path):
    # An independent solution with one helper of the reference copied in: past the token floor, far below 0.7.
    bob = (SOLUTIONS / "alt" / "explicit_stack.py").read_text() + "\n\n" + _function(REFERENCE, "_leaf_count") + "\n"
    folder = _class(tmp_path, {"alice": REFERENCE, "bob": bob})
    [pair] = _compare(folder).pairs
    assert pair.shared_tokens >= MIN_SHARED_TOKENS and pair.similarity < DEFAULT_THRESHOLD / 2 and not pair.flagged
    assert _compare(folder, threshold=pair.similarity).pairs[0].flagged
    assert not _compare(folder, threshold=math.nextafter(pair.similarity, 1)).pairs[0].flagged


def test_the_token_floor_is_applied(tmp_path):
    stub = EX04.stub_path.read_text()
    # The same start on the stub for both: 13 lines of 6 tokens, with the def and the return 99 tokens in all;
    # a trailing comma on the return makes it 100.
    start = "\n\ndef _start(node):\n" + "".join(f"    total{index} = node + {index}\n" for index in range(13))
    for tail, shared, flagged in (("", MIN_SHARED_TOKENS - 1, False), (",", MIN_SHARED_TOKENS, True)):
        module = stub + start + f"    return node{tail}\n"
        [pair] = _compare(_class(tmp_path / f"tail{len(tail)}", {"amy": module, "bo": module})).pairs
        assert (pair.similarity, pair.shared_tokens, pair.flagged) == (1.0, shared, flagged)


def _mixed_class(folder: Path) -> Path:
    """A class of 15 on ex04 with every kind of pair: copies whole and in part, known mistakes (the reference
    changed in one place), independent solutions, the same small start on the stub, a module that shares
    nothing with anyone, one that repeats its own code, and students left out for every reason."""
    folder.mkdir()
    stub = EX04.stub_path.read_text()
    start = stub.replace('    raise NotImplementedError("minimax_with_pruning is not written yet")',
                         "    if not isinstance(node, list):\n        return node\n"
                         '    raise NotImplementedError("minimax_with_pruning is not written yet")')
    helper = _function(REFERENCE, "_leaf_count")
    for name in ("no_cutoff", "strict_greater", "root_minimises"):
        mutant_file(KIT, "ex04", name, folder)
    _class(folder, {
        "ann": REFERENCE, "bob": disguised(REFERENCE), "cat": SOLUTIONS / "alt" / "naive.py",
        "dan": SOLUTIONS / "alt" / "explicit_stack.py", "eve": (SOLUTIONS / "alt" / "naive.py").read_text()
        + "\n\n" + helper + "\n", "fay": REFERENCE + "\n\n" + helper.replace("_leaf_count", "_again") + "\n",
        "gus": start, "hal": start, "ivy": stub + "\n\ndef _mine(q):\n    w = {1: 'a'}\n    while q > 9:\n"
        "        q //= 3\n        w[q] = [q, q * q, ~q]\n    return sorted(w.items(), reverse=True)\n",
        "jo": stub, "kim": REFERENCE + "#" * similarity.MAX_MODULE_CHARS})
    (folder / "lee.zip").write_bytes(b"PK\x03\x04 broken")
    return folder


def _section_of_every_pair(folder: Path, every: list, threshold: float) -> similarity.SimilaritySection:
    """The page's section as the plain all-pairs comparison has it (compare_every_pair's pairs)."""
    from grader.classroom.similarity import SimilaritySection, module_text

    students = find_students(folder)
    compared = {name for pair in every for name in (pair.first, pair.second)}
    flagged = tuple(pair for pair in as_the_index_keeps(every) if pair.flagged)
    shown = {name for pair in flagged[:similarity.SIDE_BY_SIDE_PAIRS] for name in (pair.first, pair.second)}
    left_out = tuple((student.name, why) for student in students if student.name not in compared for why in (
        LeftOut.UNUSABLE if module_text(student.path, EX04.module) is None else LeftOut.TOO_LARGE
        if len(module_text(student.path, EX04.module)) > similarity.MAX_MODULE_CHARS else LeftOut.STUB,))
    return SimilaritySection(exercise="ex04", threshold=threshold, min_shared_tokens=MIN_SHARED_TOKENS,
                             compared=len(compared), pairs_compared=len(every), left_out=left_out, flagged=flagged,
                             code=tuple((student.name, module_text(student.path, EX04.module)) for student in students
                                        if student.name in shown), flagged_count=len(flagged))


def as_the_index_keeps(every: list) -> tuple:
    """compare_every_pair's pairs as the index gives them: those that share code, most similar first, spans kept
    for the flagged pairs whose two modules the page shows (those in the first SIDE_BY_SIDE_PAIRS flagged)."""
    from grader.classroom.similarity import _order

    sharing = sorted((pair for pair in every if pair.shared_tokens), key=_order)
    shown = {name for pair in [pair for pair in sharing if pair.flagged][:similarity.SIDE_BY_SIDE_PAIRS]
             for name in (pair.first, pair.second)}
    return tuple(pair if pair.flagged and {pair.first, pair.second} <= shown
                 else replace(pair, first_spans=(), second_spans=()) for pair in sharing)


@pytest.mark.parametrize("threshold, side_by_side", [(DEFAULT_THRESHOLD, 40), (0.3, 40), (0.3, 2)])
def test_the_index_gives_every_pair_that_shares_code_copydetects_figures_and_flags_the_same(
        tmp_path, monkeypatch, threshold, side_by_side):
    """The index against the plain comparison (compare_files on every pair): the same pairs flagged, the same
    figures for every pair that shares any code and its shared code where the page shows it, all-zero figures for
    every other pair, the same page."""
    from grader.classroom.similarity import compare_every_pair

    monkeypatch.setattr(similarity, "SIDE_BY_SIDE_PAIRS", side_by_side)
    folder = _mixed_class(tmp_path / "class")
    students = find_students(folder)
    result = compare_exercise(EX04, students, threshold)
    every = compare_every_pair(EX04, students, threshold)
    others = [pair for pair in every if not pair.shared_tokens]
    assert others and all((pair.first_in_second, pair.second_in_first, pair.first_spans, pair.second_spans,
                           pair.flagged) == (0, 0, (), (), False) for pair in others)
    assert {"ivy"} <= {name for pair in others for name in (pair.first, pair.second)}
    assert result.pairs == as_the_index_keeps(every)
    assert [(pair.first, pair.second) for pair in result.flagged] == \
        [(pair.first, pair.second) for pair in as_the_index_keeps(every) if pair.flagged]
    marked = [pair for pair in result.flagged if pair.first_spans]
    assert len(result.flagged) >= 10 and len(result.pairs) > len(result.flagged)
    assert len(marked) == len(result.flagged) if side_by_side == 40 else 0 < len(marked) < len(result.flagged)
    assert all(pair.second_spans for pair in marked)
    assert result.pairs_compared == len(every) == 66  # 12 compared, of 15
    assert result.left_out == (("jo", LeftOut.STUB), ("kim", LeftOut.TOO_LARGE), ("lee", LeftOut.UNUSABLE))
    assert result.section() == _section_of_every_pair(folder, every, threshold)


def test_fingerprints_are_grouped_by_their_holders_exactly_even_when_the_sums_collide(tmp_path, monkeypatch):
    """The index gives fingerprints with the same holders one entry, found by a sum of a random number per holder;
    with every number 1 the sums tell only how many hold each, and the check holder by holder must split them."""
    import numpy as np

    students = find_students(_mixed_class(tmp_path / "class"))
    honest = compare_exercise(EX04, students)
    monkeypatch.setattr(similarity, "_holder_weights", lambda count: np.ones(count, dtype=np.uint64))
    colliding = compare_exercise(EX04, students)
    assert colliding == honest and colliding.pairs == honest.pairs and len(honest.pairs) == 51


def test_processes_tokenise_a_large_class_as_one_process_does(tmp_path, monkeypatch):
    folder = _mixed_class(tmp_path / "class")
    students = find_students(folder)
    alone = similarity.compare_class([EX04, KIT.resolve("ex01")], students, jobs=1)
    pools = []
    real = similarity._processes

    @contextlib.contextmanager
    def watched(jobs, modules):
        with real(jobs, modules) as pool:
            pools.append(pool)
            yield pool

    monkeypatch.setattr(similarity, "PROCESSES_FROM", 4)
    monkeypatch.setattr(similarity, "CHUNK_MODULES", 3)
    monkeypatch.setattr(similarity, "_processes", watched)
    shared = similarity.compare_class([EX04, KIT.resolve("ex01")], students, jobs=2)
    assert len(pools) == 1 and pools[0] is not None  # one pool of processes for both exercises
    assert shared == alone and [result.pairs for result in shared] == [result.pairs for result in alone]
    out_alone, out_shared = tmp_path / "alone", tmp_path / "shared"
    write_similarity(alone, out_alone)
    write_similarity(shared, out_shared)
    for name in ("similar.csv", "similarity.json"):
        assert (out_alone / name).read_bytes() == (out_shared / name).read_bytes()


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """(class folder, OUT) after one real `grade batch CLASS --exercise ex04 --out OUT` on six students."""
    base = tmp_path_factory.mktemp("similar")
    erin = mutant_file(KIT, "ex04", "strict_greater", base / "mutants")
    folder = _class(base / "class", {"alice": SCRIPT_COMMENT + REFERENCE + SCRIPT_COMMENT, "bob": disguised(REFERENCE),
                                     "carol": SOLUTIONS / "alt" / "naive.py", "dave": EX04.stub_path, "erin": erin})
    (folder / "frank.zip").write_bytes(b"PK\x03\x04 broken")
    out = base / "marks"
    result = run_grade("batch", str(folder), "--exercise", "ex04", "--jobs", "2", "--out", str(out), cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert f"Similar submissions: 3 of 6 pairs compared at or above 0.7 (ex04: 3). Every pair: {out / 'similar.csv'}" \
        in " ".join(result.stdout.split())
    return folder, out


def _shown_pairs(page: str) -> list[tuple[str, str, float]]:
    """The pairs the page lists, in its order, with the similarity each carries."""
    return [(first, second, float(value)) for first, second, value in re.findall(
        r'<details class="similar-pair" id="[^"]+" data-first="([^"]*)"\s+data-second="([^"]*)" '
        r'data-similarity="([^"]*)"', page)]


def _code_blocks(page: str, first: str, second: str) -> list[str]:
    """The two code blocks (as HTML) of one listed pair."""
    start = re.search(rf'data-first="{first}"\s+data-second="{second}"', page).start()
    view = page[start:page.index("</details>", start)]
    return re.findall(r"<pre><code>(.*?)</code></pre>", view, re.S)


def test_the_page_lists_the_flagged_pairs_most_similar_first_with_the_shared_code_marked(batch):
    folder, out = batch
    page = (out / "report.html").read_text()
    flagged = [row for row in _rows(out / "similar.csv")[1:] if row[-1] == "yes"]
    shown = _shown_pairs(page)
    assert [(first, second) for first, second, _ in shown] == [(row[0], row[1]) for row in flagged]
    assert [value for _, _, value in shown] == sorted((value for _, _, value in shown), reverse=True)
    assert {(first, second) for first, second, _ in shown} == {("alice", "bob"), ("alice", "erin"), ("bob", "erin")}
    # The disguise changes nothing copydetect reads: names, comments and spacing. erin's mistake is one character.
    assert shown[0] == ("alice", "bob", 1.0)
    modules = {name: (folder / name / EX04.module).read_text() for name in ("alice", "bob")}
    modules["erin"] = (folder / "erin.py").read_text()
    for first, second, _ in shown:
        blocks = _code_blocks(page, first, second)
        assert len(blocks) == 2
        for name, block in zip((first, second), blocks):
            assert block.count("<mark>") >= 1 and block.count("<mark>") == block.count("</mark>")
            # Take our <mark> tags away and unescape: the student's file, every character of it.
            assert html.unescape(block.replace("<mark>", "").replace("</mark>", "")) == modules[name]
            assert not re.search(r"<(?!/?mark>)", block), "only our <mark> tags are markup"
    # alice's comment is her text, never markup: the page's own script is the only one.
    assert page.count("<script>") == 1 and "<script>alert" not in page
    assert page.count("&lt;script&gt;alert(&#x27;a comment&#x27;)&lt;/script&gt; &amp; more") == 4  # two views
    assert re.findall(r'data-left-out="([^"]+)"', page) == ["dave", "frank"]


def test_grade_batch_report_draws_the_same_section_without_the_submissions(batch, tmp_path):
    folder, out = batch
    copy = tmp_path / "marks"
    shutil.copytree(out, copy)
    before = (copy / "report.html").read_text()
    (copy / "report.html").unlink()
    result = run_grade("batch", "report", str(copy), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (copy / "report.html").read_text() == before
    assert 'data-similarity="compared"' in before and len(_shown_pairs(before)) == 3


def test_a_class_with_no_flagged_pair_says_so(batch, tmp_path):
    folder, out = batch
    fewer, copy = tmp_path / "class", tmp_path / "marks"
    shutil.copytree(folder, fewer, ignore=shutil.ignore_patterns("bob", "erin.py"))
    shutil.copytree(out, copy)
    result = run_grade("batch", str(fewer), "--exercise", "ex04", "--jobs", "2", "--out", str(copy),
                       "--similarity-threshold", "0.5", cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert "4 reused (nothing changed)" in result.stdout  # comparing grades nothing again
    assert "Similar submissions: none of 1 pairs compared at or above 0.5." in " ".join(result.stdout.split())
    page = (copy / "report.html").read_text()
    assert _shown_pairs(page) == [] and 'data-similarity="none-flagged"' in page
    assert "No pair of submissions is similar enough to list." in page and "at least\n    50% of one" in page
    assert [row[:2] + row[-1:] for row in _rows(copy / "similar.csv")[1:]] == [["alice", "carol", "no"]]


def test_no_similarity_compares_nothing_and_leaves_no_stale_comparison(batch, tmp_path):
    folder, out = batch
    copy = tmp_path / "marks"
    shutil.copytree(out, copy)
    result = run_grade("batch", str(folder), "--exercise", "ex04", "--jobs", "2", "--out", str(copy),
                       "--no-similarity", cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert "Similar submissions" not in result.stdout
    assert not (copy / "similar.csv").exists() and not (copy / "similarity.json").exists()
    page = (copy / "report.html").read_text()
    assert 'data-similarity="not-compared"' in page and _shown_pairs(page) == []


def test_marked_code_escapes_every_character_and_marks_only_the_spans():
    text = "<a> & 'b' \"c\" <d>"
    assert marked_code(text, ((1, 2), (4, 5))) == (
        "&lt;<mark>a</mark>&gt; <mark>&amp;</mark> &#x27;b&#x27; &quot;c&quot; &lt;d&gt;")
    # Spans that overlap or run past the end (similarity.json is only a file) still give each character once.
    assert marked_code(text, ((0, 3), (2, 5), (14, 99))) == (
        "<mark>&lt;a&gt;</mark><mark> &amp;</mark> &#x27;b&#x27; &quot;c&quot; <mark>&lt;d&gt;</mark>")
    assert marked_code(text, ()) == html.escape(text)


def test_student_names_in_the_section_are_escaped(batch):
    """A folder name is the student's: markup in it is shown, never obeyed."""
    _, out = batch
    section = read_similarity(out)["ex04"]
    rename = {"alice": "<b>al</b>", "erin": "er\"in"}
    pairs = tuple(replace(pair, first=rename.get(pair.first, pair.first), second=rename.get(pair.second, pair.second))
                  for pair in section.flagged)
    section = replace(section, flagged=pairs, code=tuple((rename.get(name, name), text) for name, text in section.code))
    report = json.loads((out / "students" / "alice" / "ex04.json").read_text())
    page = render_page(analyse_class(similarity_attempts(report)), {"ex04": section})
    assert "<b>al</b>" not in page and "&lt;b&gt;al&lt;/b&gt;" in page
    assert 'data-first="&lt;b&gt;al&lt;/b&gt;"' in page and 'data-second="er&#34;in"' in page
    assert len(_shown_pairs(page)) == 3


def test_past_the_listed_pairs_the_page_and_record_say_how_many_more_and_similar_csv_has_them_all(
        batch, tmp_path, monkeypatch):
    """A class of copies flags nearly every pair: the page and similarity.json list the first LISTED_PAIRS, most
    similar first, count the rest, and read back the same; similar.csv keeps every flagged pair."""
    monkeypatch.setattr(similarity, "LISTED_PAIRS", 4)
    result = compare_exercise(EX04, find_students(_mixed_class(tmp_path / "class")), 0.3)
    every_flagged = [pair for pair in result.pairs if pair.flagged]
    assert result.flagged_count == len(every_flagged) >= 10
    assert result.flagged == tuple(every_flagged[:4])
    out = tmp_path / "marks"
    similarity.write_similarity([result], out)
    section = read_similarity(out)["ex04"]
    assert section == result.section() and section.flagged_count == len(every_flagged)
    assert len(json.loads((out / "similarity.json").read_text())["exercises"][0]["flagged"]) == 4
    rows = list(csv.DictReader((out / "similar.csv").open(newline="")))
    assert [(row["student_a"], row["student_b"]) for row in rows if row["flagged"] == "yes"] == \
        [(pair.first, pair.second) for pair in every_flagged]
    report = json.loads((batch[1] / "students" / "alice" / "ex04.json").read_text())
    page = render_page(analyse_class(similarity_attempts(report)), {"ex04": section})
    assert [pair[:2] for pair in _shown_pairs(page)] == [(pair.first, pair.second) for pair in every_flagged[:4]]
    assert f"The page lists the 4 most similar of the {len(every_flagged)} flagged pairs" in " ".join(page.split())
    # With room for every flagged pair, the page lists them all and has no such line.
    monkeypatch.setattr(similarity, "LISTED_PAIRS", len(every_flagged))
    whole = compare_exercise(EX04, find_students(tmp_path / "class"), 0.3).section()
    page = render_page(analyse_class(similarity_attempts(report)), {"ex04": whole})
    assert len(_shown_pairs(page)) == len(every_flagged) and 'data-similarity="more-flagged"' not in page


def test_a_record_written_before_the_list_was_cut_counts_the_pairs_it_lists(batch, tmp_path):
    _, out = batch
    record = json.loads((out / "similarity.json").read_text())
    del record["exercises"][0]["flagged_count"]
    (tmp_path / "similarity.json").write_text(json.dumps(record))
    assert read_similarity(tmp_path)["ex04"] == read_similarity(out)["ex04"]


def test_past_the_side_by_side_limit_a_pair_is_listed_without_its_code(batch, monkeypatch):
    folder, out = batch
    monkeypatch.setattr(similarity, "SIDE_BY_SIDE_PAIRS", 1)
    section = compare_exercise(EX04, find_students(folder)).section()
    assert [name for name, _ in section.code] == ["alice", "bob"]  # the most similar pair's code only
    report = json.loads((out / "students" / "alice" / "ex04.json").read_text())
    page = render_page(analyse_class(similarity_attempts(report)), {"ex04": section})
    assert [pair[:2] for pair in _shown_pairs(page)] == [("alice", "bob"), ("alice", "erin"), ("bob", "erin")]
    assert len(_code_blocks(page, "alice", "bob")) == 2
    assert _code_blocks(page, "alice", "erin") == _code_blocks(page, "bob", "erin") == []
    assert page.count("The page shows the code of the") == 2


def similarity_attempts(report: dict):
    """One student's report as the page's attempts."""
    from grader.classroom.class_report import attempts_of

    return attempts_of({"alice": {"ex04": report}})


@pytest.mark.parametrize("value", ["0", "1.5", "-0.2", "abc", "nan", "inf"])
def test_a_bad_threshold_is_a_one_line_error_and_writes_nothing(tmp_path, capsys, value):
    out = tmp_path / "marks"
    code = main(["batch", str(tmp_path), "--exercise", "ex04", "--out", str(out), "--similarity-threshold", value])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("grade: argument --similarity-threshold: expected a fraction in (0, 1]") and value in err
    assert not out.exists()


def test_no_similarity_and_a_threshold_do_not_go_together(tmp_path, capsys):
    out = tmp_path / "marks"
    code = main(["batch", str(tmp_path), "--exercise", "ex04", "--out", str(out), "--no-similarity",
                 "--similarity-threshold", "0.5"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "not allowed with argument" in err, err
    assert not out.exists()


def test_the_help_gives_the_default_threshold(capsys):
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"(default: {DEFAULT_THRESHOLD:g})" in said and "--no-similarity" in said


@pytest.mark.parametrize("change, words", [
    (lambda record: "{not json", "unreadable"),
    (lambda record: json.dumps({**record, "format_version": 9}), "format_version 9, not 1"),
    (lambda record: json.dumps({**record, "exercises": [{**record["exercises"][0], "flagged": [
        {**record["exercises"][0]["flagged"][0], "first_spans": [[0, 10**9]]}]}]}),
     "a span runs past the end of its module"),
    (lambda record: json.dumps({**record, "exercises": [{**record["exercises"][0], "compared": "six"}]}),
     "field 'compared' must be int, got 'six'"),
    (lambda record: json.dumps({**record, "exercises": [{**record["exercises"][0], "flagged_count": 2}]}),
     "field 'flagged_count' is 2, fewer than the 3 pairs listed"),
    (lambda record: json.dumps({**record, "exercises": [{**record["exercises"][0], "flagged_count": "3"}]}),
     "field 'flagged_count' must be int, got '3'"),
])
def test_a_malformed_similarity_record_is_refused_in_one_line(batch, tmp_path, change, words):
    _, out = batch
    copy = tmp_path / "marks"
    shutil.copytree(out, copy)
    record = json.loads((copy / "similarity.json").read_text())
    (copy / "similarity.json").write_text(change(record))
    for name in ("report.html", "checks.csv", "mistakes.csv"):
        (copy / name).unlink()
    result = run_grade("batch", "report", str(copy), cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"grade: {copy / 'similarity.json'}: ") and words in result.stderr
    assert not any((copy / name).exists() for name in ("report.html", "checks.csv", "mistakes.csv"))


def test_the_section_in_a_real_browser(batch, tmp_path, monkeypatch):
    """Headless Chromium: the flagged pairs in order, each opening to the two files side by side, shared code marked."""
    from selenium.webdriver.common.by import By

    _, out = batch
    with headless_chromium(monkeypatch) as driver:
        driver.get((out / "report.html").as_uri())
        assert severe_console_errors(driver) == []
        heading = driver.find_element(By.ID, "ex04-similar")
        assert heading.text == "Similar submissions"
        flagged = [row for row in _rows(out / "similar.csv")[1:] if row[-1] == "yes"]
        pairs = driver.find_elements(By.CSS_SELECTOR, 'section[data-exercise="ex04"] details.similar-pair')
        assert [(pair.get_attribute("data-first"), pair.get_attribute("data-second")) for pair in pairs] == \
            [(row[0], row[1]) for row in flagged]
        for pair, row in zip(pairs, flagged):
            summary = pair.find_element(By.TAG_NAME, "summary")
            assert f"{float(row[3]):.0%} of {row[0]}'s code is in {row[1]}'s" in summary.text
            assert not pair.find_element(By.CSS_SELECTOR, "pre").is_displayed()  # closed until asked for
            driver.execute_script("arguments[0].scrollIntoView()", summary)
            summary.click()
            first, second = pair.find_elements(By.CSS_SELECTOR, ".side-by-side figure")
            assert first.is_displayed() and second.is_displayed()
            assert [figure.get_attribute("data-student") for figure in (first, second)] == row[:2]
            # Side by side: one row, the first on the left, neither narrower than a third of the page.
            assert first.location["y"] == second.location["y"] and first.location["x"] < second.location["x"]
            assert min(first.size["width"], second.size["width"]) > 1280 / 3
            for figure in (first, second):
                marks = figure.find_elements(By.TAG_NAME, "mark")
                assert marks and all(mark.tag_name == "mark" for mark in marks)
                assert any(mark.is_displayed() and mark.text.strip() for mark in marks)
        left_out = driver.find_elements(By.CSS_SELECTOR, 'section[data-exercise="ex04"] [data-left-out]')
        assert [span.text for span in left_out] == ["dave (too little beyond the stub to compare)",
                                                 "frank (no usable module)"]
        assert driver.save_screenshot(str(tmp_path / "similar.png"))
        assert (tmp_path / "similar.png").stat().st_size > 10_000
        assert severe_console_errors(driver) == []
