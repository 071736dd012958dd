//! Differential testing through rustc: a batch of generated programs
//! (`fsmooth_testdata::progen`) is emitted as one crate, compiled once, run on generated
//! inputs, and every result is compared with the reference interpreter: for a kernel with
//! several results, each `outI` and each returned scalar with its component.
//!
//! `cargo test` runs 200 programs, 4 inputs each; the long run (`FSMOOTH_LONG=1`) 1,000:
//! `FSMOOTH_LONG=1 cargo test --release --test rustc_differential -- --nocapture`
//! (`FSMOOTH_DIFF_PROGRAMS` sets the count outright; `FSMOOTH_PROGEN_TYPED=1` adds the
//! generator's typed programs, called with `&[f32]`, `&[usize]`, `&mut [f32]`, .. and
//! compared with a tolerance suited to each result's element type, `Elem::agree`).

#[macro_use]
mod common;
use common::*;
use fsmooth_testdata::progen::{ArgValue, Elem, Inputs, Param, Program, inputs, program};
use std::path::{Path, PathBuf};
use std::process::Command;

const TRIALS: u64 = 4;

fn programs() -> u64 {
    fsmooth_testdata::runs::length("FSMOOTH_DIFF_PROGRAMS", 200, 1000)
}

/// The Rust call of kernel `k` of program `j` on inputs `i` (in scope in the batch's
/// `main`), as LANGUAGE.md section 8 lays it out: a buffer of its element type for each
/// array result (`out`, or `outI` for component I of a tuple, sized by
/// `k::out_len`/`k::outI_len`) passed first, then the arguments in their element types
/// (`&i.a32` for an f32 program's `a`, `&i.ix`), the scalar results returned (one, or a
/// tuple of several). It gives every part of the result, in position order, as f64 values
/// (exact for f32, and for usize up to 2^53).
fn call(j: u64, p: &Program) -> String {
    let args: Vec<String> = p.params.iter().map(Param::rust).collect();
    let args = format!("{}, &mut region", args.join(", "));
    // `mod k`'s functions take the size names some shape depends on (LANGUAGE.md section
    // 10: a `usize` parameter nothing is shaped by is a plain value), as the compiler says.
    let planned = fsmooth_core::plan_block(p.src.parse().unwrap()).unwrap();
    let shaped = &planned[0].0.shape_sizes;
    let sizes: Vec<String> = p
        .size_names()
        .iter()
        .filter(|n| shaped.iter().any(|s| s == *n))
        .map(|n| format!("i.{n}"))
        .collect();
    let sizes = format!("({})", sizes.join(", "));
    let zero = |e: Elem| match e {
        Elem::F64 => "0.0f64",
        Elem::F32 => "0.0f32",
        Elem::Usize => "0usize",
    };
    let widen = |o: &str| format!("{o}.iter().map(|&x| x as f64).collect::<Vec<f64>>()");
    if !p.ret.starts_with('(') {
        let part = &p.parts[0];
        return if part.is_array() {
            format!(
                "{{ let mut o = vec![{}; p{j}::k::out_len{sizes}]; p{j}::k(&mut o, {args}).map(|()| vec![{}]) }}",
                zero(part.elem),
                widen("o")
            )
        } else {
            format!("p{j}::k({args}).map(|v| vec![vec![v as f64]])")
        };
    }
    let (mut outs, mut bufs, mut scalars, mut parts) =
        (String::new(), String::new(), Vec::new(), Vec::new());
    for (k, part) in p.parts.iter().enumerate() {
        if part.is_array() {
            outs += &format!(
                "let mut o{k} = vec![{}; p{j}::k::out{k}_len{sizes}]; ",
                zero(part.elem)
            );
            bufs += &format!("&mut o{k}, ");
            parts.push(widen(&format!("o{k}")));
        } else {
            scalars.push(format!("s{k}"));
            parts.push(format!("vec![s{k} as f64]"));
        }
    }
    let returned = match scalars.as_slice() {
        [] => "()".to_string(),
        [one] => one.clone(),
        more => format!("({})", more.join(", ")),
    };
    format!(
        "{{ {outs}p{j}::k({bufs}{args}).map(|{returned}| vec![{}]) }}",
        parts.join(", ")
    )
}

