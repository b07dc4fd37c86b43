"""NumPy values that cross a call inside one file: a helper that returns `np.lcm(a, b)`, or a
helper whose callers all pass it elements of a NumPy array.

Model code builds plans with NumPy in small helpers (Reformer's `_get_least_common_mult_chunk_len`,
BigBird's `_get_single_block_row_attention`), and Dynamo traces those values as tensors through
the call just as in one function. Only NumPy is carried across calls (other values stay as
values.py judges them in the callee), only between functions of the file being checked (no
other file's tree is read, so the cache's per-file result stays exact), and only a few calls deep.
"""

from __future__ import annotations

from typing import Mapping

import libcst as cst

from breaklint.index.project import FunctionInfo, ModuleIndex, ProjectIndex
from breaklint.analysis.regions import CallResolver
from breaklint.analysis.values import FunctionValues, Kind, Value
from breaklint.infra.walk import OwnCode, visit

MAX_DEPTH = 3  # helpers of helpers of helpers: deeper chains are rare and cost a pass each


def uses_numpy(module: ModuleIndex) -> bool:
    return any(target == "numpy" or target.startswith("numpy.") for target in module.imports.aliases.values())


class NumpyFlow:
    """Per file: which helpers return NumPy values and which parameters receive them."""

    def __init__(self, project: ProjectIndex, module: ModuleIndex, depth: int = 0,
                 shared: dict | None = None) -> None:  # type: ignore[type-arg]
        self.project = project
        self.module = module
        self.depth = depth
        # One cache for every depth: what a helper returns does not depend on who asks.
        self._shared = shared if shared is not None else {"returns": {}, "params": {}, "calls": None, "values": {}}

    def release(self) -> None:
        """Forget the passes made: they point back at this flow (a cycle that would keep the
        file's tree for the collector, engine.py `_run_rules`)."""
        self._shared["values"].clear()

    def _deeper(self) -> NumpyFlow | None:
        if self.depth + 1 >= MAX_DEPTH:
            return None
        return NumpyFlow(self.project, self.module, self.depth + 1, self._shared)

    def _local(self, fn: FunctionInfo) -> FunctionInfo | None:
        """`fn` as this file's tree has it, if it is defined in this file."""
        if fn.module.file.path != self.module.file.path:
            return None
        return self.module.functions.get(fn.qualname)

    def _values(self, fn: FunctionInfo) -> FunctionValues:
        outer = fn
        while outer.parent is not None:
            outer = outer.parent
        cache = self._shared["values"]
        key = (outer, self.depth)
        if key not in cache:  # one pass per caller and depth, however many helpers it calls
            cache[key] = FunctionValues(outer, self.project, flow=self._deeper())
        return cache[key]

    # --- what a helper returns ------------------------------------------------------------------
    def returns(self, fn: FunctionInfo) -> Value:
        """NumPy when a `return` of the helper gives a NumPy value: a tensor if every one does,
        else maybe one (the path taken depends on values we do not know)."""
        unknown = Value(Kind.UNKNOWN)
        local = self._local(fn)
        if local is None or isinstance(local.node, cst.Lambda) or self._deeper() is None:
            return unknown
        cache = self._shared["returns"]
        if local not in cache:
            cache[local] = unknown  # recursion: a helper calling itself returns unknown meanwhile
            cache[local] = self._returned(local)
        return cache[local]

    def _returned(self, fn: FunctionInfo) -> Value:
        returns = _own_returns(fn.node)
        if not returns:
            return Value(Kind.UNKNOWN)
        values = self._values(fn)
        found = [values.of(r.value) for r in returns if r.value is not None]
        numpy = [v for v in found if v.numpy]
        if not numpy:
            return Value(Kind.UNKNOWN)
        kind = Kind.TENSOR if len(numpy) == len(returns) else Kind.MAYBE_TENSOR
        return Value(kind, numpy=True, from_scalars=all(v.from_scalars for v in numpy))

    # --- what callers pass -------------------------------------------------------------------------
    def params(self, fn: FunctionInfo) -> Mapping[str, Value]:
        """Parameters that every call of `fn` in this file passes a NumPy value (maybe NumPy:
        a call from another file may pass something else)."""
        local = self._local(fn)
        if local is None or self._deeper() is None:
            return {}
        cache = self._shared["params"]
        if local not in cache:
            cache[local] = {}
            cache[local] = self._passed(local)
        return cache[local]

    def _passed(self, fn: FunctionInfo) -> dict[str, Value]:
        calls = self._calls().get(fn, [])
        if not calls:
            return {}
        params = fn.node.params
        names = [p.name.value for p in [*params.posonly_params, *params.params]]
        if fn.header.self_name is not None and names and names[0] == fn.header.self_name:
            names = names[1:]
        keyword_only = {p.name.value for p in params.kwonly_params}
        passed: dict[str, list[Value]] = {}
        for caller, call in calls:
            values = self._values(caller)
            seen: dict[str, Value] = {}
            positional = [a for a in call.args if a.keyword is None]
            if any(a.star for a in call.args):
                return {}  # *args / **kwargs: we cannot tell which parameter gets what
            for name, arg in zip(names, positional):
                seen[name] = values.of(arg.value)
            for arg in call.args:
                if arg.keyword is not None and (arg.keyword.value in names or arg.keyword.value in keyword_only):
                    seen[arg.keyword.value] = values.of(arg.value)
            for name in set(names) | keyword_only:
                passed.setdefault(name, []).append(seen.get(name, Value(Kind.UNKNOWN)))
        found = {}
        for name, values_ in passed.items():
            if values_ and all(v.numpy for v in values_):
                found[name] = Value(Kind.MAYBE_TENSOR, numpy=True, from_scalars=all(v.from_scalars for v in values_))
        return found

    def _calls(self) -> dict[FunctionInfo, list[tuple[FunctionInfo, cst.Call]]]:
        """Every call in this file to a function of this file, by callee (built once)."""
        if self._shared["calls"] is None:
            resolver = CallResolver(self.project)
            found: dict[FunctionInfo, list[tuple[FunctionInfo, cst.Call]]] = {}
            for caller in self.module.defined:
                for call in caller.calls:
                    for target in resolver.function_refs(call.func, caller):
                        local = self._local(target)
                        if local is not None:
                            found.setdefault(local, []).append((caller, call))
            self._shared["calls"] = found
        return self._shared["calls"]


def _own_returns(node: cst.FunctionDef) -> list[cst.Return]:
    """The `return` statements of this def, not of the defs and lambdas nested in it."""
    found: list[cst.Return] = []

    class _Returns(OwnCode):
        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

    visit(node, _Returns(node))
    return found
