"""Similar submissions: a class's modules for an exercise, compared pair by pair with copydetect's figures.

copydetect (https://github.com/blingenf/copydetect) reads each module as text, tokenises it with
pygments, puts a placeholder for every name (so a renamed variable changes nothing), drops comments
and whitespace, and fingerprints every run of NOISE_TOKENS tokens; two modules are as similar as
the share of each one's tokens that lie inside fingerprints the other has too. Nothing is run and
nothing leaves the machine. What the exercise's stub already holds is left out (copydetect's
boilerplate): every student starts from it, so it says nothing about copying.

A pair with no fingerprint in common shares nothing beyond the stub: copydetect's figures for it
are all zero, and it can never be flagged. So pairs are not compared one by one: an index from
each fingerprint to the students who hold it (as MOSS and Dolos keep) gives, for each student, the
stretches of their code that each classmate holds too, and from those copydetect's own arithmetic
(how many tokens the shared stretches cover, over how many the module has) gives each pair's
figures, for every pair that shares anything and no other. The work grows with the code the class
shares, not with the square of the class. `compare_every_pair` is the plain all-pairs comparison
that the index must match figure for figure; tests/classroom/test_similarity.py and
`bench/similarity.py --check` hold it to that.

The pygments pass is most of the cost, one module at a time, so it runs in processes (`jobs` of
them) for a large class. A shard of a class (`grade batch --shard`) compares its own students and
keeps their tokenised modules (OUT/compared-modules/), and `grade batch merge` compares the whole
class from those without tokenising anything again: the shards' work adds up to one machine's, and
the merged similar.csv is the one a single batch writes.

`compare_class` gives every exercise's pairs that share code (similar.csv holds them all);
`write_similarity` also keeps what the class page shows, the flagged pairs with their code, in
similarity.json, so that `grade batch report` can draw the page again without the submissions.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from itertools import chain, combinations
from pathlib import Path
from typing import TYPE_CHECKING

from grader.catalog import Exercise, KitError
from grader.classroom.folder import ClassFolder
from grader.classroom.spreadsheet import safe_cell
from grader.submission import SubmissionProblem, prepare_submission
from grader.text import truncate, write_bytes_atomically, write_parts_atomically, write_text_atomically

if TYPE_CHECKING:
    import numpy as np

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
# each view holds two whole modules. The page's list goes on past them, without code.
SIDE_BY_SIDE_PAIRS = 40
# The page (and similarity.json, which it is drawn from) lists at most this many flagged pairs per
# exercise, the most similar first, and says how many more there are. A class handing in a few
# programs in disguise flags nearly every pair, a million or more at 2,000 students: listed in full,
# the page and the record run to hundreds of megabytes and gigabytes of memory, and no one reads the
# millionth pair. similar.csv holds every pair that shares code, with its flag.
LISTED_PAIRS = 1000
# Below this many modules to read, one process reads and tokenises them all: starting processes
# costs more than it saves on a small class. Above it, each process takes a batch of CHUNK_MODULES.
PROCESSES_FROM = 64
CHUNK_MODULES = 16

RECORD_VERSION = 1
SIMILAR_COLUMNS = ["student_a", "student_b", "exercise", "a_in_b", "b_in_a", "shared_tokens", "flagged"]
# What a shard keeps of its students' modules for `grade batch merge`, one file per exercise.
MODULES_VERSION = 1


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
    """Where the shared code lies in the first module's text, as (start, end) offsets; kept for the flagged pairs
    whose two modules the page shows (see ExerciseSimilarity.section)."""
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
    """The first LISTED_PAIRS flagged pairs, most similar first."""
    code: tuple[tuple[str, str], ...]
    """(student, module text) of each student in the first SIDE_BY_SIDE_PAIRS flagged pairs."""
    flagged_count: int
    """How many pairs are flagged in all, listed or not."""

    def code_of(self, student: str) -> str | None:
        """A student's module as compared, when the page shows it."""
        return dict(self.code).get(student)


@dataclass(frozen=True, eq=False)
class PairTable:
    """Every pair of an exercise's compared students that shares code beyond the stub, most similar first, as
    columns: `first` and `second` index `ExerciseSimilarity.compared` (the first comes earlier in the class)."""

    first: np.ndarray
    second: np.ndarray
    first_in_second: np.ndarray
    second_in_first: np.ndarray
    shared_tokens: np.ndarray
    flagged: np.ndarray

    def __len__(self) -> int:
        return len(self.first)


