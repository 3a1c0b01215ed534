"""The check writer's face: everything a check file may import from the grader, and nothing else.

A check is a pytest test function in an exercise's `checks/` folder. The grading run gives it these
fixtures, by name:

- `student`: the submitted module, run in the sandbox. `student.NAME(*args)` returns a plain value;
  `student.call_observed("NAME", *args)` also returns the arguments as they were after the call;
  `student.traced("NAME", *args)` returns what the code read from a nested list (feedback only);
  `with student.probing() as ask:` gives `ask("NAME", *args)`, an `Answer` from a throwaway worker
  under a budget (feedback only; `ProbeOver` once the budget is spent).
- `rng`: a `random.Random` seeded from the run's seed and the check, for every random input.
- `feedback`: `feedback.add(text)` adds text to a public check's failure message;
  `feedback.on_failure(explain)` calls `explain()` if the check failed, once the last check has
  ended and outside every check's time limit, and shows the text (a hidden check's only after the
  due date, where the format allows).

And these markers: `points(n)`, `hint(text)`, `call_timeout(seconds)`, `requires(*test_names)` and
pytest-timeout's `timeout(seconds)`; `MARKERS` says what each does. docs/authoring.md has the whole API.
"""

from grader.catalog import KitError
from grader.grading import MARKERS, Answer, ProbeOver, TraceRead, TracingUnavailable

__all__ = ["MARKERS", "Answer", "KitError", "ProbeOver", "TraceRead", "TracingUnavailable"]
