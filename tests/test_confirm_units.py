"""The pieces of confirm that need no compiler: kernel classes, places, the join of the CUDA-graph
events, progress, --ladder's options and the hook's re-record check."""

from __future__ import annotations

import functools
import io
from pathlib import Path
from typing import Any

import pytest

from breaklint.confirm.capture import is_unreplayed, parse_fast_path_warning
from breaklint.confirm.hook import CompileHook, forced_options
from breaklint.confirm.join import CONFIRMED, NOT_REACHED, join
from breaklint.confirm.kernels import count_kernels, extern_by_design
from breaklint.confirm.places import charge, display_path, wrapper_chain
from breaklint.confirm.progress import Display
from breaklint.confirm.runner import Status, TargetRun
from breaklint.confirm.targets import Target
from breaklint.finding import Confidence, Span
from breaklint.check.registry import find_rule

OUTPUT_CODE = '''
@triton.jit
def triton_poi_fused_gelu_0(in_ptr0, ...):
    ...
def call(args):
    # Topologically Sorted Source Nodes: [scaled_dot_product_attention], Original ATen: [aten._scaled_dot_product_efficient_attention]
    buf0 = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, k, v, None, False)
    extern_kernels.mm(reinterpret_tensor(buf1, (64, 768), (768, 1), 0), arg3_1, out=buf2)
    buf5 = torch.ops.aten.convolution_backward.default(buf4, x, w, [64], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, False])
    buf7 = torch.ops.aten._cdist_forward.default(buf6, buf6, 2.0, None)
'''


def test_extern_by_design_kernels_are_not_fallbacks() -> None:
    kernels = count_kernels([OUTPUT_CODE])
    assert kernels["triton"] == 1
    assert kernels["extern_ops"] == ["_scaled_dot_product_efficient_attention.default", "convolution_backward.default"]
    assert kernels["extern"] == 3  # mm through extern_kernels, and the two ATen calls by design
    assert kernels["aten_fallbacks"] == ["_cdist_forward.default"]  # a real fallback: BL490
    for op in ("_scaled_dot_product_flash_attention.default", "_scaled_dot_product_cudnn_attention.default",
               "_flash_attention_forward.default", "bmm.default", "addmm.default", "convolution.default"):
        assert extern_by_design(op), op
    for op in ("cumsum.default", "_cdist_forward.default", "histc.default", "mmm.default", "convolution_x.default"):
        assert not extern_by_design(op), op


def test_installed_packages_print_as_package_paths(tmp_path: Path) -> None:
    site = "/opt/torch/.venv/lib/python3.12/site-packages/transformers/models/gpt2/modeling_gpt2.py"
    assert display_path(site, tmp_path) == "transformers/models/gpt2/modeling_gpt2.py"
    assert display_path("/usr/lib/python3/dist-packages/timm/models/resnet.py", tmp_path) == "timm/models/resnet.py"
    inside = tmp_path / "pkg" / "model.py"
    assert display_path(str(inside), tmp_path) == "pkg/model.py"
    assert display_path("/elsewhere/train.py", tmp_path) == "/elsewhere/train.py"  # never ../../..
    assert display_path("", tmp_path) == "<unknown>"


