"""check: files -> pre-pass (ast, every file) -> project index -> compiled regions -> libcst and
the rules (only files with a region) -> findings -> suppressions.

The pre-pass (scan.py, builder.py) summarises every file with the stdlib `ast`; the project index
is built from those summaries (view.py) and only the modules a lookup reaches are built at
all. Reachability runs on that index, and only the files that hold a compiled region are parsed
with libcst (only their region code: index/region_text.py), their index bound to the tree (view.bind_tree: one index, from one parser), and
visited by the rules — each in a worker process, each tree dropped when its rules are done.
`report` narrows what is reported, not what is indexed: named files (the pre-commit hook) and
the editor's open buffers are checked inside the project around them.

Cache keys (cache.py) hold everything their value depends on:
- facts: the file's bytes and module name (and, through the salt, breaklint's code);
- regions: the config's entry settings and every file's (path, module name, summary digest);
- findings: the file (bytes, display path), the rule settings, its regions, plus — checked on
  reading — the summary digests of every module name its rules looked up. So an edit re-checks
  the edited file and the files whose regions or lookups it changes, nothing else.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import os
import sys
import time
import traceback
import zlib
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import libcst as cst

from breaklint.infra.cache import Cache
from breaklint.config import Config
from breaklint.infra.files import (DEFAULT_EXCLUDE, Excluder, ReadProblem, decode_source, discover, display_path,
                                   read_source)
from breaklint.finding import CheckResult, Finding, Region, Span
from breaklint.infra import deferred
from breaklint.infra.parallel import HeadStart, ReadyWorker, WorkerPool, share
from breaklint.index.patterns import untraced_blocks
from breaklint.index.project import (EVERY_MODULE, SUBCLASSES_OF, FunctionInfo, ModuleIndex, ModuleNames, PendingModule,
                                     ProjectIndex, module_name_for)
from breaklint.analysis.regions import compute_regions, find_entry_points
from breaklint.check import worker
from breaklint.check.likely_regions import likely_regions
from breaklint.check.registry import RuleSet
from breaklint.rule import FileContext, Rule
from breaklint.infra.recursion import parse_safely, with_room
from breaklint.index.compilers import Compiler
from breaklint.index.scan import FileFacts, clamp, compiler_verdict, content_digest, read_bytes, scan_text
from breaklint.index.view import Fragments, bind_tree, release_bound, shallow_module, tree_functions, unbind_bodiless
from breaklint.index.libcst_gaps import parse_around_gaps
from breaklint.index.region_text import Block, region_text
from breaklint.index.source import ParsedFile, WholeFile
from breaklint.index.summary import ModuleSummary, classes_building
from breaklint.index.suppress import Suppression, apply_suppressions, may_hold_suppressions, parse_suppressions
from breaklint.infra.walk import Visitor, trivia_names, visit
from breaklint.project_urls import project_urls

# suppress.py's comments need one of these (its patterns are case-insensitive).


def parse_file(path: Path, root: Path, text: str | None = None, module: tuple[str, bool] | None = None,
               parse_module: Callable[[str], cst.Module] | None = None,
               visited: Sequence[tuple[int, int]] | None = None, blocks: Block | None = None) -> ParsedFile | ReadProblem:
    """`text`: the file's content when it is not read from disk (an editor's unsaved buffer);
    `module`: its (module name, is package) when already known; `parse_module`: libcst's parse,
    or one that reuses an earlier tree of the same buffer (lsp/reparse.py); `visited`: the line
    ranges of the functions the rules will visit, when only those need a tree (region_text.py);
    `blocks`: the text's outline from the pre-pass (else region_text parses the text for it).
    The tree keeps the file's lines and columns either way; `ParsedFile.text` is the file's."""
    if text is None:
        text = read_source(path)
    if isinstance(text, ReadProblem):
        return text
    parse = parse_module or cst.parse_module
    region = region_text(text, visited, blocks) if visited is not None else None
    parsed_text = region.text if region is not None else text
    try:
        try:
            tree = parse_safely(parse, parsed_text)
        except RecursionError:  # a deep tree, not a wrong one: again, with room to recurse
            tree = with_room(lambda: cst.parse_module(parsed_text))  # type: ignore[arg-type]
    except (KeyboardInterrupt, SystemExit, UnicodeError):
        raise  # text that is not Unicode (a lone surrogate, from an editor): the language server's to refuse
    except cst.ParserSyntaxError as error:
        gaps = parse_around_gaps(parsed_text, error, parse)  # valid Python libcst cannot read: check the rest
        if gaps is None:
            line = region.file_line(error.raw_line) if region is not None else error.raw_line
            where = clamp(text, line, error.raw_column + 1)  # libcst can point past the end of a line
            return ReadProblem("BL001", f"syntax error: {error.message}", *where)
        tree = gaps.tree
    except RecursionError:
        return ReadProblem("BL001", "syntax error: expression nested too deeply to parse")
    except BaseException as error:  # CSTValidationError, a panic of the native parser (a BaseException)
        return ReadProblem("BL001", f"syntax error: libcst cannot read this file: {type(error).__name__}: {error}")
    module_name, is_package = module if module is not None else module_name_for(path)
    found = ParsedFile(path, display_path(path, root), module_name, is_package, text, tree)
    found.region = region
    return found


def handler_names(kind: type) -> tuple[tuple[str, str, str], ...]:
    """(prefix, node kind, attribute) for each handler a rule class defines (dir() is slow: the
    engine asks once per class, not once per file)."""
    found = []
    for attribute in dir(kind):
        for prefix in ("visit_", "leave_", "file_visit_", "file_leave_"):
            if attribute.startswith(prefix):
                found.append((prefix, attribute[len(prefix):], attribute))
                break
    return tuple(found)


class _Dispatcher(Visitor):
    """One traversal per file for every rule; rules only see code in scope, except through
    their file-scope hooks (`file_visit_<Node>` / `file_leave_<Node>`: every node of the file,
    regions or not; then `end_file()` once), see rule.py.

    A rule that raises is switched off for the rest of the file and reported as BL005; the
    other rules go on."""

    def __init__(self, ctx: FileContext, rules: Sequence[Rule], on_error: Callable[[Rule, BaseException], None],
                 handlers: Callable[[type], tuple[tuple[str, str, str], ...]] = handler_names) -> None:
        self.ctx = ctx
        self.on_error = on_error
        self.failed: set[int] = set()
        self.untraced: set[cst.CSTNode] = set()  # e.g. the body of `if not is_compiling():`
        self.active = ctx.active
        self.visitors: dict[str, list[tuple[Rule, Callable[[cst.CSTNode], None]]]] = {}
        self.leavers: dict[str, list[tuple[Rule, Callable[[cst.CSTNode], None]]]] = {}
        self.file_visitors: dict[str, list[tuple[Rule, Callable[[cst.CSTNode], None]]]] = {}
        self.file_leavers: dict[str, list[tuple[Rule, Callable[[cst.CSTNode], None]]]] = {}
        self.file_rules: list[Rule] = []
        tables = {"visit_": self.visitors, "leave_": self.leavers,
                  "file_visit_": self.file_visitors, "file_leave_": self.file_leavers}
        for rule in rules:
            hooks = rule.file_hooks()
            if hooks:
                self.file_rules.append(rule)
            for prefix, node, attribute in handlers(type(rule)):
                if hooks or not prefix.startswith("file_"):
                    tables[prefix].setdefault(node, []).append((rule, getattr(rule, attribute)))
        # Rules that look at commas or comments get every node; the others only what has content.
        self.wants_trivia = not trivia_names().isdisjoint(
            {*self.visitors, *self.leavers, *self.file_visitors, *self.file_leavers})

    def heard(self) -> frozenset[type] | None:
        """The node types on_visit/on_leave must hear of: those a rule handles, a function (the
        function stack, positions), whatever an `if` can hold as its body or else, and every
        statement (the untraced blocks, and the statements after an early return Dynamo takes).
        The walk passes the rest (most nodes: arguments, names, literals) without a call. None
        (all) when a handler names no libcst node type."""
        kinds = {cst.FunctionDef, cst.If, cst.Else, cst.IndentedBlock, cst.SimpleStatementSuite,
                 cst.SimpleStatementLine, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.Match, cst.ClassDef}
        for table in (self.visitors, self.leavers, self.file_visitors, self.file_leavers):
            for name in table:
                kind = getattr(cst, name, None)
                if not (isinstance(kind, type) and issubclass(kind, cst.CSTNode)):
                    return None
                kinds.add(kind)
        return frozenset(kinds)

    def _dispatch(self, handlers: list[tuple[Rule, Callable[[cst.CSTNode], None]]], node: cst.CSTNode) -> None:
        for rule, handler in handlers:
            if id(rule) in self.failed:
                continue
            try:
                handler(node)
            except Exception as error:  # one broken rule must not hide the others' findings
                self.failed.add(id(rule))
                self.on_error(rule, error)

    def _entered(self) -> None:
        self.active = self.ctx.active  # it only changes when the function stack does

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        if kind is cst.FunctionDef:
            info = self.ctx.functions_by_node.get(node)  # type: ignore[call-overload]
            if info is not None:
                self.ctx.function_stack.append(info)
                self._entered()
            file = self.ctx.file
            if file.scope is None and node in file.starts:
                file.scope = node  # positions for this function alone (source.py)
        elif kind is cst.If or kind is cst.IndentedBlock:
            self.untraced.update(untraced_blocks(node, self.ctx.resolve, self.ctx.local_test,
                                                 self.ctx.type_answer))  # type: ignore[arg-type]
        if self.untraced and node in self.untraced:
            self.ctx.untraced_depth += 1
        if self.file_visitors:
            handlers = self.file_visitors.get(kind.__name__)
            if handlers:
                self._dispatch(handlers, node)
        if self.active and not self.ctx.untraced_depth:
            handlers = self.visitors.get(kind.__name__)
            if handlers:
                self._dispatch(handlers, node)
        return True

    def end_file(self) -> None:
        for rule in self.file_rules:
            self._dispatch([(rule, lambda _node, rule=rule: rule.end_file())], self.ctx.file.tree)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        kind = type(original_node)
        if self.file_leavers:
            handlers = self.file_leavers.get(kind.__name__)
            if handlers:
                self._dispatch(handlers, original_node)
        if self.active and not self.ctx.untraced_depth:
            handlers = self.leavers.get(kind.__name__)
            if handlers:
                self._dispatch(handlers, original_node)
        if self.untraced and original_node in self.untraced:
            self.ctx.untraced_depth -= 1
        if kind is cst.FunctionDef:
            if original_node in self.ctx.functions_by_node:
                self.ctx.function_stack.pop()
                self._entered()
            if self.ctx.file.scope is original_node:
                self.ctx.file.scope = None


@dataclass(frozen=True)
class _Source:
    """A discovered file: where it is, how it prints, which module it is."""

    path: Path
    display: str
    module_name: str
    is_package: bool


@dataclass(frozen=True)
class Indexed:
    """`Engine.index`'s answer: (path, module name, facts) for each file, and how many of them
    were not in the cache (the pre-pass ran on them)."""

    files: tuple[tuple[Path, str, FileFacts], ...]
    scanned: int


@dataclass(frozen=True)
class _FileRegions:
    """A file's compiled functions, by position among its defs (the pre-pass and the libcst
    indexer number them alike), and whether one of them is what its name refers to."""

    regions: tuple[tuple[int, Region], ...]
    has_region: bool
    errors: tuple[tuple[str, str], ...] = ()  # (message, traceback): internal errors in its regions (BL005)


@dataclass(frozen=True)
class _Checked:
    """What the rules found in one file, and the module names they looked up on the way."""

    findings: tuple[Finding, ...]
    asked: tuple[str, ...]
    cacheable: bool = True  # False: the process checking it died, which may not happen again


class Engine:
    """`jobs`: worker processes (1: all in this process); `cache`: where results are kept
    between runs (None: nowhere)."""

    def __init__(self, config: Config, rules: RuleSet, verbose: bool = False, *, jobs: int = 1,
                 cache: Cache | None = None, shown_from: Path | None = None,
                 parse_buffer: Callable[[Path, str], cst.Module] | None = None) -> None:
        self.config = config
        self.rules = rules
        self.verbose = verbose
        self.jobs = max(1, jobs)
        self.cache = cache
        self.shown_from = shown_from  # paths print relative to it (None: where the user stands, like ruff)
        self.parse_buffer = parse_buffer  # an overlay's tree, from its earlier ones (the language server)
        self._handlers: dict[type, tuple[tuple[str, str, str], ...]] = {}  # per rule class (_Dispatcher)

    def _handler_names(self, kind: type) -> tuple[tuple[str, str, str], ...]:
        found = self._handlers.get(kind)
        if found is None:
            found = self._handlers[kind] = handler_names(kind)
        return found

    def check(self, paths: Sequence[Path], force_exclude: bool = False,
              overlays: Mapping[Path, str] | None = None, report: Iterable[Path] | None = None) -> CheckResult:
        """Check `paths`; `overlays` (path -> text) stand in for files on disk (unsaved buffers).
        `report`: only these files' findings (the others are the project around them: indexed,
        and their regions computed, but no rule runs there) — the pre-commit hook's named files,
        the editor's open ones."""
        started = time.perf_counter()
        overlays = {_absolute(path): text for path, text in (overlays or {}).items()}
        wanted = None if report is None else {_absolute(path) for path in report}
        run = _Run(self, overlays, wanted)
        findings, count = run.check(paths, force_exclude)
        findings.sort(key=lambda f: f.sort_key)
        return CheckResult(findings, count, time.perf_counter() - started, run.work.counted(run.fragments))

    def exclude(self) -> tuple[str, ...]:
        """The patterns of the files a check of a folder leaves out."""
        return (*(self.config.exclude or DEFAULT_EXCLUDE), *self.config.extend_exclude)

    def index(self, paths: Sequence[Path], overlays: Mapping[Path, str] | None = None) -> Indexed:
        """The pre-pass of exactly these files, in this process, from and into `check`'s cache
        (nothing else runs): what the language server reads of an opened file's imports before
        the whole workspace is indexed (lsp/nearby.py)."""
        one = Engine(self.config, self.rules, jobs=1, cache=self.cache, shown_from=self.shown_from)
        run = _Run(one, {_absolute(path): text for path, text in (overlays or {}).items()})
        names = ModuleNames()
        run.sources = [_Source(path, display_path(path, run.shown_from), *names(path)) for path in map(_absolute, paths)]
        facts = run._scan()
        return Indexed(tuple((s.path, s.module_name, f) for s, f in zip(run.sources, facts)), run.scanned)

    def _region_error(self, path: str, error: tuple[str, str]) -> Finding:
        message, details = error
        return self.rules.meta("BL005").make_finding(path, Span(1, 1, 1, 1), message, details=details)

    def _check_module(self, module: ModuleIndex, project: ProjectIndex,
                      regions: dict[FunctionInfo, object]) -> list[Finding]:
        """The rules over one module. A RecursionError (a tree deeper than the default limit
        allows, which Python itself compiled) checks the module again with room to recurse;
        only a RecursionError there is an internal error."""
        try:
            return self._run_rules(module, project, regions, roomy=False)
        except _NeedsRoom:
            module.file.scope = None
            return with_room(lambda: self._run_rules(module, project, regions, roomy=True))

    def _run_rules(self, module: ModuleIndex, project: ProjectIndex, regions: dict[FunctionInfo, object],
                   roomy: bool) -> list[Finding]:
        file = module.file
        rule_classes = self.rules.for_file(file.display)
        if not rule_classes:
            return []
        raw: list[Finding] = []
        functions = tree_functions(module)
        has_region = any(fn in regions for fn in functions.values())
        calls_compiled = bool(module.guard_facts.calls or module.guard_facts.imported_calls)  # _calls_compiled's files
        if not (has_region or calls_compiled or (self.config.scope == "all" and functions)):
            rules: list[Rule] = []
        else:
            ctx = FileContext(
                file=file, module=module, project=project, regions=regions,  # type: ignore[arg-type]
                functions_by_node=functions, target_torch=self.config.target_torch,
                scope_all=self.config.scope == "all", emit=_once(raw),
                target_python=self.config.target_python,
            )

            def internal_error(rule: Rule | type[Rule] | None, error: BaseException) -> None:
                if isinstance(error, RecursionError) and not roomy:
                    raise _NeedsRoom from error
                where = f"in rule {rule.code} ({rule.name})" if rule else "while checking this file"
                raw.append(self.rules.meta("BL005").make_finding(
                    file.display, Span(1, 1, 1, 1),
                    f"internal error {where}: {type(error).__name__}: {error}",
                    details="".join(traceback.format_exception(error)),
                ))

            rules = []
            for cls in rule_classes:
                if cls.meta:
                    continue
                try:
                    rules.append(cls(ctx))
                except Exception as error:  # this rule is out for this file; the others run
                    internal_error(cls, error)
            dispatcher = _Dispatcher(ctx, rules, internal_error, self._handler_names)
            try:
                # The rules ask the index the same of many nodes (a callee's targets, an
                # attribute's classes): kept for this pass, whose reads are all recorded alike.
                with project.memoized(one_walk=False):
                    visit(file.tree, dispatcher, trivia=dispatcher.wants_trivia, only=dispatcher.heard())
                    dispatcher.end_file()
            except _NeedsRoom:
                raise
            except Exception as error:  # the engine itself failed on this file: keep the others
                internal_error(None, error)
            finally:
                ctx.release()
            file.scope = None
        suppressions = parse_suppressions(file.text) if may_hold_suppressions(file.text) else []
        if not suppressions:
            return raw
        return apply_suppressions(raw, suppressions, lambda s, idle: self._unused(file.display, s, idle))

    def _unused(self, path: str, suppression: Suppression, idle: tuple[str, ...]) -> Finding | None:
        rule = self.rules.meta("BL004")
        if not self.rules.enabled_for(rule.code, path):
            return None
        if suppression.selectors:
            # Only selectors that name enabled rules can be judged unused.
            idle = tuple(s for s in idle if self.rules.selects_enabled(s, path))
            if not idle:
                return None
            what = ", ".join(idle)
            text = f"unused suppression: nothing here matched {what}"
        else:
            text = "unused suppression: no finding on this line"
        return rule.make_finding(path, suppression.span, text)

    def _problem(self, path: str, problem: ReadProblem) -> Finding:
        rule = self.rules.meta(problem.code)
        span = Span(problem.line, problem.col, problem.line, problem.col)
        return rule.make_finding(path, span, problem.message, details=problem.details)


