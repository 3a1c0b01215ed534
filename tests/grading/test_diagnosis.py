"""The diagnosis: answers compared exactly, known mistakes replayed in a child under a deadline, digests for handouts."""

from __future__ import annotations

import json
import os
import re
import time

import pytest

from grader.failures import FailureKind
from grader.grading.diagnosis import CodeLibrary, RunningDiagnosis, alike, diagnose
from grader.grading.replay import (
    REFERENCE,
    Answer,
    RecordedCall,
    load_program,
    read_calls,
    replay,
    replay_room,
    write_calls,
)
from grader.grading.sealed_mistakes import MistakeDigests, mistake_digests
from grader.known_mistakes import KnownMistake

REFERENCE_CODE = "def double(x):\n    return 2 * x\n\ndef pair(x):\n    return (x, x)\n"
OFF_BY_ONE = KnownMistake("off_by_one", "adds one too many", "def double(x):\n    return 2 * x + 1\n", "mutant")
SQUARES = KnownMistake("squares", "squares instead of doubling", "def double(x):\n    return x * x\n", "mutant")
SAME = KnownMistake("same_as_reference", "a mistake no call shows", REFERENCE_CODE, "mutant")


def returned(function: str, args: tuple, value, observed: bool = False) -> RecordedCall:
    return RecordedCall(function, args, {}, observed, Answer("returned", value), 1.0)


def test_answers_keep_types_apart_and_round_floats():
    assert Answer("returned", (1, 2)).canonical() != Answer("returned", [1, 2]).canonical()
    assert Answer("returned", True).canonical() != Answer("returned", 1).canonical()
    assert Answer("returned", 1).canonical() != Answer("returned", 1.0).canonical()
    assert Answer("returned", 0.1 + 0.2).canonical() == Answer("returned", 0.3).canonical()
    assert Answer("returned", {"a": [1]}).canonical() != Answer("returned", {"a": (1,)}).canonical()
    # a call that ended without an answer is one kind: a replay cannot crash or run out of memory as
    # the worker does, and the same slip that times out on a busy machine fills the memory on a quiet one
    assert len({Answer.failed(kind) for kind in (FailureKind.EXIT, FailureKind.CRASH, FailureKind.MEMORY,
                                                  FailureKind.TIMEOUT)}) == 1
    assert Answer.failed(FailureKind.TIMEOUT) != Answer.failed(FailureKind.BAD_VALUE)


def program(source: str):
    module = load_program("test", source)
    assert module is not None
    return module


def test_a_replay_answers_as_the_worker_would():
    module = program(
        "class Bad(ValueError):\n    pass\n"
        "def raises(x):\n    raise Bad(x)\n"
        "def leaves(x):\n    raise SystemExit(3)\n"
        "def counts(n):\n    yield from range(n)\n"
        "def as_set(x):\n    return {x}\n"
        "def appends(items):\n    items.append(1)\n    return len(items)\n"
        "def loops(x):\n    while True:\n        pass\n")
    assert replay(module, returned("raises", (1,), None)) == Answer("raised", "ValueError")
    assert replay(module, returned("leaves", (1,), None)) == Answer.failed(FailureKind.CRASH)
    assert replay(module, returned("counts", (3,), None)) == Answer("returned", [0, 1, 2])
    assert replay(module, returned("as_set", (1,), None)) == Answer.failed(FailureKind.BAD_VALUE)
    assert replay(module, returned("missing", (1,), None)) == Answer.failed(FailureKind.MISSING)
    items = [0]
    observed = replay(module, returned("appends", (items,), None, observed=True))
    assert observed == Answer("returned", (2, ([0, 1],), {}))
    assert items == [0]  # replayed on a copy: the recorded call is left as it was
    quick = RecordedCall("loops", (1,), {}, False, Answer("returned", None), 0.2)
    started = time.monotonic()
    with replay_room():  # the alarm that ends a replay past its limit
        assert replay(module, quick) == Answer.failed(FailureKind.TIMEOUT)
    assert time.monotonic() - started < 2


