"""Run Hugging Face transformers 5.17.0 through real Dynamo (backend eager, CPU); write breaks as JSON.

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/transformers_run.py OUT.json [CASE ...]

Modelled on benchmarks/accuracy/thirdparty/monai_run.py: each case is a model users compile, built from a small
config with random weights (`from_config`-style: nothing is fetched, no tokenizer; random token ids), compiled
whole with torch.compile(model, backend="eager") and called as users call it: in eval under no_grad with a padded
attention mask, then (decoders) a decode step after a prefill (`model(next_ids, past_key_values=cache,
use_cache=True)`, the step `generate` takes), then in train mode with labels and a backward through the loss, then
in train mode on a second sequence length (image models: another batch). Breaks come from Dynamo's logs
(breaklint.confirm.capture). OUT.json is updated after every case. SITE holds transformers (--no-deps) and the
pure-Python packages its import asks for (huggingface_hub, tokenizers, safetensors, regex, tqdm, typer, httpx, ...).

Mixture-of-experts models run as transformers 5 runs them by default (experts as one grouped matmul,
`grouped_mm`), and Mixtral once more with `experts_implementation="eager"` (the per-expert loop); their training
calls ask for the router's load-balancing loss (`output_router_logits=True`). About 12 minutes of CPU time for
the 26 cases (two processes of one thread each on a shared 2-core machine: 6 minutes).

Left out: DETR's training loss (its Hungarian matcher needs scipy; DETR runs eval and a train forward with a
backward through the logits), anything that downloads (tokenizers, processors, pretrained weights).
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
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch

import transformers as T
from breaklint.confirm.capture import capture_dynamo

torch.set_num_threads(int(os.environ.get("TF_THREADS", "2")))
V = 128  # vocabulary


def ids(b, n, seed):
    return torch.randint(3, V, (b, n), generator=torch.Generator().manual_seed(seed))


def padded(b, n):
    """A batch as a tokenizer pads it (left padding for decoders): the first row is shorter by 2."""
    mask = torch.ones(b, n, dtype=torch.long)
    mask[0, :2] = 0
    return mask


def rand(shape, seed):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


# ---- what a user does with each kind of model; `c` is the compiled model (the model itself in *_lines.py) ----

def causal_lm(model, c, n1=8, n2=11, **train):
    model.eval()
    with torch.no_grad():
        x, m = ids(2, n1, 1), padded(2, n1)
        c(input_ids=x, attention_mask=m)
        out = c(input_ids=x, attention_mask=m, use_cache=True)  # prefill
        nxt = out.logits[:, -1:].argmax(-1)
        m = torch.cat([m, torch.ones(2, 1, dtype=m.dtype)], 1)
        out = c(input_ids=nxt, attention_mask=m, past_key_values=out.past_key_values, use_cache=True)  # decode
        nxt = out.logits[:, -1:].argmax(-1)
        m = torch.cat([m, torch.ones(2, 1, dtype=m.dtype)], 1)
        c(input_ids=nxt, attention_mask=m, past_key_values=out.past_key_values, use_cache=True)
    model.train()
    x = ids(2, n1, 2)
    c(input_ids=x, attention_mask=torch.ones_like(x), labels=x, **train).loss.backward()
    x = ids(3, n2, 3)
    c(input_ids=x, attention_mask=padded(3, n2), labels=x, **train).loss.backward()


def moe_lm(model, c):
    """Training a mixture of experts adds the router's load-balancing loss (output_router_logits=True)."""
    causal_lm(model, c, output_router_logits=True)


def static_cache_lm(model, c, n1=8):
    """Decoding with a StaticCache, the cache transformers' docs give for torch.compile."""
    model.eval()
    with torch.no_grad():
        cache = T.StaticCache(config=model.config, max_cache_len=16)
        x = ids(1, n1, 1)
        pos = torch.arange(n1)
        out = c(input_ids=x, past_key_values=cache, use_cache=True, cache_position=pos)
        for step in range(2):
            nxt = out.logits[:, -1:].argmax(-1)
            pos = torch.tensor([n1 + step])
            out = c(input_ids=nxt, past_key_values=cache, use_cache=True, cache_position=pos)


def seq_cls(model, c, n1=8, n2=11):
    model.eval()
    with torch.no_grad():
        c(input_ids=ids(2, n1, 1), attention_mask=padded(2, n1))
    model.train()
    c(input_ids=ids(2, n1, 2), attention_mask=padded(2, n1), labels=torch.tensor([0, 1])).loss.backward()
    c(input_ids=ids(3, n2, 3), attention_mask=padded(3, n2), labels=torch.tensor([1, 0, 1])).loss.backward()


