"""The command line's grammar: every parser of `grade`, its options and their one-line errors.

Kept apart from `cli`, which runs what these parse; building a parser imports nothing heavy.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.catalog import KitError
from grader.cli.entry import COMMANDS
from grader.report import DEFAULT_HIDDEN_VISIBILITY, FORMATS, GRADESCOPE_VISIBILITIES


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2."""

    def error(self, message):
        raise KitError(message)


def _whole_number(minimum: int):
    """An argparse type: a whole number of at least `minimum`, with a one-line error otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a number >= {minimum}, got {value}")
        return value

    return parse


_seed = _whole_number(0)
_jobs = _whole_number(1)
_seed_count = _whole_number(1)


def _fraction(text: str) -> float:
    """An argparse type: a share in (0, 1], such as 0.7, with a one-line error otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], such as 0.7, got {text!r}") from None
    if not 0 < value <= 1:  # a nan fails this too
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], such as 0.7, got {text!r}")
    return value


def _add_kit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kit", type=Path, metavar="DIR", help="the kit's folder (default: found from here)")


def _shard(text: str):
    """An argparse type: K/N, a slice of a class."""
    from grader.classroom import parse_shard

    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(_seed(part) for part in text.split(","))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"expected seeds such as 1,2,3: {exc}") from None
    return seeds


def build_parser() -> argparse.ArgumentParser:
    """The command line of `grade` itself: grade an exercise, every exercise, or (with neither) list progress."""
    commands = "\n".join(f"  {name:<8}{text}" for name, text in COMMANDS.items())
    parser = Parser(
        prog="grade", usage="grade [EXERCISE | --all] [options]\n       grade COMMAND [options]",
        description="Grade minimax-kit exercises. With no exercise, list your progress.",
        epilog=f"commands (grade COMMAND --help for each):\n{commands}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("exercise", nargs="?", help="ex04, ex04_alpha_beta or alpha_beta")
    parser.add_argument("--all", action="store_true", help="grade every exercise and print one summary")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--submission", type=Path, metavar="PATH", help="grade this file, folder or .zip instead")
    source.add_argument("--solution", action="store_true", help="grade the reference solution")
    source.add_argument("--mutant", metavar="NAME",
                        help="grade a known mistake of the reference (its mutants.toml), as a student who made it")
    parser.add_argument("--seed", type=_seed, help="reproduce a run exactly (default: derived from the code)")
    parser.add_argument("--format", choices=FORMATS, default="json", help="format of the report file")
    parser.add_argument("--hidden-visibility", choices=GRADESCOPE_VISIBILITIES, metavar="WHEN",
                        help="with --format gradescope: when students see the hidden checks' results, one of "
                             f"{', '.join(GRADESCOPE_VISIBILITIES)} (default: {DEFAULT_HIDDEN_VISIBILITY})")
    parser.add_argument("--output", metavar="FILE", help="where the report goes; - for stdout (no summary)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 whenever a report was written")
    parser.add_argument("--watch", action="store_true", help="grade your file again on every save (Ctrl-C stops)")
    _add_kit_option(parser)
    return parser


def build_command_parser() -> argparse.ArgumentParser:
    """The commands, as argparse subparsers: `grade COMMAND ...` and `grade COMMAND --help`."""
    parser = Parser(prog="grade", description="The commands of grade besides grading.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, text in COMMANDS.items():
        command = subparsers.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        ARGUMENTS[name](command)
        _add_kit_option(command)
    return parser


def _hint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("exercise", help="ex04, ex04_alpha_beta or alpha_beta")
    parser.add_argument("--all", action="store_true", help="show every hint at once")


def _play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help="the game to play; with none, list the games")
    parser.add_argument("--solution", action="store_true", help="play against the reference solution instead")
    parser.add_argument("--first", choices=("you", "ai"), help="who moves first (default: asked)")


def _check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("exercises", nargs="*", help="exercises to check (default with --all: every one)")
    parser.add_argument("--all", action="store_true", help="check every exercise")
    parser.add_argument("--seeds", type=_seeds, help="seeds for the wrong/ solutions, such as 1,2,3 (default: three)")
    parser.add_argument("--jobs", type=_jobs, default=None, help="grading runs at once (default: one per CPU)")
    parser.add_argument("--fair-seeds", type=_seed_count, metavar="N",
                        help="only grade the reference and every alt under seeds 1 to N, for the exercises "
                             "with a seed-dependent check; each must get full marks on every seed")
    parser.add_argument("--mutation-report", action="store_true",
                        help="advisory: grade automatic operator mutants of each reference; show the score and "
                             "each survivor as a diff")


def _new_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="the new id, such as ex10")
    parser.add_argument("slug", help="the folder suffix and module name, such as endgame_tables")
    parser.add_argument("title", help='the title, such as "Endgame tables"')


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", type=Path, help="folder for the student handout")
    parser.add_argument("--gradescope", type=Path, metavar="FILE.zip", help="write a Gradescope autograder zip")
    parser.add_argument("--exercise", help="with --gradescope: one exercise per assignment (default: all)")
    parser.add_argument("--hidden-visibility", choices=GRADESCOPE_VISIBILITIES, metavar="WHEN",
                        help="with --gradescope: when students see the hidden checks' results, one of "
                             f"{', '.join(GRADESCOPE_VISIBILITIES)} (default: {DEFAULT_HIDDEN_VISIBILITY}, "
                             "as Gradescope suggests for the tests a submission is graded on)")
    parser.add_argument("--notebooks", action="store_true", help="also write each stub as a Jupyter notebook beside it")


