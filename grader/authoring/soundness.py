"""`grade check`: prove an exercise sound by grading its reference, alt, wrong and stub solutions."""

from __future__ import annotations

import ast
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from grader.catalog import PUBLIC_CHECKS, Exercise, Kit, KitError
from grader.failures import FailureKind, caught_on_an_answer
from grader.known_mistakes import MUTANTS_FILE, Mutant, known_mistakes, load_mutants, write_mutant
from grader.authoring.nothing import NothingModule, battery, recorded_answers
from grader.outcomes import Status
from grader.grading import REFERENCE, StopAt, alike, grade, grade_recording_calls, in_parallel
from grader.run_contract import CallRecording
from grader.submission import Submission

if TYPE_CHECKING:
    from grader.grading import Launcher

T = TypeVar("T")

# Random checks must catch every wrong solution whatever the seed; a few fixed seeds stand in for "any".
DEFAULT_SEEDS = (1, 2, 20261129)
# Hand-written code that computes nothing, beside the generated battery: each file there must score 0.
NOTHING_DIR = "nothing"
# A known mistake graded here must be diagnosed as itself; the diagnosis gets this long, so that a busy
# machine cannot cut it short (a student's grade gives it a share of the grade's time instead).
DIAGNOSIS_PROOF_LIMIT_S = 60.0
# How long telling every pair of known mistakes apart, on all the reference's calls, may take.
ALIKE_LIMIT_S = 300.0
@dataclass
class ExerciseCheck:
    """What `grade check` found for one exercise: a summary of what held, and every problem."""

    exercise: Exercise
    problems: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the exercise is sound."""
        return not self.problems


def _defined_functions(path: Path) -> set[str]:
    """Top-level function names of a Python file, read without running it."""
    return {node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _imports_solutions(path: Path) -> bool:
    """Whether a check file imports anything from solutions/ (checks must compute their own answers)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            if any("solution" in name for name in names):
                return True
    return False


def _requirements(path: Path) -> dict[str, list[str]]:
    """The test functions of a check file, each with the names its @pytest.mark.requires gives."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = [arg.value for decorator in node.decorator_list
                                if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                                and decorator.func.attr == "requires"
                                for arg in decorator.args if isinstance(arg, ast.Constant)]
    return found


def static_problems(kit: Kit, exercise: Exercise) -> list[str]:
    """Problems visible without grading: files, # TODOs, hints, function names, forbidden imports."""
    problems = []
    solutions = exercise.solution_dir(kit.root)
    reference = solutions / exercise.module
    for required in (exercise.path / "README.md", exercise.stub_path, reference):
        if not required.is_file():
            problems.append(f"{required.relative_to(kit.root)} is missing")
    if exercise.stub_path.is_file() and "# TODO" not in exercise.stub_path.read_text(encoding="utf-8"):
        problems.append(f"{exercise.stub_path.name}: the stub has no # TODO markers")
    if not exercise.hints:
        problems.append("exercise.toml: hints is empty")
    for path in (exercise.stub_path, reference):
        if path.is_file():
            missing = sorted(set(exercise.functions) - _defined_functions(path))
            if missing:
                problems.append(f"{path.relative_to(kit.root)} does not define {', '.join(missing)}")
    if not list(solutions.glob("alt/*.py")):
        problems.append("solutions: no alt/ solution (at least one plain, naive one is required)")
    if not list(solutions.glob("wrong/*.py")) and not (solutions / MUTANTS_FILE).is_file():
        problems.append(f"solutions: no known mistake (a wrong/ solution or {MUTANTS_FILE})")
    for path in exercise.checks_dir.glob("*.py"):
        if _imports_solutions(path):
            problems.append(f"{path.relative_to(kit.root)} imports from solutions/")
    public = exercise.checks_dir / PUBLIC_CHECKS
    if public.is_file():
        # The handout ships the public checks alone, so a public check may wait only on public ones.
        defined = _requirements(public)
        for name, required in defined.items():
            for missing in [name for name in required if name not in defined]:
                problems.append(f"{public.relative_to(kit.root)}: {name} requires {missing}, which is not a "
                                "public check, so the handout could not collect it")
    return problems


