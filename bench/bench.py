"""Benchmarks for the grader: call overhead, grading overhead, batch scaling, start-up and the class report.

Run from the kit root, with the kit's own dependencies installed:

    python bench/bench.py            # everything (about 10 minutes on 2 cores)
    python bench/bench.py calls startup
    python bench/bench.py grading warm  # cold grades, and saves graded in watch mode, against plain pytest
    python bench/bench.py failing [--before KIT | --handout DIR] [--only WORD...]  # stubs and mistakes
    python bench/bench.py check [--before KIT [--after KIT]]  # grade check of each exercise
    python bench/bench.py warm-failing  # failing saves in watch mode, against cold grades and plain pytest
    python bench/bench.py report     # the class report of 300 students x 9 exercises
    python bench/bench.py shards     # a class of 150 on one exercise: --jobs 1, --jobs 2, 2 shards merged
    python bench/bench.py namespaces # grade ex04 --solution, a worker's start and a call, with namespaces and without
    python bench/bench.py users --user NAME --user-kit DIR   # as root: root against an ordinary user

Absolute times drift on shared machines, so every figure that matters is a ratio of two
measurements taken in the same run. Results go to bench/RESULTS.md by hand, with the date and
the machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.catalog import Kit  # noqa: E402
from grader.failures import OUTCOMES, FailureKind  # noqa: E402
from grader.sandbox.isolation import CpuLease  # noqa: E402
from grader.known_mistakes import load_mutants, write_mutant  # noqa: E402
from grader.sandbox.service import Sandbox, SandboxSettings  # noqa: E402

BENCH = Path(__file__).resolve().parent
SEED = 1
# Runs of each command whose median counts.
RUNS = 3
STUDENT = """
def add(a, b):
    return a + b

def count_leaves(tree):
    stack, count = [tree], 0
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        else:
            count += 1
    return count