def test_a_mistake_is_named_when_it_answers_every_call_as_the_student_and_one_unlike_the_reference():
    library = CodeLibrary([OFF_BY_ONE, SQUARES, SAME], REFERENCE_CODE)
    student = [returned("double", (2,), 5), returned("double", (3,), 7)]
    assert [mistake.name for mistake, _ in library.matches(student)] == ["off_by_one"]
    # 2 * 2 == 2 ** 2: on this call alone squaring cannot be told from doubling, nor from the reference
    assert [mistake.name for mistake, _ in library.matches([returned("double", (2,), 4)])] == []
    assert [mistake.name for mistake, _ in library.matches([returned("double", (3,), 9)])] == ["squares"]


def test_diagnose_runs_in_a_child_keeps_the_widest_match_and_stops_at_its_limit():
    library = CodeLibrary([OFF_BY_ONE, SQUARES], REFERENCE_CODE)
    failed = {"a": [returned("double", (3,), 7)], "b": [returned("double", (4,), 9)],
              "c": [returned("double", (3,), 9)]}
    found = diagnose(lambda: library, failed, 10.0)
    assert [(entry.mistake, entry.checks) for entry in found] == [("off_by_one", ("a", "b")), ("squares", ("c",))]
    # squares matches on "a" alone where off_by_one matches on "a" and "b": the narrower one is left out
    narrower = {"a": [returned("double", (2,), 5)], "b": [returned("double", (3,), 7)]}
    both = CodeLibrary([OFF_BY_ONE, KnownMistake("off_on_two", "adds one at 2", "def double(x):\n"
                                                 "    return 5 if x == 2 else 2 * x\n", "mutant")], REFERENCE_CODE)
    assert [entry.mistake for entry in diagnose(lambda: both, narrower, 10.0)] == ["off_by_one"]
    stuck = KnownMistake("stuck", "never imports", "import time\ntime.sleep(60)\n", "wrong")
    started = time.monotonic()
    assert diagnose(lambda: CodeLibrary([stuck], REFERENCE_CODE), failed, 0.5) == ()
    assert time.monotonic() - started < 5
    # A mistake that ends its process ends only the child: what was found before it is kept.
    dies = KnownMistake("dies", "ends the process", "import os\nos._exit(9)\n", "wrong")
    found = diagnose(lambda: CodeLibrary([OFF_BY_ONE, dies], REFERENCE_CODE), failed, 10.0)
    assert [(entry.mistake, entry.checks) for entry in found] == [("off_by_one", ("a",))]


def test_a_diagnosis_made_beside_the_checks_finds_what_one_made_after_them_finds(tmp_path):
    library = CodeLibrary([OFF_BY_ONE, SQUARES], REFERENCE_CODE)
    failed = {"a": [returned("double", (3,), 7)], "b": [returned("double", (4,), 9)],
              "c": [returned("double", (3,), 9)]}
    held = os.open(tmp_path / "a worker's channel", os.O_CREAT | os.O_RDONLY)  # as the grading process holds
    running = RunningDiagnosis(lambda: library, tmp_path)
    try:
        for nodeid, calls in failed.items():
            running.add(nodeid, calls)
            if not running.beside:  # the idle share could not be given back here: all is diagnosed at the end
                assert os.geteuid() != 0 or not may_take_back_the_idle_share()
                continue
            # While checks run, the child takes only a CPU nothing else wants, and holds none of the parent's
            # files: a worker's channel or a uid lease closed by the parent must not live on in it.
            child = running._child.pid
            assert os.sched_getscheduler(child) == os.SCHED_IDLE
            assert _lets_go_of(child, "a worker's channel")
    finally:
        os.close(held)
        found = running.finish(10.0)  # ends the child, whatever the assertions above found
    assert found == diagnose(lambda: library, failed, 10.0)
    assert RunningDiagnosis(lambda: library, tmp_path).finish(10.0) == ()  # nothing failed: no child at all


def _lets_go_of(child: int, name: str, within_s: float = 10.0) -> bool:
    """Whether the child closes its copy of the parent's open file `name`: the first thing it does, but at
    the idle priority it may not have run at all yet on a busy machine."""
    def held() -> bool:
        for fd in os.listdir(f"/proc/{child}/fd"):
            try:
                if name in os.readlink(f"/proc/{child}/fd/{fd}"):
                    return True
            except FileNotFoundError:  # closed since it was listed
                continue
        return False

    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not held():
            return True
        time.sleep(0.01)
    return False


