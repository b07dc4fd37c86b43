"""Run vector-quantize-pytorch 1.32.0 and x-transformers 2.31.10 through real Dynamo (backend eager, CPU).

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/lucidrains_run.py OUT.json [CASE ...]

Modelled on torchvision_run.py: each module is built with
random weights at tiny sizes, compiled whole with torch.compile(model, backend="eager"), called
in eval under no_grad, then in train mode (twice, the second with another batch size, as the
torchvision run does). Graph breaks come from breaklint.confirm.capture. OUT.json is rewritten
after each case; a case that errors is recorded and the run goes on.
"""
from __future__ import annotations

import dataclasses
import json
import sys
import time
import traceback
from pathlib import Path

import torch
import vector_quantize_pytorch as VQ
import x_transformers as XT
from breaklint.confirm.capture import capture_dynamo

SITE = Path(VQ.__file__).resolve().parents[1]
KEPT = ("filename", "lineno", "gb_type", "gb_id", "frame_skipped", "rest_skipped")


def _rel(name):
    path = Path(name).resolve() if name else None
    if path is not None and path.is_relative_to(SITE):
        return path.relative_to(SITE).as_posix()
    return name


def _kept(event: dict) -> dict:
    out = {key: event[key] for key in KEPT}
    out["filename"] = _rel(event["filename"])
    # extra, for explaining misses (score.py-style scoring ignores them)
    out["frames"] = [[_rel(f), l] for f, l in event.get("frames", ())][-6:]
    out["reason"] = (event.get("reason") or "")[:600]
    return out


def run(fn):
    torch._dynamo.reset(); torch.manual_seed(0)
    error = None
    t0 = time.time()
    with capture_dynamo() as capture:
        try:
            fn()
        except Exception as exc:
            error = "".join(traceback.format_exception_only(exc)).strip()[-2000:]
    return {"graph_breaks": [_kept(dataclasses.asdict(b)) for b in capture.graph_breaks],
            "recompiles": len(capture.recompiles), "graphs": capture.graphs_compiled, "error": error,
            "seconds": round(time.time() - t0, 1)}


def seq_in(b, n=8, d=16):
    return torch.randn(b, n, d)


def module_case(build, make_inputs, train=True, eval_=True):
    """eval under no_grad, then train with batch 2 and batch 3."""
    def go():
        model = build(); c = torch.compile(model, backend="eager")
        if eval_:
            model.eval()
            with torch.no_grad():
                c(*make_inputs(2))
        if train:
            model.train(); c(*make_inputs(2)); c(*make_inputs(3))
    return go


# ---- vector-quantize-pytorch ----------------------------------------------------------------
VQ_CASES = {
    "vq/VectorQuantize": (lambda: VQ.VectorQuantize(dim=16, codebook_size=32), lambda b: (seq_in(b),)),
    "vq/VectorQuantize_kmeans_init": (lambda: VQ.VectorQuantize(dim=16, codebook_size=32, kmeans_init=True, kmeans_iters=2),
                                      lambda b: (seq_in(b, 32),)),
    "vq/VectorQuantize_cosine": (lambda: VQ.VectorQuantize(dim=16, codebook_size=32, use_cosine_sim=True),
                                 lambda b: (seq_in(b),)),
    "vq/VectorQuantize_ema_deadcode": (lambda: VQ.VectorQuantize(dim=16, codebook_size=32, decay=0.8, threshold_ema_dead_code=2),
                                       lambda b: (seq_in(b),)),
    "vq/ResidualVQ": (lambda: VQ.ResidualVQ(dim=16, num_quantizers=3, codebook_size=32), lambda b: (seq_in(b),)),
    "vq/GroupedResidualVQ": (lambda: VQ.GroupedResidualVQ(dim=16, groups=2, num_quantizers=2, codebook_size=32),
                             lambda b: (seq_in(b),)),
    "vq/FSQ": (lambda: VQ.FSQ(levels=[8, 5, 5, 5], dim=16), lambda b: (seq_in(b),)),
    "vq/LFQ": (lambda: VQ.LFQ(dim=16, codebook_size=2 ** 8, entropy_loss_weight=0.1, diversity_gamma=1.0),
               lambda b: (seq_in(b),)),
    "vq/ResidualFSQ": (lambda: VQ.ResidualFSQ(dim=16, levels=[8, 5, 5], num_quantizers=2), lambda b: (seq_in(b),)),
    "vq/ResidualLFQ": (lambda: VQ.ResidualLFQ(dim=16, codebook_size=2 ** 8, num_quantizers=2), lambda b: (seq_in(b),)),
    "vq/RandomProjectionQuantizer": (lambda: VQ.RandomProjectionQuantizer(dim=16, num_codebooks=2, codebook_dim=8, codebook_size=32),
                                     lambda b: (seq_in(b),)),
}

