"""What `grade` shows a student: the result table, failures in words, the progress list and the hints.

Everything here only reads reports and prints them; the reports themselves stay as the runner
wrote them, so CI sees the same facts in plainer form. rich turns colour off when the output is
not a terminal or NO_COLOR is set, and wraps (never cuts) text to the terminal's width.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.catalog import Exercise, Kit
from grader.outcomes import Outcome, Status
from grader.report import ReportError, ReportProblem, read_report

OUTCOME_MARKS = {Outcome.PASSED: ("✓", "green"), Outcome.FAILED: ("✗", "red"), Outcome.ERROR: ("!", "red"),
                 Outcome.TIMEOUT: ("⏱", "yellow"), Outcome.CRASHED: ("☠", "red")}
OUTCOME_WORDS = {Outcome.ERROR: "could not run", Outcome.TIMEOUT: "timed out", Outcome.CRASHED: "crashed"}
STATUS_COLOURS = {Status.PASS: "green", Status.FAIL: "yellow", Status.ERROR: "red"}
PROGRESS_MARKS = {"done": ("✓", "green"), "partial": ("◐", "yellow"), "not started": ("○", "dim")}
# A check this slow shows its time: a slow pass may be close to timing out on harder inputs.
SLOW_CHECK_S = 0.5
TIMEOUT_ADVICE = ("A timeout usually means a search that is too slow: a missing memo, "
                  "a missing cutoff, or an infinite loop.")
# Enough of the student's printed output to recognise it; the report holds the rest.
OUTPUT_LINES = 10
PROGRESS_BAR_WIDTH = 30
# Failure messages are indented under their check's name.
INDENT = 6


def prepare() -> None:
    """Print a line of marks off-screen, so that rich loads what it loads on first use (its emoji
    names, its table of character widths) while the checks run, not while the student waits."""
    import io

    Console(file=io.StringIO(), highlight=False).print(" ".join(mark for mark, _ in OUTCOME_MARKS.values()))


def print_wrapped(console: Console, text: Text, indent: int = 0) -> None:
    """Print `text` wrapped to the console's width, each line indented, with no trailing blanks (unlike Padding)."""
    for line in text.wrap(console, max(console.width - indent, 20)):
        line.rstrip()
        console.print(Text(" " * indent) + line)


def _mark(outcome: str) -> Text:
    symbol, colour = OUTCOME_MARKS.get(outcome, ("?", "red"))
    return Text(symbol, style=colour)


def _points(test: dict) -> str:
    return f"{test['score']:g}/{test['max_score']:g}"


def _memory_limit(sandbox: dict) -> str:
    memory_mb = sandbox.get("memory_mb")
    return f"limit {memory_mb} MB" if memory_mb else "its memory limit"


def crash_in_words(failure: dict, sandbox: dict) -> str:
    """A crashed check's failure (its kind and facts), said for a student rather than for the grader."""
    process = "the process running your code"
    during = failure.get("call") or "the check"
    kind = failure["kind"]
    if kind == "memory":
        limit = failure.get("limit_mb")
        return f"{during}: {process} ran out of memory ({f'limit {limit} MB' if limit else _memory_limit(sandbox)})"
    if kind == "exit":
        status = failure.get("exit_status")
        if status is None:  # a hidden check: the status is a number the student picked
            return f"your code ended the process it was running in (during {during})"
        return f"{process} exited during {during} (status {status}): a call to os._exit, or a crash of the interpreter"
    name = failure.get("signal")
    words = {
        # Running out of memory under a memory cgroup is its own kind, said above; a bare SIGKILL is
        # some other limit or process, so it is not guessed at here.
        "SIGKILL": f"was killed ({name}) during {during}: a limit of the sandbox or another process stopped it",
        "SIGSEGV": f"crashed ({name}, a segmentation fault) during {during}; on Python 3.11 this is "
                   "often very deep recursion, which overflows the C stack",
        "SIGXCPU": f"used up its CPU time ({name}) during {during}: a search that never ends, or one far too slow",
        "SIGXFSZ": f"wrote more than the file size limit allows ({name}) during {during}: too much output?",
    }.get(name)
    if words:
        return f"{process} {words}"
    return f"{process} crashed during {during}: " + (f"killed by {name}" if name else "it stopped answering")


def whole_seconds_in_words(seconds: int) -> str:
    """A count of whole seconds as a person says it: a wait rounded down to 0 s was still a wait."""
    if seconds < 1:
        return "less than a second"
    return "1 second" if seconds == 1 else f"{seconds} seconds"


def timeout_in_words(failure: dict) -> str:
    """A timed-out check's failure, saying which time limit it ran into."""
    limit = f"{failure['limit_s']:g}"
    if failure.get("call"):
        return f"{failure['call']} did not return within the {limit} s allowed for one call"
    return f"the whole check did not finish within the {limit} s it is allowed"


