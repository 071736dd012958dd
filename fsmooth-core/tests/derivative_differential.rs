//! Derivatives of generated programs (LANGUAGE.md section 12) in the loop-IR executor,
//! against the reference interpreter's.

mod shared;

use fsmooth_eval::exec::call;
use fsmooth_eval::interp::Interp;
use fsmooth_testdata::progen::{ArgValue, Elem, inputs, program};
use shared::{env, program_args, program_values, same_at_scale, same_results};

/// Forward mode on generated programs (LANGUAGE.md section 12), typed ones (f32, index
/// arrays) included: a kernel `dk` returns the value and the derivative of program `k` along
/// random tangents of its float arguments (`jvp` of a closure holding the `usize` ones
/// constant), flattened; the executor runs it and
/// the interpreter's dual numbers are the reference, each part to its element type's
/// tolerance, judged as the Jacobians' runs are ([`Tally`]: a NaN where the interpreter
/// gives a finite value, an infinite partial times a tangent zero only at run time, is
/// counted, not failed; program 18983 of 20,000). `FSMOOTH_JVP_PROGRAMS` sets the count
/// (300 by default).
#[test]
fn generated_programs_differentiated_in_forward_mode_match_the_interpreter() {
    let count = env("FSMOOTH_JVP_PROGRAMS", 300);
    let mut tally = Tally::default();
    for j in 0..count {
        let Some((p, floats, sig, all)) = differentiable_program(j) else {
            continue;
        };
        let tangent_params = float_signature(&sig, &floats, "d");
        let k = p.parts.len();
        let flat: Vec<String> = if k == 1 {
            vec!["v".into(), "d".into()]
        } else {
            (0..k)
                .map(|c| format!("v.{c}"))
                .chain((0..k).map(|c| format!("d.{c}")))
                .collect()
        };
        let ret = if k == 1 {
            format!("({}, {})", p.ret, p.ret)
        } else {
            let inner = &p.ret[1..p.ret.len() - 1];
            format!("({inner}, {inner})")
        };
        let src = format!(
            "{}\npub fn dk({}, {}) -> {ret} {{ let (v, d) = jvp(|{}| k({}), ({}), ({})); ({}) }}",
            p.src,
            sig.join(", "),
            tangent_params.join(", "),
            floats.join(", "),
            all.join(", "),
            floats.join(", "),
            floats
                .iter()
                .map(|f| format!("d{f}"))
                .collect::<Vec<_>>()
                .join(", "),
            flat.join(", ")
        );
        let Some(planned) = planned_block(&src, j, &mut tally.failures) else {
            continue;
        };
        let Some((kernel, plan)) = planned.iter().find(|(k, _)| k.name.text == "dk") else {
            tally.failures.push(format!("program {j}: no kernel dk"));
            continue;
        };
        let interp = Interp::new(&src).unwrap();
        let mut parts = p.parts.clone();
        parts.extend(p.parts.clone());
        // A tangent computed through f32 intermediates differs by f32 roundings with the
        // order of its operations: compared as f32.
        let f32_program = p.src.contains("f32");
        if f32_program {
            parts.iter_mut().for_each(|part| part.elem = Elem::F32);
        }
        for t in 0..2 {
            let i = inputs(j, t);
            let dirs = directions(j, t, &mut fsmooth_testdata::Rng::new(j * 31 + t));
            let mut args = program_args(&p, &i);
            let mut values = program_values(&p, &i);
            push_tangents(&p, &floats, &dirs, "d", &mut args, &mut values);
            let names = fsmooth_core::emit::results(&kernel.ret).arrays;
            let mut lens = p.out_lens(&i);
            lens.extend(p.out_lens(&i));
            let outs: Vec<(&str, usize)> =
                names.iter().map(|(n, _)| n.as_str()).zip(lens).collect();
            let want = interp.call("dk", &values);
            let got = call(&plan.func, &args, &outs);
            tally.judge(&got, &want, &parts, f32_program, || {
                format!("program {j}, inputs {t}:\n{src}")
            });
        }
    }
    tally.report(count);
}

