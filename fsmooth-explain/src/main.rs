//! `fsmooth-explain`: every stage of the fsmooth compiler for the kernels of a Rust file.
//!
//! ```text
//! cargo run -p fsmooth-explain -- FILE.rs [--kernel NAME] [--stage NAME] [--sizes d=2,k=3]
//! ```
//!
//! For each public kernel of each `fsmooth! { .. }` block in the file: the typed core
//! (`core`), the core after each middle pass that changed it (the stage is the pass's name:
//! `tuples`, `propagate`, `inline_single_loads`, `equal`, `fuse`, `fold`, `unroll`, `reuse`,
//! `hoist`, `anf`, `cse`, `inline_single_uses`, `hoist_indexes`; also `interchange`, `scan_outputs`), the loop IR (`lir`), the
//! memory plan (`memory`) and the generated Rust (`rust`). `--remarks` prints only the
//! warnings `#![fsmooth(remarks = true)]` makes the macro give (docs/remarks.md), whether the
//! block has the option or not. `--sizes` evaluates the frame's total at concrete sizes. Errors
//! in the file print as rustc prints them, and the exit status is 1.
//!
//! A block's imports (`use crate::geometry::{scale};`) name blocks declaring that module
//! (`pub mod geometry;`): one of the same file, else one in another `.rs` file of the file's
//! crate (under the `src/`, `examples/`, `tests/` and `benches/` of the nearest directory
//! above it holding a `Cargo.toml`); see [`modules`].

mod memory;
mod modules;
mod source;
mod stages;

use proc_macro2::TokenStream;
use source::Source;
use stages::{Request, STAGES};
use std::process::ExitCode;

const USAGE: &str =
    "usage: fsmooth-explain FILE.rs [--kernel NAME] [--stage NAME | --remarks] [--sizes NAME=N,..]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(text) => {
            eprint!("{text}");
            ExitCode::FAILURE
        }
    }
}

/// The command line: the file, and what to show of it.
fn parse_args(args: &[String]) -> Result<(String, Request), String> {
    let mut file = None;
    let mut request = Request::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("error: `{flag}` needs a value\n{USAGE}\n"))
        };
        match a.as_str() {
            "--kernel" => request.kernel = Some(value(a)?),
            "--remarks" => request.remarks = true,
            "--stage" => {
                let s = value(a)?;
                if !STAGES.contains(&s.as_str()) {
                    return Err(format!(
                        "error: no stage `{s}`; the stages are {}\n",
                        STAGES.join(", ")
                    ));
                }
                request.stage = Some(s);
            }
            "--sizes" => {
                for pair in value(a)?.split(',').filter(|p| !p.is_empty()) {
                    let parsed = pair
                        .split_once('=')
                        .and_then(|(n, v)| Some((n.trim().to_string(), v.trim().parse().ok()?)));
                    match parsed {
                        Some(p) => request.sizes.push(p),
                        None => return Err(format!("error: `{pair}` is not `name=number`\n")),
                    }
                }
            }
            "-h" | "--help" => return Err(format!("{USAGE}\n")),
            f if f.starts_with('-') => {
                return Err(format!("error: unknown option `{f}`\n{USAGE}\n"));
            }
            f if file.is_none() => file = Some(f.to_string()),
            f => return Err(format!("error: a second file `{f}`\n{USAGE}\n")),
        }
    }
    let file = file.ok_or_else(|| format!("{USAGE}\n"))?;
    Ok((file, request))
}

