"""Reading a stored report back: the one reader, and each way a stored file can be unusable."""

from __future__ import annotations

import json

import pytest

from grader.report import ReportError, ReportProblem, read_report
from tests.conftest import golden_report


def test_a_stored_report_reads_back_as_it_was_written(tmp_path):
    report = golden_report("full_solution")
    path = tmp_path / "ex01.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    assert read_report(path) == report


@pytest.mark.parametrize("content, problem, words", [
    (None, ReportProblem.UNREADABLE, "No such file or directory"),
    (b"\xff\xfe not text", ReportProblem.NOT_TEXT, "it is not UTF-8 text"),
    (b"{not json", ReportProblem.NOT_JSON, "Expecting property name"),
    (b"[1, 2]", ReportProblem.MALFORMED, "the report is list, not an object"),
    (b'{"exercise": {"id": "ex01", "title": "t"}}', ReportProblem.MALFORMED, "the report: no field 'tests'"),
])
def test_an_unusable_report_says_why_as_data_and_in_words(tmp_path, content, problem, words):
    path = tmp_path / "ex01.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ReportError) as caught:
        read_report(path)
    assert caught.value.problem is problem and caught.value.path == path
    assert words in caught.value.detail


@pytest.mark.parametrize("change, words", [
    (lambda r: r.update(status="great"), "the report: field 'status' is not one of pass, fail, error"),
    (lambda r: r.update(score="7"), "the report: field 'score' is str, not the expected kind"),
    (lambda r: r["exercise"].pop("id"), "the report's exercise: no field 'id'"),
])
def test_a_report_missing_what_every_reader_needs_is_malformed(tmp_path, change, words):
    report = golden_report("full_solution")
    change(report)
    path = tmp_path / "ex01.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(ReportError, match=words) as caught:
        read_report(path)
    assert caught.value.problem is ReportProblem.MALFORMED
