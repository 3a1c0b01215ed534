"""The command line's grammar: every parser of `grade`, its options and their one-line errors.

Kept apart from `cli`, which runs what these parse; building a parser imports nothing heavy.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.catalog import KitError
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


# Every command but grading itself: its one-line help, and where its code lives (imported when used).
COMMANDS = {
    "hint": "show the next hint for an exercise",
    "play": "play a game in the terminal against your own code (or the reference)",
    "check": "instructors: prove exercises sound (reference, alt/, wrong/, stub)",
    "new": "instructors: scaffold a new exercise and its solution folders",
    "export": "instructors: write the student handout or a Gradescope autograder bundle",
    "batch": "instructors: grade a class into one report per submission, grades.csv and a class report page",
}


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
    parser.add_argument("--jobs", type=_jobs, default=None, help="submissions graded at once (default: one per CPU)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the reports, grades.csv, the class page")
    parser.add_argument("--force", action="store_true", help="regrade even unchanged submissions")
    parser.add_argument("--seed", type=_seed, help="the same seed for every submission")
    parser.add_argument("--shard", type=_shard, metavar="K/N",
                        help="grade only slice K of N (a student's slice follows from their name); "
                             "put the slices together with grade batch merge")


ARGUMENTS = {"hint": _hint_arguments, "play": _play_arguments, "check": _check_arguments, "new": _new_arguments,
             "export": _export_arguments, "batch": _batch_arguments}


# `grade batch ACTION ...`: each action on a batch's output, with its own parser. A first word that names an
# action is that action, so a class folder of that name is graded when written as a path: grade batch ./report.
def _merge_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT", help="a new or empty folder for the whole class")
    parser.add_argument("shards", type=Path, nargs="*", metavar="SHARD_DIR",
                        help="the --out folders of grade batch ... --shard K/N, one for each K")


BATCH_ACTIONS = {
    "merge": ("combine the folders of grade batch ... --shard K/N into one grades.csv, checks.csv, class "
              "page and report tree", _merge_arguments),
    "report": ("rebuild OUT/report.html and OUT/checks.csv from the reports already in OUT, without grading",
               lambda parser: parser.add_argument("out", type=Path, metavar="OUT",
                                                  help="the folder grade batch wrote: OUT/STUDENT/exNN.json")),
}


def build_batch_action_parser(action: str) -> argparse.ArgumentParser:
    """`grade batch ACTION ...` and `grade batch ACTION --help`."""
    text, arguments = BATCH_ACTIONS[action]
    parser = Parser(prog=f"grade batch {action}", description=text[0].upper() + text[1:] + ".")
    arguments(parser)
    parser.set_defaults(command=f"batch {action}")
    return parser