def _function(test: dict) -> str:
    """The test function a report entry is a case of: the id is pytest's `file::function[case]`."""
    return test["id"].split("::", 1)[1].split("[", 1)[0]


def mutant_problems(mutant: Mutant, seed: int, report: dict) -> list[str]:
    """Why a graded mutant is not proved: it kept full marks, its caught_by checks passed, only timeouts
    caught it, or it cost more than its max_cost."""
    where = f"mutant {mutant.name!r} (seed {seed})"
    if run_failed(report):
        return [f"{where} could not be graded: {report['message']}"]
    lost = [test for test in report["tests"] if test["score"] < test["max_score"]]
    if not lost:
        return [f"{where} got full marks: a check is missing ({mutant.why})"]
    timing_out = "only by timing out, which does not show that a check catches it (a busy machine times out first)"
    problems = _cost_problems(mutant, where, report, lost)
    if mutant.caught_by:
        for check in mutant.caught_by:
            failed = [test for test in lost if _function(test) == check]
            if not failed:
                problems.append(f"{where}: {check}, in its caught_by, did not fail")
            elif not any(map(_caught, failed)) and not mutant.deadline:
                problems.append(f"{where}: {check}, in its caught_by, failed {timing_out}; if only a deadline "
                                "can catch this mistake, say why in the mutant's 'deadline'")
        return problems
    if not any(map(_caught, lost)):
        timed_out = ", ".join(_function(test) for test in lost if _kind(test) == FailureKind.TIMEOUT)
        problems.append(f"{where} lost points {timing_out}" + (f" (timed out: {timed_out})" if timed_out else ""))
    return problems


def _cost_problems(mutant: Mutant, where: str, report: dict, lost: list[dict]) -> list[str]:
    """A mutant that costs more than its max_cost: the cost, the cap and the checks that took the points."""
    if mutant.max_cost is None:
        return []
    cost = report["max_score"] - report["score"]
    # Scores are sums of whole and half points; the slack only absorbs float rounding.
    if cost <= mutant.max_cost + 1e-9:
        return []
    by_check: dict[str, float] = {}
    for test in lost:  # a parametrized check's cases add up under its function's name
        by_check[_function(test)] = by_check.get(_function(test), 0.0) + test["max_score"] - test["score"]
    taken = ", ".join(f"{check} {points:g}" for check, points in by_check.items())
    return [f"{where} costs {cost:g} points, over its max_cost of {mutant.max_cost:g}: {taken}"]


def run_failed(report: dict) -> bool:
    """Whether the grading run itself failed, so that no check counted: not the submission's doing
    (its import failing is), but the run's, such as an internal error or its outer limit."""
    return report["status"] == Status.ERROR and bool(report["tests"]) and all(
        _kind(test) == FailureKind.ERROR for test in report["tests"])


def rests_on_the_machine(kind: str, mutant: Mutant | None, seed: int | None, report: dict) -> bool:
    """Whether a grade's verdict in grade check hangs on the machine rather than the code: a correct
    solution that lost points with a check timing out, or a known mistake that a timeout alone kept
    from being caught; or either one's grading run failing."""
    timed_out = any(_kind(test) == FailureKind.TIMEOUT for test in report["tests"] if test["score"] < test["max_score"])
    chance = timed_out or run_failed(report)
    if kind in ("reference", "alt"):
        return chance and report["status"] != Status.PASS
    return kind == "mutant" and mutant is not None and chance and bool(mutant_problems(mutant, seed, report))


def regraded_alone(outcomes: list[tuple[T, dict]], run: Callable[[T], tuple[T, dict]],
                   rests: Callable[[T, dict], bool]) -> list[tuple[T, dict]]:
    """The (job, report) outcomes, with each grade whose verdict `rests` on the machine graded once more, alone.

    Grades run side by side here, and on a busy machine a check can pass its deadline for that alone
    (grade batch regrades a contended grade for the same reason). A real timeout comes back the
    second time too, so nothing is forgiven: only the load is taken away. A grading run that failed
    is graded again for the same reason; one that fails every time fails the second time too.
    """
    return [run(job) if rests(job, report) else (job, report) for job, report in outcomes]


def _kind(test: dict) -> str | None:
    return (test.get("failure") or {}).get("kind")