/// The explanation of the file the arguments name, or what went wrong.
fn run(args: &[String]) -> Result<String, String> {
    let (path, request) = parse_args(args)?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("error: cannot read `{path}`: {e}\n"))?;
    let source = Source { path, text };
    let blocks = source.blocks()?;
    if blocks.is_empty() {
        return Err(format!("error: no `fsmooth!` block in `{}`\n", source.path));
    }
    let (mut out, mut errors) = (String::new(), String::new());
    let (mut kernels, mut helpers) = (Vec::new(), Vec::new());
    let modules = modules::modules(&blocks, std::path::Path::new(&source.path));
    let modules: Vec<(&str, TokenStream)> = modules
        .iter()
        .map(|(path, tokens)| (path.as_str(), tokens.clone()))
        .collect();
    for tokens in blocks {
        let e = stages::explain(tokens, &modules, &source, &request);
        out.push_str(&e.text);
        errors.push_str(&e.errors);
        kernels.extend(e.kernels);
        helpers.extend(e.helpers);
    }
    if let Some(name) = &request.kernel
        && !kernels.contains(name)
        && errors.is_empty()
    {
        let why = if helpers.contains(name) {
            format!("`{name}` is a helper (not `pub`): it is inlined into the kernels that call it")
        } else {
            format!("no kernel `{name}`")
        };
        return Err(format!(
            "error: {why}; the kernels are {}\n",
            kernels.join(", ")
        ));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        // What could be explained, then the errors.
        print!("{out}");
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::run;

    #[test]
    fn a_kernel_whose_block_imports_from_another_block_of_the_file() {
        let dir = std::env::temp_dir().join(format!("fsmooth-explain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("two_blocks.rs");
        std::fs::write(
            &file,
            "fsmooth! { pub mod geo; fn sq(x: f64) -> f64 { x * x } }\n\
             mod user { fsmooth::fsmooth! { use crate::geo::sq; pub fn k(a: [f64; n]) -> f64 { sum(map(a, |x| sq(x))) } } }\n",
        )
        .unwrap();
        let args: Vec<String> = [file.to_str().unwrap(), "--kernel", "k", "--stage", "core"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = run(&args).unwrap();
        // The imported helper is inlined: its multiplication is in the kernel's core.
        assert!(out.contains("=== k: core"), "{out}");
        assert!(out.contains(" * x_"), "{out}");
        // An import from a block the file does not have is an error, on the import.
        std::fs::write(
            &file,
            "fsmooth! { use crate::geo::sq; pub fn k(a: [f64; n]) -> f64 { sum(a) } }\n",
        )
        .unwrap();
        let err = run(&args).unwrap_err();
        assert!(err.contains("no block is module `crate::geo`"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_kernel_whose_block_imports_from_another_file_of_its_crate() {
        // A crate of two files: the kernel in src/lib.rs, the module's block in
        // src/geometry.rs.
        let dir = std::env::temp_dir().join(format!("fsmooth-explain-c-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"user\"\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        let lib = src.join("lib.rs");
        std::fs::write(
            &lib,
            "mod geometry;\n\
             fsmooth::fsmooth! { use crate::geometry::scale; pub fn k(a: [f64; n]) -> f64 { sum(map(a, |x| scale(x))) } }\n",
        )
        .unwrap();
        std::fs::write(
            src.join("geometry.rs"),
            "fsmooth::fsmooth! { pub mod geometry; pub fn scale(x: f64) -> f64 { x * 2.5 } }\n",
        )
        .unwrap();
        let args: Vec<String> = [lib.to_str().unwrap(), "--kernel", "k", "--stage", "core"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = run(&args).unwrap();
        // The helper of the other file is inlined: its multiplication is in the kernel's core.
        assert!(out.contains("=== k: core"), "{out}");
        assert!(out.contains(" * 2.5"), "{out}");
        // A block of the file itself that declares the module wins over the other file's.
        std::fs::write(
            &lib,
            "fsmooth::fsmooth! { pub mod geometry; pub fn scale(x: f64) -> f64 { x * 4.5 } }\n\
             mod user { fsmooth::fsmooth! { use crate::geometry::scale; pub fn k(a: [f64; n]) -> f64 { sum(map(a, |x| scale(x))) } } }\n",
        )
        .unwrap();
        let out = run(&args).unwrap();
        assert!(out.contains(" * 4.5") && !out.contains(" * 2.5"), "{out}");
        // A module no file of the crate declares is still an error, on the import.
        std::fs::write(
            &lib,
            "fsmooth::fsmooth! { use crate::shapes::scale; pub fn k(a: [f64; n]) -> f64 { sum(a) } }\n",
        )
        .unwrap();
        let err = run(&args).unwrap_err();
        assert!(err.contains("no block is module `crate::shapes`"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_kernel_with_a_derivative_shows_its_tangent_program() {
        let dir = std::env::temp_dir().join(format!("fsmooth-explain-d-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("derivative.rs");
        std::fs::write(
            &file,
            "fsmooth! { pub fn d(x: f64, t: f64) -> (f64, f64) { jvp(|v| v.sin() * v, x, t) } }\n",
        )
        .unwrap();
        let args: Vec<String> = [file.to_str().unwrap(), "--kernel", "d", "--stage", "core"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = run(&args).unwrap();
        // The tangent of sin is cos: the forward transformation is in the core.
        assert!(
            out.contains("=== d: core") && out.contains(".cos()"),
            "{out}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stage_that_changed_nothing_says_so() {
        let dir = std::env::temp_dir().join(format!("fsmooth-explain-u-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("plain.rs");
        std::fs::write(
            &file,
            "fsmooth! { pub fn k(a: [f64; n]) -> f64 { sum(a) } }\n",
        )
        .unwrap();
        let args: Vec<String> = [file.to_str().unwrap(), "--kernel", "k", "--stage", "share"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let out = run(&args).unwrap();
        assert!(
            out.contains("=== k: `share` ===") && out.contains("changed nothing"),
            "{out}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
