"""`grade play`: whole games through the CLI with scripted input, and the game files' own judgement."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from grader.catalog import Kit, KitError
from grader.grading import find_games, load_game
from tests.conftest import GRADE, REPO

# Run again as an ordinary user by .ci/run (python -m pytest -m ordinary_user): what a uid without root meets.
pytestmark = pytest.mark.ordinary_user

GAMES = {"simple-nim": "ex01_simple_nim", "nim": "ex05_nim_variants", "tictactoe": "ex06_tic_tac_toe",
         "connect4": "ex08_connect_four", "chance": "ex10_expectimax", "deepening": "ex11_deepening"}


def play(*args: str, stdin: str, cwd: Path = REPO, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `grade play ...` as run_grade runs `grade`, but with the player's lines on stdin."""
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run([*GRADE, "play", *args], input=stdin, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def lines(*answers: str) -> str:
    return "".join(f"{answer}\n" for answer in answers)


def words(output: str) -> str:
    """The output with rich's line wrapping undone, to look for whole messages."""
    return " ".join(output.split())


def copy_kit(tmp_path: Path, exercise: str = "ex01_simple_nim") -> Path:
    """A kit holding one real exercise, to break its files without touching the real exercises/ folder."""
    root = tmp_path / "kit"
    (root / "exercises").mkdir(parents=True)
    shutil.copyfile(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(REPO / "exercises" / exercise, root / "exercises" / exercise,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


# --------------------------------------------------------------------------------------------
# Whole games against the reference. Its moves are deterministic, so each script of answers
# leads to one known ending (the scripts were found by playing the reference in-process).


@pytest.mark.parametrize("game, first, answers, ending", [
    # 15 counters: leave the reference a pile of 4k + 1 every time.
    ("simple-nim", "you", ["", "2", "3", "3", "3"], "You win!"),
    ("simple-nim", "ai", ["", "1", "1", "1", "1"], "The reference wins."),
    # (2, 3, 5): leaving (2, 3, 1) wins both variants for the player who moves first.
    ("nim", "you", ["", "", "3 4", "2 1", "1 2"], "You win!"),
    ("nim", "you", ["normal", "", "3 4", "2 1", "1 1", "1 1"], "You win!"),
    ("nim", "you", ["misère", "", "1 1", "1 1", "2 1", "2 1"], "The reference wins."),
    ("nim", "ai", ["n", "1 2 3", "1 1", "2 1", "2 1"], "You win!"),
    # The reference never loses tic-tac-toe: perfect play draws, careless play loses.
    ("tictactoe", "you", ["0", "1", "6", "5", "8"], "A draw."),
    ("tictactoe", "ai", ["4", "2", "3", "7"], "A draw."),
    ("tictactoe", "you", ["0", "1", "3"], "The reference wins."),
    # best_move_vs_random expects a random reply: a careful player beats it, a careless one loses.
    ("chance", "you", ["1", "0", "4", "8"], "You win!"),
    ("chance", "you", ["1", "2", "5"], "The reference wins."),
    # timed_move with a second a move: whatever depth the machine allows, it takes the bottom row.
    ("deepening", "ai", ["", "6", "6", "6", "5", "5", "5", "4", "4", "4"], "The reference wins."),
    # Depth 1 misses what a depth-5 player sets up; at depth 4 it punishes column 0 every time.
    ("connect4", "you", ["1", "3", "3", "3", "2", "4", "1"], "You win!"),
    ("connect4", "ai", ["", "0", "0", "0"], "The reference wins."),
])
def test_a_whole_game_against_the_reference(game, first, answers, ending):
    result = play(game, "--solution", "--first", first, stdin=lines(*answers))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith(ending), result.stdout
    assert "The reference " in result.stdout  # it narrates its moves


def test_the_reference_answers_are_shown_so_students_can_compare():
    result = play("simple-nim", "--solution", "--first", "you", stdin=lines("", "2", "q"))
    assert "The reference takes 1 counter, leaving 12." in result.stdout
    assert "(best_move(13) returned (-1, 12) in " in result.stdout


def test_who_moves_first_can_be_answered_on_stdin():
    result = play("tictactoe", "--solution", stdin=lines("maybe", "ai", "q"))
    assert "answer you or ai, not 'maybe'" in result.stdout
    assert "The reference plays X on square" in result.stdout


def test_bad_answers_get_one_line_each_and_the_question_again():
    answers = ["lots", "99", "", "x", "4", "0", "2.5", "2", "q"]
    result = play("simple-nim", "--solution", "--first", "you", stdin=lines(*answers))
    assert result.returncode == 0
    out = result.stdout
    assert "type a whole number from 1 to 20, not 'lots'" in out
    assert "the pile must hold 1 to 20 counters, not 99" in out
    assert "type how many counters to take (1 to 3), not 'x'" in out
    assert "you may take 1 to 3 counters from a pile of 15, not 4" in out
    assert "you may take 1 to 3 counters from a pile of 15, not 0" in out
    assert "not '2.5'" in out
    assert "leaving 12." in out and out.rstrip().endswith("Game abandoned.")


@pytest.mark.parametrize("game, answers, messages", [
    ("nim", ["chess", "", "1 2 8", "", "9 1", "1 5", "one", "1 1 1", "q"],
     ["answer misere or normal, not 'chess'", "each pile holds 1 to 7 counters",
      "there is no pile 9: the piles are numbered 1 to 3", "pile 1 holds 2: take 1 to 2 counters, not 5",
      "type two numbers, the pile and how many to take", "not '1 1 1'"]),
    ("tictactoe", ["9", "middle", "4", "4", "q"],
     ["the squares are numbered 0 to 8, not 9",
      "type the number of a free square (0, 1, 2, 3, 4, 5, 6, 7, 8), not 'middle'",
      "square 4 holds X; the free squares are"]),
    ("connect4", ["deep", "9", "", "7", "-1", "three", "q"],
     ["type a whole number from 1 to 6, not 'deep'", "the depth must be 1 to 6, not 9",
      "the columns are numbered 0 to 6, not 7", "the columns are numbered 0 to 6, not -1",
      "type the number of a column that is not full (0, 1, 2, 3, 4, 5, 6), not 'three'"]),
])
def test_each_game_explains_a_bad_answer(game, answers, messages):
    result = play(game, "--solution", "--first", "you", stdin=lines(*answers))
    assert result.returncode == 0, result.stdout + result.stderr
    for message in messages:
        assert message in result.stdout


@pytest.mark.parametrize("stdin", ["", lines("", "you"), lines("quit")])
def test_end_of_input_or_q_quits_cleanly(stdin):
    result = play("simple-nim", "--solution", stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("Game abandoned.")
    assert result.stderr == ""


def test_ctrl_c_abandons_the_game_with_exit_130():
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    process = subprocess.Popen([*GRADE, "play", "simple-nim", "--solution"], cwd=REPO, env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen, deadline = b"", time.monotonic() + 30
    while b"Counters in the pile" not in seen and time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 1)[0]:
            seen += os.read(process.stdout.fileno(), 4096)
    process.send_signal(signal.SIGINT)
    # Wait before communicate() closes stdin: on a busy machine the EOF could reach the prompt
    # before the signal does, and that is quitting, not Ctrl-C.
    process.wait(timeout=30)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, (seen + out + err).decode()
    assert b"Game abandoned." in out


def test_listing_and_unknown_games():
    listing = play(stdin="")
    assert listing.returncode == 0
    for name, folder in GAMES.items():
        assert name in listing.stdout and folder[:4] in listing.stdout
    unknown = play("chess", stdin="")
    assert unknown.returncode == 2
    assert unknown.stderr == "grade: unknown game 'chess'; the games are: chance, connect4, deepening, nim, simple-nim, tictactoe\n"


# --------------------------------------------------------------------------------------------
# The student's own code: every way it can fail ends the game with a message and exit 1.


@pytest.mark.parametrize("source, message", [
    ("def best_move(state):\n    while True:\n        pass\n", "your best_move did not return within 0.5 s"),
    ("import os\ndef best_move(state):\n    os._exit(3)\n",
     "the worker crashed during best_move: exited with status 3"),
    ("def best_move(state):\n    raise ValueError('no moves today')\n",
     "your best_move(15) raised ValueError: no moves today (at simple_nim.py line 2 in best_move)"),
    ("def best_move(state):\n    return (1, state)\n",
     "your best_move(15) returned (1, 15): from 15 counters a move leaves 12 to 14, not 15"),
    ("def best_move(state):\n    return 'five'\n",
     "your best_move(15) returned 'five': best_move must return a tuple (score, new_state)"),
    ("def best_move(state):\n    return {1, 2}\n", "your best_move returned a set"),
    ("def minimax(state, max_turn):\n    return 1\n",
     "exercises/ex01_simple_nim/simple_nim.py has no function best_move"),
    ("def best_move(state)\n    return 1\n", "could not be imported: simple_nim.py line 1: SyntaxError"),
])
def test_student_code_that_fails_ends_the_game(tmp_path, source, message):
    kit = copy_kit(tmp_path)
    folder = kit / "exercises" / "ex01_simple_nim"
    (folder / "simple_nim.py").write_text(source, encoding="utf-8")
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("call_timeout = 3.0", "call_timeout = 0.5"))
    result = play("simple-nim", "--first", "ai", "--kit", str(kit), stdin=lines(""))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "The game ends: " in result.stdout
    assert message in words(result.stdout)


def test_the_stub_says_what_to_do():
    result = play("simple-nim", "--first", "ai", stdin=lines(""))
    assert result.returncode == 1
    assert "your best_move(15) raised NotImplementedError" in result.stdout
    assert "finish best_move in exercises/ex01_simple_nim/simple_nim.py, or play the reference with --solution" \
        in words(result.stdout)


def test_student_prints_are_shown_and_the_code_runs_in_the_sandbox(tmp_path):
    kit = copy_kit(tmp_path)
    source = textwrap.dedent("""\
        import os

        def best_move(state):
            print("thinking as uid", os.getuid())
            return (1, state - 1)
    """)
    (kit / "exercises" / "ex01_simple_nim" / "simple_nim.py").write_text(source, encoding="utf-8")
    result = play("simple-nim", "--first", "ai", "--kit", str(kit), stdin=lines("3", "2"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "your code printed:" in result.stdout
    assert "Your code takes 1 counter, leaving 2." in result.stdout
    assert result.stdout.rstrip().endswith("Your code wins.")
    uid = int(result.stdout.split("thinking as uid ")[1].split()[0])
    assert uid != 0 if os.geteuid() == 0 else uid == os.geteuid()


def test_missing_files_are_usage_errors(tmp_path):
    kit = copy_kit(tmp_path)
    reference = play("simple-nim", "--solution", "--kit", str(kit), stdin="")
    assert reference.returncode == 2
    assert "solutions/ex01_simple_nim/simple_nim.py: the reference solution is missing" in reference.stderr
    (kit / "exercises" / "ex01_simple_nim" / "simple_nim.py").unlink()
    own = play("simple-nim", "--kit", str(kit), stdin="")
    assert own.returncode == 2 and "your exercise file is missing" in own.stderr


# --------------------------------------------------------------------------------------------
# The game files, in-process: they judge moves by their own rules and never trust the AI.


@pytest.fixture(scope="module")
def games():
    return find_games(Kit(REPO))


def test_every_game_is_found_in_its_exercise(games):
    assert {name: game.exercise.name for name, game in games.items()} == GAMES


@pytest.mark.parametrize("name, position, value, words", [
    ("simple-nim", 2, (1, -1), "from 2 counters a move leaves 0 to 1, not -1"),
    ("simple-nim", 9, (1, 5), "leaves 6 to 8, not 5"),
    ("simple-nim", 9, (1, 8.0), "new_state must be an int"),
    ("simple-nim", 9, (1, True), "new_state must be an int"),
    ("simple-nim", 9, [1, 8], "must return a tuple (score, new_state)"),
    ("nim", ((2, 3, 5), "misere"), (1, [2, 3, 1]), "new_state must be a tuple of 3 ints"),
    ("nim", ((2, 3, 5), "misere"), (1, (2, 3)), "new_state must be a tuple of 3 ints"),
    ("nim", ((2, 3, 5), "misere"), (1, (2, 3, 5)), "exactly one pile"),
    ("nim", ((2, 3, 5), "misere"), (1, (1, 3, 1)), "exactly one pile"),
    ("nim", ((2, 3, 5), "misere"), (1, (2, 3, 6)), "exactly one pile"),
    ("nim", ((2, 3, 5), "misere"), (1, (2, 3, -1)), "exactly one pile"),
    ("nim", ((2, 3, 5), "misere"), None, "must return a tuple (score, new_state)"),
    ("tictactoe", ("X        ", 0), 0, "not a free square; the free squares are 1, 2, 3"),
    ("tictactoe", ("X        ", 0), 9, "not a free square"),
    ("tictactoe", ("X        ", 0), True, "must return an int"),
    ("tictactoe", ("X        ", 0), "4", "must return an int"),
    ("connect4", (("X......",) + ("XO.....",) * 5, None, 4), 0, "the open columns are 1, 2, 3, 4, 5, 6"),
    ("connect4", ((".......",) * 6, None, 4), 7, "not a column that can take a piece"),
    ("connect4", ((".......",) * 6, None, 4), 3.0, "must return an int"),
])
def test_an_illegal_or_malformed_move_is_refused(games, name, position, value, words):
    rules = games[name].rules
    if isinstance(position, tuple):
        position = rules.Position(*position)
    with pytest.raises(ValueError, match=re.escape(words)):
        rules.ai_move(position, value)


def test_the_games_apply_legal_moves(games):
    nim = games["nim"].rules
    after, words = nim.ai_move(nim.Position((2, 3, 5), "normal"), (1, (2, 3, 1)))
    assert after.piles == (2, 3, 1) and words == "takes 4 from pile 3, leaving (2, 3, 1)"
    ttt = games["tictactoe"].rules
    after, words = ttt.ai_move(ttt.Position("X        ", 0), 4)
    assert after.board == "X   O    " and words == "plays O on square 4"
    c4 = games["connect4"].rules
    after, words = c4.ai_move(c4.Position((".......",) * 6, None, 4), 3)
    assert after.rows[5] == "...X..." and after.last == (5, 3) and words == "drops X into column 3"


@pytest.mark.parametrize("board, last, expected", [
    ("XXX OO   ", 2, 1),
    ("OOX X X  ", 6, 1),          # the anti-diagonal 2, 4, 6
    ("X O X O X", 8, 1),          # the diagonal 0, 4, 8
    ("XOXXOOOXX", 8, 0),          # full, nobody has a line
    ("XO X     ", 3, None),
])
def test_tictactoe_results(games, board, last, expected):
    rules = games["tictactoe"].rules
    assert rules.result(rules.Position(board, last)) == expected


@pytest.mark.parametrize("rows, last, expected", [
    ((".......", ".......", "...X...", "..XO...", ".XOO...", "XOOX..."), (2, 3), 1),  # rising diagonal
    ((".......", ".......", "X......", "OX.....", "OOX....", "OXOX..."), (2, 0), 1),  # falling diagonal
    ((".......", ".......", "...O...", "...O...", "...O...", "..XOXX."), (2, 3), 1),  # down
    ((".......", ".......", ".......", ".......", ".......", "XXX.OOO"), (5, 6), None),
    (("XOXOXOX", "XOXOXOX", "OXOXOXO", "OXOXOXO", "XOXOXOX", "XOXOXOX"), (0, 6), 0),  # full, no four
])
def test_connect4_results(games, rows, last, expected):
    rules = games["connect4"].rules
    assert rules.result(rules.Position(rows, last, 4)) == expected


def test_a_broken_game_file_is_a_fault_in_the_kit(tmp_path):
    kit = copy_kit(tmp_path)
    game_file = kit / "exercises" / "ex01_simple_nim" / "play.py"
    game_file.write_text('NAME = "simple-nim"\nRULES = "none"\n', encoding="utf-8")
    with pytest.raises(KitError, match="play.py: the game file lacks FUNCTION, setup, draw"):
        find_games(Kit(kit))
    game_file.write_text("NAME = \n", encoding="utf-8")
    with pytest.raises(KitError, match="play.py: the game file does not load: SyntaxError"):
        load_game(game_file.parent)
    result = play("simple-nim", "--kit", str(kit), stdin="")
    assert result.returncode == 2 and "the game file does not load" in result.stderr


def test_two_games_of_one_name_are_a_fault_in_the_kit(tmp_path):
    kit = copy_kit(tmp_path)
    twin = kit / "exercises" / "ex10_simple_nim"
    shutil.copytree(kit / "exercises" / "ex01_simple_nim", twin)
    toml = twin / "exercise.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('id = "ex01"', 'id = "ex10"'), encoding="utf-8")
    with pytest.raises(KitError, match="the game name 'simple-nim' is taken by ex01_simple_nim"):
        find_games(Kit(kit))
