"""The class report of `grade batch` (grader/class_report.py): report.html and checks.csv, from real grading.

The class is the toy kit with a second, scaffolded exercise, graded once for the module: a full
solution, a partial one, known mistakes (one made by two students), a corrupt zip, a syntax error, an
infinite loop and a segfault, so the page has full marks, errors, timeouts, crashes and
misconceptions to show.
"""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from grader.catalog import Kit
from grader.classroom.class_report import (
    CHECK_COLUMNS,
    MISTAKE_COLUMNS,
    attempts_of,
    histogram_svg,
    read_reports,
    render_page,
)
from grader.classroom.item_analysis import attempt_from_report
from grader.known_mistakes import find_mutant, write_mutant
from grader.authoring.scaffolding import scaffold
from tests.browser import headless_chromium, severe_console_errors
from tests.conftest import REPO, TOY_KIT, run_grade

GOLDEN = REPO / "tests" / "golden"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """(kit, class folder, OUT) after `grade batch CLASS --all --out OUT` on a class of six."""
    base = tmp_path_factory.mktemp("class-report")
    kit = Kit(base / "kit")
    shutil.copytree(TOY_KIT, kit.root, ignore=shutil.ignore_patterns("reports", "__pycache__"))
    scaffold(kit, "ex02", "second", "A second toy")
    second = kit.resolve("ex02")
    reference = second.solution_dir(kit.root) / "second.py"
    folder = base / "class"
    mutant = write_mutant(second, kit.root, find_mutant(second, kit.root, "accepts_negative"), base / "mutants")
    students = {"alice": ("full_solution", reference), "dave": ("syntax_error", second.stub_path),
                "erin": ("infinite_loop", mutant), "frank": ("segfault", None)}
    for name, (golden, second_file) in students.items():
        (folder / name).mkdir(parents=True)
        shutil.copyfile(GOLDEN / golden / "toy.py", folder / name / "toy.py")
        if second_file is not None:
            shutil.copyfile(second_file, folder / name / "second.py")
    (folder / "bob").mkdir()
    shutil.copyfile(GOLDEN / "partial_solution" / "toy.py", folder / "bob" / "toy.py")
    shutil.copyfile(mutant, folder / "bob" / "second.py")
    (folder / "carol.zip").write_bytes(b"PK\x03\x04 broken")
    out = base / "marks"
    result = run_grade("batch", str(folder), "--all", "--jobs", "2", "--out", str(out), cwd=kit.root)
    assert result.returncode == 0, result.stderr
    assert (f"Class report: {out / 'report.html'} (per check: {out / 'checks.csv'}; per known mistake: "
            f"{out / 'mistakes.csv'})") in " ".join(result.stdout.split())
    return kit, folder, out


def _reports(out: Path) -> dict[tuple[str, str], dict]:
    """Every report in OUT, read here on its own, by (student, exercise id)."""
    return {(path.parent.name, path.stem): json.loads(path.read_text())
            for path in sorted(out.glob("students/*/ex*.json"))}


