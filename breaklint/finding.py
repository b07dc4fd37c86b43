"""The one data model every part of breaklint shares: findings and what they carry."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping


class Stage(str, enum.Enum):
    """The stage of torch.compile a finding hurts (the hundreds digit of its code)."""

    META = "meta"
    DYNAMO = "dynamo"
    GUARDS = "guards"
    AOT_AUTOGRAD = "aot_autograd"
    INDUCTOR = "inductor"
    CUDAGRAPHS = "cudagraphs"
    DISTRIBUTED = "distributed"  # DDP/FSDP and collectives around a compiled model (BL6xx)


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Confidence(str, enum.Enum):
    """How sure the static pass is. `certain`: the value is known to be a tensor. `possible`:
    the code breaks when it runs, but it sits in a branch that only runs for diagnostics (it only
    warns, logs or raises, under a test of Python values), or it is reached only under a setting
    the default configuration does not have (Region.gate); reported with severity `info`."""

    CERTAIN = "certain"
    LIKELY = "likely"
    POSSIBLE = "possible"


@dataclass(frozen=True, order=True)
class Span:
    """1-based lines, 1-based columns (in code points); the end is exclusive."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int


# The site of a region that is compiled only because every nn.Module.forward is assumed to be
# (the `assume-forward-compiled` setting, on by default).
ASSUMED = "assume-forward-compiled"
# Where a finding's message quotes Dynamo (Rule.make_finding): the text report shows it on a line
# of its own.
DYNAMO_SAYS = "; Dynamo: "


@dataclass(frozen=True)
class Region:
    """The compiled region a finding sits in: the traced entry point and how it is compiled."""

    entry: str  # "Net.forward"
    site: str  # "train.py:12", or "assume-forward-compiled", or "config"
    path: tuple[str, ...] = ()  # the call chain from the entry to the function with the finding
    # Reached through a `nonstrict_trace` function: Dynamo does not trace it, AOTAutograd traces
    # it non-strictly (Python side effects run, data-dependent values still break).
    nonstrict: bool = False
    entry_module: str = ""  # the module that defines the entry (rules read its config and decorators)
    # The region's functions that call this one, as (module, qualname, is an entry), when calls
    # are the only way the region reaches it (else empty): its parameters take the values they
    # pass (breaklint/analysis/arguments.py).
    callers: tuple[tuple[str, str, bool], ...] = ()
    # Reached only through code the default configuration does not run (configs.py): why, as
    # "`config.x` is true; the default is False". Its findings are `possible` (severity info).
    gate: str = ""
    # An inherited method reached as a subclass's (`RNN2dBase.forward` of an `LSTM2d`): that
    # class, as "module:qualname", so that `self.x` reads the subclass's assignments too.
    instance: str = ""
    # The default values of the settings this function's own code tests (configs.py), as
    # (subject, values): a finding in an arm of its own the defaults do not take is `possible`.
    settings: tuple[tuple[str, tuple[object, ...]], ...] = ()

    @property
    def assumed(self) -> bool:
        """Compiled only by the assumption that every nn.Module.forward is: no torch.compile
        call (or configured entry point) was seen to reach it."""
        return self.site == ASSUMED

    def describe(self) -> str:
        if self.assumed:
            return f"`{self.entry}` (assumed compiled: no torch.compile of it was seen; {ASSUMED} = false turns this off)"
        return f"`{self.entry}` via {self.site}"


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    message: str
    path: str
    span: Span
    severity: Severity
    confidence: Confidence
    stage: Stage
    help: str = ""
    region: Region | None = None
    gb_ids: tuple[str, ...] = ()
    url: str = ""
    details: str = field(default="", compare=False)  # e.g. a traceback, shown with --verbose
    # A recompile predicted at a call site: the line (in this file) of the compiled function that
    # will recompile, where `confirm` joins Dynamo's recompile of it (0: none).
    recompiles: int = field(default=0, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.span.start_line, self.span.start_col, self.code, self.message)


@dataclass(frozen=True)
class CheckResult:
    """What one check found, for the reporters (which know findings, not the engine)."""

    findings: list[Finding]
    files_checked: int
    seconds: float
    # What the check did, counted (check/engine.py `Work`; with one job, all of it): for the
    # work-count test and benchmarks, never for the reporters.
    work: Mapping[str, int] = field(default_factory=dict)
