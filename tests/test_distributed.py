"""Distributed training (#19): DDPOptimizer's bucket count, the join across ranks, and
`breaklint confirm --nproc 2` end to end on CPU (gloo)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testdata import HANG_GUARD_S, ROOT

from breaklint.confirm.ranks import differing_stages, merge_ranks, on_ranks, rank_environment, ranked_events
from breaklint.rules._ddp import bucket_count

MIB = 1024 * 1024
LINEAR_1024 = (1024 * 1024 + 1024) * 4  # nn.Linear(1024, 1024) in float32, with its bias


@pytest.mark.parametrize(("cap_mb", "graphs"), [(25, 2), (1, 4), (4, 4), (16, 2), (64, 2)])
def test_bucket_count_is_what_dynamo_made(cap_mb: int, graphs: int) -> None:
    """4 x Linear(1024, 1024) under DDP: the counts benchmarks/distributed/probe.py measured for
    caps 25, 1 and 4 (torch 2.13); 16 and 64 follow from the same rule (the last layer alone in
    the 1 MiB first bucket, the rest together)."""
    assert bucket_count([LINEAR_1024] * 4, cap_mb * MIB, MIB) == graphs


def test_bucket_count_small_model_is_one_graph() -> None:
    assert bucket_count([(256 * 256 + 256) * 4] * 2, 25 * MIB, MIB) == 1


TWO_SCRIPTS = """\
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(1024, 1024)
        self.b = nn.Linear(1024, 1024)

    def forward(self, x):
        return self.b(self.a(x))


class Large(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(1024, 1024) for _ in range(4))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def first():
    net = Small()
    net.compile()
    model = DDP(net, bucket_cap_mb=1)
    model(torch.randn(2, 1024))


def second():
    net = Large()
    model = DDP(net, bucket_cap_mb=1)
    model(torch.randn(2, 1024))
