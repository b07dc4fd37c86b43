"""check: files -> parse -> project index -> regions -> rules -> findings -> suppressions."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import libcst as cst

from .config import Config
from .files import DEFAULT_EXCLUDE, ReadProblem, discover, display_path, read_source
from .finding import Finding, Span
from .patterns import untraced_blocks
from .project import FunctionInfo, ModuleIndex, ProjectIndex, build_module_index, module_name_for
from .regions import compute_regions, find_entry_points
from .registry import RuleSet
from .rule import FileContext, Rule
from .source import ParsedFile
from .suppress import Suppression, apply_suppressions, parse_suppressions


@dataclass(frozen=True)
class CheckResult:
    findings: list[Finding]
    files_checked: int
    seconds: float


def parse_file(path: Path, root: Path, text: str | None = None) -> ParsedFile | ReadProblem:
    """`text`: the file's content when it is not read from disk (an editor's unsaved buffer)."""
    if text is None:
        text = read_source(path)
    if isinstance(text, ReadProblem):
        return text
    try:
        tree = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        return ReadProblem("BL001", f"syntax error: {error.message}", error.raw_line, error.raw_column + 1)
    except RecursionError:
        return ReadProblem("BL001", "syntax error: expression nested too deeply to parse")
    module_name, is_package = module_name_for(path)
    return ParsedFile(path, display_path(path, root), module_name, is_package, text, tree)


class _Dispatcher(cst.CSTVisitor):
    """One traversal per file for every rule; rules only see code in scope.

    A rule that raises is switched off for the rest of the file and reported as BL005; the
    other rules go on."""

    def __init__(self, ctx: FileContext, rules: Sequence[Rule], on_error: Callable[[Rule, BaseException], None]) -> None:
        self.ctx = ctx
        self.on_error = on_error
        self.failed: set[int] = set()
        self.untraced: set[cst.CSTNode] = set()  # e.g. the body of `if not is_compiling():`
        self.untraced_depth = 0
        self.visitors: dict[str, list[tuple[Rule, Callable[[cst.CSTNode], None]]]] = {}
        self.leavers: dict[str, list[tuple[Rule, Callable[[cst.CSTNode], None]]]] = {}
        for rule in rules:
            for attribute in dir(rule):
                if attribute.startswith("visit_"):
                    self.visitors.setdefault(attribute[6:], []).append((rule, getattr(rule, attribute)))
                elif attribute.startswith("leave_"):
                    self.leavers.setdefault(attribute[6:], []).append((rule, getattr(rule, attribute)))

    def _dispatch(self, handlers: list[tuple[Rule, Callable[[cst.CSTNode], None]]], node: cst.CSTNode) -> None:
        for rule, handler in handlers:
            if id(rule) in self.failed:
                continue
            try:
                handler(node)
            except Exception as error:  # one broken rule must not hide the others' findings
                self.failed.add(id(rule))
                self.on_error(rule, error)

    def _active(self) -> bool:
        return self.ctx.active and not self.untraced_depth

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.FunctionDef):
            info = self.ctx.functions_by_node.get(node)
            if info is not None:
                self.ctx.function_stack.append(info)
        elif isinstance(node, cst.If):
            self.untraced.update(untraced_blocks(node, self.ctx.resolve))
        if node in self.untraced:
            self.untraced_depth += 1
        if self._active():
            self._dispatch(self.visitors.get(type(node).__name__, []), node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self._active():
            self._dispatch(self.leavers.get(type(original_node).__name__, []), original_node)
        if original_node in self.untraced:
            self.untraced_depth -= 1
        if isinstance(original_node, cst.FunctionDef) and original_node in self.ctx.functions_by_node:
            self.ctx.function_stack.pop()


class Engine:
    def __init__(self, config: Config, rules: RuleSet, verbose: bool = False) -> None:
        self.config = config
        self.rules = rules
        self.verbose = verbose

    def check(self, paths: Sequence[Path], force_exclude: bool = False) -> CheckResult:
        started = time.perf_counter()
        config = self.config
        exclude = (*(config.exclude or DEFAULT_EXCLUDE), *config.extend_exclude)
        files, problems = discover(paths, config.root, exclude, force_exclude)
        shown_from = Path.cwd()  # paths print relative to where the user stands, like ruff
        findings = [self._problem(display_path(p, shown_from), problem) for p, problem in problems]
        parsed: list[ParsedFile] = []
        for path in files:
            result = parse_file(path, shown_from)
            if isinstance(result, ReadProblem):
                findings.append(self._problem(display_path(path, shown_from), result))
            else:
                parsed.append(result)
        modules = [build_module_index(p) for p in parsed]
        project = ProjectIndex(modules)
        entries = find_entry_points(project, config.assume_forward_compiled, config.entry_points)
        regions = compute_regions(project, entries)
        for module in modules:
            findings.extend(self._check_module(module, project, regions))
        findings.sort(key=lambda f: f.sort_key)
        return CheckResult(findings, len(files), time.perf_counter() - started)

    # --- for the language server (breaklint/workspace.py), which caches the modules it indexed
    def check_indexed(self, modules: Sequence[ModuleIndex], targets: Sequence[ModuleIndex]) -> list[Finding]:
        """Findings for `targets` only, with compiled regions computed over all of `modules`."""
        project = ProjectIndex(modules)
        entries = find_entry_points(project, self.config.assume_forward_compiled, self.config.entry_points)
        regions = compute_regions(project, entries)
        findings = [f for module in targets for f in self._check_module(module, project, regions)]
        return sorted(findings, key=lambda f: f.sort_key)

    def _check_module(self, module: ModuleIndex, project: ProjectIndex,
                      regions: dict[FunctionInfo, object]) -> list[Finding]:
        file = module.file
        rule_classes = self.rules.for_file(file.display)
        if not rule_classes:
            return []
        raw: list[Finding] = []
        functions = {fn.node: fn for fn in module.functions.values()}
        has_region = any(fn in regions for fn in functions.values())
        if not (has_region or (self.config.scope == "all" and functions)):
            rules: list[Rule] = []
        else:
            ctx = FileContext(
                file=file, module=module, project=project, regions=regions,  # type: ignore[arg-type]
                functions_by_node=functions, target_torch=self.config.target_torch,
                scope_all=self.config.scope == "all", emit=raw.append,
            )
            rules = [cls(ctx) for cls in rule_classes if not cls.meta]

            def internal_error(rule: Rule | None, error: BaseException) -> None:
                where = f"in rule {rule.code} ({rule.name})" if rule else "while checking this file"
                raw.append(self.rules.meta("BL005").make_finding(
                    file.display, Span(1, 1, 1, 1),
                    f"internal error {where}: {type(error).__name__}: {error}",
                    details="".join(traceback.format_exception(error)),
                ))

            try:
                file.tree.visit(_Dispatcher(ctx, rules, internal_error))
            except Exception as error:  # the engine itself failed on this file: keep the others
                internal_error(None, error)
        suppressions = parse_suppressions(file.text)
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
        return rule.make_finding(path, span, problem.message)