def _caught(test: dict) -> bool:
    """Whether a check that lost points caught the mistake itself: not by a deadline, by waiting on a
    check that failed, or by being left unrun once another check had caught it."""
    return caught_on_an_answer(_kind(test))


def _lost(report: dict) -> str:
    """What a grade that should have got full marks lost, in words: each check, or why its run failed."""
    if run_failed(report):
        return report["message"]
    lost = [f"{test['name']} ({test['outcome']})" for test in report["tests"] if test["score"] < test["max_score"]]
    return "; ".join(lost) or report["message"]


def _stop_at(kind: str, mutant: Mutant | None) -> StopAt:
    """How far a grade of grade check must go: a known mistake needs only to be caught, the rest all the way.

    A wrong/ solution must lose points, however; a mutant must lose them on a value, an exception or
    a crash, unless it names the checks that must fail (caught_by) or caps its cost (max_cost):
    then every check runs, since each one's outcome counts.
    """
    if kind == "wrong":
        return StopAt.FIRST_FAILURE
    if kind == "mutant" and mutant is not None and not mutant.caught_by and mutant.max_cost is None:
        return StopAt.FIRST_CATCH
    return StopAt.NEVER


def first_seed_checks(mutant: Mutant | None) -> frozenset[str]:
    """The test functions a known mistake's grade runs (empty: every one): a mutant whose verdict rests
    on its caught_by checks alone, with no max_cost to add up, runs just those."""
    if mutant is not None and mutant.caught_by and mutant.max_cost is None:
        return frozenset(mutant.caught_by)
    return frozenset()


def later_seed_checks(kind: str, mutant: Mutant | None, first: dict | None,
                      dependent: frozenset[str]) -> frozenset[str] | None:
    """The test functions a known mistake's grade under a later seed must run, given its grade under
    the first: None when the first seed's verdict stands for every seed, empty for every check.

    The seed reaches only the checks that take `rng` (`dependent`): any other check asks the same
    calls under every seed, so its outcome under the first seed is its outcome under all. A later
    seed runs only what the seed can change, and the rest is carried over (carried_over()).
    """
    if not dependent:
        return None
    if first is None or run_failed(first):  # nothing to carry over: grade it whole
        return frozenset()
    stop_at = _stop_at(kind, mutant)
    if stop_at is not StopAt.NEVER:
        # Caught on an answer by a check the seed cannot change: every seed catches it there. Otherwise
        # the grade runs whole, since a check the first grade stopped before may be the one that catches it.
        caught_for_good = any(_caught(test) and _function(test) not in dependent for test in _lost_tests(first))
        return None if caught_for_good else frozenset()
    rests_on = first_seed_checks(mutant)
    if rests_on:  # its verdict is its caught_by checks' outcomes
        return (rests_on & dependent) or None
    return dependent  # a max_cost adds up every check


def carried_over(first: dict, later: dict, ran: frozenset[str]) -> dict:
    """A later seed's grade of the checks in `ran`, with every other check's outcome carried over
    from the first seed's grade, marked `carried_over`; score and status are the sum of both."""
    tests = []
    for before, now in zip(first["tests"], later["tests"], strict=True):
        if before["id"] != now["id"]:
            raise ValueError(f"the two grades list different checks: {before['id']} and {now['id']}")
        tests.append(now if _function(now) in ran else {**before, "carried_over": True})
    score = sum(test["score"] for test in tests)
    status = later["status"] if run_failed(later) else Status.PASS if score >= later["max_score"] else Status.FAIL
    return {**later, "tests": tests, "score": score, "status": status}


def _lost_tests(report: dict) -> list[dict]:
    return [test for test in report["tests"] if test["score"] < test["max_score"]]


class _FirstSeedGrades:
    """Each known mistake's grade under the first seed, which its later seeds' jobs wait for."""

    def __init__(self) -> None:
        self._graded = threading.Condition()
        self._reports: dict[Path, dict | None] = {}

    def put(self, path: Path, report: dict | None) -> None:
        """The first seed's grade of this mistake; None if it raised (the later seeds then grade whole)."""
        with self._graded:
            self._reports[path] = report
            self._graded.notify_all()

    def get(self, path: Path) -> dict | None:
        """Wait for the first seed's grade of this mistake."""
        with self._graded:
            self._graded.wait_for(lambda: path in self._reports)
            return self._reports[path]


