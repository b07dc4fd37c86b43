#!/usr/bin/env bash
# The GPU evidence for `breaklint confirm` on real models, in two parts that each fit one call
# of a GPU machine (torch, timm and transformers installed), from the repo root:
#   OUT=DIR bash benchmarks/gpu/run_real.sh ladder   # the BL5xx ground truth on the GPU (BL506 too);
#                                                    # the decode loop under --ladder, with and without grad
#   OUT=DIR bash benchmarks/gpu/run_real.sh grad [K] # only the BL5xx ground truth (pytest -k K) and the grad loop
#   OUT=DIR bash benchmarks/gpu/run_real.sh models   # confirm on resnet50, GPT-2, Llama, a training step;
#                                                    # then independent.py times the same models
# WHEELS=DIR installs the wheels there first (breaklint's own and libcst: no registry needed).
# Then: python benchmarks/gpu/summarize_real.py DIR > benchmarks/results/gpu/real_models.md
set -uo pipefail
OUT=${OUT:-benchmarks/results/gpu}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
if [ -n "${WHEELS:-}" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$WHEELS"/*.whl || exit 2
    export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH
fi
python3 - <<'PY' | tee "$OUT/versions.txt"
import platform, torch, triton, transformers, timm
print(f"torch {torch.__version__}, triton {triton.__version__}, transformers {transformers.__version__}, "
      f"timm {timm.__version__}, {torch.cuda.get_device_name()}, python {platform.python_version()}")
PY
grad() {  # BL506 on the GPU: its testdata, and the decode loop without torch.no_grad()
    timeout 170 pytest -q -s -p no:cacheprovider tests/test_gpu_cudagraphs.py ${1:+-k "$1"} > "$OUT/gpu_cudagraphs.log" 2>&1
    echo "gpu cudagraph tests: exit $?"; tail -n 2 "$OUT/gpu_cudagraphs.log"
    breaklint confirm --ladder --stages eager,inductor,cudagraphs --budget 120 --timeout 100 --check benchmarks/gpu \
        --format json -o "$OUT/decode_grad_ladder.json" \
        -- python3 benchmarks/gpu/decode_static_cache.py --with-grad --layers 4 --new-tokens 64 2>> "$OUT/ladder.stderr"
    echo "grad ladder: exit $?"
}
case "${1:-}" in
grad)
    grad "${2:-}"
    ;;
ladder)
    grad
    breaklint confirm --ladder --budget 230 --timeout 120 --check benchmarks/gpu --format json -o "$OUT/decode_ladder.json" \
        -- python3 benchmarks/gpu/decode_static_cache.py --layers 4 --report "$OUT/decode_timing.jsonl" 2>> "$OUT/ladder.stderr"
    echo "decode ladder: exit $?"
    ;;
models)
    breaklint confirm benchmarks/gpu/real_models.py --check benchmarks/gpu --repeat 100 --warmup 20 --timeout 200 \
        --budget 330 --format json -o "$OUT/real_models.json" 2> "$OUT/real_models.stderr"
    echo "confirm: exit $?"; tail -n 6 "$OUT/real_models.stderr"
    timeout 190 python3 benchmarks/gpu/independent.py "$OUT/independent.json" --calls 100 --warmup 20 > "$OUT/independent.log" 2>&1
    echo "independent: exit $?"; tail -n 4 "$OUT/independent.log"
    ;;
*)
    echo "usage: run_real.sh ladder|models|grad [K]" >&2; exit 2 ;;
esac
