"""`grade play GAME`: play a game in the terminal against the student's own code, run in the sandbox.

The driver here knows no game. Each game lives in its exercise's folder as `play.py`, which is kit
code loaded into this process and which holds everything particular to that game: the rules, the
board drawing, reading the human's move and judging the move the student's code returns. The
student's code only ever proposes a move; it runs in the sandbox like a graded submission, and the
game file decides whether that move is legal and who has won.

A game file defines:

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
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import math
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from rich.console import Console
from rich.markup import escape

from grader.catalog import GAME_FILE, Exercise, Kit, KitError, load_exercise
from grader.failures import FailureKind, StudentError, StudentFailure, StudentRaised
from grader.sandbox import CPU_SLACK, Sandbox, open_sandbox, sandbox_settings
from grader.submission import add_given, derive_seed
from grader.text import truncate

REQUIRED = ("NAME", "RULES", "FUNCTION", "setup", "draw", "prompt", "human_move", "ai_args", "ai_move", "result")
QUIT_WORDS = ("q", "quit", "exit")
# The worker's CPU rlimit is a backstop, since each call already has a wall-clock deadline: it covers
# this many calls at their full deadline. No game in the kit gives the computer more than 21 moves.
CPU_CALLS = 25
# Long values (a Connect-4 board, a runaway list) are cut in messages so a line stays readable.
SHOWN_CHARS = 200
# The student's own prints during a move are shown, but only the start of them.
SHOWN_OUTPUT_LINES = 10
EXIT_OK, EXIT_STUDENT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


class _Quit(Exception):
    """The human typed q or closed the input."""


class _GameOver(Exception):
    """The computer player's code failed, so the game cannot go on."""


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


def _short(value) -> str:
    text = repr(value)
    return truncate(text, SHOWN_CHARS, "[...]")


class Terminal:
    """Questions and answers on the terminal; q, quit or end of input stop the game."""

    def __init__(self, console: Console):
        self.console = console

    def say(self, text: str, style: str = "") -> None:
        """Print plain text (never markup: game text may hold brackets)."""
        self.console.print(text, style=style or None, markup=False, highlight=False)

    def ask(self, question: str, parse: Callable[[str], object]):
        """Ask until `parse` accepts the answer; it raises ValueError with a one-line reason otherwise."""
        while True:
            try:
                text = self.console.input(escape(question)).strip()
            except EOFError:
                self.console.print()
                raise _Quit from None
            if text.lower() in QUIT_WORDS:
                raise _Quit
            try:
                return parse(text)
            except ValueError as exc:
                self.say(f"  {exc}", "yellow")


def _first_mover(text: str) -> bool:
    """Whether the human moves first, from an answer such as "you", "ai" or nothing (you)."""
    answer = text.lower()
    if answer in ("", "you", "y", "me"):
        return True
    if answer in ("ai", "a", "it", "computer"):
        return False
    raise ValueError(f"answer you or ai, not {text!r}")


@contextlib.contextmanager
def game_sandbox(kit: Kit, game: Game, source: Path) -> Iterator[Sandbox]:
    """A sandbox for one game, opened as a grading run opens one for the game's exercise."""
    exercise = game.exercise
    with tempfile.TemporaryDirectory(prefix="minimax-kit-play-") as scratch:
        source_dir = Path(scratch) / "submission"
        source_dir.mkdir()
        shutil.copyfile(source, source_dir / exercise.module)
        sha256 = hashlib.sha256((source_dir / exercise.module).read_bytes()).hexdigest()
        add_given(exercise.given_paths, source_dir)
        # The seed a grade of this code would take, so the code meets the same tie-breaks as when graded.
        settings = sandbox_settings(exercise, source_dir, derive_seed(exercise.id, sha256),
                                    cpu_seconds=math.ceil(game.call_timeout * CPU_CALLS) + CPU_SLACK)
        with open_sandbox(kit, settings) as sandbox:
            if sandbox.warning:  # weakened isolation is never silent
                print(f"grade: warning: {sandbox.warning}", file=sys.stderr)
            yield sandbox


