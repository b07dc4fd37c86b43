"""libcst's node checks, off in a process that only reads the trees libcst's parser builds.

Every libcst node checks itself when made (`CSTNode.__post_init__` calls `_validate`: its
whitespace, parentheses, names). Its native parser builds only what its grammar accepts, so for
a parsed tree the checks find nothing, and cost a tenth of a cold check (timm 1.0.29, one job:
8.6 s against 9.5 s, three runs each, alternating). breaklint never prints code it builds
itself: the few nodes it makes (a `Name` standing for a call's callee, the stand-ins of
infra/lazy.py) are read, never rendered. So a process entry point turns the checks off, once,
when libcst is imported: the command line's `main` (the check, its forked workers, the language
server) and a spawned worker's start. Nothing else does: a program that imports breaklint
may build libcst nodes of its own and rely on their checks (hypothesmith does).
"""

from __future__ import annotations

import types


def trust_parsed_nodes(libcst: types.ModuleType) -> None:
    """Make libcst's nodes without checking them, from now on in this process."""
    libcst.CSTNode.__post_init__ = _unchecked


def _unchecked(self: object) -> None:
    return None