def _internal(doing: str, error: Exception) -> str:
    return f"internal error {doing}: {type(error).__name__}: {error}"


def _region_errors(errors: dict[Path, list[tuple[str, str]]]) -> Callable[[FunctionInfo, Exception], None]:
    """compute_regions' on_error: one (message, traceback) per function, in the file that defines it."""
    def record(fn: FunctionInfo, error: Exception) -> None:
        why = (_internal(f"while following the calls of `{fn.qualname}`", error)
               + "; what only it calls is not checked as compiled code")
        known = errors.setdefault(fn.module.file.path, [])
        if all(why != seen for seen, _ in known):  # a function walked again fails again
            known.append((why, "".join(traceback.format_exception(error))))
    return record


def _absolute(path: Path) -> Path:
    return Path(os.path.normpath(path if path.is_absolute() else Path.cwd() / path))


def _ready_for_the_check() -> None:
    """What the regions' process and every check worker would do first, done while this process
    would only wait (on the pre-pass's workers, on the regions' process): those forked afterwards
    inherit it. libcst's import (deferred.py; 0.14 s a process, on the critical path of a two-job
    check) and breaklint's metadata (read for a finding's rule page: 0.02 s)."""
    cst.Module  # noqa: B018 (the first attribute read imports it)
    project_urls()


