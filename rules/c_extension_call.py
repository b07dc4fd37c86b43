from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import dotted, Rule

# Packages whose functions are compiled C code (or sit on Dynamo's THIRDPARTY_SKIPLIST, like
# pandas and sklearn in torch/_dynamo/trace_rules.py). Read from real runs on torch 2.13: zlib,
# hashlib and binascii break at the call (GB0007, testdata/rules/BL110); scipy.special.expit
# breaks at the call (GB0156); scipy.ndimage, scipy.signal and PIL.Image run Python first and
# break inside the package (GB0157, GB0007). `struct` and `math` are traced.
C_PACKAGES = frozenset(
    {"scipy", "cv2", "PIL", "sklearn", "pandas", "skimage", "numba", "zlib", "hashlib", "binascii", "lzma",
     "bz2", "gzip"}
)


def _is_data(attribute: str) -> bool:
    """A module attribute that is a Python value, not a function: a dunder (`__version__`) or a
    constant (`ZLIB_VERSION`). Dynamo traces a `str` method on it (torch 2.13, testdata/rules/BL110)."""
    return (attribute.startswith("__") and attribute.endswith("__")) or attribute.isupper()


class CExtensionCall(Rule):
    """## What it does
    Finds calls in a compiled region into compiled extension packages that are not torch:
    SciPy, OpenCV (`cv2`), Pillow (`PIL`), scikit-learn, pandas, scikit-image, and C modules of
    the standard library (`zlib`, `hashlib`, `binascii`, compressors).

    ## Why is this bad?
    Dynamo can only trace Python bytecode and the torch (and NumPy) functions it models. A C
    function is opaque to it: it ends the graph, converts tensors to real arrays (a copy to the
    host) and runs the call eagerly, then starts a new graph. Some of these packages run Python
    first and break deeper inside, which is harder to find in the logs.

    ## How to fix
    Use the torch equivalent (`torch.special.expit`, `torchvision.transforms.v2` on tensors,
    `torch.fft`), do the work outside the compiled function (data loading, preprocessing), or
    wrap it as a custom op (`torch.library.custom_op`) so that Dynamo keeps one graph around an
    opaque call.

    ## When it is fine
    Outside the compiled region (e.g. in the `Dataset`), or behind `torch.compiler.disable`.
    A method of a value such a package holds, as `PIL.__version__.split(".")` or
    `zlib.ZLIB_VERSION.split(".")`, is a `str` method: Dynamo traces it, and it is not reported.

    ## Dynamo says
    `Attempted to call function marked as skipped` (GB0007) for C functions and skipped
    packages; `Unsupported method call` (GB0156) for SciPy ufuncs.
    """

    code = "BL110"
    name = "c-extension-call"
    stage = Stage.DYNAMO
    message = "`{function}()` in {region} calls into the C extension `{package}`, which Dynamo cannot trace: it forces a graph break"
    help = "use the torch equivalent, move the call out of the compiled code, or wrap it with torch.library.custom_op"
    dynamo_says = {
        "GB0007": "Attempted to call function marked as skipped",
        "GB0156": "Unsupported method call",
    }
    # CI proves the standard-library C modules only; SciPy and Pillow were run by hand (see above).
    status = "preview"
    bad = (
        "import scipy.special\nimport torch\n\n@torch.compile\ndef f(x):\n"
        "    return torch.from_numpy(scipy.special.expit(x.numpy()))\n",
        "import zlib\nimport torch\n\n@torch.compile\ndef f(x):\n    key = zlib.crc32(b'layer')\n    return x * 2\n",
    )
    good = ("import torch\n\n@torch.compile\ndef f(x):\n    return torch.special.expit(x)\n",)

    def visit_Call(self, node: cst.Call) -> None:
        spelled = dotted(node.func)
        if spelled is None or spelled.partition(".")[0] not in self.ctx.module.imports.aliases:
            return  # only names bound by an import: a local `gzip` variable is not the module
        resolved = self.ctx.resolve(node.func) or ""
        package = resolved.partition(".")[0]
        if any(_is_data(part) for part in resolved.split(".")[1:-1]):
            return  # a method of a value the package holds (`PIL.__version__.split(".")`): traced
        if package in C_PACKAGES and "." in resolved:
            says = "GB0156" if resolved.startswith("scipy.special.") else "GB0007"
            self.report(node, confidence=Confidence.CERTAIN, says=says, function=resolved, package=package)