def check_exercise(kit: Kit, exercise: Exercise, seeds=DEFAULT_SEEDS, jobs: int | None = None,
                   launcher: Launcher | None = None) -> ExerciseCheck:
    """Grade the exercise's reference, alts, wrongs (under every seed) and stub, and say what is wrong;
    with `launcher` (grading.grading_launcher()), every grading process is forked from it."""
    result = ExerciseCheck(exercise, problems=static_problems(kit, exercise))
    solutions = exercise.solution_dir(kit.root)
    reference = solutions / exercise.module
    if result.problems and not reference.is_file():
        return result
    with tempfile.TemporaryDirectory(prefix="minimax-kit-nothing-") as scratch:
        try:
            answers = recorded_answers(exercise, reference)
        except KitError as exc:  # the reference's public run did not end, or recorded nothing
            result.problems.append(str(exc))
            answers = {}
        nothing = battery(exercise, answers, Path(scratch) / "nothing")
        nothing += [NothingModule(f"{path.relative_to(kit.root)}", path)
                    for path in sorted(solutions.glob(f"{NOTHING_DIR}/*.py"))]
        labels = {module.path: module.label for module in nothing}
        mutants = {}
        try:
            for mutant in load_mutants(exercise, kit.root):
                mutants[write_mutant(exercise, kit.root, mutant, Path(scratch) / "mutants")] = mutant
        except KitError as exc:  # a malformed file, a stale find or an edit that does not compile
            result.problems.append(str(exc))
        try:
            library = known_mistakes(exercise, kit.root)
        except KitError as exc:  # then no grade could diagnose: that one problem says why
            if str(exc) not in result.problems:  # a broken mutants.toml is said once, above
                result.problems.append(str(exc))
            library = None
        # A mistake of time alone (a `deadline` reason) runs its checks to their limits, the longest grades
        # by far: they start first, so that none is left running alone at the end while a CPU sits idle.
        slow = [path for path in mutants if mutants[path].deadline]
        mistakes = [*slow, *sorted(solutions.glob("wrong/*.py")), *(path for path in mutants if path not in slow)]
        first_seed, later_seeds = seeds[0], seeds[1:]
        runs = [("reference", reference, None)]
        runs += [("mutant", path, first_seed) for path in slow]
        runs += [("alt", path, None) for path in sorted(solutions.glob("alt/*.py"))]
        runs += [("stub", exercise.stub_path, None)]
        # Telling the known mistakes apart takes one CPU for a while, on the reference's calls: it runs
        # as one of the jobs, begun once the first few have started, rather than alone after them all.
        if library is not None:
            runs.append(("alike", None, None))
        runs += [("nothing", module.path, None) for module in nothing]
        runs += [(_mistake_kind(path, mutants), path, first_seed) for path in mistakes if path not in slow]
        # Last, so that each one's first-seed grade, which it waits for, has long begun.
        runs += [(_mistake_kind(path, mutants), path, seed) for path in mistakes for seed in later_seeds]

        calls = {}
        reference_graded = threading.Event()
        dependent = frozenset(seed_dependent_checks(exercise))
        first_grades = _FirstSeedGrades()

        def run(job):
            kind, path, seed = job
            if kind == "reference":  # its calls, every check's, are what the known mistakes are told apart on
                try:
                    report, calls["reference"] = grade_recording_calls(kit, exercise, Submission(path, path.name),
                                                                       CallRecording.ALL, launcher=launcher)
                finally:
                    reference_graded.set()
                return job, report
            if kind == "alike":
                reference_graded.wait()  # the first job: it has begun before this one
                timed = {mutant.name for mutant in mutants.values() if mutant.deadline}
                return job, _alike_problems(kit, exercise, library, calls.get("reference") or {}, timed)
            mutant = mutants.get(path)

            def graded(only: frozenset[str] = frozenset()) -> dict:
                # Only a known mistake's diagnosis is read (each must be diagnosed as itself), under the
                # proof's whole limit. The rest (the stub, the alts, code that computes nothing) are graded
                # for their score alone: a diagnosis of theirs would only take a CPU from the other jobs.
                mistake = kind in ("mutant", "wrong")
                return grade(kit, exercise, Submission(path, path.name), seed=seed, stop_at=_stop_at(kind, mutant),
                             diagnosis_limit_s=DIAGNOSIS_PROOF_LIMIT_S if mistake else None, explain=False,
                             launcher=launcher, diagnosis_target=_mistake_name(kind, path, mutants), only=only,
                             diagnose=mistake)

            if kind not in ("mutant", "wrong"):
                return job, graded()
            if seed == first_seed:
                report = None
                try:
                    report = graded(first_seed_checks(mutant))
                finally:
                    first_grades.put(path, report)
                return job, report
            first = first_grades.get(path)
            only = later_seed_checks(kind, mutant, first, dependent)
            if only is None:  # the first seed's verdict stands for this one
                return job, None
            return job, carried_over(first, graded(only), only) if only else graded()

        graded = in_parallel(run, runs, jobs)
        result.problems.extend(problem for (kind, _, _), problems in graded if kind == "alike" for problem in problems)
        standing = sum(report is None for _, report in graded)
        outcomes = regraded_alone([outcome for outcome in graded if outcome[0][0] != "alike" and outcome[1] is not None],
                                  run,
                                  lambda job, report: rests_on_the_machine(job[0], mutants.get(job[1]), job[2], report))
    nothing_at_zero = sum(kind == "nothing" and report["score"] == 0 for (kind, _, _), report in outcomes)
    for (kind, path, seed), report in outcomes:
        if kind == "nothing":
            if report["score"] > 0:
                paid = ", ".join(test["name"] for test in report["tests"] if test["score"] > 0)
                result.problems.append(f"code that computes nothing ({labels[path]}) scored "
                                       f"{report['score']:g}/{report['max_score']:g}: {paid}")
            continue
        if kind in ("mutant", "wrong") and library is not None:
            name = _mistake_name(kind, path, mutants)
            diagnosed = [entry["mistake"] for entry in report["diagnosis"]]
            # Only a check that failed on an answer can be diagnosed by answers: one that only timed
            # out (a busy machine's deadline comes first) shows nothing a replay could match.
            # Its own: a check carried over from the first seed was diagnosed in that grade.
            answered = any(_caught(test) for test in _lost_tests(report) if not test.get("carried_over"))
            if answered and name not in diagnosed:
                instead = f"as {', '.join(diagnosed)} instead" if diagnosed else "as no known mistake"
                result.problems.append(f"{exercise.id} {kind} {name!r} (seed {seed}) is diagnosed {instead}: "
                                       "its answers on a failed check's calls differ from its own code's, "
                                       "so a check may change an argument after passing it (docs/authoring.md)")
        if kind == "mutant":
            result.problems.extend(f"{exercise.id} {problem}" for problem in mutant_problems(mutants[path], seed, report))
            continue
        shown = path.relative_to(kit.root)
        if kind in ("reference", "alt") and report["status"] != Status.PASS:
            result.problems.append(f"{shown} must get full marks but scored "
                                   f"{report['score']:g}/{report['max_score']:g}: {_lost(report)}")
        elif kind == "stub":
            if exercise.stub_may_score is None and report["score"] > 0:
                result.problems.append(f"{shown}: the untouched stub must score 0 but scored {report['score']:g}")
            elif report["status"] == Status.PASS:
                result.problems.append(f"{shown}: the untouched stub passes every check")
            result.facts.append(f"stub {report['score']:g}/{report['max_score']:g}")
        elif kind == "wrong" and report["score"] >= report["max_score"]:
            result.problems.append(f"{shown} got full marks with seed {seed}: a check is missing")
        if kind == "reference":
            result.facts.insert(0, f"reference {report['score']:g}/{report['max_score']:g}")
    wrongs = len(list(solutions.glob("wrong/*.py")))
    mistakes = f"{wrongs} wrong" + (f" and {len(mutants)} mutants" if mutants else "")
    result.facts.append(f"{len(list(solutions.glob('alt/*.py')))} alt, {mistakes} x {len(seeds)} seeds, "
                        f"do-nothing {nothing_at_zero}/{len(nothing)} at 0")
    if standing:
        result.facts.append(f"the first seed's verdict stood for {standing} later-seed grades: no check it rests "
                            "on draws from the seed")
    return result