def _batch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = "\n".join(["actions on a batch's output (grade batch ACTION --help for each):", *(
        f"  grade batch {name} ...  {text}" for name, (text, _) in BATCH_ACTIONS.items()),
        "A class folder named like an action is graded when written as a path: grade batch ./report ..."])
    parser.add_argument("folder", type=Path, help="the class's submissions (a folder named report: ./report)")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--exercise", help="the exercise every submission is for")
    which.add_argument("--all", action="store_true", help="grade every exercise for every student")
    parser.add_argument("--jobs", type=_jobs, default=None,
                        help="submissions graded at once, and processes that read them for the comparison "
                             "(default: one per CPU)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the reports, grades.csv, the class page")
    parser.add_argument("--force", action="store_true", help="regrade even unchanged submissions")
    parser.add_argument("--seed", type=_seed, help="the same seed for every submission")
    parser.add_argument("--shard", type=_shard, metavar="K/N",
                        help="grade only slice K of N (a student's slice follows from their name); "
                             "put the slices together with grade batch merge")
    similar = parser.add_mutually_exclusive_group()
    # The default lives in grader.classroom.similarity (DEFAULT_THRESHOLD), which building a parser
    # does not import; tests/classroom/test_similarity.py holds the help to it.
    similar.add_argument("--similarity-threshold", type=_fraction, metavar="X",
                         help="list a pair of submissions as similar when at least this share of one student's "
                              "code is in the other's (default: 0.7); every pair that shares code goes in "
                              "OUT/similar.csv")
    similar.add_argument("--no-similarity", action="store_true",
                         help="do not compare the submissions with each other (it is done by default)")
    _add_gradebook_options(parser, "--gradebook", required=False,
                           text="also write OUT/gradebook-LMS.csv, the grades as that LMS imports them")


# The LMSs whose grade-import file `grade batch` writes, as grader.classroom's LMS_FORMATS names them
# (spelled here so that building a parser imports nothing; tests/classroom/test_gradebooks.py checks both agree).
LMS_NAMES = ("canvas", "moodle", "blackboard")


def _add_gradebook_options(parser: argparse.ArgumentParser, flag: str, *, required: bool, text: str) -> None:
    """The LMS, the roster and --allow-missing: what an LMS gradebook needs (docs/gradebooks.md)."""
    parser.add_argument(flag, choices=LMS_NAMES, required=required, metavar="LMS",
                        help=f"{text}: one of {', '.join(LMS_NAMES)} (see docs/gradebooks.md)")
    parser.add_argument("--roster", type=Path, metavar="CSV",
                        help="the class roster: a folder column (the submission folder), an id column (the "
                             "LMS's id for the student) and the columns the LMS needs", required=required)
    parser.add_argument("--allow-missing", action="store_true",
                        help="write the gradebook even when the roster and the class do not match, with the "
                             "matched students only (each mismatch is still shown)")


