"""The call of a nonstrict_trace function whose body breaks: Dynamo breaks there first.

Dynamo does not trace a `nonstrict_trace` body; it runs it non-strictly at the call. A
data-dependent value in the body (`.item()`, a tensor branch, `nonzero`) makes that fail: Dynamo
breaks at the call (`Unsupported output type for nonstrict_trace-ed function`, GB0251), runs the
function as a frame of its own, and breaks again in the body (torch 2.13, checked on the real
compiler). The rules that report the body (Rule.applies_nonstrict) mix this in to report the
call as well, once (the first rule to finish the file claims it) — when the call and the
decorated function are in the same file, since a file's rules only see that file. Once the
non-strict trace has failed, Dynamo traces the function as a frame of its own, strictly: Python
side effects in that body then break too, which is not reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from breaklint.finding import Confidence, Region, Severity, Span
from breaklint.rule import (CallResolver, escape_hatch, FileContext, FunctionInfo, GB_IN_LOOP, has_gb_id,
                            NONSTRICT_NAMES, Rule)

GB_NONSTRICT = "GB0251"
NONSTRICT_SAYS = {GB_NONSTRICT: "Unsupported output type for nonstrict_trace-ed function"}


@dataclass(frozen=True)
class _CallSite:
    target: FunctionInfo
    span: Span
    region: Region
    in_loop: bool


class NonstrictCallSites(Rule):
    """Reports, once the file is read, each call from a compiled region to a nonstrict_trace
    function of this file in whose body (or callees) the rule reported something."""

    file_scope = True

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._sites: list[_CallSite] = []
        self._broken: dict[FunctionInfo, int] = {}  # nonstrict_trace function -> first line flagged

    @classmethod
    def reads_whole_file(cls, text: str) -> bool:
        return "nonstrict_trace" in text

    def report(self, node: cst.CSTNode, *, confidence: Confidence, says: str | tuple[str, ...] | None = None,
               **fields: str) -> None:
        super().report(node, confidence=confidence, says=says, **fields)
        region = self.ctx.region
        if region is not None and region.nonstrict and self.file_hooks():
            root = self._nonstrict_root(region)
            if root is not None and root not in self._broken:
                self._broken[root] = self.ctx.file.line(node)

    def _nonstrict_root(self, region: Region) -> FunctionInfo | None:
        """The decorated function the chain entered non-strict tracing at (in this file)."""
        for qualname in region.path:
            fn = self.ctx.module.functions.get(qualname)
            if fn is not None and escape_hatch(fn) in NONSTRICT_NAMES:
                return fn
        return None

    def file_visit_Call(self, node: cst.Call) -> None:
        region = self.ctx.region
        if region is None or region.nonstrict or self.ctx.untraced_depth:  # file hooks see untraced code too
            return
        if not isinstance(node.func, (cst.Name, cst.Attribute)):
            return
        targets = CallResolver(self.ctx.project).function_refs(node.func, self.ctx.function)
        for target in targets:
            if target.module is self.ctx.module and escape_hatch(target) in NONSTRICT_NAMES:
                self._sites.append(_CallSite(target, self.ctx.file.span(node), region, self.ctx.loop_skips_frame(node)))

    def end_file(self) -> None:
        target = self.ctx.target_torch
        for site in self._sites:
            line = self._broken.get(site.target)
            if line is None or site.span.start_line in self.ctx.claimed:
                continue  # a clean body, or another rule reported this call (one break)
            self.ctx.claimed.add(site.span.start_line)
            text = (f"call of nonstrict_trace function `{site.target.qualname}` in compiled region "
                    f"{site.region.describe()}: its body has a {self.name} break (line {line}), so the "
                    "non-strict trace fails and Dynamo breaks at this call too")
            severity = None
            if site.in_loop:
                gb_id, gb_type = GB_IN_LOOP
                cite = f' ("{gb_type}", {gb_id})' if has_gb_id(gb_id, target) else ""
                text += f"; inside a loop, so Dynamo skips the whole function{cite}"
                severity = Severity.ERROR
            self.ctx.emit(self.make_finding(self.ctx.file.display, site.span, text, Confidence.CERTAIN,
                                            site.region, GB_NONSTRICT, target=target, severity=severity))
