#!/usr/bin/env bash
# Reproduces docs/BENCHMARKS.md: wall times (criterion), heap use and peak RSS (counting
# allocator, /proc/self/status), instruction counts (callgrind), then the tables and chart.
# Needs valgrind (apt-get install valgrind) and matplotlib (pip install matplotlib).
# Extra arguments go to criterion (for example a group name to run only that group).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo bench --bench kernels -- --warm-up-time 1 --measurement-time 2 "$@"
cargo bench --bench memory
cargo bench --bench instructions
python3 tools/bench_chart.py "$CARGO_TARGET_DIR" docs/benchmarks.png
