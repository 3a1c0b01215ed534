"""What `grade arena` writes into OUT: arena.csv (the table) and arena.html (the leaderboard and every game).

The page is a Jinja2 template shipped in the package (autoescaped: player names and what a forfeit's
code said are the students' own text), with its style inline, so it opens offline.
"""

from __future__ import annotations

import io
from pathlib import Path

import jinja2

from grader.classroom.arena import ArenaResult, Ending, GameRecord
from grader.classroom.spreadsheet import SafeWriter
from grader.text import write_text_atomically

TABLE = "arena.csv"
PAGE = "arena.html"
TABLE_COLUMNS = ["player", "rating", "wins", "draws", "losses", "forfeits", "mu", "sigma", "kind"]


def table_rows(result: ArenaResult) -> list[list[str]]:
    """arena.csv's rows, best first: ratings to 3 decimals, so the same class and seed give the same bytes."""
    return [[s.player, f"{s.rating:.3f}", str(s.wins), str(s.draws), str(s.losses), str(s.forfeits),
             f"{s.mu:.3f}", f"{s.sigma:.3f}", str(s.kind)] for s in result.standings]


def _anchor(name: str) -> str:
    """A player's section id on the page: stable, and safe whatever the folder name holds."""
    return "player-" + name.encode("utf-8").hex()


def _ending_words(record: GameRecord, player: str) -> str:
    """How the game ended, seen by `player`."""
    if record.ending is Ending.FORFEIT:
        lost = record.winner != player
        return f"{'lost' if lost else 'won'} by forfeit ({record.forfeit}): {record.detail}"
    if record.ending is Ending.DRAW:
        return "a draw"
    return "won" if record.winner == player else "lost"


def render_page(result: ArenaResult) -> str:
    """arena.html as text."""
    environment = jinja2.Environment(loader=jinja2.PackageLoader("grader.classroom", "templates"),
                                     autoescape=True, undefined=jinja2.StrictUndefined)
    games_of: dict[str, list[GameRecord]] = {s.player: [] for s in result.standings}
    for record in result.games:  # one pass: a Swiss class of 500 plays thousands of games
        games_of[record.first].append(record)
        games_of[record.second].append(record)
    return environment.get_template("arena.html.j2").render(
        result=result, games_of=games_of, anchor=_anchor, ending_words=_ending_words)


def write_arena(result: ArenaResult, out: Path) -> tuple[Path, Path]:
    """Write OUT/arena.csv and OUT/arena.html, both rendered before either is written; their paths."""
    buffer = io.StringIO()
    writer = SafeWriter(buffer)
    writer.writerow(TABLE_COLUMNS)
    writer.writerows(table_rows(result))
    page = render_page(result)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomically(out / TABLE, buffer.getvalue())
    write_text_atomically(out / PAGE, page)
    return out / TABLE, out / PAGE
