"""Similar submissions: every pair of a class's modules for an exercise, compared by copydetect.

copydetect (https://github.com/blingenf/copydetect) reads each module as text, tokenises it with
pygments, puts a placeholder for every name (so a renamed variable changes nothing), drops comments
and whitespace, and fingerprints every run of NOISE_TOKENS tokens; two modules are as similar as
the share of each one's tokens that lie inside fingerprints the other has too. Nothing is run and
nothing leaves the machine. What the exercise's stub already holds is left out (copydetect's
boilerplate): every student starts from it, so it says nothing about copying.

`compare_class` gives every pair's figures (similar.csv holds them all); `write_similarity` also
keeps what the class page shows, the flagged pairs with their code, in similarity.json, so that
`grade batch report` can draw the page again without the submissions.
"""

from __future__ import annotations

import io
import json
import math
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from grader.catalog import Exercise, KitError
from grader.classroom.folder import ClassFolder
from grader.classroom.spreadsheet import SafeWriter
from grader.submission import SubmissionProblem, prepare_submission
from grader.text import truncate, write_text_atomically

if TYPE_CHECKING:
    from grader.classroom.batch import Student  # a type only: the page's code need not load the grading

# The default share of a student's code found in another's above which the pair is flagged. Measured
# on the kit's own solutions (copydetect 0.5, NOISE_TOKENS 25, each exercise's stub as boilerplate):
# independently written solutions of one exercise share at most 0.35 of either one's code (ex05's
# reference and alt/cached_alpha_beta; ex04's three share at most 0.07), while the reference beside
# a copy with every name it defines renamed and every comment and space changed shares all of it
# (1.0), and 0.93 to 0.97 both ways with even the imported modules renamed (ex03 to ex06). 0.7 sits
# twice the widest independent overlap above it, and still flags a copy a quarter of which was rewritten.
DEFAULT_THRESHOLD = 0.7
# copydetect's noise threshold, its own default: a shared run shorter than this many tokens (after
# names became placeholders and spaces went, about a line of code) is not counted. The guarantee
# threshold is the same, so every run is fingerprinted (winnowing window 1): the figures then do not
# depend on which hashes Python's per-process salt makes the smallest, and are the same every run.
NOISE_TOKENS = 25
# A pair is flagged only if it shares at least this many tokens: two students who made the same small
# start on the stub (ex04's `if not isinstance(node, list): return node`, 79 tokens) share all of what
# either added, which is no sign of copying; the smallest solution in the kit adds about 400 tokens
# to its stub (ex03's alt/recheck_every_level), so a copy of a quarter of one is still caught.
MIN_SHARED_TOKENS = 100
# A module longer than this is not compared: the biggest solution in the kit is 12 KB, and
# tokenising megabytes (a submission may be 16 MiB) would hold the whole batch up. The page names it.
MAX_MODULE_CHARS = 256 * 1024
# The page shows the code of at most this many flagged pairs per exercise, the most similar first:
# each view holds two whole modules. similar.csv and the page's list still hold every flagged pair.
SIDE_BY_SIDE_PAIRS = 40

RECORD_VERSION = 1
SIMILAR_COLUMNS = ["student_a", "student_b", "exercise", "a_in_b", "b_in_a", "shared_tokens", "flagged"]


class LeftOut(StrEnum):
    """Why a student's module was not compared with the others (they are never flagged)."""

    UNUSABLE = "unusable"
    """No module could be found or read in what they handed in."""
    STUB = "stub"
    """Nothing of its own to compare: every run of NOISE_TOKENS tokens in it is in the stub too (comments and
    names aside), or it is shorter than one run."""
    TOO_LARGE = "too_large"
    """Longer than MAX_MODULE_CHARS."""


@dataclass(frozen=True)
class SimilarPair:
    """Two students' modules for one exercise, side by side: how much of each lies in the other."""

    exercise: str
    first: str
    second: str
    first_in_second: float
    """The share of the first module's tokens (past the stub) that lie in code the second has too."""
    second_in_first: float
    shared_tokens: int
    """copydetect's count of overlapping tokens (counted in the first module)."""
    flagged: bool
    first_spans: tuple[tuple[int, int], ...] = ()
    """Where the shared code lies in the first module's text, as (start, end) offsets; kept for flagged pairs."""
    second_spans: tuple[tuple[int, int], ...] = ()

    @property
    def similarity(self) -> float:
        """The larger share: a copy padded with code of its own still shows in full on the copied side."""
        return max(self.first_in_second, self.second_in_first)


