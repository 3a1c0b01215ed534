"""Item analysis of a class's reports: the spread of scores, each check's pass rate and discrimination, failures.

Pure functions over typed data, with no I/O: `class_report` reads the reports and draws the page.
A check's discrimination is the point-biserial correlation of passing it with the rest of the
exercise's score (the total less this check's points), the standard corrected item-total measure.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from grader.failures import OUTCOMES, FailureKind
from grader.outcomes import Outcome, Status
from grader.report import report_field, report_status

# The kinds of failure that are the worker dying rather than an answer: the ones that give "crashed".
CRASH_KINDS = frozenset(kind for kind, outcome in OUTCOMES.items() if outcome is Outcome.CRASHED)
# A failure message is grouped by its first line, cut here: the rest is usually one student's values.
MESSAGE_CHARS = 200


@dataclass(frozen=True)
class CheckResult:
    """One check in one student's report, as far as the analysis needs it."""

    id: str
    name: str
    public: bool
    points: float
    score: float
    passed: bool
    duration_s: float
    failure: FailureKind | None
    message: str | None
    """Public checks only: a hidden check's message can echo a hidden input, so it is never kept."""


@dataclass(frozen=True)
class Mistake:
    """A known mistake a report's diagnosis names."""

    name: str
    why: str


@dataclass(frozen=True)
class Attempt:
    """One student's report on one exercise."""

    student: str
    exercise: str
    title: str
    status: Status
    score: float
    max_score: float
    checks: tuple[CheckResult, ...]
    mistakes: tuple[Mistake, ...] = ()
    """The known mistakes the report's diagnosis names (a report from before diagnoses names none)."""


def _check_result(entry: dict, where: str) -> CheckResult:
    """One entry of a report's `tests`."""
    public = report_field(entry, "visibility", str, where) == "public"
    failure = entry.get("failure")
    if failure is not None and not isinstance(failure, dict):
        raise ValueError(f"{where}: field 'failure' is {type(failure).__name__}, not an object or null")
    try:
        kind = FailureKind(failure["kind"]) if failure is not None else None
    except (KeyError, ValueError):
        raise ValueError(f"{where}: field 'failure' has no known kind") from None
    try:
        outcome = Outcome(report_field(entry, "outcome", str, where))
    except ValueError:
        raise ValueError(f"{where}: field 'outcome' is not one of {', '.join(Outcome)}") from None
    message = entry.get("message")
    return CheckResult(
        id=report_field(entry, "id", str, where), name=report_field(entry, "name", str, where), public=public,
        points=float(report_field(entry, "max_score", (int, float), where)),
        score=float(report_field(entry, "score", (int, float), where)), passed=outcome is Outcome.PASSED,
        duration_s=float(report_field(entry, "duration_s", (int, float), where)), failure=kind,
        message=message if public and isinstance(message, str) else None)


def _mistakes(report: dict) -> tuple[Mistake, ...]:
    """The report's diagnosis, if it has one."""
    entries = report.get("diagnosis", [])
    if not isinstance(entries, list):
        raise ValueError(f"the report: field 'diagnosis' is {type(entries).__name__}, not a list")
    return tuple(Mistake(report_field(entry, "mistake", str, f"the report's diagnosis[{index}]"),
                         report_field(entry, "why", str, f"the report's diagnosis[{index}]"))
                 for index, entry in enumerate(entries))


def attempt_from_report(student: str, report: dict) -> Attempt:
    """The facts of one native report; a missing or mistyped field is a ValueError that names it."""
    exercise = report_field(report, "exercise", dict, "the report")
    tests = report_field(report, "tests", list, "the report")
    status = report_status(report)
    return Attempt(
        student=student, exercise=report_field(exercise, "id", str, "the report's exercise"),
        title=report_field(exercise, "title", str, "the report's exercise"), status=status,
        score=float(report_field(report, "score", (int, float), "the report")),
        max_score=float(report_field(report, "max_score", (int, float), "the report")),
        checks=tuple(_check_result(entry, f"the report's tests[{index}]") for index, entry in enumerate(tests)),
        mistakes=_mistakes(report))


class Flag(StrEnum):
    """Why a check deserves a second look."""

    EVERYONE_PASSES = "everyone_passes"  # it tells no one apart
    NOBODY_PASSES = "nobody_passes"  # too hard, or broken
    NEGATIVE = "negative_discrimination"  # the stronger students fail it more often than the weaker


class Undefined(StrEnum):
    """Why a discrimination cannot be computed: a correlation with a constant has no value."""

    CHECK_CONSTANT = "check_constant"  # every student got the same result on the check
    REST_CONSTANT = "rest_constant"  # every student has the same rest of the score


