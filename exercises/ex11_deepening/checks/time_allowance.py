"""How long the checks let timed_move take beyond its budget: the README states both figures."""

# The README's promise: timed_move returns within its budget plus this.
OVERRUN_S = 0.1
# A timed call's limit runs on the grading side, so it also allows the trip to the sandbox's worker
# and back. A round trip takes about a millisecond; the rest is room for a busy machine.
TRANSPORT_S = 0.4


def allowed_s(budget):
    """The limit of a call of timed_move with this budget, as the grading side times it."""
    return budget + OVERRUN_S + TRANSPORT_S
