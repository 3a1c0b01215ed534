"""The class report of `grade batch`: OUT/report.html, one self-contained page of charts and tables, checks.csv
and mistakes.csv.

The numbers come from `item_analysis`; this module reads the reports, words the facts and draws
them. The page is a Jinja2 template shipped in the package (autoescaped), with matplotlib's
charts inlined as SVG, so it opens offline with nothing to fetch.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Mapping
from pathlib import Path

import jinja2
import markupsafe

from grader.catalog import KitError
from grader.classroom.folder import ClassFolder
from grader.classroom.similarity import SIDE_BY_SIDE_PAIRS, LeftOut, SimilaritySection, read_similarity
from grader.classroom.spreadsheet import SafeWriter
from grader.failures import FailureKind
from grader.report import ReportError, ReportProblem, read_report
from grader.classroom.item_analysis import (
    Attempt,
    ClassAnalysis,
    ExerciseAnalysis,
    Flag,
    Undefined,
    analyse_class,
    attempt_from_report,
)

# Beyond this many points a bar per score would be too thin to read, so the scores share bins.
BAR_PER_SCORE_UP_TO = 40
SLOWEST = 5

FLAG_WORDS = {
    Flag.EVERYONE_PASSES: "everyone passes",
    Flag.NOBODY_PASSES: "nobody passes",
    Flag.NEGATIVE: "discriminates negatively",
}
UNDEFINED_WORDS = {
    Undefined.CHECK_CONSTANT: "undefined: every student got the same result",
    Undefined.REST_CONSTANT: "undefined: the rest of the score is the same for everyone",
}
KIND_WORDS = {
    FailureKind.TIMEOUT: "timed out",
    FailureKind.CRASH: "crashed",
    FailureKind.EXIT: "exited",
    FailureKind.MEMORY: "out of memory",
    FailureKind.RAISED: "raised",
    FailureKind.BAD_VALUE: "not plain data",
    FailureKind.BROKEN_CHANNEL: "broke the channel",
    FailureKind.MISSING: "function missing",
    FailureKind.IMPORT: "did not import",
    FailureKind.ASSERTION: "wrong answer",
    FailureKind.ERROR: "check error",
    FailureKind.WAITING: "waits on another check",
}


def read_attempt(student: str, path: Path) -> Attempt:
    """One report file; an unreadable or malformed one is a one-line KitError naming it."""
    try:
        report = read_report(path)
    except ReportError as exc:
        if exc.problem is ReportProblem.MALFORMED:
            raise KitError(f"{path}: {exc.detail}") from None
        raise KitError(f"{path}: not a readable report ({exc.detail})") from None
    try:
        attempt = attempt_from_report(student, report)
    except ValueError as exc:
        raise KitError(f"{path}: {exc}") from None
    if attempt.exercise != path.stem:
        raise KitError(f"{path}: holds a report on {attempt.exercise}, not {path.stem}")
    return attempt


def read_reports(out: Path) -> list[Attempt]:
    """Every report that `grade batch` wrote into OUT, as OUT/students/STUDENT/exNN.json; none at all is a KitError."""
    if not out.is_dir():
        raise KitError(f"batch report {out}: no such folder")
    folder = ClassFolder(out)
    attempts = [read_attempt(student, path) for student, path in folder.reports()]
    if not attempts:
        raise KitError(f"batch report {out}: no reports in it (grade batch writes {folder.report('STUDENT', 'exNN')})")
    return attempts


def attempts_of(results: dict[str, dict[str, dict]]) -> list[Attempt]:
    """The reports a batch run just made, {student: {exercise id: report}}, as attempts."""
    return [attempt_from_report(student, report) for student, reports in results.items()
            for report in reports.values()]


def histogram_svg(scores: tuple[float, ...], possible: float, label: str, salt: str) -> str:
    """A histogram of scores out of `possible`, as an inline <svg> element."""
    # Imported here, not at the top: only building the page pays for matplotlib.
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    top = max(possible, max(scores), 1.0)
    if top <= BAR_PER_SCORE_UP_TO and all(float(score).is_integer() for score in scores):
        bins = [edge - 0.5 for edge in range(int(top) + 2)]
    else:
        bins = [top * step / 20 for step in range(21)]
    # Text as text, not glyph outlines: smaller, and the page can be searched. A fixed hash salt
    # makes the ids, and so the page, the same every time it is built.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9}):
        figure = Figure(figsize=(6.4, 2.4))
        # Fixed margins, not a layout engine: every chart has the same axes, and a layout pass per
        # chart would cost more than all the drawing.
        figure.subplots_adjust(left=0.09, right=0.98, bottom=0.2, top=0.96)
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        axes.hist(scores, bins=bins, color="#3b6ea8", edgecolor="white")
        axes.set_xlabel(label)
        axes.set_ylabel("students")
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.spines[["top", "right"]].set_visible(False)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    # Every chart's SVG numbers its groups from 1 (figure_1, axes_1, ...), and all of them share one
    # page, so each chart's ids, and the references to them, get the chart's own prefix.
    return re.sub(r'(\bid="|url\(#|href="#)', rf"\g<1>{salt}-", text[text.index("<svg"):])


def _score(value: float) -> str:
    return f"{value:g}"


def _kinds(failures: tuple[tuple[FailureKind, int], ...]) -> str:
    """"wrong answer 10, timed out 2"."""
    return ", ".join(f"{KIND_WORDS[kind]} {count}" for kind, count in failures)


LEFT_OUT_WORDS = {
    LeftOut.UNUSABLE: "no usable module",
    LeftOut.STUB: "too little beyond the stub to compare",
    LeftOut.TOO_LARGE: "too large to compare",
}


def marked_code(text: str, spans: tuple[tuple[int, int], ...]) -> markupsafe.Markup:
    """A student's code, escaped, with each shared span inside <mark>: the only markup in it is ours."""
    pieces, done = [], 0
    for start, end in spans:
        start, end = max(start, done), min(end, len(text))
        if start >= end:
            continue
        pieces += [html.escape(text[done:start]), "<mark>", html.escape(text[start:end]), "</mark>"]
        done = end
    pieces.append(html.escape(text[done:]))
    return markupsafe.Markup("".join(pieces))


