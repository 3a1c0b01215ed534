"""ex08's match, seed by seed: the check's own games and verdict for each kind of solution.

    python bench/match_table.py [SEEDS] [--jobs N]

Plays test_beats_the_baseline's games exactly as the check does under seeds 1 to SEEDS (the same
random baseline, drawn from the same rng), in this process and without the sandbox, for the
reference, every alt/ solution and the mutants that play differently. For each it prints how
many seeds the match passes on, the games with a move four plies can prove worse, and the games
not won (which the check does not count: they show how much the heuristic matters).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import random
import sys
import tempfile
import types
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.catalog import Kit  # noqa: E402
from grader.known_mistakes import find_mutant, write_mutant  # noqa: E402

CHECKS = ROOT / "exercises" / "ex08_connect_four" / "checks" / "test_hidden.py"
# The checks import their helper (hidden_oracle.py) by its plain name, as in a grading run.
sys.path.insert(0, str(CHECKS.parent))
SOLUTIONS = ROOT / "solutions" / "ex08_connect_four"
# The rng fixture seeds random.Random with "<seed>:<node id>" (grader/plugin.py).
NODE_ID = "checks/test_hidden.py::test_beats_the_baseline"
MUTANTS = ("one_ply_greedy", "depth_ignored", "depth_hard_wired_to_two", "root_keeps_last_tie")


def _load(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _solutions(scratch: Path) -> dict[str, Path]:
    """Each solution to play: the reference, the alts, and the mutants written out under scratch."""
    kit = Kit(ROOT)
    exercise = kit.resolve("ex08")
    found = {"reference": SOLUTIONS / exercise.module}
    found |= {f"alt/{path.stem}": path for path in sorted(SOLUTIONS.glob("alt/*.py"))}
    for name in MUTANTS:
        found[f"mutant {name}"] = write_mutant(exercise, kit.root, find_mutant(exercise, kit.root, name),
                                               scratch / name)
    return found


def _one_seed(job: tuple[str, str, int]) -> tuple[str, int, int, int]:
    """(solution, seed, games with a provable mistake, games not won) for one seed's match."""
    label, path, seed = job
    checks = _load("ex08_checks", CHECKS)
    student = _load("ex08_student", Path(path))
    rng = random.Random(f"{seed}:{NODE_ID}")
    mistakes = not_won = 0
    for game in range(checks.MATCH_GAMES):
        try:
            won = checks.play_one_game(functools.partial(checks.ask_best_move, student), rng,
                                       "X" if game % 2 == 0 else "O", checks.MATCH_DEPTH)
        except checks.Blunder:
            mistakes += 1
            # The check stops at the first such game; the rest are played on for the table, each
            # from the rng's next state, so they differ from what the check would have drawn.
            won = False
        not_won += not won
    return label, seed, mistakes, not_won


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", nargs="?", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    games = _load("ex08_checks", CHECKS).MATCH_GAMES * args.seeds
    with tempfile.TemporaryDirectory() as scratch:
        solutions = _solutions(Path(scratch))
        jobs = [(label, str(path), seed) for label, path in solutions.items() for seed in range(1, args.seeds + 1)]
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(_one_seed, jobs))
    print(f"| solution | seeds passed (of {args.seeds}) | games with a provable mistake | games not won |")
    print("|---|---|---|---|")
    for label in solutions:
        rows = [row for row in results if row[0] == label]
        passed = sum(mistakes == 0 for _, _, mistakes, _ in rows)
        print(f"| {label} | {passed} | {sum(row[2] for row in rows)} of {games} | {sum(row[3] for row in rows)} of {games} |")


if __name__ == "__main__":
    main()
