"""BL213 positives: a global the compiled code reads is reassigned between its calls; Dynamo
recompiles as often as the marker says, with that guard (torch 2.13)."""
import torch

X = torch.randn(8, 8)
USE_GELU = False
CFG = {"scale": 2}
MODE = "relu"
GAIN = 0.5
CALLS = {name: [] for name in ("act", "scaled", "moded", "fast_apply", "fast_blend", "static_gained",
                               "static_shift")}


@torch.compile
def act(x):
    return torch.nn.functional.gelu(x) if USE_GELU else x.relu()


@torch.compile
def scaled(x):
    return x * CFG["scale"]


@torch.compile
def moded(x):
    return x.tanh() if MODE == "tanh" else x.relu()


def enable_gelu():
    global USE_GELU
    USE_GELU = True


def scenario_flag_flipped_by_a_helper():
    act(X)
    enable_gelu()  # expect: BL213 recompiles=1 guard="G['USE_GELU'] == False"
    act(X)


def scenario_dict_entry_per_value():
    scaled(X)
    CFG["scale"] = 3  # expect: BL213 recompiles=2 guard="G['CFG']['scale'] == 2"
    scaled(X)
    CFG["scale"] = 4
    scaled(X)


def scenario_string_global():
    global MODE
    moded(X)
    MODE = "tanh"  # expect: BL213 recompiles=1 guard="G['MODE'] == 'relu'"
    moded(X)


def _make_scaler():
    scale = 2

    def apply(x):
        return x * scale

    def set_scale(value):
        nonlocal scale
        scale = value

    return apply, set_scale


def _make_blend():
    use_tanh = False

    def blend(x):
        return x.tanh() if use_tanh else x.relu()

    def toggle():
        nonlocal use_tanh
        use_tanh = not use_tanh

    return blend, toggle


apply, set_scale = _make_scaler()
fast_apply = torch.compile(apply)
blend, toggle = _make_blend()
fast_blend = torch.compile(blend)


def scenario_closure_cell_int():
    fast_apply(X)
    set_scale(3)  # expect: BL213 recompiles=1 guard="scale == 2"
    fast_apply(X)
    set_scale(4)
    fast_apply(X)


def scenario_closure_cell_flag():
    fast_blend(X)
    toggle()  # expect: BL213 recompiles=1 guard="use_tanh == False"
    fast_blend(X)


def gained(x):
    return x * GAIN


static_gained = torch.compile(gained, dynamic=False)


def scenario_global_float_under_dynamic_false():
    global GAIN
    static_gained(X)
    GAIN = 0.7  # expect: BL213 recompiles=2 guard="G['GAIN'] == 0.5"
    static_gained(X)
    GAIN = 0.9
    static_gained(X)

def _make_static_shifter():
    offset = 2

    def shift(x):
        return x + offset

    def set_offset(value):
        nonlocal offset
        offset = value

    return shift, set_offset


shift, set_offset = _make_static_shifter()
static_shift = torch.compile(shift, dynamic=False)


def scenario_closure_cell_under_dynamic_false():
    static_shift(X)
    set_offset(3)  # expect: BL213 recompiles=2 guard="offset == 2"
    static_shift(X)
    set_offset(4)
    static_shift(X)
