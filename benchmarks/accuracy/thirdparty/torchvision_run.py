"""Run torchvision's models through real Dynamo (backend eager, CPU) and write what it did as JSON.

    PYTHONPATH=. <venv with torch and torchvision>/bin/python benchmarks/accuracy/thirdparty/torchvision_run.py OUT.json [CASE ...]

Each model is built with random weights (nothing is fetched), compiled whole, and called as a
user serves it (eval under no_grad) and, where it has one, as it trains (train mode; the
detectors with targets). Graph breaks come from Dynamo's own logs (breaklint.confirm.capture).
OUT.json is updated after every case, so a run cut short keeps what it measured.
"""
from __future__ import annotations

import dataclasses
import json
import sys
import traceback
from pathlib import Path

import torch
import torchvision
from torchvision import models as M
from torchvision.models import detection as D, segmentation as S, optical_flow as OF, video as V
from breaklint.confirm.capture import capture_dynamo

def img(b, s=64):
    return (torch.randn(b, 3, s, s),)

def det_inputs(b, s=96):
    return ([torch.rand(3, s, s + 8 * i) for i in range(b)],)

def det_targets(b, s=96, masks=False, keypoints=False):
    out = []
    for i in range(b):
        t = {"boxes": torch.tensor([[4.0, 6.0, 40.0, 50.0], [10.0, 12.0, 60.0, 70.0]]), "labels": torch.tensor([1, 1] if keypoints else [1, 2])}
        if masks:
            m = torch.zeros(2, s, s + 8 * i, dtype=torch.uint8); m[:, 10:40, 10:40] = 1; t["masks"] = m
        if keypoints:
            t["keypoints"] = torch.tensor([[[10.0, 10.0, 1.0]] * 17, [[20.0, 20.0, 1.0]] * 17])
        out.append(t)
    return out

CLS = {
 "resnet18": lambda: M.resnet18(num_classes=10),
 "mobilenet_v3_small": lambda: M.mobilenet_v3_small(num_classes=10),
 "efficientnet_b0": lambda: M.efficientnet_b0(num_classes=10),
 "shufflenet_v2_x0_5": lambda: M.shufflenet_v2_x0_5(num_classes=10),
 "squeezenet1_1": lambda: M.squeezenet1_1(num_classes=10),
 "googlenet": lambda: M.googlenet(num_classes=10, aux_logits=True, init_weights=False),
 "densenet121": lambda: M.densenet121(num_classes=10, memory_efficient=True),
 "mnasnet0_5": lambda: M.mnasnet0_5(num_classes=10),
 "regnet_y_400mf": lambda: M.regnet_y_400mf(num_classes=10),
 "convnext_tiny": lambda: M.convnext_tiny(num_classes=10),
 "swin_t": lambda: M.swin_t(num_classes=10),
 "swin_v2_t": lambda: M.swin_v2_t(num_classes=10),
 "vit_b_16": lambda: M.vit_b_16(num_classes=10, image_size=64),
 "maxvit_t": lambda: M.maxvit_t(num_classes=10),
}
SIZES = {"googlenet": 64, "maxvit_t": 224, "swin_t": 64, "swin_v2_t": 64}

DET = {
 "fasterrcnn_mobilenet": (lambda: D.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None, num_classes=3), {}),
 "retinanet": (lambda: D.retinanet_resnet50_fpn(weights=None, weights_backbone=None, num_classes=3), {}),
 "fcos": (lambda: D.fcos_resnet50_fpn(weights=None, weights_backbone=None, num_classes=3), {}),
 "ssdlite": (lambda: D.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3), {}),
 "ssd300": (lambda: D.ssd300_vgg16(weights=None, weights_backbone=None, num_classes=3), {}),
 "maskrcnn": (lambda: D.maskrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=3), {"masks": True}),
 "keypointrcnn": (lambda: D.keypointrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=2), {"keypoints": True}),
}
SEG = {
 "fcn_resnet50": lambda: S.fcn_resnet50(weights=None, weights_backbone=None, num_classes=3, aux_loss=True),
 "deeplabv3_mobilenet": lambda: S.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3),
 "lraspp": lambda: S.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3),
}

def run(fn):
    torch._dynamo.reset(); torch.manual_seed(0)
    error = None
    with capture_dynamo() as capture:
        try:
            fn()
        except Exception as exc:
            error = "".join(traceback.format_exception_only(exc)).strip()[-2000:]
    return {"graph_breaks": [_kept(dataclasses.asdict(b)) for b in capture.graph_breaks],
            "recompiles": len(capture.recompiles), "graphs": capture.graphs_compiled, "error": error}


SITE = Path(torchvision.__file__).resolve().parents[1]  # where torchvision is installed
KEPT = ("filename", "lineno", "gb_type", "gb_id", "frame_skipped", "rest_skipped")


def _kept(event: dict) -> dict:
    """What the scoring reads, the file relative to the site (score.py puts it back)."""
    path = Path(event["filename"]).resolve() if event["filename"] else None
    if path is not None and path.is_relative_to(SITE):
        event["filename"] = path.relative_to(SITE).as_posix()
    return {key: event[key] for key in KEPT}

def cls_case(name):
    def go():
        model = CLS[name](); c = torch.compile(model, backend="eager"); s = SIZES.get(name, 64)
        model.eval()
        with torch.no_grad():
            c(*img(2, s))
        model.train(); c(*img(2, s)); c(*img(3, s))
    return go

def det_case(name):
    build, opts = DET[name]
    def go():
        model = build(); c = torch.compile(model, backend="eager")
        model.eval()
        with torch.no_grad():
            c(*det_inputs(2))
        model.train(); c(*det_inputs(2), det_targets(2, **opts))
    return go

def seg_case(name):
    def go():
        model = SEG[name](); c = torch.compile(model, backend="eager")
        model.eval()
        with torch.no_grad():
            c(*img(2))
        model.train(); c(*img(2))
    return go

def flow_case():
    model = OF.raft_small(weights=None); c = torch.compile(model, backend="eager")
    model.eval()
    with torch.no_grad():
        c(torch.randn(1, 3, 128, 128), torch.randn(1, 3, 128, 128), num_flow_updates=3)

def video_case(name):
    def go():
        model = getattr(V, name)(num_classes=5); c = torch.compile(model, backend="eager")
        model.eval()
        with torch.no_grad():
            c(torch.randn(1, 3, 4, 32, 32))
    return go

CASES = {**{f"cls/{n}": cls_case(n) for n in CLS}, **{f"det/{n}": det_case(n) for n in DET},
         **{f"seg/{n}": seg_case(n) for n in SEG}, "flow/raft_small": flow_case,
         **{f"video/{n}": video_case(n) for n in ("r3d_18", "r2plus1d_18")}}

if __name__ == "__main__":
    out = Path(sys.argv[1]); names = sys.argv[2:] or list(CASES)
    results = json.loads(out.read_text()) if out.exists() else {}
    for n in names:
        results[n] = run(CASES[n])
        r = results[n]
        print(n, "graphs", r["graphs"], "breaks", len({(b["filename"], b["lineno"]) for b in r["graph_breaks"]}), "err", (r["error"] or "")[:200], flush=True)
        out.write_text(json.dumps(results, indent=1))
