"""Findings only a run can make: what the compiler did where no static rule predicted it.

They are rules in the registry (`breaklint rule BL190` documents one) but never visit code:
`confirm` emits them from runtime events. The x9x codes sit in the stage they report.
"""

from __future__ import annotations

from breaklint.rule import Rule

from .confirm_target_failed import ConfirmTargetFailed
from .runtime_aot_failure import RuntimeAotFailure
from .runtime_cudagraph_rerecord import RuntimeCudagraphRerecord
from .runtime_cudagraph_skip import RuntimeCudagraphSkip
from .runtime_graph_break import RuntimeGraphBreak
from .runtime_inductor_issue import RuntimeInductorIssue
from .runtime_recompile import RuntimeRecompile

OBSERVED_RULES: tuple[type[Rule], ...] = (
    ConfirmTargetFailed,
    RuntimeGraphBreak,
    RuntimeRecompile,
    RuntimeAotFailure,
    RuntimeInductorIssue,
    RuntimeCudagraphSkip,
    RuntimeCudagraphRerecord,
)
