#!/usr/bin/env bash
# benchmarks/speed.py on a quiet lent machine (no registry there), pinned to a few of its cores.
#
#   CORPUS=torch|transformers PART=all|breaklint|peers OUT=/some/dir bash benchmarks/speed_device.sh
#   (also CORES=0-15 for taskset, REPEAT=2, FLOOR_JOBS=1, WARM_JOBS=2: see speed.py --help; NAME and
#   SCRATCH, to run several at once on disjoint cores: the output's name, the corpora's copy)
#
# Why: the development machine has 2 cores shared with other work, so its 2-jobs-vs-1 ratio
# says more about the neighbours than about breaklint. Here every row gets the same, otherwise
# idle cores. The warm and pre-commit rows use 2 jobs (the development machine's cores) and are
# held to cold with 2 jobs; the peers run with every core, beside breaklint with as many. What it needs travels as wheels in .whl/ (ignored by git), made
# on the development machine for the lent one's Python (3.12 there):
#   .whl/bl: breaklint's own wheel (`pip wheel --no-deps -w .whl/bl .`) and libcst 1.9.0
#   .whl/fx: fixit 2.2.1, moreorless, trailrunner, click 8.1.8 (fixit wants click < 8.2), libcst 1.9.0
#   .whl/tf: torchfix 0.7.0, libcst 1.5.1 (it wants < 1.6), flake8, pycodestyle, pyflakes, mccabe
# The corpora are the lent machine's installed torch and transformers packages.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-torch}
cores=${CORES:-0-$(($(nproc) - 1))}
part=${PART:-all}
out=${OUT:-/tmp/speed-out}
name=${NAME:-$corpus-$part}
scratch=${SCRATCH:-/tmp/speed-scratch}
mkdir -p "$out" /tmp/peers
install() { python3 -m pip install -q --no-index --no-deps --no-cache-dir --target "$1" "${@:2}"; }  # with bytecode, as a user has it
[ -d /tmp/bl ] || install /tmp/bl .whl/bl/*.whl
if [ "$part" != breaklint ]; then  # the peers' wheels are needed only where they run
  [ -d /tmp/fx ] || install /tmp/fx .whl/fx/*.whl
  [ -d /tmp/tf ] || install /tmp/tf .whl/tf/*.whl
fi
printf '#!/bin/sh\nPYTHONPATH=/tmp/fx exec python3 -m fixit "$@"\n' > /tmp/peers/fixit
printf '#!/bin/sh\nPYTHONPATH=/tmp/tf exec python3 -m torchfix "$@"\n' > /tmp/peers/torchfix
chmod +x /tmp/peers/fixit /tmp/peers/torchfix
export PYTHONPATH=/tmp/bl PYTHONUNBUFFERED=1
case "$corpus" in
  torch) spec=torch ;;
  *) spec="$corpus=$(python3 -c "import importlib.util as u, os; print(os.path.dirname(u.find_spec('$corpus').origin))")" ;;
esac
cpu=$(python3 -c "import os; print(os.cpu_count())")
taskset -c "$cores" python3 benchmarks/speed.py --corpus "$spec" --repeat "${REPEAT:-2}" --peers /tmp/peers \
  --part "$part" --floor-jobs "${FLOOR_JOBS:-1}" --warm-jobs "${WARM_JOBS:-2}" \
  --scratch "$scratch" --output "$out/speed-$name.md" \
  --note "Run on a lent GPU host's CPUs (${cpu} in all, otherwise idle; cores ${cores}): \`CORPUS=$corpus PART=$part REPEAT=${REPEAT:-2} bash benchmarks/speed_device.sh\`." \
  2>&1 | tee "$out/speed-$name.log"
