"""Room to recurse, for the rare file whose tree is deeper than Python's default limit allows.

libcst's parser, code generator and visitors, and the pre-pass's walker, recurse once (or a few
times) per level of nesting: a 900-term sum `x + x + ...` is 900 nested BinaryOperations, past
the default recursion limit of 1000. Python itself compiles such a file, so it is checked, not
refused: what raised RecursionError runs again on a thread with a large C stack and a higher
limit. Only after a RecursionError — the hot path pays nothing.
"""

from __future__ import annotations

import functools
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


# Text shorter than this cannot nest deep enough to overflow libcst's native parser on a default
# 8 MiB stack (measured, libcst 1.9): the cheapest nesting it crashes on is `x and x and ...`,
# flat to Python's parser, at about 7,000 terms (40 KB); an `elif` chain at about 8,000 branches
# (over 96 KB). Longer text is parsed on the large stack (a thread costs well under a
# millisecond; parsing 16 KB costs tens). A smaller stack (`ulimit -s`) lowers it in proportion.
_RISK_CHARS_PER_8_MIB = 16 * 1024
_DEFAULT_STACK = 8 * 1024 * 1024


def parse_safely(parse: Callable[[str], T], text: str) -> T:
    """`parse(text)` with libcst's native parser, never overflowing the C stack where text is
    long enough to nest that deep."""
    if len(text) < native_risk_chars():
        return parse(text)
    return with_room(lambda: parse(text))


@functools.lru_cache(maxsize=1)
def native_risk_chars() -> int:
    stack = _DEFAULT_STACK
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
        if 0 < soft < _DEFAULT_STACK:  # unlimited (-1) or larger: threads still get 8 MiB
            stack = soft
    except (ImportError, OSError, ValueError):
        pass  # no such limit here (Windows): the usual default
    return _RISK_CHARS_PER_8_MIB * stack // _DEFAULT_STACK
