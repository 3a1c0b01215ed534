"""The classroom wing: a class graded into OUT (one report per student and exercise), in slices or at once, and its class report.

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
}
__all__ = sorted(EXPORTS)
__getattr__ = lazy_exports(__name__, EXPORTS)