/// A Jacobian by columns of generated programs: a kernel `jk` computes program `k`'s
/// derivative along two random directions, `build(2, |col| jvp(.., if col == 0 { d } else {
/// e }).1)`, with `unroll = false`, so the loop over the directions stays a loop and
/// `hoist` shares with both columns what does not depend on the direction (the value's
/// `let`s, the primal half of forward mode's tuple-valued `if`s, the float arithmetic
/// heading a branch). The executor runs it against the interpreter, each column to the
/// element type's tolerance. Programs with one result. `FSMOOTH_JVP_PROGRAMS` sets the count
/// (300 by default).
#[test]
fn generated_programs_differentiated_by_columns_match_the_interpreter() {
    let count = env("FSMOOTH_JVP_PROGRAMS", 300);
    let mut tally = Tally::default();
    for j in 0..count {
        columns_match(j, &mut tally);
    }
    tally.report(count);
}

/// Generated program 2462, whose Jacobian by columns found a stream starting at a name
/// bound twice: a `build`'s index bound by a `let` in its peeled ends, then the index of
/// the same build interchanged, taken for a `let` bound before its loop
/// (`Dps::lets_before`). The executor faulted on the name out of scope.
#[test]
fn program_2462_by_columns_matches_the_interpreter() {
    let mut tally = Tally::default();
    columns_match(2462, &mut tally);
    tally.report(2463);
}

/// Program `j`'s Jacobian by two `jvp` columns against the interpreter, into `tally`.
fn columns_match(j: u64, tally: &mut Tally) {
    let Some((p, floats, sig, all)) = differentiable_program(j) else {
        return;
    };
    if p.parts.len() != 1 || floats.is_empty() {
        return;
    }
    let directions_of = |prefix: &str| float_signature(&sig, &floats, prefix);
    let chosen: Vec<String> = floats
        .iter()
        .map(|f| format!("if col == 0 {{ d{f} }} else {{ e{f} }}"))
        .collect();
    let src = format!(
        "#![fsmooth(unroll = false)]\n{}\npub fn jk({}, {}, {}) -> [{}; 2] {{ build(2, |col| jvp(|{}| k({}), ({}), ({})).1) }}",
        p.src,
        sig.join(", "),
        directions_of("d").join(", "),
        directions_of("e").join(", "),
        p.ret,
        floats.join(", "),
        all.join(", "),
        floats.join(", "),
        chosen.join(", "),
    );
    if std::env::var_os("FSMOOTH_JVP_TRACE").is_some() {
        // Which program a crash (a stack overflow) happened in.
        eprintln!("program {j}\n{src}");
    }
    let Some(planned) = planned_block(&src, j, &mut tally.failures) else {
        return;
    };
    let Some((_, plan)) = planned.iter().find(|(k, _)| k.name.text == "jk") else {
        tally.failures.push(format!("program {j}: no kernel jk"));
        return;
    };
    let interp = Interp::new(&src).unwrap();
    let mut column = p.parts[0].clone();
    column.dims.insert(0, fsmooth_testdata::progen::D::Two);
    let f32_program = p.src.contains("f32");
    if f32_program {
        column.elem = Elem::F32;
    }
    let parts = [column];
    for t in 0..2 {
        let i = inputs(j, t);
        let mut args = program_args(&p, &i);
        let mut values = program_values(&p, &i);
        for (prefix, seed) in [("d", 31), ("e", 37)] {
            let dirs = directions(j, t, &mut fsmooth_testdata::Rng::new(j * seed + t));
            push_tangents(&p, &floats, &dirs, prefix, &mut args, &mut values);
        }
        let outs = [("out", parts[0].len(&i))];
        let want = interp.call("jk", &values);
        let got = call(&plan.func, &args, &outs);
        tally.judge(&got, &want, &parts, f32_program, || {
            format!("program {j}, inputs {t}:\n{src}")
        });
    }
}

