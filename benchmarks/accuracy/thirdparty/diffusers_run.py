"""Run diffusers 0.42.1 through real Dynamo (backend eager, CPU); write breaks as JSON.

    HF_HUB_OFFLINE=1 PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/diffusers_run.py OUT.json [CASE ...]

Modelled on benchmarks/accuracy/thirdparty/monai_run.py. Two kinds of case:

- a model (an nn.Module: a diffusers UNet, VAE, DiT/MMDiT/video transformer or ControlNet, called through a
  user-side wrapper that passes its keyword arguments as a pipeline does), built from a tiny config with random
  weights (nothing is fetched; as diffusers' own tests build them), compiled whole with
  torch.compile(m, backend="eager"), called in eval under no_grad, then in train mode with a backward through
  the compiled forward, then in train mode on a second input (another batch and, where the model takes any
  size, another resolution or number of frames);
- a scheduler's `step` (DDPM, DDIM, EulerDiscrete, FlowMatchEuler, DPMSolverMultistep), compiled as a plain
  function `step(model_output, t, sample)` as users compile it, after `set_timesteps` outside the compiled
  code; called at three successive timesteps of the schedule, the third on a larger sample. One more case
  compiles a whole denoising loop (a tiny UNet2DModel and EulerDiscrete over two steps) as a module.

Breaks come from Dynamo's logs (breaklint.confirm.capture). OUT.json is updated after every case. SITE holds
diffusers (--no-deps) and the pure-Python packages its imports ask for (huggingface_hub, httpx2, safetensors,
regex, ...); HF_HUB_OFFLINE=1 keeps huggingface_hub from the network (nothing here asks it for anything).
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
import traceback
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch
from torch import nn

import diffusers
from diffusers import (AutoencoderKL, AutoencoderKLWan, CogVideoXTransformer3DModel, ControlNetModel, DDIMScheduler, DDPMScheduler,
                       DiTTransformer2DModel, DPMSolverMultistepScheduler, EulerDiscreteScheduler,
                       FlowMatchEulerDiscreteScheduler, FluxTransformer2DModel, HunyuanVideoTransformer3DModel,
                       LTXVideoTransformer3DModel, PixArtTransformer2DModel, QwenImageTransformer2DModel, SD3Transformer2DModel, UNet2DConditionModel, UNet2DModel,
                       UNetSpatioTemporalConditionModel, WanTransformer3DModel)
from breaklint.confirm.capture import capture_dynamo

torch.set_num_threads(2)


def rand(shape, seed):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def t_of(seed, b):
    """A pipeline's timestep: a 0-d tensor taken from the schedule (here one of 1000), as `for t in timesteps`."""
    return torch.tensor(float((seed * 397) % 1000))


# ---- user-side wrappers (this file is not scored; only diffusers/ is) ----

class Call(nn.Module):
    """A model called as its pipeline calls it: `call(net, *tensors)` spells out the keyword arguments."""

    def __init__(self, net, call):
        super().__init__()
        self.net = net
        self.call = call

    def forward(self, *xs):
        return self.call(self.net, *xs)


def unet2d():
    return UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
                       block_out_channels=(16, 32), norm_num_groups=8, attention_head_dim=8,
                       down_block_types=("DownBlock2D", "AttnDownBlock2D"), up_block_types=("AttnUpBlock2D", "UpBlock2D"))


