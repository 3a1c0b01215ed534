"""The classroom wing: a class graded into OUT (one report per student and exercise), in slices or at once, its class report, and what a regrade changed.

Its face is below; code outside the wing imports only these names.
"""

from grader.faces import lazy_exports

EXPORTS = {
    "ClassFolder": "folder",
    "Student": "batch",
    "find_students": "batch",
    "run_batch": "batch",
    "write_gradebook": "batch",
    "distribution": "batch",
    "Shard": "shards",
    "parse_shard": "shards",
    "shard_of": "shards",
    "write_manifest": "shards",
    "merge_shards": "shards",
    "read_reports": "class_report",
    "attempts_of": "class_report",
    "write_class_report": "class_report",
    "DEFAULT_THRESHOLD": "similarity",
    "ExerciseSimilarity": "similarity",
    "SimilarPair": "similarity",
    "compare_class": "similarity",
    "write_similarity": "similarity",
    "forget_similarity": "similarity",
    "modules_keeper": "similarity",
    "read_similarity": "similarity",
    "run_arena": "arena",
    "write_arena": "arena_report",
    "ChangeKind": "regrade",
    "CheckChange": "regrade",
    "MarkChange": "regrade",
    "Regrade": "regrade",
    "compare_attempts": "regrade",
    "diff_folders": "regrade",
    "check_change_text": "regrade",
    "write_changes": "regrade",
    "LMS_FORMATS": "gradebooks",
    "Matching": "gradebooks",
    "LmsFormat": "gradebooks",
    "Roster": "gradebooks",
    "ClassGrades": "gradebooks",
    "read_roster": "gradebooks",
    "match_roster": "gradebooks",
    "class_grades": "gradebooks",
    "read_class_grades": "gradebooks",
    "gradebook_rows": "gradebooks",
    "write_lms_gradebook": "gradebooks",
}
__all__ = sorted(EXPORTS)
__getattr__ = lazy_exports(__name__, EXPORTS)