/// A Jacobian by rows of generated programs: a kernel `rk` computes the `vjp` of program
/// `k` for two random seeds, `build(2, |row| vjp(.., if row == 0 { s } else { e }).1)` (the
/// gradient by the first float argument), with `unroll = false`, so the loop over the seeds
/// stays a loop and `hoist` shares with both rows what does not depend on the seed (the
/// value's `let`s). The executor runs it against the interpreter. Programs with one result.
/// `FSMOOTH_VJP_PROGRAMS` sets the count (150 by default).
#[test]
fn generated_programs_differentiated_by_rows_match_the_interpreter() {
    use fsmooth_testdata::progen::{D, Part};
    let count = env("FSMOOTH_VJP_PROGRAMS", 150);
    let mut tally = Tally::default();
    for j in 0..count {
        let Some((p, floats, sig, all)) = differentiable_program(j) else {
            continue;
        };
        // Reverse mode refuses a float `iterate` and a `reduce_by_index` other than a
        // scalar addition (LANGUAGE.md sections 14 and 15). A kernel whose body is a
        // scatter with indexes past the end fails in the interpreter, but `rk` reads only
        // the gradient, which may not need the scatter's indexes (a value that does not
        // depend on the argument): the compiled code drops it.
        if p.parts.len() != 1 || floats.is_empty() || !p.reverse || p.scatter_body {
            continue;
        }
        // The first float argument, its type as written and its shape.
        let by = p.params.iter().find(|q| q.name == floats[0]).unwrap();
        let by_ty = float_signature(&sig, &floats[..1], "")[0]
            .split_once(": ")
            .unwrap()
            .1
            .to_string();
        let dims = match by.name {
            "a" => vec![D::N],
            "b" => vec![D::M],
            "c" => vec![D::N, D::M],
            _ => vec![],
        };
        let src = format!(
            "#![fsmooth(unroll = false)]\n{}\npub fn rk({}, s0: {ret}, e0: {ret}) -> [{by_ty}; 2] {{ build(2, |row| vjp(|{}| k({}), ({}), if row == 0 {{ s0 }} else {{ e0 }}).1) }}",
            p.src,
            sig.join(", "),
            floats.join(", "),
            all.join(", "),
            floats.join(", "),
            ret = p.ret,
        );
        if std::env::var_os("FSMOOTH_VJP_TRACE").is_some() {
            eprintln!("program {j}:\n{src}");
        }
        let Some(planned) = planned_block(&src, j, &mut tally.failures) else {
            continue;
        };
        let Some((_, plan)) = planned.iter().find(|(k, _)| k.name.text == "rk") else {
            tally.failures.push(format!("program {j}: no kernel rk"));
            continue;
        };
        let interp = Interp::new(&src).unwrap();
        let f32_program = p.src.contains("f32");
        let mut rows = Part {
            dims: std::iter::once(D::Two).chain(dims).collect(),
            elem: by.elem,
        };
        if f32_program {
            rows.elem = Elem::F32;
        }
        let parts = [rows];
        let i = inputs(j, 0);
        let (mut args, mut values) = (program_args(&p, &i), program_values(&p, &i));
        let part = &p.parts[0];
        let n = if part.is_array() { part.len(&i) } else { 1 };
        let cols = part.dims.last().map_or(1, |d| d.eval(&i));
        let mut rng = fsmooth_testdata::Rng::new(j * 41 + 5);
        for name in ["s0", "e0"] {
            let v: Vec<f64> = (0..n).map(|_| 2.0 * rng.f64() - 1.0).collect();
            let v: Vec<f64> = if part.elem == Elem::F32 {
                v.iter().map(|x| f64::from(*x as f32)).collect()
            } else {
                v
            };
            let (arg, value) = seed_arg(part, &v, cols);
            args.push((name, arg));
            values.push(value);
        }
        let outs = [("out", parts[0].len(&i))];
        let want = interp.call("rk", &values);
        let got = call(&plan.func, &args, &outs);
        tally.judge(&got, &want, &parts, f32_program, || {
            format!("program {j}:\n{src}")
        });
    }
    tally.report(count);
}

/// The verdicts of a derivative test (forward mode, Jacobians by columns or by rows) on its
/// runs.
#[derive(Default)]
struct Tally {
    runs: u32,
    /// Runs whose reference value is not finite.
    skipped: u32,
    /// Runs with NaN or infinities where the interpreter's values are finite: a zero tangent
    /// or adjoint times an infinite partial (an empty `logsumexp`'s -inf times the tangent of
    /// an empty sum, zero only at run time): the interpreter gives 0, the compiled code NaN
    /// (docs/derivatives.md).
    infinite: u32,
    failures: Vec<String>,
}

