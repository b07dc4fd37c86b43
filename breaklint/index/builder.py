"""The cheap pre-pass: a file's index from the stdlib `ast` (about a tenth of libcst's cost).

The one indexer: what each module defines, imports, assigns, calls and compiles, for every file,
as plain data (summary.py) that the cache stores and view.py serves as the ModuleIndex. Things
are recorded in libcst's visit order (source order; where `ast` keeps fields in another order —
decorators, call arguments, dict items, `a if t else b`, defaults — it is put back), so that a
def, class or call the rules meet in a file's libcst tree is found by its position in that order
(view.bind_tree, view.own_calls).
"""

from __future__ import annotations

import ast
import bisect
import sys
from itertools import accumulate
from typing import Callable, Iterable, Iterator, Mapping, Optional, TypeVar

from breaklint.index.compilers import Compiler, alias_of, compiled_argument, returned_names
from breaklint.index.conditions import dotted, guards_of, is_concatenation
from breaklint.index.imports import ImportTable
from breaklint.index.patterns import NO_GRAD as _NO_GRAD, SET_GRAD as _SET_GRAD, called_while_compiling
from breaklint.index.project import COMPILE_NAMES, DISABLE_NAMES, OPTIMIZE_NAMES
from breaklint.index.refusals import BLOCK_MARGIN, TRY_WEIGHT, bound_names, future_heads, leading_declarations
from breaklint.index.refusals import comprehension_targets, match_may_be_refused, may_be_named_in, parameter_names
from breaklint.index.refusals import repeats_a_keyword
from breaklint.index.summary import Bindings, CallArgs, ClassSummary, Expr, FunctionSummary, Guard, Guards, ModuleSummary, SiteSummary
from breaklint.index.summary import CompiledCall, CompiledName, Loop, Place, StateWrite
from breaklint.infra.quiet_ast import parse_module

_DOTTED = (ast.Name, ast.Attribute)
_SINGLETONS = {True: "True", False: "False", None: "None"}  # Names in libcst, constants in ast
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "conversion", "kind", "type_comment"})
_EXPR_FIELDS: dict[type, tuple[str, ...]] = {}  # a memo of ast's static field lists
_SELF_REGISTRATIONS = ("register_buffer", "register_parameter", "add_module", "register_module")
_T = TypeVar("_T")


def line_starts(source: bytes) -> list[int]:
    """The offset where each line starts, and where the text ends when it ends a line. Python ends
    a line at CRLF, LF and a lone CR (ast's line numbers count all three), as bytes.splitlines does."""
    lines = source.splitlines(keepends=True)
    starts = [0, *accumulate(map(len, lines))]
    if lines and lines[-1][-1:] not in (b"\n", b"\r"):
        starts.pop()  # the last line has no end: nothing starts after it
    return starts


def summarize(text: str, module_name: str, is_package: bool, tree: ast.Module | None = None) -> ModuleSummary:
    """Raises SyntaxError (and RecursionError, MemoryError) as `ast.parse` does."""
    return _Walker(text, module_name, is_package).run(tree if tree is not None else parse_module(text))


def summarize_lines(text: str, module_name: str, is_package: bool, tree: ast.Module,
                    helpers: Mapping[str, Compiler] | None = None) -> tuple[ModuleSummary, bytes, list[int], bool]:
    """The summary, with the text's UTF-8 bytes and line starts (`line_starts`) it was read
    from: the pre-pass digests definitions' lines from them (scan.text_digests); and whether
    Python's compiler may refuse the tree (`_Walker.refusable`). `helpers`: the compile helpers
    other modules define, by the names this one imports them as (engine.py,
    `_seed_imported_helpers`)."""
    walker = _Walker(text, module_name, is_package, helpers)
    return walker.run(tree), walker.source, walker.line_starts, walker.refusable


class _Function:
    """A FunctionSummary being built."""

    def __init__(self, qualname: str, name: str, class_index: int, parent: int, self_name: str | None,
                 params: tuple[str, ...], line: int, decorators: tuple[Expr, ...],
                 signature: tuple[tuple[str, Expr | None, Expr | None, bool], ...] = (), end_line: int = 0,
                 stub: bool = False, stores: tuple[tuple[str, str], ...] = ()) -> None:
        self.qualname, self.name, self.class_index, self.parent = qualname, name, class_index, parent
        self.self_name, self.params, self.line, self.decorators = self_name, params, line, decorators
        self.signature, self.end_line, self.stub, self.stores = signature, end_line, stub, stores
        self.calls: list[Expr] = []
        self.call_args: list[CallArgs] = []
        self.call_guards: list[tuple[int, Guards]] = []
        self.refs: list[Expr] = []
        self.assigns: dict[str, list[tuple[Expr, bool]]] = {}
        self.nested: list[int] = []
        self.global_names: dict[str, None] = {}
        self.nonlocal_names: set[str] = set()  # only for the writes to closure cells (not stored)
        self.implicit: list[Expr] = []

    def freeze(self, shared: dict[object, object]) -> FunctionSummary:
        return FunctionSummary(
            self.qualname, self.name, self.class_index, self.parent, self.self_name, tuple(sorted(self.params)),
            _one(tuple(self.calls), shared), _one(tuple(self.refs), shared), _freeze(self.assigns, shared),
            tuple(self.nested), tuple(sorted(self.global_names)), self.line, self.decorators,
            _one(tuple(self.call_args), shared), tuple(self.call_guards), _one(self.signature, shared), self.end_line,
            tuple(dict.fromkeys(self.implicit)), self.stub, self.stores,
        )


class _Class:
    def __init__(self, qualname: str, name: str, bases: tuple[Expr, ...], line: int = 0, end_line: int = 0) -> None:
        self.qualname, self.name, self.bases = qualname, name, bases
        self.line, self.end_line = line, end_line
        self.attrs: dict[str, list[tuple[Expr, bool]]] = {}
        self.attr_guards: list[tuple[str, int, Guards]] = []
        self.attr_methods: list[tuple[str, int, str]] = []
        self.tensor_attrs: dict[str, None] = {}
        self.body: list[tuple[str, Expr | None, Expr | None]] = []

    def bind(self, name: str, value: Expr, iterated: bool, guards: Guards, method: str | None = None) -> None:
        values = self.attrs.setdefault(name, [])
        if guards:
            self.attr_guards.append((name, len(values), guards))
        if method is not None:
            self.attr_methods.append((name, len(values), method))
        values.append((value, iterated))

    def freeze(self, shared: dict[object, object]) -> ClassSummary:
        return ClassSummary(self.qualname, self.name, self.bases, _freeze(self.attrs, shared),
                            tuple(sorted(self.tensor_attrs)),
                            tuple(sorted(self.attr_guards, key=lambda item: item[:2])), self.line, self.end_line,
                            _one(tuple(self.body), shared), tuple(self.attr_methods))


class _Arm:
    """An `if` arm (or a conditional expression's) around the statement being walked."""

    __slots__ = ("test", "holds", "guards")

    def __init__(self, test: ast.expr, holds: bool) -> None:
        self.test, self.holds = test, holds
        self.guards: list[Guard] | None = None


def _freeze(bindings: dict[str, list[tuple[Expr, bool]]], shared: dict[object, object]) -> Bindings:
    return tuple((name, _one(tuple(values), shared)) for name, values in bindings.items())


def _one(value: _T, shared: dict[object, object]) -> _T:
    """`value` with each string and tuple in it replaced by the first equal one of the file
    (`shared`): pickle writes an object it has seen once and refers to it after, so every
    process that reads the summary holds one of each (a fifth of transformers' summaries are
    repeated texts and argument layouts: `(None, None)`, `config.hidden_size`)."""
    kind = type(value)
    if kind is tuple:
        value = tuple([_one(item, shared) for item in value])  # type: ignore[arg-type,assignment]
    elif kind is not str:
        return value
    return shared.setdefault(value, value)  # type: ignore[return-value]


