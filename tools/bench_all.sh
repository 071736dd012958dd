#!/usr/bin/env bash
# Reproduces docs/BENCHMARKS.md: wall times (criterion), heap use and peak RSS (counting
# allocator, /proc/self/status), instruction counts (callgrind), then the tables and chart.
# Needs valgrind (apt-get install valgrind) and matplotlib (pip install matplotlib).
# Extra arguments go to criterion (for example a group name to run only that group).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
# Wall times: RUNS short criterion runs (default 3), each kept; the tables take the median
# of the runs' medians, since the machine is shared and one run is noisy.
RUNS="${RUNS:-3}"
rm -rf "$CARGO_TARGET_DIR/criterion-runs"
mkdir -p "$CARGO_TARGET_DIR/criterion-runs"
for i in $(seq 1 "$RUNS"); do
    cargo bench --bench kernels -- --warm-up-time 1 --measurement-time 2 "$@"
    cp -r "$CARGO_TARGET_DIR/criterion" "$CARGO_TARGET_DIR/criterion-runs/run$i"
done
cargo bench --bench memory
cargo bench --bench instructions
python3 tools/bench_chart.py "$CARGO_TARGET_DIR" docs/benchmarks.png
