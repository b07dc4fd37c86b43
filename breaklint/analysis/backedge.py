"""Whether Dynamo gives up on a frame when it breaks inside one of the frame's loops.

After a graph break Dynamo compiles the graph so far and resumes the rest in a new frame, except
in a loop: it skips the frame ("graph break in loop", GB7000). It does not look for the loop.
Its check (`maybe_has_backedge`, torch 2.11-2.13) scans the bytecode after the breaking
instruction, in order, up to the first `return`, for a jump to an instruction before it; the
same scan runs in each caller that inlined the breaking function, from its call. So a loop whose
`return` comes first in that order (`for y in ys: if (x * y).sum() > 0: return x + y`) resumes
like any other break, while where the compiler lays out a jump back first (an arm followed by an
`elif` ends the pass with a jump straight back to the loop's head; so does a failed chained
comparison, `if 0 < w <= width:`, in torchvision's RandomResizedCrop) the frame is skipped.

The layout is the compiler's, so it is read from the compiler: the checked file's text is
compiled (Python's `compile`, which runs nothing) by the Python breaklint runs on, and the scan
is Dynamo's own over the function's instructions. Where that Python is not the one the code is
judged for (`target-python`), or the breaking instruction cannot be placed, the answer is None.
"""

from __future__ import annotations

import dis
import sys
from types import CodeType
from typing import Iterator

_RETURNS = frozenset({"RETURN_VALUE", "RETURN_CONST"})
_JUMPS = frozenset(dis.opname[op] for op in (*dis.hasjrel, *dis.hasjabs))
_CONDITIONAL = frozenset(name for name in _JUMPS if "_IF_" in name)
_CALLS = frozenset({"CALL", "CALL_FUNCTION_EX", "CALL_KW", "CALL_FUNCTION", "CALL_METHOD", "CALL_FUNCTION_KW"})

Place = tuple[int, int]  # (line, column in UTF-8 bytes), as code positions count


def module_code(text: str, path: str, python: tuple[int, int]) -> CodeType | None:
    """The file's bytecode as the Python that runs breaklint lays it out; None when that is not
    the Python the code is judged for, or the file does not compile here."""
    if sys.version_info[:2] != python or sys.version_info < (3, 11):  # positions: 3.11+
        return None
    try:
        return compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def function_code(module: CodeType, qualname: str, line: int) -> CodeType | None:
    """The code object of the def named `qualname` whose lines hold `line`."""
    for code in _codes(module):
        if code.co_qualname == qualname:  # type: ignore[attr-defined]
            lines = [start for _, _, start in code.co_lines() if start is not None]
            if lines and min(lines + [code.co_firstlineno]) <= line <= max(lines):
                return code
    return None


def skips_frame(code: CodeType, start: Place, end: Place, jump: bool) -> bool | None:
    """Whether a break at the node spanning `start`..`end` makes Dynamo skip the frame: its scan
    from the breaking instruction (the node's first conditional jump for a data-dependent
    branch, else its last instruction: a call's CALL) meets a jump back before a return. None
    when no instruction of the code lies in the span."""
    instructions = list(dis.get_instructions(code))
    inside = [i for i, ins in enumerate(instructions) if _within(ins, start, end)]
    if jump:
        inside = [i for i in inside if instructions[i].opname in _CONDITIONAL]
        at = inside[0] if inside else None
    else:  # a jump there only borrows the statement's place (the loop's jump back after `a[i:j] = v`)
        inside = [i for i in inside if instructions[i].opname not in _JUMPS]
        calls = [i for i in inside if instructions[i].opname in _CALLS]
        at = (calls or inside)[-1] if inside else None
    if at is None:
        return None
    offset = instructions[at].offset
    for ins in instructions[at + 1:]:
        if ins.opname in _RETURNS:
            return False
        if ins.opname in _JUMPS and isinstance(ins.argval, int) and ins.argval < offset:
            return True
    return False


def _within(ins: dis.Instruction, start: Place, end: Place) -> bool:
    where = ins.positions
    if where is None or where.lineno is None or where.col_offset is None:
        return False
    return (where.lineno, where.col_offset) >= start and (where.end_lineno, where.end_col_offset) <= end


def _codes(code: CodeType) -> Iterator[CodeType]:
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield const
            yield from _codes(const)
