"""Survey: which patterns make Inductor skip or partition CUDA graphs on this GPU's torch?

    python3 benchmarks/gpu/probe_cudagraphs.py > probe.log   (run by benchmarks/gpu/run_gpu.sh)

Each case is compiled with mode="reduce-overhead", called a few times on CUDA inputs, and every
record of Inductor's `cudagraphs` / `perf_hints` artifacts is printed with the case it came from
(skips are WARNING, graph partitions DEBUG), with the cudagraph-skip counter and whether it ran;
the second half runs some cases again with graph partitioning off. It needs torch only: the
BL5xx rules were chosen from what this printed (benchmarks/results/gpu/probe.log).
"""

from __future__ import annotations

import inspect
import logging
import os
import traceback

import torch
import torch._dynamo
import torch._inductor.config as inductor_config
from torch._dynamo.utils import counters

DEV = os.environ.get("PROBE_DEVICE", "cuda")
RECORDS: list[str] = []


class _Keep(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        RECORDS.append(f"[{record.name.rsplit('.', 1)[-1]} {record.levelname}] {record.getMessage()}")


def _listen() -> None:
    import torch._inductor.scheduler  # noqa: F401  (its `cudagraphs` logger, for graph partitions)
    from torch._logging import _internal

    torch._logging.set_logs(cudagraphs=True, perf_hints=True, graph_breaks=True)

    for qname in sorted(_internal.log_registry.artifact_log_qnames):
        if qname.rsplit(".__", 1)[-1] in ("cudagraphs", "perf_hints", "graph_breaks"):
            logger = logging.getLogger(qname)
            logger.setLevel(logging.DEBUG)
            logger.addHandler(_Keep())
            logger.propagate = False


def cpu_output(x):
    return (x * 2).cpu()


def cpu_midway(x):
    s = x.sum(0).cpu()
    return x * s.to(x.device)


def to_cpu_string(x):
    return (x + 1).to("cpu")


def tensor_list_no_device(x):
    w = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    return x * w.to(x.device)


def tensor_list_cuda(x):
    return x * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]).cuda()


def arange_no_device(x):
    idx = torch.arange(x.shape[0])
    return x[idx.to(x.device)] * 2


def zeros_no_device_cpu_math(x):
    acc = torch.zeros(8)
    acc = acc + 1
    return x + acc.to(x.device)


def cuda_synchronize(x):
    y = x * 2
    torch.cuda.synchronize()
    return y + 1


def stream_synchronize(x):
    y = x * 2
    torch.cuda.current_stream().synchronize()
    return y + 1


def item_default(x):
    s = x.abs().max().item()
    return x / s


def item_captured(x):
    s = x.abs().max().item()
    return x / s


def nonzero_captured(x):
    idx = torch.nonzero(x[:, 0] > 0)
    return x[idx.squeeze(1)].sum(0)


def bool_index_put_vector(x):
    out = x * 1
    mask = x[:, 0] > 0
    out[mask] = torch.ones(8, device=x.device)
    return out


def bool_index_put_scalar(x):
    out = x * 1
    out[x > 0] = 0.0
    return out


def masked_fill(x):
    return x.masked_fill(x > 0, 0.0)


def cond_op(x):
    return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))


def where_op(x):
    return torch.where(x.sum() > 0, x * 2, x - 1)


def set_input(x):
    y = x * 2
    x.set_(y)
    return x + 1


def add_input(x):
    x.add_(1)
    return x * 2


def int_arg(x, n):
    return x * n


CASES = [cpu_output, cpu_midway, to_cpu_string, tensor_list_no_device, tensor_list_cuda, arange_no_device,
         zeros_no_device_cpu_math, cuda_synchronize, stream_synchronize, item_default, item_captured,
         nonzero_captured, bool_index_put_vector, bool_index_put_scalar, masked_fill, cond_op, where_op,
         set_input, add_input]
CAPTURE = {item_captured: {"capture_scalar_outputs": True},
           nonzero_captured: {"capture_dynamic_output_shape_ops": True}}


def run_case(fn, calls, compile_kwargs=None, dynamo_config=None) -> None:
    torch._dynamo.reset()
    RECORDS.clear()
    skips_before = counters["inductor"]["cudagraph_skips"]
    compiled = torch.compile(fn, mode="reduce-overhead", **(compile_kwargs or {}))
    status = "ran"
    try:
        with torch._dynamo.config.patch(**(dynamo_config or {})):
            for args in calls:
                compiled(*args)
                torch.compiler.cudagraph_mark_step_begin()
            torch.cuda.synchronize()
    except Exception as exc:  # a crash is a result too
        status = f"raised {type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
        RECORDS.append("".join(traceback.format_exc().splitlines(True)[-6:]))
    first = inspect.getsourcelines(fn)[1]
    print(f"=== {fn.__name__} (line {first}) {compile_kwargs or ''} {dynamo_config or ''}: {status}; "
          f"cudagraph_skips +{counters['inductor']['cudagraph_skips'] - skips_before}")
    for text in RECORDS:
        print("   ", text.replace("\n", "\n    "))


def main() -> None:
    print(f"torch {torch.__version__}; graph_partition={inductor_config.graph_partition}; "
          f"cudagraph_trees={inductor_config.triton.cudagraph_trees}; "
          f"warn_limit={inductor_config.triton.cudagraph_dynamic_shape_warn_limit}")
    _listen()
    for fn in CASES:
        run_case(fn, [(torch.randn(8, 8, device=DEV),) for _ in range(3)], dynamo_config=CAPTURE.get(fn))
    sizes = [(torch.randn(n, 8, device=DEV),) for n in range(2, 14)]
    run_case(where_op, sizes, {"dynamic": True})
    run_case(where_op, sizes)
    run_case(int_arg, [(torch.randn(8, 8, device=DEV), n) for n in range(2, 14)])
    with inductor_config.patch(graph_partition=False):
        print("--- graph_partition=False ---")
        for fn in (cpu_output, tensor_list_no_device, item_captured, bool_index_put_vector, cond_op, set_input):
            run_case(fn, [(torch.randn(8, 8, device=DEV),) for _ in range(3)], dynamo_config=CAPTURE.get(fn))


if __name__ == "__main__":
    main()