@dataclass(frozen=True)
class ExerciseSimilarity:
    """One exercise compared across the class: the pairs that share code beyond the stub, and who was left out."""

    exercise: str
    threshold: float
    students: tuple[str, ...]
    """Every student of the class, in order."""
    left_out: tuple[tuple[str, LeftOut], ...]
    compared: tuple[str, ...]
    """The students compared (every student not left out), in the class's order."""
    table: PairTable = field(repr=False, compare=False)
    flagged: tuple[SimilarPair, ...]
    """The first LISTED_PAIRS of the pairs at or above the threshold, most similar first, with where the shared code
    lies (see SimilaritySection.code); `flagged_count` counts them all."""
    texts: dict[str, str] = field(repr=False, compare=False)
    """The module text of each student whose code the page shows: those in the first SIDE_BY_SIDE_PAIRS flagged
    pairs."""

    @property
    def pairs_compared(self) -> int:
        """Every pair of compared students: those that share no code beyond the stub were compared by the index."""
        return len(self.compared) * (len(self.compared) - 1) // 2

    @property
    def flagged_count(self) -> int:
        """How many pairs are at or above the threshold, listed in `flagged` or not."""
        return int(self.table.flagged.sum())

    @cached_property
    def pairs(self) -> tuple[SimilarPair, ...]:
        """Every pair that shares code beyond the stub, most similar first (the others' figures are all zero)."""
        spans = {(pair.first, pair.second): pair for pair in self.flagged}
        table, names = self.table, self.compared
        pairs = []
        for first, second, first_in_second, second_in_first, shared, flagged in zip(
                table.first.tolist(), table.second.tolist(), table.first_in_second.tolist(),
                table.second_in_first.tolist(), table.shared_tokens.tolist(), table.flagged.tolist()):
            key = (names[first], names[second])
            # A flagged pair past the listed ones has no spans: its code is not shown.
            pairs.append(spans.get(key) or SimilarPair(self.exercise, *key, first_in_second, second_in_first, shared,
                                                       flagged))
        return tuple(pairs)

    def section(self) -> SimilaritySection:
        """What the page shows: the flagged pairs, and the code of those it shows side by side."""
        shown = {name for pair in self.flagged[:SIDE_BY_SIDE_PAIRS] for name in (pair.first, pair.second)}
        return SimilaritySection(exercise=self.exercise, threshold=self.threshold, min_shared_tokens=MIN_SHARED_TOKENS,
                                 compared=len(self.compared), pairs_compared=self.pairs_compared,
                                 left_out=self.left_out, flagged=self.flagged,
                                 code=tuple((name, self.texts[name]) for name in self.students if name in shown),
                                 flagged_count=self.flagged_count)


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


# --- Reading and tokenising: copydetect's filter, a module at a time -----------------------------------------------


@dataclass(frozen=True, eq=False)
class Tokens:
    """A module as copydetect reads it: its text, its filtered code and where each filtered character came from."""

    text: str
    filtered: str
    """copydetect's filtered code: a letter for each name (V, F, O) and string (S), every other token as written,
    no comments and no spaces. Its characters are what copydetect calls tokens."""
    offsets: np.ndarray
    """copydetect's offsets (an n by 2 array): how many characters of the text lie before each filtered one."""


@dataclass(frozen=True, eq=False)
class ExerciseModules:
    """Every student's module for one exercise, read and tokenised: what comparing needs, and what a shard keeps."""

    exercise: str
    stub: str
    """The stub's filtered code, whose fingerprints are nobody's own."""
    students: tuple[str, ...]
    """Every student, in the class's order."""
    modules: dict[str, Tokens | LeftOut]
    """Each student's tokens, or why there are none (the stub's fingerprints are taken out when comparing)."""


def _filter(text: str, module: str) -> tuple[str, np.ndarray]:
    """copydetect's filtered code and offsets of a Python module, as CodeFingerprint makes them."""
    from copydetect.utils import filter_code  # type: ignore[import-untyped]

    return filter_code(text, module, "python")


def _tokenise(module: str, text: str | None, path: str | None) -> Tokens | LeftOut:
    """A module's tokens: `text` as it is, or else the module the submission at `path` holds."""
    if text is None and path is not None:
        text = module_text(Path(path), module)
    if text is None:
        return LeftOut.UNUSABLE
    if len(text) > MAX_MODULE_CHARS:
        return LeftOut.TOO_LARGE
    return Tokens(text, *_filter(text, module))


def _tokenise_batch(module: str, items: list[tuple[str | None, str | None]]) -> list[Tokens | LeftOut]:
    """`_tokenise` over a batch of (text, path): one task of a process."""
    return [_tokenise(module, text, path) for text, path in items]


