"""BL106 negatives: logging that Dynamo never traces."""
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile
def guarded(x):
    if not torch.compiler.is_compiling():
        print("eager only")
        logger.info("eager only")
    return x * 2


@torch.compile
def formats_only(x):
    message = f"shape {x.shape}"
    return x + len(message)


def train_step(x):
    loss = guarded(x).sum()
    logger.info("loss %s", loss.item())  # outside the compiled function
    return loss