class ComputerPlayer:
    """The student's (or the reference's) function, called in the sandbox and judged by the game."""

    def __init__(self, game: Game, sandbox: Sandbox, terminal: Terminal, solution: bool, module_path: str):
        self.game = game
        self.sandbox = sandbox
        self.terminal = terminal
        self.name = "the reference" if solution else "your code"
        self.whose = "the reference's" if solution else "your"
        self.module_path = module_path

    def start(self) -> None:
        """Import the module now, so a broken file is reported before the first question."""
        try:
            self.sandbox.start()
        except StudentFailure as exc:
            self._show_output(exc.output)
            raise _GameOver(f"{self.module_path} could not be imported: {exc.message}") from None
        if self.game.function in self.sandbox.missing_functions():
            raise _GameOver(f"{self.module_path} has no function {self.game.function}")

    def move(self, position):
        """The position after the computer's move; _GameOver if its code failed or broke the rules."""
        rules, function = self.game.rules, self.game.function
        args = tuple(rules.ai_args(position))
        call = f"{function}({', '.join(_short(arg) for arg in args)})"
        started = time.monotonic()
        try:
            reply = self.sandbox.call(function, args, {}, timeout=self.game.call_timeout)
        except StudentFailure as exc:
            self._show_output(exc.output)
            raise _GameOver(self._failure(exc)) from None
        except StudentRaised as exc:
            self._show_output(exc.student.output)
            raise _GameOver(self._raised(exc.student, call)) from None
        elapsed = time.monotonic() - started
        self._show_output(reply.output)
        try:
            after, words = rules.ai_move(position, reply.value)
        except ValueError as exc:  # the game file's judgement of the returned move
            raise _GameOver(f"{self.whose} {call} returned {_short(reply.value)}: {exc}") from None
        self.terminal.say(f"{self.name.capitalize()} {words}.", "bold")
        self.terminal.say(f"  ({call} returned {_short(reply.value)} in {elapsed:.2f} s)", "dim")
        return after

    def _failure(self, exc: StudentFailure) -> str:
        if exc.failure.kind in (FailureKind.TIMEOUT, FailureKind.BAD_VALUE):  # "best_move did not return ..."
            return f"{self.whose} {exc.message}"
        return exc.message  # these name the worker, the module or "your code" themselves

    def _raised(self, info: StudentError, call: str) -> str:
        """What the student's exception said, under its own class name, and where it was raised."""
        kind, message = info.type, info.message
        text = f"{self.whose} {call} raised {kind}" + (f": {message}" if message else "")
        if info.where():
            text += f" (at {info.where()})"
        if kind == "NotImplementedError":
            text += f"; finish {self.game.function} in {self.module_path}, or play the reference with --solution"
        return text

    def _show_output(self, output: str) -> None:
        lines = output.splitlines()
        if not lines:
            return
        self.terminal.say(f"  {self.name} printed:", "dim")
        for line in lines[:SHOWN_OUTPUT_LINES]:
            self.terminal.say(f"  | {line}", "dim")
        if len(lines) > SHOWN_OUTPUT_LINES:
            self.terminal.say(f"  | [... {len(lines) - SHOWN_OUTPUT_LINES} more lines]", "dim")


def play_game(game: Game, terminal: Terminal, computer: ComputerPlayer, first: str | None) -> None:
    """Ask for the options and who starts, then alternate moves until the game is over."""
    rules = game.rules
    position = rules.setup(terminal.ask)
    human_to_move = first == "you" if first else terminal.ask("Who moves first, you or the AI? [you] ", _first_mover)
    terminal.say("\n" + rules.draw(position))
    while True:
        if human_to_move:
            position = terminal.ask(rules.prompt(position), lambda text, now=position: rules.human_move(now, text))
        else:
            position = computer.move(position)
        terminal.say("\n" + rules.draw(position))
        outcome = rules.result(position)
        if outcome is not None:
            break
        human_to_move = not human_to_move
    if outcome == 0:
        terminal.say("A draw.", "bold")
    elif (outcome > 0) == human_to_move:
        terminal.say("You win!", "bold green")
    else:
        terminal.say(f"{computer.name.capitalize()} wins.", "bold red")


def run_play(args: argparse.Namespace, console: Console) -> int:
    """`grade play [GAME] [--solution] [--first you|ai]`: 0 after a game or a quit, 1 if the code failed."""
    kit = Kit.find(Path.cwd(), args.kit)
    games = find_games(kit)
    listing = ", ".join(sorted(games)) or "none"
    if args.game is None:
        width = max(map(len, games), default=0)
        for name, game in sorted(games.items()):
            console.print(f"  [bold]{escape(name):<{width}}[/]  {game.exercise.id} {escape(game.exercise.title)}")
        console.print("Play one with [bold]grade play NAME[/], or against the reference with "
                      "[bold]grade play NAME --solution[/].")
        return EXIT_OK
    if args.game not in games:
        raise KitError(f"unknown game {args.game!r}; the games are: {listing}")
    game = games[args.game]
    exercise = game.exercise
    source = exercise.solution_dir(kit.root) / exercise.module if args.solution else exercise.stub_path
    if not source.is_file():
        whose = "the reference solution" if args.solution else "your exercise file"
        raise KitError(f"{source}: {whose} is missing")
    shown = source.relative_to(kit.root).as_posix()
    terminal = Terminal(console)
    terminal.say(f"{game.name} against {'the reference' if args.solution else 'your code'} ({shown})", "bold")
    terminal.say(f"{game.rules.RULES} Type q to quit.")
    with game_sandbox(kit, game, source) as sandbox:
        computer = ComputerPlayer(game, sandbox, terminal, args.solution, shown)
        try:
            computer.start()
            play_game(game, terminal, computer, args.first)
        except _GameOver as exc:
            terminal.say(f"The game ends: {exc}", "bold red")
            return EXIT_STUDENT_FAILED
        except _Quit:
            terminal.say("Game abandoned.")
        except KeyboardInterrupt:
            terminal.say("\nGame abandoned.")
            return EXIT_INTERRUPTED
    return EXIT_OK
