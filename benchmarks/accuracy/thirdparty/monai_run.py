"""Run MONAI 1.6.1 through real Dynamo (backend eager, CPU); write breaks as JSON.

    PYTHONPATH=SITE:. python benchmarks/accuracy/thirdparty/monai_run.py OUT.json [CASE ...]

Modelled on benchmarks/accuracy/thirdparty/kornia_run.py: each case is an nn.Module (a MONAI network, block,
layer or loss, or a user-side wrapper around a MONAI inferer or transform), built with random weights at sizes a
CPU affords, compiled whole with torch.compile(m, backend="eager"), called in eval under no_grad, then in train
mode with a backward through the compiled forward (where cheap), then in train mode on a second input (another
batch and, where the network takes any size, another resolution: a sliding window's last patch, a data
loader's last batch). Breaks come from Dynamo's logs (breaklint.confirm.capture). OUT.json is updated after
every case. SITE holds monai (--no-deps) and einops (MONAI's patch embeddings and Swin blocks import it).

Left out: networks that need another package (torchvision: MILModel, NetAdapter, TorchVisionFCModel, RetinaNet's
torchvision backbones; transformers: Transchex; nvsubquadratic: HyenaNDUNETR), a C++/CUDA extension (GMM,
BilateralFilter, PHLFilter), or inputs a 2-core CPU run cannot afford (HoVerNet's 256x256 patches, AHNet's pyramid pooling, VISTA3D, DAF3D,
the SENets). SwinUNETR and FlexibleUNet run once each (3D; their 2D and EfficientNet variants took 4 and
1 minutes here and broke at the same lines). HausdorffDTLoss needs scipy or cupy for its distance transform.
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

import monai
import monai.losses as L
import monai.networks.blocks as B
import monai.networks.layers as Ly
import monai.networks.nets as N
from monai.inferers import SimpleInferer, SlidingWindowInferer, sliding_window_inference
from monai.transforms import Activations, AsDiscrete, Compose, NormalizeIntensity, ScaleIntensity
from breaklint.confirm.capture import capture_dynamo

torch.set_num_threads(2)


def rand(shape, seed):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


def img(c, *spatial, b=2):
    """Inputs for the two runs: (b, c, *spatial) then (b + 1, c, *spatial2) with spatial2 given per size."""
    return lambda s: (rand((b + s - 1, c) + tuple(spatial[s - 1]), s),)


def fixed(c, *spatial, b=2):
    """A network of one input size: only the batch changes."""
    return lambda s: (rand((b + s - 1, c) + tuple(spatial), s),)


def seg_pair(c, *spatial, b=2, onehot=False):
    """(prediction logits, label map) for a segmentation loss; the second run has another batch and size."""
    def make(s):
        shape = (b + s - 1, c) + tuple(spatial[s - 1])
        pred = rand(shape, s) * 4 - 2
        labels = (rand((shape[0], 1) + shape[2:], s + 10) * c).long().clamp(0, c - 1).float()
        if onehot:
            labels = torch.cat([(labels == k).float() for k in range(c)], 1)
        return pred, labels
    return make


# ---- user-side wrappers (this file is not scored; only monai/ is) ----

class Loss(nn.Module):
    """A loss as a training step calls it, with a learnable scale so that backward has a leaf to reach."""

    def __init__(self, loss):
        super().__init__()
        self.loss = loss
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, pred, *rest):
        return self.loss(pred * self.scale, *rest)


class Sliding(nn.Module):
    """Whole-volume inference: a sliding window over a small UNet, as a validation step runs it."""

    def __init__(self, mode="constant"):
        super().__init__()
        self.net = N.UNet(2, 1, 2, channels=(8, 16), strides=(2,), num_res_units=1)
        self.inferer = SlidingWindowInferer(roi_size=(16, 16), sw_batch_size=2, overlap=0.25, mode=mode)

    def forward(self, x):
        return self.inferer(x, self.net)


class SlidingFn(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = N.UNet(3, 1, 2, channels=(4, 8), strides=(2,))

    def forward(self, x):
        return sliding_window_inference(x, (16, 16, 16), 1, self.net, overlap=0.5, mode="gaussian")


class Simple(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = N.SegResNet(2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1), blocks_up=(1,))
        self.inferer = SimpleInferer()

    def forward(self, x):
        return self.inferer(x, self.net)


class PostProcess(nn.Module):
    """Segmentation post-processing on the network's logits (sigmoid/argmax, then discretise), as in an eval loop."""

    def __init__(self):
        super().__init__()
        self.net = N.UNet(2, 1, 3, channels=(8, 16), strides=(2,))
        self.post = Compose([Activations(softmax=True), AsDiscrete(argmax=True, to_onehot=3)])
        self.post_sig = Compose([Activations(sigmoid=True), AsDiscrete(threshold=0.5)])

    def forward(self, x):
        y = self.net(x)
        return torch.stack([self.post(i) for i in y]), self.post_sig(y)


