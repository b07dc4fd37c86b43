"""What Inductor produced, read from its output code: Triton/C++ kernels, extern calls and the
ATen ops it left as fallbacks, told apart from those that are extern by design."""

from __future__ import annotations

import re
from typing import Any

TRITON_KERNEL = "@triton.jit"
CPP_KERNEL = "extern \"C\""
EXTERN_CALL = "extern_kernels."
ATEN_CALL = re.compile(r"torch\.ops\.aten\.(\w+)\.(\w+)\(")

# Ops Inductor calls as ATen kernels on purpose: attention (its SDPA pattern matcher picks the
# flash/efficient/cuDNN kernels, `make_fallback(..., warn=False)` in lowering.py), and the
# matmuls and convolutions it hands to cuBLAS/cuDNN/MKL (usually as `extern_kernels.*`, some
# as ATen calls). Lowering them would not make a faster kernel: they are not fallbacks.
_BY_DESIGN = re.compile(
    r"_scaled_dot_product_\w+|_flash_attention_\w+|_efficient_attention_\w+"
    r"|(?:mm|bmm|addmm|baddbmm|addbmm|_addmm_activation|_int_mm|_scaled_mm)"
    r"|(?:convolution|convolution_backward|cudnn_convolution\w*|_convolution|mkldnn_\w+)$"
)


def extern_by_design(op: str) -> bool:
    """`op` is `name.overload` (`_scaled_dot_product_efficient_attention.default`)."""
    return bool(_BY_DESIGN.fullmatch(op.split(".", 1)[0]))


def count_kernels(codes: list[str]) -> dict[str, Any]:
    """Kernels generated, extern calls (by design: cuBLAS, cuDNN, attention) and real ATen
    fallbacks. Only real calls count: the code also names ATen ops in comments
    (`# Original ATen: ...`)."""
    text = "\n".join(codes)
    calls = (ATEN_CALL.search(line) for line in text.splitlines() if not line.lstrip().startswith("#"))
    aten = sorted({f"{m[1]}.{m[2]}" for m in calls if m})
    by_design = [op for op in aten if extern_by_design(op)]
    return {
        "triton": text.count(TRITON_KERNEL),
        "cpp": text.count(CPP_KERNEL),
        "extern": text.count(EXTERN_CALL) + sum(text.count(f"torch.ops.aten.{op}(") for op in by_design),
        "extern_ops": by_design,
        "aten_fallbacks": [op for op in aten if op not in by_design],
    }
