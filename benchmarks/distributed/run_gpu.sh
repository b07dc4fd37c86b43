#!/usr/bin/env bash
# The NCCL path of `breaklint confirm --nproc` on a CUDA machine, from the repo root:
#   OUT=benchmarks/distributed/results/gpu-nproc1 NPROC=1 bash benchmarks/distributed/run_gpu.sh
# NPROC=2 (or more) on a host with a GPU per rank. libcst is installed from a carried wheel
# when the machine has none (.devcarry/whl/, never committed).
set -uo pipefail
OUT=${OUT:-benchmarks/distributed/results/gpu-nproc1}
NPROC=${NPROC:-1}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# NVLink multicast stays off (the device notes: it can take a shared host's GPUs down).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
python3 -c "import libcst" 2>/dev/null || python3 -m pip install -q --no-deps --no-index .devcarry/whl/libcst-*.whl
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . > "$OUT/install.log" 2>&1
python3 - <<'PY' | tee "$OUT/versions.txt"
import platform, torch, torch.distributed as dist
print(f"torch {torch.__version__}, {torch.cuda.device_count()} x {torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}, "
      f"NCCL {'.'.join(map(str, torch.cuda.nccl.version())) if torch.cuda.is_available() else '-'}, python {platform.python_version()}")
PY
timeout 200 breaklint confirm --nproc "$NPROC" --stages eager,dynamo,aot_eager,inductor testdata/distributed_targets \
    --repeat 20 --warmup 3 --timeout 180 --format json -o "$OUT/confirm.json" 2> "$OUT/confirm.stderr"
echo "confirm exit code: $?"
python3 - "$OUT/confirm.json" <<'PY' | tee "$OUT/summary.txt"
import json, sys
data = json.load(open(sys.argv[1]))
for target in data["targets"]:
    print(target["target"], target["device"], target["usage"], "failure:", target["failure"])
    print("launch:", target.get("distributed"))
    for row in target["ladder"]:
        print(f"  {row['stage']:<10} graphs={row['graphs']} breaks={row['graph_breaks']} recompiles={row['recompiles']} median_ms={row['median_ms']}")
    for rank in target.get("ranks", []):
        for stage in rank["stages"]:
            print(f"  rank {rank['rank']} {stage['stage']:<10} ddp_subgraphs={stage.get('ddp_subgraphs')} phases_ms={stage.get('phases_ms')}")
for finding in data["findings"]:
    print(finding["code"], finding["status"], finding["evidence"])
print(data["summary"])
PY