class Intensity(nn.Module):
    """Intensity normalisation of a batch on the device before the network (a GPU-side preprocessing step)."""

    def __init__(self):
        super().__init__()
        self.norm = NormalizeIntensity(nonzero=True, channel_wise=True)
        self.scale = ScaleIntensity(minv=0.0, maxv=1.0)
        self.net = N.UNet(2, 1, 2, channels=(8, 16), strides=(2,))

    def forward(self, x):
        return self.net(self.scale(self.norm(x)))


class VoxelMorph(nn.Module):
    """VoxelMorph on a moving and a fixed image (the two channels of the input)."""

    def __init__(self):
        super().__init__()
        self.net = N.VoxelMorph()

    def forward(self, x):
        return self.net(x[:, :1], x[:, 1:])


class Warping(nn.Module):
    """Registration head: a dense velocity field integrated to a displacement field, then warp the moving image."""

    def __init__(self):
        super().__init__()
        self.dvf2ddf = B.DVF2DDF(num_steps=4, mode="bilinear", padding_mode="zeros")
        self.warp = B.Warp(mode="bilinear", padding_mode="border")
        self.conv = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, x):
        ddf = self.dvf2ddf(self.conv(x[:, :2]))
        return self.warp(x[:, 2:], ddf)


class Filters(nn.Module):
    def __init__(self):
        super().__init__()
        self.gauss = Ly.GaussianFilter(2, sigma=1.5)
        self.sg = Ly.SavitzkyGolayFilter(5, 2, axis=2)
        self.hilbert = Ly.HilbertTransform(axis=2)

    def forward(self, x):
        return self.gauss(x) + self.sg(x) + self.hilbert(x).abs()


class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.xform = Ly.AffineTransform(normalized=False, zero_centered=True)

    def forward(self, x):
        b = x.shape[0]
        theta = torch.eye(2, 3).expand(b, 2, 3) + 0.05 * x[:, 0, :2, :3]
        return self.xform(x, theta, spatial_size=(x.shape[2], x.shape[3]))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.sa = B.SABlock(32, 4, qkv_bias=True, save_attn=True)
        self.ca = B.CrossAttentionBlock(32, 4, context_input_size=16)
        self.tb = B.TransformerBlock(32, 64, 4, with_cross_attention=True)
        self.spatial = B.SpatialAttentionBlock(2, 32, num_head_channels=8, norm_num_groups=8)
        self.proj = nn.Linear(1, 32)

    def forward(self, x):
        b, _, h, w = x.shape
        tok = self.proj(x.flatten(2).transpose(1, 2))          # (b, h*w, 32)
        ctx = tok[:, :4, :16]                                   # (b, 4, 16)
        t = self.sa(tok) + self.ca(tok, context=ctx)
        t = self.tb(t, context=self.proj(x.flatten(2).transpose(1, 2))[:, :4])
        return self.spatial(t.transpose(1, 2).reshape(b, 32, h, w))


class NaViTBatch(nn.Module):
    """NaViT on groups of images of different sizes (its packing is what it is for)."""

    def __init__(self):
        super().__init__()
        self.net = N.NaViT(image_size=32, patch_size=8, num_classes=3, hidden_size=32, mlp_dim=64, num_layers=2,
                           num_heads=4, spatial_dims=2)

    def forward(self, x):
        imgs = [x[0, :, :16, :32], x[1, :, :32, :16]] + [x[i] for i in range(2, x.shape[0])]
        return self.net([imgs[:2], [x[0], x[1, :, :16, :16]] + imgs[2:]])


