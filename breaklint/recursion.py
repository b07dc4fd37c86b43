"""Room to recurse, for the rare file whose tree is deeper than Python's default limit allows.

libcst's parser, code generator and visitors, and the pre-pass's walker, recurse once (or a few
times) per level of nesting: a 900-term sum `x + x + ...` is 900 nested BinaryOperations, past
the default recursion limit of 1000. Python itself compiles such a file, so it is checked, not
refused: what raised RecursionError runs again on a thread with a large C stack and a higher
limit. Only after a RecursionError — the hot path pays nothing.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

T = TypeVar("T")

# Address space the thread reserves; only the pages it touches are memory.
_STACK_BYTES = 256 * 1024 * 1024
# Python frames allowed on it: ~10 per level of libcst's code generator, so about 10,000 levels,
# beyond the nesting CPython's own parser accepts (about 3,000).
_LIMIT = 100_000
_THREAD_NAME = "breaklint-deep"


def with_room(function: Callable[[], T]) -> T:
    """`function()` with room to recurse; what it raises (a RecursionError still) is raised."""
    if threading.current_thread().name == _THREAD_NAME:
        return function()  # already here: there is no more room to give
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(function())
        except BaseException as error:  # handed to the calling thread, which decides
            failure.append(error)

    limit = sys.getrecursionlimit()  # process-wide: raised only while the caller waits for it
    stack = threading.stack_size(_STACK_BYTES)
    try:
        sys.setrecursionlimit(max(limit, _LIMIT))
        thread = threading.Thread(target=run, name=_THREAD_NAME, daemon=True)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(stack)
        sys.setrecursionlimit(limit)
    if failure:
        raise failure[0]
    return outcome[0]