impl Tally {
    /// One run: the executor's `got` against the interpreter's `want`, each part to its
    /// element type's tolerance (f32 programs also at the part's scale); `what` names the
    /// run in a failure.
    fn judge(
        &mut self,
        got: &Result<Result<fsmooth_eval::exec::Outputs, String>, fsmooth_eval::exec::Fault>,
        want: &Result<fsmooth_eval::interp::Value, String>,
        parts: &[fsmooth_testdata::progen::Part],
        f32_program: bool,
        what: impl FnOnce() -> String,
    ) {
        self.runs += 1;
        let ok = match (got, want) {
            (Ok(Ok(g)), Ok(w)) => {
                same_results(g, w, parts) || (f32_program && same_at_scale(g, w, parts))
            }
            (Ok(Err(_)), Err(_)) => true,
            _ => false,
        };
        if ok {
            return;
        }
        if matches!(want, Ok(w) if w.flatten().iter().any(|x| !x.is_finite())) {
            self.skipped += 1;
        } else if let (Ok(Ok(g)), Ok(w)) = (got, want)
            && infinite_where_finite(g, w)
        {
            self.infinite += 1;
        } else {
            self.failures.push(format!(
                "{}\nexecutor: {got:?}\ninterpreter: {want:?}",
                what()
            ));
        }
    }

    /// The counts, and a failure unless every run agreed.
    fn report(self, count: u64) {
        println!(
            "{count} programs, {} runs ({} non-finite, {} infinite where the interpreter's are finite), {} mismatches or faults",
            self.runs,
            self.skipped,
            self.infinite,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{} mismatches or faults; first:\n{}",
            self.failures.len(),
            self.failures[..self.failures.len().min(3)].join("\n\n")
        );
    }
}

/// The kernels of `src` (program `j`'s block), planned; `None` with a failure recorded
/// when it does not compile.
fn planned_block(
    src: &str,
    j: u64,
    failures: &mut Vec<String>,
) -> Option<
    Vec<(
        fsmooth_core::middle::ir::Kernel,
        fsmooth_core::lower::Planned,
    )>,
> {
    match fsmooth_core::plan_block(src.parse().unwrap()) {
        Ok(planned) => Some(planned),
        Err(e) => {
            failures.push(format!("program {j} does not compile: {e}\n{src}"));
            None
        }
    }
}

/// The flat floats of an executor's outputs: the arrays in order, then the scalars.
fn flat(o: &fsmooth_eval::exec::Outputs) -> (Vec<Vec<f64>>, Vec<f64>) {
    let scalars = o
        .scalars
        .iter()
        .map(|s| match s {
            fsmooth_eval::exec::Scalar::F64(x) => *x,
            fsmooth_eval::exec::Scalar::F32(x) => f64::from(*x),
            fsmooth_eval::exec::Scalar::Usize(k) => *k as f64,
            fsmooth_eval::exec::Scalar::Bool(b) => f64::from(u8::from(*b)),
        })
        .collect();
    (o.arrays.clone(), scalars)
}

/// Marks of the planned code the reverse sweeps reach, counted over the programs: an adjoint
/// row added to a row in the frame (`St::AddWithin`), a running index, an in-place add, a
/// sum into one row of an adjoint (reverse mode's `pass_rows_into`, `accumulate`'s row
/// increments).
const REACH_MARKS: [&str; 6] = [
    "add_within (",
    "let mut __at",
    ":: st (scratch",
    "let __row_at",
    ":: pieces (",
    ":: common_len (",
];

