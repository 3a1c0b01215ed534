"""`grade arena EXERCISE CLASS --out OUT`: a class's game-playing functions against each other and the kit's players, rated.

Each game is two players on the exercise's arena game (`grader.grading.games`): students and the
reference run in the sandbox, a worker each per game, and are only ever asked for a move there; the
game file's baselines (kit code) move in this process. The game file judges every move. An
illegal move, an exception, a crash or a timeout loses that game by forfeit. The ratings are
openskill's (Plackett-Luce), updated game by game.

Two schedules. The round robin plays every ordered pair once, so each pair meets twice with the
first move swapped, in an order the seed shuffles: N (N - 1) games. The Swiss schedule plays
rounds, ceil(log2 N) + SWISS_EXTRA_ROUNDS of them: each round pairs players of close ratings who
have not met (one sits out when N is odd), each pair plays twice with the first move swapped, and
the ratings are updated, game by game in the round's order, before the next round is paired; the
table rates the games once more (SWISS_PASSES). That is at most N (ceil(log2 N) + SWISS_EXTRA_ROUNDS) games, and ranks the players as the round robin
does (bench/arena_schedule.py). Either way a game's result depends only on the players, who moves first,
the seed and the game's number, so the same class and seed give the same table.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from grader.catalog import Exercise, Kit, KitError
from grader.failures import FailureKind, StudentFailure, StudentRaised
from grader.grading import Game, arena_game, game_sandbox, in_parallel
from grader.submission import SubmissionProblem, prepare_submission

DEFAULT_SEED = 1


class Schedule(StrEnum):
    """Who plays whom: --schedule's choices."""

    AUTO = "auto"  # the round robin up to ROUND_ROBIN_MAX_PLAYERS players, Swiss above
    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"


# The round robin's N (N - 1) games are affordable up to here (1,560 games for 40 players, a class of
# 36 and the kit's 4), and a class of 30 plays it as it always did. grader/cli/arguments.py's help
# spells the number out (building a parser imports nothing); tests/classroom/test_arena.py holds them equal.
ROUND_ROBIN_MAX_PLAYERS = 40
# Rounds beyond ceil(log2 N), so each player plays 2 (ceil(log2 N) + 2) games. bench/arena_schedule.py
# measures how closely the Swiss table follows the round robin's with this many (bench/RESULTS.md).
SWISS_EXTRA_ROUNDS = 2
# Search steps the Swiss pairing may take to avoid every rematch before it settles for the nearest
# opponent, met or not (only ever reached when few unmet opponents remain).
PAIRING_BUDGET = 20_000
# The Swiss table rates its games this many times over, in the order played. Rated once, the early
# rounds' games count at what each opponent's rating was then, before anything was known of it;
# the second pass counts them at what the opponent turned out to be. On bench/arena_schedule.py's
# field, 40 replayed seeds ranked with Spearman's rho of at least 0.90 against the round robin
# rated twice, and below 0.90 on 6 of them rated once (bench/RESULTS.md).
SWISS_PASSES = 2


class PlayerKind(StrEnum):
    """Where a player's moves come from."""

    STUDENT = "student"
    REFERENCE = "reference"
    BASELINE = "baseline"


class Forfeit(StrEnum):
    """Why a player lost a game without it being played out."""

    ILLEGAL = "illegal move"  # the game file refused the value it returned
    RAISED = "raised"  # its function raised an exception
    TIMEOUT = "timeout"  # it did not answer within the time per move
    CRASH = "crash"  # its worker died, ran out of memory or broke the channel
    MISSING = "missing function"
    IMPORT = "import failed"
    UNUSABLE = "no usable submission"


class Ending(StrEnum):
    """How a game ended."""

    WIN = "win"
    DRAW = "draw"
    FORFEIT = "forfeit"


@dataclass(frozen=True)
class Player:
    """One entrant: a student's or the reference's module (laid out in `folder`), or a baseline of the game file."""

    name: str
    kind: PlayerKind
    setting: object = None
    """What FUNCTION is given besides the position (a depth, a budget); None for a baseline."""
    folder: Path | None = None
    unusable: str | None = None
    """Why the submission could not be laid out; such a player forfeits every game."""