class _Walker:
    def __init__(self, text: str, module_name: str, is_package: bool,
                 helpers: Mapping[str, Compiler] | None = None) -> None:
        self.source = text.encode("utf-8", "surrogatepass")
        self.line_starts = line_starts(self.source)
        self.module_name, self.is_package = module_name, is_package
        self.imports = ImportTable(module_name, is_package)
        self.functions: list[_Function] = []
        self.classes: list[_Class] = []
        self.assigns: dict[str, list[tuple[Expr, bool]]] = {}
        self.sites: list[SiteSummary] = []
        self.disabled: list[tuple[int, bool]] = []
        self.scope_kinds: list[str] = []  # "class" / "function", innermost last
        self.function_stack: list[int] = []
        self.class_stack: list[int] = []
        self.untraced_depth = 0
        # The function whose body is being walked (None at module level and in a class body) and
        # its index (-1): asked at every call, so kept rather than found from the stacks.
        self.fn: _Function | None = None
        self.scope = -1
        # Per function being walked (innermost last): the guards of the `if` arms it is in.
        self.guard_frames: list[list[_Arm]] = [[]]
        self.guards_now: Guards | None = ()  # those guards flattened; None when an arm changed them
        # Unbound methods, so that a walker makes no reference cycle: the engine runs the
        # pre-pass with the garbage collector off.
        self.stmt_handlers: dict[type, Callable[[_Walker, ast.AST], None]] = _STATEMENTS
        # What changes compiled frames' guards (summary.CompiledCall & co.), kept for the end of
        # the file, when every name bound to a compiled callable is known.
        # Only a file that can compile something (the word is in it: `torch.compile`, an alias's
        # import, `optimize`) records them: the others pay nothing for these facts.
        self.tracks = b"compile" in self.source or b"optimize" in self.source or bool(helpers)
        self.loops: list[Loop] = []  # the loops around the statement, in its own function
        self.grad_off = 0  # how many grad switches are on around it
        self.compiled_names: list[CompiledName] = []
        self.dotted_calls: list[tuple[str, ast.Call, int, tuple[Loop, ...], bool]] = []
        self.writes: list[StateWrite] = []
        self.imported_calls: list[CompiledCall] = []  # calls of from-imported names, in every file
        self.from_names: set[str] = set()
        # Compile helpers (compilers.py) by name, as the walk learns them; and, by function, the
        # parameter it compiles (its position, the options text) and the wrappers it defines.
        self.imported_helpers: Mapping[str, Compiler] = helpers or {}
        self.compilers: dict[str, Compiler] = dict(self.imported_helpers)
        self.compiled_params: dict[int, tuple[int, str]] = {}
        self.inner_wrappers: dict[int, dict[str, Compiler]] = {}
        # Per class being walked whose text mentions `compile`: its wrapper methods (by name) and
        # the calls `self.name(...)` its methods make, matched when the class ends (a method may
        # call a helper defined below it); None for a class that cannot hold one.
        self.method_helpers: list[tuple[dict[str, Compiler], list[tuple[str, ast.Call, int]]] | None] = []
        self.top_statement: ast.stmt | None = None  # the module-level statement being walked
        # Whether Python's compiler may refuse what its parser took (scan.compiled_verdict judges
        # the tree only then: compiling was a sixth of a check). Set by every construct the
        # compiler judges beyond the grammar (a `return` outside a def, a repeated keyword, ...);
        # benchmarks/compiler_gate.py tries it on CPython's own tests. `__debug__` may be refused anywhere.
        self.refusable = b"__debug__" in self.source
        self.loop_depth = 0  # loops around the statement in its own def or class body (`break`)
        self.block_weight = 0  # the compiler's nested blocks around it in its own def (CO_MAXBLOCKS)
        self.header_depth = 0  # lambdas, annotations and def headers around it
        self.comprehensions: list[ast.expr] = []  # the comprehensions around it, outermost first
        self.iterable_depth = 0  # comprehensions' `in` expressions around it
        self.iterated: tuple[ast.expr, set[str]] | None = None  # _iterated_names's last answer
        self.future_heads: set[int] = set()  # ids of the `from __future__` imports in their place
        self.leading: set[int] = set()  # ids of the `global`/`nonlocal` statements opening a def
        self.scan_budget = 4 * len(self.source) + 65536  # bytes _named_before may still search
        self.function_nodes: list[ast.FunctionDef | ast.AsyncFunctionDef] = []  # by index, as self.functions
        # `nonlocal` names to find bound in an enclosing def once the file is walked: the names
        # and the indexes of the defs around, innermost last.
        self.pending_nonlocals: list[tuple[list[str], list[int]]] = []

    def run(self, tree: ast.Module) -> ModuleSummary:
        # Imports first: a decorator may use a name imported below.
        for statement in tree.body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                self.imports.add_ast_import(statement)
        self.from_names = _project_imports(tree)
        self.future_heads = future_heads(tree)
        for statement in tree.body:
            self.top_statement = statement
            self._block((statement,))
        if self.pending_nonlocals and not self.refusable:
            self.refusable = not self._nonlocals_bound()
        shared: dict[object, object] = {}  # _one's
        return ModuleSummary(
            self.module_name, self.is_package, tuple(self.imports.aliases.items()),
            tuple(sorted(self.imports.local_defs)), tuple(f.freeze(shared) for f in self.functions),
            tuple(c.freeze(shared) for c in self.classes), _freeze(self.assigns, shared), tuple(self.sites),
            tuple(self.disabled), *self._compiled_facts(), tuple(self.imported_calls),
            tuple((name, helper.kind, helper.position, helper.options) for name, helper in self.compilers.items()
                  if self.imported_helpers.get(name) is not helper),  # its own helpers, not those it imported
        )

    # --- what changes compiled frames' guards (analysis/guards.py reads it) --------------------
    def place(self, node: ast.AST, scope: int | None = None) -> Place:
        """node's position as finding.Span counts it (columns in code points, not ast's bytes),
        in `scope` (default: the function being walked)."""
        if scope is None:
            scope = self.scope
        return Place(node.lineno, self._col(node.lineno, node.col_offset) + 1, node.end_lineno or node.lineno,  # type: ignore[attr-defined]
                     self._col(node.end_lineno or node.lineno, node.end_col_offset or 0) + 1, scope)  # type: ignore[attr-defined]

    def _start(self, node: ast.expr) -> tuple[int, int]:
        """Where node starts, as place() counts it."""
        return node.lineno, self._col(node.lineno, node.col_offset) + 1

    def _col(self, line: int, byte_col: int) -> int:
        start = self.line_starts[line - 1]
        return len(self.source[start:start + byte_col].decode("utf-8", "surrogatepass"))

    def _compiled_facts(self) -> tuple[tuple[CompiledName, ...], tuple[CompiledCall, ...], tuple[StateWrite, ...]]:
        """The calls of this file's compiled names, and the writes to them, to what they compile
        and to globals; nothing in a file that compiles nothing."""
        if not self.compiled_names:
            return (), (), ()
        bound: dict[str, set[int]] = {}  # each compiled name, by the scopes whose binding is compiled
        for c in self.compiled_names:
            bound.setdefault(c.name, set()).add(self._binder(c.name, c.place.scope))
        compiled = set(bound)
        watched = compiled | {c.target for c in self.compiled_names}

        def sees(func: str, scope: int) -> bool:  # a call of `func` in `scope` reads a compiled binding
            return func in bound and self._binder(func, scope) in bound[func]

        calls: list[CompiledCall] = []
        # Locals passed to a compiled call: a container's length and keys are guarded, so an
        # append or a new key between calls is a write to what the frame guards on.
        passed = {(scope, self.text(value)) for func, node, scope, _, _ in self.dotted_calls if sees(func, scope)
                  for _, value in _arg_items(node) if isinstance(value, ast.Name)}
        writes = [w for w in self.writes if w.action in ("global", "item", "nonlocal") or _head_in(w.subject, watched)
                  or (w.action == "local-item" and (w.place.scope, w.subject) in passed)]
        # Calls of this file's functions that write a global: the write happens at the call; of
        # one that rebinds a closure cell (`nonlocal`), by the name it is defined with.
        writers = {self.functions[w.place.scope].qualname for w in writes
                   if w.action in ("global", "item") and w.place.scope >= 0}
        setters = {self.functions[w.place.scope].name for w in writes if w.action == "nonlocal" and w.place.scope >= 0}
        for func, node, scope, loops, grad_off in self.dotted_calls:
            if func in writers or func in setters:
                writes.append(StateWrite(func, "call", func, _args_text(self, node) if func in setters else "",
                                         self.place(node, scope)))
            if sees(func, scope):
                args = tuple((keyword, self.text(value)) for keyword, value in _arg_items(node))
                calls.append(CompiledCall(func, self.place(node, scope), args, loops, grad_off))
            elif "." in func:
                receiver, _, method = func.rpartition(".")
                if _head_in(receiver, watched):
                    writes.append(StateWrite(receiver, "method", method, _args_text(self, node), self.place(node, scope)))
                elif method in _CONTAINER_MUTATORS and (scope, receiver) in passed:
                    writes.append(StateWrite(receiver, "method", method, _args_text(self, node), self.place(node, scope),
                                             loops))
        return tuple(self.compiled_names), tuple(calls), tuple(writes)

    def _binder(self, name: str, scope: int) -> int:
        """The scope whose binding `name` means in `scope` (a function's index, -1 the module), as
        Python reads it: the innermost function that assigns it or takes it as a parameter (two
        functions that both bind `model` mean different things), else the module's; `global`
        makes it the module's; an attribute (`self.step`) is the file's, whichever method bound
        it. `net.compile()` in a function compiles the module's `net` when that function does not
        bind one."""
        if "." in name:
            return -1
        while scope >= 0:
            fn = self.functions[scope]
            if name in fn.global_names:
                return -1
            if name in fn.assigns or name in fn.params:
                return scope
            scope = fn.parent
        return -1

    def _bind_compiled(self, targets: list[ast.expr], value: ast.expr) -> None:
        """`name = torch.compile(target, ...)` (or `optimize(...)(target)`) binds a compiled name."""
        if not isinstance(value, ast.Call) or not value.args or isinstance(value.args[0], ast.Starred):
            return
        resolved = self.resolve(value.func)
        inner = self.resolve(value.func.func) if isinstance(value.func, ast.Call) else None
        options = self.text(value)
        compiled: ast.expr | None = value.args[0]
        helper = self._helper(value.func, ("alias", "wrapper"))
        factory = self._helper(value.func.func, ("factory", "alias")) if isinstance(value.func, ast.Call) else None
        if helper is not None or factory is not None:  # `g = maybe_compile(f)`, `g = compile_with(...)(f)`
            compiled = compiled_argument(value, helper) if helper is not None else compiled
            options = (helper or factory).options or options  # type: ignore[union-attr]
        elif not (resolved in COMPILE_NAMES or inner in COMPILE_NAMES or inner in OPTIMIZE_NAMES):
            return
        if compiled is None:
            return
        for target in targets:
            name = _dotted(target)
            if name is not None:
                self.compiled_names.append(CompiledName(name, self.text(compiled), options, self.place(value)))

    def _write(self, target: ast.expr, value: ast.expr, node: ast.stmt) -> None:
        """A write to a guarded value: `a.b = v`, `G[k] = v`, or a global under `global`."""
        fn = self._current()
        if isinstance(target, ast.Attribute):
            subject = _dotted(target.value)
            if subject is not None and not (fn is not None and subject.split(".")[0] == fn.self_name):
                self.writes.append(StateWrite(subject, "attr", target.attr, self.text(value), self.place(node)))
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            name = target.value.id
            if fn is None or name in fn.global_names or name not in fn.assigns:
                self.writes.append(StateWrite(name, "item", self.text(target.slice), self.text(value), self.place(node)))
            else:  # a local container: kept only when it is passed to a compiled call (_compiled_facts)
                self.writes.append(StateWrite(name, "local-item", self.text(target.slice), self.text(value),
                                              self.place(node), tuple(self.loops)))
        elif isinstance(target, ast.Name) and fn is not None and target.id in fn.global_names:
            self.writes.append(StateWrite(target.id, "global", target.id, self.text(value), self.place(node)))
        elif isinstance(target, ast.Name) and fn is not None and target.id in fn.nonlocal_names:
            self.writes.append(StateWrite(target.id, "nonlocal", target.id, self.text(value), self.place(node)))

    def _while(self, node: ast.While) -> None:
        self.loops.append(Loop("", ""))
        self.expr(node.test)
        self._loop_body(node.body)
        self._block(node.orelse)
        self.loops.pop()

    def _with(self, node: ast.With | ast.AsyncWith) -> None:
        if type(node) is ast.AsyncWith:
            self.refusable = True  # outside an async def
        off = any(self._switches_grad_off(item.context_expr) for item in node.items)
        self.grad_off += off
        for item in node.items:
            self._generic(item)
        self._weighed_block(node.body, len(node.items))  # a block per item
        self.grad_off -= off

    def _switches_grad_off(self, expr: ast.expr) -> bool:
        if not isinstance(expr, ast.Call):
            return False
        name = self.resolve(expr.func)
        first = expr.args[0] if expr.args else None
        false = isinstance(first, ast.Constant) and first.value is False
        return (name in _NO_GRAD and not false) or (name in _SET_GRAD and false)

    # --- source text --------------------------------------------------------------------
    def text(self, node: ast.expr) -> Expr:
        """The expression as written; Name/Attribute chains (most of them) without slicing."""
        kind = type(node)
        if kind is ast.Name:
            return node.id  # type: ignore[attr-defined]
        if kind is ast.Attribute:
            name = _dotted(node)
            if name is not None:
                return name
        elif kind is ast.Constant and _is_singleton(node.value):  # type: ignore[attr-defined]
            return _SINGLETONS[node.value]  # type: ignore[attr-defined]
        start = self.line_starts[node.lineno - 1] + node.col_offset
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[operator]
        return self.source[start:end].decode("utf-8", "surrogatepass")

    def resolve(self, node: ast.expr) -> str | None:
        name = _dotted(node)
        return self.imports.resolve_dotted(name) if name is not None else None

    # --- scopes ---------------------------------------------------------------------------
    def _current(self) -> _Function | None:
        return self.fn

    def _prefix(self) -> str:
        if not self.scope_kinds:
            return ""
        if self.scope_kinds[-1] == "function":
            return f"{self.functions[self.function_stack[-1]].qualname}.<locals>."
        return f"{self.classes[self.class_stack[-1]].qualname}."

    # --- statements -----------------------------------------------------------------------
    def _block(self, statements: Iterable[ast.stmt]) -> None:
        handlers = self.stmt_handlers
        statements = list(statements)
        for at, statement in enumerate(statements):
            handler = handlers.get(type(statement))
            if handler is not None:
                handler(self, statement)
            else:
                self._generic(statement)
            if type(statement) is ast.If and self._leaves(statement):  # patterns.untraced_tail's twin
                self._untraced_block(statements[at + 1:])
                return

    def _untraced_block(self, statements: list[ast.stmt]) -> None:
        self.untraced_depth += 1
        self._block(statements)
        self.untraced_depth -= 1

    def _generic(self, node: ast.AST) -> None:
        """Every other statement: its expressions, then its blocks, in source order."""
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self._block(value)  # a block whole: an early return in it ends it (_leaves)
                continue
            for child in _children_of(value):
                if isinstance(child, ast.expr):
                    self.expr(child)
                elif isinstance(child, ast.AST):  # excepthandler, withitem, match_case, pattern
                    self._generic(child)

    def _value_statement(self, node: ast.Expr | ast.Return) -> None:
        if node.value is not None and type(node.value) not in _LEAVES:
            self.expr(node.value)

    def _return(self, node: ast.Return) -> None:
        if self.fn is None:  # at module level or in a class body
            self.refusable = True
        self._value_statement(node)

    def _raise(self, node: ast.Raise) -> None:
        if node.exc is not None:
            self._two(node.exc, node.cause)

    def _assert(self, node: ast.Assert) -> None:
        self._two(node.test, node.msg)

    def _nothing(self, node: ast.stmt) -> None:
        pass

    def _init_stores(self, node: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str) -> tuple[tuple[str, str], ...]:
        """FunctionSummary.stores: `self.attr = a.b` statements of the body itself (one target,
        a dotted value); none where the body follows the colon on the def's line (libcst's
        SimpleStatementSuite, not a block)."""
        first = node.body[0]
        start = self.line_starts[first.lineno - 1]
        if self.source[start:start + first.col_offset].strip():
            return ()
        found: list[tuple[str, str]] = []
        for statement in node.body:
            if type(statement) is ast.Assign and len(statement.targets) == 1:
                target = statement.targets[0]
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == self_name:
                    value = statement.value
                    written = _SINGLETONS[value.value] if type(value) is ast.Constant and _is_singleton(value.value) \
                        else _dotted(value)  # (`None` is a Name to libcst, which model_config matches it with)
                    if written is not None:
                        found.append((target.attr, written))
        return tuple(found)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        kinds = self.scope_kinds
        in_class = bool(kinds) and kinds[-1] == "class"
        parent = self.function_stack[-1] if "function" in kinds else -1
        args = node.args
        self_name = None
        if in_class and not any(_dotted(d) in ("staticmethod", "classmethod") for d in node.decorator_list):
            first = args.posonlyargs or args.args
            self_name = first[0].arg if first else None
        params = tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
        params += tuple(a.arg for a in (args.vararg, args.kwarg) if a is not None)
        if type(node) is ast.AsyncFunctionDef or len(set(params)) != len(params) or getattr(node, "type_params", None):
            self.refusable = True  # `await` and async generators; `def f(a, a)`; `def f[T]()` (3.12)
        index = len(self.functions)
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        named = [(a, d, True) for a, d in zip(positional, defaults)]
        named += [(a, d, False) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
        signature = tuple((a.arg, self.text(a.annotation) if a.annotation is not None else None,
                           self.text(d) if d is not None else None, is_positional) for a, d, is_positional in named)
        info = _Function(self._prefix() + node.name, node.name, self.class_stack[-1] if in_class else -1,
                         parent, self_name, params,
                         self._at_sign_line(node.decorator_list[0]) if node.decorator_list else node.lineno,
                         tuple(self.text(d) for d in node.decorator_list), signature, node.end_lineno or node.lineno,
                         in_class and _only_raises(node.body),
                         self._init_stores(node, self_name) if node.name == "__init__" and self_name else ())
        self.functions.append(info)
        self.function_nodes.append(node)
        self.leading.update(leading_declarations(node.body))
        if in_class:
            pass  # methods are read back from class_index, in this same order
        elif not kinds:
            self.imports.local_defs.add(node.name)
        elif kinds[-1] == "function":
            enclosing = self.functions[parent]
            enclosing.nested.append(index)
            enclosing.assigns.setdefault(node.name, [])
        self._decorators(node, index, parent)
        self.function_stack.append(index)
        kinds.append("function")
        outer_fn, outer_scope, outer_guards = self.fn, self.scope, self.guards_now
        self.fn, self.scope = info, index
        self.guard_frames.append([])
        self.guards_now = ()
        self.header_depth += 1  # its header runs in the enclosing scope: no `yield` of its own there
        for decorator in node.decorator_list:
            self.expr(decorator)
        self._arguments(args)
        if node.returns is not None:
            self.expr(node.returns)
        self.header_depth -= 1
        # A def's body runs when it is called: the loops and grad switches around the def are not
        # around its statements (its own grad decorators are).
        outer = self.loops, self.grad_off
        self.loops, self.grad_off = [], int(any(self._switches_grad_off(d) for d in node.decorator_list))
        own = self._enter_code()
        self._block(node.body)
        self._leave_code(own)
        self.loops, self.grad_off = outer
        self.guard_frames.pop()
        self.fn, self.scope, self.guards_now = outer_fn, outer_scope, outer_guards
        kinds.pop()
        self._learn_helper(node, index, parent, in_class)
        self.function_stack.pop()

    def _learn_helper(self, node: ast.FunctionDef | ast.AsyncFunctionDef, index: int, parent: int,
                      in_class: bool) -> None:
        """A def that compiles its parameter is a wrapper; one that returns such a def of its own
        is a factory (compilers.py). Module-level defs are helpers by name; a wrapper nested in
        a def is known to that def only; a wrapper method to its class's methods, through
        `self` (_method_helper_calls)."""
        compiled = self.compiled_params.pop(index, None)
        inner = self.inner_wrappers.pop(index, {})
        if in_class:
            learnt = self.method_helpers[-1] if self.method_helpers else None
            fn = self.functions[index]
            if learnt is not None and compiled is not None and fn.self_name is not None and compiled[0] > 0:
                learnt[0][node.name] = Compiler("wrapper", compiled[0] - 1, compiled[1])  # called bound: no `self`
            return
        helper: Compiler | None = None
        if compiled is not None:
            helper = Compiler("wrapper", *compiled)
        elif inner:  # (the body is searched for `return wrap` only where it defines a wrapper)
            returned = [inner[name] for name in returned_names(node.body) if name in inner]
            if returned:
                options = returned[0].options
                helper = Compiler("factory", 0, "" if "**" in options else options)
        if helper is None:
            return
        if parent == -1:
            self.compilers[node.name] = helper
        else:
            self.inner_wrappers.setdefault(parent, {})[node.name] = helper

    def _learn_alias(self, name: str, value: ast.expr, unconditional: bool) -> None:
        """A module-level `name = ...` makes `name` a compile alias (compilers.py), or, bound
        unconditionally to something else, no helper any more (as when the module runs); bound
        so in one arm of an `if` or in a `try`'s handler it is the other choice, and the alias
        stays (`if USE: compiler = torch.compile` / `else: compiler = lambda fn: fn`)."""
        alias = alias_of(value, self.resolve, self.text)
        if alias is not None:
            self.compilers[name] = alias
        elif unconditional:
            self.compilers.pop(name, None)

    def _helper(self, expr: ast.expr, kinds: tuple[str, ...]) -> Compiler | None:
        """The compile helper `expr` names, when it is one of `kinds`."""
        if type(expr) is not ast.Name:
            return None
        name: str = expr.id  # type: ignore[attr-defined]
        helper = self.compilers.get(name)
        fn = self.fn
        if helper is None or helper.kind not in kinds or (fn is not None and (name in fn.params or name in fn.assigns)):
            return None  # (a parameter or local of the same name hides the module's helper)
        return helper

    def _decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef, index: int, parent: int) -> None:
        for decorator in node.decorator_list:
            expr = decorator
            call_args: list[tuple[Optional[str], ast.expr]] = []
            if isinstance(expr, ast.Call):
                call_args = _call_args(expr)
                expr = expr.func
            resolved = self.resolve(expr)
            # A compile helper: `@maybe_compile`; `@compile_with(...)`, `@compiler(mode=...)` (called for options)
            helper = self._helper(expr, ("factory", "alias") if expr is not decorator else ("alias", "wrapper"))
            if helper is not None and helper.position == 0:
                options = helper.options or self.text(decorator)
            elif resolved in COMPILE_NAMES or resolved in OPTIMIZE_NAMES:
                options = self.text(decorator)
            else:
                options = None
            if options is not None:
                self.sites.append(SiteSummary(self._at_sign_line(decorator), None, index, parent, False, options))
                if parent == -1 and not (self.scope_kinds and self.scope_kinds[-1] == "class"):
                    self.compiled_names.append(CompiledName(node.name, node.name, options, self.place(decorator)))
            elif resolved in DISABLE_NAMES:
                recursive = all(
                    not (isinstance(value, ast.Constant) and value.value is False)
                    for keyword, value in call_args if keyword == "recursive"
                )
                self.disabled.append((index, recursive))

    def _at_sign_line(self, decorator: ast.expr) -> int:
        """libcst places a decorator at its `@`, ast at the expression after it."""
        at = self.line_starts[decorator.lineno - 1] + decorator.col_offset - 1
        while at >= 0 and self.source[at] in b" \t\f\r\n(\\":
            at -= 1
        if at >= 0 and self.source[at] == 64:  # "@"
            return bisect.bisect_right(self.line_starts, at)
        return decorator.lineno

    def _arguments(self, args: ast.arguments) -> None:
        """Annotations and defaults, parameter by parameter (libcst's order)."""
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        pairs = list(zip(positional, defaults))
        if args.vararg is not None:
            pairs.append((args.vararg, None))
        pairs += list(zip(args.kwonlyargs, args.kw_defaults))
        if args.kwarg is not None:
            pairs.append((args.kwarg, None))
        for arg, default in pairs:
            if arg.annotation is not None:
                self.expr(arg.annotation)
            if default is not None:
                self.expr(default)

    def _class(self, node: ast.ClassDef) -> None:
        index = len(self.classes)
        info = _Class(self._prefix() + node.name, node.name, tuple(self.text(_unstarred(b)) for b in node.bases),
                      self._at_sign_line(node.decorator_list[0]) if node.decorator_list else node.lineno,
                      node.end_lineno or node.lineno)
        self.classes.append(info)
        for statement in node.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name):
                info.body.append((statement.targets[0].id, self.text(statement.value), None))
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.simple:
                value = self.text(statement.value) if statement.value is not None else None
                info.body.append((statement.target.id, value, self.text(statement.annotation)))
        if not self.scope_kinds:
            self.imports.local_defs.add(node.name)
        self.class_stack.append(index)
        self.scope_kinds.append("class")
        self.method_helpers.append(({}, []) if self.tracks and self._mentions(node, b"compile") else None)
        outer_fn, outer_scope = self.fn, self.scope
        self.fn, self.scope = None, -1
        if getattr(node, "type_params", None) or repeats_a_keyword(node.keywords):
            self.refusable = True
        for decorator in node.decorator_list:
            self.expr(decorator)
        for base in node.bases:
            self.expr(base)
        for keyword in node.keywords:
            self.expr(keyword.value)
        own = self._enter_code()
        self._block(node.body)
        self._leave_code(own)
        self.fn, self.scope = outer_fn, outer_scope
        self._method_helper_calls()
        self.scope_kinds.pop()
        self.class_stack.pop()

    def _mentions(self, node: ast.stmt, word: bytes) -> bool:
        """Whether a statement's lines hold `word` (searched in place, not copied)."""
        starts, end = self.line_starts, node.end_lineno or node.lineno
        return self.source.find(word, starts[node.lineno - 1], starts[end] if end < len(starts) else len(self.source)) >= 0

    def _method_helper_calls(self) -> None:
        """The class's calls of its own wrapper methods (`self.maybe_compile(self.step)`), as
        compile sites: a method that compiles its parameter is a helper to the class's methods."""
        learnt = self.method_helpers.pop()
        if learnt is None:
            return
        helpers, calls = learnt
        for name, call, scope in calls:
            helper = helpers.get(name)
            target = compiled_argument(call, helper) if helper is not None else None
            if helper is not None and target is not None:
                options = helper.options or self.text(call)
                self.sites.append(SiteSummary(call.lineno, self.text(target), -1, scope, False, options,
                                              self._start(target)))

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.imports.add_ast_import(node)
        if type(node) is ast.ImportFrom and (
                (node.module == "__future__" and id(node) not in self.future_heads)  # late, unknown or `braces`
                or (self.scope_kinds and node.names[0].name == "*")):  # `import *` in a def or class
            self.refusable = True

    def _declared(self, node: ast.Global | ast.Nonlocal, other: Iterable[str]) -> _Function | None:
        """The def a `global`/`nonlocal` is in, when the compiler takes it whatever follows: no use
        of its names precedes it (it opens the def, or they are not written before it in the
        def), they are not its parameters nor declared the other way (`other`), nor dunders
        (`__class__`, which `super()` reads unwritten); None (refusable) for any other."""
        fn = self.fn
        if self.refusable:
            return None  # the compiler judges the file anyway
        if fn is None or any(name in fn.params or name in other or name.startswith("__") for name in node.names) or (
                id(node) not in self.leading and self._named_before(node)):
            self.refusable = True
            return None
        return fn

    def _named_before(self, node: ast.Global | ast.Nonlocal) -> bool:
        """Whether the def being walked may name `node`'s names before it (from its `def` line);
        yes once the searches of a file have read four times its size (a huge def with a
        `global` on every line must not cost its size squared)."""
        start = self.line_starts[self.function_nodes[self.scope].lineno - 1]
        end = self.line_starts[node.lineno - 1] + node.col_offset
        self.scan_budget -= end - start
        return self.scan_budget < 0 or may_be_named_in(self.source[start:end], node.names)

    def _global(self, node: ast.Global) -> None:
        self._declared(node, self.fn.nonlocal_names if self.fn is not None else ())
        fn = self._current()
        if fn is not None:
            fn.global_names.update(dict.fromkeys(node.names))

    def _nonlocal(self, node: ast.Nonlocal) -> None:
        if self._declared(node, self.fn.global_names if self.fn is not None else ()) is not None:
            self.pending_nonlocals.append((node.names, self.function_stack[:-1]))  # bound around it?
        fn = self._current()
        if fn is not None:
            fn.nonlocal_names.update(node.names)

    def _nonlocals_bound(self) -> bool:
        """Whether every `nonlocal` name is bound in a def around its own, nearest first: a
        `global` there hides outer bindings; a `nonlocal` there looks further out."""
        bound: dict[int, set[str]] = {}
        for names, around in self.pending_nonlocals:
            for name in names:
                for index in reversed(around):
                    fn = self.functions[index]
                    if name in fn.global_names:
                        return False
                    if name in fn.nonlocal_names:
                        continue
                    if index not in bound:
                        bound[index] = bound_names(self.function_nodes[index])
                    if name in bound[index]:
                        break
                else:
                    return False
        return True

    def _implicit(self, receiver: ast.expr, method: str) -> None:
        """`receiver.method`, a dunder Python calls for a statement on a plain name (not `self`:
        a class's own __setattr__ on `self.x = v` is the class's business, not a new callee)."""
        fn = self._current()
        if fn is not None and not self.untraced_depth and isinstance(receiver, ast.Name) and receiver.id != fn.self_name:
            fn.implicit.append(f"{receiver.id}.{method}")

    def _assign(self, node: ast.Assign) -> None:
        value = self.text(node.value)
        for target in node.targets:
            if self.tracks:
                self._write(target, node.value, node)
            if isinstance(target, ast.Attribute):
                self._implicit(target.value, "__setattr__")
        for target in node.targets:
            self._bind(target, value, False)
        if self.tracks:
            self._bind_compiled(node.targets, node.value)
            if not self.scope_kinds and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
                self._learn_alias(node.targets[0].id, node.value, node is self.top_statement)  # type: ignore[attr-defined]
        for target in node.targets:
            self.expr(target)
        self.expr(node.value)

    def _ann_assign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, self.text(node.value), False)
        self.expr(node.target)
        fn = self.fn
        if fn is not None and type(node.target) is ast.Name and (
                node.target.id in fn.global_names or node.target.id in fn.nonlocal_names):
            self.refusable = True  # "annotated name 'x' can't be global"
        self.header_depth += 1  # an annotation: no `yield`, `await` or `:=` (some Pythons' rule)
        self.expr(node.annotation)
        self.header_depth -= 1
        if node.value is not None:
            self.expr(node.value)

    def _aug_assign(self, node: ast.AugAssign) -> None:
        if self.tracks:
            self._write(node.target, node.value, node)
        self._bind(node.target, self.text(node.value), False)
        self.expr(node.target)
        self.expr(node.value)

    def _for(self, node: ast.For | ast.AsyncFor) -> None:
        if type(node) is ast.AsyncFor:
            self.refusable = True  # outside an async def
        self._implicit(node.iter, "__iter__")
        self._bind(node.target, self.text(node.iter), True)
        self.expr(node.target)
        self.expr(node.iter)
        self.loops.append(Loop(self.text(node.target), self.text(node.iter)))
        self._loop_body(node.body)
        self.loops.pop()
        self._block(node.orelse)

    def _loop_body(self, body: list[ast.stmt]) -> None:
        """A loop's body (not its `else:`, where `break` leaves no loop of its own)."""
        self.loop_depth += 1
        self._weighed_block(body, 1)
        self.loop_depth -= 1

    def _weighed_block(self, body: list[ast.stmt], weight: int) -> None:
        self._nest(weight)
        self._block(body)
        self.block_weight -= weight

    def _nest(self, weight: int) -> None:
        """`weight` more of the blocks the compiler counts against its limit (20 in a code object)."""
        self.block_weight += weight
        if self.block_weight >= BLOCK_MARGIN:
            self.refusable = True

    def _enter_code(self) -> tuple[int, int, int]:
        """A def's or class's body: a code object of its own (no loop, no block, no header
        around its statements); what to restore after it."""
        own = self.loop_depth, self.block_weight, self.header_depth
        self.loop_depth = self.block_weight = self.header_depth = 0
        return own

    def _leave_code(self, own: tuple[int, int, int]) -> None:
        self.loop_depth, self.block_weight, self.header_depth = own

    def _try(self, node: ast.Try) -> None:
        if any(handler.type is None for handler in node.handlers[:-1]):
            self.refusable = True  # "default 'except:' must be last"
        self._nest(TRY_WEIGHT)  # its body, handler and cleanup blocks, conservatively
        self._generic(node)
        self.block_weight -= TRY_WEIGHT

    def _refused_kind(self, node: ast.stmt) -> None:
        """`except*` (no `break` in it), `type X = ...`: rare, and judged by the compiler whole."""
        self.refusable = True
        self._generic(node)

    def _match(self, node: ast.stmt) -> None:
        if match_may_be_refused(node):
            self.refusable = True
        self._generic(node)

    def _jump(self, node: ast.Break | ast.Continue) -> None:
        if not self.loop_depth:
            self.refusable = True

    def _if(self, node: ast.If) -> None:
        known = self._while_compiling(node.test)
        self.expr(node.test)
        self._enter_arm(node.test, True)
        if known is False:
            self._untraced_block(node.body)
        else:
            self._block(node.body)
        self._leave_arm()
        if node.orelse:
            self._enter_arm(node.test, False)
            if known is True:
                self._untraced_block(node.orelse)
            else:
                self._block(node.orelse)
            self._leave_arm()

    # --- guards (project.guards_of's twin) -------------------------------------------------
    def _enter_arm(self, test: ast.expr, holds: bool) -> None:
        if self.fn is not None:  # module-level and class-body tests guard nothing kept
            # read when a call in the arm first asks (_guards): a third of them hold none
            self.guard_frames[-1].append(_Arm(test, holds))
            self.guards_now = None

    def _leave_arm(self) -> None:
        if self.fn is not None:
            self.guard_frames[-1].pop()
            self.guards_now = None

    def _guards(self) -> Guards:
        """A tuple of its own for each statement: shared, it would be pickled once for all (the
        summary's bytes, and so its digest, would depend on how its tuples are shared)."""
        if self.guards_now is None:  # flattened once per arm, not at each call in it
            self.guards_now = tuple(guard for arm in self.guard_frames[-1] for guard in self._arm_guards(arm))
        return (*self.guards_now,)

    def _arm_guards(self, arm: _Arm) -> list[Guard]:
        if arm.guards is None:  # once per arm: its guards are the same objects at every call in it
            arm.guards = self._guards_of(arm.test, arm.holds)
        return arm.guards

    def _guards_of(self, test: ast.expr, holds: bool) -> list[Guard]:
        return guards_of(test, holds, self.text)

    def _while_compiling(self, test: ast.expr) -> bool | None:
        """patterns.value_while_compiling, on an ast test."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._while_compiling(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):  # libcst nests `a or b or c` to the left; same answer
            known = [self._while_compiling(value) for value in test.values]
            decisive = isinstance(test.op, ast.Or)
            if decisive in known:
                return decisive
            return None if None in known else not decisive
        if isinstance(test, ast.Call) and not test.args and not test.keywords:
            return called_while_compiling(self.resolve(test.func))
        return None

    def _leaves(self, statement: ast.stmt) -> bool:
        """patterns.leaves, on an ast statement: whether it always leaves its block while Dynamo
        traces (`if not self.training or is_compiling(): return x`)."""
        kind = type(statement)
        if kind is ast.Return or kind is ast.Raise or kind is ast.Continue or kind is ast.Break:
            return True
        if kind is not ast.If:
            return False
        known = self._while_compiling(statement.test)  # type: ignore[attr-defined]
        arms = [statement.body] if known is True else [statement.orelse] if known is False \
            else [statement.body, statement.orelse]  # type: ignore[attr-defined]
        return all(any(map(self._leaves, arm)) for arm in arms)

    # --- bindings ---------------------------------------------------------------------------
    def _bind(self, target: ast.expr, value: Expr, iterated: bool) -> None:
        fn = self._current()
        if isinstance(target, ast.Attribute) and fn is not None and fn.class_index >= 0:
            if isinstance(target.value, ast.Name) and target.value.id == fn.self_name:
                stored = fn.name if isinstance(value, str) and value.isidentifier() else None  # `self.w = w`
                self.classes[fn.class_index].bind(target.attr, value, iterated, self._guards(), stored)
                return
        if fn is not None:
            bindings = fn.assigns
        elif not self.scope_kinds:
            bindings = self.assigns
        else:
            return
        _bind_targets(target, value, iterated, bindings)

    # --- expressions ------------------------------------------------------------------------
    def expr(self, node: ast.expr) -> None:
        """Calls and comprehension bindings inside `node`, in libcst's visit order."""
        kind = type(node)
        while kind is ast.Attribute:  # (ast's classes are not subclassed: `type` is exact)
            node = node.value  # type: ignore[attr-defined]
            kind = type(node)
        handler = _EXPRESSIONS.get(kind, _Walker._fields)
        if handler is not None:  # None: a Name or a Constant, which hold nothing
            handler(self, node)

    def _exprs(self, nodes: list[ast.expr]) -> None:
        for node in nodes:
            if type(node) not in _LEAVES:  # most are: no call made for them
                self.expr(node)

    def _fields(self, node: ast.expr) -> None:
        """An expression that holds expressions only, in _fields (source) order."""
        kind = type(node)
        fields = _EXPR_FIELDS.get(kind)
        if fields is None:
            fields = _EXPR_FIELDS[kind] = tuple(f for f in kind._fields if f not in _NOT_CHILDREN)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if item is not None and type(item) not in _LEAVES:
                        self.expr(item)
            elif value is not None and type(value) not in _LEAVES:
                self.expr(value)

    def _two(self, first: ast.expr, second: ast.expr | None) -> None:
        if type(first) not in _LEAVES:
            self.expr(first)
        if second is not None and type(second) not in _LEAVES:
            self.expr(second)

    def _binop(self, node: ast.BinOp) -> None:
        self._two(node.left, node.right)

    def _subscript(self, node: ast.Subscript) -> None:
        self._two(node.value, node.slice)

    def _formatted(self, node: ast.FormattedValue) -> None:
        self._two(node.value, node.format_spec)

    def _elts(self, node: ast.Tuple | ast.List | ast.Set) -> None:
        starred = [item for item in node.elts if type(item) is ast.Starred]
        if not starred:
            self._exprs(node.elts)
            return
        if type(getattr(node, "ctx", None)) is ast.Store and (len(starred) > 1 or len(node.elts) > 255):
            self.refusable = True  # `*a, *b = x`; a star after 255 targets
        self._exprs([item.value if type(item) is ast.Starred else item for item in node.elts])  # type: ignore[attr-defined]

    def _starred(self, node: ast.Starred) -> None:
        """A star outside a display and a call's arguments (those take theirs off): `*a = x`."""
        self.refusable = True
        self.expr(node.value)

    def _yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        if self.fn is None or self.header_depth or self.comprehensions:  # a module, a class body, a lambda, ...
            self.refusable = True
        if node.value is not None:
            self.expr(node.value)

    def _await(self, node: ast.Await) -> None:
        self.refusable = True  # outside an async def (every async def is judged whole)
        self.expr(node.value)

    def _named(self, node: ast.NamedExpr) -> None:
        if self.header_depth or self.iterable_depth or (self.comprehensions and (
                self.fn is None or type(node.target) is not ast.Name  # (a class body's; the grammar's Name)
                or node.target.id in self._iterated_names())):
            self.refusable = True  # in a lambda or annotation; in a comprehension's iterable, rebinding its variable
        self.expr(node.value)

    def _iterated_names(self) -> set[str]:
        """comprehension_targets of the outermost comprehension around, once per comprehension
        (a huge one full of `:=` must not cost its size squared)."""
        outermost = self.comprehensions[0]
        if self.iterated is None or self.iterated[0] is not outermost:
            self.iterated = (outermost, comprehension_targets(outermost))
        return self.iterated[1]

    def _values(self, node: ast.JoinedStr | ast.BoolOp) -> None:
        self._exprs(node.values)

    def _operand(self, node: ast.UnaryOp) -> None:
        if type(node.operand) not in _LEAVES:
            self.expr(node.operand)

    def _compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for op, left in zip(node.ops, operands):
            method = _COMPARE_DUNDERS.get(type(op))
            if method is not None:
                self._implicit(left, method)
        self._exprs(operands)

    def _if_exp(self, node: ast.IfExp) -> None:
        self._enter_arm(node.test, True)
        self.expr(node.body)
        self._leave_arm()
        self.expr(node.test)
        self._enter_arm(node.test, False)
        self.expr(node.orelse)
        self._leave_arm()

    def _dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values):
            if key is not None:
                self.expr(key)
            self.expr(value)

    def _lambda(self, node: ast.Lambda) -> None:
        args = node.args
        names = parameter_names(args)
        if len(set(names)) != len(names):
            self.refusable = True
        self.header_depth += 1
        self._arguments(args)
        self.expr(node.body)
        self.header_depth -= 1

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        self.comprehensions.append(node)
        self._comprehension_parts(node)
        self.comprehensions.pop()

    def _comprehension_parts(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        if isinstance(node, ast.DictComp):
            self.expr(node.key)
            self.expr(node.value)
        else:
            self.expr(node.elt)
        for generator in node.generators:
            if generator.is_async:
                self.refusable = True
            self._bind(generator.target, self.text(generator.iter), True)
            self.expr(generator.target)
            self.iterable_depth += 1
            self.expr(generator.iter)
            self.iterable_depth -= 1
            for condition in generator.ifs:
                self.expr(condition)

    def _call(self, node: ast.Call) -> None:
        func = node.func
        # the callee's chain and what it resolves to, asked once per call
        name = func.id if type(func) is ast.Name else _dotted(func)  # type: ignore[attr-defined]
        resolved = self.imports.resolve_dotted(name) if name is not None else None
        # (keyword, layout mark, value) in source order, as libcst's Call.args: `*x` and `**x`
        # have no keyword and stand for x; the mark is summary.CallArgs's ("*", "**", keyword).
        items: list[tuple[str | None, str | None, ast.expr]] = [
            (None, "*", arg.value) if type(arg) is ast.Starred else (None, None, arg) for arg in node.args  # type: ignore[attr-defined]
        ]
        if node.keywords:
            items += [(keyword.arg, keyword.arg or "**", keyword.value) for keyword in node.keywords]
            if len(node.keywords) > 1 and repeats_a_keyword(node.keywords):
                self.refusable = True
            if node.args:  # the two lists interleave in the source
                where = [(arg.lineno, arg.col_offset) for arg in node.args]
                where += [(keyword.lineno, keyword.col_offset) for keyword in node.keywords]
                items = [item for _, item in sorted(zip(where, items), key=lambda pair: pair[0])]
        fn = self.fn
        if fn is not None:
            if type(func) is ast.Attribute and func.attr == "append":
                self._appended(fn, node)
            if not self.untraced_depth:
                self._record_call(fn, node, name, resolved, items)
        if resolved in COMPILE_NAMES or type(func) is ast.Call or (type(func) is ast.Attribute and func.attr == "compile") \
                or (type(func) is ast.Name and func.id in self.compilers):  # type: ignore[attr-defined]
            self._compile_call(node, fn, resolved, items)
        elif self.method_helpers and fn is not None and type(func) is ast.Attribute \
                and type(func.value) is ast.Name and func.value.id == fn.self_name:  # type: ignore[attr-defined]
            learnt = self.method_helpers[-1]  # `self.helper(...)`: matched when the class ends
            if learnt is not None and fn.class_index == self.class_stack[-1] and node.args:
                learnt[1].append((func.attr, node, self.scope))  # type: ignore[attr-defined]
        # Not a class (`Config(...)`): a compiled callable is bound to a lowercase name.
        if type(func) is ast.Name and node.args and func.id in self.from_names and not func.id[:1].isupper():
            self.imported_calls.append(CompiledCall(
                func.id, self.place(node), tuple((mark, self.text(value)) for _, mark, value in items),
                tuple(self.loops), self.grad_off > 0))
        if name is not None:
            if self.tracks:  # (a string of its own, as `calls` has: see _guards)
                self.dotted_calls.append((_dotted(func), node, self.scope, tuple(self.loops), self.grad_off > 0))
        else:  # a Name/Attribute chain holds no call
            self.expr(func)
        for _, _, value in items:
            if type(value) not in _LEAVES:
                self.expr(value)

    def _record_call(self, fn: _Function, node: ast.Call, name: str | None, resolved: str | None,
                     items: list[tuple[str | None, str | None, ast.expr]]) -> None:
        """The call in its function's calls, with its guards, arguments and refs."""
        guards = self._guards() if self.guards_now != () else ()
        if guards:
            fn.call_guards.append((len(fn.calls), guards))
        fn.calls.append(name if name is not None else self.text(node.func))
        # summary.CallArgs: the text of each Name/Attribute argument (others None), () when none is
        # one; a constructor's call passed up to a base class's `__init__` too (`super().__init__(
        # Backbone(), rpn)`: model_config.Defaults reads what the base stores).
        layout: list[tuple[str | None, Expr | None]] = []
        dotted_args = False
        passes_up = type(node.func) is ast.Attribute and node.func.attr == "__init__"  # type: ignore[attr-defined]
        for _, mark, value in items:
            kind = type(value)
            if kind is ast.Name or kind is ast.Attribute or (passes_up and kind is ast.Call):
                layout.append((mark, self.text(value)))
                dotted_args = True
            else:
                layout.append((mark, None))
        fn.call_args.append(tuple(layout) if dotted_args else ())
        if not (resolved in DISABLE_NAMES and self._disables_its_argument(items)):
            for (_, text), (_, _, value) in zip(layout, items):
                if text is not None and type(value) is not ast.Call:  # an attribute's text made again, not shared: see _guards
                    fn.refs.append(text if type(value) is ast.Name else self.text(value))
                elif type(value) is ast.Constant and _is_singleton(value.value):  # type: ignore[attr-defined]
                    fn.refs.append(_SINGLETONS[value.value])  # type: ignore[attr-defined]
        if fn.class_index >= 0 and len(items) >= 2:
            self._self_registration(fn, node, items)

    def _disables_its_argument(self, items: list[tuple[str | None, str | None, ast.expr]]) -> bool:
        """`torch.compiler.disable(fn)(x)` does not reach fn (Dynamo calls it untraced)."""
        return all(not (isinstance(value, ast.Constant) and value.value is False)
                   for keyword, _, value in items if keyword == "recursive")

    def _appended(self, fn: _Function, node: ast.Call) -> None:
        """`name.append(x)` on a bound local binds `[x]` (the list then holds it)."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "append" and isinstance(func.value, ast.Name)):
            return
        if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
            return
        name = func.value.id
        if name in fn.assigns and name not in fn.global_names:
            fn.assigns[name].append((f"[{self.text(node.args[0])}]", False))

    def _self_registration(self, fn: _Function, node: ast.Call,
                           items: list[tuple[str | None, str | None, ast.expr]]) -> None:
        func = node.func
        if fn.class_index < 0 or not isinstance(func, ast.Attribute):
            return
        if not (isinstance(func.value, ast.Name) and func.value.id == fn.self_name):
            return
        if func.attr not in _SELF_REGISTRATIONS or len(items) < 2:
            return
        first = items[0][2]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            return
        if is_concatenation(self.text(first)):
            return  # libcst's SimpleString: one literal, not "a" "b" or an f-string
        cls = self.classes[fn.class_index]
        cls.bind(first.value, self.text(items[1][2]), False, self._guards())
        if func.attr in ("register_buffer", "register_parameter"):
            cls.tensor_attrs[first.value] = None

    def _compile_call(self, node: ast.Call, fn: _Function | None, resolved: str | None,
                      items: list[tuple[str | None, str | None, ast.expr]]) -> None:
        """A compile site or compiled name; asked only of a call of a compile function, of an
        `x.compile` attribute, or of a call's result (`optimize(...)(f)`)."""
        func = node.func
        scope = self.scope
        if isinstance(func, ast.Attribute) and func.attr == "compile" and not node.args \
                and (not items or resolved not in COMPILE_NAMES):
            # `net.compile()`; with options (`net.compile(mode=...)`) it is a compiled name too.
            if not items:
                self.sites.append(SiteSummary(node.lineno, self.text(func.value), -1, scope, True, self.text(node),
                                              self._start(func.value)))
            name = _dotted(func.value)
            if name is not None:
                self.compiled_names.append(CompiledName(name, name, self.text(node), self.place(node)))
            return
        positional = bool(items) and items[0][0] is None
        if resolved in COMPILE_NAMES and positional:
            self.sites.append(SiteSummary(node.lineno, self.text(items[0][2]), -1, scope, False, self.text(node),
                                          self._start(items[0][2])))
            self._compiles_parameter(fn, items[0][2], self.text(node))
        elif isinstance(func, ast.Call) and positional:
            inner = self.resolve(func.func)
            factory = self._helper(func.func, ("factory", "alias"))
            if inner in COMPILE_NAMES or inner in OPTIMIZE_NAMES or factory is not None:
                text = factory.options if factory is not None and factory.options else self.text(node)
                self.sites.append(SiteSummary(node.lineno, self.text(items[0][2]), -1, scope, False, text,
                                              self._start(items[0][2])))
        else:
            helper = self._helper(func, ("alias", "wrapper"))
            target = compiled_argument(node, helper) if helper is not None else None
            if helper is not None and target is not None:  # `dynamic_compile(f)`, `maybe_compile(model)`
                options = helper.options or self.text(node)
                self.sites.append(SiteSummary(node.lineno, self.text(target), -1, scope, False, options,
                                              self._start(target)))
                self._compiles_parameter(fn, target, options)

    def _compiles_parameter(self, fn: _Function | None, target: ast.expr, options: str) -> None:
        """`torch.compile(fn)` (or a helper's call) on a positional parameter of the def being
        walked: the def is a wrapper (see _learn_helper), which compiles that parameter with
        `options` (a wrapper of a wrapper passes on the inner one's)."""
        if fn is None or type(target) is not ast.Name:
            return
        positional = [name for name, _, _, is_positional in fn.signature if is_positional]
        if target.id in positional:  # type: ignore[attr-defined]
            self.compiled_params.setdefault(self.scope, (positional.index(target.id), options))  # type: ignore[attr-defined]



# The method a comparison calls on its left operand first.
_COMPARE_DUNDERS = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__",
                    ast.GtE: "__ge__"}

