"""`grade arena EXERCISE CLASS --out OUT`: every student's game-playing function against every other, rated.

Each game is two players on the exercise's arena game (`grader.grading.games`): students and the
reference run in the sandbox, a worker each per game, and are only ever asked for a move there; the
game file's baselines (kit code) move in this process. The game file judges every move. An
illegal move, an exception, a crash or a timeout loses that game by forfeit. Every ordered pair
plays once, so each pair meets twice with the first move swapped. The games' order is shuffled by
the seed and the ratings (openskill's Plackett-Luce model) are updated in that order, so the same
class and seed give the same table.
"""

from __future__ import annotations

import contextlib
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


def rate(players: list[Player], games: list[GameRecord]) -> list[Standing]:
    """openskill ratings from the games in the order given, and each player's tally; best first."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {player.name: model.rating(name=player.name) for player in players}
    tally = {player.name: Counter() for player in players}
    for record in games:
        first, second = ratings[record.first], ratings[record.second]
        ranks = [0, 0] if record.ending is Ending.DRAW else ([0, 1] if record.winner == record.first else [1, 0])
        [[ratings[record.first]], [ratings[record.second]]] = model.rate([[first], [second]], ranks=ranks)
        for name in (record.first, record.second):
            tally[name][record.result_for(name)] += 1
    standings = []
    for player in players:
        rating, count = ratings[player.name], tally[player.name]
        standings.append(Standing(player.name, player.kind, rating.ordinal(), rating.mu, rating.sigma,
                                  count["win"], count["draw"], count["loss"], count["forfeit"]))
    return sorted(standings, key=lambda standing: (-standing.rating, standing.player))


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
              planned: Callable[[int], None] | None = None) -> ArenaResult:
    """Play every game of the class on the exercise's arena game and rate the players."""
    game = arena_game(exercise)
    seed = DEFAULT_SEED if seed is None else seed
    per_move = game.call_timeout if move_timeout is None else move_timeout
    with entrants(kit, game, students) as players:
        games = schedule(players, seed)
        if planned is not None:
            planned(len(games))
        records = in_parallel(lambda planned_game: play_one(kit, game, *planned_game, seed, per_move), games, jobs,
                              done=advance)
    return ArenaResult(exercise, game.name, seed, per_move, game.rules.ARENA_SETTING,
                       tuple(rate(players, records)), tuple(records))
