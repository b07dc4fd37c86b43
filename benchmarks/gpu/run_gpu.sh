#!/usr/bin/env bash
# The GPU half of breaklint, in one command on a CUDA machine with breaklint installed
# (`pip install -e .`), from the repo root:
#   OUT=benchmarks/results/gpu bash benchmarks/gpu/run_gpu.sh
# It proves the CUDA-graph rules (tests/test_gpu_cudagraphs.py), surveys which patterns skip or
# split CUDA graphs on this torch (benchmarks/gpu/probe_cudagraphs.py), runs the capture and Dynamo
# ground-truth tests on this machine's torch, runs `breaklint confirm` with every stage (Triton,
# CUDA graphs) on examples/ and the BL5xx positives, and writes a results table.
# Entry points are the installed `breaklint` and `pytest` scripts (not `python -m`, which would
# import the source folder, where `rules/` is not yet `breaklint.rules`).
set -uo pipefail
OUT=${OUT:-benchmarks/results/gpu}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 - <<'PY' | tee "$OUT/versions.txt"
import platform, torch
try:
    import triton; tv = triton.__version__
except ImportError:
    tv = "none"
print(f"torch {torch.__version__}, triton {tv}, {torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}, python {platform.python_version()}")
PY
pytest -q -s -p no:cacheprovider tests/test_gpu_cudagraphs.py 2>&1 | tee "$OUT/gpu_cudagraphs.log"
python3 benchmarks/gpu/probe_cudagraphs.py > "$OUT/probe.log" 2>/dev/null
echo "probe exit code: $?"
breaklint confirm examples/tinygpt examples/clean testdata/confirm_targets \
    --check examples --check testdata/rules/BL501 --check testdata/rules/BL502 --check testdata/rules/BL503 \
    --check testdata/rules/BL504 --check testdata/rules/BL210 \
    --repeat 30 --warmup 5 --timeout 240 --format json -o "$OUT/confirm.json" --plot "$OUT/ladder.png" \
    2> "$OUT/confirm.stderr"
echo "confirm exit code: $?"
python3 benchmarks/gpu/summarize.py "$OUT/confirm.json" "$OUT/versions.txt" > "$OUT/results.md"
cat "$OUT/results.md"
# xdist (-n) where the machine has it: the ground truth is many short Dynamo runs.
XDIST=$(python3 -c "import xdist" 2>/dev/null && echo "-n 12")
pytest -q -p no:cacheprovider -p no:logging $XDIST -rf tests/test_capture.py tests/test_ground_truth.py \
    tests/test_rule_markers.py > "$OUT/dynamo_tests.log" 2>&1
tail -n 3 "$OUT/dynamo_tests.log"