"""


def machine() -> str:
    """Cores and CPU model, for the heading of RESULTS.md."""
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, Python {platform.python_version()}"


def tree(branching: int, depth: int, start: int = 0) -> list | int:
    """A full tree of `branching ** depth` integer leaves."""
    if depth == 0:
        return start
    size = branching ** (depth - 1)
    return [tree(branching, depth - 1, start + i * size) for i in range(branching)]


def _timed_calls(function, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return times


# 1. Call overhead


def bench_calls(rows: list[tuple[str, str, str]]) -> None:
    """Calls through the sandbox, pinned to one CPU as a grading process pins itself, and not."""
    allowed = os.sched_getaffinity(0)
    lease = CpuLease()
    try:
        _bench_calls(rows, f"pinned to CPU {lease.cpu}")
    finally:
        lease.release()
        os.sched_setaffinity(0, allowed)  # the grading runs below must not inherit the pin
    _bench_calls(rows, "not pinned")


def _bench_calls(rows: list[tuple[str, str, str]], how: str) -> None:
    """Median round trip of a small call through the sandbox, against a direct call."""
    folder = Path(tempfile.mkdtemp(prefix="minimax-kit-bench-"))
    try:
        (folder / "student.py").write_text(textwrap.dedent(STUDENT), encoding="utf-8")
        # The direct baseline: the same file imported into this process.
        spec = importlib.util.spec_from_file_location("bench_student", folder / "student.py")
        direct_module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(direct_module)
        settings = SandboxSettings(module="student.py", functions=("add", "count_leaves"), source_dir=folder,
                                   memory_mb=512, cpu_seconds=600, hash_seed=0)
        box = Sandbox(settings)
        box.start()
        try:
            for _ in range(500):  # warm up the worker and the caches
                box.call("add", (1, 2), {}, timeout=5)
            sandboxed = statistics.median(_timed_calls(lambda: box.call("add", (1, 2), {}, timeout=5), 5000))
            direct = statistics.median(_timed_calls(lambda: direct_module.add(1, 2), 5000))
            rows.append((f"call: add(1, 2), median round trip, {how}", f"{sandboxed * 1e6:.0f} µs",
                         f"{1 / sandboxed:,.0f} calls/s sandboxed; {1 / direct:,.0f} direct (goal ≥ 20,000)"))
            for depth in (4, 5):
                argument = tree(10, depth)
                assert box.call("count_leaves", (argument,), {}, timeout=60).value == 10 ** depth
                runs = 20 if depth == 4 else 5
                sandboxed = statistics.median(
                    _timed_calls(lambda: box.call("count_leaves", (argument,), {}, timeout=60), runs))
                direct = statistics.median(_timed_calls(lambda: direct_module.count_leaves(argument), runs))
                rows.append((f"call: count_leaves on a 10^{depth}-leaf tree, {how}", f"{sandboxed * 1e3:.1f} ms",
                             f"{sandboxed / direct:.1f}x a direct call ({direct * 1e3:.1f} ms)"))
        finally:
            box.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# 2. Grading overhead


# Commands run as on a student's machine, where Python caches bytecode; a session that turned
# caching off would make every run compile the grader (and pytest's plugins) afresh.
ENVIRONMENT = {name: value for name, value in os.environ.items() if name not in ("PYTHONDONTWRITEBYTECODE", "CI")}


def _run(command: list[str], **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    kwargs.setdefault("env", ENVIRONMENT)
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    return time.perf_counter() - started, result


def grade_time(exercise_id: str, **environment: str) -> float:
    """Wall time of `grade exNN --solution` (or `grade --all --solution`), the report going to a file."""
    with tempfile.TemporaryDirectory() as scratch:
        seconds, result = _run([sys.executable, "-m", "grader.cli", exercise_id, "--solution", "--seed", str(SEED),
                                "--output", str(Path(scratch) / "report.json")], cwd=ROOT,
                               env={**ENVIRONMENT, **environment})
    if result.returncode != 0:
        raise SystemExit(f"grade {exercise_id} --solution failed:\n{result.stdout}{result.stderr}")
    return seconds


def naive_time(kit: Kit, exercise, folder: Path | None = None) -> float:
    """Wall time of pytest on the same checks, the solution (or the module in `folder`) imported in-process
    (bench/naive_plugin.py)."""
    with tempfile.TemporaryDirectory() as scratch:
        place = Path(scratch)
        shutil.copytree(exercise.checks_dir, place / "checks", ignore=shutil.ignore_patterns("__pycache__"))
        for helper in exercise.check_helpers(sorted(exercise.checks_dir.glob("*.py"))):  # shared ones too
            shutil.copyfile(helper, place / "checks" / helper.name)
        for given in exercise.given_paths:  # the solution and the checks import them, as in a grade
            shutil.copyfile(given, place / "checks" / given.name)
        (place / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        env = {**ENVIRONMENT, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "BENCH_MODULE": exercise.module.removesuffix(".py"), "BENCH_SEED": str(SEED),
               "PYTHONPATH": os.pathsep.join([str(folder or exercise.solution_dir(kit.root)), str(BENCH)])}
        # Each check under the grade's own limit for it: a mistake that never returns (a search without its
        # memo) runs in plain pytest until that limit, as a grade's check would without call limits.
        seconds, result = _run([sys.executable, "-m", "pytest", "-q", "-p", "pytest_timeout", "-p", "naive_plugin",
                                "-p", "no:cacheprovider", "--timeout", f"{exercise.check_timeout:g}",
                                "--timeout-method", "signal", "checks"], cwd=place, env=env)
    # A submission's checks may fail; and pytest itself may end in an internal error (3) when a check's
    # time limit interrupts a deep recursion, as plain pytest does on such code.
    if result.returncode not in ((0, 1, 3) if folder else (0,)):
        raise SystemExit(f"the naive baseline failed on {exercise.id}:\n{result.stdout[-3000:]}")
    return seconds


# Paired runs per exercise for the grading figures (the goals in #29 are medians of 9).
GRADING_RUNS = 9
# A cold grade's goal against plain pytest, and a save's in watch mode.
COLD_GOAL, WARM_GOAL = 1.3, 1.0


def bench_grading(rows: list[tuple[str, str, str]]) -> None:
    """`grade exNN --solution` against the naive in-process baseline, per exercise and for the kit."""
    kit = Kit(ROOT)
    total_grade = total_naive = 0.0
    for exercise in kit.exercises():
        # Alternating runs, the median of each: the two meet the same drift in the machine's speed.
        pairs = [(grade_time(exercise.id), naive_time(kit, exercise)) for _ in range(GRADING_RUNS)]
        graded, naive = (statistics.median(times) for times in zip(*pairs))
        ratio = statistics.median(grade / plain for grade, plain in pairs)
        total_grade += graded
        total_naive += naive
        rows.append((f"grade {exercise.id} --solution", f"{graded:.3f} s",
                     f"{ratio:.2f}x plain pytest, the median of {GRADING_RUNS} paired runs ({naive:.3f} s; "
                     f"goal ≤ {COLD_GOAL}x)"))
    rows.append(("every exercise, one at a time", f"{total_grade:.2f} s",
                 f"{total_grade / total_naive:.2f}x the baseline ({total_naive:.2f} s)"))
    seconds = statistics.median(grade_time("--all") for _ in range(RUNS))
    rows.append(("grade --all --solution (side by side, one exercise per CPU)", f"{seconds:.2f} s",
                 f"{seconds / total_naive:.2f}x the baseline (goal < 6 s)"))


def warm_time(kit: Kit, exercise, folder: Path | None = None) -> float:
    """Wall time of a save graded in watch mode: a ready grade (pytest started, the checks collected,
    its worker started) grading the reference (or the module in `folder`), to the report built."""
    from grader.grading import ReadyGrade
    from grader.submission import Submission

    ready = ReadyGrade(kit, exercise)
    deadline = time.monotonic() + 60
    while not ready.files.collected.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)  # the worker's interpreter starting, as while the student types
    submission = Submission((folder or exercise.solution_dir(kit.root)) / exercise.module, exercise.module)
    started = time.perf_counter()
    report = ready.grade(submission, seed=SEED)
    seconds = time.perf_counter() - started
    if folder is None and report["status"] != "pass":
        raise SystemExit(f"a ready grade of {exercise.id}'s reference did not pass: {report['status']}")
    return seconds


def bench_warm(rows: list[tuple[str, str, str]]) -> None:
    """A save in `grade exNN --watch`, graded by the grading process kept ready, against plain pytest."""
    kit = Kit(ROOT)
    for exercise in kit.exercises():
        pairs = [(warm_time(kit, exercise), naive_time(kit, exercise)) for _ in range(GRADING_RUNS)]
        warm, naive = (statistics.median(times) for times in zip(*pairs))
        ratio = statistics.median(graded / plain for graded, plain in pairs)
        rows.append((f"a save of {exercise.id} graded in watch mode", f"{warm:.3f} s",
                     f"{ratio:.2f}x plain pytest, the median of {GRADING_RUNS} paired runs ({naive:.3f} s; "
                     f"goal ≤ {WARM_GOAL}x)"))


# 2b. Failing grades: the grades a student makes while the work is unfinished

# Paired runs per variant in the failing matrix: 4 variants of 11 exercises, each run a grade (or
# two, with --before) and the plain pytest beside it.
FAILING_RUNS = 3
# The whole output of a failing grade (its explanations and diagnosis included) against plain pytest.
WHOLE_GOAL = 1.6


def submission_grade_times(python: str, kit: Path, exercise_id: str, folder: Path) -> tuple[float, float]:
    """Wall time of `grade exNN --submission FOLDER` in `kit` with that Python, the report going to /dev/null:
    to its score line (the table of checks printed above it), and to its end."""
    command = [python, "-m", "grader.cli", exercise_id, "--submission", str(folder), "--seed", str(SEED),
               "--output", "/dev/null", "--exit-zero"]
    to_table = None
    started = time.perf_counter()
    with subprocess.Popen(command, cwd=kit, env=ENVIRONMENT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        shown = []
        for line in process.stdout:
            shown.append(line)
            if to_table is None and line.startswith("Score "):
                to_table = time.perf_counter() - started
        errors = process.stderr.read()
    whole = time.perf_counter() - started
    if process.returncode != 0 or to_table is None:
        raise SystemExit(f"grade {exercise_id} --submission {folder} failed:\n{''.join(shown)}{errors}")
    return to_table, whole


def submission_grade_time(python: str, kit: Path, exercise_id: str, folder: Path) -> float:
    """Wall time of `grade exNN --submission FOLDER` to its end (submission_grade_times)."""
    return submission_grade_times(python, kit, exercise_id, folder)[1]


def failing_variants(kit: Kit, exercise, scratch: Path) -> list[tuple[str, Path]]:
    """The exercise's reference, its stub, and two known mistakes as submissions: the first (in the library's
    order) that a public check catches, and the first that only hidden checks catch. (name, folder)."""
    from grader.known_mistakes import known_mistakes

    variants = [("reference", exercise.solution_dir(kit.root)), ("stub", exercise.stub_path.parent)]
    wanted = {"public": None, "hidden only": None}
    for mistake in known_mistakes(exercise, kit.root):
        folder = scratch / exercise.id / mistake.name
        folder.mkdir(parents=True)
        (folder / exercise.module).write_text(mistake.source, encoding="utf-8")
        _, result = _run([sys.executable, "-m", "grader.cli", exercise.id, "--submission", str(folder), "--seed",
                          str(SEED), "--output", "-", "--exit-zero"], cwd=ROOT)
        failed = [test for test in json.loads(result.stdout)["tests"] if test["outcome"] != "passed"]
        kind = "public" if any(test["visibility"] == "public" for test in failed) else "hidden only"
        if failed and wanted[kind] is None:
            wanted[kind] = (f"{kind} {mistake.name}", folder)
        if all(wanted.values()):
            break
    return variants + [variant for variant in wanted.values() if variant is not None]


def bench_failing(rows: list[tuple[str, str, str]], before: Path | None = None,
                  only: list[str] | None = None, handout: Path | None = None) -> None:
    """Each exercise's reference, stub and two known mistakes graded, against plain pytest on the same code:
    the time to the score and table, and to the whole output; with `before` (a checkout with its own .venv),
    that kit's grades too, in the same alternating runs. `only` keeps the rows whose names hold one of its words.
    With `handout` (a student handout, `grade export`, with its own .venv), the stub and the public mistake
    are graded there instead, as a student grades them: public checks only, the diagnosis from digests."""
    kit = Kit(ROOT)
    kits = [("after" if before else "grade", sys.executable, ROOT)]
    if before is not None:
        kits.insert(0, ("before", str(before / ".venv" / "bin" / "python"), before))
    if handout is not None:
        kits = [("handout", str(handout / ".venv" / "bin" / "python"), handout)]
    with tempfile.TemporaryDirectory(prefix="minimax-kit-failing-") as scratch:
        for exercise in kit.exercises():
            # Plain pytest runs the checks the grade runs: the handout's are the public ones.
            plain_kit = Kit(handout) if handout is not None else kit
            plain_exercise = plain_kit.resolve(exercise.id)
            for variant, folder in failing_variants(kit, exercise, Path(scratch)):
                name = f"grade {exercise.id}: {variant}"
                if only and not any(word in name for word in only):
                    continue
                if handout is not None and variant.split()[0] not in ("stub", "public"):
                    continue  # the reference and a hidden-only mistake pass every public check
                for _, python, root in kits:  # a first grade each, untimed, writes the bytecode caches
                    submission_grade_time(python, root, exercise.id, folder)
                runs: list[list[tuple[float, float]]] = [[] for _ in kits]
                plain: list[float] = []
                for run in range(FAILING_RUNS):
                    order = range(len(kits)) if run % 2 == 0 else reversed(range(len(kits)))
                    for index in order:
                        runs[index].append(submission_grade_times(kits[index][1], kits[index][2], exercise.id,
                                                                  folder))
                    plain.append(naive_time(plain_kit, plain_exercise, folder))
                naive = statistics.median(plain)
                figures = []
                for (label, _, _), times in zip(kits, runs):
                    tables, wholes = zip(*times)
                    to_table = statistics.median(table / baseline for table, baseline in zip(tables, plain))
                    whole = statistics.median(seconds / baseline for seconds, baseline in zip(wholes, plain))
                    figures.append(f"{label}: table {statistics.median(tables):.3f} s, {to_table:.2f}x; "
                                   f"whole {statistics.median(wholes):.3f} s, {whole:.2f}x")
                rows.append((name, "; ".join(figures),
                             f"plain pytest {naive:.3f} s; the medians of {FAILING_RUNS} paired runs "
                             f"(goals ≤ {COLD_GOAL}x to the table, ≤ {WHOLE_GOAL}x whole)"))
                print("| " + " | ".join(rows[-1]) + " |", file=sys.stderr, flush=True)  # a long part: as it goes


def bench_warm_failing(rows: list[tuple[str, str, str]]) -> None:
    """A failing save in watch mode (each exercise's stub and two known mistakes, as in `failing`), against
    the same cold grade and plain pytest on the same code, in alternating runs."""
    kit = Kit(ROOT)
    with tempfile.TemporaryDirectory(prefix="minimax-kit-failing-") as scratch:
        for exercise in kit.exercises():
            for variant, folder in failing_variants(kit, exercise, Path(scratch))[1:]:  # not the reference
                submission_grade_time(sys.executable, ROOT, exercise.id, folder)  # untimed: the bytecode caches
                runs = [(warm_time(kit, exercise, folder), submission_grade_time(sys.executable, ROOT, exercise.id,
                                                                                 folder), naive_time(kit, exercise,
                                                                                                     folder))
                        for _ in range(FAILING_RUNS)]
                warm, cold, plain = (statistics.median(times) for times in zip(*runs))
                ratio = statistics.median(graded / baseline for graded, _, baseline in runs)
                rows.append((f"a failing save of {exercise.id}: {variant}",
                             f"watch {warm:.3f} s, {ratio:.2f}x; cold {cold:.3f} s",
                             f"plain pytest {plain:.3f} s; the medians of {FAILING_RUNS} paired runs "
                             f"(goal: watch ≤ cold and ≤ {WARM_GOAL}x)"))
                print("| " + " | ".join(rows[-1]) + " |", file=sys.stderr, flush=True)

# 2c. The instructors' loop: grade check, for one exercise at a time

# The goal of `grade check EX` on a quiet machine, for every exercise.
CHECK_GOAL_S = 60


def check_time(python: str, kit: Path, exercise_id: str) -> float:
    """Wall time of `grade check EX` (its default seeds) in `kit` with that Python; it must pass."""
    seconds, result = _run([python, "-m", "grader.cli", "check", exercise_id], cwd=kit)
    if result.returncode != 0:
        raise SystemExit(f"grade check {exercise_id} failed in {kit}:\n{result.stdout[-3000:]}")
    return seconds


def bench_check(rows: list[tuple[str, str, str]], before: Path | None = None, after: Path | None = None) -> None:
    """`grade check EX` for every exercise; with `before` (and `after`, each a checkout with its own .venv),
    both kits in turn, the order swapped from one exercise to the next. One run each: a run is minutes."""
    kits = [("after" if before else "grade", after or ROOT)]
    if before is not None:
        kits.insert(0, ("before", before))
    totals = [0.0] * len(kits)
    for number, exercise in enumerate(Kit(ROOT).exercises()):
        order = range(len(kits)) if number % 2 == 0 else reversed(range(len(kits)))
        seconds = [0.0] * len(kits)
        for index in order:
            label, root = kits[index]
            python = str(root / ".venv" / "bin" / "python") if root != ROOT else sys.executable
            seconds[index] = check_time(python, root, exercise.id)
            totals[index] += seconds[index]
        figures = "; ".join(f"{label} {time_s:.1f} s" for (label, _), time_s in zip(kits, seconds))
        rows.append((f"grade check {exercise.id}", figures, f"goal ≤ {CHECK_GOAL_S} s"))
        print("| " + " | ".join(rows[-1]) + " |", file=sys.stderr, flush=True)
    figures = "; ".join(f"{label} {total:.0f} s" for (label, _), total in zip(kits, totals))
    rows.append(("grade check, every exercise one at a time", figures, "the sum of the rows above"))


# 3. Batch scaling


def make_class(kit: Kit, folder: Path, students: int) -> None:
    """A class of `students`, each with a module for every exercise: the reference, a wrong/ file or a mutant in turn.

    The alt/ solutions are left out: the naive ones are slow on purpose, to prove the timeouts fair.
    """
    mistakes = folder.parent / f"{folder.name}-mistakes"
    pools = {}
    for exercise in kit.exercises():
        solutions = exercise.solution_dir(kit.root)
        mutants = [write_mutant(exercise, kit.root, mutant, mistakes / exercise.id)
                   for mutant in load_mutants(exercise, kit.root)]
        pools[exercise.id] = [solutions / exercise.module, *sorted((solutions / "wrong").glob("*.py")), *mutants]
    for number in range(students):
        student = folder / f"student{number:02d}"
        student.mkdir(parents=True)
        for exercise in kit.exercises():
            pool = pools[exercise.id]
            shutil.copyfile(pool[(number * 3) % len(pool)], student / exercise.module)


class PeakMemory:
    """Polls /proc for the peak resident size (VmHWM) of grading processes and sandbox workers."""

    def __init__(self):
        self.peaks = {"pytest": 0, "worker": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *_):
        self._stop.set()
        self._thread.join()

    def _poll(self):
        while not self._stop.wait(0.05):
            for entry in Path("/proc").glob("[0-9]*"):
                try:
                    command = (entry / "cmdline").read_bytes()
                    status = (entry / "status").read_text()
                except OSError:
                    continue
                kind = "worker" if b"worker.py" in command else "pytest" if b"grader.grading.plugin" in command else None
                if kind is None:
                    continue
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        self.peaks[kind] = max(self.peaks[kind], int(line.split()[1]) * 1024)


def bench_batch(rows: list[tuple[str, str, str]], students: int = 7) -> None:
    """`grade batch --all` of a class (7 students x 9 exercises = 63 submissions), with --jobs 1 and 2."""
    kit = Kit(ROOT)
    with tempfile.TemporaryDirectory() as scratch:
        make_class(kit, Path(scratch) / "class", students)
        submissions = students * len(kit.exercises())
        seconds = {}
        for jobs in (1, 2):
            with PeakMemory() as memory:
                started = time.perf_counter()
                result = subprocess.run(
                    [sys.executable, "-m", "grader.cli", "batch", str(Path(scratch) / "class"), "--all",
                     "--jobs", str(jobs), "--force", "--seed", str(SEED), "--out", str(Path(scratch) / f"out{jobs}")],
                    cwd=ROOT, env=ENVIRONMENT, capture_output=True, text=True)
                seconds[jobs] = time.perf_counter() - started
            if result.returncode not in (0, 1):
                raise SystemExit(f"grade batch failed:\n{result.stdout}{result.stderr}")
            rows.append((f"batch of {submissions}, --jobs {jobs}", f"{seconds[jobs]:.1f} s",
                         f"peak RSS of one job: grading process {memory.peaks['pytest'] / 2**20:.0f} MB "
                         f"(goal < 150 MB); student code's worker {memory.peaks['worker'] / 2**20:.0f} MB"))
        rows.append(("batch speed-up, --jobs 2 over --jobs 1", f"{seconds[1] / seconds[2]:.2f}x", "goal ≥ 1.7x"))


# 4. Start-up


def bench_startup(rows: list[tuple[str, str, str]]) -> None:
    """Time until `grade` with no arguments has printed its list."""
    grade = [sys.executable, "-m", "grader.cli", "--kit", str(ROOT)]
    _run(grade)  # warm the file cache
    times = [_run(grade)[0] for _ in range(10)]
    bare = statistics.median(_run([sys.executable, "-c", "pass"])[0] for _ in range(10))
    rows.append(("start-up: grade (the list)", f"{statistics.median(times) * 1e3:.0f} ms",
                 f"median of 10; a bare interpreter takes {bare * 1e3:.0f} ms (goal < 300 ms)"))


# 5. Root against an ordinary user


def bench_users(rows: list[tuple[str, str, str]], user: str | None, user_kit: Path | None) -> None:
    """`grade --all --solution` as root and as an ordinary user, alternating, in the same run.

    The ordinary user grades its own copy of the kit with its own venv (`USER_KIT/.venv`), as
    .ci/run sets one up, so both sides meet the same drift in the machine's speed.
    """
    if os.geteuid() != 0 or not user or user_kit is None:
        raise SystemExit("the users part runs as root, with --user NAME --user-kit DIR (a kit copy with its own .venv)")
    as_user = ["runuser", "-u", user, "--", str(user_kit / ".venv" / "bin" / "python"), "-m", "grader.cli", "--all",
               "--solution", "--seed", str(SEED), "--kit", str(user_kit), "--output", "/dev/null"]
    as_root = [sys.executable, "-m", "grader.cli", "--all", "--solution", "--seed", str(SEED), "--output", "/dev/null"]
    times: dict[str, list[float]] = {"root": [], "user": []}
    for _ in range(RUNS):
        for who, command in (("root", as_root), ("user", as_user)):
            seconds, result = _run(command, cwd=ROOT if who == "root" else user_kit)
            if result.returncode != 0:
                raise SystemExit(f"grade --all --solution as {who} failed:\n{result.stdout}{result.stderr}")
            times[who].append(seconds)
    root, ordinary = statistics.median(times["root"]), statistics.median(times["user"])
    rows.append(("grade --all --solution as root", f"{root:.2f} s", f"median of {RUNS}, alternating with the row below"))
    rows.append((f"grade --all --solution as an ordinary user ({user})", f"{ordinary:.2f} s",
                 f"{ordinary / root:.2f}x root (no uid drop, no memory cgroup)"))


# 6. The class report


def reference_reports() -> list[dict]:
    """The real reports of every reference solution, one per exercise."""
    with tempfile.TemporaryDirectory() as scratch:
        summary = Path(scratch) / "all.json"
        _, result = _run([sys.executable, "-m", "grader.cli", "--all", "--solution", "--seed", str(SEED),
                          "--output", str(summary)], cwd=ROOT)
        if result.returncode != 0:
            raise SystemExit(f"grade --all --solution failed:\n{result.stdout}{result.stderr}")
        return json.loads(summary.read_text(encoding="utf-8"))["exercises"]


def synthetic_class(reports: list[dict], students: int, seed: int) -> dict[str, dict[str, dict]]:
    """{student: {exercise id: report}}: each report a real one with its checks' outcomes redrawn.

    Each student has an ability and each check a difficulty, so the checks discriminate as real
    ones do; a failure is a wrong answer, a raise, a timeout or a crash, with a message to group.
    """
    rng = random.Random(seed)
    difficulty = {(report["exercise"]["id"], test["id"]): rng.random() for report in reports
                  for test in report["tests"]}
    kinds = [FailureKind.ASSERTION, FailureKind.RAISED, FailureKind.TIMEOUT, FailureKind.CRASH, FailureKind.WAITING]
    results = {}
    for number in range(students):
        ability = rng.random()
        own = {}
        for report in reports:
            tests = []
            for test in report["tests"]:
                hard = difficulty[report["exercise"]["id"], test["id"]]
                duration = round(test["duration_s"] * rng.lognormvariate(0, 0.5), 4)
                if rng.random() < 0.1 + 0.9 * ability * (1 - 0.7 * hard):
                    tests.append({**test, "duration_s": duration})
                    continue
                kind = rng.choices(kinds, weights=[70, 12, 6, 3, 9])[0]
                message = (f"AssertionError: assert {rng.randint(0, 4)} == {rng.randint(0, 4)}"
                           if test["visibility"] == "public" else "Hint: a hidden check's hint")
                tests.append({**test, "outcome": str(OUTCOMES[kind]), "score": 0.0, "message": message,
                              "failure": {"kind": str(kind)}, "duration_s": duration})
            score = sum(test["score"] for test in tests)
            own[report["exercise"]["id"]] = {**report, "tests": tests, "score": score,
                                             "status": "pass" if score == report["max_score"] else "fail"}
        results[f"student{number:03d}"] = own
    return results


def bench_report(rows: list[tuple[str, str, str]], students: int = 300) -> None:
    """The class report of 300 students x 9 exercises: built from memory (grade batch), and read back from OUT."""
    from grader.classroom import ClassFolder
    from grader.classroom.class_report import attempts_of, read_reports, write_class_report

    results = synthetic_class(reference_reports(), students, SEED)
    reports = sum(len(own) for own in results.values())
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for student, own in results.items():
            for exercise_id, report in own.items():
                path = ClassFolder(out).report(student, exercise_id)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(report), encoding="utf-8")
        started = time.perf_counter()
        write_class_report(attempts_of(results), out)
        built = time.perf_counter() - started
        started = time.perf_counter()
        write_class_report(read_reports(out), out)
        rebuilt = time.perf_counter() - started
        size = (out / "report.html").stat().st_size
    rows.append((f"class report of {students} students x {len(results['student000'])} exercises (grade batch)",
                 f"{built:.2f} s", f"report.html {size / 2**10:.0f} KiB (goal < 5 s)"))
    rows.append((f"grade batch report: the same, reading the {reports} reports back", f"{rebuilt:.2f} s",
                 "goal < 5 s"))


# 7. A class of 150 in slices


def _batch_command(folder: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "grader.cli", "batch", str(folder), "--exercise", "ex04", "--force",
            "--seed", str(SEED), "--out", str(out), *extra]


def bench_shards(rows: list[tuple[str, str, str]], students: int = 150) -> None:
    """A synthetic class of 150 ex04 submissions: --jobs 1, --jobs 2, and 2 shards side by side, merged."""
    kit = Kit(ROOT)
    exercise = kit.resolve("ex04")
    cores = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        mistakes = Path(scratch) / "mistakes"
        solutions = exercise.solution_dir(kit.root)
        pool = [solutions / exercise.module, exercise.stub_path,
                *(write_mutant(exercise, kit.root, mutant, mistakes) for mutant in load_mutants(exercise, kit.root))]
        for number in range(students):
            (folder / f"student{number:03d}").mkdir(parents=True)
            shutil.copyfile(pool[number % len(pool)], folder / f"student{number:03d}" / exercise.module)

        def per_minute(seconds: float, used: int) -> str:
            return f"{students / (seconds / 60) / used:.0f} submissions per minute per core"

        for jobs in (1, 2):
            seconds, result = _run(_batch_command(folder, Path(scratch) / f"jobs{jobs}", "--jobs", str(jobs)),
                                   cwd=ROOT, env=ENVIRONMENT)
            if result.returncode != 0:
                raise SystemExit(f"grade batch failed:\n{result.stdout}{result.stderr}")
            rows.append((f"class of {students} (ex04), --jobs {jobs}", f"{seconds:.1f} s", per_minute(seconds, jobs)))
        started = time.perf_counter()
        shards = [subprocess.Popen(_batch_command(folder, Path(scratch) / f"shard{k}", "--jobs", "1", "--shard",
                                                  f"{k}/2"), cwd=ROOT, env=ENVIRONMENT, stdout=subprocess.DEVNULL)
                  for k in (1, 2)]
        if any(shard.wait() != 0 for shard in shards):
            raise SystemExit("a shard failed")
        graded = time.perf_counter() - started
        seconds, result = _run([sys.executable, "-m", "grader.cli", "batch", "merge", str(Path(scratch) / "merged"),
                                str(Path(scratch) / "shard1"), str(Path(scratch) / "shard2")], cwd=ROOT, env=ENVIRONMENT)
        if result.returncode != 0:
            raise SystemExit(f"grade batch merge failed:\n{result.stdout}{result.stderr}")
        sizes = [len(json.loads((Path(scratch) / f"shard{k}" / "shard.json").read_text())["students"]) for k in (1, 2)]
        rows.append((f"2 shards side by side (--jobs 1 each, {sizes[0]} + {sizes[1]} students)", f"{graded:.1f} s",
                     per_minute(graded, min(2, cores))))
        rows.append(("grade batch merge of the 2 shards (with the class page)", f"{seconds:.1f} s",
                     f"{(graded + seconds):.1f} s in all"))


# 6. What the worker's namespaces cost


def _worker_start(folder: Path) -> float:
    """One worker started, called once and closed."""
    box = Sandbox(SandboxSettings(module="student.py", functions=("add",), source_dir=folder, memory_mb=512,
                                  cpu_seconds=60, hash_seed=0))
    started = time.perf_counter()
    box.start()
    box.call("add", (1, 2), {}, timeout=5)
    box.close()
    return time.perf_counter() - started


def bench_namespaces(rows: list[tuple[str, str, str]], runs: int = 8) -> None:
    """grade ex04 --solution, a worker's start and a small call, with the worker's namespaces and without.

    The two settings alternate run by run (GRADE_NAMESPACES=off for without), so drift hits both alike.
    """
    folder = Path(tempfile.mkdtemp(prefix="minimax-kit-bench-"))
    (folder / "student.py").write_text(textwrap.dedent(STUDENT), encoding="utf-8")
    times: dict[tuple[str, str], list[float]] = {}
    saved = os.environ.get("GRADE_NAMESPACES")
    try:
        for _ in range(runs):
            for mode in ("on", "off"):
                os.environ["GRADE_NAMESPACES"] = mode
                times.setdefault(("grade", mode), []).append(grade_time("ex04", GRADE_NAMESPACES=mode))
                times.setdefault(("worker", mode), []).append(_worker_start(folder))
                box = Sandbox(SandboxSettings(module="student.py", functions=("add",), source_dir=folder,
                                              memory_mb=512, cpu_seconds=60, hash_seed=0))
                box.start()
                try:
                    times.setdefault(("call", mode), []).append(statistics.median(
                        _timed_calls(lambda: box.call("add", (1, 2), {}, timeout=5), 2000)))
                finally:
                    box.close()
    finally:
        if saved is None:
            os.environ.pop("GRADE_NAMESPACES", None)
        else:
            os.environ["GRADE_NAMESPACES"] = saved
        shutil.rmtree(folder, ignore_errors=True)
    median = {key: statistics.median(values) for key, values in times.items()}
    for what, label, unit, scale in (("grade", "grade ex04 --solution", "s", 1), ("worker", "a worker's start, "
                                     "one call and its close", "ms", 1e3), ("call", "a small call", "µs", 1e6)):
        on, off = median[(what, "on")], median[(what, "off")]
        rows.append((f"namespaces: {label}, median of {runs}", f"{on * scale:.{2 if unit == 's' else 1}f} {unit}",
                     f"{on / off:.3f}x without ({off * scale:.{2 if unit == 's' else 1}f} {unit}); "
                     f"{(on - off) * scale:+.{2 if unit == 's' else 1}f} {unit}"))


PARTS = {"calls": bench_calls, "grading": bench_grading, "failing": bench_failing, "check": bench_check,
         "warm": bench_warm, "warm-failing": bench_warm_failing,
         "batch": bench_batch,
         "startup": bench_startup,
         "users": bench_users, "report": bench_report,
         "shards": bench_shards, "namespaces": bench_namespaces}


def main() -> None:
    """Run the chosen parts and print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", choices=[*PARTS, []],
                        help="which parts (default: all but users, failing, check and warm-failing)")
    parser.add_argument("--user", help="users: the ordinary user to grade as")
    parser.add_argument("--user-kit", type=Path, help="users: that user's copy of the kit, with its own .venv")
    parser.add_argument("--before", type=Path, help="failing, check: an earlier checkout, with its own .venv, "
                                                     "graded in the same paired runs")
    parser.add_argument("--after", type=Path, help="check: the checkout to pair with --before, with its own .venv "
                                                    "(default: this one, with this Python)")
    parser.add_argument("--only", nargs="+", help="failing: only the rows whose names hold one of these words")
    parser.add_argument("--handout", type=Path, help="failing: a student handout (grade export) with its own "
                                                      ".venv, whose stubs and public mistakes are graded instead")
    args = parser.parse_args()
    rows: list[tuple[str, str, str]] = []
    for name in args.parts or [part for part in PARTS if part not in ("users", "failing", "check", "warm-failing")]:
        if name == "users":
            bench_users(rows, args.user, args.user_kit)
        elif name == "failing":
            bench_failing(rows, args.before, args.only, args.handout)
        elif name == "check":
            bench_check(rows, args.before, args.after)
        else:
            PARTS[name](rows)
    print(f"{time.strftime('%Y-%m-%d')} · {machine()}\n")
    print("| measure | figure | against |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