# What `expr` does with each kind of expression: None for those that hold no expression; a
# kind not here has its fields walked (_Walker._fields).
_EXPRESSIONS: dict[type, Callable[[_Walker, ast.expr], None] | None] = {
    ast.Name: None, ast.Constant: None, ast.Call: _Walker._call, ast.Compare: _Walker._compare,  # type: ignore[dict-item]
    ast.IfExp: _Walker._if_exp, ast.Dict: _Walker._dict, ast.Lambda: _Walker._lambda,  # type: ignore[dict-item]
    ast.BinOp: _Walker._binop, ast.Subscript: _Walker._subscript, ast.FormattedValue: _Walker._formatted,  # type: ignore[dict-item]
    ast.Tuple: _Walker._elts, ast.List: _Walker._elts, ast.Set: _Walker._elts,  # type: ignore[dict-item]
    ast.JoinedStr: _Walker._values, ast.BoolOp: _Walker._values, ast.UnaryOp: _Walker._operand,  # type: ignore[dict-item]
    **{kind: _Walker._comprehension for kind in _COMPREHENSIONS},  # type: ignore[dict-item]
    ast.Starred: _Walker._starred, ast.Yield: _Walker._yield, ast.YieldFrom: _Walker._yield,  # type: ignore[dict-item]
    ast.Await: _Walker._await, ast.NamedExpr: _Walker._named,  # type: ignore[dict-item]
}
_LEAVES = frozenset(kind for kind, handler in _EXPRESSIONS.items() if handler is None)