/// The kernel's arguments on inputs `i` for the interpreter (matrices as rows).
fn values(p: &Program, i: &Inputs) -> Vec<Value> {
    p.params
        .iter()
        .map(|q| match (q.value(i), q.cols(i)) {
            (ArgValue::F64(x), _) => Value::F64(x),
            (ArgValue::F32(x), _) => Value::F32(x),
            (ArgValue::Usize(k), _) => Value::Usize(k),
            (ArgValue::F64s(v), None) => Value::vec(&v),
            (ArgValue::F64s(v), Some(c)) => Value::matrix(&v, c),
            (ArgValue::F32s(v), None) => Value::vec_f32(&v),
            (ArgValue::F32s(v), Some(c)) => Value::matrix_f32(&v, c),
            (ArgValue::Usizes(v), None) => Value::usizes(&v),
            (ArgValue::Usizes(v), Some(c)) => Value::usize_matrix(&v, c),
        })
        .collect()
}

fn write_crate(dir: &Path, count: u64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"fsmooth-diff\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nfsmooth = {{ path = {:?} }}\nfsmooth-testdata = {{ path = {:?} }}\n\n[workspace]\n",
            root,
            root.join("fsmooth-testdata")
        ),
    )
    .unwrap();
    // The workspace's lock file: same dependency versions, nothing to resolve.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut src = String::from(
        "#![allow(unused)]\nuse fsmooth::Region;\nuse fsmooth_testdata::progen::inputs;\n\n",
    );
    for j in 0..count {
        let p = program(j);
        if j % 4 == 3 {
            // Issue 19's shared code through the real macros: the helpers in a `pub mod`
            // block, the kernel importing them (by a path from the crate root, or from
            // the module the block is in).
            let (helpers, kernel) = p.split_blocks(j);
            let from = if j % 8 == 3 {
                format!("crate::p{j}::helpers")
            } else {
                "self::helpers".to_string()
            };
            let kernel = kernel.replace("crate::helpers", &from);
            src += &format!(
                "mod p{j} {{ fsmooth::fsmooth! {{ {kernel} }} fsmooth::fsmooth! {{ {helpers} }} }}\n"
            );
        } else {
            // One in four with its float sums in lanes (compared with the tolerance of
            // `Elem::agree`, as every program is).
            let options = if j % 4 == 1 {
                "#![fsmooth(reassociate = true)]"
            } else {
                ""
            };
            src += &format!(
                "mod p{j} {{ fsmooth::fsmooth! {{ {options} {} }} }}\n",
                p.src
            );
        }
    }
    // Each result as its parts (one per tuple component, in position order), each part's
    // values as hex bits, parts separated by `;`.
    src += "\nfn show(r: Result<Vec<Vec<f64>>, fsmooth::Error>) -> String {\n    match r {\n        \
            Ok(parts) => parts.iter().map(|v| v.iter().map(|x| format!(\"{:016x}\", x.to_bits())).collect::<Vec<_>>().join(\" \")).collect::<Vec<_>>().join(\";\"),\n        \
            Err(e) => format!(\"err {e:?}\"),\n    }\n}\n\nfn main() {\n    let mut region = Region::new();\n";
    for j in 0..count {
        let call = call(j, &program(j));
        src += &format!(
            "    for t in 0..{TRIALS} {{ let i = inputs({j}, t); println!(\"{j} {{t}} {{}}\", show({call})); }}\n"
        );
    }
    src += "}\n";
    std::fs::write(dir.join("src/main.rs"), src).unwrap();
}

