"""`python -m grader.cli`: the `grade` command, for an interpreter without the script on its PATH."""

from grader.cli.entry import console

console()
