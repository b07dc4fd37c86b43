"""breaklint.confirm.capture against the installed torch (run with backend="eager")."""

from __future__ import annotations

import inspect
import logging
import os
from typing import Any, Callable, Iterator

import pytest

pytestmark = pytest.mark.dynamo  # runs the real compiler (deselect with -m 'not dynamo')

torch = pytest.importorskip("torch")

from breaklint.confirm.capture import (  # noqa: E402
    Capture,
    capture_dynamo,
    lookup_gb_id,
    parse_graph_break,
    parse_recompile,
    registry_path,
)

if registry_path() is None:  # the expected ids below come from torch >= 2.8's registry
    pytest.skip("installed torch has no graph_break_registry.json", allow_module_level=True)

HERE = os.path.abspath(__file__)


def _line(fn: Callable[..., Any], marker: str) -> int:
    """Line number of the source line of `fn` that contains `marker`."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def _run(fn: Callable[..., Any], *calls: tuple[Any, ...], **options: Any) -> Capture:
    with capture_dynamo() as cap:
        compiled = torch.compile(fn, backend="eager", **options)
        for args in calls:
            compiled(*args)
    return cap


@pytest.fixture(autouse=True)
def _fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.fixture
def x() -> Any:
    return torch.randn(8, 8)


def item_break(x):
    y = x * 2
    return y.sum().item()  # BREAK


def branch_break(x):
    if x.sum() > 0:  # BREAK
        return x
    return -x


def loop_break(x):
    s = 0.0
    for i in range(3):
        s = s + x[i].sum().item()  # BREAK
    return x * s


def break_first(x):
    torch._dynamo.graph_break()  # BREAK
    return x + 1


def scale(x, n):
    return x * n


def clean(x):
    return torch.relu(x) @ x.T + 1


def test_item_break_at_item_line(x: Any) -> None:
    cap = _run(item_break, (x,))
    [gb] = cap.graph_breaks
    assert (gb.filename, gb.lineno) == (HERE, _line(item_break, "# BREAK"))
    assert gb.gb_id == "GB0124"
    assert gb.gb_type.startswith("Unsupported Tensor.item() call")
    assert gb.frames[-1] == (HERE, gb.lineno)  # user stack, innermost last
    assert not gb.frame_skipped


def test_data_dependent_branch_at_if_line(x: Any) -> None:
    cap = _run(branch_break, (x,))
    [gb] = cap.graph_breaks
    assert (gb.lineno, gb.gb_type, gb.gb_id) == (
        _line(branch_break, "# BREAK"), "Data-dependent branching", "GB0170")


def test_break_in_loop_reports_the_original_break(x: Any) -> None:
    # Dynamo skips the whole frame (GB7000); explain() reports no break here at all.
    cap = _run(loop_break, (x,))
    line = _line(loop_break, "# BREAK")
    assert {(gb.lineno, gb.gb_id) for gb in cap.graph_breaks} == {(line, "GB0124"),
                                                                   (line, "GB7000")}
    assert all(gb.frame_skipped for gb in cap.graph_breaks)


class TwoRecurrent(torch.nn.Module):
    """timm's LSTM2d, cut down: an LSTM over each axis of a (B, H, W, C) map."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn_v = torch.nn.LSTM(8, 4, batch_first=True, bidirectional=True)
        self.rnn_h = torch.nn.LSTM(8, 4, batch_first=True, bidirectional=True)

    def forward(self, x):
        B, H, W, C = x.shape
        v = x.permute(0, 2, 1, 3).reshape(-1, H, C)
        v, _ = self.rnn_v(v)  # BREAK
        h, _ = self.rnn_h(x.reshape(-1, W, C))  # UNTRACED
        return v.reshape(B, W, H, -1).permute(0, 2, 1, 3) + h.reshape(B, H, W, -1)


def test_break_it_cannot_resume_from_skips_the_rest(x: Any) -> None:
    # An RNN module (GB0014): Dynamo compiles up to it and runs the rest of forward eagerly,
    # so the second LSTM is never traced and logs nothing.
    cap = _run(TwoRecurrent(), (torch.randn(2, 3, 3, 8),))
    [gb] = cap.graph_breaks
    assert (gb.lineno, gb.gb_id) == (_line(TwoRecurrent.forward, "# BREAK"), "GB0014")
    assert (gb.rest_skipped, gb.frame_skipped) == (True, False)


def test_resumed_break_does_not_skip_the_rest(x: Any) -> None:
    [gb] = _run(item_break, (x,)).graph_breaks
    assert not gb.rest_skipped


def test_break_before_first_op(x: Any) -> None:
    cap = _run(break_first, (x,))
    [gb] = cap.graph_breaks
    assert (gb.lineno, gb.gb_id) == (_line(break_first, "# BREAK"), "GB0025")


def test_a_duplicate_break_keeps_its_stack(x: Any) -> None:
    # A dtype change recompiles and hits the same break. Dynamo would log it again without its
    # user stack (torch 2.11 even when a second user line reaches the same polyfill break);
    # while a capture listens, every record keeps it, and the checker is restored after.
    from torch._dynamo.utils import graph_break_dup_warning_checker as checker

    cap = _run(item_break, (x,), (x.double(),))
    line = _line(item_break, "# BREAK")
    assert [(gb.filename, gb.lineno, gb.gb_id) for gb in cap.graph_breaks] == [(HERE, line, "GB0124")] * 2
    assert all(gb.frames and gb.frames[-1] == (HERE, line) for gb in cap.graph_breaks)
    assert not any("suppressed due to duplicate" in m for m in cap.messages)
    assert "add" not in vars(checker) and checker.add("key") and not checker.add("key")