"""


def test_the_ddp_rules_read_each_functions_own_bindings(tmp_path: Path, check) -> None:  # type: ignore[no-untyped-def]
    """`net` is bound in two functions: each wrap is judged by its own function's binding (read
    file-wide, `first` wrapped the file's last `net`, a Large, and `second`'s wrap counted as
    compiled because `first` compiled a `net`)."""
    (tmp_path / "train.py").write_text(TWO_SCRIPTS)
    found = [f for f in check([tmp_path], root=tmp_path).findings if f.code.startswith("BL6")]
    assert [(f.code, f.span.start_line) for f in found] == [("BL601", 30)]
    assert "`Small` (8.0 MiB of parameters)" in found[0].message


def test_rank_environment_is_torchrun_s() -> None:
    env = rank_environment(1, 2, 29500)
    assert env == {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
                   "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", "BREAKLINT_RANKS": "1"}


def _result(graphs: int, events: list[dict]) -> dict:
    return {"stages": [{"stage": "dynamo", "graphs": graphs, "graph_breaks": 1, "recompiles": 0}],
            "events": events, "executed": {"m.py": [3]}, "complete": True}


def test_merge_keeps_each_event_once_with_its_ranks() -> None:
    shared = {"kind": "graph_break", "stage": "dynamo", "filename": "m.py", "lineno": 3, "gb_id": "GB0007"}
    only_0 = {"kind": "recompile", "stage": "dynamo", "filename": "m.py", "lineno": 5, "function": "f",
              "reasons": ["x"]}
    merged = merge_ranks([_result(2, [shared, only_0]), _result(1, [shared])])
    by_line = {e["lineno"]: e for e in merged["events"]}
    assert by_line[3]["ranks"] == [0, 1] and on_ranks(by_line[3]) == ""
    assert by_line[5]["ranks"] == [0] and on_ranks(by_line[5]) == " (rank 0 only, of 2)"
    assert differing_stages(merged) == [" dynamo: ranks differ — rank 0: 2 graphs, 1 breaks, 0 recompiles;"
                                        " rank 1: 1 graphs, 1 breaks, 0 recompiles"]
    assert differing_stages(merge_ranks([_result(1, []), _result(1, [])])) == []


def test_observed_processes_are_joined_by_rank() -> None:
    """Observe mode: torchrun's launcher (no RANK) and two ranks; the break both ranks saw is one
    event, the recompile only rank 1 saw says so."""
    brk = {"kind": "graph_break", "stage": "observed", "filename": "t.py", "lineno": 7, "gb_id": "GB0007"}
    rec = {"kind": "recompile", "stage": "observed", "filename": "t.py", "lineno": 5, "function": "step",
           "reasons": ["G['STEP'][0] == 0"]}
    events = ranked_events([{"rank": None, "world_size": None, "events": []},
                            {"rank": "1", "world_size": "2", "events": [brk, rec]},
                            {"rank": "0", "world_size": "2", "events": [brk]}])
    assert sorted((e["lineno"], e["ranks"]) for e in events) == [(5, [1]), (7, [0, 1])]
    assert ranked_events([{"rank": None, "world_size": None, "events": [brk]}]) == [brk]


def test_nproc_with_a_command_is_a_usage_error() -> None:
    completed = subprocess.run([sys.executable, "-m", "breaklint", "confirm", "--nproc", "2", "--", "python", "-c", "0"],
                               capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=ROOT)
    assert completed.returncode == 2 and "torchrun" in completed.stderr


@pytest.mark.dynamo
def test_confirm_two_gloo_ranks_end_to_end() -> None:
    """Two processes, gloo: the barrier in the compiled forward breaks on both ranks (BL602
    confirmed), rank 0's own branch gives it another graph (the ranks differ), and each rank
    times the step by phase, with the backward under no_sync() beside it."""
    pytest.importorskip("torch")
    completed = subprocess.run(
        [sys.executable, "-m", "breaklint", "confirm", "--format", "json", "--nproc", "2", "--stages", "eager,dynamo",
         "--repeat", "3", "--warmup", "1", "testdata/distributed_targets"],
        cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD_S,
    )
    data = json.loads(completed.stdout)
    assert completed.returncode == 1, completed.stderr[-3000:]
    target = data["targets"][0]
    assert target["failure"] is None
    assert target["distributed"] == {"rank": 0, "world_size": 2, "backend": "gloo"}
    assert [r["rank"] for r in target["ranks"]] == [0, 1]
    dynamo = [next(s for s in r["stages"] if s["stage"] == "dynamo") for r in target["ranks"]]
    assert dynamo[0]["graphs"] != dynamo[1]["graphs"]  # rank 0's branch compiled a graph of its own
    # Three Linear(512, 512) layers at bucket_cap_mb=1: what BL601's rule predicts, DDPOptimizer did.
    linear_512 = (512 * 512 + 512) * 4
    assert [stage["ddp_subgraphs"][0] for stage in dynamo] == [bucket_count([linear_512] * 3, MIB, MIB)] * 2 == [3, 3]
    for stage in dynamo:
        phases = stage["phases_ms"]
        assert phases["forward"] > 0 and phases["backward"] > 0 and phases["optimizer"] > 0
        assert phases["backward_no_sync"] > 0 and phases["exposed_communication"] >= 0
    confirmed = [f for f in data["findings"] if f["status"] == "confirmed"]
    assert [f["code"] for f in confirmed] == ["BL602"]
    assert "GB0007" in confirmed[0]["evidence"] and "rank" not in confirmed[0]["evidence"]  # on every rank


@pytest.mark.dynamo
def test_a_failing_rank_ends_the_run_with_its_error(tmp_path: Path) -> None:
    """Rank 1's provider raises; rank 0 would wait for it in DDP's first broadcast: the run ends
    at once with rank 1's error (BL006, exit 2), well before the timeout."""
    pytest.importorskip("torch")
    (tmp_path / "breaklint_examples.py").write_text(
        "import torch, torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "import breaklint\n\n@breaklint.example\ndef step():\n    if dist.get_rank() == 1:\n"
        "        raise RuntimeError('no data on this rank')\n"
        "    return breaklint.Example(DDP(torch.nn.Linear(4, 4)), (torch.randn(2, 4),), usage='training')\n",
        encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "breaklint", "confirm", "--format", "json", "--nproc", "2", "--stages", "eager",
         "--timeout", "120", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S,
    )
    data = json.loads(completed.stdout)
    assert completed.returncode == 2
    assert data["targets"][0]["failure"] == "rank 1: RuntimeError in example: no data on this rank"
    assert "timed out" not in completed.stdout