def _order(pair: SimilarPair) -> tuple:
    """Most similar first, then the most shared tokens, then by name, so the order is always the same."""
    return (-pair.similarity, -min(pair.first_in_second, pair.second_in_first), -pair.shared_tokens,
            pair.exercise, pair.first, pair.second)


@dataclass(frozen=True)
class SimilaritySection:
    """What the class page shows of one exercise's comparison; similarity.json keeps it for `grade batch report`."""

    exercise: str
    threshold: float
    min_shared_tokens: int
    compared: int
    """How many students' modules were compared."""
    pairs_compared: int
    left_out: tuple[tuple[str, LeftOut], ...]
    flagged: tuple[SimilarPair, ...]
    """Every flagged pair, most similar first."""
    code: tuple[tuple[str, str], ...]
    """(student, module text) of each student in the first SIDE_BY_SIDE_PAIRS flagged pairs."""

    def code_of(self, student: str) -> str | None:
        """A student's module as compared, when the page shows it."""
        return dict(self.code).get(student)


@dataclass(frozen=True)
class ExerciseSimilarity:
    """One exercise compared across the class: every pair of the students compared, and who was left out."""

    exercise: str
    threshold: float
    students: tuple[str, ...]
    """Every student of the class, in order."""
    left_out: tuple[tuple[str, LeftOut], ...]
    pairs: tuple[SimilarPair, ...]
    """Every pair of compared students, most similar first."""
    texts: dict[str, str] = field(repr=False, compare=False)
    """Each compared student's module text."""

    @property
    def flagged(self) -> tuple[SimilarPair, ...]:
        """The pairs at or above the threshold, most similar first."""
        return tuple(pair for pair in self.pairs if pair.flagged)

    def section(self) -> SimilaritySection:
        """What the page shows: the flagged pairs, and the code of those it shows side by side."""
        shown = {name for pair in self.flagged[:SIDE_BY_SIDE_PAIRS] for name in (pair.first, pair.second)}
        return SimilaritySection(exercise=self.exercise, threshold=self.threshold, min_shared_tokens=MIN_SHARED_TOKENS,
                                 compared=len(self.students) - len(self.left_out), pairs_compared=len(self.pairs),
                                 left_out=self.left_out, flagged=self.flagged,
                                 code=tuple((name, self.texts[name]) for name in self.students if name in shown))


def check_threshold(threshold: float) -> float:
    """The threshold if it is a share in (0, 1]; anything else is a one-line KitError."""
    number = isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
    if not (number and math.isfinite(threshold) and 0 < threshold <= 1):
        raise KitError(f"similarity threshold: expected a fraction in (0, 1], such as {DEFAULT_THRESHOLD}, "
                       f"got {threshold!r}")
    return float(threshold)


def module_text(path: Path, module: str) -> str | None:
    """The module a submission (file, folder, zip or notebook) holds, laid out as a grade would, or None."""
    with tempfile.TemporaryDirectory(prefix="minimax-kit-similarity-") as scratch:
        target = Path(scratch) / "submission"
        try:
            prepare_submission(path, module, target)
        except SubmissionProblem:
            return None
        return (target / module).read_text(encoding="utf-8")


def _fingerprint(text: str, module: str, boilerplate: frozenset[int]):
    """copydetect's fingerprint of a module, with every fingerprint the stub also has taken out."""
    from copydetect import CodeFingerprint
    from copydetect.utils import get_token_coverage

    fingerprint = CodeFingerprint(module, NOISE_TOKENS, 1, fp=io.StringIO(text), language="python")
    # The stub's fingerprints are taken out here rather than by CodeFingerprint's boilerplate argument:
    # copydetect 0.5 removes them with numpy's intersect1d(assume_unique=True) from a list that holds a
    # fingerprint once per occurrence, which also drops occurrences of repeated code that the stub
    # never had. The coverage is then counted again, as copydetect counts it, over what is left.
    fingerprint.hashes = fingerprint.hashes - boilerplate
    fingerprint.hash_idx = {key: where for key, where in fingerprint.hash_idx.items() if key not in boilerplate}
    fingerprint.token_coverage = get_token_coverage(fingerprint.hash_idx, NOISE_TOKENS, len(fingerprint.filtered_code))
    return fingerprint


def _spans(slices, length: int) -> tuple[tuple[int, int], ...]:
    """copydetect's slices (starts, ends) as ordered (start, end) offsets within the text."""
    if len(slices) == 0 or len(slices[0]) == 0:
        return ()
    spans = []
    for start, end in zip(slices[0], slices[1]):
        start, end = max(0, min(int(start), length)), max(0, min(int(end), length))
        if start < end:
            spans.append((start, end))
    return tuple(sorted(spans))


