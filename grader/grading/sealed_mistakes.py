"""A handout's known mistakes, sealed: their answers to the public checks' calls, with nothing in the clear.

Where the kit ships without solutions (a student handout), `grade export` replays the public
checks' calls on every known mistake and writes, per call and mistake, an entry sealed with the
mistake's answer there (`MistakeDigests`): only a student who gives that answer can open it, so
the file shows nothing the public checks do not.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from grader.failures import FailureKind
from grader.grading.replay import REFERENCE, Answer, RecordedCall, in_child, load_program, replay, replay_room

if TYPE_CHECKING:
    from grader.known_mistakes import KnownMistake

DIGESTS_FORMAT = 1

@dataclass(frozen=True)
class NamedMistake:
    """A known mistake a handout's table names once the student's answers open it."""

    name: str
    why: str


# What every opened entry starts with: an answer that is not the one an entry was sealed with opens noise.
SEAL_MARK = b"minimax-kit:"
MISTAKE_KEY_BYTES = 16
DIFFERS, AGREES = b"d", b"a"


def _stream(key: bytes, size: int) -> bytes:
    return hashlib.shake_256(key).digest(size)


def _xor(data: bytes, stream: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, stream))


def _answer_key(call_digest: str, answer: Answer) -> bytes:
    return hashlib.blake2b((call_digest + answer.canonical()).encode("utf-8"), digest_size=32,
                           person=b"minimax-kit-seal").digest()


def seal_entry(mistake_key: bytes, differs: bool, call_digest: str, answer: Answer) -> str:
    """A mistake's key and whether its answer here is wrong, sealed with its answer: only that answer opens it."""
    text = SEAL_MARK + mistake_key + (DIFFERS if differs else AGREES)
    return _xor(text, _stream(_answer_key(call_digest, answer), len(text))).hex()


def open_entry(sealed: str, call_digest: str, answer: Answer) -> tuple[bytes, bool] | None:
    """(the mistake's key, whether its answer there is wrong) if `answer` is the one it was sealed with, else None."""
    try:
        data = bytes.fromhex(sealed)
    except ValueError:
        return None
    text = _xor(data, _stream(_answer_key(call_digest, answer), len(data)))
    body = text[len(SEAL_MARK):]
    if not text.startswith(SEAL_MARK) or len(body) != MISTAKE_KEY_BYTES + 1 or body[-1:] not in (DIFFERS, AGREES):
        return None
    return body[:-1], body[-1:] == DIFFERS


def seal_name(mistake: NamedMistake, mistake_key: bytes) -> str:
    """A mistake's name and why, sealed with its key, which only its sealed entries give out."""
    text = SEAL_MARK + json.dumps([mistake.name, mistake.why]).encode("utf-8")
    return _xor(text, _stream(mistake_key, len(text))).hex()


def open_name(sealed: str, mistake_key: bytes) -> NamedMistake | None:
    """The mistake sealed with this key, or None."""
    try:
        text = _xor(bytes.fromhex(sealed), _stream(mistake_key, len(sealed) // 2))
        name, why = json.loads(text[len(SEAL_MARK):]) if text.startswith(SEAL_MARK) else (None, None)
    except ValueError:
        return None
    return NamedMistake(name, why) if isinstance(name, str) and isinstance(why, str) else None


class MistakeDigests:
    """Known mistakes as a handout ships them, for the public checks' calls, with nothing in the clear.

    Per call (by its digest) there is an entry per mistake: a random key of the mistake's and whether its
    answer there is wrong, sealed with its answer there; per mistake, its name and why, sealed with its key.
    An entry opens only with the answer it was sealed with, so the file gives a name and why only to
    code that answers as the mistake does, and brute force on an entry yields at most a known mistake's
    answer to a public check's call. As from the kit's code, a mistake matches a failed check's calls when
    each of them that the table has opens with the student's answer, and one says the answer is wrong.
    """

    # A handout runs no known mistake's code, so no given module need be importable for a replay.
    given: tuple[Path, ...] = ()

    def __init__(self, names: list[str], calls: dict[str, list[str]]):
        self.names = names
        self.calls = calls

    def matches(self, calls: list[RecordedCall], limit_s: float = 0.0,
                only: list | None = None) -> Iterator[tuple[NamedMistake, bool]]:
        """(mistake, True) for each mistake that answers every covered call as the student did, and one of them
        wrongly; none is ever undecided, since nothing is replayed (`limit_s` and `only` serve CodeLibrary)."""
        keyed = [(digest, call.answer) for call in calls if (digest := call.digest()) in self.calls]
        for index, sealed in enumerate(self.names):
            opened = [open_entry(self.calls[digest][index], digest, answer) for digest, answer in keyed]
            if not opened or not all(opened) or len({key for key, _ in opened}) != 1:
                continue
            if any(differs for _, differs in opened):
                named = open_name(sealed, opened[0][0])
                if named is not None:
                    yield named, True

    def as_data(self) -> dict:
        """The handout's file."""
        return {"format_version": DIGESTS_FORMAT, "mistakes": self.names, "calls": self.calls}

    @classmethod
    def read(cls, path: Path) -> MistakeDigests | None:
        """The handout's table, or None if there is none or it is not one this kit wrote."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format_version") != DIGESTS_FORMAT:
            return None
        names, calls = data.get("mistakes"), data.get("calls")
        if not (isinstance(names, list) and all(isinstance(name, str) for name in names) and isinstance(calls, dict)
                and all(isinstance(entries, list) and len(entries) == len(names)
                        and all(isinstance(entry, str) for entry in entries) for entries in calls.values())):
            return None
        return cls(names, calls)


def mistake_digests(calls: list[RecordedCall], mistakes: list[KnownMistake], reference: str,
                    limit_s: float, given: tuple[Path, ...] = ()) -> MistakeDigests | None:
    """What a handout ships: the known mistakes that answer one of the public checks' calls wrongly, sealed.

    None if the replays, in a forked child, took longer than `limit_s`.
    """
    found, finished = in_child(lambda: _sealed(calls, mistakes, reference, given), limit_s)
    if not finished:
        return None
    names = [name for kind, name, _ in found if kind == "name"]
    table: dict[str, list[str]] = {}
    for kind, digest, entries in found:
        if kind == "call":
            table[digest] = entries
    return MistakeDigests(names, table)


def _sealed(calls: list[RecordedCall], mistakes: list[KnownMistake], reference: str,
            given: tuple[Path, ...]) -> Iterator[list]:
    with replay_room(given):
        reference_module = load_program(REFERENCE, reference)
        expected = [replay(reference_module, call).canonical() if reference_module else None for call in calls]
        answers = {}
        for mistake in mistakes:
            module = load_program(mistake.name, mistake.source)
            replies = [replay(module, call) if module else Answer.failed(FailureKind.CRASH) for call in calls]
            if any(reply.canonical() != right for reply, right in zip(replies, expected)):
                answers[mistake] = replies  # only a mistake that some call shows is worth shipping
        keys = {mistake: os.urandom(MISTAKE_KEY_BYTES) for mistake in answers}
        for mistake in answers:
            yield ["name", seal_name(NamedMistake(mistake.name, mistake.why), keys[mistake]), None]
        for index, (call, right) in enumerate(zip(calls, expected)):
            digest = call.digest()
            yield ["call", digest, [seal_entry(keys[mistake], replies[index].canonical() != right, digest,
                                               replies[index]) for mistake, replies in answers.items()]]