@dataclass(frozen=True)
class GameRecord:
    """One game: who moved first, what each played, and how it ended."""

    number: int
    first: str
    second: str
    ending: Ending
    winner: str | None
    moves: tuple
    forfeit: Forfeit | None = None
    detail: str | None = None
    """For a forfeit: what the loser's code did, in the sandbox's or the game file's words."""
    round: int | None = None
    """The Swiss round the game was played in; None in a round robin."""

    def result_for(self, player: str) -> str:
        """"win", "draw", "loss" or "forfeit" for one of the two players."""
        if self.ending is Ending.DRAW:
            return "draw"
        if self.winner == player:
            return "win"
        return "forfeit" if self.ending is Ending.FORFEIT else "loss"

    def opponent_of(self, player: str) -> str:
        """The other player."""
        return self.second if player == self.first else self.first


@dataclass(frozen=True)
class Standing:
    """A player's line in the table: the rating and what the games gave."""

    player: str
    kind: PlayerKind
    rating: float
    """openskill's ordinal, mu - 3 sigma: a rating the player is very likely above."""
    mu: float
    sigma: float
    wins: int
    draws: int
    losses: int
    forfeits: int


@dataclass(frozen=True)
class ArenaResult:
    """Everything `grade arena` found: the table, best first, and every game in the order it was rated."""

    exercise: Exercise
    game: str
    seed: int
    move_timeout: float
    setting: object
    standings: tuple[Standing, ...]
    games: tuple[GameRecord, ...]
    schedule: Schedule = Schedule.ROUND_ROBIN
    """The schedule played: ROUND_ROBIN or SWISS, never AUTO."""
    rounds: int = 0
    """The Swiss schedule's rounds; 0 for a round robin."""


class _Forfeited(Exception):
    """A player's move could not be had or was refused; it carries the kind and what happened."""

    def __init__(self, kind: Forfeit, detail: str):
        super().__init__(detail)
        self.kind, self.detail = kind, detail


_FAILURE_FORFEITS = {FailureKind.TIMEOUT: Forfeit.TIMEOUT, FailureKind.MISSING: Forfeit.MISSING,
                     FailureKind.IMPORT: Forfeit.IMPORT, FailureKind.BAD_VALUE: Forfeit.ILLEGAL}


class _Mover:
    """How one player moves in one game: in its own sandbox, or (a baseline) by the game file in this process."""

    def __init__(self, player: Player, game: Game, sandbox, rng: random.Random, move_timeout: float):
        self.player, self.game, self.sandbox, self.rng, self.move_timeout = player, game, sandbox, rng, move_timeout

    def start(self) -> None:
        """Import the player's module, so that a broken file forfeits before the first move."""
        if self.player.unusable is not None:
            raise _Forfeited(Forfeit.UNUSABLE, self.player.unusable)
        if self.sandbox is None:
            return
        try:
            self.sandbox.start()
        except StudentFailure as exc:
            raise _Forfeited(Forfeit.IMPORT, exc.message) from None
        if self.game.function in self.sandbox.missing_functions():
            raise _Forfeited(Forfeit.MISSING, f"{self.game.exercise.module} has no function {self.game.function}")

    def move(self, position):
        """The value the player's function returns for `position`; _Forfeited when there is none."""
        rules = self.game.rules
        if self.sandbox is None:
            return rules.ARENA_BASELINES[self.player.name](position, self.rng)
        args = tuple(rules.arena_args(position, self.player.setting))
        try:
            return self.sandbox.call(self.game.function, args, {}, timeout=self.move_timeout).value
        except StudentFailure as exc:
            raise _Forfeited(_FAILURE_FORFEITS.get(exc.failure.kind, Forfeit.CRASH), exc.message) from None
        except StudentRaised as exc:
            words = f"{exc.student.type}: {exc.student.message}" if exc.student.message else exc.student.type
            raise _Forfeited(Forfeit.RAISED, words) from None


