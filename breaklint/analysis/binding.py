"""Which argument of a call each parameter of the called function receives.

Shared by the region analysis (module instances passed as arguments, regions.py) and the value
analysis (tensors passed as arguments, arguments.py). Only what the call spells out is bound:
an unpacked `*args` / `**kwargs` at the call may bind any parameter it does not name.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from breaklint.index.project import FunctionHeader


@dataclass(frozen=True)
class Bound:
    args: dict[str, cst.BaseExpression]  # parameter name -> the argument expression passed to it
    unpacked: bool  # the call unpacks `*x` or `**x`: a parameter not in `args` may be bound by it


def bind(call: cst.Call, header: FunctionHeader, implicit: int) -> Bound:
    """`implicit`: how many leading positional parameters the call binds by itself (`self` of a
    bound method, `ctx` of an autograd.Function's forward)."""
    positional = header.positional[implicit:]
    args: dict[str, cst.BaseExpression] = {}
    unpacked = False
    index = 0
    for arg in call.args:
        if arg.star:
            unpacked = True
            if arg.star == "*":
                index = len(positional)  # where the next positional argument lands is unknown
            continue
        if arg.keyword is not None:
            name = arg.keyword.value
            if name in header.params and name not in args:
                args[name] = arg.value
        elif index < len(positional):
            args[positional[index]] = arg.value
            index += 1
    return Bound(args, unpacked)
