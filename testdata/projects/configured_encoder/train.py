"""Runs the default model, then the variants its configuration can ask for."""
import torch

from tinyw2v import TinyW2VConfig, TinyW2VModel


def run(config):
    model = TinyW2VModel(config)
    compiled = torch.compile(model)
    with torch.no_grad():
        return compiled(torch.randn(2, 12, 8))


def main():
    torch.manual_seed(0)
    outputs = [run(TinyW2VConfig())]
    # The settings the defaults leave off: the pre-norm encoder, the block-sparse and SDPA masks, the
    # adapter, reproducible time masks.
    outputs.append(run(TinyW2VConfig(do_stable_layer_norm=True)))
    outputs.append(run(TinyW2VConfig(attn_implementation="block_sparse")))
    outputs.append(run(TinyW2VConfig(attn_implementation="sdpa")))
    outputs.append(run(TinyW2VConfig(add_adapter=True)))
    outputs.append(run(TinyW2VConfig(mask_seed=0)))
    return outputs


if __name__ == "__main__":
    main()