def unet_cond(**extra):
    config = dict(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(16, 32),
                  norm_num_groups=8, cross_attention_dim=16, attention_head_dim=4,
                  down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                  up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"))
    config.update(extra)
    return UNet2DConditionModel(**config)


def latents(c, *sizes, b=2, text=None):
    """(b, c, *size) latents, a timestep and, with text=(len, dim), the text encoder's states; run 2 adds a batch."""
    def make(s):
        n = b + s - 1
        x = rand((n, c) + tuple(sizes[s - 1]), s)
        out = (x, t_of(s, n))
        if text:
            out += (rand((n,) + tuple(text), s + 10),)
        return out
    return make


def sdxl_inputs(s):
    n = 1 + s
    return (rand((n, 4, 16, 16) if s == 1 else (n, 4, 16, 24), s), t_of(s, n), rand((n, 7, 16), s + 10),
            rand((n, 16), s + 20), torch.tensor([[32.0, 32, 0, 0, 32, 32]]).repeat(n, 1))


def controlnet():
    return nn.ModuleDict({"unet": unet_cond(), "controlnet": ControlNetModel(
        in_channels=4, block_out_channels=(16, 32), layers_per_block=1, norm_num_groups=8, cross_attention_dim=16,
        attention_head_dim=4, down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        conditioning_embedding_out_channels=(8, 16))})


def controlnet_call(m, x, t, text, image):
    down, mid = m["controlnet"](x, t, encoder_hidden_states=text, controlnet_cond=image, conditioning_scale=0.8,
                                return_dict=False)
    return m["unet"](x, t, encoder_hidden_states=text, down_block_additional_residuals=down,
                     mid_block_additional_residual=mid, return_dict=False)[0]


def controlnet_inputs(s):
    x, t, text = latents(4, (16, 16), (16, 24), text=(7, 16))(s)
    return x, t, text, rand((x.shape[0], 3, x.shape[2] * 2, x.shape[3] * 2), s + 30)


def vae():
    return AutoencoderKL(in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(16, 32),
                         layers_per_block=1, norm_num_groups=8,
                         down_block_types=("DownEncoderBlock2D",) * 2, up_block_types=("UpDecoderBlock2D",) * 2)


def tiled_vae():
    """AutoencoderKL with `enable_tiling()`, as pipelines offer it for large images: latents larger than a tile
    (sample_size 16: 8x8 latent tiles) are decoded tile by tile and blended."""
    m = AutoencoderKL(in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(16, 32),
                      layers_per_block=1, norm_num_groups=8, sample_size=16,
                      down_block_types=("DownEncoderBlock2D",) * 2, up_block_types=("UpDecoderBlock2D",) * 2)
    m.enable_tiling()
    return m


def wan_vae():
    return AutoencoderKLWan(base_dim=3, z_dim=4, dim_mult=[1, 1, 1, 1], num_res_blocks=1,
                            temperal_downsample=[False, True, True], latents_mean=[0.0] * 4, latents_std=[1.0] * 4)


def images(c, *sizes, b=2):
    return lambda s: (rand((b + s - 1, c) + tuple(sizes[s - 1]), s),)


def flux():
    return FluxTransformer2DModel(patch_size=1, in_channels=8, num_layers=1, num_single_layers=1, attention_head_dim=16,
                                  num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=32,
                                  guidance_embeds=True, axes_dims_rope=(4, 4, 8))


def flux_call(m, x, text, pooled, t, img_ids, txt_ids):
    return m(x, encoder_hidden_states=text, pooled_projections=pooled, timestep=t / 1000, img_ids=img_ids,
             txt_ids=txt_ids, guidance=torch.full((x.shape[0],), 3.5), return_dict=False)[0]


def flux_inputs(s):
    n, (h, w) = 1 + s, ((4, 4), (4, 6))[s - 1]
    img_ids = torch.zeros(h, w, 3)
    img_ids[..., 1] = torch.arange(h)[:, None]
    img_ids[..., 2] = torch.arange(w)[None, :]
    return (rand((n, h * w, 8), s), rand((n, 6, 32), s + 10), rand((n, 32), s + 20), t_of(s, n).expand(n),
            img_ids.reshape(h * w, 3), torch.zeros(6, 3))


def ltx_call(m, x, text, t, mask, frames, height, width):
    return m(x, text, t, mask, num_frames=frames.shape[0], height=height.shape[0], width=width.shape[0],
             return_dict=False)[0]


def ltx_inputs(s):
    n, (f, h, w) = 1 + s, ((2, 4, 4), (3, 4, 6))[s - 1]
    mask = torch.ones(n, 6)
    mask[:, -2:] = 0
    return (rand((n, f * h * w, 8), s), rand((n, 6, 16), s + 10), t_of(s, n).expand(n), mask,
            torch.empty(f), torch.empty(h), torch.empty(w))


def qwen_call(m, x, text, mask, t, hw):
    """QwenImage as its pipeline calls it: `img_shapes` a list of (frames, height, width) per sample, in Python ints
    (here read off the shape of `hw`, as the pipeline computes them from the requested size)."""
    shapes = [[(1, hw.shape[0], hw.shape[1])]] * x.shape[0]
    return m(x, encoder_hidden_states=text, encoder_hidden_states_mask=mask, timestep=t / 1000, img_shapes=shapes,
             return_dict=False)[0]


def qwen_inputs(s):
    n, (h, w) = 1 + s, ((4, 4), (4, 6))[s - 1]
    mask = torch.ones(n, 7, dtype=torch.long)
    mask[0, -3:] = 0
    return rand((n, h * w, 16), s), rand((n, 7, 16), s + 10), mask, t_of(s, n).expand(n), torch.empty(h, w)


def hunyuan_call(m, x, t, text, mask, pooled):
    return m(x, t, text, mask, pooled, guidance=torch.full((x.shape[0],), 6000.0), return_dict=False)[0]


def hunyuan_inputs(s):
    n = 1 + s
    mask = torch.ones(n, 6)
    mask[0, -2:] = 0
    return (rand((n, 4, 1 + s, 8, 8 + 4 * (s - 1)), s), t_of(s, n).expand(n), rand((n, 6, 16), s + 10), mask,
            rand((n, 8), s + 20))


def svd():
    return UNetSpatioTemporalConditionModel(
        sample_size=16, in_channels=8, out_channels=4, layers_per_block=1, block_out_channels=(32, 64),
        down_block_types=("CrossAttnDownBlockSpatioTemporal", "DownBlockSpatioTemporal"),
        up_block_types=("UpBlockSpatioTemporal", "CrossAttnUpBlockSpatioTemporal"), cross_attention_dim=32,
        num_attention_heads=(2, 4), addition_time_embed_dim=8, projection_class_embeddings_input_dim=24)


def svd_inputs(s):
    n, f = 1, 2 + s
    return (rand((n, f, 8, 16, 16), s), t_of(s, n), rand((n, 1, 32), s + 10), torch.tensor([[6.0, 127.0, 0.02]]))


# ---- schedulers: `step` compiled as a function ----

def scheduler_step(make, **step_kwargs):
    def build():
        sched = make()
        sched.set_timesteps(10)

        def step(model_output, t, sample):
            return sched.step(model_output, t, sample, return_dict=False, **step_kwargs)[0]
        step.scheduler = sched
        return step
    return build


def step_inputs(s, grow=True):
    """Calls 1 and 2 are the first two steps of the schedule (the eval and train calls of a model), 3 the third on
    a larger sample (the same size for a multistep solver, which keeps the previous outputs); the timestep is the
    schedule's own element, as `for t in scheduler.timesteps` gives it, and `scale_model_input` is called before
    each step outside the compiled function, as a pipeline calls it."""
    size = (2, 4, 8, 8) if s < 3 or not grow else (3, 4, 8, 12)

    def make(sched):
        t, sample = sched.timesteps[s - 1], rand(size, s + 10)
        scale = getattr(sched, "scale_model_input", None)  # FlowMatchEuler has none
        return rand(size, s), t, scale(sample, t) if scale else sample
    return make


class DenoiseLoop(nn.Module):
    """A whole sampling loop compiled: the model and the scheduler's step, two steps of EulerDiscrete."""

    def __init__(self):
        super().__init__()
        self.net = unet2d()
        self.scheduler = EulerDiscreteScheduler()
        self.scheduler.set_timesteps(2)

    def forward(self, x):
        self.scheduler.set_timesteps(2)
        x = x * self.scheduler.init_noise_sigma
        for t in self.scheduler.timesteps:
            inp = self.scheduler.scale_model_input(x, t)
            eps = self.net(inp, t, return_dict=False)[0]
            x = self.scheduler.step(eps, t, x, return_dict=False)[0]
        return x


R2 = ((16, 16), (16, 24))

CASES_BUILD = {
    # ---- UNets ----
    "UNet2DModel": (lambda: Call(unet2d(), lambda m, x, t: m(x, t).sample), latents(3, *R2), True),
    "UNet2DConditionModel": (lambda: Call(unet_cond(), lambda m, x, t, c: m(x, t, encoder_hidden_states=c,
                                                                             return_dict=False)[0]),
                             latents(4, *R2, text=(7, 16)), True),
    "UNet2DConditionModel-sdxl": (lambda: Call(
        unet_cond(addition_embed_type="text_time", addition_time_embed_dim=8, projection_class_embeddings_input_dim=64,
                  transformer_layers_per_block=(1, 1), use_linear_projection=True),
        lambda m, x, t, c, pooled, ids: m(x, t, encoder_hidden_states=c,
                                          added_cond_kwargs={"text_embeds": pooled, "time_ids": ids},
                                          return_dict=False)[0]), sdxl_inputs, True),
    "ControlNetModel+UNet2DConditionModel": (lambda: Call(controlnet(), controlnet_call), controlnet_inputs, True),
    "UNetSpatioTemporalConditionModel": (lambda: Call(svd(), lambda m, x, t, c, ids: m(
        x, t, c, ids, return_dict=False)[0]), svd_inputs, True),
    # ---- VAE ----
    "AutoencoderKL-encode": (lambda: Call(vae(), lambda m, x: m.encode(x).latent_dist.sample()), images(3, *R2), True),
    "AutoencoderKL-decode": (lambda: Call(vae(), lambda m, z: m.decode(z / 0.18215, return_dict=False)[0]),
                             images(4, (8, 8), (8, 12)), True),
    "AutoencoderKL-forward": (lambda: Call(vae(), lambda m, x: m(x, sample_posterior=True).sample), images(3, *R2), True),
    "AutoencoderKL-decode-tiled": (lambda: Call(tiled_vae(), lambda m, z: m.decode(z, return_dict=False)[0]),
                                   images(4, (12, 12), (12, 16), b=1), True),
    "AutoencoderKLWan-encode+decode": (lambda: Call(wan_vae(), lambda m, x: m(x, return_dict=False)[0]),
                                       images(3, (5, 16, 16), (5, 16, 24), b=1), True),
    # ---- transformers ----
    "DiTTransformer2DModel": (lambda: Call(DiTTransformer2DModel(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=2, sample_size=8,
        patch_size=2, norm_num_groups=8), lambda m, x, t: m(x, t.expand(x.shape[0]), class_labels=torch.arange(
            x.shape[0]), return_dict=False)[0]), latents(4, (8, 8), (8, 8)), True),
    "PixArtTransformer2DModel": (lambda: Call(PixArtTransformer2DModel(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=2, sample_size=8,
        patch_size=2, cross_attention_dim=16, caption_channels=16, norm_num_groups=8),
        lambda m, x, t, c: m(x, encoder_hidden_states=c, timestep=t.expand(x.shape[0]),
                             added_cond_kwargs={"resolution": None, "aspect_ratio": None}, return_dict=False)[0]),
        latents(4, (8, 8), (8, 12), text=(6, 16)), True),
    "SD3Transformer2DModel": (lambda: Call(SD3Transformer2DModel(
        sample_size=8, patch_size=1, in_channels=4, num_layers=2, attention_head_dim=8, num_attention_heads=2,
        joint_attention_dim=16, caption_projection_dim=16, pooled_projection_dim=16, out_channels=4,
        pos_embed_max_size=16), lambda m, x, t, c: m(x, encoder_hidden_states=c, pooled_projections=c[:, 0],
                                                     timestep=t.expand(x.shape[0]), return_dict=False)[0]),
        latents(4, (8, 8), (8, 12), text=(6, 16)), True),
    "FluxTransformer2DModel": (lambda: Call(flux(), flux_call), flux_inputs, True),
    "CogVideoXTransformer3DModel": (lambda: Call(CogVideoXTransformer3DModel(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, time_embed_dim=8,
        text_embed_dim=16, num_layers=1, sample_width=8, sample_height=8, sample_frames=9, patch_size=2,
        temporal_compression_ratio=4, max_text_seq_length=6),
        lambda m, x, t, c: m(x, c, t.expand(x.shape[0]), return_dict=False)[0]),
        lambda s: (rand((1 + s, 2, 4, 8, 8), s), t_of(s, 1 + s), rand((1 + s, 6, 16), s + 10)), True),
    "WanTransformer3DModel": (lambda: Call(WanTransformer3DModel(
        patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=4, out_channels=4,
        text_dim=16, freq_dim=32, ffn_dim=32, num_layers=2, rope_max_seq_len=32),
        lambda m, x, t, c: m(x, t.expand(x.shape[0]), c, return_dict=False)[0]),
        lambda s: (rand((1 + s, 4, 1 + s, 8, 8 + 4 * (s - 1)), s), t_of(s, 1 + s), rand((1 + s, 6, 16), s + 10)),
        True),
    "LTXVideoTransformer3DModel": (lambda: Call(LTXVideoTransformer3DModel(
        in_channels=8, out_channels=8, patch_size=1, patch_size_t=1, num_attention_heads=2, attention_head_dim=8,
        cross_attention_dim=16, num_layers=1, caption_channels=16), ltx_call), ltx_inputs, True),
    "QwenImageTransformer2DModel": (lambda: Call(QwenImageTransformer2DModel(
        patch_size=2, in_channels=16, out_channels=4, num_layers=2, attention_head_dim=16, num_attention_heads=2,
        joint_attention_dim=16, axes_dims_rope=(8, 4, 4)), qwen_call), qwen_inputs, True),
    "HunyuanVideoTransformer3DModel": (lambda: Call(HunyuanVideoTransformer3DModel(
        in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=10, num_layers=1,
        num_single_layers=1, num_refiner_layers=1, patch_size=1, patch_size_t=1, guidance_embeds=True,
        text_embed_dim=16, pooled_projection_dim=8, rope_axes_dim=(2, 4, 4)), hunyuan_call), hunyuan_inputs, True),
    # ---- schedulers ----
    "schedulers/DDPMScheduler.step": (scheduler_step(DDPMScheduler), step_inputs, False),
    "schedulers/DDIMScheduler.step": (scheduler_step(DDIMScheduler), step_inputs, False),
    "schedulers/EulerDiscreteScheduler.step": (scheduler_step(EulerDiscreteScheduler), step_inputs, False),
    "schedulers/FlowMatchEulerDiscreteScheduler.step": (scheduler_step(FlowMatchEulerDiscreteScheduler), step_inputs,
                                                        False),
    "schedulers/DPMSolverMultistepScheduler.step": (scheduler_step(DPMSolverMultistepScheduler),
                                                    lambda s: step_inputs(s, grow=False), False),
    "schedulers/denoising-loop(UNet2DModel+EulerDiscrete)": (DenoiseLoop, images(3, *R2, b=1), False),
}


def _loss_of(out):
    """Sum of every float tensor a forward returns (a tensor, tuple, list or dict of them), for backward."""
    if isinstance(out, torch.Tensor):
        return out.float().sum() if out.requires_grad else None
    parts = out.values() if isinstance(out, dict) else out if isinstance(out, (tuple, list)) else ()
    sums = [s for s in (_loss_of(o) for o in parts) if s is not None]
    return sum(sums) if sums else None


def calls(name):
    """The object a case builds and the three calls it makes of it: (built, [(mode, args), ...], backward).
    mode is "eval" (eval, under no_grad), "train" or None (a scheduler's step: no module)."""
    build, inputs, backward = CASES_BUILD[name]
    built = build()
    if name.startswith("schedulers/") and not isinstance(built, nn.Module):
        return built, [(None, inputs(s)(built.scheduler)) for s in (1, 2, 3)], False
    return built, [("eval", inputs(1)), ("train", inputs(1)), ("train", inputs(2))], backward


def case(name):
    def go():
        built, steps, backward = calls(name)
        c = torch.compile(built, backend="eager")
        for i, (mode, args) in enumerate(steps):
            if mode == "eval":
                built.eval()
                with torch.no_grad():
                    c(*args)
                continue
            if mode == "train":
                built.train()
            out = c(*args)
            loss = _loss_of(out) if backward and i == 1 else None
            if loss is not None:
                loss.backward()
    return go


def run(fn):
    torch._dynamo.reset(); torch.manual_seed(0)
    error = None
    with capture_dynamo() as capture:
        try:
            fn()
        except Exception as exc:
            error = "".join(traceback.format_exception_only(exc)).strip()
            error = error if len(error) <= 2000 else error[:400] + " [...] " + error[-1600:]
    return {"graph_breaks": [_kept(dataclasses.asdict(b)) for b in capture.graph_breaks],
            "recompiles": len(capture.recompiles), "graphs": capture.graphs_compiled, "error": error}


SITE = Path(diffusers.__file__).resolve().parents[1]
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
