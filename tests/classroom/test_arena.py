"""`grade arena` (grader/classroom/arena.py, arena_report.py): a class's Connect-4 players, rated, from real games.

The class plays ex08 in the sandbox: the reference as a student, a player that returns an illegal
column, one too slow for the time per move, and one that raises an exception telling where it ran.
The kit adds the reference at depths 2 and 4 and the random and greedy baselines. The Swiss schedule
is tested on made-up games (players of known strength, no sandbox) and once for real.
"""

from __future__ import annotations

import csv
import math
import os
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from grader.catalog import Kit, KitError, load_exercise
from grader.classroom.arena import (
    ROUND_ROBIN_MAX_PLAYERS,
    SWISS_EXTRA_ROUNDS,
    SWISS_PASSES,
    Ending,
    Forfeit,
    GameRecord,
    Player,
    PlayerKind,
    Schedule,
    chosen_schedule,
    planned_games,
    play_one,
    play_swiss,
    rate,
    schedule,
    swiss_pairs,
    swiss_rounds,
)
from grader.cli import main
from grader.grading import arena_game
from tests.browser import headless_chromium, severe_console_errors
from tests.conftest import REPO, mutant_file, run_grade

pytestmark = pytest.mark.slow
MOVE_TIMEOUT = "0.5"  # the slow player sleeps far longer; every honest move at depth 4 takes milliseconds
SPY = '''import os
import sys


def best_move(board, depth):
    flags = "-s -P" if sys.flags.no_user_site and sys.flags.safe_path else "other flags"
    raise RuntimeError(f"asked in pid {os.getpid()} child of {os.getppid()} as uid {os.getuid()} with {flags}")
'''
KIT_PLAYERS = {"reference at depth 2": "reference", "reference at depth 4": "reference", "random": "baseline",
               "greedy": "baseline"}


def _class(folder: Path) -> Path:
    """Four students of ex08: the reference, an illegal column, a sleeper and a spy."""
    (folder / "alice").mkdir(parents=True)
    shutil.copyfile(REPO / "solutions" / "ex08_connect_four" / "connect_four.py", folder / "alice" / "connect_four.py")
    (folder / "illegal.py").write_text("def best_move(board, depth):\n    return 9\n")
    (folder / "sleeper.py").write_text("import time\n\n\ndef best_move(board, depth):\n    time.sleep(60)\n")
    (folder / "spy.py").write_text(SPY)
    return folder


