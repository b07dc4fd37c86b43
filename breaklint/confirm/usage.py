"""How every stage calls a confirm target: as it is used, for inference or as a training step.

Inference runs each call under `torch.no_grad()` (or `torch.inference_mode()`): with grad
enabled and no backward, CUDA graph trees keep a forward's outputs for a backward that never
comes and record again instead of replaying (resnet50 on an H200: 58.9 ms instead of 0.81).
A training step is the forward, the loss, its backward and the optimizer's step.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch.utils._pytree import tree_leaves

from ..example import Example

Step = Callable[[tuple[Any, ...], dict[str, Any]], Any]


def _tensors(example: Example) -> list[torch.Tensor]:
    return [a for a in tree_leaves((example.args, example.kwargs)) if isinstance(a, torch.Tensor)]


def usage_of(example: Example) -> str:
    """"inference" or "training": the example's own choice, else inferred from the target."""
    if example.usage != "auto":
        return example.usage
    target = example.target
    if isinstance(target, torch.nn.Module):
        return "training" if target.training else "inference"
    return "training" if any(t.requires_grad for t in _tensors(example)) else "inference"


class TrainingStep:
    """forward, loss, backward, optimizer step: one callable, so that every stage times it whole."""

    def __init__(self, example: Example) -> None:
        target = example.target
        self.parameters = [p for p in target.parameters() if p.requires_grad] \
            if isinstance(target, torch.nn.Module) else []
        optimizer = example.optimizer
        if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
            optimizer = optimizer(self.parameters)  # a factory: `lambda params: torch.optim.AdamW(params)`
        self.optimizer: torch.optim.Optimizer | None = optimizer
        self.loss = example.loss or default_loss

    def describe(self) -> str:
        step = f", {type(self.optimizer).__name__}.step()" if self.optimizer is not None else ""
        return f"training step: forward, loss, backward{step}"

    def __call__(self, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.optimizer is not None:
            self.optimizer.zero_grad(set_to_none=True)
        else:
            for parameter in self.parameters:
                parameter.grad = None  # no accumulation between timed steps
        loss = self.loss(function(*args, **kwargs))
        loss.backward()
        if self.optimizer is not None:
            self.optimizer.step()
        return loss.detach()


def default_loss(output: Any) -> torch.Tensor:
    """The output if it is a scalar; a model output's `loss`; else the sum of its first tensor."""
    if isinstance(output, torch.Tensor) and output.dim() == 0:
        return output
    loss = output.get("loss") if isinstance(output, dict) else getattr(output, "loss", None)
    if isinstance(loss, torch.Tensor):
        return loss
    first = next((t for t in tree_leaves(output) if isinstance(t, torch.Tensor) and t.is_floating_point()), None)
    if first is None:
        raise TypeError(f"a training step needs a tensor output to take a loss of, got {type(output).__name__}; "
                        "pass Example(loss=...)")
    return first.float().sum()


def make_step(example: Example, usage: str) -> tuple[Callable[[Callable[..., Any]], Step], str]:
    """A maker of steps for a callable (the target eagerly, or compiled by a stage), and what
    the ladder says it measured."""
    if usage == "training":
        training = TrainingStep(example)
        return (lambda function: lambda args, kwargs: training(function, args, kwargs)), training.describe()
    context = torch.inference_mode if example.grad_mode == "inference_mode" else torch.no_grad

    def inference(function: Callable[..., Any]) -> Step:
        def step(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            with context():
                return function(*args, **kwargs)
        return step

    return inference, f"inference under torch.{example.grad_mode}()"