def test_int_argument_recompiles(x: Any) -> None:
    cap = _run(scale, (x, 1), (x, 2), (x, 3))
    assert cap.graph_breaks == []
    assert cap.recompiles, "expected at least one recompile"
    rec = cap.recompiles[0]
    assert (rec.function, rec.filename) == ("scale", HERE)
    assert rec.firstlineno == inspect.getsourcelines(scale)[1]
    assert any("n" in reason and "1" in reason for reason in rec.reasons), rec.reasons


def test_recompile_limit_hit_is_reported() -> None:
    with torch._dynamo.config.patch(recompile_limit=2):
        cap = _run(scale, *[(torch.randn(n), 2) for n in (1, 2, 3)], dynamic=False)
    [gb] = cap.graph_breaks
    assert (gb.lineno, gb.gb_id, gb.frame_skipped) == (
        inspect.getsourcelines(scale)[1], "GB0039", True)
    assert len(cap.recompiles) == 2


def test_clean_function_records_nothing(x: Any) -> None:
    cap = _run(clean, (x,), (x + 1,))
    assert (cap.graph_breaks, cap.recompiles) == ([], [])
    assert cap.frames_compiled >= 1


def test_logging_restored_and_quiet(x: Any, capfd: pytest.CaptureFixture[str]) -> None:
    from torch._logging import _internal

    loggers = [logging.getLogger(q) for q in _internal.log_registry.get_artifact_log_qnames()]
    before = (set(_internal.log_state.artifact_names), [(lg.level, list(lg.filters))
                                                       for lg in loggers])
    cap = _run(branch_break, (x,))
    assert cap.graph_breaks
    after = (set(_internal.log_state.artifact_names), [(lg.level, list(lg.filters))
                                                      for lg in loggers])
    assert after == before
    assert "Graph break in user code" not in capfd.readouterr().err


def test_parsers_on_recorded_texts() -> None:
    # 2.6-style text (no formatted GB block): the first reason line is the Gb_type.
    [gb] = parse_graph_break(
        "Graph break in user code at /a/b.py:7\nReason: Unsupported: generic_jump "
        "TensorVariable()\nUser code traceback:\n  File \"/a/b.py\", line 7, in f\n")
    assert (gb.filename, gb.lineno, gb.gb_type, gb.frames) == (
        "/a/b.py", 7, "generic_jump TensorVariable()", (("/a/b.py", 7),))
    rec = parse_recompile(
        "Recompiling function f in /a/b.py:3\n    triggered by the following guard "
        "failure(s):\n    - 0/0: L['n'] == 3   # return x * n  # b.py:4 in f\n"
        "    - User stack trace:\n    -   File \"/a/b.py\", line 4, in f\n")
    assert rec is not None and rec.reasons == ("L['n'] == 3",)
    assert lookup_gb_id("Data-dependent branching") == "GB0170"
    assert lookup_gb_id("unsupported type.__dict__['x'].__get__ call") == "GB9672"


def _log_cudagraphs(module: str, level: int, *messages: str) -> None:
    logger = logging.getLogger(f"{module}.__cudagraphs")
    for message in messages:
        logger.log(level, message)


def test_cudagraph_skips_and_partitions_from_recorded_texts() -> None:
    """Texts as torch 2.11 logged them on an H200 (benchmarks/results/gpu/probe.log): a skip
    names its frame in one record; graph partitioning logs each op kept out of CUDA graphs,
    then that op's stack one line a record, from the scheduler (imported only at the first
    compile, so the capture must import it to listen)."""
    with capture_dynamo() as cap:
        _log_cudagraphs("torch._inductor.cudagraph_utils", logging.WARNING,
                        "skipping cudagraphs due to control flow operator: torch.cond. Found from : \n"
                        '   File "/m/model.py", line 12, in forward\n    return torch.cond(p, f, g, (x,))\n')
        _log_cudagraphs("torch._inductor.scheduler", logging.DEBUG,
                        "Created 3 graph partitions: 2 cudagraphable, 1 non-cudagraphable",
                        "  Partition 1: 2 nodes, non-cudagraphable, inputs=1, outputs=1",
                        "    op1: reason=cpu ops, ir=DeviceCopy, fx=prims.device_put.default(sum_1, cpu)",
                        '         File "/m/train.py", line 30, in step',
                        "             loss = model(x)",
                        '         File "/m/model.py", line 49, in forward',
                        "             s = x.sum(0).cpu()",
                        "    op3: reason=CUDAGraph-unsafe custom ops, ir=IndexPutFallback",
                        "  Partition 2: 1 nodes, cudagraphable, inputs=2, outputs=1",
                        '         File "/m/model.py", line 99, in forward')
        _log_cudagraphs("torch._inductor.cudagraph_utils", logging.WARNING,
                        "CUDAGraph supports dynamic shapes by recording a new graph for each distinct input "
                        "size. Recording too many CUDAGraphs may lead to extra overhead. We have observed 9 "
                        "distinct sizes. Please consider the following options for better performance: ...")
    assert [(s.effect, s.reason, s.filename, s.lineno) for s in cap.cudagraph_skips] == [
        ("skip", "control flow operator: torch.cond", "/m/model.py", 12),
        ("partition", "cpu ops (DeviceCopy)", "/m/model.py", 49),
        ("partition", "CUDAGraph-unsafe custom ops (IndexPutFallback)", "", 0),
        ("rerecord", "a new CUDA graph for each distinct input size (9 sizes)", "", 0),
    ]
