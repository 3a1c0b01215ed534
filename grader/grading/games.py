"""The kit's games: each exercise's `play.py`, loaded and checked, and a sandboxed player that proposes its moves.

`grade play` (a human against the code) and `grade arena` (the code of a class against itself) both
use these. The game file is kit code, loaded into this process: it keeps the position and judges
every move. The student's code only ever proposes a move, and only in the sandbox.

A game file defines, for `grade play`:

    NAME          the name on the command line, such as "simple-nim"
    RULES         one or two sentences shown before the game
    FUNCTION      the student's function the computer player calls, such as "best_move"
    CALL_TIMEOUT  optional: seconds per call, when the exercise's call_timeout is too short
    setup(ask)                the starting position; `ask(question, parse)` asks the human for options
    draw(position)            the position as plain text, at most 80 columns wide
    prompt(position)          the question that asks the human for a move
    human_move(position, text)    the position after the human's move; ValueError(one line) if invalid
    ai_args(position)         the arguments for FUNCTION
    ai_move(position, value)  (position, what the move did) for the value FUNCTION returned;
                              ValueError(why) when that value is malformed or not a legal move
    result(position)          None while the game goes on, else +1, -1 or 0 for the player who just moved

and, for `grade arena` (the exercise's `exercise.toml` then names the game in `arena`):

    ARENA_SETTING             what each student's FUNCTION is given besides the position (a depth, a budget)
    ARENA_REFERENCES          {player name: setting}: the reference solution at each setting
    ARENA_BASELINES           {player name: function(position, rng) -> a value as FUNCTION returns}: kit players
    arena_start()             the starting position of every arena game
    arena_args(position, setting)  the arguments for FUNCTION, for a player with that setting
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from grader.catalog import GAME_FILE, Exercise, Kit, KitError, load_exercise
from grader.sandbox import CPU_SLACK, Sandbox, open_sandbox, sandbox_settings
from grader.submission import add_given

REQUIRED = ("NAME", "RULES", "FUNCTION", "setup", "draw", "prompt", "human_move", "ai_args", "ai_move", "result")
ARENA_REQUIRED = ("ARENA_SETTING", "ARENA_REFERENCES", "ARENA_BASELINES", "arena_start", "arena_args")
# The worker's CPU rlimit is a backstop, since each call already has a wall-clock deadline: it covers
# this many calls at their full deadline. No game in the kit gives one player more than 21 moves.
CPU_CALLS = 25


@dataclass(frozen=True)
class Game:
    """A game found in an exercise folder, with that exercise's sandbox settings."""

    name: str
    exercise: Exercise
    rules: ModuleType
    """The loaded game file."""

    @property
    def function(self) -> str:
        """The student's function the computer player calls."""
        return self.rules.FUNCTION

    @property
    def call_timeout(self) -> float:
        """Seconds allowed for one move: the game's own CALL_TIMEOUT, or else the exercise's."""
        return float(getattr(self.rules, "CALL_TIMEOUT", self.exercise.call_timeout))


def load_game(folder: Path) -> Game:
    """Load `folder/play.py` and check that it defines the whole game protocol."""
    path = folder / GAME_FILE
    exercise = load_exercise(folder)
    spec = importlib.util.spec_from_file_location(f"minimax_kit_game_{folder.name}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken game file is a fault in the kit: say which file and why
        raise KitError(f"{path}: the game file does not load: {type(exc).__name__}: {exc}") from None
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise KitError(f"{path}: the game file lacks {', '.join(missing)}")
    if type(module.NAME) is not str or not module.NAME:
        raise KitError(f"{path}: NAME must be a non-empty string, got {module.NAME!r}")
    return Game(module.NAME, exercise, module)


def find_games(kit: Kit) -> dict[str, Game]:
    """Every game in the kit, by name, found as exercises/*/play.py."""
    games: dict[str, Game] = {}
    for folder in kit.exercise_folders():
        if not (folder / GAME_FILE).is_file():
            continue
        game = load_game(folder)
        if game.name in games:
            raise KitError(f"{folder / GAME_FILE}: the game name {game.name!r} is taken by "
                           f"{games[game.name].exercise.name}")
        games[game.name] = game
    return games


def arena_game(exercise: Exercise) -> Game:
    """The game an exercise names for the arena, checked to define the arena's part of the protocol."""
    if exercise.arena is None:
        raise KitError(f"{exercise.id} has no arena game: its exercise.toml names none (arena = \"GAME\")")
    if not (exercise.path / GAME_FILE).is_file():
        raise KitError(f"{exercise.path / 'exercise.toml'}: arena names {exercise.arena!r}, but the exercise "
                       f"has no {GAME_FILE}")
    game = load_game(exercise.path)
    path = exercise.path / GAME_FILE
    if game.name != exercise.arena:
        raise KitError(f"{exercise.path / 'exercise.toml'}: arena names {exercise.arena!r}, but {path} is the "
                       f"game {game.name!r}")
    missing = [name for name in ARENA_REQUIRED if not hasattr(game.rules, name)]
    if missing:
        raise KitError(f"{path}: the game file lacks {', '.join(missing)}, which the arena needs")
    return game


@contextlib.contextmanager
def game_sandbox(kit: Kit, game: Game, source_dir: Path, call_timeout: float | None = None) -> Iterator[Sandbox]:
    """A sandbox for one game of the module laid out in `source_dir`, opened as a grading run opens one.

    Its worker has the hash seed every worker has, so the code meets the same tie-breaks as when
    graded. `call_timeout` (default: the game's) sizes the CPU backstop.
    """
    exercise = game.exercise
    per_call = game.call_timeout if call_timeout is None else call_timeout
    settings = sandbox_settings(exercise, source_dir, cpu_seconds=math.ceil(per_call * CPU_CALLS) + CPU_SLACK)
    with open_sandbox(kit, settings) as sandbox:
        if sandbox.warning:  # weakened isolation is never silent
            print(f"grade: warning: {sandbox.warning}", file=sys.stderr)
        yield sandbox


@contextlib.contextmanager
def module_folder(game: Game, source: Path) -> Iterator[Path]:
    """A scratch folder holding a copy of the module file `source` and the exercise's given modules."""
    with tempfile.TemporaryDirectory(prefix="minimax-kit-play-") as scratch:
        source_dir = Path(scratch) / "submission"
        source_dir.mkdir()
        shutil.copyfile(source, source_dir / game.exercise.module)
        add_given(game.exercise.given_paths, source_dir)
        yield source_dir
