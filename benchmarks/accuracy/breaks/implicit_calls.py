"""Code Dynamo reaches through dunder methods and values passed in: a config object that logs
its writes (as `PretrainedConfig`-style objects may), hashed keys, a chunk plan, a callable hook
object, a disabled helper passed as an argument, and iterators given to the compiled function."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class RuntimeConfig:
    def __init__(self):
        object.__setattr__(self, "_values", {})

    def __setattr__(self, key, value):
        logger.warning("runtime config %s changed", key)
        self._values[key] = value


RUNTIME = RuntimeConfig()


class AdapterKey:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        print(f"comparing adapter {self.name}")
        return isinstance(other, AdapterKey) and self.name == other.name


ACTIVE, REQUESTED = AdapterKey("lora"), AdapterKey("lora")


class ChunkSchedule:
    def __iter__(self):
        print("building chunk schedule")
        return iter((0, 4))


SCHEDULE = ChunkSchedule()


class ScaleHook:
    def __call__(self, hidden_states):
        logger.info("scale hook")
        return hidden_states * 0.5


HOOK = ScaleHook()


@torch.compiler.disable
def _record_activation(hidden_states):
    return hidden_states + 0


def apply_callback(callback, hidden_states):
    return callback(hidden_states) * 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        RUNTIME.last_batch = 8
        return self.proj(x)


@torch.compile
def pick_adapter(x):
    if ACTIVE == REQUESTED:
        return x * 2
    return x


@torch.compile
def chunked_sum(x):
    for start in SCHEDULE:
        x = x + start
    return x


@torch.compile
def hooked(x):
    return HOOK(x) + 1


@torch.compile
def with_callback(x):
    return apply_callback(_record_activation, x)


@torch.compile
def sum_chunks(chunks, x):
    for chunk in chunks:
        x = x + chunk
    return x


@torch.compile
def apply_named_scales(named_scales, x):
    for name, scale in named_scales:
        x = x * scale
    return x


@torch.compile
def apply_bias_table(bias_table, x):
    for name, bias in bias_table:
        x = x + bias
    return x


model = torch.compile(Model())


def scenario_iter_input():
    sum_chunks(iter([1.0, 2.0]), torch.randn(8, 8))


def scenario_zip_input():
    apply_named_scales(zip(["a", "b"], [torch.ones(8), torch.ones(8)]), torch.randn(8, 8))


def scenario_items_input():
    table = {"q": torch.zeros(8)}
    apply_bias_table(table.items(), torch.randn(8, 8))


CALLS = {"sum_chunks": [([1.0, 2.0], torch.randn(8, 8)) for _ in range(3)],
         "apply_named_scales": [([("a", torch.ones(8))], torch.randn(8, 8)) for _ in range(3)],
         "apply_bias_table": [([("q", torch.zeros(8))], torch.randn(8, 8)) for _ in range(3)]}


class StepTimer:
    def __enter__(self):
        print("step started")
        return self

    def __exit__(self, *exc):
        return False


TIMER = StepTimer()


@torch.compile
def timed_step(x):
    with TIMER:
        y = x * 2
    return y
