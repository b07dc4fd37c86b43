"""BL402 negatives: the same rotation on real numbers (a per-position 2x2-block rotation matrix)."""
import torch

BACKEND = "inductor"  # judged at the Inductor stage (C++ on CPU)

ANGLES = torch.linspace(0, 1, 32).reshape(8, 4)
COS, SIN = ANGLES.cos(), ANGLES.sin()
# ROTATION[p] rotates each (even, odd) pair of position p by ANGLES[p]: x_p @ ROTATION[p].
ROTATION = torch.zeros(8, 8, 8)
for pair in range(4):
    even, odd = 2 * pair, 2 * pair + 1
    ROTATION[:, even, even], ROTATION[:, odd, even] = COS[:, pair], -SIN[:, pair]
    ROTATION[:, even, odd], ROTATION[:, odd, odd] = SIN[:, pair], COS[:, pair]


@torch.compile
def rotary(x):
    return torch.bmm(x.unsqueeze(1), ROTATION).squeeze(1)
