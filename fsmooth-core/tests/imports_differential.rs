//! Imports change nothing: every generated program, written as two blocks (its helpers in a
//! `pub mod helpers;` block, the kernel importing them, [`Program::split_blocks`]), compiles
//! to exactly the kernel its one-block form compiles to, under every block option. The
//! importing block is linked to the helpers' source as the macro's expansion links it
//! (`fsmooth_core::pipeline::compile_with`); the rustc differential compiles some programs
//! through the real macros (`tests/rustc_differential.rs`).
//!
//! `FSMOOTH_IMPORT_PROGRAMS` sets how many programs (150 by default).

use fsmooth_core::pipeline::compile_with;
use fsmooth_testdata::progen::program;

const OPTIONS: [&str; 3] = [
    "",
    "#![fsmooth(fusion = false)]",
    "#![fsmooth(unroll = false, storage = \"heap_frame\")]",
];

#[test]
fn a_program_split_in_two_blocks_compiles_to_the_same_kernel() {
    let count: u64 = std::env::var("FSMOOTH_IMPORT_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let mut with_helpers = 0;
    for seed in 0..count {
        let p = program(seed);
        let (helpers, kernel) = p.split_blocks(seed);
        if p.src.contains("fn h0") {
            with_helpers += 1;
        }
        for options in OPTIONS {
            let one = fsmooth_core::expand(format!("{options}\n{}", p.src).parse().unwrap());
            let two = compile_with(
                format!("{options}\n{kernel}").parse().unwrap(),
                &[("crate::helpers", helpers.parse().unwrap())],
            );
            // The kernel, before the hidden items that report unused names (the one-block
            // program's unused helpers are unused imports in the two-block one).
            let kernel_of = |out: proc_macro2::TokenStream| {
                let text = out.to_string();
                text.split("const _ : () =")
                    .next()
                    .unwrap_or("")
                    .to_string()
            };
            assert_eq!(
                kernel_of(one),
                kernel_of(two),
                "program {seed} with `{options}`:\n{helpers}\n{kernel}"
            );
        }
    }
    // The generator writes helpers besides `twice` into about 45% of programs.
    assert!(with_helpers * 3 > count, "{with_helpers} of {count}");
}

#[test]
fn the_helpers_block_alone_compiles_its_kernels_into_its_module() {
    let (helpers, _) = program(3).split_blocks(3);
    let out = fsmooth_core::expand(helpers.parse().unwrap()).to_string();
    assert!(out.starts_with("pub mod helpers {"), "{out}");
    assert!(
        out.contains("macro_rules ! __fsmooth_src_helpers_"),
        "{out}"
    );
    assert!(out.contains("pub use __fsmooth_src_helpers_"), "{out}");
}