def _environment() -> jinja2.Environment:
    """The template loader, with autoescape on for everything: student names and messages are not ours."""
    environment = jinja2.Environment(loader=jinja2.PackageLoader("grader.classroom", "templates"), autoescape=True,
                                     undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.filters.update(score=_score, mean=lambda value: f"{value:.2f}", kinds=_kinds,
                               percent=lambda value: f"{value:.0%}", seconds=lambda value: f"{value:.3f}")
    environment.globals.update(flag_words=FLAG_WORDS, undefined_words=UNDEFINED_WORDS, kind_words=KIND_WORDS,
                               left_out_words=LEFT_OUT_WORDS, marked_code=marked_code,
                               side_by_side=SIDE_BY_SIDE_PAIRS,
                               report_href=ClassFolder.report_link,
                               plain_why=lambda why: why.replace("``", ""))
    return environment


def render_page(analysis: ClassAnalysis, similarity: Mapping[str, SimilaritySection] | None = None) -> str:
    """The page itself, as HTML text; `similarity` holds each exercise's similar submissions, where compared."""
    charts = {exercise.id: histogram_svg(exercise.scores, exercise.summary.possible,
                                         f"score out of {exercise.summary.possible:g}", exercise.id)
              for exercise in analysis.exercises}
    total_chart = None
    if len(analysis.exercises) > 1:
        total_chart = histogram_svg(tuple(row.total for row in analysis.students), analysis.totals.possible,
                                        f"total out of {analysis.totals.possible:g}", "total")
    template = _environment().get_template("class_report.html.j2")
    return template.render(analysis=analysis, charts=charts, total_chart=total_chart, slowest=SLOWEST,
                           similarity=similarity or {})


CHECK_COLUMNS = ["exercise", "check_id", "check", "visibility", "points", "students", "passed", "pass_rate",
                 "discrimination", "discrimination_note", "flags", "timeouts", "crashes", "failures",
                 "mean_duration_s", "max_duration_s"]


def check_rows(exercise: ExerciseAnalysis) -> list[list[str]]:
    """The rows of checks.csv for one exercise; where discrimination is undefined, the note says why."""
    return [[exercise.id, check.id, check.name, "public" if check.public else "hidden", _score(check.points),
             str(check.students), str(check.passed), f"{check.pass_rate:.4f}",
             "" if check.discrimination is None else f"{check.discrimination:.4f}",
             UNDEFINED_WORDS[check.undefined] if check.undefined else "",
             "; ".join(FLAG_WORDS[flag] for flag in check.flags), str(check.timeouts), str(check.crashes),
             _kinds(check.failures), f"{check.mean_duration_s:.4f}", f"{check.max_duration_s:.4f}"]
            for check in exercise.checks]


MISTAKE_COLUMNS = ["exercise", "mistake", "why", "students", "share", "folders"]


def mistake_rows(exercise: ExerciseAnalysis) -> list[list[str]]:
    """The rows of mistakes.csv for one exercise: each known mistake, its students and their folders."""
    return [[exercise.id, mistake.name, mistake.why, str(len(mistake.students)),
             f"{len(mistake.students) / exercise.summary.students:.4f}", ";".join(mistake.students)]
            for mistake in exercise.misconceptions]


def _write_csv(path: Path, columns: list[str], rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = SafeWriter(handle)
        writer.writerow(columns)
        writer.writerows(rows)


def write_class_report(attempts: list[Attempt], out: Path) -> ClassAnalysis:
    """Write OUT/report.html, OUT/checks.csv and OUT/mistakes.csv from the attempts, and return what they show.

    The page's similar submissions come from OUT/similarity.json, where `grade batch` left it.
    """
    similarity = read_similarity(out)  # read, and refused if malformed, before anything is written
    analysis = analyse_class(attempts)
    out.mkdir(parents=True, exist_ok=True)
    folder = ClassFolder(out)
    _write_csv(folder.checks_table, CHECK_COLUMNS, [row for exercise in analysis.exercises for row in check_rows(exercise)])
    _write_csv(folder.mistakes_table, MISTAKE_COLUMNS,
               [row for exercise in analysis.exercises for row in mistake_rows(exercise)])
    folder.page.write_text(render_page(analysis, similarity), encoding="utf-8")
    return analysis