# What a computation read of the project, for the cache: the module names it looked up, the files
# whose trees it read, and by file the parts of its index it read (see _record_read).
_Reads = tuple[tuple[str, ...], tuple[str, ...], dict[str, set[str]]]
_NO_READS: _Reads = ((), (), {})


def _dependencies(reads: _Reads) -> Iterator[str]:
    """The names of what `reads` holds, as _fingerprints knows them."""
    asked, trees, parts = reads
    yield from asked
    yield from (_DEEP + path for path in trees)
    yield from (f"{_READ}{path}\0{what}" for path, whats in parts.items() for what in whats)


def _digest(*parts: object) -> str:
    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _once(findings: list[Finding]) -> Callable[[Finding], None]:
    """Append to `findings`, but a finding the same as one already there (code, place, message):
    `a[0] = a[1] = x` is one mutation of `a` at one place, not two findings that read alike."""
    seen: set[tuple[str, Span, str]] = set()

    def emit(finding: Finding) -> None:
        key = (finding.code, finding.span, finding.message)
        if key not in seen:
            seen.add(key)
            findings.append(finding)

    return emit


class _Run:
    """One `check`: every step after discovery, over the same file list."""

    def __init__(self, engine: Engine, overlays: Mapping[Path, str], report: set[Path] | None = None) -> None:
        self.engine = engine
        self.report = report  # None: every file
        self.config = engine.config
        self.rules = engine.rules
        self.cache = engine.cache
        self.overlays = overlays
        self.shown_from = engine.shown_from or Path.cwd()
        self.sources: list[_Source] = []
        self.facts: list[FileFacts] = []
        # What the pre-pass read of each file (None: an overlay): the later passes parse these
        # same bytes, so a file that changes or vanishes meanwhile cannot disagree with its
        # summary. Compressed (_Packed) on a large tree, as every worker holds all of them (a
        # quarter of the size: 49 MB of transformers' files are 13 MB); see _pack_data.
        self.data: list[bytes | ReadProblem | None] = []
        self.regions: dict[int, _FileRegions] = {}
        self._project: ProjectIndex | None = None
        self.fragments = Fragments()
        self.deep_reads: set[Path] = set()  # files whose trees the current file's rules read
        self._trees: dict[Path, ModuleIndex] = {}  # see _tree_module
        self.recording = False  # while a file's rules run: what they read of other modules
        self.reads: dict[Path, set[str]] = {}  # by file: what of its index (see _record_read)
        self._fingerprint: Callable[[str], Any] | None = None
        self._file_digests: dict[str, str] = {}  # by path: each readable file's digest (see _recorded)
        self.checked_here = 0  # files checked in this process (see worker.check_task)
        self.drops = 0  # indexes dropped in this process (release_index)
        self.work = Work()
        self._content_read: set[int] = set()  # files whose text a content view read (Work.content_texts)
        self._last_text: tuple[int, str] | None = None  # the last of them, decoded (_content_text)
        self._built = [0]  # modules the project built (see _module_builder)
        self._positions: dict[Path, int] | None = None  # see _position
        self.prepassed: list[int] = []  # the files the pre-pass ran on (not in the cache)
        self._packed = False  # see _pack_data
        self.run_key: str | None = None  # see _run_key
        # In a head-start worker (_head_start): trees parsed ahead of the regions, by file, each
        # with the positions of the defs whose code it holds.
        self.ahead: dict[int, tuple[frozenset[int], ParsedFile | ReadProblem]] = {}

    def __getstate__(self) -> dict[str, Any]:  # what a spawned worker needs (no cache, no index)
        state = dict(self.__dict__)
        state["cache"] = None
        state["_project"] = None
        state["fragments"] = Fragments()
        state["_trees"] = {}
        state["_fingerprint"] = None
        state["_last_text"] = None
        state["_built"] = [0]
        state["engine"] = Engine(self.config, self.rules, shown_from=self.engine.shown_from)
        return state

    # --- the steps ----------------------------------------------------------------------------
    def check(self, paths: Sequence[Path], force_exclude: bool) -> tuple[list[Finding], int]:
        """The whole run. The process running it pauses the automatic collector around it
        (infra/collector.py: the command line, the language server); the rules' garbage is
        collected after each file (worker.check_task)."""
        config = self.config
        exclude = self.engine.exclude()
        files, problems = discover(paths, config.root, exclude, force_exclude)
        files, problems = self._with_overlays(paths, files, problems,
                                              Excluder(exclude, config.root) if force_exclude else None)
        findings = [self.engine._problem(display_path(p, self.shown_from), problem) for p, problem in problems
                    if self._reported(p)]
        names = ModuleNames()
        self.sources = [_Source(path, display_path(path, self.shown_from), *names(path)) for path in files]
        digests = self._read_sources()
        self.run_key = self._run_key(digests, findings)
        answer = self.cache.runs.get(self.run_key) if self.cache is not None and self.run_key else None
        if answer is not None:
            answered, count = answer
            return list(answered), count
        tasks = self._cached_facts(digests)
        ready = self._ready_worker()
        ahead = ready is None and self._heads_wanted()
        try:
            # A cold run, or many files changed: its processes will hold the bytes (_pack_data).
            # Python's compiler waits for the cores the regions leave, unless head starts take them.
            self._prepass(tasks, defer_compile=not ahead, pack=len(tasks) >= _POOL_FROM)
            return self._check_scanned(findings, len(files), ready, ahead)
        finally:
            if ready is not None:
                ready.close()

    def _run_key(self, digests: list[str], problems: list[Finding]) -> str | None:
        """The key of this run's whole answer in the cache (Cache.runs): everything the findings
        depend on — the settings and the rules they enable, which files are reported, where
        paths are shown from, and each file's path, module name, digest (or why it could not be
        read), with the problems found on the way (a path that does not exist). None without a
        cache, or with unsaved buffers (the editor's: they change with every keystroke). A run
        whose key is known is answered without loading the facts, the regions or the findings,
        nor checking what each of them depends on (on the whole of transformers, nothing
        changed: most of a warm run)."""
        if self.cache is None or self.overlays:
            return None
        files = [(str(source.path), source.display, source.module_name, source.is_package,
                  digest or repr(self.data[index]))
                 for index, (source, digest) in enumerate(zip(self.sources, digests))]
        report = sorted(map(str, self.report)) if self.report is not None else None
        return _digest("run", repr(self.config), self.rule_names, report, str(self.shown_from), files,
                       [(finding.code, finding.path, finding.message) for finding in problems])

    def _check_scanned(self, findings: list[Finding], file_count: int,
                       ready: ReadyWorker | None, ahead: bool = False) -> tuple[list[Finding], int]:
        """Every step after the pre-pass; `ready`: see _ready_worker; `ahead`: with head starts
        (_heads_wanted)."""
        self._seed_imported_helpers()
        indexed: list[int] = []
        for index, facts in enumerate(self.facts):
            if facts.problem is None:
                indexed.append(index)
            elif self._reported(self.sources[index].path):
                findings.append(self.engine._problem(self.sources[index].display, facts.problem))
        heads = self._head_start() if ahead else []
        try:
            return self._check_indexed(findings, file_count, indexed, ready, heads)
        finally:
            for head in heads:
                head.close()

    def _check_indexed(self, findings: list[Finding], file_count: int, indexed: list[int],
                       ready: ReadyWorker | None, heads: list[HeadStart]) -> tuple[list[Finding], int]:
        """The regions of the files the pre-pass could read (`indexed`), then their rules; `heads`:
        see _head_start."""
        config = self.config
        unjudged = [index for index in indexed if self.facts[index].unjudged]
        regions = self._compute_regions(indexed, unjudged)
        if regions is None:  # rare: Python's compiler refused a file its parser took (see _prepass)
            for head in heads:  # they parsed ahead with the refused files' facts
                head.close()
            heads = []
            for index in indexed:
                problem = self.facts[index].problem
                if problem is not None and self._reported(self.sources[index].path):
                    findings.append(self.engine._problem(self.sources[index].display, problem))
            indexed = [index for index in indexed if self.facts[index].problem is None]
            self.release_index(above=0)  # built with the refused modules
            self._project, self._fingerprint = None, None
            regions = self._compute_regions(indexed, [])
            assert regions is not None
        self.regions = regions
        reported = [index for index in indexed if self._reported(self.sources[index].path)]
        for index in reported:
            findings.extend(self.engine._region_error(self.sources[index].display, error)
                            for error in self.regions[index].errors)
        deep, shallow = [], []
        guarded = self._calls_compiled(indexed)
        for index in reported:
            if not self.rules.for_file(self.sources[index].display):
                continue  # every rule ignored for this file: nothing to say about it
            if self.regions[index].has_region or index in guarded or \
                    (config.scope == "all" and self.facts[index].has_functions):
                deep.append(index)
            elif self.facts[index].maybe_suppressed:
                shallow.append(index)
        findings.extend(self._check_deep(deep, ready, heads))
        for index in shallow:  # no rule runs here: every suppression is unused
            findings.extend(self._unused_suppressions(index))
        if self.cache is not None:
            if self.run_key is not None and not any(finding.code == "BL005" for finding in findings):
                self.cache.runs.put(self.run_key, (tuple(findings), file_count))  # not an internal error's
            self.cache.save()
        return findings, file_count

    def _heads_wanted(self) -> bool:
        """Whether the check gets head starts (_head_start): a cold check (or many files
        changed) with two jobs or more, where the regions are computed in this process (at most
        _KEPT_MODULES files: more are computed in a process of their own, while the cores judge
        files meanwhile), without unsaved buffers (the editor). Asked before the pre-pass, which
        then judges every file itself (with head starts, no core waits for the compiler)."""
        return (self.engine.jobs >= 2 and len(self.prepassed) >= _POOL_FROM and len(self.sources) <= _KEPT_MODULES
                and not self.overlays and WorkerPool.forks())

    def _head_start(self) -> list[HeadStart]:
        """A cold check with two jobs or more computes the regions here on one core, a walk
        that cannot be divided (docs/speed.md, sessions 33-35), while the other cores idle: a
        worker forked now on each of them parses, meanwhile, its part of the files the regions
        will likely name (likely_regions.py; parse_ahead), then checks them with the pool's
        workers (see _heads_wanted for when)."""
        count = self.engine.jobs - 1
        worker.SERVED[:] = [self]  # they inherit the run as it is now
        try:
            return [HeadStart(worker.install, None, functools.partial(worker.parse_ahead, part=(part, count)))
                    for part in range(count)]
        finally:
            worker.SERVED.clear()

    def parse_ahead(self, stop: Callable[[], bool], part: tuple[int, int] = (0, 1)) -> None:
        """In a head-start worker, until `stop()`: libcst's trees of the files the regions will
        likely name, for the functions they will likely hold (likely_regions.py), the largest
        first (as the check takes them), at most _AHEAD_CHARS characters of them; of those files,
        every `part[1]`-th from the `part[0]`-th (one part for each head-start worker)."""
        config = self.config
        summaries = {index: found.summary() for index, found in enumerate(self.facts)
                     if found.problem is None and found.has_functions
                     and self._reported(self.sources[index].path) and self.rules.for_file(self.sources[index].display)}
        if stop():
            return
        guessed = likely_regions(summaries, config.assume_forward_compiled, config.scope == "all")
        budget = _AHEAD_CHARS
        order = sorted(guessed, key=lambda i: (not self.facts[i].entry_candidate, -self.facts[i].size))
        for index in order[part[0]::part[1]]:
            if stop() or budget <= 0:
                return
            text = self._text(index)
            parsed = self._parsed(index, summaries[index], text, guessed[index])
            budget -= parsed.tree_chars if isinstance(parsed, ParsedFile) else len(text) if isinstance(text, str) else 0
            self.ahead[index] = (guessed[index], parsed)

    def usable_ahead(self) -> list[int]:
        """The files whose trees parse_ahead made hold every function of their regions (the
        others' are dropped)."""
        for index, (kept, _) in list(self.ahead.items()):
            if not self._holds_regions(index, kept, self.facts[index].summary()):
                del self.ahead[index]
        return list(self.ahead)

    def _holds_regions(self, index: int, kept: frozenset[int], summary: ModuleSummary) -> bool:
        """Whether a tree of the defs at positions `kept` holds every function the rules visit
        in the file: then it gives the same findings as the tree of those alone."""
        return kept.issuperset(self._region_ordinals(index, summary))

    def _ready_worker(self) -> ReadyWorker | None:
        """After an edit (a few files changed, the rest answered from the cache), the file or two
        to check again wait on libcst's import (0.18 s on Python 3.12, a quarter of such a run):
        a worker forked now, before the changed files' pre-pass, imports it while this process
        runs that pre-pass, computes the regions and asks the cache, then checks them (_check_deep;
        the changed files' facts and the regions are handed to it). Not with one job, nor without
        a cache or with every file changed (a cold run: the pre-pass's pool or the regions'
        process import it meanwhile), nor with many files changed, nor when libcst is here."""
        if (self.engine.jobs < 2 or self.cache is None or not 0 < self.scanned < min(_POOL_FROM, len(self.sources))
                or deferred.imported("libcst") or not WorkerPool.forks()):
            return None
        worker.SERVED[:] = [self]  # it inherits the run as it is now
        try:
            return ReadyWorker(worker.install, None, _ready_for_the_check)
        finally:
            worker.SERVED.clear()

    def _calls_compiled(self, indexed: list[int]) -> set[int]:
        """The files that call a compiled callable (their own, or one another module binds): the
        recompile rules read their calls even where they hold no compiled region."""
        exports = {f"{self.sources[i].module_name}.{name}" for i in indexed for name in self.facts[i].compiled_exports}
        return {i for i in indexed if self.facts[i].calls_compiled or not exports.isdisjoint(self.facts[i].imported_callees)}

    def _with_overlays(self, paths: Sequence[Path], files: list[Path], problems: list[tuple[Path, ReadProblem]],
                       excluder: Excluder | None) -> tuple[list[Path], list[tuple[Path, ReadProblem]]]:
        """An unsaved buffer under the checked paths (or a text named by `--stdin-filename`) is a
        file of the project, on disk or not, unless `excluder` (--force-exclude) excludes it."""
        if not self.overlays:
            return files, problems
        roots = [_absolute(path) for path in paths]
        known = {_absolute(path) for path in files}
        added = [path for path in self.overlays if path not in known
                 and any(path == root or root in path.parents for root in roots)
                 and (excluder is None or not excluder.excludes(path))]
        return sorted([*files, *added]), [(p, problem) for p, problem in problems if _absolute(p) not in self.overlays]

    def _reported(self, path: Path) -> bool:
        return self.report is None or _absolute(path) in self.report

    def _scan(self) -> list[FileFacts]:
        """The pre-pass of every file: from the cache by content digest, else computed."""
        self._prepass(self._cached_facts(self._read_sources()), pack=True)
        return self.facts

    @property
    def scanned(self) -> int:
        """The files the pre-pass ran on (not in the cache)."""
        return len(self.prepassed)

    def _read_sources(self) -> list[str]:
        """Every file read into `data` (None for an overlay); the content digests ("" where a
        file could not be read)."""
        digests: list[str] = []
        self.data = []
        for source in self.sources:
            overlay = self.overlays.get(source.path)
            if overlay is not None:
                self.data.append(None)
                digests.append("buffer:" + content_digest(overlay.encode("utf-8", "surrogatepass"), source.module_name,
                                                          source.is_package))
                continue
            data = read_bytes(source.path)
            self.data.append(data)
            digests.append("" if isinstance(data, ReadProblem) else content_digest(data, source.module_name,
                                                                                   source.is_package))
        return digests

    def _cached_facts(self, digests: list[str]) -> list[tuple[int, worker.ScanTask]]:
        """Each file's pre-pass from the cache by content digest, into `facts` (None where there
        is none yet: `_prepass` fills them); the pre-pass tasks of the others."""
        facts: list[FileFacts | None] = []
        tasks: list[tuple[int, worker.ScanTask]] = []
        for index, (source, digest) in enumerate(zip(self.sources, digests)):
            overlay = self.overlays.get(source.path)
            data: bytes | ReadProblem | str = overlay if overlay is not None else self.data[index]  # type: ignore[assignment]
            found = self.cache.facts.get(digest) if self.cache is not None and digest else None
            facts.append(found)
            if found is None:
                tasks.append((index, (data, source.module_name, source.is_package, digest)))
        self.facts = facts  # type: ignore[assignment]
        self.prepassed = [index for index, _ in tasks]
        return tasks

    def _prepass(self, tasks: list[tuple[int, worker.ScanTask]],
                 defer_compile: bool = False, pack: bool = False) -> None:
        """The pre-pass of the files the cache did not know (see _cached_facts), into `facts`;
        it empties `tasks`, which hold the files' bytes as read. `defer_compile` (a check, which
        computes the regions next): with a pool, the workers leave Python's compiler (a quarter
        of the pre-pass) to the engine, which asks it beside the regions
        (_regions_beside_verdicts); unjudged facts are cached only once judged. `pack`: the
        bytes are compressed (_pack_data) while the pool works, else once it is done; either
        way the bytes as read go with `tasks`, so no later process holds both copies."""
        facts = self.facts
        jobs = self.engine.jobs if len(tasks) >= _POOL_FROM else 1
        later = self._judged_later(tasks, jobs) if defer_compile and jobs > 1 and WorkerPool.forks() else set()

        def meanwhile() -> None:
            # This process only waits: it readies what the regions and the check would each
            # import on their critical path, and packs the bytes that the processes forked after
            # the pre-pass will hold (it competes for a core with the workers: 0.3 s on torch's tree).
            if pack:
                self._pack_data()
            _ready_for_the_check()

        with WorkerPool(jobs, worker.install, None) as pool:
            # Largest first: the pool balances better when the big files start early.
            order = sorted(range(len(tasks)), key=lambda i: -_size(tasks[i][1][0]))
            results = pool.map(worker.scan_task, [(tasks[i][1], i in later) for i in order], chunksize=8,
                               on_crash=worker.scan_crashed,
                               meanwhile=meanwhile)
        indices = [tasks[i][0] for i in order]
        tasks.clear()
        if pack:
            self._pack_data()  # with one job (no pool, nothing meanwhile): now the bytes as read go
        for index, result in zip(indices, results):
            facts[index] = result
            if self.cache is not None and result.digest and not result.unjudged:
                self.cache.facts.put(result.digest, result)

    def _seed_imported_helpers(self) -> None:
        """A file that imports a compile helper another file defines (`from utils import
        maybe_compile`, index/compilers.py) and calls it or decorates with it is summarized again
        with the helper known, so that its uses are compile sites as the defining file's own are.
        The pre-pass reads one file at a time: only here are both known. Few files do this (the
        helpers are rare: 2 of 5,251 files in timm, transformers and torch's tree define one).
        The new facts are digested with the helpers they were given (their cache key, and what
        the file's cached findings and every reader of its index depend on), so a change of the
        helper changes them; they are judged by Python's compiler now, never left to the regions
        (whose verdicts go to the cache under the file's own digest)."""
        facts = self.facts
        exported = {f"{self.sources[i].module_name}.{name}": Compiler(kind, position, options)
                    for i, found in enumerate(facts) for name, kind, position, options in found.helpers}
        if not exported:
            return
        for index, found in enumerate(facts):  # re-exported by a package (`from .utils import maybe_compile`)
            if self.sources[index].is_package and found.problem is None:
                package = self.sources[index].module_name
                exported.update({f"{package}.{local}": exported[name] for local, name in found.summary().aliases
                                 if name in exported})
        for index, found in enumerate(facts):
            if found.problem is not None or (exported.keys().isdisjoint(found.imported_callees)
                                             and exported.keys().isdisjoint(found.imported_decorators)):
                continue
            seeded = {local: exported[name] for local, name in found.summary().aliases if name in exported}
            text = self._text(index)
            if not seeded or isinstance(text, ReadProblem):
                continue
            key = _digest("helpers", found.digest, sorted((local, helper.kind, helper.position, helper.options)
                                                          for local, helper in seeded.items()))
            again = self.cache.facts.get(key) if self.cache is not None else None
            if again is None:
                source = self.sources[index]
                again = scan_text(text, key, source.module_name, source.is_package, helpers=seeded)
                if self.cache is not None and again.digest:  # ("" after an internal error: never cached)
                    self.cache.facts.put(key, again)
                    if found.unjudged and again.problem is None:  # the same text, judged now: so are these
                        self.cache.facts.put(found.digest, replace(found, unjudged=False))
            facts[index] = again

    def _judged_later(self, tasks: list[tuple[int, worker.ScanTask]], jobs: int) -> set[int]:
        """The tasks (by position) whose compiler verdicts wait for the regions (see _prepass):
        what the cores the regions leave (one job fewer) can judge while they are computed, the
        smallest files first (the pool scans the largest first). Asked afterwards, a verdict
        compiles the text again (a quarter more than compiling the pre-pass's tree): deferring
        more than those cores judge meanwhile costs more than it saves (on torch's tree the
        verdicts of every file cost five times the regions). Both costs are estimated before
        either is known, from the bytes: the regions' walk from how many functions it starts at
        (a `def forward` each where forwards are assumed compiled, else a compile call), the
        verdicts from the size of the text; both scale alike with the machine. Of these, only
        a file whose walk found something the compiler may refuse waits (scan.compiled_verdict:
        a small share of a tree, docs/speed.md); which those are is known only once it is walked,
        so the budget counts every file's bytes and defers fewer than the cores could judge."""
        config = self.config
        starts = b"def forward" if config.assume_forward_compiled else b"compile("
        data = [task[1][0] for task in tasks]
        walk = sum(text.count(starts) for text in data if isinstance(text, bytes))
        budget = (jobs - 1) * walk * _JUDGED_BESIDE_A_START
        later: set[int] = set()
        for position in sorted(range(len(tasks)), key=lambda i: _size(data[i])):
            budget -= _size(data[position])
            if budget < 0:
                break
            later.add(position)
        return later

    def verdict(self, index: int) -> ReadProblem | None:
        """Python's compiler on a file the pre-pass left to it (see _prepass): its BL001 when
        it refuses it (the pre-pass's, had it asked)."""
        text = self._text(index)
        return text if isinstance(text, ReadProblem) else compiler_verdict(text)

    def _judged_here(self, unjudged: list[int]) -> bool:
        """The verdicts asked in this process (see _judged)."""
        verdicts = {index: self.verdict(index) for index in unjudged}
        return self._judged(unjudged, {index: problem for index, problem in verdicts.items() if problem is not None})

    def _judged(self, unjudged: list[int], refused: dict[int, ReadProblem]) -> bool:
        """The verdicts into `facts` (a refused file's facts are its BL001), and the cache;
        whether every file was taken."""
        for index in unjudged:
            facts = self.facts[index]
            problem = refused.get(index)
            if problem is None:
                facts = replace(facts, unjudged=False)
            else:
                facts = FileFacts(facts.digest, problem, b"", "", False, False, facts.maybe_suppressed, facts.size)
            self.facts[index] = facts
            if self.cache is not None and facts.digest:
                self.cache.facts.put(facts.digest, facts)
        return not refused

    def _pack_data(self) -> None:
        """Compress the files' bytes when they are many (below _RAW_BYTES they stay as read), once,
        before the processes that would each hold them start (the pre-pass's workers, forked
        first, share them as read while this process packs them: _prepass), and after a cold
        pre-pass with one job (this process keeps them to the end of the run): a warm run keeps
        them as read (a warm run on torch's tree spent 0.34 s of 0.9 s compressing bytes it
        never read again)."""
        if self._packed:
            return
        self._packed = True
        if sum(len(data) for data in self.data if type(data) is bytes) > _RAW_BYTES:
            self.data = [_Packed(zlib.compress(data, 1)) if type(data) is bytes else data for data in self.data]

    @property
    def project(self) -> ProjectIndex:
        """Every file that has a summary, each module built (from it) only when looked up."""
        if self._project is None:
            built = self._built = [0]
            self._project = ProjectIndex(
                PendingModule(s.module_name, s.path, self._module_builder(i, built), s.display, self.facts[i].has_sites,
                              self.facts[i].class_bases)
                for i, s in enumerate(self.sources) if self.facts[i].problem is None
            )
        return self._project

    def _module_builder(self, index: int, built: list[int]) -> Callable[[], ModuleIndex]:
        """`built` counts the project's modules built (release_index: counting its slots after
        every file walked all of them, thousands on a large tree)."""
        source, facts = self.sources[index], self.facts[index]

        def build() -> ModuleIndex:
            built[0] += 1
            return shallow_module(facts.summary(), source.path, source.display,
                                  lambda: self._tree_module(index), self.fragments, self.deep_reads.add,
                                  self._record_read, lambda: self._content_text(index))
        return build

    def _record_read(self, path: Path, what: str) -> None:
        """By file, each part read once (the regions of the whole of transformers read 98k:
        kept as (path, what) pairs and then as dependency names, they were 40 MB of a process
        that must stay under 600 MB); a part's name is interned, as most files are read for the
        same few (`functions:forward`)."""
        if self.recording:
            whats = self.reads.get(path)
            if whats is None:
                whats = self.reads[path] = set()
            whats.add(sys.intern(what))

    def _tree_module(self, index: int) -> ModuleIndex:
        """A file's index built from its libcst tree, the last few kept (a rule that reads one
        file's tree, such as its compile site's, reads it for every file it checks)."""
        path = self.sources[index].path
        found = self._trees.pop(path, None)
        if found is None:
            try:
                found = self._deep_module(index, whole=True)
            except _Unparsable:  # its own check says BL001; to the others it defines nothing
                found = self._opaque_module(index)
            while len(self._trees) >= _KEPT_TREES:
                del self._trees[next(iter(self._trees))]
        self._trees[path] = found
        return found

    def _deep_module(self, index: int, whole: bool = False) -> ModuleIndex:
        """A file's index built from its libcst tree (parsed here). `whole`: parse all of it (another
        file's tree a rule reads), not only the code the rules visit."""
        source = self.sources[index]
        text = self._text(index)
        summary = self.facts[index].summary()
        ahead = self.ahead.pop(index, None) if not whole else None
        if ahead is not None and self._holds_regions(index, ahead[0], summary):
            parsed = ahead[1]  # parsed while the regions were computed (parse_ahead)
        else:
            parsed = self._parsed(index, summary, text, None if whole else self._region_ordinals(index, summary))
        self.work.libcst_files += 1
        if isinstance(parsed, ReadProblem):
            self.work.libcst_chars += len(text) if isinstance(text, str) else 0
            raise _Unparsable(parsed)
        self.work.libcst_chars += parsed.tree_chars
        if parsed.partial:
            parsed.whole = WholeFile(parsed, lambda code: parse_safely(cst.parse_module, code), self._parsed_whole)
        module = bind_tree(shallow_module(summary, source.path, source.display, lambda: module, self.fragments),
                           parsed, summary)
        if parsed.region is not None and parsed.region.bodiless and isinstance(text, str):
            unbind_bodiless(module, summary, parsed.region.bodiless, text, self.fragments)
        return module

    def _parsed(self, index: int, summary: ModuleSummary, text: str | ReadProblem,
                chosen: Iterable[int] | None) -> ParsedFile | ReadProblem:
        """The file parsed by libcst: the code of the defs at positions `chosen` (None: all of
        it), unless a rule reads the whole file."""
        source = self.sources[index]
        buffer = self.engine.parse_buffer if source.path in self.overlays else None
        parse = (lambda code: buffer(source.path, code)) if buffer is not None else None
        visited = self._visited_lines(index, summary, text, chosen) if chosen is not None else None
        return parse_file(source.path, self.shown_from, text, (source.module_name, source.is_package), parse,
                          visited, self.facts[index].blocks())

    def _region_ordinals(self, index: int, summary: ModuleSummary) -> Iterable[int]:
        """The positions among the file's defs of the functions the rules visit: its regions',
        every one under `--scope all`."""
        if self.config.scope == "all":
            return range(len(summary.functions))
        return (ordinal for ordinal, _ in self.regions[index].regions)

    def _parsed_whole(self, text: str) -> None:
        """A rule read the whole tree of the file it checks: libcst's work."""
        self.work.whole_trees += 1
        self.work.libcst_chars += len(text)

    def _visited_lines(self, index: int, summary: ModuleSummary, text: str | ReadProblem,
                       chosen: Iterable[int]) -> list[tuple[int, int]] | None:
        """The line ranges of the defs at positions `chosen` (the functions the rules visit in
        this file), or None when a rule reads the whole file."""
        if not isinstance(text, str) or any(
                cls.reads_whole_file(text) for cls in self.rules.for_file(self.sources[index].display) if not cls.meta):
            return None
        functions = summary.functions
        ranges = [(functions[o].line, functions[o].end_line) for o in chosen if o < len(functions)]
        return None if any(end < start for start, end in ranges) else ranges

    def _opaque_module(self, index: int) -> ModuleIndex:
        """A module that defines nothing, for a file the pre-pass read but libcst cannot parse
        (its own check says BL001)."""
        source = self.sources[index]
        summary = ModuleSummary(source.module_name, source.is_package, (), (), (), (), (), (), ())
        module = shallow_module(summary, source.path, source.display, lambda: module)
        parsed = ParsedFile(source.path, source.display, source.module_name, source.is_package, "", cst.Module(body=[]))
        return bind_tree(module, parsed, summary)

    def _content_text(self, index: int) -> str | None:
        """The file's text for a content view's defs (counted as libcst's work when parsed): a
        view does not keep it (view.read_alone); the last one decoded is kept here."""
        if self._last_text is not None and self._last_text[0] == index:
            return self._last_text[1]
        text = self._text(index)
        if isinstance(text, ReadProblem):
            return None
        self._last_text = (index, text)  # a reader often reads several defs of one file in a row
        if index not in self._content_read:
            self._content_read.add(index)
            self.work.content_texts += 1
        return text

    def _text(self, index: int) -> str | ReadProblem:
        """The file's text as the pre-pass read it (an overlay's text as given)."""
        overlay = self.overlays.get(self.sources[index].path)
        if overlay is not None:
            return overlay
        data = self.data[index]
        if data is None:  # not read by this run's pre-pass (not expected): read it now
            return read_source(self.sources[index].path)
        if isinstance(data, ReadProblem):
            return data
        return decode_source(zlib.decompress(data) if isinstance(data, _Packed) else data)

    def _compute_regions(self, indexed: list[int], unjudged: list[int]) -> dict[int, _FileRegions] | None:
        """Regions from the cache when nothing they were computed from has changed: the entry
        settings, which files may hold entry points, the list of modules, and — each checked
        like a cached finding's — every part of every module the computation read. `unjudged`
        (see _prepass) are judged first, or beside the regions (_regions_beside_verdicts); None
        when one of them was refused: the caller computes them again without it."""
        config = self.config
        candidates = {self.sources[i].path for i in indexed if self.facts[i].entry_candidate}
        key = _digest("regions", config.assume_forward_compiled, config.entry_points, str(self.shown_from),
                      sorted(map(str, candidates)),
                      [(str(self.sources[i].path), self.sources[i].module_name) for i in indexed])
        cached = self.cache.regions.get(key) if self.cache is not None else None
        apart = (self.engine.jobs > 1 or len(indexed) > _KEPT_MODULES) and WorkerPool.forks()
        if (cached is not None or not apart) and not self._judged_here(unjudged):
            return None
        if cached is not None:
            asked, by_path = cached
            holding = self._holding(asked)
            if holding is not None:
                if holding is not asked:
                    self.cache.regions.put(key, (holding, by_path))  # type: ignore[union-attr]
                return {i: by_path.get(str(self.sources[i].path), _NO_REGIONS) for i in indexed}
            unjudged = []  # judged above
        if apart:
            found = self._regions_beside_verdicts(candidates, unjudged, len(indexed))
            if found is None:
                return None
            by_path, deps = found
        else:
            by_path, deps = self.regions_computed(candidates)
        if self.cache is not None:
            self.cache.regions.put(key, (self._recorded(_dependencies(deps)), by_path))
        return {i: by_path.get(str(self.sources[i].path), _NO_REGIONS) for i in indexed}

    def _regions_beside_verdicts(self, candidates: set[Path], unjudged: list[int],
                                 modules: int) -> tuple[dict[str, _FileRegions], _Reads] | None:
        """The regions, with two jobs or more while other processes ask the compiler about the
        files the pre-pass left to it (None when it refused one). Where the check keeps the
        modules the regions build (at most _KEPT_MODULES), the regions are computed here, so
        that the check's workers inherit them (as one job keeps them: each worker built them
        again, a tenth of timm's check). Elsewhere, with any number of jobs, in a process of
        their own, which ends with them: the index it builds (most of the modules of a large
        tree: 500 MB on transformers) is freed, not merely released into this process's heap,
        which the check's workers would inherit and in which one job's check would grow on
        (the whole of transformers, one job: 630 MB in one process, 532 and 571 MB apart; the
        same time on torch's tree). The verdicts take every core the regions leave."""
        found: list[tuple[dict[str, _FileRegions], _Reads]] = []
        if unjudged or modules > _KEPT_MODULES:  # processes start
            self._pack_data()

        def regions() -> None:
            if modules <= _KEPT_MODULES:
                found.append(self.regions_computed(candidates))
                return
            with WorkerPool(2, worker.install, self) as alone:
                found.append(alone.apart(worker.regions_task, candidates,
                                         on_crash=lambda _, why: self._regions_failed(candidates, why),
                                         meanwhile=_ready_for_the_check))

        if not unjudged:
            regions()
            return found[0]
        order = sorted(unjudged, key=lambda index: -self.facts[index].size)  # the largest first, as the pre-pass
        # The workers yield their cores to the regions; where the regions take a core here, one
        # worker fewer (a second one beside them, even niced, slowed them by a tenth on timm).
        workers = self.engine.jobs - (modules <= _KEPT_MODULES)
        with WorkerPool(max(workers, 2), worker.install_yielding, self) as pool:
            if workers > 1:
                verdicts = pool.map(worker.verdict_task, order, chunksize=8,
                                    on_crash=lambda index, _: self.verdict(index), meanwhile=regions)
            else:
                verdicts = pool.apart(worker.verdicts_task, order, on_crash=lambda _, why: list(map(self.verdict, order)),
                                      meanwhile=regions)
        refused = {index: problem for index, problem in zip(order, verdicts) if problem is not None}
        return found[0] if self._judged(unjudged, refused) else None

    def regions_computed(self, candidates: set[Path]) -> tuple[dict[str, _FileRegions], _Reads]:
        """The regions of every file (by path) and, for the cache, what their computation read
        (none without a cache)."""
        project = self.project
        looked_up = set(project.asked)
        self.reads.clear()
        self.deep_reads.clear()
        self.recording = self.cache is not None  # what was read is for the cache alone
        errors: dict[Path, list[tuple[str, str]]] = {}
        found: dict[Path, list[tuple[int, Region]]] = {}
        winners: set[Path] = set()
        config = self.config
        try:
            entries = find_entry_points(project, config.assume_forward_compiled, config.entry_points,
                                        project.select(lambda name, path: path in candidates))
            for fn, region in compute_regions(project, entries, _region_errors(errors)).items():
                path = fn.module.file.path
                found.setdefault(path, []).append((fn.ordinal, region))
                if fn.module.functions.get(fn.qualname) is fn:
                    winners.add(path)
            self.work.region_entries += len(entries)
            self.work.region_modules += project.by_name.built()
        except Exception as error:  # no regions at all: say so where the entry points may be, and go on
            found.clear()
            why = _internal("while finding the compiled regions", error) + "; no file was checked as compiled code"
            for path in candidates:
                errors.setdefault(path, []).append((why, "".join(traceback.format_exception(error))))
        finally:
            self.recording = False
        by_path = {str(path): _FileRegions(tuple(sorted(found.get(path, ()), key=lambda item: item[0])),
                                           path in winners, tuple(errors.get(path, ())))
                   for path in {*found, *errors}}
        deps: _Reads = _NO_READS
        if self.cache is not None:  # named by the caller, in its own process (_dependencies)
            deps = (tuple(project.asked - looked_up), tuple(map(str, self.deep_reads)),
                    {str(path): whats for path, whats in self.reads.items()})
        self.reads = {}
        self.deep_reads.clear()
        return by_path, deps

    def _regions_failed(self, candidates: set[Path], why: str) -> tuple[dict[str, _FileRegions], _Reads]:
        """The regions' process died (the OOM killer, a native crash): no regions, said where the
        entry points may be."""
        message = (f"internal error while finding the compiled regions: the process died ({why})"
                   "; no file was checked as compiled code")
        return {str(path): _FileRegions((), False, ((message, ""),)) for path in candidates}, _NO_READS

    @property
    def fingerprint(self) -> Callable[[str], Any]:
        """What a dependency of a cached result is worth now (see _fingerprints), made once."""
        if self._fingerprint is None:
            self._fingerprint = self._fingerprints()
            self._file_digests = {str(source.path): facts.digest for source, facts in zip(self.sources, self.facts)
                                  if facts.problem is None}
        return self._fingerprint

    def _recorded(self, names: Iterable[str]) -> _Recorded:
        """What a cached result depends on (`names`), as `_holding` checks it later: each with
        what it is worth now, those that read another file grouped by that file with its digest.
        Everything a file's parts are worth follows from its digest, so a warm run checks the
        parts of the files that changed only (the regions of the whole of transformers read 98k
        parts: 0.2 s to check one by one after an edit of one file)."""
        fingerprint = self.fingerprint
        loose: list[tuple[str, Any]] = []
        by_file: dict[str, list[tuple[str, Any]]] = {}
        for name in names:
            path = _read_path(name)
            (loose if path is None else by_file.setdefault(path, [])).append((name, fingerprint(name)))
        return (tuple(loose), tuple((path, self._file_digests.get(path), tuple(items))
                                    for path, items in sorted(by_file.items())))

    def _holding(self, recorded: _Recorded) -> _Recorded | None:
        """None when something a cached result depends on has changed (see _recorded); else the
        record to keep: `recorded`, or a copy that holds the new digest of each file that changed
        in none of the parts read (else every later run would look at them again)."""
        fingerprint = self.fingerprint
        loose, by_file = recorded
        if not all(fingerprint(name) == print_ for name, print_ in loose):
            return None
        digests = self._file_digests
        moved = False
        for path, digest, items in by_file:
            if digest is None or digests.get(path) != digest:
                if not all(fingerprint(name) == print_ for name, print_ in items):
                    return None
                moved = True
        if not moved:
            return recorded
        return loose, tuple((path, digests.get(path), items) for path, _, items in by_file)

    def _check_deep(self, indices: list[int], ready: ReadyWorker | None = None,
                    heads: Sequence[HeadStart] = ()) -> list[Finding]:
        """The rules over every file with a region: cached findings where their inputs are
        unchanged, else libcst and the rules, in worker processes (in `ready` when there are
        at most _READY_FILES to check; shared with `heads`, which parsed some ahead)."""
        results: dict[int, tuple[Finding, ...]] = {}
        keys: dict[int, str] = {}
        for index in indices:
            keys[index] = self._findings_key(index)
            cached = self.cache.findings.get(keys[index]) if self.cache is not None else None
            if cached is not None:
                asked, findings = cached
                holding = self._holding(asked)
                if holding is not None:
                    results[index] = findings
                    if holding is not asked:
                        self.cache.findings.put(keys[index], (holding, findings))  # type: ignore[union-attr]
        todo = sorted((i for i in indices if i not in results), key=lambda i: -self.facts[i].size)
        checked: list[_Checked] | None = None
        if todo and ready is not None and len(todo) <= _READY_FILES:
            # Meanwhile this process, which only waits, writes what the check cannot change.
            cache = self.cache
            news = (self.regions, {i: self.facts[i] for i in self.prepassed})
            checked = ready.map(worker.check_task, todo, worker.adopt, news,
                                meanwhile=(lambda: cache.save(settled=True)) if cache is not None else None)
        elif ready is not None:
            ready.close()  # not needed: the cores are the pool's
        if len(todo) < 2:
            for head in heads:
                head.close()
            heads = ()
        if todo and checked is None:
            # What the regions built: the workers start without it. A full collection walks every
            # object (0.34 s on timm, a tenth of the parent's serial time with two jobs) and finds
            # garbage only where the index was just dropped (the regions make no cycles of their own).
            if self.release_index():
                gc.collect()
            gc.freeze()  # what is left lives to the end: keep the collector off it
            jobs = min(self.engine.jobs, len(todo))
            if jobs > 1:
                self._pack_data()
            worker.SERVED[:] = [self]  # forked workers inherit it; one job runs it right here
            try:
                with WorkerPool(jobs, worker.install, self) as pool:
                    # (No facts: the compiler's verdicts meanwhile changed only their `unjudged`
                    # marks, or refused a file, and then the head starts were given up.)
                    place = {index: position for position, index in enumerate(todo)}
                    settled = [(head, head.settle(worker.adopt_ahead, (self.regions, {}))) for head in heads]
                    live = [(head, sorted(place[i] for i in ahead if i in place))
                            for head, ahead in settled if ahead is not None]
                    if live:
                        checked = share(worker.check_task, todo, live, pool, on_crash=self._crashed)
                    else:
                        checked = pool.map(worker.check_task, todo, chunksize=1, on_crash=self._crashed)
            finally:
                worker.SERVED.clear()
                gc.unfreeze()
        if checked is not None:
            for index, result in zip(todo, checked):
                results[index] = result.findings
                if self.cache is not None and result.cacheable:
                    self.cache.findings.put(keys[index], (self._recorded(result.asked), result.findings))
        return [finding for index in indices for finding in results[index]]

    def _crashed(self, index: int, why: str) -> _Checked:
        message = f"internal error while checking this file: the worker process died ({why})"
        finding = self.rules.meta("BL005").make_finding(self.sources[index].display, Span(1, 1, 1, 1), message)
        return _Checked((finding,), (), cacheable=False)

    def release_index(self, above: int | None = None) -> bool:
        """Drop the modules built from the summaries (and the expressions and defs parsed for
        them) once more than `above` are built: the next lookups build them again. Called between
        files only (a file's rules match what they read by identity), so that a process's memory
        stays bounded however many modules its files read. Whether it dropped them: they are
        cyclic, so only the collector frees them (and not while they are frozen, worker.py)."""
        limit = _KEPT_MODULES if above is None else above
        if self._project is None or self._built[0] <= limit:
            return False
        # Their cycles broken, reference counting frees them (a collection that thaws what was
        # frozen walks every object of the process: 0.1 s a drop on torch's tree).
        for slot in self._project._slots:
            if slot.module is not None:
                release_bound(slot.module)
        for module in self._trees.values():
            release_bound(module)
        self._project = None
        self._built = [0]
        self.fragments = Fragments(self.fragments)
        self._trees.clear()
        self.drops += 1
        return True

    def check_file(self, index: int) -> _Checked:
        """libcst, the index from the tree, and the rules, for one file (in a worker or here).

        Other files are shallow (built from summaries) until a rule reads one's tree: then the
        file is checked again with that one built from its tree too, so that whatever the rule
        compares is what the reference pipeline would compare (rules match nodes by identity)."""
        source = self.sources[index]
        try:
            module = self._deep_module(index)
        except _Unparsable as error:  # Python's parser took what libcst refuses
            return _Checked((self.engine._problem(source.display, error.problem),), ())
        try:
            return self._check_parsed(index, module, roomy=False)
        except _NeedsRoom:  # a tree deeper than the default limit: all of it again, with room
            module.file.scope = None
            return with_room(lambda: self._check_parsed(index, module, roomy=True))
        finally:
            release_bound(module)  # reference counting frees it and its tree (worker.check_task)

    def _check_parsed(self, index: int, module: ModuleIndex, roomy: bool) -> _Checked:
        source = self.sources[index]
        regions = {module.defined[ordinal]: region for ordinal, region in self.regions[index].regions
                   if ordinal < len(module.defined)}
        trees: dict[Path, ModuleIndex] = {}
        while True:
            view = self.project.replacing(module, *trees.values())
            self.deep_reads.clear()
            self.reads.clear()
            self.recording = True
            self.work.rule_passes += 1
            try:
                findings = self.engine._run_rules(module, view, regions, roomy)
            finally:
                self.recording = False
            read = {path for path in self.deep_reads if path != source.path and path not in trees}
            if not read:
                break
            for path in sorted(read):
                self.work.cross_file_trees += 1
                trees[path] = self._tree_module(self._position(path))
        deps = {_DEEP + str(path) for path in trees}
        deps.update(f"{_READ}{path}\0{what}" for path, whats in self.reads.items() if path != source.path
                    for what in whats)
        self.work.cross_file_reads += len(deps)
        return _Checked(tuple(findings), tuple(sorted(view.asked | deps)))

    def _position(self, path: Path) -> int:
        """Where `path` is in `sources`; the table is made once (once per checked file was
        quadratic on a large tree)."""
        if self._positions is None:
            self._positions = {s.path: i for i, s in enumerate(self.sources)}
        return self._positions[path]

    def _fingerprints(self) -> Callable[[str], Any]:
        """What each thing a checked file's rules may have read is worth now; a cached result
        stands while all of its are unchanged:
        - a module name looked up: the paths of the files that are that module (what was then
          read of them is recorded on its own, below);
        - every module (`project.modules`): the list of (path, module name);
        - the subclasses of a class by its name (`SUBCLASSES_OF`, ProjectIndex.subclasses): the
          (path, class) pairs whose bases name it (scan.FileFacts.class_bases);
        - one read of a module's index (`#path\0what`, view.py `Record`): its summary digest,
          or less — a name it does not define is "absent", compile sites it has none of "none";
          a def or class whose code was read (`code:functions:<qualname>`): its index entry and
          the text of its outermost definition (scan.text_digests), else the file's bytes;
        - another file's tree (`@path`): its bytes."""
        names: dict[str, list[tuple[str, str]]] = {}
        by_path: dict[str, FileFacts] = {}
        for source, facts in zip(self.sources, self.facts):
            if facts.problem is None:
                names.setdefault(source.module_name, []).append((str(source.path), facts.summary_digest))
                by_path[str(source.path)] = facts
        every = _digest(sorted((path, name) for name, items in names.items() for path, _ in items))

        subclassing: dict[str, list[tuple[str, str]]] | None = None  # base key -> (path, class qualname)

        def subclasses_of(name: str) -> tuple[tuple[str, str], ...]:
            nonlocal subclassing
            if subclassing is None:
                subclassing = {}
                for path, facts in by_path.items():
                    for key, qualname in facts.class_bases:
                        subclassing.setdefault(key, []).append((path, qualname))
            return tuple(sorted(subclassing.get(name, ())))

        known: dict[str, Any] = {}  # a warm run asks for the same few thousand, tens of thousands of times
        parts_of: dict[str, dict[str, str]] = {}  # path -> its part digests (scan.part_digests)

        def fingerprint(dependency: str) -> Any:
            found = known.get(dependency, known)
            if found is known:
                found = known[dependency] = compute(dependency)
            return found

        def compute(dependency: str) -> Any:
            if dependency == EVERY_MODULE:
                return every
            if dependency.startswith(SUBCLASSES_OF):  # which classes name a base by that name, where
                return subclasses_of(dependency[len(SUBCLASSES_OF):])
            if dependency.startswith(_DEEP):
                facts = by_path.get(dependency[len(_DEEP):])
                return facts.digest if facts is not None else None
            if dependency.startswith(_READ):
                path, _, what = dependency[len(_READ):].partition("\0")
                facts = by_path.get(path)
                if facts is None:
                    return None
                kind, _, key = what.partition(":")
                if kind == "code":  # a def's or class's code, read in a content view (view._content_view)
                    parts = parts_of.get(path)
                    if parts is None:
                        parts = parts_of[path] = dict(facts.parts)
                    inner, _, name = key.partition(":")
                    defined = facts.function_names if inner == "functions" else facts.class_names
                    if name not in defined:
                        return "absent"
                    text = parts.get(f"text:{name.partition('.')[0]}")
                    return (parts.get(key, facts.summary_digest), text) if text is not None else facts.digest
                if kind in ("functions", "classes") and key != "*":
                    defined = facts.function_names if kind == "functions" else facts.class_names
                    if key not in defined:
                        return "absent"
                elif kind == "sites" and not facts.has_sites:
                    return "none"
                elif kind == "local":
                    return key in facts.local_defs
                elif kind == "builds":
                    return classes_building(facts.summary(), key)
                elif kind == "content":  # its text or tree were read (ShallowFile.content)
                    return facts.digest
                parts = parts_of.get(path)
                if parts is None:
                    parts = parts_of[path] = dict(facts.parts)
                return parts.get(what, facts.summary_digest)  # `functions:*`: the whole summary
            return tuple(sorted(path for path, _ in names.get(dependency, ())))

        return fingerprint

    def _findings_key(self, index: int) -> str:
        """Messages name other files as shown from here (`via model.py:5`), and a caller may
        enable rules of its own: both are in the key."""
        config, source = self.config, self.sources[index]
        return _digest("findings", self.facts[index].digest, source.display, str(source.path), config.select,
                       config.extend_select,
                       config.ignore, sorted(config.per_file_ignores.items()), str(config.target_torch),
                       str(config.target_python), config.scope, self.regions[index], str(self.shown_from),
                       self.rule_names)

    @cached_property
    def rule_names(self) -> tuple[str, ...]:
        """The rules this run runs (the settings' own, or those a caller of the engine set):
        named once a run, not once a file (_findings_key)."""
        return tuple(f"{rule.__module__}.{rule.__qualname__}" for rule in self.rules.enabled)

    def _unused_suppressions(self, index: int) -> list[Finding]:
        source = self.sources[index]
        text = self._text(index)
        if isinstance(text, ReadProblem):
            return []
        suppressions = parse_suppressions(text)
        return apply_suppressions([], suppressions, lambda s, idle: self.engine._unused(source.display, s, idle))


