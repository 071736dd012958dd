//! A digest of the code the compiler generates for the first generated programs, to show
//! that a change which claims to move code around leaves every expansion as it was.
//!
//! `cargo test --release -p fsmooth-core --test planned_digest -- --ignored --nocapture`
//! prints one hash over the expansions of programs 0 to `FSMOOTH_DIGEST_PROGRAMS` (3,000 by
//! default), each compiled as the default compiles it and with the block options
//! `exec_differential` cycles through. Run it before and after a refactor and compare. The
//! programs are the generator's untyped ones (`Config { typed: false }`), whatever
//! `FSMOOTH_PROGEN_TYPED` says, so that the digest does not move when typed programs are
//! switched on.

use fsmooth_testdata::progen::{Config, program_with};
use std::hash::{DefaultHasher, Hash, Hasher};

const OPTIONS: [&str; 4] = [
    "",
    "#![fsmooth(fusion = false)]",
    "#![fsmooth(storage = \"heap\")]",
    "#![fsmooth(unroll = false, storage = \"heap_frame\")]",
];

#[test]
#[ignore = "a tool: prints a digest to compare before and after a refactor"]
fn digest_of_generated_code() {
    let count: u64 = std::env::var("FSMOOTH_DIGEST_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut all = DefaultHasher::new();
    for j in 0..count {
        let p = program_with(j, Config { typed: false });
        for options in OPTIONS {
            let src = format!("{options}\n{}", p.src);
            let code = fsmooth_core::expand(src.parse().unwrap()).to_string();
            code.hash(&mut all);
        }
    }
    println!(
        "digest of {count} programs x {} options: {:016x}",
        OPTIONS.len(),
        all.finish()
    );
}
