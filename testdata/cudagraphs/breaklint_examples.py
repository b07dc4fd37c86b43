"""confirm targets for the CUDA-graph rules' positives (run on a GPU by benchmarks/gpu/run_gpu.sh):
`breaklint confirm testdata/cudagraphs --check testdata/rules/BL501`."""
import importlib.util
from pathlib import Path

import torch

import breaklint

RULES = Path(__file__).resolve().parent.parent / "rules"
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def _bad(code: str, name: str):
    spec = importlib.util.spec_from_file_location(f"bad_{code}", RULES / code / "bad.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)._torchdynamo_orig_callable  # confirm compiles it per stage


@breaklint.example
def mutated_input():
    return breaklint.Example(_bad("BL501", "add_in_place"), (torch.randn(64, 64, device=DEVICE),))

