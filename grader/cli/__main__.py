"""`python -m grader.cli`: the `grade` command, for an interpreter without the script on its PATH."""

from grader.cli.app import console

console()