def play_one(kit: Kit, game: Game, number: int, first: Player, second: Player, seed: int,
             move_timeout: float) -> GameRecord:
    """One game, `first` to move first, each sandboxed player in a fresh worker of its own."""
    rules = game.rules
    rng = random.Random(f"{seed}:{number}")  # a baseline's choices depend on the seed and the game alone
    moves: list = []
    with contextlib.ExitStack() as stack:
        movers = []
        for player in (first, second):
            sandbox = None
            if player.folder is not None and player.unusable is None:
                sandbox = stack.enter_context(game_sandbox(kit, game, player.folder, move_timeout))
            movers.append(_Mover(player, game, sandbox, rng, move_timeout))
        position = rules.arena_start()
        try:
            for turn, mover in enumerate(movers):
                mover.start()
            turn = 0
            while True:
                mover = movers[turn]
                value = mover.move(position)
                try:
                    position, _ = rules.ai_move(position, value)
                except ValueError as exc:  # the game file's judgement of the returned value
                    raise _Forfeited(Forfeit.ILLEGAL, f"returned {value!r}: {exc}") from None
                moves.append(value)
                outcome = rules.result(position)
                if outcome is not None:
                    break
                turn = 1 - turn
        except _Forfeited as exc:
            loser, winner = movers[turn].player, movers[1 - turn].player
            return GameRecord(number, first.name, second.name, Ending.FORFEIT, winner.name, tuple(moves),
                              exc.kind, f"{loser.name}: {exc.detail}")
    if outcome == 0:
        return GameRecord(number, first.name, second.name, Ending.DRAW, None, tuple(moves))
    mover_won = outcome > 0
    winner = movers[turn].player if mover_won else movers[1 - turn].player
    return GameRecord(number, first.name, second.name, Ending.WIN, winner.name, tuple(moves))


def schedule(players: list[Player], seed: int) -> list[tuple[int, Player, Player]]:
    """Every ordered pair once, as (game number, first, second), in an order the seed shuffles."""
    pairs = [(first, second) for first in players for second in players if first is not second]
    random.Random(seed).shuffle(pairs)
    return [(number, first, second) for number, (first, second) in enumerate(pairs, start=1)]


class Ratings:
    """openskill ratings and each player's tally, updated game by game."""

    def __init__(self, players: list[Player]):
        from openskill.models import PlackettLuce

        self.players = list(players)
        self.model = PlackettLuce()
        self.of = {player.name: self.model.rating(name=player.name) for player in players}
        self.tally: dict[str, Counter] = {player.name: Counter() for player in players}

    def update(self, games: list[GameRecord], *, tally: bool = True) -> None:
        """Rate `games` in the order given, and count them in the tally unless told not to (a second pass)."""
        for record in games:
            first, second = self.of[record.first], self.of[record.second]
            ranks: list[float] = ([0, 0] if record.ending is Ending.DRAW
                                  else [0, 1] if record.winner == record.first else [1, 0])
            [[self.of[record.first]], [self.of[record.second]]] = self.model.rate([[first], [second]], ranks=ranks)
            for name in (record.first, record.second) if tally else ():
                self.tally[name][record.result_for(name)] += 1

    def mu(self, name: str) -> float:
        """A player's mean skill so far."""
        return self.of[name].mu

    def standings(self) -> list[Standing]:
        """The table, best first."""
        standings = []
        for player in self.players:
            rating, count = self.of[player.name], self.tally[player.name]
            standings.append(Standing(player.name, player.kind, rating.ordinal(), rating.mu, rating.sigma,
                                      count["win"], count["draw"], count["loss"], count["forfeit"]))
        return sorted(standings, key=lambda standing: (-standing.rating, standing.player))


def rate(players: list[Player], games: list[GameRecord]) -> list[Standing]:
    """openskill ratings from the games in the order given, and each player's tally; best first."""
    ratings = Ratings(players)
    ratings.update(games)
    return ratings.standings()


def swiss_rounds(count: int) -> int:
    """How many rounds a Swiss schedule of `count` players plays: ceil(log2 count) + SWISS_EXTRA_ROUNDS,
    but never more than a round robin takes (count - 1 rounds, or count when one sits out each round)."""
    if count < 2:
        return 0
    return min(math.ceil(math.log2(count)) + SWISS_EXTRA_ROUNDS, count - 1 + count % 2)