#[test]
fn generated_programs_compiled_by_rustc_match_the_interpreter() {
    let count = programs();
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("rustc-differential-{count}"));
    write_crate(&dir, count);
    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the batch crate failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (mut compared, mut both_fail) = (0, 0);
    let mut failures = Vec::new();
    for line in stdout.lines() {
        let mut parts = line.splitn(3, ' ');
        let j: u64 = parts.next().unwrap().parse().unwrap();
        let t: u64 = parts.next().unwrap().parse().unwrap();
        let got = parts.next().unwrap_or("");
        let p = program(j);
        let i = inputs(j, t);
        let want = if j % 4 == 3 {
            // The interpreter, too, runs the kernel block importing the helpers block.
            let (helpers, kernel) = p.split_blocks(j);
            fsmooth_eval::interp::Interp::linked(&kernel, &[("crate::helpers", &helpers)])
                .unwrap()
                .call("k", &values(&p, &i))
                .map(|v| v.parts().iter().map(Value::flatten).collect())
        } else {
            reference_parts(&p.src, "k", &values(&p, &i))
        };
        // A bad index in an index array is checked at entry: the kernel may reject it
        // although the interpreter never reads it (LANGUAGE.md section 10).
        let entry_check = |e: &str| {
            i.bad.is_some_and(|(_, bad)| {
                p.bad_index(&i) && e.starts_with(&format!("Index {{ index: {bad}, "))
            })
        };
        // Each part against the interpreter's component (its whole value for one result),
        // as its element type asks.
        let ok = match (&want, got.strip_prefix("err ")) {
            (Ok(w), None) => {
                let g: Vec<Vec<f64>> = got
                    .split(';')
                    .map(|part| {
                        part.split_whitespace()
                            .map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap()))
                            .collect()
                    })
                    .collect();
                g.len() == w.len()
                    && w.len() == p.parts.len()
                    && g.iter().zip(w).zip(&p.parts).all(|((g, w), part)| {
                        g.len() == w.len() && g.iter().zip(w).all(|(a, b)| part.elem.agree(*a, *b))
                    })
            }
            (Err(_), Some(e)) | (Ok(_), Some(e)) if entry_check(e) => true,
            // Both fail: a `scatter_add` or `reduce_by_index` index past the end (LANGUAGE.md
            // section 15) fails alike, `Error::Index` with the interpreter's index and
            // length; any other error of both is counted too.
            (Err(w), Some(e)) => {
                both_fail += 1;
                match index_error(e) {
                    Some((index, len)) => w.starts_with(&format!(
                        "index {index} out of range for an array of {len} elements"
                    )),
                    None => true,
                }
            }
            // The bad index is read only by code the compiler removed (an unused `let`):
            // the interpreter, which evaluates everything, meets it; the kernel does not.
            (Err(w), None)
                if i.bad.is_some_and(|(_, bad)| {
                    w.starts_with(&format!("index {bad} out of range"))
                }) =>
            {
                true
            }
            _ => false,
        };
        compared += 1;
        if !ok {
            failures.push(format!(
                "program {j}, inputs {t}:\n{}\ncompiled: {got}\ninterpreter: {want:?}",
                p.src
            ));
        }
    }
    println!(
        "{count} programs, {compared} runs compared ({both_fail} failing in both), {} mismatches",
        failures.len()
    );
    assert_eq!(compared as u64, count * TRIALS);
    assert!(
        failures.is_empty(),
        "{} mismatches; first:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n\n")
    );
}

/// The index and length of a compiled kernel's `Error::Index` as `show` prints it
/// (`Index { index: 5, len: 3 }`).
fn index_error(e: &str) -> Option<(usize, usize)> {
    let rest = e.strip_prefix("Index { index: ")?;
    let (index, rest) = rest.split_once(", len: ")?;
    let len = rest.strip_suffix(" }")?;
    Some((index.parse().ok()?, len.parse().ok()?))
}