def may_take_back_the_idle_share() -> bool:
    """Whether this process may give a child of its own at the idle priority its ordinary share back."""
    pid = os.fork()
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    try:
        os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
        os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
        return True
    except PermissionError:
        return False
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)


@pytest.mark.ordinary_user
def test_where_the_idle_share_cannot_be_given_back_the_diagnosis_waits_for_the_end(tmp_path):
    library = CodeLibrary([OFF_BY_ONE, SQUARES], REFERENCE_CODE)
    failed = {"a": [returned("double", (3,), 7)], "c": [returned("double", (3,), 9)]}
    running = RunningDiagnosis(lambda: library, tmp_path)
    for nodeid, calls in failed.items():
        running.add(nodeid, calls)
    assert running.beside == may_take_back_the_idle_share()
    assert running.finish(10.0) == diagnose(lambda: library, failed, 10.0)


def test_a_handouts_table_names_a_mistake_only_to_answers_that_make_it_and_shows_nothing_else(tmp_path):
    calls = [returned("double", (2,), 4), returned("double", (3,), 6)]
    digests = mistake_digests(calls, [OFF_BY_ONE, SQUARES, SAME], REFERENCE_CODE, 30.0)
    # same_as_reference answers as the reference does everywhere: it has nothing to ship
    assert len(digests.names) == 2 and sorted(digests.calls) == sorted(call.digest() for call in calls)
    path = tmp_path / "known_mistakes.json"
    path.write_text(json.dumps(digests.as_data()))
    shipped = json.loads(path.read_text())
    texts = [*shipped["mistakes"], *shipped["calls"], *(entry for entries in shipped["calls"].values()
                                                        for entry in entries)]
    assert set(shipped) == {"format_version", "mistakes", "calls"}  # hex and nothing else: no name, why or answer
    assert all(re.fullmatch("[0-9a-f]+", text) for text in texts)
    read = MistakeDigests.read(path)
    assert [mistake.name for mistake, _ in read.matches([returned("double", (3,), 7)])] == ["off_by_one"]
    assert [mistake.why for mistake, _ in read.matches([returned("double", (3,), 9)])] == ["squares instead of doubling"]
    assert [mistake.name for mistake, _ in read.matches([returned("double", (3,), 8)])] == []
    assert [mistake.name for mistake, _ in read.matches([returned("double", (5,), 11)])] == []  # no entry for it
    # Every covered call must open: right on one call and wrong on the other is not off_by_one
    assert [mistake.name for mistake, _ in read.matches([returned("double", (2,), 5), returned("double", (3,), 6)])] == []
    assert [mistake.name for mistake, _ in read.matches([returned("double", (2,), 5), returned("double", (3,), 7)])] == [
        "off_by_one"]
    # squares answers the call on 2 as the reference does: a student who does too, and squares 3, is named
    assert [mistake.name for mistake, _ in read.matches([returned("double", (2,), 4), returned("double", (3,), 9)])] == [
        "squares"]
    assert [mistake.name for mistake, _ in read.matches([returned("double", (2,), 5), returned("double", (3,), 9)])] == []


@pytest.mark.parametrize("text", ["", "[]", '{"format_version": 2, "mistakes": []}',
                                  '{"format_version": 1, "mistakes": [3], "calls": {}}',
                                  '{"format_version": 1, "mistakes": ["ab"], "calls": {"cd": []}}',
                                  '{"format_version": 1, "mistakes": []}'])
def test_a_digest_file_that_is_not_the_kits_is_no_library(tmp_path, text):
    path = tmp_path / "known_mistakes.json"
    path.write_text(text)
    assert MistakeDigests.read(path) is None
    assert MistakeDigests.read(tmp_path / "absent.json") is None


