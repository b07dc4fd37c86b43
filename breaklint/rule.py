"""The base class every rule derives from, and the per-file context the engine gives it."""

from __future__ import annotations

import inspect
import re
from types import CodeType
from dataclasses import dataclass, field, replace
from typing import Callable, ClassVar

import libcst as cst

from breaklint.analysis.arguments import (caller_functions, entry_callers, passed_values, reads_arguments,
                                          same_def, submodule_callers)
from breaklint.analysis.backedge import function_code, module_code, skips_frame
from breaklint.analysis.model_config import fails
from breaklint.finding import DYNAMO_SAYS, Confidence, Finding, Region, Severity, Span, Stage
from breaklint.analysis.numpy_flow import NumpyFlow, uses_numpy
from breaklint.analysis.type_tests import TypeTest, tensor_answer, type_tests
# The syntax helpers a rule may use, re-exported: rules read code through this module, never the
# index's or the analysis's internals (tests/test_layers.py counts the rules that still do).
from breaklint.index.imports import dotted  # noqa: F401
from breaklint.index.patterns import CUDAGRAPH_MODES, compile_mode, method_call  # noqa: F401
from breaklint.index.patterns import NO_GRAD, SET_GRAD  # noqa: F401
from breaklint.index.patterns import value_while_compiling
# What Dynamo's trace rules decide (generated from torch by tools/gen_dynamo_tables.py): plain
# data the rules consult instead of lists of their own.
from breaklint.analysis import dynamo_tables  # noqa: F401
from breaklint.index.conditions import cst_guards_of
from breaklint.index.project import FunctionInfo, ModuleIndex, ProjectIndex
from breaklint.project_urls import rule_page
from breaklint.analysis.regions import CallResolver, pass_instances
from breaklint.analysis.returns import ReturnFlow
# The guard model's answers, re-exported for the recompile rules (BL211-BL214, BL210).
from breaklint.analysis.guards import LIMIT, GuardModel, Prediction, count_phrase, dynamic_false  # noqa: F401
from breaklint.index.summary import CompiledCall, Guard, Place  # noqa: F401 (CompiledCall: for the rules)
from breaklint.index.project import GuardFacts
from breaklint.index.source import ParsedFile
from breaklint.analysis.values import FunctionValues, Value, UNKNOWN
from .versions import TorchVersion, Versions
# The rules' vocabulary from the layers below: rules import these from here, never from the
# index, analysis or infra modules themselves (tests/test_layers.py).
from breaklint.analysis.binding import bind  # noqa: F401
from breaklint.analysis.numpy_api import (DRAWS_THAT_BREAK, NUMPY_SIZE_FUNCTIONS, SIZE_METHODS,  # noqa: F401
                                          TORCH_SIZE_FUNCTIONS, is_scalar_draw, numpy_name)
from breaklint.analysis.regions import CUSTOM_OP_NAMES, NONSTRICT_NAMES, escape_hatch  # noqa: F401
from breaklint.analysis.values import Kind, RNG_BREAKING_METHODS, RNG_CLASS  # noqa: F401
from breaklint.index.project import (COMPILE_NAMES, DISABLE_NAMES, OPTIMIZE_NAMES, Assigned, ClassInfo,  # noqa: F401
                                     CompileSite)
from breaklint.infra.walk import Visitor  # noqa: F401
from breaklint.infra.walk import content_nodes, visit  # noqa: F401 (content_nodes: for the rules)
from breaklint.infra.walk import Arm, Shape, shape
from breaklint.infra.lazy import real_node  # noqa: F401 (for the rules)

# What calls may pass an assumed entry's parameter for it to be no tensor (_make_values).
NOT_TENSORS = frozenset({Kind.SHAPE_INT, Kind.SHAPE, Kind.PYTHON})
# Dynamo's graph-break registry (GBxxxx ids) first shipped in torch 2.8; GB0170 carried a
# placeholder Gb_type there and got its real name in 2.9 (shared/reference/graph-break-registry.md).
GB_IDS_SINCE = TorchVersion(2, 8)
# Ids registered after 2.8: the "Since" column of shared/reference/graph-break-registry.md.
GB_ID_SINCE_OVERRIDES = {
    "GB0170": TorchVersion(2, 9), "GB0225": TorchVersion(2, 9), "GB0246": TorchVersion(2, 9),
    "GB0251": TorchVersion(2, 9), "GB0264": TorchVersion(2, 9), "GB0275": TorchVersion(2, 10),
    "GB0277": TorchVersion(2, 10),
    "GB0291": TorchVersion(2, 10),
    "GB7000": TorchVersion(2, 11), "GB9186": TorchVersion(2, 11), "GB0467": TorchVersion(2, 13),
    "GB0569": TorchVersion(2, 13), "GB4198": TorchVersion(2, 13), "GB4841": TorchVersion(2, 13),
    "GB8977": TorchVersion(2, 13), "GB8985": TorchVersion(2, 13), "GB6622": TorchVersion(2, 13),
}
# A graph break in a for/while loop makes Dynamo give up on the whole frame (registered as GB7000
# "graph break in loop" from 2.11; earlier versions skip the frame as well, without an id).
GB_IN_LOOP = ("GB7000", "graph break in loop")
# The break Dynamo makes at a conditional jump itself (a test on a tensor's value).
JUMP_BREAK = "GB0170"
# What Dynamo says at the call of a nonstrict_trace function whose body it cannot trace
# non-strictly (torch 2.13), before it breaks again inside the body.
NONSTRICT_FAILS = '"Unsupported output type for nonstrict_trace-ed function"'
DOC_SECTIONS = ("What it does", "Why is this bad?", "How to fix", "When it is fine", "Dynamo says")