/// Reverse mode on generated programs: a kernel `gk` returns the value of program `k` and
/// its `vjp` by each float argument for a random seed (one seed parameter per result
/// component); the executor runs it against the interpreter's `vjp`, and the compiled
/// gradients satisfy `<vjp(s), t> = <s, jvp(t)>` with the compiled `jvp` along random
/// tangents. `FSMOOTH_VJP_PROGRAMS` sets the count (150 by default), `FSMOOTH_VJP_FROM` the
/// first program (0 by default).
#[test]
fn generated_programs_differentiated_in_reverse_mode_match_the_interpreter_and_jvp() {
    let count = env("FSMOOTH_VJP_PROGRAMS", 150);
    let from = env("FSMOOTH_VJP_FROM", 0);
    let (mut runs, mut identities, mut infinite) = (0, 0, 0);
    let mut worst: f64 = 0.0;
    let mut failures = Vec::new();
    let mut reached = [0u32; REACH_MARKS.len()];
    // Programs where a `build`'s step keeps an expensive array for the sweep (`keep`), and
    // where a sum computed once is bound by a `let` of its own for the sweep (`bind_sums`).
    let (mut kept, mut bound) = (0u32, 0u32);
    for j in from..count {
        let Some((p, floats, sig, all)) = differentiable_program(j) else {
            continue;
        };
        if !p.reverse {
            continue;
        }
        let typed = |prefix: &str| float_signature(&sig, &floats, prefix);
        let k = p.parts.len();
        let parts_ty: Vec<String> = if k == 1 {
            vec![p.ret.clone()]
        } else {
            split_top(&p.ret[1..p.ret.len() - 1])
        };
        let seeds: Vec<String> = (0..k).map(|c| format!("s{c}: {}", parts_ty[c])).collect();
        let seed_tuple = if k == 1 {
            "s0".to_string()
        } else {
            format!(
                "({})",
                (0..k)
                    .map(|c| format!("s{c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let values: Vec<String> = if k == 1 {
            vec!["r.0".into()]
        } else {
            (0..k).map(|c| format!("r.0.{c}")).collect()
        };
        let grads: Vec<String> = (0..floats.len()).map(|g| format!("r.{}", g + 1)).collect();
        let grad_tys: Vec<String> = typed("")
            .iter()
            .map(|q| q.split_once(": ").unwrap().1.to_string())
            .collect();
        let ret: Vec<String> = parts_ty.iter().cloned().chain(grad_tys).collect();
        let tangents = typed("d");
        let src = format!(
            "{}\npub fn gk({}, {}) -> ({}) {{ let r = vjp(|{}| k({}), ({}), {seed_tuple}); ({}) }}\n\
             pub fn dk({}, {}) -> ({}) {{ jvp(|{}| k({}), ({}), ({})).1 }}",
            p.src,
            sig.join(", "),
            seeds.join(", "),
            ret.join(", "),
            floats.join(", "),
            all.join(", "),
            floats.join(", "),
            values
                .iter()
                .chain(&grads)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            sig.join(", "),
            tangents.join(", "),
            p.ret,
            floats.join(", "),
            all.join(", "),
            floats.join(", "),
            floats
                .iter()
                .map(|f| format!("d{f}"))
                .collect::<Vec<_>>()
                .join(", "),
        );
        if std::env::var_os("FSMOOTH_VJP_TRACE").is_some() {
            eprintln!("program {j}:\n{src}");
        }
        let Some(planned) = planned_block(&src, j, &mut failures) else {
            continue;
        };
        let plan = |name: &str| planned.iter().find(|(k, _)| k.name.text == name);
        let (Some((gkern, gplan)), Some((dkern, dplan))) = (plan("gk"), plan("dk")) else {
            failures.push(format!("program {j}: no kernels"));
            continue;
        };
        // What the sweeps' code is made of (the count below).
        let text = quote::ToTokens::to_token_stream(&gplan.func).to_string();
        for (n, mark) in reached.iter_mut().zip(REACH_MARKS) {
            *n += u32::from(text.contains(mark));
        }
        // As the checker leaves `gk` (later passes may inline the bindings away).
        let mut diags = fsmooth_core::front::diag::Diags::default();
        let checked = fsmooth_core::pipeline::front(src.parse().unwrap(), &mut diags)
            .map(|b| b.kernels)
            .unwrap_or_default();
        if let Some(g) = checked.iter().find(|k| k.name.text == "gk") {
            let core = fsmooth_core::middle::print::kernel(g);
            kept += u32::from(core.contains("let kept_"));
            bound += u32::from(core.contains("let sum_"));
        }
        let interp = Interp::new(&src).unwrap();
        let i = inputs(j, 0);
        let mut rng = fsmooth_testdata::Rng::new(j * 17 + 3);
        let dirs = directions(j, 0, &mut rng);
        // Seeds of the result's shapes: each part's elements random.
        let lens = p.out_lens(&i);
        let mut seed_vals: Vec<Vec<f64>> = Vec::new();
        let (mut args, mut values) = (program_args(&p, &i), program_values(&p, &i));
        let mut arrays = lens.iter();
        for (c, part) in p.parts.iter().enumerate() {
            let n = if part.is_array() {
                *arrays.next().unwrap()
            } else {
                1
            };
            let v: Vec<f64> = (0..n).map(|_| 2.0 * rng.f64() - 1.0).collect();
            let v: Vec<f64> = if part.elem == Elem::F32 {
                v.iter().map(|x| f64::from(*x as f32)).collect()
            } else {
                v
            };
            let name: &'static str = Box::leak(format!("s{c}").into_boxed_str());
            let cols = part.dims.last().map_or(1, |d| d.eval(&i));
            let (arg, value) = seed_arg(part, &v, cols);
            args.push((name, arg));
            values.push(value);
            seed_vals.push(v);
        }
        // gk's outputs: the value's parts, then the gradients, by the kernel's destinations.
        let gnames = fsmooth_core::emit::results(&gkern.ret).arrays;
        let mut glens = lens.clone();
        let arg_lens: Vec<usize> = p
            .params
            .iter()
            .filter(|q| floats.contains(&q.name) && q.array)
            .map(|q| match q.value(&i) {
                ArgValue::F64s(v) => v.len(),
                ArgValue::F32s(v) => v.len(),
                _ => 0,
            })
            .collect();
        glens.extend(arg_lens);
        let outs: Vec<(&str, usize)> = gnames.iter().map(|(n, _)| n.as_str()).zip(glens).collect();
        let got = call(&gplan.func, &args, &outs);
        let want = interp.call("gk", &values);
        runs += 1;
        let mut parts = p.parts.clone();
        for q in p.params.iter().filter(|q| floats.contains(&q.name)) {
            parts.push(fsmooth_testdata::progen::Part {
                dims: Vec::new(),
                elem: q.elem,
            });
        }
        if p.src.contains("f32") {
            parts.iter_mut().for_each(|part| part.elem = Elem::F32);
        }
        let Ok(Ok(g)) = &got else {
            if !(matches!(got, Ok(Err(_))) && want.is_err()) {
                failures.push(format!(
                    "program {j}:\n{src}\nexecutor: {got:?}\ninterpreter: {want:?}"
                ));
            }
            continue;
        };
        match &want {
            Ok(w) if same_results(g, w, &parts) => {}
            Ok(w) if p.src.contains("f32") && same_at_scale(g, w, &parts) => {}
            Ok(w) if w.flatten().iter().any(|x| !x.is_finite()) => continue,
            Ok(w) if infinite_where_finite(g, w) => {
                // Reverse mode multiplies the partials along a path from the result, the
                // interpreter from the argument: where one is infinite (sqrt at 0, an empty
                // vmax) and another zero, the order decides between 0 and NaN.
                infinite += 1;
                continue;
            }
            _ => {
                failures.push(format!(
                    "program {j}:\n{src}\nexecutor: {got:?}\ninterpreter: {want:?}"
                ));
                continue;
            }
        }
        // The identity, with the compiled jvp along `dirs`.
        let mut dargs = program_args(&p, &i);
        for (q, a) in p.params.iter().zip(program_args(&p, &dirs)) {
            if floats.contains(&q.name) {
                let name: &'static str = Box::leak(format!("d{}", q.name).into_boxed_str());
                dargs.push((name, a.1));
            }
        }
        let dnames = fsmooth_core::emit::results(&dkern.ret).arrays;
        let douts: Vec<(&str, usize)> = dnames
            .iter()
            .map(|(n, _)| n.as_str())
            .zip(lens.clone())
            .collect();
        let Ok(Ok(d)) = call(&dplan.func, &dargs, &douts) else {
            continue;
        };
        let (g_arrays, g_scalars) = flat(g);
        let (d_arrays, d_scalars) = flat(&d);
        // <s, jvp(t)>: each result part against its seed.
        let (mut rhs, mut da, mut ds) = (0.0, d_arrays.iter(), d_scalars.iter());
        for (part, sv) in p.parts.iter().zip(&seed_vals) {
            if part.is_array() {
                rhs += da
                    .next()
                    .unwrap()
                    .iter()
                    .zip(sv)
                    .map(|(x, y)| x * y)
                    .sum::<f64>();
            } else {
                rhs += ds.next().unwrap() * sv[0];
            }
        }
        // <vjp(s), t>: the gradients follow the value's parts in gk's outputs.
        let value_arrays = p.parts.iter().filter(|q| q.is_array()).count();
        let value_scalars = p.parts.len() - value_arrays;
        let (mut ga, mut gs) = (
            g_arrays.iter().skip(value_arrays),
            g_scalars.iter().skip(value_scalars),
        );
        let mut lhs = 0.0;
        for q in p.params.iter().filter(|q| floats.contains(&q.name)) {
            let t: Vec<f64> = match q.value(&dirs) {
                ArgValue::F64s(v) => v,
                ArgValue::F32s(v) => v.iter().map(|x| f64::from(*x)).collect(),
                ArgValue::F64(x) => vec![x],
                ArgValue::F32(x) => vec![f64::from(x)],
                _ => Vec::new(),
            };
            if q.array {
                lhs += ga
                    .next()
                    .unwrap()
                    .iter()
                    .zip(&t)
                    .map(|(x, y)| x * y)
                    .sum::<f64>();
            } else {
                lhs += gs.next().unwrap() * t[0];
            }
        }
        if lhs.is_finite() && rhs.is_finite() {
            identities += 1;
            let err = (lhs - rhs).abs() / lhs.abs().max(rhs.abs()).max(1.0);
            if !p.src.contains("f32") {
                worst = worst.max(err);
                if err > 1e-10 {
                    failures.push(format!(
                        "program {j}: <vjp(s), t> = {lhs} but <s, jvp(t)> = {rhs}\n{src}"
                    ));
                }
            }
        }
    }
    println!(
        "{count} programs, {runs} runs, {identities} identities (worst relative error {worst:.1e} in f64), \
         {infinite} results infinite where the interpreter's are finite, {} mismatches; \
         programs whose sweeps use {REACH_MARKS:?}: {reached:?}, keep rows: {kept}, bind sums: {bound}",
        failures.len()
    );
    // The default run (150 programs) reaches the frame adds, the sums into rows and the
    // frame cut into pieces; rows of one length, rarer since derivatives sweep the canonical
    // form (12 programs of the first 600), from 600 programs on (CI runs 600); the running
    // indexes, rarer still, are counted only (4 programs of the first 600).
    if from == 0 && count >= 150 {
        assert!(
            [0, 2, 3, 4].iter().all(|&k| reached[k] > 0),
            "reached: {reached:?}"
        );
    }
    if from == 0 && count >= 600 {
        assert!(reached[5] > 0, "reached: {reached:?}");
    }
    assert!(
        infinite * 100 <= runs,
        "{infinite} of {runs} runs gave a non-finite gradient where the interpreter's is finite"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches; first:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n\n")
    );
}

/// The components of a tuple type's text (`[f64; n], f64` -> both), split at top-level
/// commas.
fn split_top(s: &str) -> Vec<String> {
    let (mut out, mut depth, mut cur) = (Vec::new(), 0, String::new());
    for ch in s.chars() {
        match ch {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    out.push(cur.trim().to_string());
    out
}

/// A seed argument of a result part's type (a matrix's rows of `cols`): for the executor
/// and for the interpreter.
fn seed_arg(
    part: &fsmooth_testdata::progen::Part,
    v: &[f64],
    cols: usize,
) -> (fsmooth_eval::exec::Arg, fsmooth_eval::interp::Value) {
    use fsmooth_eval::exec::Arg;
    use fsmooth_eval::interp::Value;
    let f32s = part.elem == Elem::F32;
    if !part.is_array() {
        return if f32s {
            (Arg::F32(v[0] as f32), Value::F32(v[0] as f32))
        } else {
            (Arg::F64(v[0]), Value::F64(v[0]))
        };
    }
    // A matrix (rows of `cols`), or a vector.
    let rows = part.dims.len() > 1;
    let arg = if f32s {
        Arg::F32s(v.iter().map(|x| *x as f32).collect())
    } else {
        Arg::Array(v.to_vec())
    };
    let value = match (rows, f32s) {
        (false, false) => Value::vec(v),
        (false, true) => Value::vec_f32(&v.iter().map(|x| *x as f32).collect::<Vec<_>>()),
        (true, false) => Value::matrix(v, cols),
        (true, true) => Value::matrix_f32(&v.iter().map(|x| *x as f32).collect::<Vec<_>>(), cols),
    };
    (arg, value)
}

/// The names of program `p`'s float parameters (what a derivative is by), and the kernel's
/// parameters as written (no type has a comma).
/// Generated program `j`, typed ones too (f32 kernels, index arrays), unless a result is
/// `usize` (a derivative is of floats): the program, its float parameters' names, its
/// signature's parameters as written, and every parameter's name.
#[allow(clippy::type_complexity)]
fn differentiable_program(
    j: u64,
) -> Option<(
    fsmooth_testdata::progen::Program,
    Vec<&'static str>,
    Vec<String>,
    Vec<&'static str>,
)> {
    let p = program(j);
    if p.parts.iter().any(|part| part.elem == Elem::Usize) {
        return None;
    }
    let (floats, sig) = float_params(&p, j);
    let all = p.params.iter().map(|q| q.name).collect();
    Some((p, floats, sig, all))
}

/// The float parameters of signature `sig`, each with `prefix` before its name.
fn float_signature(sig: &[String], floats: &[&str], prefix: &str) -> Vec<String> {
    sig.iter()
        .filter(|q| floats.iter().any(|f| q.starts_with(&format!("{f}: "))))
        .map(|q| format!("{prefix}{q}"))
        .collect()
}

fn float_params(p: &fsmooth_testdata::progen::Program, j: u64) -> (Vec<&'static str>, Vec<String>) {
    let i = inputs(j, 0);
    let floats = p
        .params
        .iter()
        .filter(|q| !matches!(q.value(&i), ArgValue::Usize(_) | ArgValue::Usizes(_)))
        .map(|q| q.name)
        .collect();
    let at = p.src.find("pub fn k(").unwrap() + "pub fn k(".len();
    let sig = p.src[at..at + p.src[at..].find(") -> ").unwrap()]
        .split(", ")
        .map(str::to_string)
        .collect();
    (floats, sig)
}

/// The float parameters of `p` named in `floats`, along `dirs`, appended as tangent arguments
/// `prefix` + name to the executor's `args` and the interpreter's `values`.
fn push_tangents(
    p: &fsmooth_testdata::progen::Program,
    floats: &[&str],
    dirs: &fsmooth_testdata::progen::Inputs,
    prefix: &str,
    args: &mut Vec<(&'static str, fsmooth_eval::exec::Arg)>,
    values: &mut Vec<fsmooth_eval::interp::Value>,
) {
    let tangents = program_args(p, dirs)
        .into_iter()
        .zip(program_values(p, dirs));
    for (q, (a, v)) in p.params.iter().zip(tangents) {
        if floats.contains(&q.name) {
            let name: &'static str = Box::leak(format!("{prefix}{}", q.name).into_boxed_str());
            args.push((name, a.1));
            values.push(v);
        }
    }
}

/// Inputs `t` of program `j` with every float replaced by a random one in [-1, 1): tangents
/// of the arguments' shapes.
fn directions(j: u64, t: u64, rng: &mut fsmooth_testdata::Rng) -> fsmooth_testdata::progen::Inputs {
    let mut dirs = inputs(j, t);
    for v in [&mut dirs.a, &mut dirs.b, &mut dirs.c] {
        v.iter_mut().for_each(|x| *x = 2.0 * rng.f64() - 1.0);
    }
    for v in [&mut dirs.a32, &mut dirs.b32, &mut dirs.c32] {
        v.iter_mut()
            .for_each(|x| *x = (2.0 * rng.f64() - 1.0) as f32);
    }
    dirs.s = 2.0 * rng.f64() - 1.0;
    dirs.s32 = dirs.s as f32;
    dirs
}

/// Whether every element where `got` and `want` differ is non-finite in `got` and finite in
/// `want`, and there is one.
fn infinite_where_finite(
    got: &fsmooth_eval::exec::Outputs,
    want: &fsmooth_eval::interp::Value,
) -> bool {
    let (arrays, scalars) = flat(got);
    let got: Vec<f64> = arrays.into_iter().flatten().chain(scalars).collect();
    let (mut arrays_w, mut scalars_w) = (Vec::new(), Vec::new());
    for part in want.parts() {
        match part {
            fsmooth_eval::interp::Value::Array(_) => arrays_w.extend(part.flatten()),
            _ => scalars_w.extend(part.flatten()),
        }
    }
    arrays_w.extend(scalars_w);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0);
    got.len() == arrays_w.len()
        && got
            .iter()
            .zip(&arrays_w)
            .any(|(a, b)| !a.is_finite() && b.is_finite())
        && got
            .iter()
            .zip(&arrays_w)
            .all(|(a, b)| close(*a, *b) || (!a.is_finite() && b.is_finite()))
}