def _mistake_kind(path: Path, mutants: dict[Path, Mutant]) -> str:
    """A known mistake's kind in grade check's jobs: a mutant of the reference, or a wrong/ solution."""
    return "mutant" if path in mutants else "wrong"


def _mistake_name(kind: str, path: Path, mutants: dict[Path, Mutant]) -> str | None:
    """The known mistake a graded program is, by its name in the library; None for the rest."""
    if kind == "mutant":
        return mutants[path].name
    return path.stem if kind == "wrong" else None


def _alike_problems(kit: Kit, exercise: Exercise, mistakes: list, calls: dict, timed: set[str]) -> list[str]:
    """Known mistakes that no check's call tells apart (from each other, or from the reference).

    A mistake of time alone (`timed`: a mutant with a `deadline` reason) may answer as the reference
    does whenever its replay ends within the call's limit, which on a fast moment it may: its own
    deadline catches it, and the answers were never its mark.
    """
    if not calls:
        return []
    groups = alike(calls, mistakes, (exercise.solution_dir(kit.root) / exercise.module).read_text(encoding="utf-8"),
                   ALIKE_LIMIT_S, exercise.given_paths)
    if groups is None:
        return [f"{exercise.id}: telling the known mistakes apart on the checks' calls took over {ALIKE_LIMIT_S:g} s"]
    problems = []
    for group in groups:
        names = [name for name in group if name != REFERENCE]
        if REFERENCE in group:
            names = [name for name in names if name not in timed]
        if not names:
            continue
        listed = " and ".join(repr(name) for name in names)
        if REFERENCE in group:
            problems.append(f"{exercise.id}: known mistake {listed} answers every check's call as the reference "
                            "does, so no diagnosis can name it: sharpen a check")
        else:
            problems.append(f"{exercise.id}: known mistakes {listed} answer every check's call alike, so a "
                            "diagnosis names them together: sharpen a check to tell them apart, or merge them")
    return problems


