"""Does the Swiss schedule of `grade arena` rank players as the round robin does? A field of 40 known players.

    python bench/arena_schedule.py [--seeds 1 2 3] [--jobs 2] [--cache DIR] [--rr-seed S] [--replays N]
    python bench/arena_schedule.py --write-class DIR [--size 500]

The field plays ex08 (Connect-4) in the sandbox, as `grade arena` plays it (grader.classroom.arena's
own play_arena): the reference at depths 1 to 5, the alt/ solutions, known mistakes of
mutants.toml, the program of nothing/ that always plays the centre, and the random and greedy
baselines, each entered two or three times (40 players). The round robin is played once, at
--rr-seed, and its games and table are kept in --cache (1,560 games: the costly part); then the
Swiss schedule is played for real on each of --seeds, and each Swiss table is compared with the
round robin's by Spearman's rank correlation of the ratings (ties averaged). With --replays N, the
Swiss schedule is also replayed on seeds 1 to N with 0 to 4 rounds beyond ceil(log2 N), each game's
result taken from the round robin's game of the same two players in the same order (no game played).

--write-class DIR writes a class of --size students for `grade arena` (the command that times it
is in bench/RESULTS.md): the field's programs in the field's proportions, in turn.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.catalog import Kit
from grader.classroom import arena
from grader.classroom.arena import Ending, GameRecord, Player, PlayerKind, Schedule
from grader.grading import arena_game
from grader.known_mistakes import apply_mutant, find_mutant
from grader.submission import prepare_submission

SOLUTIONS = ROOT / "solutions" / "ex08_connect_four"
# Known mistakes that still play whole games, each its own way (the rest raise or only differ off the board).
MUTANTS = ("one_ply_greedy", "depth_ignored", "depth_hard_wired_to_two", "opponent_also_maximizes",
           "frontier_scored_for_side_to_move", "winner_misses_diagonal", "ignores_wins_in_search")
ALTS = ("constant_evaluate", "naive", "scrambled_evaluate")
# Every program is entered twice; these a third time, to make 40.
THIRD_COPIES = ("reference d5", "reference d2", "mutant one_ply_greedy", "random")


def _programs(kit: Kit) -> dict[str, str]:
    """Each program of the field by its label: its source (the reference's own file for every depth)."""
    exercise = kit.resolve("ex08")
    programs = {"reference": (SOLUTIONS / exercise.module).read_text(encoding="utf-8")}
    programs |= {f"alt {name}": (SOLUTIONS / "alt" / f"{name}.py").read_text(encoding="utf-8") for name in ALTS}
    programs |= {f"mutant {name}": apply_mutant(exercise, kit.root, find_mutant(exercise, kit.root, name))
                 for name in MUTANTS}
    programs["always_centre"] = (SOLUTIONS / "nothing" / "always_centre.py").read_text(encoding="utf-8")
    return programs


def field(kit: Kit, scratch: Path):
    """(the game, with each baseline entered under every name it plays as; the 40 players)."""
    game = arena_game(kit.resolve("ex08"))
    exercise, rules = game.exercise, game.rules
    folders = {}
    for index, (label, source) in enumerate(_programs(kit).items()):
        source_file = scratch / f"source-{index}" / exercise.module
        source_file.parent.mkdir(parents=True)
        source_file.write_text(source, encoding="utf-8")
        folders[label] = scratch / f"player-{index}"
        prepare_submission(source_file.parent, exercise.module, folders[label], exercise.given_paths)
    entries = [(f"reference d{depth}", PlayerKind.REFERENCE, depth, folders["reference"]) for depth in range(1, 6)]
    entries += [(label, PlayerKind.STUDENT, rules.ARENA_SETTING, folder) for label, folder in folders.items()
                if label != "reference"]
    entries += [(name, PlayerKind.BASELINE, None, None) for name in rules.ARENA_BASELINES]
    players, baselines = [], {}
    for name, kind, setting, folder in entries:
        for copy in range(1, 3 + (name in THIRD_COPIES)):
            player_name = f"{name} #{copy}"
            players.append(Player(player_name, kind, setting, folder))
            if kind is PlayerKind.BASELINE:
                baselines[player_name] = rules.ARENA_BASELINES[name]
    entered = types.ModuleType(rules.__name__)
    entered.__dict__.update(vars(rules))
    entered.ARENA_BASELINES = baselines
    return dataclasses.replace(game, rules=entered), players


def strength_of(name: str) -> str:
    """The program a player's name enters: its name without the copy number."""
    return name.rsplit(" #", 1)[0]


def _saved(result: arena.ArenaResult, seconds: float) -> dict:
    return {"seed": result.seed, "schedule": str(result.schedule), "rounds": result.rounds, "seconds": seconds,
            "standings": [{"player": s.player, "rating": s.rating, "mu": s.mu, "sigma": s.sigma, "wins": s.wins,
                           "draws": s.draws, "losses": s.losses, "forfeits": s.forfeits} for s in result.standings],
            "games": [[g.number, g.first, g.second, str(g.ending), g.winner, len(g.moves), g.forfeit and str(g.forfeit)]
                      for g in result.games]}


def played(kit: Kit, game, players: list[Player], kind: Schedule, seed: int, jobs: int, cache: Path) -> dict:
    """The arena's games and table on `kind` at `seed`, from `cache` when played before with the same field."""
    path = cache / f"{kind}-seed{seed}.json"
    names = [player.name for player in players]
    if path.is_file():
        kept = json.loads(path.read_text(encoding="utf-8"))
        if sorted(kept["players"]) == sorted(names):
            return kept
    started = time.perf_counter()
    result = arena.play_arena(kit, game, players, seed=seed, jobs=jobs, move_timeout=game.call_timeout,
                              schedule_kind=kind)
    kept = {"players": names, **_saved(result, time.perf_counter() - started)}
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, indent=1), encoding="utf-8")
    return kept


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties given the mean of their places."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for index in order[start:end + 1]:
            result[index] = (start + end) / 2 + 1
        start = end + 1
    return result


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rho: scipy's when installed, else the Pearson correlation of the ranks."""
    try:
        from scipy.stats import spearmanr
    except ImportError:
        rx, ry = ranks(xs), ranks(ys)
        mx, my = statistics.fmean(rx), statistics.fmean(ry)
        cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
        return cov / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return float(spearmanr(xs, ys).statistic)