# ---- x-transformers -------------------------------------------------------------------------
NT, L = 64, 32


def tokens(b, n=16):
    return torch.randint(0, NT, (b, n))


def tok_mask(b, n=16):
    m = torch.ones(b, n, dtype=torch.bool); m[0, n - 3:] = False
    return m


def wrapper(layers_cls, **kw):
    return lambda: XT.TransformerWrapper(num_tokens=NT, max_seq_len=L, attn_layers=layers_cls(dim=32, depth=2, heads=2, **kw))


def xt_inputs(b):
    return (tokens(b),)


def xt_masked(b):
    return (tokens(b), tok_mask(b))


class Masked(torch.nn.Module):
    """Passes the mask by keyword, as users call TransformerWrapper (forward(x, mask=...))."""
    def __init__(self, inner):
        super().__init__(); self.inner = inner

    def forward(self, x, mask):
        return self.inner(x, mask=mask)


def masked(build):
    return lambda: Masked(build())


XT_CASES = {
    "xt/Decoder_mask": (masked(wrapper(XT.Decoder)), xt_masked),
    "xt/Decoder_rotary": (wrapper(XT.Decoder, rotary_pos_emb=True), xt_inputs),
    "xt/Decoder_attn_flash_False": (masked(wrapper(XT.Decoder, attn_flash=False)), xt_masked),
    "xt/Decoder_attn_flash_True": (masked(wrapper(XT.Decoder, attn_flash=True)), xt_masked),
    "xt/Encoder_mask": (masked(wrapper(XT.Encoder)), xt_masked),
    "xt/ContinuousTransformerWrapper": (
        masked(lambda: XT.ContinuousTransformerWrapper(dim_in=8, dim_out=8, max_seq_len=L,
                                                       attn_layers=XT.Encoder(dim=32, depth=2, heads=2))),
        lambda b: (torch.randn(b, 16, 8), tok_mask(b))),
}


