"""The grading side's end of a worker's two pipes: length-prefixed wire messages, sent and received under a deadline."""

from __future__ import annotations

import contextlib
import os
import select
import time

from grader.sandbox import wire


class Deadline(Exception):
    """The worker did not answer in time."""


class Channel:
    """The request pipe's write end and the reply pipe's read end of one worker, and its pidfd to see it die.

    A worker that dies shows as EOFError; a deadline passed, as Deadline; a frame that breaks the
    wire format, as wire.WireError.
    """

    def __init__(self, request_w: int, reply_r: int):
        self.request_w = request_w
        self.reply_r = reply_r
        self.pidfd: int | None = None
        self.pending = bytearray()  # bytes read past the last message
        os.set_blocking(self.request_w, False)

    def watch(self, pid: int) -> None:
        """Watch the worker's pid too: a forked child can hold the pipes open after the worker dies."""
        with contextlib.suppress(AttributeError, OSError):
            self.pidfd = os.pidfd_open(pid)

    def send_small(self, payload: bytes) -> None:
        """Write a small frame into the empty request pipe, whole; a dead worker leaves a broken pipe to ignore."""
        with contextlib.suppress(BrokenPipeError):
            os.write(self.request_w, payload)

    def exchange(self, payload: bytes | None, deadline: float) -> dict:
        """Send a request (or none, to await a message the worker sends by itself) and return the reply."""
        if payload:
            self._send(payload, deadline)
        return wire.loads(self._receive(deadline))

    def _send(self, payload: bytes, deadline: float) -> None:
        # A small request fits the empty pipe at once, so the first write goes without a select.
        view = memoryview(payload)
        with contextlib.suppress(BlockingIOError):
            view = view[os.write(self.request_w, view):]
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Deadline
            readable, writable, _ = select.select(self._death(), [self.request_w], [], remaining)
            if readable:
                raise EOFError
            if writable:
                with contextlib.suppress(BlockingIOError):
                    view = view[os.write(self.request_w, view):]

    def _death(self) -> list[int]:
        """What select() watches for the worker's death: its pidfd, where Linux offers one."""
        return [self.pidfd] if self.pidfd is not None else []

    def _receive(self, deadline: float) -> bytes:
        """The body of the worker's next message; bytes past it (a second frame) wait for the next call.

        The header and a small body usually arrive in one read, which saves a select and a read.
        """
        buffer, size = self.pending, None
        while True:
            if size is None and len(buffer) >= wire.HEADER.size:
                size = wire.HEADER.unpack_from(buffer)[0]
                if size > wire.MAX_MESSAGE_BYTES:
                    raise wire.WireError(f"the worker announced a {size:,}-byte message")
            end = None if size is None else wire.HEADER.size + size
            if end is not None and len(buffer) >= end:
                self.pending = buffer[end:]
                return bytes(buffer[wire.HEADER.size:end])
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Deadline
            readable = select.select([self.reply_r, *self._death()], [], [], remaining)[0]
            if not readable:
                continue
            if self.reply_r not in readable:  # dead, and nothing left in the pipe
                raise EOFError
            chunk = os.read(self.reply_r, 1 << 16 if end is None else min(end - len(buffer), 1 << 20))
            if not chunk:
                raise EOFError
            buffer += chunk

    def close(self) -> None:
        """Close both pipe ends and the pidfd."""
        for fd in (self.request_w, self.reply_r, *self._death()):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pidfd = None
