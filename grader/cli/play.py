"""`grade play GAME`: play a game in the terminal against the student's own code, run in the sandbox.

The driver here knows no game. Each game lives in its exercise's folder as `play.py` (its protocol
is in `grader.grading.games`), kit code that holds everything particular to that game: the rules,
the board drawing, reading the human's move and judging the move the student's code returns. The
student's code only ever proposes a move; it runs in the sandbox like a graded submission, and the
game file decides whether that move is legal and who has won.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from grader.catalog import Kit, KitError
from grader.failures import FailureKind, StudentError, StudentFailure, StudentRaised
from grader.grading import Game, find_games, game_sandbox, module_folder
from grader.sandbox import Sandbox
from grader.text import truncate

QUIT_WORDS = ("q", "quit", "exit")
# Long values (a Connect-4 board, a runaway list) are cut in messages so a line stays readable.
SHOWN_CHARS = 200
# The student's own prints during a move are shown, but only the start of them.
SHOWN_OUTPUT_LINES = 10
EXIT_OK, EXIT_STUDENT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


class _Quit(Exception):
    """The human typed q or closed the input."""


class _GameOver(Exception):
    """The computer player's code failed, so the game cannot go on."""


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
    with module_folder(game, source) as source_dir, game_sandbox(kit, game, source_dir) as sandbox:
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
