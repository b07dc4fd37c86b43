"""Run every corpus model through real Dynamo and write what it did as JSON.

    python dynamo_worker.py OUT.json [CASE ...]

For each model (on a fresh Dynamo cache): an eval forward under `no_grad`, a train forward, a
train forward with another batch size, and, for the text and audio models, a train forward on a
padded batch (with its `attention_mask`; Longformer also with global attention on the first token). Graph breaks and recompiles come from Dynamo's own logs
(`breaklint.confirm.capture`), not from `explain()`, which misses breaks.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import traceback
from pathlib import Path

import torch

from breaklint.confirm.capture import capture_dynamo
from corpus import CASES


def run_case(case) -> dict:  # type: ignore[no-untyped-def]
    torch._dynamo.reset()
    torch.manual_seed(0)
    error = None
    with capture_dynamo() as capture:
        try:
            model = case.build()
            compiled = torch.compile(model, backend="eager")
            model.eval()
            with torch.no_grad():
                compiled(*case.inputs(2))
            model.train()
            compiled(*case.inputs(2))
            compiled(*case.inputs(3))
            if case.masked is not None:  # a padded batch, as task heads and loaders call it
                # On a fresh cache: a frame skipped in the calls above (a break in a loop marks
                # its code as skipped for good) would hide what the mask's path does in it.
                torch._dynamo.reset()
                compiled(*case.inputs(2), **case.masked(2))
        except Exception as exc:  # a model that fails is reported, the others still run
            error = "".join(traceback.format_exception_only(exc)).strip()[-2000:]
    return {
        "graph_breaks": [dataclasses.asdict(b) for b in capture.graph_breaks],
        "recompiles": [dataclasses.asdict(r) for r in capture.recompiles],
        "graphs": capture.graphs_compiled,
        "error": error,
    }


def main(out: str, names: list[str]) -> None:
    results = {case.name: run_case(case) for case in CASES if not names or case.name in names}
    Path(out).write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