def _table(out: Path) -> list[dict[str, str]]:
    with open(out / "arena.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """(class folder, OUT, the command's stdout) after `grade arena ex08 CLASS --out OUT --seed 3`."""
    base = tmp_path_factory.mktemp("arena")
    folder = _class(base / "class")
    out = base / "out"
    result = run_grade("arena", "ex08", str(folder), "--out", str(out), "--seed", "3", "--jobs", "2",
                       "--move-timeout", MOVE_TIMEOUT, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return folder, out, result.stdout


def test_every_player_meets_every_other_twice_and_the_table_adds_up(arena):
    _, out, stdout = arena
    table = _table(out)
    assert list(table[0]) == ["player", "rating", "wins", "draws", "losses", "forfeits", "mu", "sigma", "kind"]
    assert {row["player"]: row["kind"] for row in table} == {
        **KIT_PLAYERS, "alice": "student", "illegal": "student", "sleeper": "student", "spy": "student"}
    for row in table:  # 8 players: 7 opponents, each met once moving first and once second
        assert sum(int(row[key]) for key in ("wins", "draws", "losses", "forfeits")) == 14, row
    ratings = [float(row["rating"]) for row in table]
    assert ratings == sorted(ratings, reverse=True)
    assert sum(int(row["wins"]) for row in table) == sum(int(row["losses"]) + int(row["forfeits"]) for row in table)
    assert "8 players, 56 games, seed 3" in stdout


def test_an_illegal_move_an_exception_and_a_timeout_each_lose_by_forfeit(arena):
    _, out, _ = arena
    rows = {row["player"]: row for row in _table(out)}
    for player in ("illegal", "sleeper", "spy"):  # each wins only where one of the other two moved first
        assert (rows[player]["forfeits"], rows[player]["wins"], rows[player]["draws"]) == ("12", "2", "0"), player
    assert rows["alice"]["forfeits"] == "0" and int(rows["alice"]["wins"]) >= 6  # beats the three, both ways
    page = (out / "arena.html").read_text(encoding="utf-8")
    assert "lost by forfeit (illegal move): illegal: returned 9: that is not a column that can take a piece" in page
    assert "lost by forfeit (timeout): sleeper: " in page
    assert "lost by forfeit (raised): spy: RuntimeError: asked in pid " in page
    # The three beat only each other, so the reference and both baselines are rated above them.
    assert min(float(rows[name]["rating"]) for name in KIT_PLAYERS) > max(
        float(rows[name]["rating"]) for name in ("illegal", "sleeper", "spy"))


def test_a_students_move_is_asked_for_only_in_the_sandbox(arena):
    """The spy says where its best_move ran: in a worker, never in `grade arena` itself, and as root never as root."""
    _, out, _ = arena
    page = (out / "arena.html").read_text(encoding="utf-8")
    asked = re.findall(r"RuntimeError: asked in pid (\d+) child of (\d+) as uid (\d+) with ([^<]*)<", page)
    assert asked
    for _, parent, uid, flags in asked:
        assert int(parent) != os.getpid()  # `grade arena` is this test's child: it did not ask itself
        assert flags == "-s -P"  # a worker's flags (DESIGN.md section 5), not the grading process's
        if os.geteuid() == 0:
            assert int(uid) != 0


def test_the_same_class_and_seed_give_the_same_table_whatever_the_jobs(arena, tmp_path):
    folder, out, _ = arena
    again = tmp_path / "again"
    result = run_grade("arena", "ex08", str(folder), "--out", str(again), "--seed", "3", "--jobs", "1",
                       "--move-timeout", MOVE_TIMEOUT, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert (again / "arena.csv").read_bytes() == (out / "arena.csv").read_bytes()


def test_the_page_in_a_real_browser(arena, monkeypatch):
    """Headless Chromium opens arena.html: no console errors, the table of arena.csv, each player's 14 games."""
    from selenium.webdriver.common.by import By

    _, out, _ = arena
    table = _table(out)
    with headless_chromium(monkeypatch) as driver:
        driver.get((out / "arena.html").as_uri())
        assert severe_console_errors(driver) == []
        rows = driver.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
        assert [row.get_attribute("data-player") for row in rows] == [row["player"] for row in table]
        for shown, expected in zip(rows, table):
            for key in ("wins", "draws", "losses", "forfeits"):
                assert shown.find_element(By.CSS_SELECTOR, f'[data-stat="{key}"]').text == expected[key]
            assert shown.find_element(By.CSS_SELECTOR, '[data-stat="rating"]').text == expected["rating"]
        for expected in table:
            games = driver.find_elements(By.CSS_SELECTOR, f'section.player[data-player="{expected["player"]}"] '
                                                          "table.games tbody tr")
            results = [game.get_attribute("data-result") for game in games]
            assert len(games) == 14
            assert [results.count(word) for word in ("win", "draw", "loss", "forfeit")] == [
                int(expected[key]) for key in ("wins", "draws", "losses", "forfeits")]
        # A player's name links to that player's games.
        rows[0].find_element(By.CSS_SELECTOR, "a").click()
        assert driver.execute_script("return location.hash") != ""


def test_ratings_follow_the_games_in_order_and_draws_leave_equals_equal():
    players = [Player("a", PlayerKind.BASELINE), Player("b", PlayerKind.BASELINE)]
    wins = [GameRecord(1, "a", "b", Ending.WIN, "a", (3,)), GameRecord(2, "b", "a", Ending.FORFEIT, "a", (),
                                                                        Forfeit.TIMEOUT, "b: too slow")]
    first, second = rate(players, wins)
    assert (first.player, first.wins, second.losses, second.forfeits) == ("a", 2, 1, 1)
    assert first.rating > second.rating
    even = rate(players, [GameRecord(1, "a", "b", Ending.DRAW, None, ())])
    assert even[0].rating == even[1].rating and even[0].draws == even[1].draws == 1


def test_the_schedule_is_every_ordered_pair_once_in_an_order_the_seed_fixes():
    players = [Player(name, PlayerKind.BASELINE) for name in "abcd"]
    games = schedule(players, 5)
    assert sorted((first.name, second.name) for _, first, second in games) == sorted(
        (x, y) for x in "abcd" for y in "abcd" if x != y)
    assert [number for number, _, _ in games] == list(range(1, 13))
    assert [(f.name, s.name) for _, f, s in schedule(players, 5)] == [(f.name, s.name) for _, f, s in games]
    assert [(f.name, s.name) for _, f, s in schedule(players, 6)] != [(f.name, s.name) for _, f, s in games]


def test_ex11_joins_the_arena_with_its_own_game():
    """ex11's exercise.toml names its game; one game of the reference's timed_move against greedy plays out."""
    kit = Kit(REPO)
    game = arena_game(kit.resolve("ex11"))
    assert game.name == "deepening"
    reference = game.exercise.solution_dir(REPO)
    from grader.grading import module_folder

    with module_folder(game, reference / game.exercise.module) as folder:
        record = play_one(kit, game, 1, Player("ref", PlayerKind.REFERENCE, 0.05, folder),
                          Player("greedy", PlayerKind.BASELINE), seed=1, move_timeout=game.call_timeout)
    assert record.ending is Ending.WIN and record.winner == "ref", record
    assert 7 <= len(record.moves) <= 42


def _said_one_line(result) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grade: "), result.stderr
    return lines[0]


def _made_up(count: int):
    """`count` players of known strength (player i beats every j > i, whoever moves first) and the
    `play` that decides their games without playing them; each decision is remembered."""
    players = [Player(f"p{index:03d}", PlayerKind.STUDENT) for index in range(count)]
    asked: list[list[tuple[int, str, str]]] = []

    def play(planned):
        asked.append([(number, first.name, second.name) for number, first, second in planned])
        return [GameRecord(number, first.name, second.name, Ending.WIN, min(first.name, second.name), ())
                for number, first, second in planned]

    return players, play, asked


def _spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rho for values without ties."""
    rank_x = {value: rank for rank, value in enumerate(sorted(xs))}
    rank_y = {value: rank for rank, value in enumerate(sorted(ys))}
    count = len(xs)
    squares = sum((rank_x[x] - rank_y[y]) ** 2 for x, y in zip(xs, ys))
    return 1 - 6 * squares / (count * (count ** 2 - 1))


@pytest.mark.parametrize("count", [8, 40, 41, 504])
def test_the_swiss_schedule_plays_few_games_never_a_rematch_and_ranks_by_strength(count):
    """Made-up games: at most 2 N ceil(log2 N) of them, each pair twice or never, the best first, the same for a seed."""
    players, play, asked = _made_up(count)
    records, ratings = play_swiss(players, 4, play)
    rounds = swiss_rounds(count)
    assert rounds == min(math.ceil(math.log2(count)) + SWISS_EXTRA_ROUNDS, count - 1 + count % 2)
    assert len(asked) == rounds and len(records) == planned_games(Schedule.SWISS, count)
    assert len(records) <= 2 * count * math.ceil(math.log2(count)) < count * (count - 1)
    assert [record.number for record in records] == list(range(1, len(records) + 1))
    met: dict[frozenset, list[tuple[str, str]]] = {}
    for record in records:
        met.setdefault(frozenset((record.first, record.second)), []).append((record.first, record.second))
    for pair, games in met.items():  # each pair met in one round only, once moving first each
        assert len(games) == 2 and games[0] == games[1][::-1], (pair, games)
    for round_number, planned in enumerate(asked, start=1):  # a round at once, each player in it twice at most
        firsts, seconds = [first for _, first, _ in planned], [second for _, _, second in planned]
        assert len(set(firsts)) == len(firsts) == 2 * (count // 2) and sorted(firsts) == sorted(seconds)
        numbers = {number for number, _, _ in planned}
        assert {record.round for record in records if record.number in numbers} == {round_number}
    played = Counter(name for record in records for name in (record.first, record.second))
    assert set(played.values()) <= {2 * rounds, 2 * rounds - 2}  # an odd class: each sits out once at most
    table = ratings.standings()
    # The table: every game rated twice over in the order played, but counted once in the tally.
    assert SWISS_PASSES == 2
    assert [(s.player, s.mu, s.sigma) for s in table] == [
        (s.player, s.mu, s.sigma) for s in rate(players, records * SWISS_PASSES)]
    assert all(s.wins + s.draws + s.losses + s.forfeits == played[s.player] for s in table)
    strength = [-int(standing.player[1:]) for standing in table]
    # Pairing by rating finds the top: the best two come out first and second (pairing at random misses them).
    assert [standing.player for standing in table[:2]] == ["p000", "p001"]
    assert _spearman([standing.rating for standing in table], strength) >= 0.95, [s.player for s in table]
    again, _ = play_swiss(players, 4, _made_up(count)[1])
    assert again == records
    other, _ = play_swiss(players, 5, _made_up(count)[1])
    assert [(r.first, r.second) for r in other] != [(r.first, r.second) for r in records]


def test_the_swiss_pairing_goes_back_to_avoid_a_rematch_and_takes_one_only_when_it_must():
    order = ["a", "b", "c", "d"]
    # a with b would leave c and d, who have met: a goes with c instead.
    assert swiss_pairs(order, {frozenset("cd")}) == [("a", "c"), ("b", "d")]
    assert swiss_pairs(order, set()) == [("a", "b"), ("c", "d")]
    everyone = {frozenset((x, y)) for x in order for y in order if x != y}
    assert swiss_pairs(order, everyone) == [("a", "b"), ("c", "d")]  # all have met: the nearest
    # Out of steps, each takes the nearest it has not met, in turn.
    assert swiss_pairs(order, {frozenset("cd")}, budget=0) == [("a", "b"), ("c", "d")]
    assert swiss_pairs(order, {frozenset("ab")}, budget=0) == [("a", "c"), ("b", "d")]
    # Eight players over seven rounds, each round's pairs remembered: every pair meets once, a round robin.
    names = [f"p{index}" for index in range(8)]
    met: set[frozenset] = set()
    for turn in range(7):
        order = random.Random(turn).sample(names, len(names))
        for pair in swiss_pairs(order, met):
            assert frozenset(pair) not in met, (turn, pair)
            met.add(frozenset(pair))
    assert len(met) == 28


def test_the_round_robin_stays_up_to_40_players_and_the_help_says_so(capsys):
    assert ROUND_ROBIN_MAX_PLAYERS == 40
    assert chosen_schedule(None, 34) is chosen_schedule("auto", 40) is Schedule.ROUND_ROBIN  # a class of 30 or 36
    assert chosen_schedule(Schedule.AUTO, 41) is chosen_schedule("swiss", 8) is Schedule.SWISS
    assert chosen_schedule("round-robin", 500) is Schedule.ROUND_ROBIN
    assert planned_games(Schedule.ROUND_ROBIN, 34) == 34 * 33
    assert [swiss_rounds(count) for count in (1, 2, 3, 4, 5, 8, 40, 504)] == [0, 1, 3, 3, 5, 5, 8, 11]
    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert f"round-robin up to {ROUND_ROBIN_MAX_PLAYERS} players" in said
    assert f"ceil(log2 N)+{SWISS_EXTRA_ROUNDS} rounds" in said and f"N(log2 N + {SWISS_EXTRA_ROUNDS})" in said


def test_a_swiss_arena_for_real_gives_the_same_table_whatever_the_jobs(tmp_path):
    """Seven players, so one sits out each round: five rounds of three pairs, each pair twice."""
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copyfile(REPO / "solutions" / "ex08_connect_four" / "connect_four.py", folder / "alice.py")
    (folder / "illegal.py").write_text("def best_move(board, depth):\n    return 9\n")
    mutant_file(Kit(REPO), "ex08", "one_ply_greedy", folder)
    tables = []
    for jobs in ("2", "1"):
        out = tmp_path / f"out-{jobs}"
        result = run_grade("arena", "ex08", str(folder), "--out", str(out), "--seed", "3", "--jobs", jobs,
                           "--schedule", "swiss", "--move-timeout", MOVE_TIMEOUT, cwd=REPO)
        assert result.returncode == 0, result.stderr
        assert "7 players, 30 games (Swiss, 5 rounds), seed 3" in " ".join(result.stdout.split())
        tables.append((out / "arena.csv").read_bytes())
    assert tables[0] == tables[1]
    table = _table(out)
    assert {row["player"] for row in table} == {*KIT_PLAYERS, "alice", "illegal", "one_ply_greedy"}
    played = {row["player"]: sum(int(row[key]) for key in ("wins", "draws", "losses", "forfeits")) for row in table}
    assert sorted(played.values()) == [8] * 5 + [10] * 2  # two games a round; five sat out a round each
    illegal = next(row for row in table if row["player"] == "illegal")
    assert (illegal["wins"], illegal["forfeits"]) == ("0", str(played["illegal"]))
    page = (out / "arena.html").read_text(encoding="utf-8")
    assert "a Swiss schedule of 5 rounds" in page
    rounds = re.findall(r'data-stat="round">(\d+)<', page)
    assert len(rounds) == 2 * 30 and set(rounds) == {"1", "2", "3", "4", "5"}


@pytest.mark.parametrize("case, words", [
    ("missing folder", "no such folder"),
    ("no game", "ex04 has no arena game: its exercise.toml names none"),
    ("bad timeout", "argument --move-timeout: expected a positive number of seconds, got '-1'"),
    ("unknown exercise", "ex99"),
    ("empty class", "no submissions in the folder"),
    ("a student named like a kit player", "a submission is named 'random', like one of the arena's own players"),
    ("unknown schedule", ("argument --schedule: invalid choice: 'knockout' (choose from 'auto', 'round-robin', "
                          "'swiss')")),
    ("schedule without a name", "argument --schedule: expected one argument"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, case, words):
    folder = _class(tmp_path / "class")
    exercise, extra = "ex08", []
    if case == "missing folder":
        folder = tmp_path / "nowhere"
    elif case == "no game":
        exercise = "ex04"
    elif case == "bad timeout":
        extra = ["--move-timeout", "-1"]
    elif case == "unknown schedule":
        extra = ["--schedule", "knockout"]
    elif case == "schedule without a name":
        extra = ["--schedule"]
    elif case == "unknown exercise":
        exercise = "ex99"
    elif case == "empty class":
        folder = tmp_path / "empty"
        folder.mkdir()
    else:
        (folder / "random.py").write_text("def best_move(board, depth):\n    return 3\n")
    out = tmp_path / "out"
    line = _said_one_line(run_grade("arena", exercise, str(folder), "--out", str(out), *extra, cwd=REPO))
    assert words in line
    assert not out.exists()


def test_a_game_file_the_arena_cannot_use_is_named(tmp_path):
    """An exercise.toml naming another game, or a game file without the arena's part, is a one-line KitError."""
    folder = tmp_path / "ex08_connect_four"
    shutil.copytree(REPO / "exercises" / "ex08_connect_four", folder, ignore=shutil.ignore_patterns("checks"))
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text().replace('arena = "connect4"', 'arena = "chess"'))
    with pytest.raises(KitError, match=r"arena names 'chess', but .*play.py is the game 'connect4'"):
        arena_game(load_exercise(folder))
    toml.write_text(toml.read_text().replace('arena = "chess"', 'arena = "connect4"'))
    game = folder / "play.py"
    game.write_text(game.read_text().replace("ARENA_BASELINES =", "NOT_THE_BASELINES ="))
    with pytest.raises(KitError, match="the game file lacks ARENA_BASELINES, which the arena needs"):
        arena_game(load_exercise(folder))
    toml.write_text(toml.read_text().replace('arena = "connect4"', "arena = 4"))
    with pytest.raises(KitError, match="field 'arena' must be a string"):
        load_exercise(folder)
