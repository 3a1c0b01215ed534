"""The grading wing: one grade is a pytest process, under the grade's reaper, whose plugin calls the sandbox.

Its face is below; code outside the wing imports only these names. `PLUGIN` names the plugin's
module, which `pytest_main`, the grading process's main, hands to pytest.
"""

from grader.faces import lazy_exports

PLUGIN = "grader.grading.plugin"
EXPORTS = {
    "grade": "runner",
    "collect_checks": "runner",
    "in_parallel": "runner",
    "default_jobs": "runner",
    "StopAt": "runner",
    "grade_recording_calls": "runner",
    "ReadyGrade": "runner",
    "grading_launcher": "launching",
    "start_launcher": "launching",
    "Launcher": "launching",
    "expected_grade_seconds": "costs",
    "alike": "diagnosis",
    "mistake_digests": "sealed_mistakes",
    "REFERENCE": "replay",
    "MARKERS": "plugin",
    "TraceRead": "tracing",
    "Answer": "replay",
    "ProbeOver": "proxy",
    "TracingUnavailable": "tracing",
    "Game": "games",
    "load_game": "games",
    "find_games": "games",
    "arena_game": "games",
    "game_sandbox": "games",
    "module_folder": "games",
}
__all__ = sorted([*EXPORTS, "PLUGIN"])
__getattr__ = lazy_exports(__name__, EXPORTS)
