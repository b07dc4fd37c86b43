"""What Dynamo makes of a NumPy call inside a compiled region (torch 2.13, `trace_numpy` on).

Dynamo rewrites every `numpy.*` function that torch._numpy has to a traced call
(torch/_dynamo/variables/misc.py, NumpyVariable.call_function): the result is an ndarray
backed by a tensor, even when every argument is a Python number (`np.lcm(4, 6)`,
`np.sum([1, 2])`, `np.arange(n)`). Only these come back as Python constants:
`np.dtype`, `np.finfo`, `np.iinfo` (const collections) and `np.issubdtype` (constant-folded).
Read from torch 2.13.0's sources and checked on it (testdata/rules/BL101, BL102).
"""

from __future__ import annotations

# Calls whose result is a Python constant, not a traced array.
CONSTANT_CALLS = frozenset({"dtype", "finfo", "iinfo", "issubdtype", "random.seed"})
# NumPy draws of one Python scalar break at the call (BL107) and return a Python number.
# The number is how many positional arguments still give a scalar.
SCALAR_DRAWS = {"rand": 0, "randn": 0, "random": 0, "random_sample": 0, "sample": 0, "uniform": 2,
                "normal": 2, "randint": 2, "choice": 1}
# Element-wise functions (ufuncs) and scalar constructors: applied to Python numbers they make a
# 0-d array whose value the fake tensor knows, so Dynamo reads a float one back as a constant
# (`float(np.sqrt(d))`, `int(np.ceil(n / 2))`) and takes an integer one as a size
# (`x.reshape(-1, np.lcm(a, b))`). Branching on it, or `range()` over it, still breaks.
ELEMENTWISE = frozenset(
    {"abs", "absolute", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
     "arctanh", "cbrt", "ceil", "copysign", "cos", "cosh", "deg2rad", "degrees", "divide", "exp",
     "exp2", "expm1", "fabs", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod", "gcd",
     "hypot", "lcm", "log", "log10", "log1p", "log2", "logaddexp", "maximum", "minimum", "mod",
     "multiply", "negative", "power", "rad2deg", "radians", "reciprocal", "remainder", "rint",
     "sign", "sin", "sinh", "sqrt", "square", "subtract", "tan", "tanh", "true_divide", "trunc",
     "round", "around", "fix",
     "float16", "float32", "float64", "double", "half", "single", "int8", "int16", "int32",
     "int64", "intp", "uint8", "bool_", "longlong", "float_", "int_"}
)
# Functions whose arguments are sizes: an array-valued NumPy argument there is read back as a
# Python int, which Dynamo cannot do ("Data dependent operator", GB0033). Checked on 2.13 for
# np.zeros/np.arange, torch.zeros and Tensor.reshape (testdata/rules/BL101).
NUMPY_SIZE_FUNCTIONS = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.arange"})
TORCH_SIZE_FUNCTIONS = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.arange",
                                  "torch.rand", "torch.randn"})
# `np.random.choice` breaks whatever its arguments: torch._numpy's version checks that the
# probabilities sum to 1 with a Python `if` on a tensor (GB0033; checked on 2.13).
DRAWS_THAT_BREAK = frozenset({"random.choice"})
SIZE_METHODS = frozenset({"reshape", "view", "new_zeros", "new_ones", "new_empty", "expand"})


def numpy_name(qualified: str) -> str | None:
    """`numpy.random.permutation` -> `random.permutation`; None for other modules."""
    return qualified[len("numpy."):] if qualified.startswith("numpy.") else None


def is_scalar_draw(name: str, positional: int, sized: bool) -> bool:
    """`np.random.rand()`, `np.random.uniform(0, 1)`: one Python number, drawn eagerly."""
    module, _, function = name.rpartition(".")
    return module == "random" and function in SCALAR_DRAWS and not sized and positional <= SCALAR_DRAWS[function]
