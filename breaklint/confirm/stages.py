"""The stages of torch.compile that confirm runs, in order: what each one adds to the last."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CompilerStage:
    """A rung of the ladder (the confirm run's stage; `finding.Stage` is the stage a rule hurts)."""

    name: str
    title: str  # for the ladder
    options: dict[str, Any] | None  # torch.compile keyword arguments; None: run eagerly
    needs_cuda: bool = False
    inductor: bool = False  # generated code can be inspected


STAGES: tuple[CompilerStage, ...] = (
    CompilerStage("eager", "eager", None),
    CompilerStage("dynamo", "dynamo (capture)", {"backend": "eager"}),
    CompilerStage("aot_eager", "aot_eager", {"backend": "aot_eager"}),
    CompilerStage("inductor", "inductor", {"backend": "inductor"}, inductor=True),
    CompilerStage("cudagraphs", "+ cudagraphs", {"backend": "inductor", "mode": "reduce-overhead"},
                  needs_cuda=True, inductor=True),
)
STAGE_NAMES = tuple(stage.name for stage in STAGES)
