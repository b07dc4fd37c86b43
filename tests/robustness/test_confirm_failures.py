"""Issue 6, item 8: `breaklint confirm` contains user code that exhausts its memory or kills its
own process; the report names the target and why, and the other targets still run.
(tests/test_confirm.py covers a target that raises, hangs or exits.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testdata import HANG_GUARD_S

pytestmark = pytest.mark.dynamo  # runs the real compiler (deselect with -m 'not dynamo')

pytest.importorskip("torch")

EXAMPLES = '''
import os
import resource
import signal

import torch

import breaklint


def _virtual_size() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize")


@breaklint.example
def eats_memory():
    # A hard cap a little above what the process holds now: the hog fails fast and safely
    # instead of pushing the machine into swap or the OOM killer.
    cap = _virtual_size() + 512 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    hog = []
    while True:
        hog.append(bytearray(64 * 1024 * 1024))


@breaklint.example
def killed():
    os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's OOM killer does


@breaklint.example
def fine():
    return breaklint.Example(torch.nn.functional.relu, (torch.randn(4),))
'''


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
def test_memory_exhaustion_and_sigkill_are_contained(tmp_path: Path) -> None:
    (tmp_path / "breaklint_examples.py").write_text(EXAMPLES, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "breaklint", "confirm", "--format", "json", "--stages", "eager", "--repeat", "1",
         "--warmup", "0", "--timeout", str(int(HANG_GUARD_S)), "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=4 * HANG_GUARD_S)
    assert completed.returncode == 2, completed.stderr[-2000:]  # a target failed
    data = json.loads(completed.stdout)
    failures = {t["target"].split("::")[1]: t["failure"] for t in data["targets"]}
    assert set(failures) == {"eats_memory", "killed", "fine"}
    assert "MemoryError" in failures["eats_memory"] or "out of memory" in failures["eats_memory"]
    assert "SIGKILL" in failures["killed"]
    assert failures["fine"] is None  # the run went on after both
    bl006 = [f for f in data["runtime_only"] if f["code"] == "BL006"]
    assert sorted(f["start_line"] for f in bl006) == sorted(
        i + 1 for i, line in enumerate(EXAMPLES.splitlines()) if line.startswith(("def eats_memory", "def killed")))
    assert all(f["path"] == "breaklint_examples.py" for f in bl006)
    named = " ".join(f["message"] for f in bl006)
    assert "eats_memory" in named and "killed" in named