class EncDec(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = XT.XTransformer(dim=32, enc_num_tokens=NT, enc_depth=1, enc_heads=2, enc_max_seq_len=L,
                                 dec_num_tokens=NT, dec_depth=1, dec_heads=2, dec_max_seq_len=L, tie_token_emb=True)

    def forward(self, src, tgt, mask):
        return self.m(src, tgt, mask=mask)


XT_CASES["xt/XTransformer"] = (EncDec, lambda b: (tokens(b), tokens(b, 12), tok_mask(b)))
XT_CASES["xt/AutoregressiveWrapper_loss"] = (
    lambda: XT.AutoregressiveWrapper(XT.TransformerWrapper(num_tokens=NT, max_seq_len=L,
                                                           attn_layers=XT.Decoder(dim=32, depth=2, heads=2))),
    lambda b: (tokens(b, 17),))

CASES = {name: module_case(build, inputs) for name, (build, inputs) in {**VQ_CASES, **XT_CASES}.items()}


# ---- extra cases (not in the brief's list): each enables an option that runs code breaklint flagged
# but the cases above never execute, so those predictions can be confirmed or refuted ------------
class Kw(torch.nn.Module):
    """Calls inner(*args, **fixed) so options passed by keyword are part of the compiled call."""
    def __init__(self, inner, **fixed):
        super().__init__(); self.inner = inner; self.fixed = fixed

    def forward(self, *args):
        return self.inner(*args, **self.fixed)


class WithIndices(torch.nn.Module):
    def __init__(self, inner):
        super().__init__(); self.inner = inner

    def forward(self, x, indices):
        return self.inner(x, indices=indices)


def ar_net(layers=XT.Decoder, **kw):
    return XT.TransformerWrapper(num_tokens=NT, max_seq_len=L, attn_layers=layers(dim=32, depth=2, heads=2, **kw))


EXTRA_CASES = {
    "extra/xt/Decoder_layer_dropout": (wrapper(XT.Decoder, layer_dropout=0.1), xt_inputs),
    "extra/xt/Decoder_alibi": (wrapper(XT.Decoder, alibi_pos_bias=True), xt_inputs),
    "extra/xt/NonAutoregressiveWrapper": (
        lambda: XT.NonAutoregressiveWrapper(ar_net(XT.Encoder), mask_id=NT - 1, steps=2, use_simple_mdlm_loss_weight=False),
        lambda b: (tokens(b, L),)),
    "extra/xt/NonAutoregressiveWrapper_mdlm": (
        lambda: XT.NonAutoregressiveWrapper(ar_net(XT.Encoder), mask_id=NT - 1, steps=2),
        lambda b: (tokens(b, L),)),
    "extra/xt/BeliefStateWrapper": (lambda: XT.BeliefStateWrapper(forward_decoder=ar_net()), lambda b: (tokens(b, 8),)),
    "extra/xt/ContinuousAutoregressiveWrapper_rollout": (
        lambda: Kw(XT.ContinuousAutoregressiveWrapper(XT.ContinuousTransformerWrapper(
            dim_in=8, dim_out=8, max_seq_len=L, attn_layers=XT.Decoder(dim=32, depth=2, heads=2))), rollout_steps=2),
        lambda b: (torch.randn(b, 16, 8),)),
    "extra/vq/GroupedResidualFSQ": (lambda: VQ.GroupedResidualFSQ(dim=16, groups=2, levels=[8, 5, 5], num_quantizers=2),
                                    lambda b: (seq_in(b),)),
    "extra/vq/GroupedResidualLFQ": (lambda: VQ.GroupedResidualLFQ(dim=16, groups=2, codebook_size=2 ** 8, num_quantizers=2),
                                    lambda b: (seq_in(b),)),
    "extra/vq/ResidualSimVQ_quantize_dropout": (lambda: VQ.ResidualSimVQ(dim=16, num_quantizers=3, codebook_size=32, quantize_dropout=True),
                                                lambda b: (seq_in(b),)),
    "extra/vq/ResidualVQ_indices_loss": (lambda: WithIndices(VQ.ResidualVQ(dim=16, num_quantizers=3, codebook_size=32)),
                                         lambda b: (seq_in(b), torch.randint(0, 32, (b, 8, 3)))),
    "extra/vq/LFQ_frac_per_sample_entropy": (
        lambda: VQ.LFQ(dim=16, codebook_size=2 ** 8, entropy_loss_weight=0.1, frac_per_sample_entropy=0.5),
        lambda b: (seq_in(b),)),
    "extra/vq/VectorQuantize_orthogonal_active_codes": (
        lambda: VQ.VectorQuantize(dim=16, codebook_size=32, orthogonal_reg_weight=1.0, orthogonal_reg_active_codes_only=True),
        lambda b: (seq_in(b),)),
    "extra/vq/VectorQuantize_inplace_optimizer": (
        lambda: VQ.VectorQuantize(dim=16, codebook_size=32, learnable_codebook=True, ema_update=False,
                                  in_place_codebook_optimizer=lambda p: torch.optim.SGD(p, lr=1e-3)),
        lambda b: (seq_in(b),)),
}


class RolloutMask(torch.nn.Module):
    def __init__(self, inner):
        super().__init__(); self.inner = inner

    def forward(self, x, mask):
        return self.inner(x, rollout_steps=2, mask=mask)


EXTRA_CASES.update({
    "extra/xt/ContinuousAutoregressiveWrapper_rollout_mask": (
        lambda: RolloutMask(XT.ContinuousAutoregressiveWrapper(XT.ContinuousTransformerWrapper(
            dim_in=8, dim_out=8, max_seq_len=L, attn_layers=XT.Decoder(dim=32, depth=2, heads=2)))),
        lambda b: (torch.randn(b, 16, 8), tok_mask(b))),
    "extra/xt/NonAutoregressiveWrapper_self_token_critic": (
        lambda: XT.NonAutoregressiveWrapper(ar_net(XT.Encoder), mask_id=NT - 1, steps=2, self_token_critic=True,
                                            use_simple_mdlm_loss_weight=False),
        lambda b: (tokens(b, L),)),
    "extra/xt/EntropyBasedTokenizer": (
        lambda: XT.EntropyBasedTokenizer(ar_net(), entropy_threshold=1.0, max_token_size=4),
        lambda b: (tokens(b),)),
})

CASES = {name: module_case(build, inputs) for name, (build, inputs) in {**VQ_CASES, **XT_CASES, **EXTRA_CASES}.items()}

if __name__ == "__main__":
    out = Path(sys.argv[1]); names = sys.argv[2:] or [n for n in CASES if not n.startswith('extra/')]
    if names == ['extra']:
        names = [n for n in CASES if n.startswith('extra/')]
    results = json.loads(out.read_text()) if out.exists() else {}
    for n in names:
        results[n] = run(CASES[n])
        r = results[n]
        print(n, "s", r["seconds"], "graphs", r["graphs"], "breaks", len({(b["filename"], b["lineno"]) for b in r["graph_breaks"]}),
              "err", (r["error"] or "")[:200], flush=True)
        out.write_text(json.dumps(results, indent=1))