def test_alike_groups_the_mistakes_no_call_tells_apart():
    twin = KnownMistake("twin", "the same slip, written otherwise", "def double(x):\n    return x + x + 1\n", "mutant")
    calls = {"a": [returned("double", (2,), 4)], "b": [returned("double", (3,), 6)]}
    groups = alike(calls, [OFF_BY_ONE, SQUARES, SAME, twin], REFERENCE_CODE, 30.0)
    assert sorted(map(sorted, groups)) == [["off_by_one", "twin"], [REFERENCE, "same_as_reference"]]
    slow = KnownMistake("slow", "sleeps", "import time\ndef double(x):\n    time.sleep(0.9)\n    return 2 * x\n", "mutant")
    assert alike({"a": [returned("double", (2,), 4)] * 5}, [slow, SAME], REFERENCE_CODE, 0.5) is None


def test_recorded_calls_round_trip_with_their_types(tmp_path):
    calls = {"check::one": [returned("pair", ((1, [2]),), (3, 3)),
                            RecordedCall("double", (1,), {"x": (2,)}, True, Answer("raised", "ValueError"), 0.5)]}
    write_calls(tmp_path / "calls.json", calls)
    assert read_calls(tmp_path / "calls.json") == calls
    assert read_calls(tmp_path / "none.json") == {}


def test_a_slow_mistake_waits_for_a_second_pass_and_still_matches_a_call_that_got_no_answer():
    slow = KnownMistake("slow", "never finishes", "import time\ndef double(x):\n    time.sleep(5)\n", "mutant")
    quick_find = {"a": [returned("double", (3,), 7)]}
    # The slow program comes first, yet a fast one is found well within a deadline it alone would use up.
    found = diagnose(lambda: CodeLibrary([slow, OFF_BY_ONE], REFERENCE_CODE), quick_find, 0.4)
    assert [entry.mistake for entry in found] == ["off_by_one"]
    # A call that got no answer in the worker is matched by a program that gets none in the full pass.
    stuck = {"a": [RecordedCall("double", (3,), {}, False, Answer.failed(FailureKind.TIMEOUT), 2.0)]}
    found = diagnose(lambda: CodeLibrary([slow, OFF_BY_ONE], REFERENCE_CODE), stuck, 10.0)
    assert [entry.mistake for entry in found] == ["slow"]


def test_a_proof_of_one_mistake_replays_the_others_only_where_that_one_misses_a_check():
    slow = KnownMistake("slow", "never finishes", "import time\ndef double(x):\n    time.sleep(5)\n", "mutant")
    library = CodeLibrary([slow, OFF_BY_ONE, SQUARES], REFERENCE_CODE)
    # Calls of a 10 s limit each: replayed, the slow mistake would take 5 s a check.
    everywhere = {"a": [RecordedCall("double", (3,), {}, False, Answer("returned", 7), 10.0)],
                  "b": [RecordedCall("double", (4,), {}, False, Answer("returned", 9), 10.0)]}
    # off_by_one matches on both failed checks, so no other mistake can be named in its stead: the slow
    # one is never replayed, where a whole replay waits for it on each check.
    started = time.monotonic()
    found = diagnose(lambda: library, everywhere, 30.0, settle=False, target="off_by_one")
    assert [(entry.mistake, entry.checks) for entry in found] == [("off_by_one", ("a", "b"))]
    assert time.monotonic() - started < 5
    # Where it misses a check ("c" is squares'), every mistake is replayed: the whole replay's diagnosis.
    missed = {**everywhere, "c": [returned("double", (3,), 9)]}
    whole = diagnose(lambda: CodeLibrary([OFF_BY_ONE, SQUARES], REFERENCE_CODE), missed, 30.0, settle=False)
    found = diagnose(lambda: CodeLibrary([OFF_BY_ONE, SQUARES], REFERENCE_CODE), missed, 30.0, settle=False,
                     target="off_by_one")
    assert found == whole and [entry.mistake for entry in found] == ["off_by_one", "squares"]