def rho(table: dict, reference: dict) -> float:
    """Spearman's rho of two tables' ratings, player by player."""
    rating = {row["player"]: row["rating"] for row in reference["standings"]}
    return spearman([row["rating"] for row in table["standings"]], [rating[row["player"]] for row in table["standings"]])


def _records(kept: dict) -> list[GameRecord]:
    return [GameRecord(number, first, second, Ending(ending), winner, ())
            for number, first, second, ending, winner, _, _ in kept["games"]]


def rated_once(players: list[Player], kept: dict) -> dict:
    """A Swiss schedule's games rated in one pass, in the order played: the ratings its rounds were paired by."""
    return {"standings": [{"player": s.player, "rating": s.rating} for s in arena.rate(players, _records(kept))]}


def replay(players: list[Player], round_robin: dict, seed: int, extra: int) -> tuple[dict, dict]:
    """The Swiss schedule with `extra` rounds beyond ceil(log2 N), each game's result the round robin's:
    (its table, its games rated once)."""
    results = {(first, second): (ending, winner) for _, first, second, ending, winner, _, _ in round_robin["games"]}

    def play(planned):
        return [GameRecord(number, first.name, second.name, Ending(results[first.name, second.name][0]),
                           results[first.name, second.name][1], ()) for number, first, second in planned]

    rounds = min(math.ceil(math.log2(len(players))) + extra, len(players) - 1 + len(players) % 2)
    records, ratings = arena.play_swiss(players, seed, play, rounds)
    once = arena.rate(players, records)
    return ({"standings": [{"player": s.player, "rating": s.rating} for s in ratings.standings()]},
            {"standings": [{"player": s.player, "rating": s.rating} for s in once]})


def write_class(kit: Kit, folder: Path, size: int) -> None:
    """`size` students' files, the field's programs in the field's proportions (every reference entry is
    the reference, which a student plays at the arena's depth), in turn: a game costs about what the
    field's Swiss games cost."""
    exercise = kit.resolve("ex08")
    programs = _programs(kit)
    turn = [programs["reference"]] * 12  # the field's 12 entries of the reference at depths 1 to 5
    for label, source in programs.items():
        if label != "reference":
            turn += [source] * (3 if label in THIRD_COPIES else 2)
    folder.mkdir(parents=True)
    for index in range(size):
        (folder / f"student{index:04d}.py").write_text(turn[index % len(turn)], encoding="utf-8")
    print(f"{size} students of {exercise.id} in {folder}: {len(programs)} programs, {len(turn)} in turn")