def masked_lm(model, c, n1=8, n2=11):
    model.eval()
    with torch.no_grad():
        c(input_ids=ids(2, n1, 1), attention_mask=padded(2, n1))
    model.train()
    for b, n, s in ((2, n1, 2), (3, n2, 3)):
        x = ids(b, n, s)
        labels = torch.where(rand((b, n), s) < 0.3, x, torch.full_like(x, -100))
        c(input_ids=x, attention_mask=padded(b, n), labels=labels).loss.backward()


def seq2seq(model, c, n1=8, n2=11, encoder=lambda b, n, s: {"input_ids": ids(b, n, s),
                                                            "attention_mask": padded(b, n)}):
    model.eval()
    with torch.no_grad():
        enc = encoder(2, n1, 1)
        dec = ids(2, 1, 4)
        out = c(**enc, decoder_input_ids=dec, use_cache=True)  # first decoder step (with the encoder)
        nxt = out.logits[:, -1:].argmax(-1)
        c(encoder_outputs=(out.encoder_last_hidden_state,), attention_mask=enc.get("attention_mask"),
          decoder_input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)  # decode step
    model.train()
    for b, n, s in ((2, n1, 2), (3, n2, 3)):
        c(**encoder(b, n, s), labels=ids(b, 5, s + 10)).loss.backward()


def whisper_features(b, n, s):
    return {"input_features": rand((b, 16, 32), s)}  # (batch, mel bins, 2 * max_source_positions)


def image_cls(size=(32, 32)):
    def go(model, c):
        model.eval()
        with torch.no_grad():
            c(pixel_values=rand((2, 3) + size, 1))
        model.train()
        c(pixel_values=rand((2, 3) + size, 2), labels=torch.tensor([0, 1])).loss.backward()
        c(pixel_values=rand((3, 3) + size, 3), labels=torch.tensor([1, 0, 1])).loss.backward()
    return go


def clip(model, c):
    model.eval()
    with torch.no_grad():
        c(input_ids=ids(2, 7, 1), attention_mask=padded(2, 7), pixel_values=rand((2, 3, 32, 32), 1))
    model.train()
    c(input_ids=ids(2, 7, 2), attention_mask=padded(2, 7), pixel_values=rand((2, 3, 32, 32), 2),
      return_loss=True).loss.backward()
    c(input_ids=ids(3, 10, 3), attention_mask=padded(3, 10), pixel_values=rand((3, 3, 32, 32), 3),
      return_loss=True).loss.backward()


def detr(model, c):
    model.eval()
    with torch.no_grad():
        c(pixel_values=rand((1, 3, 64, 64), 1))
    model.train()
    out = c(pixel_values=rand((2, 3, 64, 64), 2), pixel_mask=torch.ones(2, 64, 64, dtype=torch.long))
    (out.logits.sum() + out.pred_boxes.sum()).backward()
    c(pixel_values=rand((2, 3, 64, 80), 3))


# ---- configs: tiny, random weights ----

DEC = dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
           num_key_value_heads=2, max_position_embeddings=64, pad_token_id=0)


def lm(config_cls, model_cls, **extra):
    return lambda: getattr(T, model_cls)(getattr(T, config_cls)(**{**DEC, **extra}))


ENC = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
           max_position_embeddings=64, pad_token_id=0)
S2S = dict(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
           decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
           pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
VIS = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, image_size=32,
           patch_size=8, num_labels=2)