def compare_exercise(exercise: Exercise, students: list[Student], threshold: float = DEFAULT_THRESHOLD,
                     known: Mapping[tuple[str, str], str | None] | None = None) -> ExerciseSimilarity:
    """Compare every pair of students' modules for one exercise, the stub left out.

    `known` holds modules already laid out (by the batch's grades), by (student, exercise id); any
    other student's submission is laid out here.
    """
    from copydetect import CodeFingerprint, compare_files

    threshold = check_threshold(threshold)
    stub = exercise.stub_path.read_text(encoding="utf-8") if exercise.stub_path.is_file() else ""
    boilerplate = frozenset(CodeFingerprint(exercise.module, NOISE_TOKENS, 1, fp=io.StringIO(stub),
                                            language="python").hashes)
    left_out: list[tuple[str, LeftOut]] = []
    texts, prints = {}, {}
    for student in students:
        if known is not None and (student.name, exercise.id) in known:
            text = known[student.name, exercise.id]
        elif student.problem is not None:
            text = None
        else:
            text = module_text(student.path, exercise.module)
        if text is None:
            left_out.append((student.name, LeftOut.UNUSABLE))
        elif len(text) > MAX_MODULE_CHARS:
            left_out.append((student.name, LeftOut.TOO_LARGE))
        else:
            fingerprint = _fingerprint(text, exercise.module, boilerplate)
            if fingerprint.token_coverage == 0:  # every run of its code is in the stub, or it has no run at all
                left_out.append((student.name, LeftOut.STUB))
            else:
                texts[student.name], prints[student.name] = text, fingerprint
    pairs = []
    for first, second in combinations(prints, 2):
        shared, (first_in_second, second_in_first), (first_slices, second_slices) = compare_files(
            prints[first], prints[second])
        pair = SimilarPair(exercise.id, first, second, float(first_in_second), float(second_in_first), int(shared),
                           flagged=False)
        if pair.similarity >= threshold and pair.shared_tokens >= MIN_SHARED_TOKENS:
            pair = replace(pair, flagged=True, first_spans=_spans(first_slices, len(texts[first])),
                           second_spans=_spans(second_slices, len(texts[second])))
        pairs.append(pair)
    return ExerciseSimilarity(exercise.id, threshold, tuple(student.name for student in students), tuple(left_out),
                              tuple(sorted(pairs, key=_order)), texts)


def compare_class(exercises: list[Exercise], students: list[Student], threshold: float = DEFAULT_THRESHOLD,
                  advance: Callable[[], None] = lambda: None,
                  known: Mapping[tuple[str, str], str | None] | None = None) -> list[ExerciseSimilarity]:
    """Compare every exercise's submissions across the class, one exercise at a time (`known`: compare_exercise)."""
    check_threshold(threshold)
    results = []
    for exercise in exercises:
        results.append(compare_exercise(exercise, students, threshold, known))
        advance()
    return results


def similar_rows(results: list[ExerciseSimilarity]) -> list[list[str]]:
    """similar.csv's rows: every pair of students on every exercise, most similar first; a pair with a
    student who was left out has no figures and is never flagged, and comes last."""
    compared = sorted((pair for result in results for pair in result.pairs), key=_order)
    rows = [[pair.first, pair.second, pair.exercise, f"{pair.first_in_second:.4f}", f"{pair.second_in_first:.4f}",
             str(pair.shared_tokens), "yes" if pair.flagged else "no"] for pair in compared]
    for result in results:
        out = {name for name, _ in result.left_out}
        rows += [[first, second, result.exercise, "", "", "", "no"]
                 for first, second in combinations(result.students, 2) if first in out or second in out]
    return rows


def _pair_record(pair: SimilarPair) -> dict:
    """A flagged pair as similarity.json holds it."""
    return {"first": pair.first, "second": pair.second, "first_in_second": pair.first_in_second,
            "second_in_first": pair.second_in_first, "shared_tokens": pair.shared_tokens,
            "first_spans": [list(span) for span in pair.first_spans],
            "second_spans": [list(span) for span in pair.second_spans]}


def section_record(section: SimilaritySection) -> dict:
    """A section as similarity.json holds it."""
    return {"exercise": section.exercise, "threshold": section.threshold,
            "min_shared_tokens": section.min_shared_tokens, "compared": section.compared,
            "pairs_compared": section.pairs_compared,
            "left_out": [{"student": name, "why": str(why)} for name, why in section.left_out],
            "flagged": [_pair_record(pair) for pair in section.flagged], "code": dict(section.code)}