def _seconds(text: str) -> float:
    """An argparse type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


# grader.classroom.arena's Schedule, spelled here so that building a parser imports nothing.
ARENA_SCHEDULES = ("auto", "round-robin", "swiss")


def _arena_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("exercise", help="an exercise whose exercise.toml names an arena game, such as ex08")
    parser.add_argument("folder", type=Path, help="the class's submissions, as for grade batch")
    parser.add_argument("--out", type=Path, required=True, help="folder for arena.csv and arena.html")
    parser.add_argument("--jobs", type=_jobs, default=None, help="games played at once (default: one per CPU)")
    parser.add_argument("--seed", type=_seed, help="orders the games and the baselines' choices (default: 1)")
    parser.add_argument("--move-timeout", type=_seconds, metavar="SECONDS",
                        help="time allowed for one move (default: the game's time per call)")
    # The number is grader.classroom.arena's ROUND_ROBIN_MAX_PLAYERS, which building a parser does not
    # import; tests/classroom/test_arena.py holds the help to it.
    parser.add_argument("--schedule", choices=ARENA_SCHEDULES, default="auto",
                        help="who plays whom: round-robin (every ordered pair: N(N-1) games), swiss (ceil(log2 N)+2 "
                             "rounds, each pairing players of close ratings who have not met, twice: about "
                             "N(log2 N + 2) games), or auto (the default: round-robin up to 40 players, the "
                             "kit's own included, swiss above)")


ARGUMENTS = {"hint": _hint_arguments, "play": _play_arguments, "check": _check_arguments, "new": _new_arguments,
             "export": _export_arguments, "batch": _batch_arguments, "arena": _arena_arguments}


# `grade batch ACTION ...`: each action on a batch's output, with its own parser. A first word that names an
# action is that action, so a class folder of that name is graded when written as a path: grade batch ./report.
def _merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT", help="a new or empty folder for the whole class")
    parser.add_argument("shards", type=Path, nargs="*", metavar="SHARD_DIR",
                        help="the --out folders of grade batch ... --shard K/N, one for each K")


def _diff_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", type=Path, metavar="OLD", help="the folder of the earlier grade batch run")
    parser.add_argument("new", type=Path, metavar="NEW", help="the folder of the regrade; changes.csv goes here")


def _gradebook_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT",
                        help="the folder grade batch wrote: OUT/students/STUDENT/exNN.json")
    _add_gradebook_options(parser, "--lms", required=True, text="the LMS to write for")


BATCH_ACTIONS = {
    "merge": ("combine the folders of grade batch ... --shard K/N into one grades.csv, checks.csv, class "
              "page and report tree", _merge_arguments),
    "report": ("rebuild OUT/report.html and OUT/checks.csv from the reports already in OUT, without grading",
               lambda parser: parser.add_argument("out", type=Path, metavar="OUT",
                                                  help="the folder grade batch wrote: OUT/students/STUDENT/exNN.json")),
    "diff": ("list every mark that changed between two folders grade batch wrote, check by check, and write "
             "NEW/changes.csv", _diff_arguments),
    "gradebook": ("write OUT/gradebook-LMS.csv, the grades as Canvas, Moodle or Blackboard imports them, from the "
                  "reports already in OUT and a roster, without grading", _gradebook_arguments),
}


def build_batch_action_parser(action: str) -> argparse.ArgumentParser:
    """`grade batch ACTION ...` and `grade batch ACTION --help`."""
    text, arguments = BATCH_ACTIONS[action]
    parser = Parser(prog=f"grade batch {action}", description=text[0].upper() + text[1:] + ".")
    arguments(parser)
    parser.set_defaults(command=f"batch {action}")
    return parser
