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


@torch.compile
def verbose_only(x, verbose=False):
    # Reported as a `possible` break (severity info): the branch only logs, and only runs
    # with verbose=True, which these calls never pass.
    if verbose:
        logger.info("input %s", x.shape)  # possible: BL106
    return x * 2
