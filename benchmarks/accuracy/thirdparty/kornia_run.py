"""Run kornia 0.9.0 through real Dynamo (backend eager, CPU); write breaks as JSON.

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/kornia_run.py OUT.json [CASE ...]

Modelled on benchmarks/accuracy/thirdparty/pyg_run.py: each case is an nn.Module (a kornia module or a
user-side wrapper around kornia functions), compiled whole with torch.compile(m, backend="eager"), called in
eval under no_grad, then in train mode, then in train mode on a second input of another size (another batch
and resolution, as a data loader's last batch or a multi-scale pipeline gives). Augmentations are random in
train mode (p=1 or p=0.5 as users set them). Breaks come from Dynamo's logs (breaklint.confirm.capture).
OUT.json is updated after every case.
"""
from __future__ import annotations

import dataclasses
import json
import sys
import time
import traceback
from pathlib import Path

import torch
from torch import nn

import kornia
import kornia.augmentation as K
import kornia.color as KC
import kornia.contrib as KCo
import kornia.enhance as KE
import kornia.feature as KF
import kornia.filters as KFi
import kornia.geometry as KG
import kornia.losses as KL
import kornia.morphology as KM
from breaklint.confirm.capture import capture_dynamo

S1 = dict(b=2, h=32, w=32, seed=0)
S2 = dict(b=3, h=40, w=48, seed=1)


def image(b, h, w, seed, c=3):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(b, c, h, w, generator=g)


# ---- user-side wrappers (this file is not scored; only kornia/ is) ----