@dataclass
class FileContext:
    """What the engine knows about one file; shared by every rule visiting it."""

    file: ParsedFile
    module: ModuleIndex
    project: ProjectIndex
    regions: dict[FunctionInfo, Region]
    functions_by_node: dict[cst.FunctionDef, FunctionInfo]
    target_torch: TorchVersion
    scope_all: bool
    emit: Callable[[Finding], None]
    # The Python whose bytecode Dynamo reads (Config.target_python): it decides whether a
    # `while` test's own break is one in the loop (in_while_test).
    target_python: tuple[int, int] = (3, 12)
    function_stack: list[FunctionInfo] = field(default_factory=list)
    _values: dict[FunctionInfo, FunctionValues] = field(default_factory=dict)
    _computing: set[FunctionInfo] = field(default_factory=set)
    _flow: NumpyFlow | None = None
    _returns: ReturnFlow | None = None
    # Each function's if/elif/else blocks, loop bodies and while tests, from one walk (walk.shape).
    _shapes: dict[FunctionInfo, Shape] = field(default_factory=dict)
    _loops: dict[FunctionInfo, list[tuple[tuple[int, int], tuple[int, int]]]] = field(default_factory=dict)
    _skips: dict[tuple[FunctionInfo, cst.CSTNode, bool], bool] = field(default_factory=dict)
    _codes: dict[FunctionInfo | None, CodeType | None] = field(default_factory=dict)  # None: the module's
    _while_tests: dict[FunctionInfo, list[tuple[tuple[int, int], tuple[int, int]]]] = field(default_factory=dict)
    _looping_callers: dict[FunctionInfo, str | None] = field(default_factory=dict)
    _arms: dict[FunctionInfo, list[tuple[tuple[int, int], tuple[int, int], list[Guard]]]] = field(default_factory=dict)
    _type_tests: dict[FunctionInfo, list[tuple[tuple[int, int], tuple[int, int], list[TypeTest]]]] = \
        field(default_factory=dict)
    # Lines where one rule already reported a break that several rules see (a nonstrict_trace
    # call whose body breaks): Dynamo breaks there once, so it is reported once.
    claimed: set[int] = field(default_factory=set)
    _predictions: list[Prediction] | None = None
    _names_read: dict[FunctionInfo, set[str]] = field(default_factory=dict)
    # Every rule resolves every call's func: asked once per node (nodes hash by identity).
    _resolved: dict[cst.BaseExpression, str | None] = field(default_factory=dict)
    # How many blocks Dynamo never traces the walk is in (the engine's dispatcher counts them):
    # rules' file-scope hooks, which see every node, read it.
    untraced_depth: int = 0
    _targets_at: set[tuple[int, int]] | None = None  # where this file's compile sites' targets start

    def recompile_predictions(self, code: str) -> list[Prediction]:
        """What the guard model (analysis/guards.py) predicts for this file's own calls and writes
        of its compiled callables, for the rule `code`; computed once per file."""
        if self._predictions is None:
            model = GuardModel(self.module, self.project, self.regions.keys(), self._read_by,
                               self.module.imports.resolve_dotted)
            self._predictions = model.predictions()
        return [p for p in self._predictions if p.code == code]

    def helper_target(self, call: cst.Call) -> cst.BaseExpression | None:
        """The positional argument of `call` that the index records compiling: the call of a
        compile helper (`maybe_compile(model)`, `compile_with(mode=...)(model)`: index/
        compilers.py), which nothing in the call's syntax says. Positions are asked only in a
        file with such a site."""
        if self._targets_at is None:
            self._targets_at = {site.target_at for site in self.module.compile_sites if site.target_at[0]}
        if not self._targets_at:
            return None
        for arg in call.args:
            if arg.keyword is not None or arg.star:
                break
            try:
                span = self.file.span(arg.value)
            except KeyError:  # a node a rule made, not one of the file's
                return None
            if (span.start_line, span.start_col) in self._targets_at:
                return arg.value
        return None

    def _read_by(self, fn: FunctionInfo) -> set[str]:
        """The names and attribute names a function's code reads (what its frame can guard on)."""
        if fn not in self._names_read:
            names: set[str] = set()
            for node in content_nodes(fn.node):
                if isinstance(node, cst.Name):  # an attribute's name is one too
                    names.add(node.value)
            self._names_read[fn] = names
        return self._names_read[fn]

    @property
    def guard_facts(self) -> GuardFacts:
        """This file's compiled names, their calls, and the writes to what they guard on (the
        index's facts, summary.CompiledCall & co.)."""
        return self.module.guard_facts

    def compiled_for_eval(self) -> bool:
        """Whether the region's compile site, in this file, compiles a module put in eval mode:
        `torch.compile(Net().eval())`, or `.eval()` (`.train(False)`) called in this file on the
        compiled name or on what it compiles. Its training-only code never runs compiled."""
        region = self.region
        if region is None or region.assumed:
            return False
        path, _, line = region.site.rpartition(":")
        if path != self.file.display or not line.isdigit():
            return False
        facts = self.guard_facts
        for name in facts.names:
            if name.place.line != int(line):
                continue
            target = name.target.replace(" ", "")
            if target.endswith((".eval()", ".train(False)", ".train(mode=False)")):
                return True
            return any(write.action == "method" and write.subject in (name.name, name.target)
                       and (write.name == "eval" or write.value.strip() in ("False", "mode=False"))
                       for write in facts.writes)
        return False

    def compiled_line(self, callee: str) -> int:
        """The first line of the function a compiled name of this file compiles (its forward, for a
        module), where Dynamo's recompiles of it are reported; 0 when it is defined elsewhere."""
        fn = GuardModel(self.module, self.project, (), self._read_by, self.module.imports.resolve_dotted).compiled(callee)
        return self.file.span(fn.node).start_line if fn is not None and fn.module is self.module else 0

    def span_of(self, place: "Place") -> Span:
        """A pre-pass position (summary.Place) as a finding's span."""
        return Span(place.line, place.col, place.end_line, place.end_col)

    @property
    def function(self) -> FunctionInfo | None:
        return self.function_stack[-1] if self.function_stack else None

    @property
    def region(self) -> Region | None:
        fn = self.function
        return self.regions.get(fn) if fn is not None else None

    @property
    def active(self) -> bool:
        """Rules only look at code Dynamo traces (or at every function with --scope all)."""
        return self.region is not None or (self.scope_all and self.function is not None)

    def value(self, node: cst.BaseExpression) -> Value:
        if not self.function_stack:
            return UNKNOWN
        values = self.function_values(self.function_stack[0])
        return values.of(node) if values is not None else UNKNOWN

    def function_values(self, fn: FunctionInfo, entry: bool = False, assumed: bool = False) -> FunctionValues | None:
        """The value pass of fn's outermost function (nested functions share it), made once;
        None while it is being made (a cycle of callers, see arguments.py). A function of this
        file is judged with what its callers pass; one of another file (a caller) from its own
        body, `entry` saying whether it is an entry point, `assumed` whether only by the
        assumption that every module forward is compiled."""
        while fn.parent is not None:
            fn = fn.parent
        if fn in self._computing:
            return None
        if fn not in self._values:
            self._computing.add(fn)
            try:
                self._values[fn] = self._make_values(fn, entry, assumed)
            finally:
                self._computing.discard(fn)
        return self._values[fn]

    def _make_values(self, fn: FunctionInfo, entry: bool, assumed: bool) -> FunctionValues:
        if fn.module is not self.module:
            passed = self._submodule_arguments(fn) if entry and assumed else {}
            return FunctionValues(fn, self.project, entry=entry, arguments=passed, returns=self._return_flow())
        region = self.regions.get(fn)
        entry = region.path == (fn.qualname,) if region else self.scope_all
        passed: dict[str, Value] = {}
        if not reads_arguments(fn):
            pass  # every parameter annotated: what callers pass is never read, their passes not made
        elif region is not None and region.callers and not entry:
            callers = caller_functions(self.project, region.callers)
            if callers is not None:
                flags = {c: is_entry for c, is_entry in callers}
                # Were the region reached from a compile call, its callers' entries would be too
                # (explicit entries are walked first): an assumed region's entries are assumed.
                passed = passed_values(fn, [c for c, _ in callers], CallResolver(self.project),
                                       lambda caller: self.function_values(caller, flags[caller], region.assumed))
        elif region is not None and entry and fn.class_info is None and len(fn.header.positional) > 1:
            # An entry point's own file calls it with what it is compiled for: `scaled(x, True)`
            # and `scaled(x, False)` make `flag` a Python bool, not a maybe-tensor (#17).
            resolver = CallResolver(self.project)
            outside = entry_callers(fn, resolver)
            if outside:
                passed = passed_values(fn, outside, resolver, lambda caller: self.function_values(caller))
        elif region is not None and entry and region.assumed:
            passed = self._submodule_arguments(fn)
        return FunctionValues(fn, self.project, entry=entry, arguments=passed, flow=self._numpy_flow(),
                              returns=self._return_flow())

    def _submodule_arguments(self, fn: FunctionInfo) -> dict[str, Value]:
        """For a module forward assumed compiled that its own file calls as a submodule
        (`self.rel_pos(i, j)` with shape ints): a parameter every such call passes a known
        non-tensor is that, not the tensor an assumed entry's inputs are taken for."""
        if fn.name != "forward" or len(fn.header.positional) < 2 or not reads_arguments(fn):
            return {}
        resolver = CallResolver(self.project)
        users = submodule_callers(fn, resolver)
        if not users:
            return {}
        # A user in another file (when fn is one, read for a caller) is taken as its file's
        # regions take it: a module forward is an assumed entry too.
        return {name: value for name, value in passed_values(
            fn, users, resolver, lambda user: self.function_values(
                user, user.name == "forward" and user.class_info is not None, True)).items()
                if value.kind in NOT_TENSORS}

    def release(self) -> None:
        """The file's rules are done: break what points back at this file's passes (the NumPy
        flow's), so that reference counting frees them and the tree (worker.check_task)."""
        if self._flow is not None:
            self._flow.release()

    def _return_flow(self) -> ReturnFlow:
        """What calls of the tree's functions return (returns.py), one cache per file."""
        if self._returns is None:
            self._returns = ReturnFlow(self.project)
        return self._returns

    def _numpy_flow(self) -> NumpyFlow | None:
        """NumPy values across this file's calls, built once per file that imports NumPy."""
        if self._flow is None and uses_numpy(self.module):
            self._flow = NumpyFlow(self.project, self.module)
        return self._flow

    def loop_skips_frame(self, node: cst.CSTNode, jump: bool = False) -> bool:
        """Whether a graph break at `node` makes Dynamo skip its frame ("graph break in loop",
        GB7000): `node` sits in the body of a for/while loop of its own function (not in a nested
        def, a comprehension, or the loop's header), and Dynamo's scan of the bytecode after the
        break meets a jump back before a `return` (analysis/backedge.py; `jump`: the break is
        the node's data-dependent jump, GB0170). Where the bytecode cannot tell, a break in a
        loop skips the frame."""
        if not self._in_loop_body(node):
            return False
        fn = self.function
        key = (fn, node, jump)
        found = self._skips.get(key)  # type: ignore[arg-type]
        if found is None:
            found = self._skips[key] = self._skips_frame(fn, node, jump) is not False  # type: ignore[index, arg-type]
        return found

    def _caller_skips(self, caller: FunctionInfo, call: cst.Call) -> bool:
        """Whether Dynamo's scan from a call in a caller's loop meets a jump back first; a caller
        in another file (its bytecode is not at hand) is taken to skip."""
        if caller.module is not self.module:
            return True
        try:
            return self._skips_frame(caller, call, False) is not False
        except KeyError:  # a node of another parse than this file's tree: no position
            return True

    def _skips_frame(self, fn: FunctionInfo, node: cst.CSTNode, jump: bool) -> bool | None:
        if fn not in self._codes:
            if None not in self._codes:
                self._codes[None] = module_code(self.file.text, str(self.file.path), self.target_python)
            module = self._codes[None]
            self._codes[fn] = function_code(module, fn.qualname, self.file.span(node).start_line) \
                if module is not None else None
        code = self._codes[fn]
        if code is None:
            return None
        span = self.file.span(node)
        return skips_frame(code, self.file.code_place(span.start_line, span.start_col),
                           self.file.code_place(span.end_line, span.end_col), jump)

    def _in_loop_body(self, node: cst.CSTNode) -> bool:
        fn = self.function
        if fn is None:
            return False
        if fn not in self._loops:
            spans = [self.file.span(body) for body in self.shape(fn).loop_bodies]
            self._loops[fn] = [((s.start_line, s.start_col), (s.end_line, s.end_col)) for s in spans]
        if not self._loops[fn]:
            return False
        span = self.file.span(node)
        start = (span.start_line, span.start_col)
        return any(low <= start < high for low, high in self._loops[fn])

    def in_while_test(self, node: cst.CSTNode, jump: bool) -> bool:
        """Whether a break at `node`, in the test of a `while` loop of its own function, is a break
        in the loop: the test runs again at the end of every pass, and Dynamo gives up on the
        frame (GB7000) when a jump back follows the breaking instruction (its backedge check,
        `maybe_has_backedge`, scans the instructions after it). A call in the test always has
        the jump back after it. The test's own data-dependent jump (`jump`, GB0170) has it only
        from Python 3.12 (`POP_JUMP_IF_FALSE; JUMP_BACKWARD`); on 3.11 that jump is the backward
        one itself (`POP_JUMP_BACKWARD_IF_TRUE`), and Dynamo resumes after it instead."""
        fn = self.function
        if fn is None or (jump and self.target_python < (3, 12)):
            return False
        if fn not in self._while_tests:
            self._while_tests[fn] = [self._bounds(test) for test in self.shape(fn).while_tests]
        span = self.file.span(node)
        start = (span.start_line, span.start_col)
        return any(low <= start < high for low, high in self._while_tests[fn])

    def arm_gate(self, node: cst.CSTNode) -> str:
        """Why the default configuration never runs `node` ("" when it may): it sits in an arm of
        its function's own `if`/`elif`/`else` whose settings test the defaults fail, judged by
        the values the region walk knew (Region.settings, configs.py)."""
        fn, region = self.function, self.region
        if fn is None or region is None or not region.settings:
            return ""
        if fn not in self._arms:
            self._arms[fn] = [(start, end, guards) for suite, guards in _arm_guards(self.arms_of(fn))
                              for start, end in [self._bounds(suite)]]
        known = dict(region.settings)
        span = self.file.span(node)
        where = (span.start_line, span.start_col)
        for start, end, guards in self._arms[fn]:
            if start <= where < end:
                for guard in guards:
                    why = fails(guard, known.get(guard.subject))
                    if why:
                        return why
        return ""

    def type_gate(self, node: cst.CSTNode) -> tuple[bool, str] | None:
        """Whether `node` runs only when an `isinstance` test gives what it cannot give for the
        tensor its subject holds (type_tests.py): Dynamo answers the test while tracing and
        never traces `node` for that tensor. (True, the test) where the subject is known to be
        a tensor, (False, the test) where it is likely one; None otherwise."""
        fn = self.function
        if fn is None:
            return None
        if fn not in self._type_tests:
            found = self._type_tests[fn] = []
            fn_shape = self.shape(fn)
            for block, tests in [*fn_shape.arms, *fn_shape.conditions]:
                typed = [test for condition, holds in tests for test in type_tests(condition, holds)]
                if typed:
                    first, last = block if isinstance(block, tuple) else (block, block)
                    found.append((self._bounds(first)[0], self._bounds(last)[1], typed))
        if not self._type_tests[fn]:
            return None
        span = self.file.span(node)
        where = (span.start_line, span.start_col)
        likely: tuple[bool, str] | None = None
        for start, end, typed in self._type_tests[fn]:
            if not start <= where < end:
                continue
            for test in typed:
                value = self.value(test.subject)
                if not value.tensorish or value.numpy or value.or_container \
                        or tensor_answer(test.classinfo, self.resolve) in (None, test.holds):
                    continue  # not a tensor, or one whose annotation allows the container tested
                code = cst.Module([]).code_for_node
                text = f"{'' if test.holds else 'not '}isinstance({code(test.subject)}, {code(test.classinfo)})"
                if value.is_tensor:
                    return True, text
                likely = likely or (False, text)
        return likely

    def shape(self, fn: FunctionInfo) -> Shape:
        """fn's if/elif/else blocks, loop bodies and while tests (walk.shape), walked once."""
        found = self._shapes.get(fn)
        if found is None:
            found = self._shapes[fn] = shape(fn.node)
        return found

    def arms_of(self, fn: FunctionInfo) -> list[Arm]:
        """if_arms of fn's node, walked once per function (rules ask it at every finding)."""
        return self.shape(fn).arms

    def _bounds(self, node: cst.CSTNode) -> tuple[tuple[int, int], tuple[int, int]]:
        span = self.file.span(node)
        return (span.start_line, span.start_col), (span.end_line, span.end_col)

    def looping_caller(self) -> str | None:
        """The nearest function up the region's call chain that makes the call down the chain
        inside one of its for/while loops: a break here makes Dynamo skip that function's frame
        (GB7000, torch 2.11+; checked on 2.13), in this file or another."""
        fn, region = self.function, self.region
        if fn is None or region is None or len(region.path) < 2:
            return None
        if fn not in self._looping_callers:
            self._looping_callers[fn] = self._find_looping_caller(fn, region)
        return self._looping_callers[fn]

    def _find_looping_caller(self, fn: FunctionInfo, region: Region) -> str | None:
        resolver = CallResolver(self.project, {})
        chain = self._call_chain(fn, region, resolver)
        for depth in range(len(chain) - 2, -1, -1):
            caller, callee = _own_code(chain[depth]), chain[depth + 1]
            if caller is not chain[depth]:  # what was passed to its parameters, for the same code
                for (owner, name), classes in list(resolver.arguments.items()):  # type: ignore[union-attr]
                    if owner is chain[depth]:
                        resolver.arguments[(caller, name)] = classes  # type: ignore[index]
            for call in _loop_calls(caller.node):
                if any(same_def(t, callee) for t in resolver.call_targets(call.func, caller)) \
                        and self._caller_skips(caller, call):
                    return caller.qualname
        return None

    def _call_chain(self, fn: FunctionInfo, region: Region, resolver: CallResolver) -> list[FunctionInfo]:
        """The functions of the region's call path, entry first, followed from the entry's module
        the way compute_regions found them (module instances passed down as arguments included,
        as `resolver.arguments`); [] when the path cannot be followed again."""
        entries = [m.functions.get(region.path[0]) for m in self.project.by_name.get(region.entry_module, [])]
        chain = [next((e for e in entries if e is not None), None)]
        if chain[0] is None:
            return []
        for qualname in region.path[1:]:
            caller = chain[-1]
            for call in caller.calls:
                for callee, implicit in resolver.bound_targets(call, caller):
                    if implicit is not None:
                        pass_instances(self.project, resolver, call, caller, callee, implicit)
            found = [c for c in resolver.callees(caller) if c.qualname == qualname]
            if not found:
                return []
            chain.append(next((c for c in found if c.module is caller.module), found[0]))
        return chain if chain[-1] is fn else []

    def entry_calls(self, fn: FunctionInfo) -> list[cst.Call]:
        """The calls of an entry point made in its own file, outside the region (the script or
        test that runs it): what they pass is what it is compiled for."""
        resolver = CallResolver(self.project)
        name = fn.header.name
        return [call for caller in entry_callers(fn, resolver) for call in caller.calls
                if (dotted(call.func) or "").rpartition(".")[2] == name
                and any(target is fn for target, _ in resolver.bound_targets(call, caller))]

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        """The qualified name of a Name/Attribute chain: `t.compile` -> `torch.compile`."""
        try:
            return self._resolved[expr]
        except KeyError:
            found = self._resolved[expr] = self.module.imports.resolve(expr)
            return found

    def local_test(self, name: str) -> cst.BaseExpression | None:
        """What a name of the current function is bound to, when bound once by a plain
        assignment (`is_tracing = torch.jit.is_tracing() or is_torchdynamo_compiling()`)."""
        fn = self.function
        bound = fn.assigns.get(name) if fn is not None and name not in fn.header.params else None
        if bound is None or len(bound) != 1 or bound[0].iterated:
            return None
        return bound[0].expr

    def while_compiling(self, test: cst.BaseExpression) -> bool | None:
        """patterns.value_while_compiling in this function: what Dynamo knows a test to be."""
        return value_while_compiling(test, self.resolve, self.local_test, self.type_answer)

    def type_answer(self, test: cst.Call) -> bool | None:
        """What `isinstance(x, T)` gives while Dynamo traces, where x is known to be a tensor and
        T decides it (type_tests.tensor_answer); None otherwise."""
        typed = type_tests(test, True)
        if len(typed) != 1:
            return None
        value = self.value(typed[0].subject)
        known = value.is_tensor and not value.numpy and not value.or_container
        return tensor_answer(typed[0].classinfo, self.resolve) if known else None


