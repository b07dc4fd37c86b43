"""The public API for `breaklint confirm` targets: mark a function that builds an example.

    import breaklint

    @breaklint.example
    def tiny_gpt():
        model = TinyGPT()
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


@dataclass
class Example:
    """What to compile and how to call it.

    `target` is a function or an nn.Module; `args`/`kwargs` are the inputs; `probe_args` (and
    `probe_kwargs`) are a second input set for the recompile probe, e.g. another batch size.
    Without it the probe halves the batch dimension of the inputs. `compile_options` are the
    `torch.compile` arguments your code uses (`{"dynamic": False}`, `{"fullgraph": True}`):
    every stage compiles with them, plus its own backend and mode."""

    target: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    probe_args: tuple[Any, ...] | None = None
    probe_kwargs: dict[str, Any] | None = None
    compile_options: dict[str, Any] = field(default_factory=dict)


def example(provider: F) -> F:
    """Mark `provider` (a function of no arguments returning an Example) as a confirm target."""
    setattr(provider, MARKER, True)
    return provider