def point_biserial(passed: Sequence[bool], rest: Sequence[float]) -> float | Undefined:
    """The correlation of passing (1 or 0) with the rest of the score, or why it is undefined."""
    if len(set(passed)) < 2:
        return Undefined.CHECK_CONSTANT
    if len(set(rest)) < 2:
        return Undefined.REST_CONSTANT
    # Pearson's r of a 0/1 variable with a score is the point-biserial correlation.
    return statistics.correlation([float(value) for value in passed], [float(value) for value in rest])


@dataclass(frozen=True)
class ScoreSummary:
    """How a set of scores spreads."""

    students: int
    possible: float
    mean: float
    median: float
    lowest: float
    highest: float
    full_marks: int
    did_not_run: int


def summarize_scores(scores: Sequence[float], possible: float, did_not_run: int) -> ScoreSummary:
    """Count, mean, median, extremes and full marks of at least one score."""
    if not scores:
        raise ValueError("no scores to summarize")
    return ScoreSummary(students=len(scores), possible=possible, mean=statistics.fmean(scores),
                        median=statistics.median(scores), lowest=min(scores), highest=max(scores),
                        full_marks=sum(score >= possible for score in scores), did_not_run=did_not_run)


@dataclass(frozen=True)
class CheckAnalysis:
    """One check across the class."""

    id: str
    name: str
    public: bool
    points: float
    students: int
    passed: int
    discrimination: float | None
    undefined: Undefined | None
    flags: tuple[Flag, ...]
    failures: tuple[tuple[FailureKind, int], ...]
    """How its failures went, by kind, most common first."""
    timeouts: int
    crashes: int
    mean_duration_s: float
    max_duration_s: float

    @property
    def pass_rate(self) -> float:
        """The share of students who passed it."""
        return self.passed / self.students


def analyse_check(check_id: str, results: Sequence[tuple[CheckResult, float]]) -> CheckAnalysis:
    """One check from each student's result on it and that student's score on the whole exercise."""
    first = results[0][0]
    passed = [result.passed for result, _ in results]
    discrimination = point_biserial(passed, [total - result.score for result, total in results])
    kinds = Counter(result.failure for result, _ in results if not result.passed and result.failure is not None)
    count = sum(passed)
    flags = [flag for flag, holds in ((Flag.EVERYONE_PASSES, count == len(passed)), (Flag.NOBODY_PASSES, count == 0),
                                      (Flag.NEGATIVE, isinstance(discrimination, float) and discrimination < 0))
             if holds]
    durations = [result.duration_s for result, _ in results]
    return CheckAnalysis(
        id=check_id, name=first.name, public=first.public, points=max(result.points for result, _ in results),
        students=len(results), passed=count,
        discrimination=None if isinstance(discrimination, Undefined) else discrimination,
        undefined=discrimination if isinstance(discrimination, Undefined) else None, flags=tuple(flags),
        failures=tuple(sorted(kinds.items(), key=lambda item: (-item[1], item[0]))),
        timeouts=kinds[FailureKind.TIMEOUT], crashes=sum(kinds[kind] for kind in CRASH_KINDS),
        mean_duration_s=statistics.fmean(durations), max_duration_s=max(durations))


@dataclass(frozen=True)
class MessageGroup:
    """One failure message of public checks: the students who got it, and the checks that gave it."""

    message: str
    students: int
    checks: tuple[str, ...]
    times: int
    """How many failed checks said it, over all students."""


def group_messages(attempts: Iterable[Attempt], limit: int) -> tuple[MessageGroup, ...]:
    """The most common failure messages of public checks, each by its first line; import failures are left out."""
    students: dict[str, set[str]] = {}
    checks: dict[str, dict[str, None]] = {}
    times: Counter[str] = Counter()
    for attempt in attempts:
        for result in attempt.checks:
            if result.passed or not result.public or not result.message or result.failure is FailureKind.IMPORT:
                continue  # an import failure repeats one message on every check: "did not run" counts it once
            message = result.message.strip().splitlines()[0][:MESSAGE_CHARS]
            students.setdefault(message, set()).add(attempt.student)
            checks.setdefault(message, {})[result.name] = None
            times[message] += 1
    ranked = sorted(students, key=lambda message: (-len(students[message]), -times[message], message))
    return tuple(MessageGroup(message, len(students[message]), tuple(checks[message]), times[message])
                 for message in ranked[:limit])


@dataclass(frozen=True)
class Misconception:
    """A known mistake and the students whose answers match it."""

    name: str
    why: str
    students: tuple[str, ...]


