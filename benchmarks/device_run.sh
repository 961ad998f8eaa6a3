#!/usr/bin/env bash
# The GPU session, as one script: the engine benchmark and the paper profile at the paper's step counts.
#
#   SIZE=paper  on a CUDA machine: the GPU smoke test, then the capacity sweep on real text (text_rank: the
#               students the CPU has not trained yet; TEXT_RANK_LIMIT), Table 3 and the App. B grid at the GPU
#               budget through the store on a LocalCluster; results packed per stage into $OUT
#   SIZE=tiny   the same stages at the tiny profile, on a CPU, in a minute: a check of this script
#
# Every stage has its own time limit and packs what it stored as soon as it ends, so a stage that runs
# out of time loses only itself. Run from the project root; needs the project's lib/ and dask.
set -uo pipefail
SIZE=${SIZE:-tiny}
WORKERS=${WORKERS:-12}
OUT=${OUT:-/tmp/device-out}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/lib${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
[ "$SIZE" = paper ] && PROFILE=paper || PROFILE=tiny
PY=${PY:-python3}
RESULTS=${ENTROPIC_RESULTS:-results}

stage() {  # stage NAME LIMIT_SECONDS SECTIONS... -- COMMAND...
  local name=$1 limit=$2; shift 2
  local sections=()
  while [ "$1" != "--" ]; do sections+=("$1"); shift; done
  shift
  local start=$SECONDS
  echo "=== $name (limit ${limit} s): $*"
  timeout --signal=INT --kill-after=20 "$limit" "$@" 2>&1 | tail -n 40
  local rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc after $((SECONDS - start)) s"
  for s in "${sections[@]}"; do
    [ -d "$RESULTS/$PROFILE/$s" ] && tar czf "$OUT/$PROFILE-$s.tgz" -C "$RESULTS" "$PROFILE/$s"
  done
  return 0
}

echo "=== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
$PY -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.cuda.is_available())"

if [ "$SIZE" = paper ]; then
  # CUDA MPS lets the workers' small kernels share the GPU at once instead of taking turns; used only if
  # it starts and a CUDA program runs under it within 30 s.
  if command -v nvidia-cuda-mps-control >/dev/null && nvidia-cuda-mps-control -d; then
    if timeout 30 $PY -c "import torch; torch.ones(1, device='cuda'); print('MPS: on')"; then :; else
      echo quit | nvidia-cuda-mps-control; echo "MPS: off (a CUDA program did not run under it)"; fi
  else
    echo "MPS: not available"
  fi
  stage smoke 90 -- $PY -m pytest -q -p no:cacheprovider tests/engine/test_gpu.py
  stage text_rank ${TEXT_RANK_LIMIT:-400} text_rank -- \
    $PY -m entropic run text_rank --profile paper --no-book --quiet --cluster "local:$WORKERS"
  stage table3 ${TABLE3_LIMIT:-200} attention_native -- \
    $PY benchmarks/bench_engine.py --grid --workers "$WORKERS" --steps 20
  cp benchmarks/RESULTS.md "$OUT/RESULTS.md"
  stage appendix_b ${APPB_LIMIT:-230} real_corpora -- \
    $PY -m entropic run real_corpora --profile paper --no-book --quiet --only '*-15.36M' --cluster "local:$WORKERS"
else
  stage smoke 120 -- $PY -m pytest -q -p no:cacheprovider tests/engine/test_gpu.py
  stage table3 300 attention_native -- \
    $PY -m entropic run attention_native --profile tiny --no-book --quiet --cluster "local:$WORKERS"
  stage bench 120 -- $PY benchmarks/bench_engine.py --n 64 --r-stars 1 --steps 2 --no-write
  stage appendix_b 300 real_corpora -- \
    $PY -m entropic run real_corpora --profile tiny --no-book --quiet --cluster "local:$WORKERS"
  stage text_rank 300 text_rank -- \
    $PY -m entropic run text_rank --profile tiny --no-book --quiet --cluster "local:$WORKERS"
fi
ls -la "$OUT"
