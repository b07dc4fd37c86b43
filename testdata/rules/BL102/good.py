"""BL102 negatives: branches on shapes, modes and Python values are guards, not breaks."""
import torch

USE_BIAS = True


@torch.compile
def on_dim(x):
    if x.dim() == 2:
        return x + 1
    return x


@torch.compile
def on_shape(x):
    if x.shape[0] > 4 and x.size(1) == 8:
        return x * 2
    return x


@torch.compile
def on_constant(x):
    return x + 1 if USE_BIAS else x


@torch.compile
def on_none(x, mask=None):
    if mask is not None:
        x = x * mask
    return x


@torch.compile
def with_where(x):
    return torch.where(x.sum() > 0, x, -x)


class Dropout(torch.nn.Module):
    def forward(self, x):
        if self.training and isinstance(x, torch.Tensor):
            return x * 0.5
        return x


dropout = torch.compile(Dropout())


@torch.compile
def asserts_on_tensors_are_traced(x):
    # torch 2.13 turns a tensor assert into an async assert: no graph break.
    assert x.sum() > -1000
    assert (x > -1000).all()
    return x + 1


class MixerConfig:
    """Settings stored from the constructor's defaults, as configuration classes do."""

    def __init__(self, width=8, gated=False, norm_type="layer"):
        self.width = width
        self.gated = gated
        self.norm_type = norm_type


class GatedMixer(torch.nn.Module):
    """Built only with `gated=True`, which the default configuration does not set."""

    def forward(self, x):
        if x.amax() > 0:  # possible: BL102
            return x * torch.sigmoid(x)
        return x


def rms_norm(x):
    # Stops on silent input: a Python `if` on a tensor, run only for norm_type="rms".
    if x.abs().sum() == 0:  # possible: BL102
        return x
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class Mixer(torch.nn.Module):
    def __init__(self, config: MixerConfig):
        super().__init__()
        self.config = config
        self.mix = GatedMixer() if config.gated else torch.nn.Linear(config.width, config.width)

    def _normalize(self, x):
        if self.config.norm_type == "rms":
            return rms_norm(x)  # the default norm_type is "layer"
        elif self.config.norm_type == "layer":
            x = torch.nn.functional.layer_norm(x, (self.config.width,))
        else:
            # Any other norm_type: rescale only large input, a Python `if` on a tensor in this arm.
            if x.abs().amax() > 1:  # possible: BL102
                x = x / x.abs().amax()
        return x

    def forward(self, x):
        return self.mix(self._normalize(x))


mixer = torch.compile(Mixer(MixerConfig()))
