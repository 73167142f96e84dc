#!/usr/bin/env bash
# One self-contained GPU check for kernels/ (for a borrowed GPU machine; ~6 minutes on 16 cores):
# configures a fresh CUDA build (-DFLOORSIM_CUDA=ON: nvcc, sm_90 + compute_90 PTX), builds only
# test_kernels and bench_kernels, runs the CUDA-vs-CPU equality tests (printing the max
# difference) and the benchmark (scenarios/s for 1, 2, all CPU threads and the GPU, GPU/CPU
# ratio, bytes per scenario against the memory bandwidth, GPU-vs-CPU max difference).
# usage: bash bench/gpu_check.sh [build_dir=build-gpucheck] [gpu_scenarios=262144]
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-gpucheck}"
gpu_b="${2:-262144}"
jobs="$(nproc)"
echo "== gpu_check: $(date -u +%FT%TZ), $(nproc) cores"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
t0=$(date +%s)
rm -rf "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFLOORSIM_CUDA=ON > "$build.configure.log" 2>&1 \
  || { tail -30 "$build.configure.log"; echo "gpu_check: configure FAILED"; exit 2; }
cmake --build "$build" --target test_kernels bench_kernels -j "$jobs" > "$build.build.log" 2>&1 \
  || { grep -E "error|Error" "$build.build.log" | head -30; echo "gpu_check: build FAILED"; exit 2; }
echo "== built in $(( $(date +%s) - t0 )) s"

status=0
echo "== CUDA vs CPU equality (tests tagged [cuda]; WARN lines carry the max difference)"
"$build/tests/test_kernels" "[cuda]" -s 2>&1 | grep -E "max relative difference|passed|failed|FAILED|warning|no GPU" | head -20
"$build/tests/test_kernels" "[cuda]" > /dev/null 2>&1 || { echo "gpu_check: CUDA equality tests FAILED"; status=1; }
echo "== all kernels tests (CPU + GPU)"
"$build/tests/test_kernels" 2>&1 | tail -2 || status=1
echo "== bench_kernels 4096 $gpu_b"
timeout 300 "$build/bench/bench_kernels" 4096 "$gpu_b" || { echo "gpu_check: bench FAILED or timed out"; status=1; }
echo "== gpu_check finished in $(( $(date +%s) - t0 )) s, status $status"
exit $status
