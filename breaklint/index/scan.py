"""The pre-pass over one file: bytes -> text -> `ast` summary, or the reason it has none.

What comes out (`FileFacts`) depends only on the file's bytes and its module name, so it is
cached by content hash and computed in worker processes. The summary travels pickled and
compressed (`summary_blob`: every process holds every file's, a third of the size) and is only
unpickled when a lookup needs the module.
"""

from __future__ import annotations

import ast
import bisect

import hashlib
import io
import pickle
import re
import traceback
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping, NamedTuple, TypeVar

from breaklint.infra.files import NUL_BYTES, ReadProblem, decode_source, read_capped
from breaklint.infra.quiet_ast import parse_module
from breaklint.infra.recursion import with_room
from breaklint.index.def_lines import split_lines
from breaklint.index.imports import base_key
from breaklint.index.region_text import Block, outline
from breaklint.index.summary import ModuleSummary
from breaklint.index.suppress import may_hold_suppressions

if TYPE_CHECKING:
    from breaklint.index.compilers import Compiler

T = TypeVar("T")

@dataclass(frozen=True)
class FileFacts:
    digest: str  # of the bytes (and the module name): the cache key
    problem: ReadProblem | None  # BL001/BL002/BL003; then there is no summary
    summary_blob: bytes  # a pickled ModuleSummary, zlib-compressed (b"" with a problem)
    summary_digest: str  # changes exactly when the summary does
    has_functions: bool
    entry_candidate: bool  # holds a compile site or a class with a `forward`
    maybe_suppressed: bool  # has something like a suppression comment: read them
    size: int = 0  # bytes: big files go first to the workers
    # What a cached result that read this module's `functions` / `classes` by name, or its
    # compile sites, depends on (engine.py, `_fingerprint`), without unpickling the summary.
    function_names: frozenset[str] = frozenset()
    class_names: frozenset[str] = frozenset()
    has_sites: bool = False
    # A digest per part of the index ("imports", "assigns", "sites", "disabled", "defined"), per
    # definition ("functions:Net.forward", "classes:Net") and per top-level definition's text
    # ("text:Net", its lines): a cached result that read one part of this module stands while
    # that part is unchanged (see part_digests, text_digests).
    parts: tuple[tuple[str, str], ...] = ()
    local_defs: frozenset[str] = frozenset()  # the names the import table resolves to this module
    # What makes a file without a region worth the recompile rules (analysis/guards.py): it
    # calls a compiled callable it binds, or one another module binds at module level (its
    # `compiled_exports`, joined by qualified name to an importer's `imported_callees`).
    calls_compiled: bool = False
    compiled_exports: frozenset[str] = frozenset()
    imported_callees: frozenset[str] = frozenset()
    # The statements' outline for region_text (so the check does not parse the file with `ast`
    # again), pickled: every process holds every file's facts, and only the file's own check
    # reads it (b"" when there is no summary).
    outline_blob: bytes = b""
    # Python's compiler is yet to judge the text (scan_text's `defer_compile`): the engine asks
    # it (compiler_verdict) while the regions are computed, and never caches facts before that.
    unjudged: bool = False
    # Compile helpers (index/compilers.py): those this module defines (summary.helpers), and the
    # qualified names it imports with `from m import name` and uses as a decorator; with
    # `imported_callees`, what the engine joins them by (engine.py, `_seed_imported_helpers`).
    helpers: tuple[tuple[str, str, int, str], ...] = ()
    imported_decorators: frozenset[str] = frozenset()
    # (the name a base is known by, the class's qualname) for every base of every class
    # (imports.base_key): which files may define a subclass of a class, without building them
    # (ProjectIndex.subclasses); a result that asked depends on the pairs of that name.
    class_bases: tuple[tuple[str, str], ...] = ()

    def summary(self) -> ModuleSummary:
        return pickle.loads(zlib.decompress(self.summary_blob))

    def blocks(self) -> Block | None:
        return pickle.loads(self.outline_blob) if self.outline_blob else None

def content_digest(data: bytes, module_name: str, is_package: bool) -> str:
    h = hashlib.blake2b(data, digest_size=16)
    h.update(f"\0{module_name}\0{is_package}".encode("utf-8", "surrogatepass"))  # a file name need not be UTF-8
    return h.hexdigest()

def read_bytes(path: Path) -> bytes | ReadProblem:
    return read_capped(path)