def count_misconceptions(attempts: Iterable[Attempt]) -> tuple[Misconception, ...]:
    """Each known mistake some report names, with its students: most common first, then by name."""
    students: dict[str, list[str]] = {}
    whys: dict[str, str] = {}
    for attempt in attempts:
        for mistake in attempt.mistakes:
            students.setdefault(mistake.name, []).append(attempt.student)
            whys[mistake.name] = mistake.why
    ranked = sorted(students, key=lambda name: (-len(set(students[name])), name))
    return tuple(Misconception(name, whys[name], tuple(sorted(set(students[name])))) for name in ranked)


@dataclass(frozen=True)
class ExerciseAnalysis:
    """One exercise across the class."""

    id: str
    title: str
    summary: ScoreSummary
    scores: tuple[float, ...]
    checks: tuple[CheckAnalysis, ...]
    messages: tuple[MessageGroup, ...]
    failures: tuple[tuple[FailureKind, int], ...]
    """Every failed check of every student, by kind, most common first."""
    misconceptions: tuple[Misconception, ...] = ()
    """The known mistakes the students' answers match, most common first."""

    @property
    def timeouts(self) -> int:
        """Failed checks that ran out of time."""
        return sum(check.timeouts for check in self.checks)

    @property
    def crashes(self) -> int:
        """Failed checks whose worker died."""
        return sum(check.crashes for check in self.checks)

    def slowest(self, count: int) -> tuple[CheckAnalysis, ...]:
        """The checks that took longest on average."""
        return tuple(sorted(self.checks, key=lambda check: -check.mean_duration_s)[:count])


def analyse_exercise(attempts: Sequence[Attempt], messages: int = 10) -> ExerciseAnalysis:
    """One exercise from every student's attempt at it (at least one)."""
    if not attempts:
        raise ValueError("no attempts to analyse")
    # Checks in report order; a check only some reports have (another kit version) comes after the rest.
    ordered: dict[str, list[tuple[CheckResult, float]]] = {}
    for attempt in sorted(attempts, key=lambda attempt: -len(attempt.checks)):
        for result in attempt.checks:
            ordered.setdefault(result.id, []).append((result, attempt.score))
    checks = tuple(analyse_check(check_id, results) for check_id, results in ordered.items())
    kinds: Counter[FailureKind] = Counter()
    for check in checks:
        kinds.update(dict(check.failures))
    scores = tuple(attempt.score for attempt in attempts)
    possible = max(attempt.max_score for attempt in attempts)
    did_not_run = sum(attempt.status is Status.ERROR for attempt in attempts)
    return ExerciseAnalysis(
        id=attempts[0].exercise, title=attempts[0].title, summary=summarize_scores(scores, possible, did_not_run),
        scores=scores, checks=checks, messages=group_messages(attempts, messages),
        failures=tuple(sorted(kinds.items(), key=lambda item: (-item[1], item[0]))),
        misconceptions=count_misconceptions(attempts))


@dataclass(frozen=True)
class StudentRow:
    """One student's scores, by exercise id, and their total."""

    student: str
    scores: dict[str, float]
    statuses: dict[str, Status]
    total: float


@dataclass(frozen=True)
class ClassAnalysis:
    """The whole class: each exercise, the totals and each student."""

    exercises: tuple[ExerciseAnalysis, ...]
    totals: ScoreSummary
    students: tuple[StudentRow, ...]


def analyse_class(attempts: Iterable[Attempt]) -> ClassAnalysis:
    """Every exercise, in id order, and every student, by name, from all the attempts (at least one)."""
    by_exercise: dict[str, list[Attempt]] = {}
    by_student: dict[str, dict[str, Attempt]] = {}
    for attempt in attempts:
        by_exercise.setdefault(attempt.exercise, []).append(attempt)
        by_student.setdefault(attempt.student, {})[attempt.exercise] = attempt
    if not by_exercise:
        raise ValueError("no attempts to analyse")
    exercises = tuple(analyse_exercise(by_exercise[exercise_id]) for exercise_id in sorted(by_exercise))
    students = tuple(
        StudentRow(student, {exercise: attempt.score for exercise, attempt in sorted(own.items())},
                   {exercise: attempt.status for exercise, attempt in own.items()},
                   sum(attempt.score for attempt in own.values()))
        for student, own in sorted(by_student.items()))
    possible = sum(exercise.summary.possible for exercise in exercises)
    did_not_run = sum(any(status is Status.ERROR for status in row.statuses.values()) for row in students)
    return ClassAnalysis(exercises, summarize_scores([row.total for row in students], possible, did_not_run), students)
