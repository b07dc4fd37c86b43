from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import Rule

# NumPy functions with no torch._numpy counterpart: Dynamo's `get_np_to_tnp_map()` has no entry
# for them, so calling one in a region is GB0294. Read from torch 2.13.0 with NumPy 2.4;
# tests/test_numpy_table.py fails when the installed torch disagrees.
UNTRACEABLE_NUMPY = frozenset(
    {
        'apply_along_axis', 'apply_over_axes', 'argpartition', 'array2string', 'array_repr',
        'array_str', 'asanyarray', 'asarray_chkfinite', 'asfortranarray', 'asmatrix', 'astype',
        'base_repr', 'binary_repr', 'bitwise_count', 'block', 'bmat', 'busday_count',
        'busday_offset', 'compress', 'cumulative_prod', 'cumulative_sum', 'datetime_as_string',
        'datetime_data', 'delete', 'digitize', 'ediff1d', 'einsum_path', 'extract',
        'format_float_positional', 'format_float_scientific', 'frexp', 'frombuffer', 'fromfile',
        'fromfunction', 'fromiter', 'frompyfunc', 'fromregex', 'fromstring', 'genfromtxt',
        'get_include', 'get_printoptions', 'getbufsize', 'geterr', 'geterrcall',
        'histogram_bin_edges', 'info', 'insert', 'interp', 'intersect1d', 'is_busday',
        'isdtype', 'isfortran', 'isin', 'isnat', 'iterable', 'ix_', 'lexsort', 'load',
        'loadtxt', 'mask_indices', 'matrix_transpose', 'matvec', 'may_share_memory',
        'mintypecode', 'nanargmax', 'nanargmin', 'nancumprod', 'nancumsum', 'nanmax', 'nanmean',
        'nanmedian', 'nanmin', 'nanpercentile', 'nanprod', 'nanquantile', 'nanstd', 'nansum',
        'nanvar', 'nested_iters', 'packbits', 'partition', 'piecewise', 'place', 'poly',
        'polyadd', 'polyder', 'polydiv', 'polyfit', 'polyint', 'polymul', 'polysub', 'polyval',
        'printoptions', 'promote_types', 'putmask', 'ravel_multi_index', 'require', 'roots',
        'save', 'savetxt', 'savez', 'savez_compressed', 'select', 'set_printoptions',
        'setbufsize', 'setdiff1d', 'seterr', 'seterrcall', 'setxor1d', 'shares_memory',
        'show_config', 'show_runtime', 'sort_complex', 'spacing', 'test', 'trapezoid',
        'trim_zeros', 'typename', 'union1d', 'unique_all', 'unique_counts', 'unique_inverse',
        'unique_values', 'unpackbits', 'unravel_index', 'unstack', 'unwrap', 'vecdot', 'vecmat'
    }
)

# The `numpy.random` functions torch._numpy.random lacks (it has seed, rand, randn, random,
# random_sample, sample, uniform, normal, randint, choice, shuffle): GB0294 as well, whatever the
# arguments. The generator classes (`RandomState`, `Generator`, ...) are not listed: calling one
# breaks differently (GB0156 for `RandomState(0)`).
UNTRACEABLE_NUMPY_RANDOM = frozenset(
    {
        'beta', 'binomial', 'bytes', 'chisquare', 'default_rng', 'dirichlet', 'exponential', 'f',
        'gamma', 'geometric', 'get_bit_generator', 'get_state', 'gumbel', 'hypergeometric',
        'laplace', 'logistic', 'lognormal', 'logseries', 'multinomial', 'multivariate_normal',
        'negative_binomial', 'noncentral_chisquare', 'noncentral_f', 'pareto', 'permutation',
        'poisson', 'power', 'random_integers', 'ranf', 'rayleigh', 'set_bit_generator',
        'set_state', 'standard_cauchy', 'standard_exponential', 'standard_gamma',
        'standard_normal', 'standard_t', 'test', 'triangular', 'vonmises', 'wald', 'weibull', 'zipf'
    }
)


class UntraceableNumpyCall(Rule):
    """## What it does
    Finds calls to NumPy functions that Dynamo cannot trace inside a compiled region:
    `np.save`, `np.load`, `np.frombuffer`, `np.nanmean`, `np.isin`, `np.interp`, `np.polyfit`,
    `np.apply_along_axis` and the other functions that have no `torch._numpy` counterpart,
    and the `np.random` functions outside torch._numpy's small random module:
    `np.random.permutation`, `np.random.default_rng`, `np.random.standard_normal`,
    `np.random.poisson`, `np.random.binomial`, `np.random.beta`, `np.random.exponential`, ...

    ## Why is this bad?
    Since torch 2.1 Dynamo traces NumPy code by rewriting it to torch (`trace_numpy`), so
    `t.numpy()`, `np.asarray(t)` or `np.exp(a)` stay in the graph. A function outside that
    subset cannot be rewritten: Dynamo ends the graph, converts the arrays back to real NumPy
    (a device-to-host copy), and runs the call eagerly.

    Turning the array into Python values breaks the graph as a tensor would, and is reported by
    the same rules: `.tolist()`/`float(a.sum())` (BL101), `if np.all(a > 0)` (BL102),
    `np.nonzero`/`np.unique` (BL104).

    ## How to fix
    Use the torch equivalent (`torch.nanmean`, `torch.isin`, `torch.searchsorted` for
    `np.digitize`, `torch.randperm(n)` for `np.random.permutation(n)`, `torch.randn` for
    `np.random.standard_normal`, `torch.poisson`, `torch.distributions.*`), or do the NumPy
    work outside the compiled function (a random plan drawn once in `__init__`, or in a
    `torch.compiler.disable`d helper). `np.random.rand`, `randn`, `randint`, `uniform`,
    `normal`, `choice` and `shuffle` with a size are traced as torch random ops.

    ## When it is fine
    Outside compiled code; in a rarely taken path whose break is measured.

    ## Dynamo says
    `attempted to trace numpy function unsupported by PyTorch` (GB0294).
    """

    code = "BL103"
    name = "untraceable-numpy-call"
    stage = Stage.DYNAMO
    message = "`{function}` in {region} has no torch._numpy equivalent and forces a graph break"
    help = "use the torch equivalent, or move the NumPy work out of the compiled code"
    dynamo_says = {"GB0294": "attempted to trace numpy function unsupported by PyTorch"}
    bad = (
        "import numpy as np\nimport torch\n\n@torch.compile\ndef f(x):\n    return np.nanmean(x.numpy())\n",
        "import numpy as np\nimport torch\n\n@torch.compile\ndef f(x):\n    order = np.random.permutation(8)\n"
        "    return x[torch.from_numpy(order)]\n",
    )
    good = ("import numpy as np\nimport torch\n\n@torch.compile\ndef f(x):\n    return np.exp(x.numpy())\n",)

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self.ctx.resolve(node.func) or ""
        module, _, function = resolved.rpartition(".")
        if (module == "numpy" and function in UNTRACEABLE_NUMPY) or (
            module == "numpy.random" and function in UNTRACEABLE_NUMPY_RANDOM
        ):
            self.report(node, confidence=Confidence.CERTAIN, says="GB0294", function=resolved)