def library_wrapper(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    return wrapper


class Model:
    @library_wrapper
    def forward(self, x):
        return x


def test_a_recompile_in_a_library_wrapper_is_charged_to_the_function_it_wraps() -> None:
    chain = wrapper_chain(Model().forward)
    (outer_file, outer_line, outer_name), (inner_file, inner_line, inner_name) = chain
    assert outer_name.endswith("library_wrapper.<locals>.wrapper") and inner_name == "Model.forward"
    assert outer_file == inner_file == str(Path(__file__).resolve())
    assert charge((outer_file, outer_line), [chain]) == (inner_file, inner_line, inner_name)
    assert charge((inner_file, inner_line), [chain]) is None  # already the user's function
    # The same wrapper code around two different functions: ambiguous, left as Dynamo said.
    other = [(outer_file, outer_line, "wrapper"), (inner_file, 1, "Other.forward")]
    assert charge((outer_file, outer_line), [chain, other]) is None


def finding(code: str, path: str, line: int):
    rule = find_rule(code)
    assert rule is not None
    return rule.make_finding(path, Span(line, 5, line, 20), "msg", Confidence.LIKELY)


def test_cuda_graph_trees_that_record_again_confirm_bl506_only(tmp_path: Path) -> None:
    script = tmp_path / "serve.py"
    script.write_text("import torch\n" * 30, encoding="utf-8")
    events = [
        {"kind": "cudagraph_skip", "stage": "cudagraphs", "filename": str(script), "lineno": 12,
         "effect": "pending-backward", "reason": "a previous call's outputs still wait for a backward"},
        {"kind": "cudagraph_skip", "stage": "cudagraphs", "filename": str(script), "lineno": 20, "function_level": False,
         "effect": "every-call", "reason": "CUDA graph trees recorded or ran eagerly 64 times in its 64 calls"},
    ]
    result = join([finding("BL506", "serve.py", 12), finding("BL501", "serve.py", 20)], events, {}, tmp_path)
    status = {j.finding.code: j.status for j in result.judged}
    assert status == {"BL506": CONFIRMED, "BL501": NOT_REACHED}  # a re-recording is not a mutated input
    (left,) = result.runtime_only
    assert (left.code, left.path, left.span.start_line) == ("BL591", "serve.py", 20)


def test_one_break_seen_in_several_stages_is_one_finding_with_its_worst_effect(tmp_path: Path) -> None:
    site = "/venv/lib/python3.12/site-packages/transformers/modeling_utils.py"
    event = {"kind": "graph_break", "filename": site, "lineno": 4635, "gb_id": "GB0291", "gb_type": "logging.Logger method"}
    events = [{**event, "stage": "dynamo", "reason": "a"}, {**event, "stage": "inductor", "reason": "b"},
              {**event, "stage": "aot_eager", "reason": "c", "rest_skipped": True}]
    (only,) = join([], events, {}, tmp_path).runtime_only
    assert only.path == "transformers/modeling_utils.py" and only.code == "BL190"
    assert "cannot resume" in only.message


def test_unreplayed_calls_and_the_fast_path_warning_are_read_in_both_torch_wordings() -> None:
    for text in ("[0/0] Recording function=0, mode=FORWARD, cuda_graph_id=2, inputs: ...",
                 "Recording function 0 of graph recording id 2", "[0/0] Running warmup function=1, mode=FORWARD",
                 "Running warmup of function 0", "Running eager of function 0 because ancestor needed to warm up"):
        assert is_unreplayed(text), text
    assert not is_unreplayed("[0/0] Re-recording function=0, mode=FORWARD, reason=...")
    assert not is_unreplayed("skipping cudagraphs due to mutated inputs (1 instances)")
    torch_file = "/x/site-packages/torch/_dynamo/eval_frame.py"
    stack = [("/work/serve.py", 40), ("/work/serve.py", 12), (torch_file, 400), ("/work/model.py", 18)]
    for warning in ("Unable to hit fast path of CUDAGraphs because of pending, uninvoked backwards. Consider ...",
                    "Unable to hit fast path of CUDAGraphs because outputs from a previous step still require backward."):
        skip = parse_fast_path_warning(warning, stack)
        assert skip is not None and (skip.filename, skip.lineno, skip.effect) == ("/work/serve.py", 12, "pending-backward")
    assert parse_fast_path_warning("some other warning", stack) is None


def test_every_call_of_a_cuda_graph_stage_recorded_again_is_an_event() -> None:
    hook = CompileHook("cudagraphs")
    hook.places["Decoder (decode.py:5)"] = ("/work/decode.py", 5)
    hook.times.first_s["Decoder (decode.py:5)"] = 3.0
    hook.times.later_ms["Decoder (decode.py:5)"] = [1.0] * 63
    event = hook.every_call({"forward [0/0] INFERENCE": 64})
    assert event is not None and (event["filename"], event["lineno"], event["effect"]) == ("/work/decode.py", 5, "every-call")
    assert "64 times in its 64 calls" in event["reason"]
    # a warm-up and a recording, then replays: the steady state
    assert hook.every_call({"forward [0/0] INFERENCE": 2}) is None
    assert CompileHook("inductor").every_call({"forward [0/0] INFERENCE": 64}) is None


def test_ladder_forces_each_stage_and_keeps_the_users_other_options() -> None:
    user = {"fullgraph": True, "dynamic": False, "mode": "max-autotune", "backend": "inductor"}
    assert forced_options(user, "eager") is None
    assert forced_options(user, "dynamo") == {"fullgraph": True, "dynamic": False, "backend": "eager"}
    assert forced_options(user, "aot_eager") == {"fullgraph": True, "dynamic": False, "backend": "aot_eager"}
    assert forced_options(user, "inductor") == {"fullgraph": True, "dynamic": False, "backend": "inductor"}
    assert forced_options(user, "cudagraphs") == {"fullgraph": True, "dynamic": False, "backend": "inductor",
                                                  "mode": "reduce-overhead"}
    # torch refuses mode= with options=: CUDA graphs go through the options then.
    tuned = {"options": {"max_autotune": True}}
    assert forced_options(tuned, "cudagraphs") == {"backend": "inductor",
                                                   "options": {"max_autotune": True, "triton.cudagraphs": True}}
    assert forced_options(tuned, "inductor")["options"] == {"max_autotune": True, "triton.cudagraphs": False}


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_live_on_a_terminal_and_a_line_a_target_elsewhere(tmp_path: Path) -> None:
    target = Target(tmp_path / "breaklint_examples.py", "gpt2", 3)
    terminal = Terminal()
    display = Display(terminal, total=2)
    display.target(0, target, Status("inductor", "compiling", 12.4, ({"stage": "dynamo", "first_call_s": 2.0},)))
    line = terminal.getvalue()
    assert line.startswith("\rconfirm [1/2] breaklint_examples.py::gpt2 · inductor · compiling 12 s")
    assert "compile so far 14 s" in line
    display.finished(TargetRun(target, {"stages": [{}, {}]}), 0)
    assert terminal.getvalue().endswith("confirm [1/2] breaklint_examples.py::gpt2: 2 stage(s) (0 s in all)\n")
    log = io.StringIO()
    quiet = Display(log, total=2)
    quiet.target(0, target, Status("inductor", "compiling", 12.4, ()))
    assert log.getvalue() == ""  # no live line where nobody watches
    quiet.finished(TargetRun(target, error="timed out after 5 s in stage inductor (compiling)"), 1)
    assert log.getvalue() == "confirm [2/2] breaklint_examples.py::gpt2: failed: timed out after 5 s in stage inductor (compiling) (0 s in all)\n"


def test_the_program_ladder_plot_draws_the_time_in_compiled_callables(monkeypatch: pytest.MonkeyPatch) -> None:
    from breaklint.confirm import ladder

    drawn: list[Any] = []
    monkeypatch.setattr(ladder, "_draw", lambda panels, xlabel, path: drawn.append((panels, xlabel, path)))
    records = [{"stage": "eager", "compiled_ms": 10.0, "speedup": 1.0, "graph_breaks": 0},
               {"stage": "dynamo", "compiled_ms": 5.0, "speedup": 2.0, "graph_breaks": 1},
               {"stage": "aot_eager", "compiled_ms": 0.0, "speedup": None, "error": "the command exited with code 1"},
               {"stage": "cudagraphs", "skipped": "needs CUDA: the program saw no GPU"}]
    ladder.plot_program_ladder(records, "serve.py --batch 1", Path("ladder.png"))
    ((panels, xlabel, path),) = drawn
    assert panels == [("serve.py --batch 1", [("eager", 10.0, " 10.0 ms  1.00x"),
                                              ("dynamo (capture)", 5.0, " 5.0 ms  2.00x  breaks 1")])]
    assert "compiled callables" in xlabel and path == Path("ladder.png")


def test_ladder_times_the_whole_call_of_a_compiled_module_as_the_program_makes_it() -> None:
    # A forward pre-hook runs in nn.Module's dispatch, outside `forward`: the ladder's time of a
    # call must include it, as the program's own timer around the call does.
    import time

    import torch
    from torch._dynamo.eval_frame import OptimizedModule

    hook = CompileHook("eager")
    hook.original = torch.compile  # not installed: only its compile is used
    compiled = hook.compile(torch.nn.Linear(4, 4))
    assert isinstance(compiled, OptimizedModule) and type(compiled).__name__ == "OptimizedModule"
    compiled.register_forward_pre_hook(lambda module, args: time.sleep(0.02))
    x = torch.randn(2, 4)
    for _ in range(3):
        assert compiled(x).shape == (2, 4)
    (times,) = hook.times.summary().values()
    assert times["calls"] == 3 and times["median_ms"] >= 20


def test_the_median_timer_runs_between_after_each_timed_call_outside_its_timing() -> None:
    import time

    from breaklint.confirm.worker import median_ms

    ran: list[int] = []
    median, calls = median_ms(lambda: None, False, 5, 2, between=lambda: (ran.append(1), time.sleep(0.02)))
    assert len(ran) == 5 and calls == 7  # after each of the 5 timed calls, none of the 2 warm-up calls
    assert median < 10  # the 20 ms of `between` are not in the calls' times
