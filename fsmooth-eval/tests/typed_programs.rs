//! The generator's typed programs (`fsmooth_testdata::progen` with `Config { typed: true }`:
//! f32 kernels, index arrays, usize arrays, casts, the math methods of version 2) run in the
//! reference interpreter on their inputs: every run gives results of the element types and
//! lengths the program declares, and only a run with a bad index in an index array the
//! kernel takes fails, with an index out of range. The interpreter checks every operation's
//! types as it goes (an f32 meeting an f64 is an error), so this also checks that the
//! generator writes programs whose floats agree.

use fsmooth_eval::interp::{Interp, Value};
use fsmooth_testdata::progen::{ArgValue, Config, Elem, Inputs, Program, inputs, program_with};

/// The prelude's functions generic in the element type (LANGUAGE.md section 11), as block
/// functions (which shadow the prelude's): until the prelude itself is generic, an f32
/// program runs with these.
fn generic_prelude() -> String {
    let prelude = fsmooth_core::front::check::PRELUDE;
    if prelude.contains("fn add(a: [T; n]") {
        return String::new();
    }
    let start = prelude.find("fn add(").expect("the prelude defines add");
    prelude[start..].replace("f64", "T")
}

/// The kernel's arguments on inputs `i`, as the interpreter takes them.
fn values(p: &Program, i: &Inputs) -> Vec<Value> {
    p.params
        .iter()
        .map(|q| {
            let cols = q.cols(i);
            match (q.value(i), cols) {
                (ArgValue::F64(x), _) => Value::F64(x),
                (ArgValue::F32(x), _) => Value::F32(x),
                (ArgValue::Usize(k), _) => Value::Usize(k),
                (ArgValue::F64s(v), None) => Value::vec(&v),
                (ArgValue::F64s(v), Some(c)) => Value::matrix(&v, c),
                (ArgValue::F32s(v), None) => Value::vec_f32(&v),
                (ArgValue::F32s(v), Some(c)) => Value::matrix_f32(&v, c),
                (ArgValue::Usizes(v), None) => Value::usizes(&v),
                (ArgValue::Usizes(v), Some(c)) => Value::usize_matrix(&v, c),
            }
        })
        .collect()
}

/// Is every scalar in `v` of element type `e`?
fn all_of(v: &Value, e: Elem) -> bool {
    match (v, e) {
        (Value::F64(_), Elem::F64)
        | (Value::F32(_), Elem::F32)
        | (Value::Usize(_), Elem::Usize) => true,
        (Value::Array(xs), _) => xs.iter().all(|x| all_of(x, e)),
        _ => false,
    }
}

#[test]
fn typed_programs_run_in_the_interpreter() {
    let count = fsmooth_testdata::runs::length("FSMOOTH_TYPED_PROGRAMS", 300, 5000);
    let (mut runs, mut bad_runs, mut failed_bad) = (0, 0, 0);
    let mut failures = Vec::new();
    for j in 0..count {
        let p = program_with(j, Config { typed: true });
        let src = if p.fl == Elem::F32 {
            format!("{}\n{}", generic_prelude(), p.src)
        } else {
            p.src.clone()
        };
        let interp = match Interp::new(&src) {
            Ok(i) => i,
            Err(e) => {
                failures.push(format!("program {j} does not parse: {e}\n{}", p.src));
                continue;
            }
        };
        for t in 0..4 {
            let i = inputs(j, t);
            runs += 1;
            bad_runs += usize::from(p.bad_index(&i));
            match interp.call("k", &values(&p, &i)) {
                Ok(v) => {
                    let parts = v.parts();
                    let lens = p.out_lens(&i);
                    let arrays: Vec<&Value> = parts
                        .iter()
                        .filter(|x| matches!(x, Value::Array(_)))
                        .collect();
                    let ok = parts.len() == p.parts.len()
                        && parts.iter().zip(&p.parts).all(|(x, part)| {
                            all_of(x, part.elem) && matches!(x, Value::Array(_)) == part.is_array()
                        })
                        && arrays.len() == lens.len()
                        && arrays
                            .iter()
                            .zip(&lens)
                            .all(|(x, n)| x.flatten().len() == *n);
                    if !ok {
                        failures.push(format!(
                            "program {j}, inputs {t}: {v:?} is not {}\n{}",
                            p.ret, p.src
                        ));
                    }
                }
                // A bad index in an index array, or a scatter's index past the end (LANGUAGE.md
                // section 15: `Error::Index` by design).
                Err(e) if (p.bad_index(&i) || p.scatter_body) && e.contains("out of range") => {
                    failed_bad += 1
                }
                Err(e) => failures.push(format!("program {j}, inputs {t}: {e}\n{}", p.src)),
            }
        }
    }
    println!(
        "{count} typed programs, {runs} runs, {bad_runs} with a bad index ({failed_bad} failing)"
    );
    assert!(
        failures.is_empty(),
        "{} failures; first:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n\n")
    );
    assert!(bad_runs > 0 && failed_bad > 0);
}
