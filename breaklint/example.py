"""The public API for `breaklint confirm` targets: mark a function that builds an example.

    import breaklint

    @breaklint.example
    def tiny_gpt():
        model = TinyGPT().eval()
        tokens = torch.randint(0, 128, (8, 32))
        return breaklint.Example(model, (tokens,), probe_args=(tokens[:4],))

`confirm` finds providers without importing anything (by their decorator, or every public
function of a `breaklint_examples.py`), then calls each one in its own process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
MARKER = "__breaklint_example__"
USAGES = ("auto", "inference", "training")
GRAD_MODES = ("no_grad", "inference_mode")


@dataclass
class Example:
    """What to compile and how it is used.

    `target` is a function or an nn.Module; `args`/`kwargs` are the inputs; `probe_args` (and
    `probe_kwargs`) are a second input set for the recompile probe, e.g. another batch size.
    Without it the probe halves the batch dimension of the inputs; `probe=False` turns it off.
    `compile_options` are the `torch.compile` arguments your code uses (`{"dynamic": False}`,
    `{"fullgraph": True}`): every stage compiles with them, plus its own backend and mode.

    `usage` says what every stage runs and times, as you use the target:
    - `"inference"`: each call under `torch.no_grad()` (or `torch.inference_mode()` with
      `grad_mode="inference_mode"`), as a model is served;
    - `"training"`: a whole step: the compiled forward, `loss(output)` (default: the output if
      it is a scalar, else the sum of its first tensor), its backward (compiled by AOTAutograd
      where the forward is compiled) and `optimizer.step()` with `zero_grad()`, when an
      optimizer is given (an `torch.optim.Optimizer`, or a function of the parameters that
      makes one);
    - `"auto"` (the default): inference for a module in eval mode or a function whose inputs
      need no grad; training for a module in train mode or inputs that require grad.
    """

    target: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    probe_args: tuple[Any, ...] | None = None
    probe_kwargs: dict[str, Any] | None = None
    compile_options: dict[str, Any] = field(default_factory=dict)
    usage: str = "auto"
    grad_mode: str = "no_grad"
    loss: Callable[[Any], Any] | None = None
    optimizer: Any = None
    probe: bool = True

    def __post_init__(self) -> None:
        if self.usage not in USAGES:
            raise ValueError(f"Example(usage={self.usage!r}): expected one of {', '.join(USAGES)}")
        if self.grad_mode not in GRAD_MODES:
            raise ValueError(f"Example(grad_mode={self.grad_mode!r}): expected one of {', '.join(GRAD_MODES)}")


def example(provider: F) -> F:
    """Mark `provider` (a function of no arguments returning an Example) as a confirm target."""
    setattr(provider, MARKER, True)
    return provider