def seed_dependent_checks(exercise: Exercise) -> list[str]:
    """The checks whose inputs come from the seed: the test functions that take the `rng` fixture."""
    found = []
    for path in exercise.check_files():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                if "rng" in [arg.arg for arg in node.args.args]:
                    found.append(node.name)
    return found


def fair_seeds(count: int) -> tuple[int, ...]:
    """The seeds `grade check --fair-seeds N` grades under: 1 to N, the same on every machine."""
    return tuple(range(1, count + 1))


def check_fairness(kit: Kit, exercise: Exercise, seeds: tuple[int, ...], jobs: int | None = None,
                   launcher: Launcher | None = None) -> ExerciseCheck:
    """Grade the reference and every alt under each seed: each must get full marks on every one.

    Only an exercise with a seed-dependent check is graded; for the others one seed proves as much
    as many, and the ordinary `grade check` grades them.
    """
    result = ExerciseCheck(exercise)
    dependent = seed_dependent_checks(exercise)
    if not dependent:
        result.facts.append("no seed-dependent check")
        return result
    solutions = exercise.solution_dir(kit.root)
    correct = [solutions / exercise.module, *sorted(solutions.glob("alt/*.py"))]
    runs = [(path, seed) for path in correct for seed in seeds]

    def run(job):
        return job, grade(kit, exercise, Submission(job[0], job[0].name), seed=job[1], launcher=launcher)

    outcomes = regraded_alone(in_parallel(run, runs, jobs), run,
                              lambda job, report: rests_on_the_machine("alt", None, job[1], report))
    for (path, seed), report in outcomes:
        if report["status"] != Status.PASS:
            result.problems.append(f"{path.relative_to(kit.root)} must get full marks but scored "
                                   f"{report['score']:g}/{report['max_score']:g} with seed {seed}: {_lost(report)}")
    result.facts.append(f"reference and {len(correct) - 1} alt at full marks on {len(seeds)} seeds "
                        f"({len(dependent)} seed-dependent checks)")
    return result