def write_similarity(results: list[ExerciseSimilarity], out: Path) -> None:
    """OUT/similar.csv (every pair's figures) and OUT/similarity.json (what the class page shows)."""
    folder = ClassFolder(out)
    rows = similar_rows(results)
    record = json.dumps({"format_version": RECORD_VERSION,
                         "exercises": [section_record(result.section()) for result in results]}, indent=1) + "\n"
    out.mkdir(parents=True, exist_ok=True)

    table = io.StringIO()
    writer = SafeWriter(table)
    writer.writerow(SIMILAR_COLUMNS)
    writer.writerows(rows)
    write_text_atomically(folder.similar_table, table.getvalue())
    write_text_atomically(folder.similarity_record, record)


def forget_similarity(out: Path) -> None:
    """Remove a previous run's similar.csv and similarity.json: a run that compared nothing leaves none behind."""
    folder = ClassFolder(out)
    for path in (folder.similar_table, folder.similarity_record):
        path.unlink(missing_ok=True)


class _Malformed(Exception):
    """A part of similarity.json that is not what `write_similarity` writes."""


def _field(data: dict, name: str, *kinds: type):
    """`data[name]` if it is one of `kinds` (never a bool: no field is one); else _Malformed."""
    value = data.get(name) if isinstance(data, dict) else None
    if not isinstance(value, kinds) or isinstance(value, bool):
        words = " or ".join(kind.__name__ for kind in kinds)
        raise _Malformed(truncate(f"field {name!r} must be {words}, got {value!r}", 200))
    return value


def _read_spans(value, text_length: int | None) -> tuple[tuple[int, int], ...]:
    """A pair's spans read back: [start, end] offsets that lie within the module's text, where it is kept."""
    if not isinstance(value, list) or not all(
            isinstance(span, list) and len(span) == 2 and all(isinstance(n, int) and not isinstance(n, bool)
                                                              for n in span) and 0 <= span[0] < span[1]
            for span in value):
        raise _Malformed("spans must be [start, end] pairs of offsets")
    spans = tuple(sorted((start, end) for start, end in value))
    if text_length is not None and spans and spans[-1][1] > text_length:
        raise _Malformed("a span runs past the end of its module")
    return spans


def _read_section(data: dict) -> SimilaritySection:
    """One exercise's section of similarity.json, every field checked."""
    exercise = _field(data, "exercise", str)
    code = _field(data, "code", dict)
    if not all(isinstance(text, str) for text in code.values()):
        raise _Malformed("field 'code' must map students to their module's text")
    left_out = []
    for entry in _field(data, "left_out", list):
        try:
            left_out.append((_field(entry, "student", str), LeftOut(_field(entry, "why", str))))
        except ValueError:
            raise _Malformed(f"unknown reason {entry.get('why')!r} for leaving a student out") from None
    flagged = []
    for entry in _field(data, "flagged", list):
        first, second = _field(entry, "first", str), _field(entry, "second", str)
        flagged.append(SimilarPair(
            exercise, first, second, float(_field(entry, "first_in_second", int, float)),
            float(_field(entry, "second_in_first", int, float)), _field(entry, "shared_tokens", int), True,
            _read_spans(entry.get("first_spans"), len(code[first]) if first in code else None),
            _read_spans(entry.get("second_spans"), len(code[second]) if second in code else None)))
    return SimilaritySection(exercise=exercise, threshold=float(_field(data, "threshold", int, float)),
                             min_shared_tokens=_field(data, "min_shared_tokens", int),
                             compared=_field(data, "compared", int), pairs_compared=_field(data, "pairs_compared", int),
                             left_out=tuple(left_out), flagged=tuple(flagged), code=tuple(code.items()))


def read_similarity(out: Path) -> dict[str, SimilaritySection]:
    """similarity.json's sections, by exercise id: none if it is absent; a malformed one is a KitError."""
    path = ClassFolder(out).similarity_record
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise KitError(f"{path}: unreadable: {exc}") from None
    try:
        if _field(data, "format_version", int) != RECORD_VERSION:
            raise _Malformed(f"format_version {data['format_version']}, not {RECORD_VERSION}")
        sections = [_read_section(entry) for entry in _field(data, "exercises", list)]
    except _Malformed as exc:
        raise KitError(f"{path}: not a similarity record of grade batch: {exc}") from None
    return {section.exercise: section for section in sections}
