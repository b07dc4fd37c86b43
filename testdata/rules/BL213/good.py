"""BL213 negatives: the global is set before the first call, or the compiled code does not read it."""
import os

import torch

X = torch.randn(8, 8)
USE_GELU = False
UNUSED = 1
GAIN = 0.5
CALLS = {name: [] for name in ("act", "fast_apply", "has_extra", "env_mode", "dynamic_gained",
                               "dynamic_shift")}


@torch.compile
def act(x):
    return torch.nn.functional.gelu(x) if USE_GELU else x.relu()


def scenario_set_before_the_first_call():
    global USE_GELU, UNUSED
    USE_GELU = True
    act(X)
    UNUSED = 2
    act(X)


def _make_scaler():
    scale = 2

    def apply(x):
        return x * scale

    def set_scale(value):
        nonlocal scale
        scale = value

    return apply, set_scale


apply, set_scale = _make_scaler()
fast_apply = torch.compile(apply)


def scenario_closure_cell_set_before_the_calls():
    set_scale(3)
    fast_apply(X)
    fast_apply(X)


class Settings:
    pass


SETTINGS = Settings()


@torch.compile
def has_extra(x):
    return x * 2 if hasattr(SETTINGS, "extra") else x


@torch.compile
def env_mode(x):
    return x * 2 if os.environ.get("BREAKLINT_TESTDATA_MODE") == "fast" else x


def scenario_hasattr_turns_true():
    # Measured on torch 2.13: no recompile (the compiled code keeps the traced answer).
    has_extra(X)
    SETTINGS.extra = 1
    has_extra(X)


def scenario_environment_variable_changes():
    # Measured on torch 2.13: no recompile either (os.environ is read once, while tracing).
    env_mode(X)
    os.environ["BREAKLINT_TESTDATA_MODE"] = "fast"
    env_mode(X)
    del os.environ["BREAKLINT_TESTDATA_MODE"]


def gained(x):
    return x * GAIN


dynamic_gained = torch.compile(gained, dynamic=True)


def scenario_global_float_under_dynamic_true():
    global GAIN
    dynamic_gained(X)
    GAIN = 0.7  # dynamic=True: a global float is a symbol from the first call
    dynamic_gained(X)

def _make_dynamic_shifter():
    offset = 2

    def shift(x):
        return x + offset

    def set_offset(value):
        nonlocal offset
        offset = value

    return shift, set_offset


shift, set_offset = _make_dynamic_shifter()
dynamic_shift = torch.compile(shift, dynamic=True)


def scenario_closure_cell_under_dynamic_true():
    dynamic_shift(X)
    set_offset(3)  # dynamic=True: an int cell is a symbol from the first call
    dynamic_shift(X)
    set_offset(4)
    dynamic_shift(X)
