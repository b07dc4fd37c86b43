"""BL591's count of CUDA graph trees that do not replay, from their own log records (no GPU):
per graph of the trees, so that a target of many graphs, each recorded once, is not taken for
one that records on every call."""

from __future__ import annotations

import logging

import torch._inductor.cudagraph_trees  # noqa: F401  (its artifact logger, as a compile makes it)

from breaklint.confirm.capture import capture_dynamo, every_call, rerecord_reason, unreplayed_key
from breaklint.confirm.hook import CompileHook
from breaklint.confirm.worker import rerecorded_every_call

TREES = logging.getLogger("torch._inductor.cudagraph_trees.__cudagraphs")
CALLS = 35  # a stage's timed calls after the first: 5 of warm-up, 30 timed


def warm_up_and_record(frame: str, mode: str) -> list[str]:
    """What the trees log for one graph that settles: a warm-up run, then one recording."""
    return [f"[{frame}] Running warmup function=forward, mode={mode}",
            f"[{frame}] Recording function=forward, mode={mode}, cuda_graph_id=3, inputs: 4 tensors"]


def log(messages: list[str]):
    with capture_dynamo() as capture:
        for message in messages:
            TREES.debug(message)
    return capture


def test_many_graphs_each_recorded_once_are_not_a_rerecord() -> None:
    # 9 frames (graph breaks), each with a forward and a backward graph: 36 records in all,
    # more than half of the 35 calls, but every graph records once and then replays.
    messages = [m for i in range(9) for mode in ("FORWARD", "BACKWARD") for m in warm_up_and_record(f"{i}/0", mode)]
    capture = log(messages)
    assert capture.cudagraph_unreplayed == 36 > 0.5 * CALLS  # what the old count compared
    assert len(capture.cudagraph_unreplayed_by_function) == 18
    assert max(capture.cudagraph_unreplayed_by_function.values()) == 2
    assert every_call(capture.cudagraph_unreplayed_by_function, CALLS) is None
    assert rerecorded_every_call(capture, CALLS) is None


def test_one_graph_recorded_on_every_call_is_a_rerecord_with_the_trees_reason() -> None:
    messages = [m for i in range(9) for m in warm_up_and_record(f"{i}/0", "FORWARD")]
    for _ in range(CALLS):
        messages += ["[4/1] Re-recording function=forward, mode=BACKWARD, reason=static input data pointer changed.\n"
                     "input name: primals_3. data pointer changed from 1 to 2.",
                     "[4/1] Recording function=forward, mode=BACKWARD, cuda_graph_id=9, inputs: 5 tensors"]
    capture = log(messages)
    key = "forward [4/1] BACKWARD"
    assert capture.cudagraph_unreplayed_by_function[key] == CALLS
    assert every_call(capture.cudagraph_unreplayed_by_function, CALLS) == (key, CALLS)
    event = rerecorded_every_call(capture, CALLS)
    assert event is not None and event.effect == "every-call"
    assert f"`{key}` {CALLS} times in the {CALLS} calls after the first" in event.reason
    assert "over its 10 graphs" in event.reason
    assert "static input data pointer changed. input name: primals_3" in event.reason


def test_graphs_of_both_torch_wordings_are_told_apart() -> None:
    assert unreplayed_key("[0/0] Recording function=0, mode=FORWARD, cuda_graph_id=2, inputs: ...") == "0 [0/0] FORWARD"
    assert unreplayed_key("[0/0] Running warmup function=0, mode=FORWARD") == "0 [0/0] FORWARD"
    assert unreplayed_key("[1/0] Recording function=0, mode=BACKWARD, cuda_graph_id=2") == "0 [1/0] BACKWARD"
    assert unreplayed_key("Recording function 3 of graph recording id 2") == "3"
    assert unreplayed_key("Running eager of function 3 because ancestor needed to warm up") == "3"
    assert rerecord_reason("[0/0] Recording function=0, mode=FORWARD, cuda_graph_id=2") is None
    assert rerecord_reason("[0/0] Re-recording function=0, mode=FORWARD, reason=new int key") == \
        ("0 [0/0] FORWARD", "new int key")


def test_a_program_whose_loop_replays_after_warm_up_has_no_every_call_event() -> None:
    hook = CompileHook("cudagraphs")
    hook.places["Step (train.py:5)"] = ("/work/train.py", 5)
    hook.times.first_s["Step (train.py:5)"] = 3.0
    hook.times.later_ms["Step (train.py:5)"] = [1.0] * 9
    settled = {f"forward [{i}/0] {mode}": 2 for i in range(3) for mode in ("FORWARD", "BACKWARD")}
    assert hook.every_call(settled) is None  # 12 records over 10 calls, 2 a graph
    event = hook.every_call({**settled, "forward [2/0] BACKWARD": 10}, {"forward [2/0] BACKWARD": "new int key"})
    assert event is not None and event["lineno"] == 5
    assert "`forward [2/0] BACKWARD` 10 times in its 10 calls" in event["reason"] and "new int key" in event["reason"]


def test_a_new_tree_for_each_value_of_an_integer_input_is_a_rerecord_whatever_the_graphs_are_named() -> None:
    # A counter passed to the graph as an int: each value starts a tree of its own, whose graph
    # records once (and, where torch names graphs by number, under a new number each time).
    messages = []
    for value in range(CALLS):
        messages += [f"[0/1] Recording cudagraph tree for symint key {value}",
                     f"[0/1] Running warmup function={value}, mode=FORWARD",
                     f"[0/1] Recording function={value}, mode=FORWARD, cuda_graph_id={value}, inputs: 2 tensors"]
    capture = log(messages)
    assert max(n for k, n in capture.cudagraph_unreplayed_by_function.items() if "symint" not in k) == 2
    event = rerecorded_every_call(capture, CALLS)
    assert event is not None
    assert f"a new tree for the compiled graph [0/1] {CALLS} times in the {CALLS} calls after the first" in event.reason
    assert "one per value of its integer inputs" in event.reason