class Diffusion(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = N.DiffusionModelUNet(2, 1, 1, channels=(8, 16, 16), attention_levels=(False, False, True),
                                        num_res_blocks=1, norm_num_groups=8, num_head_channels=8)

    def forward(self, x):
        t = (x[:, 0, 0, 0] * 1000).long()
        return self.net(x, t)


class DecoderTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = N.DecoderOnlyTransformer(num_tokens=16, max_seq_len=32, attn_layers_dim=32, attn_layers_depth=2,
                                            attn_layers_heads=4)

    def forward(self, x):
        return self.net((x[:, 0, 0, :] * 16).long().clamp(0, 15))


class GenAE(nn.Module):
    """AutoencoderKL: reconstruction and the latent sample (its KL terms)."""

    def __init__(self):
        super().__init__()
        self.net = N.AutoencoderKL(2, 1, 1, channels=(8, 16), latent_channels=4, attention_levels=(False, True),
                                   num_res_blocks=1, norm_num_groups=8)

    def forward(self, x):
        recon, mu, sigma = self.net(x)
        return recon, mu, sigma


class DeepSup(nn.Module):
    """DynUNet with deep supervision, its outputs unbound and scored by DeepSupervisionLoss (as its docs train it)."""

    def __init__(self):
        super().__init__()
        self.net = N.DynUNet(3, 1, 2, kernel_size=[3, 3, 3], strides=[1, 2, 2], upsample_kernel_size=[2, 2],
                             filters=[8, 16, 32], deep_supervision=True, deep_supr_num=1)
        self.loss = L.DeepSupervisionLoss(L.DiceCELoss(to_onehot_y=True, softmax=True))

    def forward(self, x):
        y = self.net(x)
        target = (x[:, :1] > 0.5).float()
        if self.training:
            return self.loss(torch.unbind(y, dim=1), target)
        return y


class MultiScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = L.MultiScaleLoss(L.DiceLoss(sigmoid=True), scales=[0, 1, 2], kernel="gaussian")
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, pred, target):
        return self.loss(target, pred * self.scale)


class Registration(nn.Module):
    """Image similarity and regularisation losses of a registration step."""

    def __init__(self):
        super().__init__()
        self.lncc = L.LocalNormalizedCrossCorrelationLoss(spatial_dims=2, kernel_size=5)
        self.gmi = L.GlobalMutualInformationLoss(num_bins=8)
        self.bend = L.BendingEnergyLoss()
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, x):
        y = x * self.scale
        return self.lncc(y[:, :1], y[:, 1:2]) + self.gmi(y[:, :1], y[:, 1:2]) + self.bend(y[:, :2])


class Contrastive(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = L.ContrastiveLoss(temperature=0.5)
        self.ssim = L.SSIMLoss(spatial_dims=2, win_size=5)
        self.scale = nn.Parameter(torch.ones(()))

    def forward(self, x):
        y = x * self.scale
        return self.loss(y.flatten(1), y.flip(0).flatten(1)) + self.ssim(y[:, :1], x[:, 1:2])


def dints():
    space = N.TopologyInstance(channel_mul=0.5, num_blocks=3, num_depths=3, use_downsample=True, spatial_dims=3)
    return N.DiNTS(dints_space=space, in_channels=1, num_classes=2, use_downsample=True)


def dints_search():
    space = N.TopologySearch(channel_mul=0.25, num_blocks=3, num_depths=3, use_downsample=True, spatial_dims=3)
    return N.DiNTS(dints_space=space, in_channels=1, num_classes=2, use_downsample=True)


def gwdl():
    m = torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5], [1.0, 0.5, 0.0]])
    return Loss(L.GeneralizedWassersteinDiceLoss(dist_matrix=m))