def failure_lines(test: dict, sandbox: dict) -> list[Text]:
    """A failed check's message as lines for a student: limits and crashes in words, hints marked."""
    message = test["message"] or "this check failed"
    first, *rest = message.splitlines() or [message]
    failure = test.get("failure") or {"kind": "error"}
    lines: list[Text] = []
    if test["outcome"] == Outcome.CRASHED and failure["kind"] in ("crash", "exit", "memory"):
        first = crash_in_words(failure, sandbox)
    elif test["outcome"] == Outcome.TIMEOUT and failure["kind"] == "timeout":
        first = timeout_in_words(failure)
    elif failure["kind"] == "raised" and failure.get("exception") == "MemoryError":
        # RLIMIT_AS makes an allocation fail inside the student's code, which then raises MemoryError.
        lines.append(Text(f"your code ran out of memory ({_memory_limit(sandbox)})"))
    for line in (first, *rest):
        if line.startswith("Hint: "):
            lines.append(Text.assemble(("Hint: ", "bold cyan"), line[len("Hint: "):]))
        else:
            lines.append(Text(line))
    return lines


def _check_table(tests: list[dict]) -> Table:
    """One row per check: outcome mark, name (wrapped, never cut), points, and the time of slow ones."""
    slow = any(test["duration_s"] >= SLOW_CHECK_S for test in tests)
    table = Table(box=None, padding=(0, 1), header_style="bold", pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("check", overflow="fold", ratio=1)
    table.add_column("points", justify="right", no_wrap=True)
    if slow:
        table.add_column("time", justify="right", no_wrap=True)
    for test in tests:
        name = Text(test["name"])
        if test["visibility"] == "hidden":
            name.append(" (hidden)", style="dim")
        row = [_mark(test["outcome"]), name, Text(_points(test), style="dim")]
        if slow:
            row.append(Text(f"{test['duration_s']:.1f} s" if test["duration_s"] >= SLOW_CHECK_S else "", style="dim"))
        table.add_row(*row)
    return table


def output_lines(output: str) -> list[Text]:
    """The first lines of what the student's code printed, each marked, and how many more the report holds."""
    lines = output.splitlines()
    shown = [Text(f"| {line}", style="dim") for line in lines[:OUTPUT_LINES]]
    if len(lines) > OUTPUT_LINES:
        shown.append(Text(f"| ... {len(lines) - OUTPUT_LINES} more lines in the report", style="dim"))
    return shown


def _print_failure(console: Console, test: dict, sandbox: dict, advise_timeout: bool) -> None:
    heading = Text("  ")
    heading.append_text(_mark(test["outcome"]))
    heading.append(f" {test['name']}", style="bold")
    heading.append(f"  {_points(test)}", style="dim")
    if test["outcome"] in OUTCOME_WORDS:
        heading.append(f"  {OUTCOME_WORDS[test['outcome']]}", style=OUTCOME_MARKS[test["outcome"]][1])
    console.print(heading)
    lines = failure_lines(test, sandbox)
    if advise_timeout:
        lines.append(Text(TIMEOUT_ADVICE, style="italic"))
    if test["output"]:
        lines.append(Text("your output:", style="dim"))
        lines.extend(output_lines(test["output"]))
    for line in lines:
        print_wrapped(console, line, INDENT)


def print_failures(console: Console, report: dict) -> None:
    """The failed checks after the table: public ones, then hidden ones (name, message and hint only).

    A public check's message holds pytest's assertion, so it shows what was expected and what came
    back; a hidden check's report already holds no more than its inputs allow.
    """
    if report["status"] == Status.ERROR:
        return  # nothing ran, and every check says the same thing: the report's message says it once
    sandbox = report["environment"].get("sandbox") or {}
    advised = False
    groups = (("public", "Failed public checks"),
              ("hidden", "Failed hidden checks (their inputs stay secret)"))
    for visibility, title in groups:
        failed = [t for t in report["tests"] if t["visibility"] == visibility and t["outcome"] != Outcome.PASSED]
        if not failed:
            continue
        console.print()
        console.print(Text(title, style="bold"))
        for test in failed:
            advise = test["outcome"] == Outcome.TIMEOUT and not advised
            advised = advised or advise
            _print_failure(console, test, sandbox, advise)


# The checks a diagnosis names on the terminal; the report lists them all.
DIAGNOSIS_CHECKS_SHOWN = 4


def plain_why(why: str) -> str:
    """A mistake's why as terminal text: the mutants' ``code`` marks read as `code`."""
    return why.replace("``", "`")


def print_diagnosis(console: Console, report: dict) -> None:
    """Under the failed checks: each known mistake the student's answers match, and on which checks."""
    names = {test["id"]: test["name"] for test in report["tests"]}
    for entry in report.get("diagnosis") or []:  # a report from before diagnoses has none
        console.print()
        print_wrapped(console, Text.assemble(("Your answers match a known mistake: ", "bold yellow"),
                                             plain_why(entry["why"])))
        checks = [names.get(check, check) for check in entry["checks"]]
        print_wrapped(console, Text("on the checks:", style="dim"), INDENT)
        for name in checks[:DIAGNOSIS_CHECKS_SHOWN]:
            print_wrapped(console, Text(f"- {name}", style="dim"), INDENT)
        if len(checks) > DIAGNOSIS_CHECKS_SHOWN:
            more = len(checks) - DIAGNOSIS_CHECKS_SHOWN
            print_wrapped(console, Text(f"and {more} more check{'s' if more > 1 else ''}", style="dim"), INDENT)


def notebook_note(submission: dict) -> str | None:
    """The line saying which of a notebook's cells had IPython magics or shell lines left out, if any did."""
    cells = (submission.get("notebook") or {}).get("magic_cells") or []
    if not cells:
        return None
    named = f"cells {', '.join(map(str, cells[:-1]))} and {cells[-1]}" if len(cells) > 1 else f"cell {cells[0]}"
    return f"{submission['notebook']['file']}: IPython magics and shell lines were left out of {named}"


def print_report(console: Console, report: dict, where: list[str], withheld: dict | None = None) -> None:
    """One exercise's result: its score and check table, then the rest (print_report_rest)."""
    print_score_and_table(console, report)
    print_report_rest(console, report, where, withheld)


def print_score_and_table(console: Console, report: dict) -> None:
    """The exercise, its check table and its score: what a grade shows as soon as its last check ends."""
    exercise = report["exercise"]
    print_wrapped(console, Text.assemble((f"{exercise['id']} {exercise['title']}", "bold"), "  ",
                                         (f"({report['submission']['path']})", "dim")))
    left_out = notebook_note(report["submission"])
    if left_out:
        print_wrapped(console, Text(left_out, style="dim"))
    if report["tests"]:
        console.print(_check_table(report["tests"]))
    console.print()
    colour = STATUS_COLOURS[report["status"]]
    console.print(Text.assemble((f"Score {report['score']:g}/{report['max_score']:g} ({report['status']})",
                                 f"bold {colour}"), "  ", (f"seed {report['seed']}", "dim")))
    console.file.flush()  # shown now, also through a pipe, while the explanations are worked out


def print_report_rest(console: Console, report: dict, where: list[str], withheld: dict | None = None) -> None:
    """What follows the score: what the module printed, the failures in words, the diagnosis, and notes."""
    printed = report["submission"].get("import_output")
    if printed:
        console.print()
        console.print(Text("Your module printed while it was imported:", style="dim"))
        for line in output_lines(printed):
            print_wrapped(console, line, 2)
    print_failures(console, report)
    print_diagnosis(console, report)
    if report["message"]:
        console.print()
        prefix = "Nothing could be graded: " if report["status"] == Status.ERROR else ""
        print_wrapped(console, Text(prefix + report["message"], style="bold red"))
    cpu = report["environment"]["sandbox"].get("cpu") or {}
    notes = []
    if cpu.get("contended"):
        waited = whole_seconds_in_words(cpu["waited_s"])
        notes.append(Text(f"This grade waited {waited} for a CPU while the machine was busy, so "
                          "a timeout may say more about the machine than about your code. Grade again "
                          "when it is quieter.", style="yellow"))
    if withheld:
        notes.append(Text(f"These were the public checks. When your work is marked, {withheld['checks']} "
                          f"hidden checks worth {withheld['points']:g} points also run.", style="dim"))
    notes.extend(Text(f"Report written to {path}", style="dim") for path in where)
    if notes:
        console.print()
    for note in notes:
        print_wrapped(console, note)


def print_overview(console: Console, summary: dict, where: list[str]) -> None:
    """One line per exercise with its score and status, then the total, for `grade --all`."""
    for report in summary["exercises"]:
        exercise = report["exercise"]
        console.print(Text.assemble(f"  {exercise['id']} {exercise['title']}  "
                                    f"{report['score']:g}/{report['max_score']:g}  ",
                                    (report["status"], STATUS_COLOURS[report["status"]])))
        if report["message"]:
            print_wrapped(console, Text(report["message"], style="dim"), INDENT)
    colour = STATUS_COLOURS[summary["status"]]
    console.print(Text(f"Total {summary['score']:g}/{summary['max_score']:g} ({summary['status']})",
                       style=f"bold {colour}"))
    for path in where:
        console.print(Text(f"Report written to {path}", style="dim"))


@dataclass(frozen=True)
class ExerciseProgress:
    """One exercise's line in `grade`: its last result, read from reports/exNN.json."""

    exercise: Exercise
    status: str
    """"not started", "partial" or "done"."""
    score: float | None
    max_score: float | None
    problem: str | None
    """Why the last report could not be read, if it could not."""

    @property
    def fraction(self) -> float:
        """How much of the exercise is done, from 0 to 1."""
        if self.status == "done":
            return 1.0
        if not self.max_score:
            return 0.0
        return min(max(self.score / self.max_score, 0.0), 1.0)


# What the progress list says of a last report it cannot use.
PROGRESS_PROBLEM_WORDS = {
    ReportProblem.UNREADABLE: "cannot be read ({})", ReportProblem.NOT_TEXT: "cannot be read ({})",
    ReportProblem.NOT_JSON: "is not valid JSON", ReportProblem.MALFORMED: "is not a report of this exercise",
}


def read_progress(kit: Kit, exercise: Exercise) -> ExerciseProgress:
    """The exercise's last result; a missing report means not started, a damaged one is said so."""
    path = kit.progress_path(exercise)
    if not path.exists():
        return ExerciseProgress(exercise, "not started", None, None, None)
    try:
        last = read_report(path)
    except ReportError as exc:
        return ExerciseProgress(exercise, "not started", None, None, PROGRESS_PROBLEM_WORDS[exc.problem].format(exc.detail))
    if last["exercise"]["id"] != exercise.id:
        return ExerciseProgress(exercise, "not started", None, None, PROGRESS_PROBLEM_WORDS[ReportProblem.MALFORMED])
    status = "done" if last["status"] == Status.PASS else "partial"
    return ExerciseProgress(exercise, status, float(last["score"]), float(last["max_score"]), None)


def _bar(fraction: float) -> Text:
    """A bar that still reads without colour: full blocks done, light shade to go."""
    filled = round(fraction * PROGRESS_BAR_WIDTH)
    return Text.assemble(("█" * filled, "green"), ("░" * (PROGRESS_BAR_WIDTH - filled), "dim"))


def print_progress(console: Console, kit: Kit, rows: list[ExerciseProgress]) -> None:
    """Every exercise with its title, last score and status, the overall progress and what to do next."""
    if not rows:
        console.print("This kit has no exercises yet.")
        return
    table = Table(box=None, padding=(0, 1), header_style="bold", pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("exercise", no_wrap=True)
    table.add_column("title", overflow="fold", ratio=1)
    table.add_column("last score", justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for row in rows:
        symbol, colour = PROGRESS_MARKS[row.status]
        score = "-" if row.score is None else f"{row.score:g}/{row.max_score:g}"
        table.add_row(Text(symbol, style=colour), Text(row.exercise.name), Text(row.exercise.title), Text(score),
                      Text(row.status, style=colour))
    console.print(table)
    for row in rows:
        if row.problem:
            path = kit.progress_path(row.exercise).relative_to(kit.root).as_posix()
            print_wrapped(console, Text(f"! {path} {row.problem}, so {row.exercise.id} shows as not started; "
                                        f"grade {row.exercise.id} writes it again.", style="yellow"))
    done = sum(row.status == "done" for row in rows)
    # Each exercise counts equally: not-started ones have no known point total to add up.
    percent = int(100 * sum(row.fraction for row in rows) / len(rows))
    console.print()
    console.print(Text.assemble(("Progress: ", "bold"), f"{done}/{len(rows)} done, {percent}%  ",
                                _bar(percent / 100)))
    following = next((row for row in rows if row.status != "done"), None)
    if following is None:
        console.print(Text(f"All {len(rows)} exercises done.", style="bold green"))
        return
    exercise = following.exercise
    so_far = f" ({following.score:g}/{following.max_score:g} so far)" if following.status == "partial" else ""
    print_wrapped(console, Text.assemble(
        ("Next: ", "bold"), f"{exercise.id} {exercise.title}{so_far}. Edit ",
        (exercise.stub_path.relative_to(kit.root).as_posix(), "bold"), ", then run ",
        (f"grade {exercise.id}", "bold"), f" (or grade {exercise.id} --watch)."))
    console.print(Text(f"Stuck? grade hint {exercise.id} shows one hint more each time.", style="dim"))


def print_hints(console: Console, exercise: Exercise, shown: int) -> None:
    """The hints seen so far, and how to get the next one."""
    for number, hint in enumerate(exercise.hints[:shown], start=1):
        console.print(Text.assemble((f"Hint {number} of {len(exercise.hints)}", "bold"), f" ({exercise.id}): {hint}"))
    if shown == len(exercise.hints):
        console.print(Text("That is the last hint.", style="dim"))
    else:
        console.print(Text(f"Run grade hint {exercise.id} again for the next one.", style="dim"))