def chosen_schedule(requested: Schedule | str | None, count: int) -> Schedule:
    """The schedule `count` players play: the one asked for, or for AUTO (the default) the round
    robin up to ROUND_ROBIN_MAX_PLAYERS players and Swiss above."""
    requested = Schedule(requested or Schedule.AUTO)
    if requested is Schedule.AUTO:
        return Schedule.ROUND_ROBIN if count <= ROUND_ROBIN_MAX_PLAYERS else Schedule.SWISS
    return requested


def planned_games(kind: Schedule, count: int) -> int:
    """How many games `count` players play on the schedule: known before the first game."""
    if kind is Schedule.ROUND_ROBIN:
        return count * (count - 1)
    return swiss_rounds(count) * 2 * (count // 2)


def swiss_pairs(order: list[str], met: set[frozenset[str]], budget: int = PAIRING_BUDGET) -> list[tuple[str, str]]:
    """`order` (an even number of players, best first) in pairs of neighbours who have not met.

    The first player takes the nearest one below it not yet met, and so on down; where the rest
    cannot then be paired without a rematch, the search goes back and takes the next nearest. When
    `budget` steps find no pairing without a rematch, each player in turn takes the nearest not yet
    met, or else simply the nearest.
    """
    found = _unmet_pairs(order, met, budget)
    if found is not None:
        return found
    pairs, rest = [], list(order)
    while rest:
        first = rest.pop(0)
        index = next((i for i, other in enumerate(rest) if frozenset((first, other)) not in met), 0)
        pairs.append((first, rest.pop(index)))
    return pairs


def _unmet_pairs(order: list[str], met: set[frozenset[str]], budget: int) -> list[tuple[str, str]] | None:
    """swiss_pairs' search, depth first without recursion (a class may be thousands): None if `budget`
    steps find no pairing without a rematch."""
    pairs: list[tuple[str, str]] = []
    trail: list[tuple[list[str], int]] = []  # for each pair taken: the players left before it, and the next try
    rest, start, steps = list(order), 0, 0
    while rest:
        first = rest[0]
        index = next((index for index in range(start + 1, len(rest)) if frozenset((first, rest[index])) not in met),
                     None)
        if index is None:  # nobody left for `first`: undo the last pair and try its next candidate
            if not trail:
                return None
            pairs.pop()
            rest, start = trail.pop()
            continue
        steps += 1
        if steps > budget:
            return None
        trail.append((rest, index))
        pairs.append((first, rest[index]))
        rest, start = rest[1:index] + rest[index + 1:], 0
    return pairs


Planned = tuple[int, Player, Player]


def play_swiss(players: list[Player], seed: int, play: Callable[[list[Planned]], list[GameRecord]],
               rounds: int | None = None) -> tuple[list[GameRecord], Ratings]:
    """A Swiss schedule: every game played by `play` (a round's games at once) and rated in order.

    Each round sorts the players by their mean skill so far (ties, as in the first round, in an
    order the seed shuffles), lets the lowest of those who sat out least sit out when the number is
    odd, pairs the rest (swiss_pairs), and plays each pair twice, the better placed moving first in
    the first game. The games are numbered on from round to round. Once the rounds are over, the
    ratings go over every game again: SWISS_PASSES passes in all, each in the order played.
    """
    rounds = swiss_rounds(len(players)) if rounds is None else rounds
    by_name = {player.name: player for player in players}
    shuffled = random.Random(f"swiss:{seed}").sample(sorted(by_name), len(by_name))
    tiebreak = {name: index for index, name in enumerate(shuffled)}
    ratings = Ratings(players)
    met: set[frozenset[str]] = set()
    sat_out: Counter = Counter()
    records: list[GameRecord] = []
    number = 0
    for round_number in range(1, rounds + 1):
        order = sorted(by_name, key=lambda name: (-ratings.mu(name), tiebreak[name]))
        if len(order) % 2:
            fewest = min(sat_out[name] for name in order)
            resting = [name for name in order if sat_out[name] == fewest][-1]
            sat_out[resting] += 1
            order.remove(resting)
        planned: list[Planned] = []
        for upper, lower in swiss_pairs(order, met):
            met.add(frozenset((upper, lower)))
            planned += [(number + 1, by_name[upper], by_name[lower]), (number + 2, by_name[lower], by_name[upper])]
            number += 2
        played = [dataclasses.replace(record, round=round_number) for record in play(planned)]
        ratings.update(played)
        records += played
    for _ in range(SWISS_PASSES - 1):
        ratings.update(records, tally=False)
    return records, ratings


@contextlib.contextmanager
def entrants(kit: Kit, game: Game, students: list) -> Iterator[list[Player]]:
    """The players: each student's module laid out in a scratch folder, the references, the baselines."""
    exercise = game.exercise
    rules = game.rules
    taken = {student.name for student in students}
    for name in [*rules.ARENA_REFERENCES, *rules.ARENA_BASELINES]:
        if name in taken:  # the table names players by these, so a student of that name would be confused with one
            raise KitError(f"a submission is named {name!r}, like one of the arena's own players; rename it")
    reference = exercise.solution_dir(kit.root)
    if not (reference / exercise.module).is_file():
        raise KitError(f"{reference / exercise.module}: the reference solution is missing")
    with tempfile.TemporaryDirectory(prefix="minimax-kit-arena-") as scratch:
        players = []
        for index, student in enumerate(students):
            folder = Path(scratch) / f"student-{index}"
            if student.problem is not None:  # known bad from the class folder alone (two entries for one name)
                players.append(Player(student.name, PlayerKind.STUDENT, unusable=student.problem))
                continue
            try:
                prepare_submission(student.path, exercise.module, folder, exercise.given_paths)
                players.append(Player(student.name, PlayerKind.STUDENT, rules.ARENA_SETTING, folder))
            except SubmissionProblem as exc:
                players.append(Player(student.name, PlayerKind.STUDENT, unusable=str(exc)))
        folder = Path(scratch) / "reference"
        prepare_submission(reference, exercise.module, folder, exercise.given_paths)
        players += [Player(name, PlayerKind.REFERENCE, setting, folder)
                    for name, setting in rules.ARENA_REFERENCES.items()]
        players += [Player(name, PlayerKind.BASELINE) for name in rules.ARENA_BASELINES]
        yield players


def run_arena(kit: Kit, exercise: Exercise, students: list, *, seed: int | None, jobs: int | None,
              move_timeout: float | None, advance: Callable[[], None] | None = None,
              planned: Callable[[int], None] | None = None,
              schedule_kind: Schedule | str | None = None) -> ArenaResult:
    """Play the class's games on the exercise's arena game, on the schedule asked for, and rate the players."""
    game = arena_game(exercise)
    seed = DEFAULT_SEED if seed is None else seed
    per_move = game.call_timeout if move_timeout is None else move_timeout
    with entrants(kit, game, students) as players:
        return play_arena(kit, game, players, seed=seed, jobs=jobs, move_timeout=per_move, advance=advance,
                          planned=planned, schedule_kind=schedule_kind)


def play_arena(kit: Kit, game: Game, players: list[Player], *, seed: int, jobs: int | None, move_timeout: float,
               advance: Callable[[], None] | None = None, planned: Callable[[int], None] | None = None,
               schedule_kind: Schedule | str | None = None) -> ArenaResult:
    """Every game of `players` on `game`, on the schedule asked for (AUTO when None), rated."""
    kind = chosen_schedule(schedule_kind, len(players))
    if planned is not None:
        planned(planned_games(kind, len(players)))

    def play(games: list[Planned]) -> list[GameRecord]:
        return in_parallel(lambda planned_game: play_one(kit, game, *planned_game, seed, move_timeout), games, jobs,
                           done=advance)

    if kind is Schedule.ROUND_ROBIN:
        records = play(schedule(players, seed))
        standings, rounds = rate(players, records), 0
    else:
        records, ratings = play_swiss(players, seed, play)
        standings, rounds = ratings.standings(), swiss_rounds(len(players))
    return ArenaResult(game.exercise, game.name, seed, move_timeout, game.rules.ARENA_SETTING,
                       tuple(standings), tuple(records), kind, rounds)
