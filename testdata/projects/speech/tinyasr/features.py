"""Feature extraction, compiled on its own with a decorator."""
import torch


@torch.compile
def log_spectrogram(wave, frame=32, hop=16):
    # Peak normalisation with a Python `if` on a tensor: data-dependent.
    peak = wave.abs().amax()
    if peak > 1.0:  # expect: BL102
        wave = wave / peak
    frames = wave.unfold(-1, frame, hop) * torch.hann_window(frame)
    # A DCT-II basis instead of an FFT: plain matmuls, all traced.
    k = torch.arange(frame // 2 + 1, dtype=torch.float32)[:, None]
    n = torch.arange(frame, dtype=torch.float32)[None, :]
    basis = torch.cos(torch.pi / frame * (n + 0.5) * k)
    return torch.log1p((frames @ basis.T).abs())