_STATEMENTS: dict[type, Callable[[_Walker, ast.AST], None]] = {
    ast.FunctionDef: _Walker._function, ast.AsyncFunctionDef: _Walker._function,  # type: ignore[dict-item]
    ast.ClassDef: _Walker._class, ast.Import: _Walker._import, ast.ImportFrom: _Walker._import,  # type: ignore[dict-item]
    ast.Assign: _Walker._assign, ast.AnnAssign: _Walker._ann_assign,  # type: ignore[dict-item]
    ast.AugAssign: _Walker._aug_assign, ast.For: _Walker._for, ast.AsyncFor: _Walker._for,  # type: ignore[dict-item]
    ast.If: _Walker._if, ast.Global: _Walker._global, ast.Nonlocal: _Walker._nonlocal,  # type: ignore[dict-item]
    ast.While: _Walker._while, ast.With: _Walker._with, ast.AsyncWith: _Walker._with,  # type: ignore[dict-item]
    # The commonest of the others, which hold expressions only (the rest: _Walker._generic).
    ast.Expr: _Walker._value_statement, ast.Return: _Walker._return,  # type: ignore[dict-item]
    ast.Raise: _Walker._raise, ast.Assert: _Walker._assert, ast.Try: _Walker._try,  # type: ignore[dict-item]
    ast.Pass: _Walker._nothing, ast.Break: _Walker._jump, ast.Continue: _Walker._jump,  # type: ignore[dict-item]
    **{kind: _Walker._refused_kind for kind in map(vars(ast).get, ("TryStar", "TypeAlias"))  # type: ignore[dict-item]
       if kind is not None},  # (3.11, 3.12)
    **({ast.Match: _Walker._match} if hasattr(ast, "Match") else {}),  # type: ignore[dict-item]  (3.10)
}