@contextmanager
def _processes(jobs: int | None, modules: int) -> Iterator[Executor | None]:
    """A pool of `jobs` processes (default: one per CPU) to tokenise `modules` modules, or None where one process
    does better (a small class, or one job) or none can be started.

    The processes are forked from a fresh server process (multiprocessing's forkserver), not from this
    one, which may hold threads (the progress bar's); the server loads copydetect and pygments once.
    As with any such pool, a script that compares a class this way needs the `if __name__ ==
    "__main__":` guard (grade and the bench scripts have it). The processes only tokenise text:
    every fingerprint is hashed in this process, so none depends on another's hash salt.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if jobs is None:  # one per CPU this process may use, as grading's default_jobs
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    pool = None
    if jobs > 1 and modules >= PROCESSES_FROM:
        try:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__, "copydetect.utils", "pygments.lexers.python"])
            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context)
        except (OSError, ValueError, NotImplementedError):  # no forkserver here, or no semaphores to start one with
            pool = None
    if pool is None:
        yield None
        return
    with pool:
        yield pool


def read_modules(exercise: Exercise, students: list[Student], known: Mapping[tuple[str, str], str | None] | None = None,
                 jobs: int | None = None, pool: Executor | None = None) -> ExerciseModules:
    """Every student's module for an exercise, tokenised: by `pool`'s processes, or else by `jobs` processes for a
    large class (default: one per CPU).

    `known` holds modules already laid out (by the batch's grades), by (student, exercise id); any
    other student's submission is laid out here.
    """
    from functools import partial

    entries: dict[str, Tokens | LeftOut] = {}
    items: list[tuple[str | None, str | None]] = []  # (text, or else the submission's path) of those to tokenise
    for student in students:
        if known is not None and (student.name, exercise.id) in known:
            text = known[student.name, exercise.id]
            if text is None:
                entries[student.name] = LeftOut.UNUSABLE
            elif len(text) > MAX_MODULE_CHARS:  # decided here rather than sent to a process
                entries[student.name] = LeftOut.TOO_LARGE
            else:
                items.append((text, None))
        elif student.problem is not None:
            entries[student.name] = LeftOut.UNUSABLE
        else:
            items.append((None, str(student.path)))
    with (nullcontext(pool) if pool is not None else _processes(jobs, len(items))) as workers:
        if workers is None:
            tokens = _tokenise_batch(exercise.module, items)
        else:
            batches = [items[start:start + CHUNK_MODULES] for start in range(0, len(items), CHUNK_MODULES)]
            tokens = [entry for batch in workers.map(partial(_tokenise_batch, exercise.module), batches)
                      for entry in batch]
    read = iter(tokens)
    stub = exercise.stub_path.read_text(encoding="utf-8") if exercise.stub_path.is_file() else ""
    return ExerciseModules(exercise.id, _filter(stub, exercise.module)[0], tuple(student.name for student in students),
                           {student.name: entries[student.name] if student.name in entries else next(read)
                            for student in students})


# --- Comparing: an index from each fingerprint to its holders ------------------------------------------------------


def _kgram_hashes(filtered: str) -> np.ndarray:
    """copydetect's fingerprint of every run of NOISE_TOKENS tokens, by where it starts (winnowing window 1)."""
    import numpy as np
    from copydetect.utils import hashed_kgrams  # type: ignore[import-untyped]

    return np.asarray(hashed_kgrams(filtered, NOISE_TOKENS), dtype=np.int64)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending (np.unique by a sort: numpy 2's default hashing way is far slower here)."""
    import numpy as np

    ordered = np.sort(values)
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def _among(values: np.ndarray, distinct: np.ndarray) -> np.ndarray:
    """Which of `values` are in `distinct` (ascending, each once): np.isin, without its two passes of np.unique."""
    import numpy as np

    if not len(distinct):
        return np.zeros(len(values), dtype=bool)
    where = np.searchsorted(distinct, values)
    where[where == len(distinct)] = 0
    return distinct[where] == values


def _covered(starts: np.ndarray) -> int:
    """How many tokens the runs starting at `starts` (ascending) cover: copydetect's token coverage and overlap."""
    import numpy as np

    if len(starts) == 0:
        return 0
    return int(np.minimum(np.diff(starts), NOISE_TOKENS).sum()) + NOISE_TOKENS


@dataclass(frozen=True, eq=False)
class _Print:
    """A compared module's fingerprints past the stub: where each run starts, and its hash."""

    starts: np.ndarray
    hashes: np.ndarray
    distinct: np.ndarray
    """Its hashes, each once, ascending."""
    coverage: int
    """copydetect's token coverage: the tokens its runs past the stub cover."""
    tokens: Tokens


def _fingerprint(tokens: Tokens, boilerplate: np.ndarray) -> _Print:
    """A module's fingerprints with every one the stub also has taken out, as copydetect's CodeFingerprint
    (window 1) has them once the stub's hashes are taken out of its hashes and hash_idx."""
    import numpy as np

    hashes = _kgram_hashes(tokens.filtered)
    own = ~_among(hashes, boilerplate)
    starts = np.flatnonzero(own)
    return _Print(starts, hashes[own], _distinct(hashes[own]), _covered(starts), tokens)


def _holder_weights(students: int) -> np.ndarray:
    """A random number for each student (always the same ones): their sum over a fingerprint's holders tells
    fingerprints with other holders apart but for a chance of one in 2**64, and _holder_sets catches that chance."""
    import numpy as np

    return np.random.default_rng(0).integers(1, 2**63, size=students, dtype=np.uint64)


def _holder_sets(gid: np.ndarray, owner: np.ndarray, students: int) -> tuple[np.ndarray, ...]:
    """The index: for each distinct fingerprint held by two students or more, its holders, with fingerprints that
    have the very same holders sharing one entry. Returns (entry of each fingerprint, -1 if held by one student;
    each entry's first holder in `holders`; each entry's count of holders; holders)."""
    import numpy as np

    fingerprints = int(gid.max()) + 1
    held = _distinct(gid * students + owner)  # (fingerprint, holder) once each, by fingerprint then holder
    held_gid, held_by = held // students, held % students
    count = np.bincount(held_gid, minlength=fingerprints)
    start = np.concatenate(([0], np.cumsum(count)[:-1]))
    shared = np.flatnonzero(count > 1)
    # Fingerprints with the same holders get one entry: a stretch of code that the same classmates share is then
    # one segment however long it is. A sum of random numbers, one per holder, finds candidates; each is then
    # checked holder by holder against its group's first, so the grouping is exact.
    weights = _holder_weights(students)
    signature = np.add.reduceat(weights[held_by], start)[shared]  # every fingerprint has a holder: starts ascend
    order = np.lexsort((signature, count[shared]))
    ranked = shared[order]
    new = np.ones(len(ranked), dtype=bool)
    new[1:] = (np.diff(count[ranked]) != 0) | (signature[order][1:] != signature[order][:-1])
    group = np.cumsum(new) - 1
    first_of_group = ranked[new]
    representative = np.full(fingerprints, -1, dtype=np.int64)
    representative[ranked] = first_of_group[group]
    entry = np.full(fingerprints, -1, dtype=np.int64)
    entry[ranked] = group
    within = np.arange(len(held)) - start[held_gid]
    rep = representative[held_gid]
    checked = rep >= 0
    mismatch = _distinct(held_gid[checked][held_by[checked] != held_by[start[rep[checked]] + within[checked]]])
    groups = len(first_of_group)
    if len(mismatch):  # a sum matched but the holders differ: each such fingerprint gets an entry of its own
        entry[mismatch] = groups + np.arange(len(mismatch))
        first_of_group = np.concatenate((first_of_group, mismatch))
    holders_count = count[first_of_group]
    holders_start = np.concatenate(([0], np.cumsum(holders_count)[:-1]))
    take = np.repeat(start[first_of_group] - holders_start, holders_count) + np.arange(int(holders_count.sum()))
    small = np.int16 if students <= np.iinfo(np.int16).max else np.int32  # a 16-bit key sorts by radix
    return entry, holders_start, holders_count, held_by[take].astype(small)


def _overlaps(prints: list[_Print]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of modules that shares a fingerprint, as (first, second, first's overlap, second's overlap) with
    first < second: each overlap is copydetect's, the tokens covered by that module's runs whose fingerprint the
    other holds too. A pair that shares none has overlaps of 0 and is not among them."""
    import numpy as np

    students = len(prints)
    empty = np.zeros(0, dtype=np.int64)
    sizes = [len(fingerprint.hashes) for fingerprint in prints]
    if students < 2 or not sum(sizes):
        return empty, empty, empty, empty
    every = np.concatenate([fingerprint.hashes for fingerprint in prints])
    order = np.argsort(every, kind="stable")
    new = np.ones(len(every), dtype=bool)
    new[1:] = every[order][1:] != every[order][:-1]
    gid = np.empty(len(every), dtype=np.int64)
    gid[order] = np.cumsum(new) - 1  # each distinct fingerprint's number, by hash
    owner = np.repeat(np.arange(students, dtype=np.int64), sizes)
    entry, holders_start, holders_count, holders = _holder_sets(gid, owner, students)
    rows, columns, values = [], [], []
    offset = 0
    for student, fingerprint in enumerate(prints):
        entries = entry[gid[offset:offset + sizes[student]]]
        offset += sizes[student]
        shared = entries >= 0
        starts, entries = fingerprint.starts[shared], entries[shared]
        if not len(starts):
            continue
        # Segments: consecutive runs that the same classmates hold.
        new = np.ones(len(starts), dtype=bool)
        new[1:] = (np.diff(starts) != 1) | (entries[1:] != entries[:-1])
        first = np.flatnonzero(new)
        segment_start, segment_end = starts[first], starts[np.append(first[1:] - 1, len(starts) - 1)]
        count = holders_count[entries[first]]
        total = int(count.sum())
        # Each (segment, classmate who holds it), the classmates' own segments in order once sorted by classmate.
        other = holders[np.repeat(holders_start[entries[first]] - (np.cumsum(count) - count), count)
                        + np.arange(total)]
        segment = np.repeat(np.arange(len(first), dtype=np.int32), count)
        keep = other != student
        other, segment = other[keep], segment[keep]
        order = np.argsort(other, kind="stable")
        other, segment = other[order], segment[order]
        # Tokens covered: a segment's runs cover its length and then up to the next segment's start, at most a run.
        gap = np.full(len(other), NOISE_TOKENS, dtype=np.int64)
        gap[:-1] = segment_start[segment[1:]] - segment_end[segment[:-1]]
        gap[:-1][other[1:] != other[:-1]] = NOISE_TOKENS
        covered = np.bincount(other, weights=(segment_end - segment_start)[segment] + np.minimum(gap, NOISE_TOKENS),
                              minlength=students)
        holders_of = np.flatnonzero(covered)
        rows.append(np.full(len(holders_of), student, dtype=np.int64))
        columns.append(holders_of)
        values.append(covered[holders_of].astype(np.int64))
    if not rows:
        return empty, empty, empty, empty
    row, column, value = np.concatenate(rows), np.concatenate(columns), np.concatenate(values)
    upper = row < column  # (first, second, first's overlap), by first then second
    lower = np.lexsort((row[~upper], column[~upper]))  # the second's overlaps, in the same order of pairs
    return row[upper], column[upper], value[upper], value[~upper][lower]


def _slices(mine: _Print, theirs: _Print) -> np.ndarray:
    """compare_files's slices of one module's text that lie in code the other has too (starts, then ends)."""
    import numpy as np
    from copydetect.utils import get_copied_slices  # type: ignore[import-untyped]

    slices = get_copied_slices(mine.starts[_among(mine.hashes, theirs.distinct)], NOISE_TOKENS)
    offsets = mine.tokens.offsets
    if len(slices[0]) and len(offsets) > 0:
        slices += offsets[:, 1][np.clip(np.searchsorted(offsets[:, 0], slices), 0, offsets.shape[0] - 1)]
    return slices


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


def compare_modules(modules: ExerciseModules, threshold: float = DEFAULT_THRESHOLD) -> ExerciseSimilarity:
    """Compare the tokenised modules of one exercise, the stub left out: every pair that shares code gets
    copydetect's figures, and the flagged ones where their shared code lies."""
    import numpy as np

    threshold = check_threshold(threshold)
    boilerplate = _distinct(_kgram_hashes(modules.stub))
    left_out: list[tuple[str, LeftOut]] = []
    compared, prints = [], []
    for name in modules.students:
        entry = modules.modules[name]
        fingerprint = entry if isinstance(entry, LeftOut) else _fingerprint(entry, boilerplate)
        if isinstance(fingerprint, LeftOut):
            left_out.append((name, fingerprint))
        elif fingerprint.coverage == 0:  # every run of its code is in the stub, or it has no run at all
            left_out.append((name, LeftOut.STUB))
        else:
            compared.append(name)
            prints.append(fingerprint)
    first, second, first_overlap, second_overlap = _overlaps(prints)
    coverage = np.array([fingerprint.coverage for fingerprint in prints] or [1], dtype=np.float64)
    # copydetect divides its overlap (an integer) by its coverage (a float): the same figures, to the last bit.
    first_in_second, second_in_first = first_overlap / coverage[first], second_overlap / coverage[second]
    larger, smaller = np.maximum(first_in_second, second_in_first), np.minimum(first_in_second, second_in_first)
    flagged = (larger >= threshold) & (first_overlap >= MIN_SHARED_TOKENS)
    rank = np.argsort(np.argsort(np.array(compared, dtype=object))) if compared else np.zeros(0, dtype=np.int64)
    order = np.lexsort((rank[second], rank[first], -first_overlap, -smaller, -larger))
    table = PairTable(first[order], second[order], first_in_second[order], second_in_first[order],
                      first_overlap[order], flagged[order])
    flagged_at = np.flatnonzero(table.flagged)
    # The page shows the code of the students in the first SIDE_BY_SIDE_PAIRS flagged pairs, and marks the shared
    # code of every flagged pair between two of them: those pairs' spans are found, and no other's.
    shown = set(table.first[flagged_at[:SIDE_BY_SIDE_PAIRS]].tolist() + table.second[flagged_at[:SIDE_BY_SIDE_PAIRS]]
                .tolist())
    pairs = []
    for index in flagged_at[:LISTED_PAIRS].tolist():
        mine, theirs = int(table.first[index]), int(table.second[index])
        marked = mine in shown and theirs in shown
        pairs.append(SimilarPair(
            modules.exercise, compared[mine], compared[theirs], float(table.first_in_second[index]),
            float(table.second_in_first[index]), int(table.shared_tokens[index]), True,
            _spans(_slices(prints[mine], prints[theirs]), len(prints[mine].tokens.text)) if marked else (),
            _spans(_slices(prints[theirs], prints[mine]), len(prints[theirs].tokens.text)) if marked else ()))
    texts = {compared[index]: prints[index].tokens.text for index in sorted(shown)}
    return ExerciseSimilarity(modules.exercise, threshold, modules.students, tuple(left_out), tuple(compared), table,
                              tuple(pairs), texts)


def compare_exercise(exercise: Exercise, students: list[Student], threshold: float = DEFAULT_THRESHOLD,
                     known: Mapping[tuple[str, str], str | None] | None = None,
                     jobs: int | None = 1) -> ExerciseSimilarity:
    """Compare the students' modules for one exercise, the stub left out (`known`, `jobs`: read_modules)."""
    threshold = check_threshold(threshold)
    return compare_modules(read_modules(exercise, students, known, jobs), threshold)


def compare_class(exercises: list[Exercise], students: list[Student], threshold: float = DEFAULT_THRESHOLD,
                  advance: Callable[[], None] = lambda: None,
                  known: Mapping[tuple[str, str], str | None] | None = None, jobs: int | None = None,
                  keep: Callable[[ExerciseModules], None] | None = None) -> list[ExerciseSimilarity]:
    """Compare every exercise's submissions across the class, one exercise at a time (`known`, `jobs`:
    read_modules); `keep` is handed each exercise's tokenised modules (a shard keeps them for the merge)."""
    check_threshold(threshold)
    results = []
    with _processes(jobs, len(students)) as pool:  # one pool for every exercise: its processes start once
        for exercise in exercises:
            modules = read_modules(exercise, students, known, jobs=1, pool=pool)
            if keep is not None:
                keep(modules)
            results.append(compare_modules(modules, threshold))
            advance()
    return results


def compare_every_pair(exercise: Exercise, students: list[Student], threshold: float = DEFAULT_THRESHOLD,
                       known: Mapping[tuple[str, str], str | None] | None = None) -> list[SimilarPair]:
    """The plain comparison the index must match: copydetect's CodeFingerprint of each module and compare_files on
    every pair of them, in the class's order, with spans for every pair that shares code. Slow (a class of 300 is
    44,850 calls of compare_files); tests and `bench/similarity.py --check` hold `compare_exercise` to it."""
    from copydetect import CodeFingerprint, compare_files  # type: ignore[import-untyped]
    from copydetect.utils import get_token_coverage  # type: ignore[import-untyped]

    threshold = check_threshold(threshold)
    modules = read_modules(exercise, students, known, jobs=1)
    stub = exercise.stub_path.read_text(encoding="utf-8") if exercise.stub_path.is_file() else ""
    boilerplate = frozenset(CodeFingerprint(exercise.module, NOISE_TOKENS, 1, fp=io.StringIO(stub),
                                            language="python").hashes)
    prints = {}
    for name in modules.students:
        entry = modules.modules[name]
        if isinstance(entry, LeftOut):
            continue
        fingerprint = CodeFingerprint(exercise.module, NOISE_TOKENS, 1, fp=io.StringIO(entry.text), language="python")
        # The stub's fingerprints taken out of hashes and hash_idx, the coverage counted again as copydetect counts it.
        fingerprint.hashes = fingerprint.hashes - boilerplate
        fingerprint.hash_idx = {key: where for key, where in fingerprint.hash_idx.items() if key not in boilerplate}
        fingerprint.token_coverage = get_token_coverage(fingerprint.hash_idx, NOISE_TOKENS,
                                                        len(fingerprint.filtered_code))
        if fingerprint.token_coverage > 0:
            prints[name] = (fingerprint, len(entry.text))
    pairs = []
    for first, second in combinations(prints, 2):
        (one, one_length), (other, other_length) = prints[first], prints[second]
        shared, (first_in_second, second_in_first), (first_slices, second_slices) = compare_files(one, other)
        pair = SimilarPair(exercise.id, first, second, float(first_in_second), float(second_in_first), int(shared),
                           flagged=False, first_spans=_spans(first_slices, one_length),
                           second_spans=_spans(second_slices, other_length))
        pairs.append(replace(pair, flagged=pair.similarity >= threshold and pair.shared_tokens >= MIN_SHARED_TOKENS))
    return pairs


# --- similar.csv and similarity.json ---------------------------------------------------------------------------------


def _similar_lines(results: list[ExerciseSimilarity]) -> Iterator[str]:
    """similar.csv's lines past the header: every pair that shares code beyond the stub, on every exercise, most
    similar first, each cell as SafeWriter writes it."""
    import numpy as np

    names = sorted({name for result in results for name in result.compared})
    rank = {name: index for index, name in enumerate(names)}
    exercise_rank = {exercise: index for index, exercise in enumerate(sorted({r.exercise for r in results}))}
    columns: dict[str, list] = {key: [] for key in ("exercise", "first", "second", "a", "b", "shared", "flag")}
    for number, result in enumerate(results):
        table, ranks = result.table, np.array([rank[name] for name in result.compared] or [0], dtype=np.int64)
        columns["exercise"].append(np.full(len(table), number, dtype=np.int64))
        columns["first"].append(ranks[table.first])
        columns["second"].append(ranks[table.second])
        columns["a"].append(table.first_in_second)
        columns["b"].append(table.second_in_first)
        columns["shared"].append(table.shared_tokens)
        columns["flag"].append(table.flagged)
    if not results:
        return
    exercise, first, second, a, b, shared, flag = (np.concatenate(columns[key]) for key in columns)
    ranked_exercise = np.array([exercise_rank[result.exercise] for result in results], dtype=np.int64)[exercise]
    order = np.lexsort((second, first, ranked_exercise, -shared, -np.minimum(a, b), -np.maximum(a, b)))
    cells = [_csv_cell(name) for name in names]
    exercise_cells = [_csv_cell(result.exercise) for result in results]
    chunk = 65536
    for begin in range(0, len(order), chunk):
        part = order[begin:begin + chunk]
        yield "".join(f"{cells[one]},{cells[two]},{exercise_cells[number]},{x:.4f},{y:.4f},{tokens},"
                      f"{'yes' if flagged else 'no'}\r\n"
                      for number, one, two, x, y, tokens, flagged in zip(
                          exercise[part].tolist(), first[part].tolist(), second[part].tolist(), a[part].tolist(),
                          b[part].tolist(), shared[part].tolist(), flag[part].tolist()))


def _csv_cell(text: str) -> str:
    """One cell as SafeWriter writes it: guarded against formulas, then quoted as csv quotes it."""
    line = io.StringIO()
    csv.writer(line).writerow([safe_cell(text), ""])  # a second cell, so that an empty one is not quoted alone
    return line.getvalue()[:-len(",\r\n")]


def similar_rows(results: list[ExerciseSimilarity]) -> list[list[str]]:
    """similar.csv's rows: every pair that shares code beyond the stub, on every exercise, most similar first."""
    return [row for lines in _similar_lines(results) for row in csv.reader(io.StringIO(lines))]


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
            "flagged": [_pair_record(pair) for pair in section.flagged], "flagged_count": section.flagged_count,
            "code": dict(section.code)}


def _write_lines_atomically(path: Path, header: str, lines: Iterator[str]) -> None:
    """A UTF-8 text file written whole or not at all (as write_text_atomically does), from lines as they come."""
    write_parts_atomically(path, (part.encode("utf-8") for part in chain([header], lines)))


def write_similarity(results: list[ExerciseSimilarity], out: Path) -> None:
    """OUT/similar.csv (every pair that shares code) and OUT/similarity.json (what the class page shows)."""
    folder = ClassFolder(out)
    record = json.dumps({"format_version": RECORD_VERSION,
                         "exercises": [section_record(result.section()) for result in results]}, indent=1) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    header = ",".join(_csv_cell(column) for column in SIMILAR_COLUMNS) + "\r\n"
    _write_lines_atomically(folder.similar_table, header, _similar_lines(results))
    write_text_atomically(folder.similarity_record, record)


def forget_similarity(out: Path) -> None:
    """Remove a previous run's similar.csv, similarity.json and a shard's kept modules: a run that compared nothing
    leaves none behind."""
    folder = ClassFolder(out)
    for path in (folder.similar_table, folder.similarity_record):
        path.unlink(missing_ok=True)
    forget_modules(out)


# --- A shard's modules, kept for the merge ---------------------------------------------------------------------------


def _tokenizer() -> str:
    """The versions that make the filtered code: shards tokenised by different ones would not compare alike."""
    from importlib.metadata import version

    return f"copydetect {version('copydetect')}, pygments {version('pygments')}"


def forget_modules(out: Path) -> None:
    """Remove the modules an earlier shard run kept (OUT/compared-modules/)."""
    folder = ClassFolder(out).compared_modules("ex00").parent
    if folder.is_dir():
        for path in folder.iterdir():
            if path.name.endswith(".json.gz") and path.is_file():
                path.unlink()
        if not any(folder.iterdir()):
            folder.rmdir()


def keep_modules(out: Path, modules: ExerciseModules, class_order: Mapping[str, int], threshold: float) -> None:
    """OUT/compared-modules/exNN.json.gz: a shard's tokenised modules for one exercise, each student with their
    place in the whole class, and the threshold, so that `grade batch merge` can compare the whole class."""
    students = []
    for name in modules.students:
        entry = modules.modules[name]
        if isinstance(entry, LeftOut):
            students.append({"student": name, "place": class_order[name], "left_out": str(entry)})
        else:
            students.append({"student": name, "place": class_order[name], "text": entry.text,
                             "filtered": entry.filtered, "offsets": entry.offsets.reshape(-1).tolist()})
    record = {"format_version": MODULES_VERSION, "exercise": modules.exercise, "threshold": threshold,
              "noise_tokens": NOISE_TOKENS, "tokenizer": _tokenizer(), "stub": modules.stub, "students": students}
    path = ClassFolder(out).compared_modules(modules.exercise)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomically(path, gzip.compress(json.dumps(record).encode("utf-8"), compresslevel=1))


def modules_keeper(out: Path, class_names: list[str], threshold: float) -> Callable[[ExerciseModules], None]:
    """What a shard hands compare_class as `keep`: each exercise's modules kept (keep_modules) with every student's
    place among `class_names`, the whole class in order; an earlier run's kept modules are removed first."""
    forget_modules(out)
    places = {name: place for place, name in enumerate(class_names)}
    return lambda modules: keep_modules(out, modules, places, threshold)


def _read_kept(path: Path) -> dict:
    """One shard's kept modules for one exercise, every field checked; a one-line KitError otherwise."""
    import numpy as np

    try:
        data = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    except FileNotFoundError:
        raise KitError(f"{path}: missing, so the shard's comparison of submissions is incomplete") from None
    except (OSError, ValueError, EOFError) as exc:
        raise KitError(f"{path}: unreadable: {truncate(str(exc), 200)}") from None
    try:
        if _field(data, "format_version", int) != MODULES_VERSION:
            raise _Malformed(f"format_version {data['format_version']}, not {MODULES_VERSION}")
        for name, kind in (("exercise", str), ("threshold", float), ("noise_tokens", int), ("tokenizer", str),
                           ("stub", str), ("students", list)):
            _field(data, name, kind)
        modules: dict[str, Tokens | LeftOut] = {}
        places: dict[str, int] = {}
        for entry in data["students"]:
            name, place = _field(entry, "student", str), _field(entry, "place", int)
            if name in places or place < 0:
                raise _Malformed(f"student {name!r} twice, or at a place below 0")
            places[name] = place
            if "left_out" in entry:
                try:
                    modules[name] = LeftOut(_field(entry, "left_out", str))
                except ValueError:
                    raise _Malformed(f"unknown reason {entry['left_out']!r} for leaving a student out") from None
                continue
            try:
                offsets = np.array(_field(entry, "offsets", list))
            except ValueError:  # lists within it, of different lengths
                offsets = np.array(None)
            if offsets.ndim != 1 or len(offsets) % 2 or (len(offsets) and offsets.dtype.kind != "i"):
                raise _Malformed("offsets must be pairs of whole numbers")
            modules[name] = Tokens(_field(entry, "text", str), _field(entry, "filtered", str),
                                   offsets.astype(np.int64).reshape(-1, 2))
    except _Malformed as exc:
        raise KitError(f"{path}: not the compared modules of a grade batch shard: {exc}") from None
    return {**data, "modules": modules, "places": places}


def merge_comparisons(shards: list[tuple[Path, dict]], exercise_ids: list[str]) -> list[ExerciseSimilarity] | None:
    """The whole class compared from the modules each shard kept, as one batch compares it; None if no shard
    compared its submissions (each ran with --no-similarity). A one-line KitError for shards that do not fit."""
    kept = [(folder, ClassFolder(folder).compared_modules(exercise_ids[0]).parent.is_dir() if exercise_ids else False)
            for folder, _ in shards]
    if not any(has for _, has in kept):
        return None
    if not all(has for _, has in kept):
        compared = next(folder for folder, has in kept if has)
        other = next(folder for folder, has in kept if not has)
        raise KitError(f"mismatched shards: {compared} compared the submissions and {other} did not "
                       "(grade it again without --no-similarity, or every shard with it)")
    results = []
    for exercise_id in exercise_ids:
        records = [(folder, manifest, _read_kept(ClassFolder(folder).compared_modules(exercise_id)))
                   for folder, manifest in shards]
        first_folder, _, first = records[0]
        for folder, manifest, record in records:
            for name, words in (("threshold", "similarity threshold"), ("noise_tokens", "noise tokens"),
                                ("tokenizer", "tokenizer"), ("stub", f"{exercise_id}'s stub")):
                if record[name] != first[name]:
                    values = "" if name == "stub" else f" ({record[name]!r} against {first[name]!r})"
                    raise KitError(f"mismatched shards: {folder} and {first_folder} differ in {words}{values}")
            path = ClassFolder(folder).compared_modules(exercise_id)
            if record["exercise"] != exercise_id or sorted(record["places"]) != sorted(manifest["students"]):
                raise KitError(f"{path}: not the compared modules of {exercise_id} for the shard's students")
        places = {name: place for _, _, record in records for name, place in record["places"].items()}
        if sorted(places.values()) != list(range(len(places))):
            raise KitError(f"mismatched shards: the places of the class's students in {exercise_id}'s compared "
                           "modules do not add up to one class")
        students = tuple(sorted(places, key=places.__getitem__))
        modules = {name: entry for _, _, record in records for name, entry in record["modules"].items()}
        results.append(compare_modules(ExerciseModules(exercise_id, first["stub"], students, modules),
                                       first["threshold"]))
    return results


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


def _flagged_count(data: dict, listed: int) -> int:
    """How many pairs a section flags in all: a record written before the list was cut lists every one."""
    if "flagged_count" not in data:
        return listed
    count = _field(data, "flagged_count", int)
    if count < listed:
        raise _Malformed(f"field 'flagged_count' is {count}, fewer than the {listed} pairs listed")
    return count


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
                             left_out=tuple(left_out), flagged=tuple(flagged), code=tuple(code.items()),
                             flagged_count=_flagged_count(data, len(flagged)))


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