CASES_BUILD = {
    "Llama-CausalLM": (lm("LlamaConfig", "LlamaForCausalLM"), causal_lm),
    "Llama-StaticCache": (lm("LlamaConfig", "LlamaForCausalLM"), static_cache_lm),
    "Mistral-CausalLM": (lm("MistralConfig", "MistralForCausalLM", sliding_window=6), causal_lm),
    "Qwen2-CausalLM": (lm("Qwen2Config", "Qwen2ForCausalLM"), causal_lm),
    "Qwen3-CausalLM": (lm("Qwen3Config", "Qwen3ForCausalLM", head_dim=8), causal_lm),
    "Gemma-CausalLM": (lm("GemmaConfig", "GemmaForCausalLM", head_dim=8), causal_lm),
    "Gemma2-CausalLM": (lm("Gemma2Config", "Gemma2ForCausalLM", head_dim=8, sliding_window=6), causal_lm),
    "Gemma3-CausalLM": (lm("Gemma3TextConfig", "Gemma3ForCausalLM", head_dim=8, sliding_window=6), causal_lm),
    "Phi3-CausalLM": (lm("Phi3Config", "Phi3ForCausalLM"), causal_lm),
    "GPT2-LMHead": (lambda: T.GPT2LMHeadModel(T.GPT2Config(vocab_size=V, n_embd=32, n_layer=2, n_head=4,
                                                           n_positions=64)), causal_lm),
    "GPTNeoX-CausalLM": (lambda: T.GPTNeoXForCausalLM(T.GPTNeoXConfig(
        vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=64)), causal_lm),
    "Mixtral-CausalLM": (lm("MixtralConfig", "MixtralForCausalLM", num_local_experts=4, num_experts_per_tok=2), moe_lm),
    # transformers 5 runs experts as one grouped matmul (`grouped_mm`, the default); "eager" is the per-expert loop
    "Mixtral-CausalLM-eager-experts": (lm("MixtralConfig", "MixtralForCausalLM", num_local_experts=4,
                                          num_experts_per_tok=2, experts_implementation="eager"), moe_lm),
    "Qwen2MoE-CausalLM": (lm("Qwen2MoeConfig", "Qwen2MoeForCausalLM", num_experts=4, num_experts_per_tok=2,
                             moe_intermediate_size=32, shared_expert_intermediate_size=32), moe_lm),
    "Qwen3MoE-CausalLM": (lm("Qwen3MoeConfig", "Qwen3MoeForCausalLM", head_dim=8, num_experts=4,
                             num_experts_per_tok=2, moe_intermediate_size=32), moe_lm),
    "BERT-SequenceClassification": (lambda: T.BertForSequenceClassification(T.BertConfig(**ENC, num_labels=2)),
                                    seq_cls),
    "BERT-MaskedLM": (lambda: T.BertForMaskedLM(T.BertConfig(**ENC)), masked_lm),
    "RoBERTa-SequenceClassification": (lambda: T.RobertaForSequenceClassification(T.RobertaConfig(
        **{**ENC, "max_position_embeddings": 80, "pad_token_id": 1}, num_labels=2)), seq_cls),
    "DistilBERT-SequenceClassification": (lambda: T.DistilBertForSequenceClassification(T.DistilBertConfig(
        vocab_size=V, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=64, num_labels=2)),
        seq_cls),
    "T5-ConditionalGeneration": (lambda: T.T5ForConditionalGeneration(T.T5Config(
        vocab_size=V, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)), seq2seq),
    "BART-ConditionalGeneration": (lambda: T.BartForConditionalGeneration(T.BartConfig(**S2S)), seq2seq),
    "Whisper-ConditionalGeneration": (lambda: T.WhisperForConditionalGeneration(T.WhisperConfig(
        **{**S2S, "max_position_embeddings": None}, num_mel_bins=16, max_source_positions=16,
        max_target_positions=32)),
        lambda m, c: seq2seq(m, c, encoder=whisper_features)),
    "ViT-ImageClassification": (lambda: T.ViTForImageClassification(T.ViTConfig(**VIS)), image_cls()),
    "CLIP": (lambda: T.CLIPModel(T.CLIPConfig(
        text_config=dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, max_position_embeddings=32),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                           image_size=32, patch_size=8), projection_dim=16)), clip),
    "Swin-ImageClassification": (lambda: T.SwinForImageClassification(T.SwinConfig(
        image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4, num_labels=2)),
        image_cls()),
    "DETR-ObjectDetection": (lambda: T.DetrForObjectDetection(T.DetrConfig(
        backbone_config=T.ResNetConfig(embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], layer_type="basic",
                                       out_features=["stage2"]),
        num_queries=5, encoder_layers=1, decoder_layers=1, d_model=32, encoder_ffn_dim=64, decoder_ffn_dim=64,
        encoder_attention_heads=4, decoder_attention_heads=4, num_labels=3)), detr),
}


def case(name):
    build, use = CASES_BUILD[name]

    def go():
        model = build()
        use(model, torch.compile(model, backend="eager"))
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


SITE = Path(T.__file__).resolve().parents[1]
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
        if not os.environ.get("TF_NO_WRITE"):
            results = {**(json.loads(out.read_text()) if out.exists() else {}), n: r}  # two runs may share OUT
            out.write_text(json.dumps(results, indent=1))