class Fn(nn.Module):
    """Wrap a function of the image as a module (a user's preprocessing step)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def filters_basic(x):
    a = KFi.gaussian_blur2d(x, (5, 5), (1.5, 1.5))
    b = KFi.sobel(x)
    c = KFi.laplacian(x, 3)
    d = KFi.box_blur(x, (3, 3))
    return a + b + c + d


def filters_median_unsharp(x):
    return KFi.median_blur(x, (3, 3)) + KFi.unsharp_mask(x, (3, 3), (1.0, 1.0)) + KFi.spatial_gradient(x).sum(2)


def canny(x):
    mag, edges = KFi.canny(x)
    return mag, edges


def color_conv(x):
    hsv = KC.rgb_to_hsv(x)
    lab = KC.rgb_to_lab(x)
    yuv = KC.rgb_to_yuv(x)
    g = KC.rgb_to_grayscale(x)
    back = KC.hsv_to_rgb(hsv) + KC.lab_to_rgb(lab) + KC.yuv_to_rgb(yuv)
    return back + g


def enhance(x):
    y = KE.adjust_brightness(x, 0.1)
    y = KE.adjust_contrast(y, 1.2)
    y = KE.adjust_saturation(y, 0.8)
    y = KE.adjust_hue(y, 0.1)
    y = KE.adjust_gamma(y, 1.1)
    return KE.normalize(y, torch.tensor([0.5, 0.5, 0.5]), torch.tensor([0.2, 0.2, 0.2]))


def equalize(x):
    return KE.equalize(x) + KE.equalize_clahe(x, grid_size=(2, 2))


def warp(x):
    b, _, h, w = x.shape
    src = torch.tensor([[[0.0, 0.0], [w - 1.0, 0.0], [w - 1.0, h - 1.0], [0.0, h - 1.0]]]).expand(b, -1, -1)
    dst = src + torch.tensor([[[2.0, 1.0], [-1.0, 2.0], [-2.0, -1.0], [1.0, -2.0]]])
    m = KG.get_perspective_transform(src, dst)
    y = KG.warp_perspective(x, m, (h, w))
    y = KG.rotate(y, torch.full((b,), 30.0))
    return KG.resize(y, (24, 24))


def affine_ops(x):
    b = x.shape[0]
    m = KG.get_rotation_matrix2d(torch.zeros(b, 2) + 10.0, torch.full((b,), 15.0), torch.ones(b, 2))
    y = KG.warp_affine(x, m, (x.shape[2], x.shape[3]))
    return KG.hflip(KG.rescale(y, 0.5)) + KG.vflip(KG.pyrdown(y))


class Homography(nn.Module):
    def forward(self, x):  # point sets made from the image, so that only kornia's code is traced
        b = x.shape[0]
        pts1 = x[:, 0, :8, :2] * 10.0
        h = torch.eye(3).expand(b, 3, 3) + 0.05 * x[:, 1, :3, :3]
        pts2 = KG.transform_points(h, pts1)
        hh = KG.find_homography_dlt(pts1, pts2)
        hi = KG.find_homography_dlt_iterated(pts1, pts2, torch.ones(b, 8), soft_inl_th=3.0, n_iter=2)
        return hh + hi


class Losses(nn.Module):
    def __init__(self):
        super().__init__()
        self.ssim = KL.SSIMLoss(5)
        self.focal = KL.FocalLoss(alpha=0.5, gamma=2.0, reduction="mean")
        self.dice = KL.DiceLoss()
        self.tv = KL.TotalVariation()

    def forward(self, x):
        y = x.flip(-1)
        logits = x[:, :3] * 4 - 2
        target = (x[:, 0] * 3).long().clamp(0, 2)
        return (self.ssim(x, y) + self.focal(logits, target) + self.dice(logits, target)
                + KL.psnr_loss(x, y, 1.0) + self.tv(x).mean())


def morphology(x):
    k = torch.ones(3, 3)
    return KM.dilation(x, k) + KM.erosion(x, k) + KM.opening(x, k) + KM.gradient(x, k)


class Harris(nn.Module):
    """Corner responses and their local maxima (a cheap LoFTR-free detector path)."""

    def forward(self, x):
        g = KC.rgb_to_grayscale(x)
        r = KF.harris_response(g) + KF.gftt_response(g) + KF.hessian_response(g)
        return kornia.geometry.subpix.nms2d(r, (3, 3))


class CC(nn.Module):
    def forward(self, x):
        m = (KC.rgb_to_grayscale(x) > 0.5).float()
        return KCo.connected_components(m, num_iterations=20)


class ImageMask(nn.Module):
    """Image and segmentation mask through one pipeline (the same random parameters for both)."""

    def __init__(self):
        super().__init__()
        self.aug = K.AugmentationSequential(K.RandomHorizontalFlip(), K.RandomAffine(10.0, p=1.0),
                                            data_keys=["input", "mask"])

    def forward(self, x):
        return self.aug(x, (x[:, :1] > 0.5).float())


class BoxesKeypoints(nn.Module):
    """Detection-style pipeline: image, boxes (xyxy) and keypoints transformed together."""

    def __init__(self):
        super().__init__()
        self.aug = K.AugmentationSequential(K.RandomHorizontalFlip(), K.RandomAffine(10.0, p=1.0),
                                            data_keys=["input", "bbox_xyxy", "keypoints"])

    def forward(self, x):
        b, _, h, w = x.shape
        boxes = torch.tensor([[[2.0, 3.0, 12.0, 14.0], [5.0, 5.0, 20.0, 25.0]]]).expand(b, -1, -1)
        kps = torch.tensor([[[4.0, 4.0], [10.0, 20.0], [15.0, 8.0]]]).expand(b, -1, -1)
        return self.aug(x, boxes, kps)


class MixUpCutMix(nn.Module):
    """Batch mixing with labels (MixUp then CutMix), as a training step does."""

    def __init__(self):
        super().__init__()
        self.mixup = K.RandomMixUpV2(p=1.0, data_keys=["input", "class"])
        self.cutmix = K.RandomCutMixV2(p=1.0, data_keys=["input", "class"])

    def forward(self, x):
        labels = torch.arange(x.shape[0]) % 3
        y, l1 = self.mixup(x, labels)
        z, l2 = self.cutmix(x, labels)
        return y, l1, z, l2


class Sift(nn.Module):
    def __init__(self):
        super().__init__()
        self.sift = KF.SIFTFeature(num_features=32, upright=False)

    def forward(self, x):
        return self.sift(KC.rgb_to_grayscale(x[:1]))


def patches(x):
    p = KCo.extract_tensor_patches(x, 8, stride=8)
    return KCo.combine_tensor_patches(p, original_size=(x.shape[2], x.shape[3]), window_size=8, stride=8)


# name -> builder, called with an image of S1 then S2
CASES_BUILD = {
    "aug/flip+colorjitter": lambda: K.AugmentationSequential(
        K.RandomHorizontalFlip(), K.ColorJitter(0.2, 0.2, 0.2, 0.1, p=1.0)),
    "aug/affine+resizedcrop": lambda: K.AugmentationSequential(
        K.RandomAffine(degrees=15, translate=(0.1, 0.1), scale=(0.9, 1.1), p=1.0),
        K.RandomResizedCrop((32, 32), p=1.0)),
    "aug/erasing+gaussianblur": lambda: K.AugmentationSequential(
        K.RandomGaussianBlur((3, 3), (0.1, 2.0), p=1.0), K.RandomErasing(p=0.5)),
    "aug/perspective+rotation+vflip": lambda: K.AugmentationSequential(
        K.RandomPerspective(0.3, p=1.0), K.RandomRotation(20.0, p=1.0), K.RandomVerticalFlip()),
    "aug/intensity": lambda: K.AugmentationSequential(
        K.RandomGrayscale(p=0.5), K.RandomSolarize(p=0.5), K.RandomGaussianNoise(std=0.05, p=1.0),
        K.RandomBrightness((0.8, 1.2), p=1.0), K.Normalize(mean=torch.tensor([0.5] * 3), std=torch.tensor([0.25] * 3))),
    "aug/ImageSequential-random_apply": lambda: K.ImageSequential(
        K.RandomHorizontalFlip(), K.RandomSharpness(p=1.0), K.RandomMotionBlur(3, 15.0, 0.5, p=1.0),
        K.RandomPosterize(p=1.0), random_apply=2),
    "aug/image+mask": ImageMask,
    "aug/image+boxes+keypoints": BoxesKeypoints,
    "aug/crop+elastic+thinplatespline": lambda: K.AugmentationSequential(
        K.RandomCrop((28, 28), padding=2, p=1.0), K.RandomElasticTransform(p=1.0), K.RandomThinPlateSpline(p=1.0)),
    "aug/RandAugment": lambda: K.auto.RandAugment(n=2, m=10),
    "aug/mixup+cutmix": MixUpCutMix,
    "filters/blur+sobel+laplacian": lambda: Fn(filters_basic),
    "filters/median+unsharp+gradient": lambda: Fn(filters_median_unsharp),
    "filters/canny": lambda: Fn(canny),
    "color/conversions": lambda: Fn(color_conv),
    "enhance/adjust": lambda: Fn(enhance),
    "enhance/equalize+clahe": lambda: Fn(equalize),
    "geometry/warp_perspective+rotate+resize": lambda: Fn(warp),
    "geometry/warp_affine+rescale+pyrdown": lambda: Fn(affine_ops),
    "geometry/find_homography_dlt": Homography,
    "losses/ssim+focal+dice+psnr+tv": Losses,
    "morphology/dilation+erosion+opening+gradient": lambda: Fn(morphology),
    "feature/harris+gftt+hessian+nms": Harris,
    "feature/SIFTFeature": Sift,
    "contrib/connected_components": CC,
    "contrib/extract+combine_patches": lambda: Fn(patches),
}


def case(name):
    build = CASES_BUILD[name]

    def go():
        model = build(); c = torch.compile(model, backend="eager")
        model.eval()
        with torch.no_grad():
            c(image(**S1))
        model.train(); c(image(**S1))
        c(image(**S2))
    return go


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


SITE = Path(kornia.__file__).resolve().parents[1]
KEPT = ("filename", "lineno", "gb_type", "gb_id", "frame_skipped", "rest_skipped")


def _rel(filename):
    path = Path(filename).resolve() if filename and not filename.startswith("<") else None
    return path.relative_to(SITE).as_posix() if path is not None and path.is_relative_to(SITE) else filename


def _kept(event: dict) -> dict:
    event["filename"] = _rel(event["filename"])
    out = {key: event[key] for key in KEPT}
    out["frames"] = [[_rel(f), ln] for f, ln in event.get("frames", ()) if "/site-packages/torch/" not in f]
    out["reason"] = event["reason"][:600]
    return out


CASES = {n: case(n) for n in CASES_BUILD}

if __name__ == "__main__":
    out = Path(sys.argv[1]); names = sys.argv[2:] or list(CASES)
    results = json.loads(out.read_text()) if out.exists() else {}
    for n in names:
        t0 = time.time()
        results[n] = run(CASES[n])
        r = results[n]; r["seconds"] = round(time.time() - t0, 1)
        print(n, f"{r['seconds']}s", "graphs", r["graphs"], "breaks",
              len({(b["filename"], b["lineno"]) for b in r["graph_breaks"]}), "err", (r["error"] or "")[:200],
              flush=True)
        out.write_text(json.dumps(results, indent=1))