@dataclass
class Work:
    """What a check did, counted where it happens (in the process that did it): files and
    characters parsed by libcst, whole trees read beside a file's region code, rule passes over a file, other files' trees built for a rule,
    reads of other modules a file's findings depend on, other files read for a def or class alone
    (and the characters of those defs), and expressions parsed from the index (by libcst, and
    by the `ast` for the spine infra/lazy.py builds)."""

    libcst_files: int = 0
    libcst_chars: int = 0
    rule_passes: int = 0
    cross_file_trees: int = 0
    cross_file_reads: int = 0
    content_texts: int = 0  # other files whose defs were parsed on their own for a reader
    whole_trees: int = 0  # checked files whose whole tree a rule read (libcst parsed their regions only)
    # The regions' entry points, and the modules built from summaries once the regions are known
    # (what the regions' process holds: its memory on a large tree grows with them).
    region_entries: int = 0
    region_modules: int = 0

    def counted(self, fragments: Fragments) -> dict[str, int]:
        return {**vars(self), "fragments_parsed": fragments.parsed(), "fragments_shaped": fragments.shaped(),
                "libcst_chars_alone": fragments.alone_chars}


class _Packed(bytes):
    """A file's bytes, zlib-compressed (_Run._pack_data)."""


class _NeedsRoom(Exception):
    """A RecursionError while checking a file, on the first try: try again with room."""


