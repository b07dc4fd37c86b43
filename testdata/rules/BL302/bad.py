"""BL302 positives: each marked line must graph-break when compiled with aot_eager."""
import torch
from torch import nn

BACKEND = "aot_eager"  # judged at the AOTAutograd stage (forward and backward graphs)


class GradLogged(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.proj.register_full_backward_hook(lambda module, grad_in, grad_out: None)
        self.head = nn.Linear(8, 8)

    def forward(self, x):
        hidden = self.proj(x)  # expect: BL302
        return self.head(hidden)


class HookedInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        self.proj.register_forward_hook(lambda module, args, out: out * 2)  # expect: BL302
        return self.proj(x)


grad_logged = torch.compile(GradLogged())
hooked = torch.compile(HookedInForward())