def scan_text(text: str, digest: str, module_name: str, is_package: bool, defer_compile: bool = False,
              helpers: Mapping[str, Compiler] | None = None) -> FileFacts:
    """Facts of decoded text (a file's, or an editor buffer's). `defer_compile`: leave Python's
    compiler out (a quarter of the pre-pass) where compiling the text later costs about what
    compiling the tree costs now (see compiled_verdict); the facts say so (`unjudged`). `helpers`:
    compile helpers of other modules, by the names this one imports them as (builder.py)."""
    maybe_suppressed = may_hold_suppressions(text)
    if "\0" in text:  # a buffer gets the verdict the same text gets from disk
        return FileFacts(digest, NUL_BYTES, b"", "", False, False, maybe_suppressed, len(text))
    try:
        summary, blocks, source, starts, unjudged = _summary(text, module_name, is_package, defer_compile, helpers)
    except Exception as error:  # a bug of ours on this one file: BL005 for it, the others go on
        summary = ReadProblem("BL005", f"internal error while indexing this file: {type(error).__name__}: {error}",
                              details="".join(traceback.format_exception(error)))
        digest = ""  # never cached: the next run tries again
    if isinstance(summary, ReadProblem):
        return FileFacts(digest, summary, b"", "", False, False, maybe_suppressed, len(text))
    blob = pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL)
    aliases = dict(summary.aliases)
    entry = bool(summary.compile_sites) or any(
        fn.class_index >= 0 and (fn.name == "forward" or fn.passes_parts_up)
        for fn in summary.functions
    )
    return FileFacts(digest, None, zlib.compress(blob, 1), hashlib.blake2b(blob, digest_size=16).hexdigest(),
                     summary.has_functions, entry, maybe_suppressed, len(text),
                     frozenset(f.qualname for f in summary.functions), frozenset(c.qualname for c in summary.classes),
                     bool(summary.compile_sites), part_digests(summary) + text_digests(summary, source, starts),
                     frozenset(summary.local_defs),
                     bool(summary.compiled_calls),
                     frozenset(n.name for n in summary.compiled_names if n.place.scope < 0 and "." not in n.name),
                     frozenset(aliases[c.callee] for c in summary.imported_calls if c.callee in aliases),
                     pickle.dumps(blocks, protocol=pickle.HIGHEST_PROTOCOL), unjudged, summary.helpers,
                     frozenset(aliases[head] for head in _decorator_heads(summary) if head in aliases),
                     class_bases(summary, aliases))


