//! Where the `memory` and `instructions` benches write their tables.

use std::path::PathBuf;

/// `$CARGO_TARGET_DIR/bench-results` (the target directory found from this executable's path
/// when the variable is unset): `tools/bench_chart.py` reads it.
pub fn dir() -> PathBuf {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) => PathBuf::from(t),
        None => {
            // <target>/<profile>/deps/<this executable>
            let exe = std::env::current_exe().expect("the bench's own path");
            exe.ancestors()
                .nth(3)
                .expect("a target directory")
                .to_path_buf()
        }
    };
    let dir = target.join("bench-results");
    std::fs::create_dir_all(&dir).expect("bench-results directory");
    dir
}

/// Whether cargo runs this target as a benchmark (`cargo bench` passes `--bench`) rather
/// than as a test (`cargo test --benches`: a quick smoke run).
pub fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench")
}