# Roots whose names are never a project's compiled callable: their calls are not recorded.
_EXTERNAL_ROOTS = frozenset(sys.stdlib_module_names) | {"torch", "numpy", "typing_extensions", "__future__"}


def _project_imports(tree: ast.Module) -> set[str]:
    """Names a module-level `from m import name` binds where `m` may be of the project (relative,
    or not the standard library, torch or numpy): their calls may be calls of another module's
    compiled callable."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and (statement.level or
                                                      (statement.module or "").split(".")[0] not in _EXTERNAL_ROOTS):
            names.update(alias.asname or alias.name for alias in statement.names if alias.name != "*")
    return names


# Methods that change a list's length or a dict's keys (both guarded when passed to a compiled call).
_CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "pop", "clear", "remove", "update", "setdefault",
                                 "popitem"})


def _args_text(walker: _Walker, node: ast.Call) -> str:
    """A call's arguments as written, comma-separated (`keyword=value` for keywords)."""
    return ", ".join(walker.text(value) if keyword is None else f"{keyword}={walker.text(value)}"
                     for keyword, value in _arg_items(node))


def _head_in(dotted_name: str, names: set[str]) -> bool:
    """Whether `a.b.c` is one of `names` or an attribute chain below one (`a`, `a.b`)."""
    parts = dotted_name.split(".")
    return any(".".join(parts[:i]) in names for i in range(1, len(parts) + 1))


