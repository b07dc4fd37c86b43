"""The accuracy corpus: pinned third-party model code and the models built from it.

Everything is built from source (or from a config object) with random weights and tiny inputs;
nothing is fetched from a hub. Most of timm and diffusers compiles to one graph: that half tests
whether the linter cries wolf. The models that do break were found by running candidates through
Dynamo (every candidate that broke is here, whatever the linter makes of it): timm's Sequencer
(an LSTM), and transformers' Longformer, BigBird (block-sparse attention), Wav2Vec2 (time masking
in training) and Reformer; BERT and GPT-2 from the same package compile clean. torchvision is not installed: PyPI's wheel cannot load its C extension beside the CPU torch
pin, and timm only needs `torchvision.ops.misc.FrozenBatchNorm2d` from it, which `shim/` provides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

# Exact pins, compatible with torch 2.13.0 (CPU), installed with `--no-deps` next to their
# pure-Python dependencies (see run.py).
PACKAGES = ("timm==1.0.22", "diffusers==0.35.2", "transformers==4.57.6")
SOURCES = ("timm", "diffusers", "transformers")  # the installed packages breaklint checks and scores
DEPENDENCIES = ("tokenizers==0.22.1", "huggingface_hub==0.36.0", "safetensors==0.8.0", "pyyaml==6.0.4", "filelock==4.3.1",
                "fsspec==2026.9.0", "tqdm==4.70.1", "packaging==26.4", "requests==2.34.2", "regex==2026.11.19",
                "importlib_metadata==10.2.0", "zipp==4.1.2", "charset_normalizer==3.5.3", "idna==3.20",
                "urllib3==2.8.0", "certifi==2026.10.19.post1", "typing_extensions==4.16.0")


@dataclass(frozen=True)
class Case:
    """One model: how to build it, what to call it with, and its forward for breaklint."""

    name: str
    build: Callable[[], Any]
    inputs: Callable[[int], tuple[Any, ...]]  # batch size -> positional arguments
    entry: str  # breaklint entry point, `package.module:Class.forward`
    kwargs: dict[str, Any] = field(default_factory=dict)
    # Train-mode calls made after the standard ones, the way the model's task heads and data
    # loaders call it: batch size -> keyword arguments besides the inputs (a padded batch's
    # attention mask, Longformer's global attention on the first token).
    masked: Callable[[int], dict[str, Any]] | None = None


def _timm(name: str, entry: str, size: int = 32, **options: Any) -> Case:
    def build() -> Any:
        import timm

        return timm.create_model(name, pretrained=False, num_classes=10, **options)

    def inputs(batch: int) -> tuple[Any, ...]:
        import torch

        return (torch.randn(batch, 3, size, size),)

    return Case(f"timm/{name}", build, inputs, entry)


def _diffusers(name: str, cls: str, entry: str, config: dict[str, Any], inputs: Callable[[int], tuple[Any, ...]]) -> Case:
    def build() -> Any:
        import diffusers

        return getattr(diffusers, cls)(**config)

    return Case(f"diffusers/{name}", build, inputs, entry)


def _transformers(name: str, model: str, config: dict[str, Any], entry: str,
                  inputs: Callable[[int], tuple[Any, ...]],
                  masked: Callable[[int], dict[str, Any]] | None = None) -> Case:
    def build() -> Any:
        import transformers

        return getattr(transformers, f"{model}Model")(getattr(transformers, f"{model}Config")(**config))

    return Case(f"transformers/{name}", build, inputs, entry, masked=masked)


def _padding_mask(length: int, **extra: Callable[[int], Any]) -> Callable[[int], dict[str, Any]]:
    """A right-padded batch's `attention_mask` (the last quarter of the second row padded)."""
    def masked(batch: int) -> dict[str, Any]:
        import torch

        mask = torch.ones(batch, length, dtype=torch.long)
        mask[-1, length - length // 4:] = 0
        return {"attention_mask": mask, **{key: make(batch) for key, make in extra.items()}}

    return masked


def _global_first_token(length: int) -> Callable[[int], Any]:
    """Longformer's global attention on the first token, as its classification head sets it."""
    def make(batch: int) -> Any:
        import torch

        mask = torch.zeros(batch, length, dtype=torch.long)
        mask[:, 0] = 1
        return mask

    return make


def _token_inputs(length: int) -> Callable[[int], tuple[Any, ...]]:
    def inputs(batch: int) -> tuple[Any, ...]:
        import torch

        return (torch.randint(1, 100, (batch, length)),)

    return inputs


def _audio_inputs(batch: int) -> tuple[Any, ...]:
    import torch

    return (torch.randn(batch, 800),)


_SMALL_TEXT = {"vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
               "intermediate_size": 64, "max_position_embeddings": 64}


def _unet_inputs(batch: int) -> tuple[Any, ...]:
    import torch

    return (torch.randn(batch, 3, 16, 16), torch.tensor([10] * batch))


def _cond_unet_inputs(batch: int) -> tuple[Any, ...]:
    import torch

    return (torch.randn(batch, 4, 16, 16), torch.tensor([10] * batch), torch.randn(batch, 6, 16))


def _vae_inputs(batch: int) -> tuple[Any, ...]:
    import torch

    return (torch.randn(batch, 3, 16, 16),)


def _dit_inputs(batch: int) -> tuple[Any, ...]:
    import torch

    return (torch.randn(batch, 4, 8, 8), torch.tensor([10] * batch), torch.tensor([1] * batch))


CASES: tuple[Case, ...] = (
    _timm("resnet18", "timm.models.resnet:ResNet.forward"),
    _timm("efficientnet_b0", "timm.models.efficientnet:EfficientNet.forward"),
    _timm("mobilenetv3_small_050", "timm.models.mobilenetv3:MobileNetV3.forward"),
    _timm("convnext_atto", "timm.models.convnext:ConvNeXt.forward"),
    _timm("regnetx_002", "timm.models.regnet:RegNet.forward"),
    _timm("vit_tiny_patch16_224", "timm.models.vision_transformer:VisionTransformer.forward", img_size=32),
    _timm("deit_tiny_patch16_224", "timm.models.vision_transformer:VisionTransformer.forward", img_size=32),
    _timm("swin_tiny_patch4_window7_224", "timm.models.swin_transformer:SwinTransformer.forward", size=56,
          img_size=56, window_size=7),
    _timm("levit_128s", "timm.models.levit:Levit.forward", size=64, img_size=64),
    _timm("poolformer_s12", "timm.models.metaformer:MetaFormer.forward"),
    _timm("mobilevit_xxs", "timm.models.mobilevit:ByobNet.forward", size=64),
    _timm("ghostnet_050", "timm.models.ghostnet:GhostNet.forward"),
    _timm("xcit_nano_12_p16_224", "timm.models.xcit:Xcit.forward", img_size=32),
    _timm("pvt_v2_b0", "timm.models.pvt_v2:PyramidVisionTransformerV2.forward"),
    _timm("edgenext_xx_small", "timm.models.edgenext:EdgeNeXt.forward", size=64),
    _timm("fastvit_t8", "timm.models.fastvit:FastVit.forward", size=64),
    _timm("sequencer2d_s", "timm.models.sequencer:Sequencer2d.forward"),
    _diffusers("unet2d", "UNet2DModel", "diffusers.models.unets.unet_2d:UNet2DModel.forward",
               {"sample_size": 16, "in_channels": 3, "out_channels": 3, "layers_per_block": 1,
                "block_out_channels": (32, 64), "norm_num_groups": 8,
                "down_block_types": ("DownBlock2D", "AttnDownBlock2D"),
                "up_block_types": ("AttnUpBlock2D", "UpBlock2D")}, _unet_inputs),
    _diffusers("unet2d_condition", "UNet2DConditionModel",
               "diffusers.models.unets.unet_2d_condition:UNet2DConditionModel.forward",
               {"sample_size": 16, "in_channels": 4, "out_channels": 4, "layers_per_block": 1,
                "block_out_channels": (32, 64), "norm_num_groups": 8, "cross_attention_dim": 16,
                "attention_head_dim": 8,
                "down_block_types": ("CrossAttnDownBlock2D", "DownBlock2D"),
                "up_block_types": ("UpBlock2D", "CrossAttnUpBlock2D")}, _cond_unet_inputs),
    _diffusers("autoencoder_kl", "AutoencoderKL", "diffusers.models.autoencoders.autoencoder_kl:AutoencoderKL.forward",
               {"in_channels": 3, "out_channels": 3, "block_out_channels": (32, 64), "norm_num_groups": 8,
                "latent_channels": 4, "layers_per_block": 1,
                "down_block_types": ("DownEncoderBlock2D", "DownEncoderBlock2D"),
                "up_block_types": ("UpDecoderBlock2D", "UpDecoderBlock2D")}, _vae_inputs),
    _diffusers("dit", "DiTTransformer2DModel",
               "diffusers.models.transformers.dit_transformer_2d:DiTTransformer2DModel.forward",
               {"num_attention_heads": 2, "attention_head_dim": 8, "in_channels": 4, "out_channels": 4,
                "num_layers": 2, "sample_size": 8, "patch_size": 2, "num_embeds_ada_norm": 10,
                "norm_num_groups": 8}, _dit_inputs),
    _transformers("bert", "Bert", _SMALL_TEXT, "transformers.models.bert.modeling_bert:BertModel.forward",
                  _token_inputs(16), _padding_mask(16)),
    _transformers("gpt2", "GPT2", {"vocab_size": 100, "n_embd": 32, "n_layer": 2, "n_head": 2, "n_positions": 64},
                  "transformers.models.gpt2.modeling_gpt2:GPT2Model.forward", _token_inputs(16), _padding_mask(16)),
    _transformers("longformer", "Longformer", {**_SMALL_TEXT, "attention_window": 4},
                  "transformers.models.longformer.modeling_longformer:LongformerModel.forward", _token_inputs(16),
                  _padding_mask(16, global_attention_mask=_global_first_token(16))),
    _transformers("bigbird", "BigBird", {**_SMALL_TEXT, "attention_type": "block_sparse", "block_size": 2,
                                         "num_random_blocks": 2},
                  "transformers.models.big_bird.modeling_big_bird:BigBirdModel.forward", _token_inputs(32),
                  _padding_mask(32)),
    # The paper's sequence lengths (1024, 3072, 4096) take BigBird's other random-plan builder.
    _transformers("bigbird_1024", "BigBird", {**_SMALL_TEXT, "max_position_embeddings": 1024,
                                              "attention_type": "block_sparse", "block_size": 64, "num_random_blocks": 2},
                  "transformers.models.big_bird.modeling_big_bird:BigBirdModel.forward", _token_inputs(1024)),
    _transformers("wav2vec2", "Wav2Vec2", {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
                                           "intermediate_size": 64, "conv_dim": (16, 16), "conv_stride": (5, 2),
                                           "conv_kernel": (10, 3), "num_conv_pos_embeddings": 8,
                                           "num_conv_pos_embedding_groups": 2, "mask_time_prob": 0.2,
                                           "mask_time_length": 2},
                  "transformers.models.wav2vec2.modeling_wav2vec2:Wav2Vec2Model.forward", _audio_inputs, _padding_mask(800)),
    _transformers("reformer", "Reformer", {"vocab_size": 100, "hidden_size": 32, "num_attention_heads": 2,
                                           "attention_head_size": 16, "feed_forward_size": 64,
                                           "axial_pos_shape": (4, 4), "axial_pos_embds_dim": (16, 16),
                                           "max_position_embeddings": 16, "attn_layers": ["local", "lsh"],
                                           "local_attn_chunk_length": 4, "lsh_attn_chunk_length": 4},
                  # `num_buckets` at its default (None): the first call computes it from the
                  # sequence length and warns, as the library ships it; later calls use it.
                  "transformers.models.reformer.modeling_reformer:ReformerModel.forward", _token_inputs(16),
                  _padding_mask(16)),
)