def class_bases(summary: ModuleSummary, aliases: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """FileFacts.class_bases: (base key, class qualname), sorted, each once."""
    return tuple(sorted({(key, cls.qualname) for cls in summary.classes for base in cls.bases
                         if (key := base_key(base, aliases)) is not None}))


def _decorator_heads(summary: ModuleSummary) -> Iterator[str]:
    """The bare names the module's defs are decorated with (`maybe_compile` of `@maybe_compile`
    and of `@maybe_compile(...)`); dotted decorators are not imported by `from m import name`."""
    for fn in summary.functions:
        for decorator in fn.decorators:
            head = decorator.partition("(")[0].strip()
            if head.isidentifier():
                yield head

def text_digests(summary: ModuleSummary, source: bytes, starts: list[int]) -> tuple[tuple[str, str], ...]:
    """`text:<name>`: the lines of the top-level definitions named `name` (a def or class with
    its decorators, as a content view parses them alone: view.read_alone), digested. Every
    definition nested in one lies within its lines, so a reader of one def's code (a caller's
    arguments, a callee's returns, a class body) depends on the text of its outermost one and
    on nothing else of the file (engine.py, `code:` reads). `source`: the text in UTF-8
    (surrogates passed), `starts` its lines' (builder.line_starts): the lines are def_lines's,
    sliced from the bytes the summary was made from rather than split from the text again."""
    tops: dict[str, list[tuple[int, int]]] = {}
    for item in (*summary.functions, *summary.classes):
        if "." not in item.qualname:
            tops.setdefault(item.qualname, []).append((item.line, item.end_line))
    if not tops:
        return ()
    # line_starts holds the end too when the text ends a line (and is [0] for an empty text)
    count = len(starts) - 1 if not source or source.endswith((b"\n", b"\r")) else len(starts)
    found = []
    for name, spans in tops.items():
        if any(not 0 < first <= last <= count for first, last in spans):
            continue  # not known by its lines: a read of it depends on the whole file
        h = hashlib.blake2b(digest_size=16)
        for first, last in spans:
            h.update(f"{first}:{last}\0".encode())
            h.update(source[starts[first - 1]:starts[last] if last < len(starts) else len(source)])
        found.append((f"text:{name}", h.hexdigest()))
    return tuple(found)

def part_digests(summary: ModuleSummary) -> tuple[tuple[str, str], ...]:
    """What each part of a module's index is made of, digested. A definition's digest covers
    every definition nested in it and every one it is nested in (a method's class, a nested
    function's parents): whatever reading it can reach without another recorded read. Index
    fields (a class or parent by position) are digested as they are, so an edit that moves
    definitions changes more digests than it needs to, never fewer."""
    def digest(*parts: object) -> str:
        return hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    # A definition's own digest is of its pickle (which names its class: FunctionSummary or
    # ClassSummary), a third of repr's cost. Without the memo ("fast" mode) the bytes are a
    # function of the value alone, not of which strings and tuples it shares; and a summary
    # holds no set, whose order would differ between processes (tests/test_prepass.py).
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.fast = True

    def pickled(item: object) -> str:
        buffer.seek(0)
        buffer.truncate()
        pickler.dump(item)
        with buffer.getbuffer() as view:  # (released before the next truncate)
            return hashlib.blake2b(view, digest_size=16).hexdigest()

    own: dict[str, list[str]] = {}  # qualname -> the digests of the definitions of that name
    kinds: dict[str, set[str]] = {}  # qualname -> "functions" and/or "classes"
    for kind, items in (("functions", summary.functions), ("classes", summary.classes)):
        for item in items:
            own.setdefault(item.qualname, []).append(pickled(item))
            kinds.setdefault(item.qualname, set()).add(kind)
    names = sorted(own)
    found = [
        # The module's own names are read one by one (`local:<name>`, see view._RecordedImports).
        ("imports", digest(summary.module_name, summary.is_package, summary.aliases)),
        ("assigns", digest(summary.assigns)),
        ("sites", digest(summary.compile_sites, [summary.functions[s.function].qualname
                                                 for s in summary.compile_sites if s.function >= 0])),
        ("disabled", digest(summary.disabled, [summary.functions[i].qualname for i, _ in summary.disabled])),
        # view.GuardFacts is made of these alone; a place's scope leads to `defined`, a read of its own.
        ("guard_facts", digest(summary.compiled_names, summary.compiled_calls, summary.state_writes,
                               summary.imported_calls)),
        ("defined", digest(*names, *(d for name in names for d in own[name]))),
    ]
    found.append(("functions:*", found[-1][1]))  # every function, and through them their classes
    classes = {c.qualname for c in summary.classes}

    def in_a_class(name: str) -> bool:  # a class, or defined inside one (its methods)
        dotted = name.split(".")
        return any(".".join(dotted[:i]) in classes for i in range(1, len(dotted) + 1))

    in_classes = [name for name in names if in_a_class(name)]
    found.append(("classes:*", digest(*in_classes, *(d for name in in_classes for d in own[name]))))
    for qualname in names:
        dotted = qualname.split(".")
        related = [".".join(dotted[:i]) for i in range(1, len(dotted))]  # the enclosing definitions
        first = bisect.bisect_left(names, qualname + ".")
        last = bisect.bisect_left(names, qualname + "/")  # "/" sorts right after "."
        related += names[first:last]  # the nested ones
        combined = digest(own[qualname], [own.get(name) for name in related])
        found += [(f"{kind}:{qualname}", combined) for kind in sorted(kinds[qualname])]  # what it is defined as
    return tuple(found)

class PythonVerdict(NamedTuple):
    """What Python's own parser says of a text, asked first (it is the language's definition)."""

    tree: ast.Module | None  # None: it refused the text
    problem: ReadProblem | None  # its BL001, at its position, when it refused
    final: bool  # no parser is to try after it: nesting deeper than Python's parser takes
    # (libcst would take seconds or minutes on it, if its native parser did not crash)
    deferred: bool = False  # parsed, but the compiler was not asked (compiled_verdict's `defer_compile`)

    def judge(self, found: T) -> T | ReadProblem:
        """libcst's result for text Python refused: libcst reads newer syntax than this
        Python's, but when it refuses the text too, Python's message and position stand."""
        if isinstance(found, ReadProblem) and found.code == "BL001" and self.problem is not None:
            return self.problem
        return found

def parser_verdict(text: str) -> PythonVerdict:
    """Python's parser: the tree, or its BL001. Its compiler judges the tree next (compiled_verdict)
    where the index's walk found something it may refuse."""
    try:
        tree = parse_module(text)
    except SyntaxError as error:
        return PythonVerdict(None, syntax_error(text, error), python_error_is_final(error))
    except (RecursionError, MemoryError) as error:  # Python's parser gave up, and says nothing of where
        problem = ReadProblem("BL001", f"syntax error: nested too deeply for Python's parser ({type(error).__name__})",
                              *densest_line(text))
        return PythonVerdict(None, problem, True)
    except ValueError:  # e.g. NUL bytes (files.py refuses those before): libcst decides
        return PythonVerdict(None, None, False)
    return PythonVerdict(tree, None, False)


def compiled_verdict(text: str, tree: ast.Module, defer_compile: bool = False) -> PythonVerdict:
    """Python's compiler on the parser's tree (nothing is parsed twice, nothing runs): a late
    `from __future__` import, `return` outside a function, a duplicate argument or a `nonlocal`
    without a binding parse, but no Python runs such a file. The compiler's refusal is final:
    libcst, which would read the file, is not asked. `defer_compile`: the compiler is not asked
    (`deferred`) when compiling the whole text later (compiler_verdict) costs about what compiling
    the tree costs now: when the module-level data it would leave out is under a tenth of the
    statements' lines (on torch's tree compiling every text whole cost 37 % more)."""
    body = _worth_compiling(tree.body)
    if defer_compile and (body is tree.body or _lines(body) >= _lines(tree.body) * 0.9):
        return PythonVerdict(tree, None, False, deferred=True)
    refused = _compiled(tree if body is tree.body else ast.Module(body, tree.type_ignores))
    if refused is not None:
        return PythonVerdict(None, syntax_error(text, refused), True)
    return PythonVerdict(tree, None, False)


def _lines(body: list[ast.stmt]) -> int:
    """The lines the statements span."""
    return sum(statement.end_lineno - statement.lineno + 1 for statement in body)  # type: ignore[operator]


def compiler_verdict(text: str) -> ReadProblem | None:
    """The BL001 of Python's compiler for a text its parser took (see compiled_verdict's
    `defer_compile`), or None."""
    refused = _compiled(text)
    return None if refused is None else syntax_error(text, refused)


def _compiled(source: ast.Module | str) -> SyntaxError | None:
    """Compile `source` (nothing runs): the SyntaxError, or None. The compiler's own limits
    (RecursionError, MemoryError on very deep or very large code) are no verdict on the file."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a SyntaxWarning ("\d") is the compiler's business, not ours
            compile(source, "<breaklint>", "exec", dont_inherit=True)
    except SyntaxError as error:
        return error
    except (RecursionError, MemoryError, ValueError):
        return None
    return None

# Expressions the compiler takes whenever the parser did (no call: `f(a=1, a=2)` is refused),
# with the fields that hold their expressions. Their other fields hold only operators and
# contexts, which the compiler takes too.
_DATA: dict[type, tuple[str, ...]] = {
    ast.Constant: (), ast.Name: (), ast.List: ("elts",), ast.Tuple: ("elts",), ast.Set: ("elts",),
    ast.Dict: ("keys", "values"), ast.UnaryOp: ("operand",), ast.BinOp: ("left", "right"), ast.BoolOp: ("values",),
    ast.Compare: ("left", "comparators"), ast.Attribute: ("value",), ast.Subscript: ("value", "slice"),
    ast.Slice: ("lower", "upper", "step"), ast.IfExp: ("test", "body", "orelse"), ast.JoinedStr: ("values",),
    ast.FormattedValue: ("value", "format_spec"),
}


def _worth_compiling(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` without its plain data statements after the last `from __future__` import (the
    compiler checks where those stand); `body` itself when none is left out. Nothing in module-
    level data (`TABLE = [...]`, a million `a = 1` lines) can be refused, and compiling it cost
    more than the rest of the check (30 s for a million short lines)."""
    future = max((i for i, s in enumerate(body) if isinstance(s, ast.ImportFrom) and s.module == "__future__"),
                 default=-1)
    kept = [s for i, s in enumerate(body) if i <= future or not _plain_data(s)]
    return body if len(kept) == len(body) else kept


def _plain_data(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assign):
        targets: list[ast.expr] = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    elif isinstance(statement, ast.Expr):
        targets = []
    else:
        return False
    if not all(isinstance(t, ast.Name) and t.id != "__debug__" for t in targets):
        return False
    parts = [statement.value, getattr(statement, "annotation", None)]
    return all(_all_data(part) for part in parts if part is not None)


def _all_data(expression: ast.expr) -> bool:
    """Whether every expression in `expression` is one of _DATA's (walked by their fields, not
    by ast.walk: a module's tables are most of what this walks)."""
    stack: list[ast.expr | None] = [expression]
    while stack:
        node = stack.pop()
        if node is None:  # an absent part (`x[a:]`, `{**d}`)
            continue
        fields = _DATA.get(type(node))
        if fields is None:
            return False
        for field in fields:
            value = getattr(node, field)
            if type(value) is list:
                stack += value
            else:
                stack.append(value)
    return True


def _summary(text: str, module_name: str, is_package: bool, defer_compile: bool = False,
             helpers: Mapping[str, Compiler] | None = None) -> tuple[ModuleSummary | ReadProblem, Block, bytes, list[int], bool]:
    """The summary from `ast`, the statements' outline, the text's bytes and line starts
    (builder.summarize_lines), and whether Python's compiler is yet to judge it (`unjudged`):
    Python's own parser and compiler are the judges of what is valid (one indexer, one parser),
    so syntax newer than the running Python's is its BL001. The compiler is asked after the
    walk, and only where the walk found something it may refuse."""
    from breaklint.index.builder import summarize_lines

    verdict = parser_verdict(text)
    tree = verdict.tree
    if tree is None:
        return _refused(verdict)

    def made() -> tuple[ModuleSummary, Block, bytes, list[int], bool]:
        summary, source, starts, refusable = summarize_lines(text, module_name, is_package, tree, helpers)
        return summary, outline(tree, split_lines(text)), source, starts, refusable

    try:
        found = made()
    except RecursionError:  # Python parsed it: it is deep, not wrong
        found = with_room(made)
    summary, blocks, source, starts, refusable = found
    if not refusable:  # nothing in it that Python's compiler judges beyond its grammar
        return summary, blocks, source, starts, False
    verdict = compiled_verdict(text, tree, defer_compile)
    if verdict.tree is None:
        return _refused(verdict)
    return summary, blocks, source, starts, verdict.deferred


def _refused(verdict: PythonVerdict) -> tuple[ReadProblem, Block, bytes, list[int], bool]:
    problem = verdict.problem or ReadProblem("BL001", "syntax error: Python's parser cannot read this file")
    return problem, (), b"", [], False


def python_error_is_final(error: SyntaxError) -> bool:
    """Errors of Python's tokenizer about depth: no Python accepts such a file."""
    message = error.msg or ""
    return message in _TOO_DEEP or "nested too deeply" in message

_TOO_DEEP = {"too many nested parentheses", "too many levels of indentation"}

def syntax_error(text: str, error: SyntaxError) -> ReadProblem:
    """BL001 where Python says, moved inside the text where Python points past its end."""
    line, col = clamp(text, error.lineno or 1, error.offset or 1)
    return ReadProblem("BL001", f"syntax error: {error.msg}", line, col)

def clamp(text: str, line: int, col: int) -> tuple[int, int]:
    """(line, col), 1-based, moved onto the nearest place in `text` (lines end as Python's do)."""
    lines = _LINE_END.split(text)
    line = min(max(line, 1), len(lines))
    return line, min(max(col, 1), len(lines[line - 1]) + 1)

def densest_line(text: str) -> tuple[int, int]:
    """Where code too deep for Python's parser most likely is, as it does not say: the first
    token of the logical line with the most tokens."""
    import io
    import tokenize

    best, where = 0, (1, 0)
    count, start = 0, None
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if start is not None and count > best:
                    best, where = count, start
                count, start = 0, None
            elif token.type not in skip:
                count += 1
                start = start or token.start
    except (tokenize.TokenError, SyntaxError):
        pass  # what was counted so far stands
    return clamp(text, where[0], where[1] + 1)

_LINE_END = re.compile(r"\r\n|\r|\n")

def scan_bytes(data: bytes | ReadProblem, module_name: str, is_package: bool, defer_compile: bool = False) -> FileFacts:
    if isinstance(data, ReadProblem):
        return FileFacts("", data, b"", "", False, False, False)
    digest = content_digest(data, module_name, is_package)
    text = decode_source(data)
    if isinstance(text, ReadProblem):
        return FileFacts(digest, text, b"", "", False, False, False)
    return scan_text(text, digest, module_name, is_package, defer_compile)

