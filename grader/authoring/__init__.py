"""The authoring wing: the instructor's tools that prove an exercise sound, and make and ship exercises.

`soundness` is what `grade check` runs; `operator_mutants` makes mutants by operator (the known
mistakes themselves, `mutants.toml` and `wrong/`, are the root's `grader.known_mistakes`, since
grading diagnoses with them too); `nothing` is code that computes nothing; `scaffolding` is
`grade new`; `export` writes the student handout and the Gradescope bundle. Its face is below; code outside
the wing imports only these names.
"""

from grader.faces import lazy_exports

EXPORTS = {
    "DEFAULT_SEEDS": "soundness",
    "check_exercise": "soundness",
    "check_fairness": "soundness",
    "fair_seeds": "soundness",
    "mutation_report": "operator_mutants",
    "survivor_diff": "operator_mutants",
    "scaffold": "scaffolding",
    "export_handout": "export",
    "export_gradescope": "export",
}
__all__ = sorted(EXPORTS)
__getattr__ = lazy_exports(__name__, EXPORTS)