class Rule:
    """One pattern that costs torch.compile its speed. Subclasses declare and visit."""

    code: ClassVar[str]
    name: ClassVar[str]
    stage: ClassVar[Stage]
    severity: ClassVar[Severity] = Severity.WARNING
    message: ClassVar[str]  # format fields: {region} and whatever the rule passes to report()
    help: ClassVar[str]
    # Dynamo's own words, by GB id (or by a key such as "recompile" for guard failures).
    dynamo_says: ClassVar[dict[str, str]] = {}
    # Torch versions (inclusive, "major.minor") in which the pattern hurts; None: all known.
    torch_versions: ClassVar[tuple[str | None, str | None]] = (None, None)
    # "stable": proven against the real compiler by its testdata (on CPU in CI, or by committed
    # GPU evidence); "preview": flagged by analogy, not yet proven on every spelling it flags.
    status: ClassVar[str] = "stable"
    bad: ClassVar[tuple[str, ...]] = ()
    good: ClassVar[tuple[str, ...]] = ()
    meta: ClassVar[bool] = False  # emitted by the engine itself (BL0xx), never visits
    # Whether the pattern is still reported in a `nonstrict_trace` body, which Dynamo does not
    # trace but runs non-strictly (torch 2.13): data-dependent values still break there; Python
    # side effects and guards do not. (Inductor's fallbacks for ops there are real, but Inductor
    # places them at the call, not in the body: BL4xx stay silent in the body.)
    applies_nonstrict: ClassVar[bool] = False
    file_scope: ClassVar[bool] = False  # the rule defines file-scope hooks (see file_hooks)

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    # --- file-scope hooks -----------------------------------------------------------------
    # `visit_<Node>` / `leave_<Node>` only see code in compiled regions. A rule that looks at
    # the whole file (call sites of compiled callables live outside regions) defines
    # `file_visit_<Node>` / `file_leave_<Node>` instead: the engine calls them for every node of
    # the file in the same traversal, then `end_file()` once. They run only in files the engine
    # checks (those with a region, or every file with --scope all).
    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        """Whether this rule's file-scope hooks run on a file with this `text` (a rule may test
        it cheaply first). When none does, libcst parses only the file's region code
        (index/region_text.py): the rest never reaches a rule. By default: whether it has
        file-scope visitors (a rule with only `end_file`, reading the index's facts, needs no tree)."""
        return cls.file_scope and any(name.startswith(("file_visit_", "file_leave_")) for name in dir(cls))

    def file_hooks(self) -> bool:
        """Whether the engine calls this rule's file-scope hooks in this file."""
        return self.reads_whole_file(self.ctx.file.text)

    def end_file(self) -> None:
        """Called once, after the traversal of the file: emit what the file-scope hooks found."""

    @classmethod
    def gb_ids(cls) -> tuple[str, ...]:
        return tuple(key for key in cls.dynamo_says if _is_gb_id(key))

    @classmethod
    def url(cls) -> str:
        """The rule's page in the repository ("" when breaklint does not know its repository)."""
        return rule_page(cls.code)

    @classmethod
    def applies_to(cls, version: TorchVersion) -> bool:
        return version in Versions(*cls.torch_versions)

    @classmethod
    def versions(cls) -> str:
        """`2.9+`, `2.8-2.12` or `all`: the torch versions in which the pattern hurts."""
        return str(Versions(*cls.torch_versions))

    @classmethod
    def docs(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def make_finding(
        cls,
        path: str,
        span: Span,
        message: str,
        confidence: Confidence = Confidence.CERTAIN,
        region: Region | None = None,
        says: str | tuple[str, ...] | None = None,
        details: str = "",
        target: TorchVersion | None = None,
        severity: Severity | None = None,
        help: str | None = None,
        recompiles: int = 0,
    ) -> Finding:
        """A finding of this rule; `says` picks the Dynamo messages to quote (GB ids or keys).

        A GB id is only cited for a target torch that has it; the text is quoted either way.
        In a region that only a setting the default configuration lacks reaches (Region.gate),
        the finding is `possible`, severity info, and says which setting (configs.py)."""
        if region is not None and region.gate:
            message = f"{message}; only when {region.gate} (this code runs only under that setting)"
            confidence, severity = Confidence.POSSIBLE, Severity.INFO
        if region is not None and region.assumed and confidence is Confidence.CERTAIN:
            # Compiled only by the assumption that every forward is: never "certain" as a whole.
            confidence = Confidence.LIKELY
        gb_ids: tuple[str, ...] = ()
        if says:
            keys = (says,) if isinstance(says, str) else says
            gb_ids = tuple(key for key in keys if _is_gb_id(key) and _has_gb_id(key, target))
            quotes = " or ".join(
                f'"{cls.dynamo_says[key]}" ({key})' if key in gb_ids
                else f'"{cls.dynamo_says[key]}"' if _is_gb_id(key) else cls.dynamo_says[key]
                for key in keys
            )
            message = f"{message}{DYNAMO_SAYS}{quotes}"
        return Finding(
            code=cls.code,
            name=cls.name,
            message=message,
            path=path,
            span=span,
            severity=severity or cls.severity,
            confidence=confidence,
            stage=cls.stage,
            help=cls.help if help is None else help,
            region=region,
            gb_ids=gb_ids,
            url=cls.url(),
            details=details,
            recompiles=recompiles,
        )

    def report(
        self,
        node: cst.CSTNode,
        *,
        confidence: Confidence,
        says: str | tuple[str, ...] | None = None,
        help: str | None = None,
        also: str = "",
        **fields: str,
    ) -> None:
        """Report `node`; `help` replaces the rule's for this finding (advice that fits its form),
        `also` follows the message (when it breaks)."""
        region = self.ctx.region
        if region is not None and region.nonstrict and not self.applies_nonstrict:
            return  # not traced by Dynamo: this pattern runs as plain Python under nonstrict_trace
        where = f"compiled region {region.describe()}" if region else "a function (not compiled)"
        if region is not None and region.nonstrict:
            cite = ", GB0251" if _has_gb_id("GB0251", self.ctx.target_torch) else ""
            where += f" (under nonstrict_trace, whose non-strict trace then fails at the call: {NONSTRICT_FAILS}{cite})"
        typed = self.ctx.type_gate(node) if region is not None else None
        if typed is not None and typed[0]:
            return  # never traced: it runs only for a type the tensor there is not
        text = self.message.format(region=where, **fields) + also
        severity = None
        gate = self.ctx.arm_gate(node) if region is not None and not region.gate else ""
        if gate:
            region = replace(region, gate=gate)  # type: ignore[arg-type]
        if typed is not None:
            text += f"; but only when `{typed[1]}`{TYPE_TEST_NOTE}"
            confidence, severity = Confidence.POSSIBLE, Severity.INFO
        elif self.stage in (Stage.DYNAMO, Stage.DISTRIBUTED) and says:  # BL6xx: a collective breaks too
            # Escalate: Dynamo does not resume after a break in a loop, it runs the frame eagerly;
            # also when the loop is in a caller that inlined this function.
            gb_id, gb_type = GB_IN_LOOP
            cite = f' ("{gb_type}", {gb_id})' if _has_gb_id(gb_id, self.ctx.target_torch) else ""
            jump = JUMP_BREAK in ((says,) if isinstance(says, str) else says)
            if self.ctx.loop_skips_frame(node, jump):
                text += f"; inside a loop, so Dynamo skips the whole function{cite}"
                severity = Severity.ERROR
            elif self.ctx.in_while_test(node, jump=jump):
                text += ("; in a `while` test, which runs again at the end of every pass, so Dynamo runs the"
                         f" loop and the rest of the function uncompiled{cite}")
                severity = Severity.ERROR
            else:
                caller = self.ctx.looping_caller()
                if caller is not None:
                    text += f"; reached from a loop in `{caller}`, so Dynamo skips all of `{caller}`{cite}"
                    severity = Severity.ERROR
        self.ctx.emit(
            self.make_finding(
                self.ctx.file.display, self.ctx.file.span(node), text, confidence, region, says,
                target=self.ctx.target_torch, severity=severity, help=help,
            )
        )


# Why a finding behind an `isinstance` test on a likely tensor is only possible (FileContext.type_gate).
TYPE_TEST_NOTE = (": Dynamo answers the test while tracing, and the value tested is likely a tensor here,"
                  " for which this code is not traced")


def _is_gb_id(key: str) -> bool:
    return re.fullmatch(r"GB\d{4}", key) is not None


def has_gb_id(gb_id: str, target: TorchVersion | None) -> bool:
    """Whether Dynamo of the target torch has this GB id (None: any version)."""
    return target is None or target >= GB_ID_SINCE_OVERRIDES.get(gb_id, GB_IDS_SINCE)


_has_gb_id = has_gb_id


def _own_code(fn: FunctionInfo) -> FunctionInfo:
    """fn with its real body: another file's function as built from that file's tree, read as
    content (the result depends on its bytes; this file is not checked again against it)."""
    content = getattr(fn.module.file, "content_module", None)  # only a shallow module has one
    return content.functions.get(fn.qualname, fn) if content is not None else fn


def _arm_guards(arms: list[Arm]) -> list[tuple[cst.BaseSuite, list[Guard]]]:
    """Every if/elif/else block of one function (nested defs excluded, walk.if_arms) with the
    settings guards that decide whether it runs (conditions.cst_guards_of, through the whole chain)."""
    return [(body, [guard for test, holds in tests for guard in cst_guards_of(test, holds)])
            for body, tests in arms]


def _loop_calls(function: cst.FunctionDef) -> list[cst.Call]:
    """The calls in the bodies of a function's for/while loops (nested defs and lambdas excluded)."""
    calls = _LoopCalls()
    for body in _loop_bodies(function):
        visit(body, calls, trivia=False)
    return calls.found


class _LoopCalls(Visitor):
    """_loop_calls' visitor (a class made per call would be cyclic garbage for the collector)."""

    def __init__(self) -> None:
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False


def _loop_bodies(function: cst.FunctionDef) -> list[cst.CSTNode]:
    """The bodies of the for/while loops of one function, nested defs and lambdas excluded."""
    return shape(function).loop_bodies