class GWDL(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = gwdl()

    def forward(self, pred, target):
        return self.loss(pred, target[:, 0].long())


class MaskedDice(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = Loss(L.MaskedDiceLoss(sigmoid=True))

    def forward(self, pred, target):
        return self.loss(pred, target, (target > 0).float())


def seg_pair3(c, b=2, onehot=False):
    return seg_pair(c, (16, 16), (20, 24), b=b, onehot=onehot)


R2 = ((32, 32), (48, 40))          # 2D sizes: any size a network's strides divide
R3 = ((32, 32, 32), (32, 32, 48))  # 3D

# name -> (builder, inputs(s) for s = 1, 2, backward in train mode)
CASES_BUILD = {
    # ---- networks ----
    "nets/UNet-2d": (lambda: N.UNet(2, 1, 2, channels=(8, 16, 32), strides=(2, 2), num_res_units=2), img(1, *R2), True),
    "nets/UNet-3d": (lambda: N.UNet(3, 1, 2, channels=(4, 8, 16), strides=(2, 2), num_res_units=1, dropout=0.1,
                                    norm="batch"), img(1, *R3), True),
    "nets/BasicUNet-3d": (lambda: N.BasicUNet(3, 1, 2, features=(4, 4, 8, 8, 16, 4)), img(1, *R3), True),
    "nets/BasicUNetPlusPlus-2d": (lambda: N.BasicUNetPlusPlus(2, 1, 2, features=(8, 8, 16, 16, 32, 8), deep_supervision=True),
                                  img(1, *R2), True),
    "nets/AttentionUnet-2d": (lambda: N.AttentionUnet(2, 1, 2, channels=(8, 16, 32), strides=(2, 2)), img(1, *R2), True),
    "nets/SegResNet-3d": (lambda: N.SegResNet(3, init_filters=8, in_channels=1, out_channels=2, dropout_prob=0.1),
                          img(1, *R3), True),
    "nets/SegResNetVAE-3d": (lambda: N.SegResNetVAE(input_image_size=(32, 32, 32), spatial_dims=3, init_filters=8,
                                                    in_channels=1, out_channels=2), fixed(1, 32, 32, 32), True),
    "nets/SegResNetDS-3d": (lambda: N.SegResNetDS(3, init_filters=8, in_channels=1, out_channels=2, dsdepth=2),
                            img(1, *R3), True),
    "nets/DynUNet-3d-deep_supervision": (DeepSup, img(1, *R3), True),
    "nets/DynUNet-2d-res": (lambda: N.DynUNet(2, 1, 2, kernel_size=[3, 3, 3], strides=[1, 2, 2],
                                              upsample_kernel_size=[2, 2], filters=[8, 16, 32], res_block=True,
                                              norm_name="batch"), img(1, *R2), True),
    "nets/UNETR-3d": (lambda: N.UNETR(1, 2, img_size=(32, 32, 32), feature_size=8, hidden_size=96, mlp_dim=192,
                                      num_heads=4, proj_type="conv"), fixed(1, 32, 32, 32), True),
    "nets/SwinUNETR-3d": (lambda: N.SwinUNETR(in_channels=1, out_channels=2, feature_size=12, depths=(1, 1, 1, 1),
                                              num_heads=(3, 3, 3, 3), norm_name="batch", use_v2=True),
                          img(1, (32, 32, 32), (32, 32, 64)), True),
    "nets/ViT-2d-cls": (lambda: N.ViT(1, img_size=32, patch_size=8, hidden_size=96, mlp_dim=192, num_layers=2,
                                      num_heads=4, classification=True, num_classes=3, spatial_dims=2,
                                      pos_embed_type="sincos"), fixed(1, 32, 32), True),
    "nets/ViTAutoEnc-3d": (lambda: N.ViTAutoEnc(1, img_size=32, patch_size=16, hidden_size=96, mlp_dim=192,
                                                num_layers=2, num_heads=4), fixed(1, 32, 32, 32), True),
    "nets/MaskedAutoEncoderViT-2d": (lambda: N.MaskedAutoEncoderViT(1, img_size=32, patch_size=8, hidden_size=96,
                                                                    mlp_dim=192, num_layers=2, num_heads=4,
                                                                    decoder_hidden_size=48, decoder_mlp_dim=96,
                                                                    decoder_num_layers=1, decoder_num_heads=4,
                                                                    spatial_dims=2), fixed(1, 32, 32), True),
    "nets/NaViT-2d": (NaViTBatch, fixed(1, 32, 32, b=3), True),
    "nets/DenseNet121-2d": (lambda: N.DenseNet121(spatial_dims=2, in_channels=1, out_channels=3), img(1, *R2), True),
    "nets/EfficientNetBN-b0-2d": (lambda: N.EfficientNetBN("efficientnet-b0", pretrained=False, spatial_dims=2,
                                                           in_channels=1, num_classes=3), img(1, *R2), True),
    "nets/HighResNet-3d": (lambda: N.HighResNet(3, 1, 2, layer_params=(
        {"name": "conv_0", "n_features": 4, "kernel_size": 3},
        {"name": "res_1", "n_features": 4, "kernels": (3, 3), "repeat": 1},
        {"name": "res_2", "n_features": 8, "kernels": (3, 3), "repeat": 1},
        {"name": "conv_1", "n_features": 16, "kernel_size": 1},
        {"name": "conv_2", "kernel_size": 1})), img(1, (16, 16, 16), (16, 16, 24)), True),
    "nets/VNet-3d": (lambda: N.VNet(3, 1, 2, dropout_prob_down=0.1, dropout_prob_up=(0.1, 0.1)), img(1, *R3, b=1), True),
    "nets/AutoEncoder-2d": (lambda: N.AutoEncoder(2, 1, 1, channels=(4, 8, 16), strides=(2, 2, 2), num_res_units=1),
                            img(1, *R2), True),
    "nets/VarAutoEncoder-2d": (lambda: N.VarAutoEncoder(2, (1, 32, 32), 1, latent_size=8, channels=(4, 8, 16),
                                                        strides=(2, 2, 2)), fixed(1, 32, 32), True),
    "nets/Regressor-2d": (lambda: N.Regressor((1, 32, 32), (2,), channels=(4, 8, 16), strides=(2, 2, 2)),
                          fixed(1, 32, 32), True),
    "nets/Classifier-2d": (lambda: N.Classifier((1, 32, 32), 3, channels=(4, 8, 16), strides=(2, 2, 2)),
                           fixed(1, 32, 32), True),
    "nets/Discriminator+Generator-2d": (lambda: nn.Sequential(
        N.Discriminator((1, 32, 32), channels=(4, 8), strides=(2, 2)), nn.Unflatten(1, (1, 1)),
        N.Generator(1, (4, 8, 8), channels=(8, 1), strides=(2, 2))), fixed(1, 32, 32), True),
    "nets/FlexibleUNet-resnet10-3d": (lambda: N.FlexibleUNet(1, 2, "resnet10", pretrained=False, spatial_dims=3,
                                                             decoder_channels=(32, 16, 8, 8, 4)),
                                      img(1, (32, 32, 32), (32, 32, 64)), True),
    "nets/ResNet10-3d": (lambda: N.resnet10(spatial_dims=3, n_input_channels=1, num_classes=2), img(1, *R3), True),
    "nets/DiNTS-TopologyInstance-3d": (dints, img(1, *R3), True),
    "nets/DiNTS-TopologySearch-3d": (dints_search, img(1, *R3), True),
    "nets/MedNeXtS-3d": (lambda: N.MedNeXt(3, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 1, 1),
                                           blocks_bottleneck=1, blocks_up=(1, 1, 1, 1)), img(1, *R3), True),
    "nets/LocalNet-2d": (lambda: N.LocalNet(2, 2, num_channel_initial=8, extract_levels=(0, 1, 2), out_channels=2), img(2, *R2), True),
    "nets/GlobalNet-2d": (lambda: N.GlobalNet((32, 32), 2, 2, num_channel_initial=8, depth=2), fixed(2, 32, 32), True),
    "nets/VoxelMorph-3d": (VoxelMorph, img(2, (32, 32, 32), (32, 32, 48), b=1), True),
    "nets/Quicknat-2d": (lambda: N.Quicknat(num_classes=3, num_channels=1, num_filters=8, se_block="CSE"),
                         img(1, (32, 32), (64, 48)), True),
    "nets/PatchDiscriminator-2d": (lambda: N.PatchDiscriminator(2, 8, 1, num_layers_d=2), img(1, *R2), True),
    "nets/AutoencoderKL-2d": (GenAE, img(1, *R2), True),
    "nets/VQVAE-2d": (lambda: N.VQVAE(2, 1, 1, channels=(8, 16), num_res_channels=(8, 16), num_res_layers=1,
                                      downsample_parameters=((2, 4, 1, 1), (2, 4, 1, 1)),
                                      upsample_parameters=((2, 4, 1, 1, 0), (2, 4, 1, 1, 0)), num_embeddings=16,
                                      embedding_dim=4), img(1, *R2), True),
    "nets/DiffusionModelUNet-2d": (Diffusion, img(1, *R2), True),
    "nets/DecoderOnlyTransformer": (DecoderTransformer, fixed(1, 4, 32), True),
    "nets/Restormer-2d": (lambda: N.restormer.Restormer(2, 1, 1, dim=8, num_blocks=(1, 1), heads=(1, 2),
                                                        num_refinement_blocks=1), img(1, *R2), True),
    # ---- blocks and layers ----
    "blocks/attention": (Attention, img(1, (8, 8), (8, 12)), True),
    "blocks/Warp+DVF2DDF": (Warping, img(3, *R2), True),
    "layers/Gaussian+SavitzkyGolay+Hilbert": (Filters, img(1, *R2), True),
    "layers/MedianFilter": (lambda: Ly.MedianFilter(1, spatial_dims=2), img(1, *R2), False),
    "layers/AffineTransform": (Affine, img(1, *R2), True),
    # ---- losses ----
    "losses/DiceLoss": (lambda: Loss(L.DiceLoss(to_onehot_y=True, softmax=True)), seg_pair3(3), True),
    "losses/FocalLoss": (lambda: Loss(L.FocalLoss(to_onehot_y=True, use_softmax=True, gamma=2.0)), seg_pair3(3), True),
    "losses/DiceCELoss": (lambda: Loss(L.DiceCELoss(to_onehot_y=True, softmax=True)), seg_pair3(3), True),
    "losses/DiceFocalLoss": (lambda: Loss(L.DiceFocalLoss(sigmoid=True)), seg_pair3(2, onehot=True), True),
    "losses/TverskyLoss": (lambda: Loss(L.TverskyLoss(sigmoid=True, alpha=0.3, beta=0.7)), seg_pair3(2, onehot=True), True),
    "losses/GeneralizedDiceLoss": (lambda: Loss(L.GeneralizedDiceLoss(to_onehot_y=True, softmax=True)), seg_pair3(3), True),
    "losses/GeneralizedWassersteinDiceLoss": (GWDL, seg_pair3(3), True),
    "losses/MaskedDiceLoss": (MaskedDice, seg_pair3(1), True),
    "losses/SoftDiceclDiceLoss": (lambda: Loss(L.SoftDiceclDiceLoss()), seg_pair3(2, onehot=True), True),
    "losses/registration(LNCC+GMI+bending)": (Registration, img(2, *R2), True),
    "losses/MultiScaleLoss": (MultiScale, seg_pair3(1), True),
    "losses/Contrastive+SSIM": (Contrastive, img(2, *R2), True),
    # ---- inferers and transforms, called by a user's module ----
    "inferers/SlidingWindowInferer": (Sliding, img(1, (32, 32), (40, 36)), False),
    "inferers/sliding_window_inference-gaussian-3d": (SlidingFn, img(1, (24, 24, 24), (24, 24, 32), b=1), False),
    "inferers/SimpleInferer": (Simple, img(1, *R2), False),
    "transforms/Activations+AsDiscrete": (PostProcess, img(1, *R2), False),
    "transforms/NormalizeIntensity+ScaleIntensity": (Intensity, img(1, *R2), False),
}


def _loss_of(out):
    """Sum of every float tensor a forward returns (a tensor, tuple, list or dict of them), for backward."""
    if isinstance(out, torch.Tensor):
        return out.float().sum() if out.requires_grad else None
    parts = out.values() if isinstance(out, dict) else out if isinstance(out, (tuple, list)) else ()
    sums = [s for s in (_loss_of(o) for o in parts) if s is not None]
    return sum(sums) if sums else None


def case(name):
    build, inputs, backward = CASES_BUILD[name]

    def go():
        model = build(); c = torch.compile(model, backend="eager")
        model.eval()
        with torch.no_grad():
            c(*inputs(1))
        model.train(); out = c(*inputs(1))
        loss = _loss_of(out) if backward else None
        if loss is not None:
            loss.backward()
        c(*inputs(2))
    return go


def run(fn):
    torch._dynamo.reset(); torch.manual_seed(0)
    monai.utils.set_determinism(seed=0)
    error = None
    with capture_dynamo() as capture:
        try:
            fn()
        except Exception as exc:
            error = "".join(traceback.format_exception_only(exc)).strip()
            error = error if len(error) <= 2000 else error[:400] + " [...] " + error[-1600:]
    return {"graph_breaks": [_kept(dataclasses.asdict(b)) for b in capture.graph_breaks],
            "recompiles": len(capture.recompiles), "graphs": capture.graphs_compiled, "error": error}


SITE = Path(monai.__file__).resolve().parents[1]
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
