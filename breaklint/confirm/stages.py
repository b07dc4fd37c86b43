"""The stages of torch.compile that confirm runs, in order: what each one adds to the last."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Stage:
    name: str
    title: str  # for the ladder
    options: dict[str, Any] | None  # torch.compile keyword arguments; None: run eagerly
    needs_cuda: bool = False
    inductor: bool = False  # generated code can be inspected


STAGES: tuple[Stage, ...] = (
    Stage("eager", "eager", None),
    Stage("dynamo", "dynamo (capture)", {"backend": "eager"}),
    Stage("aot_eager", "aot_eager", {"backend": "aot_eager"}),
    Stage("inductor", "inductor", {"backend": "inductor"}, inductor=True),
    Stage("cudagraphs", "+ cudagraphs", {"backend": "inductor", "mode": "reduce-overhead"},
          needs_cuda=True, inductor=True),
)
STAGE_NAMES = tuple(stage.name for stage in STAGES)
