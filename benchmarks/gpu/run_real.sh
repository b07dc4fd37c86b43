#!/usr/bin/env bash
# The GPU evidence for `breaklint confirm` on real models, in parts that each fit one call of a
# GPU machine (torch, timm and transformers installed), from the repo root:
#   OUT=DIR bash benchmarks/gpu/run_real.sh models    # agreement.py: confirm's ladder of resnet50, GPT-2,
#                                                     # Llama and a training step beside an independent
#                                                     # CUDA-events timer, interleaved in one process; then
#                                                     # the decode loop under --ladder (and --plot)
#   OUT=DIR bash benchmarks/gpu/run_real.sh programs  # observe mode on serve_gpt2.py (its output compared
#                                                     # with a plain run); the examples table (results.md)
#   OUT=DIR bash benchmarks/gpu/run_real.sh ladder    # the BL5xx ground truth on the GPU (BL506 too);
#                                                     # the decode loop under --ladder, with and without grad
#   OUT=DIR bash benchmarks/gpu/run_real.sh grad [K]  # only the BL5xx ground truth (pytest -k K) and the grad loop
#   OUT=DIR bash benchmarks/gpu/run_real.sh all       # models, then the examples table with what is left of
#                                                     # DEADLINE seconds (570) as its --budget
#   OUT=DIR bash benchmarks/gpu/run_real.sh examples [BUDGET]  # only the examples table (--budget BUDGET, 480)
# TARGETS="FILE::NAME ..." picks the examples table's targets, in that order (default: the 8 of results.md).
# WHEELS=DIR installs the wheels there first (breaklint's own and libcst: no registry needed).
# Then: python benchmarks/gpu/summarize_real.py MODELS_DIR GRAD_DIR > benchmarks/results/gpu/real_models.md
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
decode() {  # the decode loop, once per stage; the program times its own steps beside the ladder
    breaklint confirm --ladder --budget 180 --timeout 100 --check benchmarks/gpu --format json -o "$OUT/decode_ladder.json" \
        --plot "$OUT/decode_ladder.png" \
        -- python3 benchmarks/gpu/decode_static_cache.py --layers 4 --report "$OUT/decode_timing.jsonl" 2>> "$OUT/ladder.stderr"
    echo "decode ladder: exit $?"
}
observed() {  # observe mode on a real model: its findings, and the program's output as without breaklint
    timeout 120 python3 benchmarks/gpu/serve_gpt2.py > "$OUT/serve_plain.out" 2> "$OUT/serve_plain.err"
    echo "plain run: exit $?"
    timeout 150 breaklint confirm --check benchmarks/gpu -- python3 benchmarks/gpu/serve_gpt2.py \
        > "$OUT/serve_observed.txt" 2> "$OUT/serve_observed.err"
    echo "observe mode: exit $?"; cat "$OUT/serve_observed.txt"
    # observe mode sends the program's stdout and stderr to its own stderr: the same lines as plain
    cat "$OUT/serve_plain.out" "$OUT/serve_plain.err" | sort > /tmp/plain.sorted
    sort "$OUT/serve_observed.err" > /tmp/observed.sorted
    diff /tmp/plain.sorted /tmp/observed.sorted > "$OUT/serve_output.diff"; echo "output diff: exit $? ($(wc -l < "$OUT/serve_output.diff") lines)"
}
# The quick targets first (mask_assignment, last before, never got a turn within the budget), then
# tinygpt's two (about 135 s each on the H200 machine, most of it Inductor's C++ kernel for a CPU op).
T=testdata/confirm_targets/breaklint_examples.py G=examples/tinygpt/breaklint_examples.py
TARGETS=${TARGETS:-"$T::mask_assignment examples/clean $T::mutated_input $T::static_shapes $T::cpu_copy $T::cond_branch
    $G::tiny_gpt_training_loss $G::tiny_gpt_inference"}
examples() {  # the examples table of results.md, with the current confirm (inference under no_grad); $1: --budget
    breaklint confirm $TARGETS \
        --check examples --check testdata/rules/BL501 --check testdata/rules/BL502 --check testdata/rules/BL503 \
        --check testdata/rules/BL504 --check testdata/rules/BL210 \
        --repeat 30 --warmup 5 --timeout 200 --budget "${1:-480}" --format json -o "$OUT/confirm.json" \
        --plot "$OUT/ladder.png" 2> "$OUT/confirm.stderr"
    echo "confirm examples: exit $?"; tail -n 12 "$OUT/confirm.stderr"
    python3 benchmarks/gpu/summarize.py "$OUT/confirm.json" "$OUT/versions.txt" > "$OUT/results.md"
}
models() {  # agreement.py (the two timers call by call), then the decode loop
    timeout 450 python3 benchmarks/gpu/agreement.py "$OUT/agreement.json" --rounds 3 --calls 100 --warmup 20 \
        > "$OUT/agreement.log" 2>&1
    echo "agreement: exit $?"; grep -v Warning "$OUT/agreement.log" | tail -n 22
    decode
}
case "${1:-}" in
grad)
    grad "${2:-}"
    ;;
ladder)
    grad
    decode
    ;;
models)
    models
    ;;
examples)
    examples "${2:-480}"
    ;;
all)
    models
    left=$(( ${DEADLINE:-570} - SECONDS ))
    [ "$left" -gt 30 ] && examples "$left"
    ;;
programs)
    observed
    examples
    ;;
*)
    echo "usage: run_real.sh models|all|examples|programs|ladder|grad [K]" >&2; exit 2 ;;
esac