def _top(table: dict, count: int = 8) -> str:
    return ", ".join(row["player"] for row in table["standings"][:count])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rr-seed", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "minimax-kit-arena-schedule")
    parser.add_argument("--replays", type=int, default=0)
    parser.add_argument("--write-class", type=Path, metavar="DIR")
    parser.add_argument("--size", type=int, default=500)
    args = parser.parse_args()
    kit = Kit(ROOT)
    if args.write_class:
        write_class(kit, args.write_class, args.size)
        return
    with tempfile.TemporaryDirectory(prefix="arena-schedule-") as scratch:
        game, players = field(kit, Path(scratch))
        count = len(players)
        print(f"{count} players, {len({strength_of(p.name) for p in players})} programs; round robin "
              f"{arena.planned_games(Schedule.ROUND_ROBIN, count)} games, Swiss "
              f"{arena.planned_games(Schedule.SWISS, count)} games in {arena.swiss_rounds(count)} rounds", flush=True)
        round_robin = played(kit, game, players, Schedule.ROUND_ROBIN, args.rr_seed, args.jobs, args.cache)
        games = len(round_robin["games"])
        print(f"round robin, seed {args.rr_seed}: {games} games in {round_robin['seconds']:.0f} s "
              f"({round_robin['seconds'] * args.jobs / games:.2f} s of a job per game); top: {_top(round_robin)}",
              flush=True)
        # How far the round robin is from itself: its own games rated in other orders (the seed's order is one of many).
        again = []
        for order_seed in range(1, 21):
            shuffled = _records(round_robin)
            random.Random(f"order:{order_seed}").shuffle(shuffled)
            table = {"standings": [{"player": s.player, "rating": s.rating} for s in arena.rate(players, shuffled)]}
            again.append(rho(table, round_robin))
        print(f"the round robin's games rated in 20 other orders, rho against its table: min {min(again):.3f}, "
              f"median {statistics.median(again):.3f}, max {max(again):.3f}", flush=True)
        print("\nSpearman's rho of each Swiss table against the round robin's (and of its games rated once):")
        print("\n| Swiss seed | games | rounds | time | s of a job per game | rho | rho rated once |")
        print("|---|---|---|---|---|---|---|")
        for seed in args.seeds:
            swiss = played(kit, game, players, Schedule.SWISS, seed, args.jobs, args.cache)
            swiss_games = len(swiss["games"])
            print(f"| {seed} | {swiss_games} | {swiss['rounds']} | {swiss['seconds']:.0f} s | "
                  f"{swiss['seconds'] * args.jobs / swiss_games:.2f} | {rho(swiss, round_robin):.3f} | "
                  f"{rho(rated_once(players, swiss), round_robin):.3f} |", flush=True)
        for seed in args.seeds:
            print(f"Swiss seed {seed} top: {_top(json.loads((args.cache / f'swiss-seed{seed}.json').read_text()))}")
        if args.replays:
            print(f"\nReplayed from the round robin's results, seeds 1 to {args.replays}: Spearman's rho against "
                  "the round robin, min / median / max, and how many seeds fell below 0.9")
            print("\n| rounds | games | the table | seeds < 0.9 | rated once | seeds < 0.9 |")
            print("|---|---|---|---|---|---|")
            for extra in range(5):
                tables = [replay(players, round_robin, seed, extra) for seed in range(1, args.replays + 1)]
                rounds = min(math.ceil(math.log2(count)) + extra, count - 1 + count % 2)
                cells = []
                for which in range(2):
                    rhos = [rho(pair[which], round_robin) for pair in tables]
                    cells += [f"{min(rhos):.3f} / {statistics.median(rhos):.3f} / {max(rhos):.3f}",
                              str(sum(value < 0.9 for value in rhos))]
                print(f"| {rounds} (ceil(log2 N) + {extra}) | {rounds * 2 * (count // 2)} | {' | '.join(cells)} |",
                      flush=True)


if __name__ == "__main__":
    main()
