from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.analysis.numpy_api import DRAWS_THAT_BREAK, is_scalar_draw, numpy_name
from breaklint.rule import Rule

# Read from real runs on torch 2.13 (testdata/rules/BL107): each of these breaks the graph.
# `random.randint`, `random.uniform`, `random.randrange`, `torch.seed()`, `np.random.seed()`,
# `os.environ`/`os.getenv` and `os.path.join` do not, and are not listed.
SKIPPED = "GB0007"  # C functions and modules on Dynamo's skip list
CALLS = {
    **{f"time.{n}": SKIPPED for n in ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic",
                                       "monotonic_ns", "process_time", "thread_time", "sleep")},
    **{f"random.{n}": SKIPPED for n in ("random", "choice", "choices", "shuffle", "sample", "gauss",
                                         "normalvariate", "lognormvariate", "getrandbits", "betavariate",
                                         "expovariate", "triangular", "seed", "getstate")},
    **{f"uuid.{n}": SKIPPED for n in ("uuid1", "uuid4")},
    "datetime.datetime.now": "GB0156", "datetime.datetime.utcnow": "GB0156", "datetime.date.today": "GB0156",
    **{f"torch.{n}": SKIPPED for n in ("manual_seed", "get_rng_state", "set_rng_state", "random.get_rng_state",
                                        "random.set_rng_state", "random.manual_seed")},
    "os.getpid": SKIPPED, "os.cpu_count": SKIPPED, "threading.current_thread": SKIPPED,
    "gc.collect": SKIPPED, "importlib.import_module": SKIPPED,
}
# NumPy draws of one Python scalar (no `size`) break; arrays are traced as torch random ops
# (breaklint/analysis/numpy_api.py). The `np.random` functions torch._numpy lacks are BL103's.


class UntraceableStdlibCall(Rule):
    """## What it does
    Finds calls in a compiled region to standard-library and RNG functions that Dynamo cannot
    trace: clocks (`time.time()`, `time.perf_counter()`, `time.sleep()`), Python's `random`
    (`random.random()`, `random.choice()`, `random.shuffle()`, `random.seed()`), `uuid`,
    `datetime.now()`, torch's global RNG state (`torch.manual_seed`, `torch.get_rng_state`),
    NumPy scalar draws (`np.random.rand()`, `np.random.uniform(0, 1)`) and every
    `np.random.choice(...)` (torch._numpy checks its probabilities with a Python `if` on a
    tensor), `os.getpid()`,
    `gc.collect()`, `importlib.import_module()`.

    ## Why is this bad?
    These functions are written in C or sit on Dynamo's skip list, and their results are not
    tensors: Dynamo ends the graph, calls them eagerly and resumes in a new graph. When the
    value is then used (`x * random.random()`), the resumed graph is specialised on it, so the
    next call with a new value recompiles too.

    ## How to fix
    Draw random numbers with torch (`torch.rand(())`, `torch.randint(...)`, `torch.randperm`):
    they are traced. Take times and seeds outside the compiled function and pass them in as
    tensors. `random.randint`/`random.uniform` happen to be traced in 2.13. For
    `np.random.choice(n, k, replace=False)` use `torch.randperm(n)[:k]`; with weights,
    `torch.multinomial(p, k)`.

    ## When it is fine
    Code outside the compiled region; a one-off debug measurement.

    ## Dynamo says
    `Attempted to call function marked as skipped` (GB0007) for `time`, `random`, `uuid`, `os`,
    `gc`, `importlib` and torch's RNG-state functions; `Unsupported method call` (GB0156) for
    `datetime.now()`; `Data dependent operator` (GB0033) for NumPy scalar draws and
    `np.random.choice`. The `np.random` functions that torch._numpy lacks
    (`np.random.permutation`, `np.random.default_rng`: GB0294) are BL103's.
    """

    code = "BL107"
    name = "untraceable-stdlib-call"
    stage = Stage.DYNAMO
    message = "`{function}()` in {region} cannot be traced (clock, RNG or OS call) and forces a graph break"
    help = (
        "use torch RNG (torch.rand, torch.randint) inside the region, or compute the value outside "
        "and pass it in as a tensor"
    )
    dynamo_says = {
        "GB0007": "Attempted to call function marked as skipped",
        "GB0156": "Unsupported method call",
        "GB0033": "Data dependent operator",
    }
    bad = (
        "import time\nimport torch\n\n@torch.compile\ndef f(x):\n    start = time.perf_counter()\n    return x * 2\n",
        "import random\nimport torch\n\n@torch.compile\ndef f(x):\n    return x * random.random()\n",
    )
    good = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * torch.rand(())\n",
        "import time\nimport torch\n\ndef f(x):\n    start = time.perf_counter()  # not compiled\n    return x * 2\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in CALLS:
            self.report(node, confidence=Confidence.CERTAIN, says=CALLS[resolved], function=resolved)
            return
        name = numpy_name(resolved)
        if name is not None:
            positional = [a for a in node.args if a.keyword is None and a.star == ""]
            sized = any(a.keyword is not None and a.keyword.value == "size" for a in node.args)
            if is_scalar_draw(name, len(positional), sized) or name in DRAWS_THAT_BREAK:
                self.report(node, confidence=Confidence.CERTAIN, says="GB0033", function=resolved)