def _gradebook(out: Path) -> list[dict[str, str]]:
    with open(out / "grades.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_checks_csv_has_a_row_per_check_with_its_pass_count(graded):
    _, _, out = graded
    with open(out / "checks.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == CHECK_COLUMNS
    reports = _reports(out)
    expected = {}
    for (_, exercise), report in reports.items():
        for test in report["tests"]:
            key = (exercise, test["id"])
            expected[key] = expected.get(key, 0) + (test["outcome"] == "passed")
    assert {(row["exercise"], row["check_id"]): int(row["passed"]) for row in rows} == expected
    assert all(row["students"] == "6" for row in rows)
    # The toy's add checks time out for erin and crash for frank: counted from the failure's kind.
    add = next(row for row in rows if row["check_id"].endswith("test_add_small_numbers"))
    assert (add["timeouts"], add["crashes"]) == ("1", "1")
    for row in rows:
        assert (row["discrimination"] == "") == (row["discrimination_note"] != "")


def _diagnosed(out: Path) -> dict[tuple[str, str], list[str]]:
    """(exercise, mistake): the students whose report names it, read from the reports themselves."""
    found: dict[tuple[str, str], list[str]] = {}
    for (student, exercise), report in _reports(out).items():
        for entry in report["diagnosis"]:
            found.setdefault((exercise, entry["mistake"]), []).append(student)
    return found


def test_mistakes_csv_counts_each_known_mistake_with_its_students_most_common_first(graded):
    _, _, out = graded
    with open(out / "mistakes.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == MISTAKE_COLUMNS
    expected = _diagnosed(out)
    assert expected == {("ex01", "pair_as_list"): ["bob"], ("ex02", "accepts_negative"): ["bob", "erin"]}
    assert {(row["exercise"], row["mistake"]): row["folders"].split(";") for row in rows} == expected
    assert [(row["exercise"], row["students"], row["share"]) for row in rows] == [("ex01", "1", "0.1667"),
                                                                                  ("ex02", "2", "0.3333")]
    assert rows[1]["why"] == find_mutant(graded[0].resolve("ex02"), graded[0].root, "accepts_negative").why


def test_the_page_fetches_nothing(graded):
    page = (graded[2] / "report.html").read_text()
    assert "<link rel=\"stylesheet\"" not in page and "@import" not in page
    references = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert references and all(not re.match(r"[a-z]+://", ref) or ref.startswith("data:") for ref in references)
    assert page.count("<svg") == 3  # the totals and each of the two exercises
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "every chart's ids are its own"
    targets = set(re.findall(r'(?:url\(#|href="#)([^")]+)', page))
    assert targets and targets <= set(ids), "every reference inside the page finds its target"


def test_each_score_links_to_that_students_report(graded):
    _, _, out = graded
    page = (out / "report.html").read_text()
    links = {unquote(ref) for ref in re.findall(r'href="([^"#][^"]*\.json)"', page)}
    assert links == {f"students/{student}/{exercise}.json" for student, exercise in _reports(out)}
    assert all((out / link).is_file() for link in links)


def test_a_hidden_checks_message_never_reaches_the_page(graded):
    _, _, out = graded
    reports = _reports(out).values()
    public = {line for report in reports for test in report["tests"] if test["visibility"] == "public"
              for line in (test["message"] or "").splitlines()}
    hidden = {line for report in reports for test in report["tests"] if test["visibility"] == "hidden"
              for line in (test["message"] or "").splitlines()} - public
    assert any(line.startswith("Hint:") for line in hidden), "the class should fail a hidden check with a hint"
    page = (out / "report.html").read_text()
    checks = (out / "checks.csv").read_text()
    # A hidden line that is part of a public one ("your code raised NotImplementedError" of the
    # public "... (toy.py line 3 in add)") says nothing the public checks did not.
    leaked = [line for line in hidden if line.strip() and not any(line in shown for shown in public)
              and (html.escape(line) in page or line in checks)]
    assert leaked == []


def test_grade_batch_report_rebuilds_the_same_page_without_grading(graded, tmp_path):
    _, _, out = graded
    copy = tmp_path / "marks"
    shutil.copytree(out, copy)
    before = {name: (copy / name).read_text() for name in ("report.html", "checks.csv")}
    for name in before:
        (copy / name).unlink()
    (copy / "grades.csv").unlink()
    result = run_grade("batch", "report", str(copy), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Read the reports of 6 students on 2 exercise(s)." in result.stdout
    # The same page byte for byte: the charts carry no date, and their ids are salted per chart.
    assert {name: (copy / name).read_text() for name in before} == before
    assert not (copy / "grades.csv").exists()


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("lay_out, words", [
    (lambda out: out.mkdir(),
     "batch report {out}: no reports in it (grade batch writes {out}/students/STUDENT/exNN.json)"),
    (lambda out: _write(out / "students" / "ann" / "notes.json", "{}"), "batch report {out}: no reports in it"),
    (lambda out: _write(out / "ann" / "ex01.json", "{}"), ("{out}: written by an earlier kit (reports as "
     "{out}/ann/ex01.json, now {out}/students/STUDENT/exNN.json); grade the class again into a new folder")),
    (lambda out: None, "batch report {out}: no such folder"),
    (lambda out: _write(out / "students" / "ann" / "ex01.json", "{not json"),
     "{out}/students/ann/ex01.json: not a readable report"),
    (lambda out: _write(out / "students" / "ann" / "ex01.json", '{"exercise": {"id": "ex01", "title": "t"}}'),
     "{out}/students/ann/ex01.json: the report: no field 'tests'"),
])
def test_batch_report_errors_are_one_line(tmp_path, lay_out, words):
    out = tmp_path / "marks"
    lay_out(out)
    result = run_grade("batch", "report", str(out), cwd=tmp_path)
    assert result.returncode == 2, result.stdout
    assert result.stderr.count("\n") == 1 and words.format(out=out) in result.stderr, result.stderr


def test_a_report_filed_under_another_exercise_is_refused(graded, tmp_path):
    out = tmp_path / "marks"
    _write(out / "students" / "alice" / "ex02.json", (graded[2] / "students" / "alice" / "ex01.json").read_text())
    result = run_grade("batch", "report", str(out), cwd=tmp_path)
    assert result.returncode == 2
    assert f"{out}/students/alice/ex02.json: holds a report on ex01, not ex02" in result.stderr


def test_a_class_folder_named_report_is_graded_when_written_as_a_path(graded, tmp_path):
    kit = graded[0]
    (tmp_path / "report" / "alice").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "full_solution" / "toy.py", tmp_path / "report" / "alice" / "toy.py")
    result = run_grade("batch", "./report", "--exercise", "ex01", "--jobs", "1", "--out", "marks",
                       "--kit", str(kit.root), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    marks = tmp_path / "marks"
    assert (marks / "students" / "alice" / "ex01.json").is_file() and (marks / "report.html").is_file()
    helped = run_grade("batch", "--help", cwd=tmp_path)
    assert "grade batch report ..." in helped.stdout and "grade batch ./report" in helped.stdout
    own = run_grade("batch", "report", "--help", cwd=tmp_path)
    assert own.returncode == 0 and own.stdout.startswith("usage: grade batch report ")
    bare = run_grade("batch", "report", cwd=tmp_path)
    assert bare.returncode == 2 and "the following arguments are required: OUT" in bare.stderr


def test_names_and_messages_are_escaped(graded):
    """Student names are folder names and messages are the student's words: neither is markup."""
    report = json.loads((graded[2] / "students" / "bob" / "ex01.json").read_text())
    failing = next(test for test in report["tests"] if test["visibility"] == "public" and test["message"])
    failing["message"] = "<script>alert(1)</script> came back"
    page = render_page_of({"<b>eve</b>": {"ex01": report}})
    assert "<b>eve</b>" not in page and "&lt;b&gt;eve&lt;/b&gt;" in page
    assert 'href="students/%3Cb%3Eeve%3C%2Fb%3E/ex01.json"' in page
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; came back" in page


def render_page_of(results: dict) -> str:
    from grader.classroom.item_analysis import analyse_class

    return render_page(analyse_class(attempts_of(results)))


def test_scores_that_are_not_whole_share_bins():
    chart = histogram_svg((0.5, 1.25, 60.0), 100.0, "score out of 100", "salt")
    assert chart.startswith("<svg") and chart.rstrip().endswith("</svg>")
    assert chart.count("<path") >= 20  # the bars (some empty) and the axes


def test_a_report_read_back_is_the_report_written(graded):
    """read_reports (grade batch report) and attempts_of (grade batch) see the same attempts."""
    out = graded[2]
    from_disk = sorted(read_reports(out), key=lambda attempt: (attempt.student, attempt.exercise))
    in_memory = sorted((attempt_from_report(student, report) for (student, _), report in _reports(out).items()),
                       key=lambda attempt: (attempt.student, attempt.exercise))
    assert from_disk == in_memory and len(from_disk) == 12


def test_grading_an_exercise_never_loads_the_page_libraries(graded, tmp_path):
    """matplotlib and jinja2 are imported only to build the page, so grade exNN starts as fast as before."""
    kit = graded[0]
    probe = ("import sys\nfrom grader.cli import main\n"
             f"code = main(['ex01', '--solution', '--kit', {str(kit.root)!r}, '--output', '-'])\n"
             "print('LOADED', sorted(name for name in ('matplotlib', 'jinja2') if name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120, check=False)
    assert "LOADED []" in result.stdout, result.stdout[-500:] + result.stderr


def test_the_page_in_a_real_browser(graded, tmp_path, monkeypatch):
    """Headless Chromium opens the page: no console errors, every chart drawn, the numbers of grades.csv."""
    from selenium.webdriver.common.by import By

    _, _, out = graded
    with headless_chromium(monkeypatch) as driver:
        driver.get((out / "report.html").as_uri())
        assert severe_console_errors(driver) == []

        charts = driver.find_elements(By.CSS_SELECTOR, "figure.chart svg")
        assert len(charts) == 3
        for chart in charts:
            assert chart.is_displayed() and chart.size["width"] > 100 and chart.size["height"] > 50, chart.size

        def stat(key: str, name: str) -> str:
            return driver.find_element(By.CSS_SELECTOR, f'dl[data-summary="{key}"] dd[data-stat="{name}"]').text

        marks = _gradebook(out)
        reports = _reports(out)
        possible = {exercise: report["max_score"] for (_, exercise), report in reports.items()}
        possible["total"] = sum(possible.values())
        for column in ("ex01", "ex02", "total"):
            scores = [float(row[column]) for row in marks]
            assert stat(column, "students") == str(len(scores))
            assert stat(column, "mean") == f"{statistics.fmean(scores):.2f}"
            assert stat(column, "median") == f"{statistics.median(scores):g}"
            assert (stat(column, "lowest"), stat(column, "highest")) == (f"{min(scores):g}", f"{max(scores):g}")
            assert stat(column, "full_marks") == str(sum(score == possible[column] for score in scores))
        passed: dict[tuple[str, str], int] = {}
        for (_, exercise), report in reports.items():
            for test in report["tests"]:
                passed[exercise, test["id"]] = passed.get((exercise, test["id"]), 0) + (test["outcome"] == "passed")
        for (exercise, check_id), count in passed.items():
            cell = driver.find_element(By.CSS_SELECTOR, f'section[data-exercise="{exercise}"] '
                                                        f'tr[data-check="{check_id}"] [data-stat="passed"]')
            assert cell.text == str(count), check_id

        # Each exercise's known mistakes: the count of each, as the reports say, linking to those students.
        diagnosed = _diagnosed(out)
        for exercise in ("ex01", "ex02"):
            rows = driver.find_elements(By.CSS_SELECTOR, f'section[data-exercise="{exercise}"] table.mistakes tbody tr')
            shown = {row.get_attribute("data-mistake"): row for row in rows}
            assert sorted(shown) == sorted(name for (where, name) in diagnosed if where == exercise)
            for name, row in shown.items():
                count = row.find_element(By.CSS_SELECTOR, '[data-stat="students"]')
                assert count.text == str(len(diagnosed[exercise, name]))
                count.click()  # the count opens the list of those students
                listed = row.find_elements(By.CSS_SELECTOR, "details[open] a[data-student]")
                assert [link.text for link in listed] == diagnosed[exercise, name]
                assert all(unquote(link.get_attribute("href")).endswith(f"students/{link.text}/{exercise}.json")
                           for link in listed)

        # Each exercise says whose code was compared and who was left out, as similarity.json records it.
        record = {entry["exercise"]: entry for entry in json.loads((out / "similarity.json").read_text())["exercises"]}
        for exercise in ("ex01", "ex02"):
            section = f'section[data-exercise="{exercise}"]'
            assert driver.find_element(By.ID, f"{exercise}-similar").text == "Similar submissions"
            assert driver.find_element(By.CSS_SELECTOR, f'{section} p[data-similarity="compared"]').is_displayed()
            left_out = driver.find_elements(By.CSS_SELECTOR, f"{section} [data-left-out]")
            assert [span.get_attribute("data-left-out") for span in left_out] == \
                [entry["student"] for entry in record[exercise]["left_out"]]
            shown = driver.find_elements(By.CSS_SELECTOR, f"{section} details.similar-pair")
            assert [(pair.get_attribute("data-first"), pair.get_attribute("data-second")) for pair in shown] == \
                [(entry["first"], entry["second"]) for entry in record[exercise]["flagged"]]
        # ex02's solution is one line past its stub, shorter than one fingerprint: only alice's has more.
        little = "too little beyond the stub to compare"
        assert [span.text for span in driver.find_elements(By.CSS_SELECTOR, '#ex02 [data-left-out]')] == [
            f"bob ({little})", "carol (no usable module)", f"dave ({little})", f"erin ({little})",
            "frank (no usable module)"]

        # The students' table sorts by total when its heading is clicked, lowest first.
        driver.find_element(By.XPATH, '//table[contains(@class, "students")]//button[text()="total"]').click()
        totals = [float(cell.text) for cell in
                  driver.find_elements(By.CSS_SELECTOR, "table.students tbody tr td:last-child")]
        assert totals == sorted(float(row["total"]) for row in marks)

        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1280, min(height, 6000))
        assert driver.save_screenshot(str(tmp_path / "report.png"))
        assert (tmp_path / "report.png").stat().st_size > 10_000
        assert [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"] == []


CLASS_OF = 2000


@pytest.fixture(scope="module")
def large_class(graded, tmp_path_factory):
    """OUT of a class of 2,000: the six graded students' reports, each standing for a third of a thousand."""
    _, _, out = graded
    large = tmp_path_factory.mktemp("class-of-2000") / "marks"
    graded_students = sorted(path for path in (out / "students").iterdir())
    for number in range(CLASS_OF):
        shutil.copytree(graded_students[number % len(graded_students)], large / "students" / f"s{number:04d}")
    shutil.copyfile(out / "similarity.json", large / "similarity.json")
    return large


def test_a_class_of_2000_gets_its_page_files_and_gradebook(large_class, tmp_path):
    done = run_grade("batch", "report", str(large_class), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"Read the reports of {CLASS_OF} students on 2 exercise(s)." in " ".join(done.stdout.split())
    with open(large_class / "checks.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(int(row["students"]) == CLASS_OF for row in rows)
    roster = tmp_path / "roster.csv"
    roster.write_text("folder,id\n" + "".join(f"s{number:04d},{100000 + number}\n" for number in range(CLASS_OF)))
    done = run_grade("batch", "gradebook", str(large_class), "--lms", "canvas", "--roster", str(roster), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with open(large_class / "gradebook-canvas.csv", newline="") as handle:
        assert len([row for row in csv.reader(handle) if row and row[1].isdigit()]) == CLASS_OF


def test_the_page_of_a_class_of_2000_opens_and_sorts_in_a_real_browser(large_class, tmp_path, monkeypatch):
    from selenium.webdriver.common.by import By

    page = large_class / "report.html"
    if not page.is_file():
        assert run_grade("batch", "report", str(large_class), cwd=tmp_path).returncode == 0
    with headless_chromium(monkeypatch) as driver:
        driver.get(page.as_uri())
        assert severe_console_errors(driver) == []
        rows = driver.find_elements(By.CSS_SELECTOR, "table.students tbody tr")
        assert len(rows) == CLASS_OF
        driver.find_element(By.XPATH, '//table[contains(@class, "students")]//button[text()="total"]').click()
        totals = driver.execute_script(
            "return [...document.querySelectorAll('table.students tbody tr td:last-child')].map(c => c.textContent)")
        assert [float(total) for total in totals] == sorted(float(total) for total in totals)
        assert severe_console_errors(driver) == []
