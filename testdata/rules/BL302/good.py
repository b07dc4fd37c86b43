"""BL302 negatives: hooks registered outside the region, or on the compiled module itself."""
import torch
from torch import nn

BACKEND = "aot_eager"  # judged at the AOTAutograd stage (forward and backward graphs)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.proj.register_forward_hook(lambda module, args, out: out * 2)
        self.register_full_backward_hook(lambda module, grad_in, grad_out: None)

    def forward(self, x):
        return self.proj(x).relu()


net = torch.compile(Net())
