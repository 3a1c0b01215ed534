"""The report wing: the native score report built from a run's results, its schema, its other formats, and reading it back.

Its face is below; code outside the wing imports only these names.
"""

from grader.faces import lazy_exports

EXPORTS = {
    "build_report": "scoring",
    "summarize": "scoring",
    "cap": "scoring",
    "MESSAGE_CAP": "scoring",
    "render": "formats",
    "load_schema": "formats",
    "FORMATS": "formats",
    "DEFAULT_HIDDEN_VISIBILITY": "formats",
    "GRADESCOPE_VISIBILITIES": "formats",
    "read_report": "reading",
    "ReportError": "reading",
    "ReportProblem": "reading",
    "report_field": "reading",
    "report_status": "reading",
}
__all__ = sorted(EXPORTS)
__getattr__ = lazy_exports(__name__, EXPORTS)
