"""confirm targets for rules whose proof needs a run (CUDA graphs, the recompile probe) (run on a GPU by benchmarks/gpu/run_gpu.sh):
`breaklint confirm testdata/confirm_targets --check testdata/rules/BL501 ... --check testdata/rules/BL210`."""
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



@breaklint.example
def static_shapes():
    """BL210's positive, compiled as its decorator says (dynamic=False): the recompile probe's
    other batch size fails a size guard, which confirms the finding."""
    x = torch.randn(64, 64, device=DEVICE)
    return breaklint.Example(_bad("BL210", "per_shape"), (x,), probe_args=(x[:16],),
                             compile_options={"dynamic": False})


@breaklint.example
def cpu_copy():
    """BL502's positive: the copy to the CPU runs outside CUDA graphs (graph partition)."""
    return breaklint.Example(_bad("BL502", "standardize"), (torch.randn(64, 64, device=DEVICE),))


@breaklint.example
def cond_branch():
    """BL503's positive: torch.cond makes Inductor skip CUDA graphs for the whole graph."""
    return breaklint.Example(_bad("BL503", "clip_update"), (torch.randn(64, 64, device=DEVICE),))


@breaklint.example
def mask_assignment():
    """BL504's positive: the boolean-mask index_put_ falls back and runs outside CUDA graphs."""
    return breaklint.Example(_bad("BL504", "impute_missing_rows"), (torch.randn(64, 64, device=DEVICE),))