def _arg_items(node: ast.Call) -> list[tuple[Optional[str], ast.expr]]:
    """A call's arguments in source order, with "*"/"**" marking unpacking (summary.CallArgs)."""
    items: list[tuple[tuple[int, int], Optional[str], ast.expr]] = []
    for arg in node.args:
        star = isinstance(arg, ast.Starred)
        items.append(((arg.lineno, arg.col_offset), "*" if star else None, arg.value if star else arg))  # type: ignore[attr-defined]
    for keyword in node.keywords:
        items.append(((keyword.lineno, keyword.col_offset), keyword.arg or "**", keyword.value))
    items.sort(key=lambda item: item[0])
    return [(keyword, value) for _, keyword, value in items]


def _bind_targets(target: ast.expr, value: Expr, iterated: bool, into: dict[str, list[tuple[Expr, bool]]]) -> None:
    if isinstance(target, ast.Name):
        into.setdefault(target.id, []).append((value, iterated))
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            inner = element.value if isinstance(element, ast.Starred) else element
            _bind_targets(inner, value, True, into)


def _call_args(node: ast.Call) -> list[tuple[Optional[str], ast.expr]]:
    """(keyword, value) in source order, as libcst's Call.args: `*x` and `**x` have no keyword
    and stand for x."""
    items: list[tuple[tuple[int, int], Optional[str], ast.expr]] = []
    for arg in node.args:
        value = arg.value if isinstance(arg, ast.Starred) else arg
        items.append(((arg.lineno, arg.col_offset), None, value))
    for keyword in node.keywords:
        items.append(((keyword.lineno, keyword.col_offset), keyword.arg, keyword.value))
    if node.keywords and node.args:
        items.sort(key=lambda item: item[0])
    return [(keyword, value) for _, keyword, value in items]


def _children_of(value: object) -> Iterator[ast.AST]:
    """A field's nodes: the node, or those of a list."""
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, ast.AST))
    elif isinstance(value, ast.AST):
        yield value


def _is_singleton(value: object) -> bool:
    return value is True or value is False or value is None


def _unstarred(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Starred) else node


_dotted = dotted


def _only_raises(body: list[ast.stmt]) -> bool:
    """A method's stub: its body, a docstring aside, is one `raise` (a base's `raise
    NotImplementedError`, a subclass's `raise AttributeError("not supported")`)."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].exc is not None