def test_a_program_starts_afresh_after_a_call_that_got_no_answer_as_the_worker_does():
    # Each call advances a memo-like state; cold, a call for 10 takes about 0.5 s, past the 0.3 s limit.
    warms_up = KnownMistake("warms_up", "slow until its state is warm", (
        "import time\n_done = [0]\n"
        "def double(x):\n    while _done[0] < x:\n        time.sleep(0.05)\n        _done[0] += 1\n"
        "    return 2 * x\n"), "mutant")
    no_answer = RecordedCall("double", (10,), {}, False, Answer.failed(FailureKind.TIMEOUT), 0.3)
    # The worker was replaced after the first call, so its second got no answer either: a replay that
    # kept the half-warm state would answer it, and the mistake would not match its own grade.
    found = diagnose(lambda: CodeLibrary([warms_up], REFERENCE_CODE), {"a": [no_answer, no_answer]}, 10.0,
                     settle=False)
    assert [entry.mistake for entry in found] == ["warms_up"]


def test_a_call_answered_apart_only_in_time_does_not_tell_a_program_from_itself():
    # "late" answers 5 right but late: 0.3 s of a 0.4 s limit. On a busier moment the same code ran out.
    late = KnownMistake("late", "answers big inputs late", (
        "import time\ndef double(x):\n    if x > 4:\n        time.sleep(0.3 if x == 5 else 5)\n    return 2 * x\n"),
        "mutant")
    never = KnownMistake("never", "never answers big inputs", (
        "import time\ndef double(x):\n    if x > 4:\n        time.sleep(5)\n    return 2 * x\n"), "mutant")
    ran_out = Answer.failed(FailureKind.TIMEOUT)
    failed = {"raced": [RecordedCall("double", (5,), {}, False, ran_out, 0.4, 0.4)],
              "both": [RecordedCall("double", (6,), {}, False, ran_out, 0.4, 0.4)]}
    found = diagnose(lambda: CodeLibrary([never, late], REFERENCE_CODE), failed, 20.0, settle=False)
    # "late" is not left out as a narrower match than "never": its late answer counts as none
    assert [(entry.mistake, entry.checks) for entry in found] == [("never", ("raced", "both")),
                                                                  ("late", ("raced", "both"))]
    # The other way round: a student who answered 10 after 0.35 s of 0.4 s, where "never" runs out.
    slow_right = {"c": [RecordedCall("double", (6,), {}, False, Answer("returned", 13), 0.4, 0.35),
                        returned("double", (2,), 4)]}
    answered_fast = [RecordedCall("double", (6,), {}, False, Answer("returned", 12), 0.4, 0.01),
                     RecordedCall("double", (7,), {}, False, ran_out, 0.4, 0.4)]
    with replay_room():  # the alarm that ends a replay past its limit
        # "never" is not ruled out by the call it ran out on, yet names nothing: it never answers 13
        assert list(CodeLibrary([never], REFERENCE_CODE).matches(slow_right["c"], None)) == []
        # answered at once by the student, so "never" running out rules it out
        assert list(CodeLibrary([never], REFERENCE_CODE).matches(answered_fast, None)) == []
        assert list(CodeLibrary([never], REFERENCE_CODE).matches(answered_fast[1:], None)) == [(never, True)]


def test_a_function_not_written_yet_is_matched_only_by_mistakes_that_raise_as_the_stubs_do(tmp_path):
    replayed = tmp_path / "replayed"
    # A mistake that never names NotImplementedError cannot answer as a stub does: it is not even replayed.
    counting = KnownMistake("counting", "notes each replay", f"def double(x):\n    open({str(replayed)!r}, 'a')"
                            ".write('x')\n    return 2 * x + 1\n", "mutant")
    unwritten = KnownMistake("unwritten", "leaves double as the stub has it",
                             "def double(x):\n    raise NotImplementedError('double is not written yet')\n", "mutant")
    library = CodeLibrary([counting, unwritten, OFF_BY_ONE], REFERENCE_CODE)
    stub = [RecordedCall("double", (3,), {}, False, Answer("raised", "NotImplementedError"), 1.0)]
    with replay_room():
        assert [(mistake.name, decided) for mistake, decided in library.matches(stub)] == [("unwritten", True)]
        assert not replayed.exists()
        # Where the student's code answers, every mistake is replayed as before.
        assert [mistake.name for mistake, decided in library.matches([returned("double", (3,), 7)]) if decided] \
            == ["counting", "off_by_one"]
    assert replayed.exists()
