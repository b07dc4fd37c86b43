"""BL506's static judgement: when a call of a CUDA-graph module runs with grad enabled and no
backward follows (the GPU proof is testdata/rules/BL506 through tests/test_gpu_cudagraphs.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

HEAD = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(x)

'''

CASES = {
    "a loop that serves": ("model = torch.compile(Net(), mode='reduce-overhead')\n\n"
                           "def serve(xs):\n    for x in xs:\n        y = model(x)\n        print(int(y.argmax()))\n", True),
    "module level, max-autotune": ("model = torch.compile(Net(), mode='max-autotune')\nfor _ in range(3):\n"
                                   "    y = model(torch.randn(2, 8))\n", True),
    "compiled in place": ("net = Net()\nnet.compile(mode='reduce-overhead')\n\ndef bench(x):\n"
                          "    for _ in range(10):\n        net(x)\n", True),
    "no CUDA graphs": ("model = torch.compile(Net())\n\ndef serve(x):\n    y = model(x)\n", False),
    "a compiled function has no parameters": (
        "def f(x):\n    return x * 2\n\nfast = torch.compile(f, mode='reduce-overhead')\n\n"
        "def serve(x):\n    y = fast(x)\n", False),
    "under no_grad": ("model = torch.compile(Net(), mode='reduce-overhead')\n\ndef serve(x):\n"
                      "    with torch.no_grad():\n        y = model(x)\n", False),
    "set_grad_enabled(False)": ("model = torch.compile(Net(), mode='reduce-overhead')\n\ndef serve(x):\n"
                                "    with torch.set_grad_enabled(False):\n        y = model(x)\n", False),
    "inference_mode decorator": ("model = torch.compile(Net(), mode='reduce-overhead')\n\n@torch.inference_mode()\n"
                                 "def serve(x):\n    y = model(x)\n", False),
    "inference_mode(False) turns grad back on": (
        "model = torch.compile(Net(), mode='reduce-overhead')\n\ndef serve(x):\n"
        "    with torch.inference_mode(False):\n        y = model(x)\n", True),
    "a backward follows": ("model = torch.compile(Net(), mode='reduce-overhead')\n\ndef step(x):\n"
                           "    loss = model(x).sum()\n    loss.backward()\n", False),
    "a backward in a helper it calls": (
        "model = torch.compile(Net(), mode='reduce-overhead')\n\ndef update(loss):\n    loss.backward()\n\n"
        "def step(x):\n    loss = model(x).sum()\n    update(loss)\n", False),
    "the result is returned: the caller may run the backward": (
        "model = torch.compile(Net(), mode='reduce-overhead')\n\ndef forward_only(x):\n    y = model(x)\n    return y * 2\n", False),
    "stored on the object": ("model = torch.compile(Net(), mode='reduce-overhead')\n\ndef keep(self, x):\n"
                             "    self.last = model(x)\n", False),
    "appended to a list that is returned": (
        "model = torch.compile(Net(), mode='reduce-overhead')\n\ndef collect(xs):\n    outs = []\n"
        "    for x in xs:\n        outs.append(model(x))\n    return outs\n", False),
    "only Python numbers leave": ("model = torch.compile(Net(), mode='reduce-overhead')\n\ndef labels(xs):\n"
                                  "    out = []\n    for x in xs:\n        out.append(int(model(x).argmax()))\n    return out\n", True),
    "frozen parameters: an inference graph": (
        "net = Net().requires_grad_(False)\nmodel = torch.compile(net, mode='reduce-overhead')\n\n"
        "def serve(x):\n    y = model(x)\n", False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bl506(name: str, tmp_path: Path, check) -> None:
    body, flagged = CASES[name]
    path = tmp_path / "serve.py"
    path.write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    codes = [f.code for f in check([path], root=tmp_path).findings]
    assert ("BL506" in codes) == flagged, codes