class _Unparsable(Exception):
    """A file the pre-pass summarised but libcst cannot parse: its BL001."""

    def __init__(self, problem: ReadProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


_NO_REGIONS = _FileRegions((), False)
_POOL_FROM = 64  # files to pre-pass for a pool of workers (fewer: in this process)
_AHEAD_CHARS = 2_000_000  # region text a head-start worker parses at most (its trees stay: about 75 bytes a character)
_READY_FILES = 2  # files to check in a ready worker (more: a pool, each worker importing libcst meanwhile)
_KEPT_TREES = 8
# Modules built from summaries that a process keeps between files (see _Run.release_index): about
# 150 KB each with what was parsed for them; the whole of transformers is 3,000.
_KEPT_MODULES = 400
# Bytes of source whose compiler verdicts one core asks in the time the regions' walk takes for
# each function it starts at (_Run._judged_later): measured 5-10 KB on timm, torch's tree and
# transformers (the walk 0.5-0.85 ms a `def forward`, a verdict 0.07-0.1 s a MB).
_JUDGED_BESIDE_A_START = 8 * 1024
# Below this many bytes of source in all, a run keeps the files' bytes as read (_Run._pack_data).
_RAW_BYTES = 16 * 1024 * 1024
_DEEP = "@"  # in a checked file's dependencies: another file's tree was read (not a module name)
_READ = "#"  # ... a part of another module's index was read
# A cached result's dependencies (_recorded): those that read no file, each with its
# fingerprint; and by file read, its digest then and each of its parts with its fingerprint.
_Recorded = tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, str | None, tuple[tuple[str, Any], ...]], ...]]


def _read_path(dependency: str) -> str | None:
    """The file a dependency reads (a tree, a part of its index), else None (a module name)."""
    if dependency.startswith(_DEEP):
        return dependency[len(_DEEP):]
    if dependency.startswith(_READ):
        return dependency[len(_READ):].partition("\0")[0]
    return None


def _size(data: object) -> int:
    return len(data) if isinstance(data, (bytes, str)) else 0
