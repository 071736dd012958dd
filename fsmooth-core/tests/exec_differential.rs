//! Differential testing without rustc: generated programs (`fsmooth_testdata::progen`) are
//! compiled to the storage-planned loop IR and run by `fsmooth_eval::exec` on a real slab,
//! which flags overlapping live buffers, reads of never-written slots and accesses outside
//! the frame; every result is compared with the reference interpreter (for a kernel with
//! several results, each output `outI` and each returned scalar with its component).
//!
//! `cargo test` runs 500 programs, 4 inputs each, as compiled by default and four in five
//! of them also with fusion off, heap storage, unrolling off, or `parallel` on (block
//! options); CI runs
//! 3,000 in release. The long run (`FSMOOTH_LONG=1`) takes 100,000:
//! `FSMOOTH_LONG=1 cargo test --release -p fsmooth-core --test exec_differential -- --nocapture`
//! (`FSMOOTH_EXEC_PROGRAMS` sets the count outright, `FSMOOTH_EXEC_FIRST` moves the start of
//! the range of program seeds; `FSMOOTH_EXEC_TRACE=1` prints each program before it runs;
//! `FSMOOTH_PROGEN_TYPED=1` adds the generator's typed programs: f32 kernels, index arrays,
//! usize arrays, passed to the executor in their element types and compared with a
//! tolerance suited to each result's element type, `Elem::agree`).

use fsmooth_core::middle::ir::Kernel;
mod shared;
use shared::{env, parts_agree, program_args, program_values, same_at_scale, same_results};

use fsmooth_eval::exec::{Arg, Outputs, Returned, call, run};
use fsmooth_eval::interp::{Interp, Value};
use fsmooth_testdata::progen::{Elem, Inputs, Part, Program, inputs, program};

const TRIALS: u64 = 4;

/// Block options the programs are also compiled with, in turn (the first: none).
const OPTIONS: [&str; 6] = [
    "",
    "#![fsmooth(fusion = false)]",
    "#![fsmooth(storage = \"heap\")]",
    "#![fsmooth(unroll = false, storage = \"heap_frame\")]",
    // Top-level sums and builds as `ParSum` and `ParRows` (run in order below
    // `lir::PAR_MIN_STEPS` steps, as the generated programs' sizes are).
    "#![fsmooth(parallel = true)]",
    // Float sums in lanes (`St::Lanes`, `Ex::Fused`): another order of additions, compared
    // within each part's tolerance scaled by its largest value (`same_reassociated`).
    "#![fsmooth(reassociate = true)]",
];

/// Relative closeness with an absolute floor; NaN matches NaN.
fn close(a: f64, b: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn args(i: &Inputs) -> Vec<(&'static str, Arg)> {
    vec![
        ("a", Arg::Array(i.a.clone())),
        ("b", Arg::Array(i.b.clone())),
        ("c", Arg::Array(i.c.clone())),
        ("s", Arg::F64(i.s)),
        ("p", Arg::Usize(i.p)),
    ]
}

/// The inputs of the fixed signature `k(a, b, c, s, p)` for the interpreter.
fn values(i: &Inputs) -> [Value; 5] {
    [
        Value::vec(&i.a),
        Value::vec(&i.b),
        Value::matrix(&i.c, i.m),
        Value::F64(i.s),
        Value::Usize(i.p),
    ]
}

/// The length of `out` for a kernel of [`FOUND`] returning `ret` (`None` for a scalar).
fn out_len(ret: &str, i: &Inputs) -> Option<usize> {
    match ret {
        "f64" => None,
        "[f64; n]" => Some(i.n),
        "[f64; m]" => Some(i.m),
        _ => Some(i.n * i.m),
    }
}

/// The outputs of kernel `k` of program `p` on inputs `i`: each destination's name (`out`,
/// or `outI` for array component I of several results, from the kernel's result type) and
/// its length (from the generator's result types).
fn outputs(k: &Kernel, p: &Program, i: &Inputs) -> Vec<(String, usize)> {
    let names = fsmooth_core::emit::results(&k.ret).arrays;
    let lens = p.out_lens(i);
    assert_eq!(names.len(), lens.len(), "array results of {}", p.ret);
    names.into_iter().map(|(n, _)| n).zip(lens).collect()
}

/// The flat result of the executor, or why there is none.
fn executed(got: &Returned) -> Vec<f64> {
    match got {
        Returned::F64(x) => vec![*x],
        Returned::F32(x) => vec![f64::from(*x)],
        Returned::Usize(k) => vec![*k as f64],
        Returned::Bool(b) => vec![f64::from(u8::from(*b))],
        Returned::Out(v) => v.clone(),
    }
}

/// [`shared::same_at_scale`] for code compiled with `reassociate = true`, with an f32 tolerance of
/// 1e-4 of the scale: an f32 sum of many terms added in another order differs by more than
/// f32's tolerance for one operation once a product or a `sin` of it magnifies its
/// rounding (programs 54623 and 91529 of a long run: 2.2e-5 and 1.2e-5 of their scale).
fn same_reassociated(got: &Outputs, want: &Value, parts: &[Part]) -> bool {
    same_at_scale(got, want, parts)
        || parts_agree(got, want, parts, &|elem, g, w| {
            let scale = w.iter().fold(
                1.0f64,
                |m, x| if x.is_finite() { m.max(x.abs()) } else { m },
            );
            g.iter().zip(w).all(|(a, b)| match elem {
                Elem::F32 => a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-4 * scale,
                Elem::F64 => elem.agree(a / scale, b / scale),
                Elem::Usize => a == b,
            })
        })
}

#[test]
fn generated_programs_in_the_executor_match_the_interpreter() {
    let (first, count) = (
        env("FSMOOTH_EXEC_FIRST", 0),
        fsmooth_testdata::runs::length("FSMOOTH_EXEC_PROGRAMS", 500, 100_000),
    );
    let mut failures = Vec::new();
    let (mut runs, mut kernel_errs, mut entry_errs, mut dropped_errs) = (0u64, 0u64, 0u64, 0u64);
    for j in first..first + count {
        let p = program(j);
        if std::env::var_os("FSMOOTH_EXEC_TRACE").is_some() {
            // Which program a crash (a stack overflow) happened in.
            eprintln!("program {j}\n{}", p.src);
        }
        // Every program as the default compiles it, and four in five also with a step turned
        // off or `parallel` on: unfused, not unrolled code, heap storage and the parallel
        // loops stress other paths of `dps`.
        let variants = ["", OPTIONS[j as usize % OPTIONS.len()]];
        let interp = Interp::new(&p.src).unwrap();
        for options in variants
            .iter()
            .take(if variants[1].is_empty() { 1 } else { 2 })
        {
            let src = format!("{options}\n{}", p.src);
            let planned = match fsmooth_core::plan_block(src.parse().unwrap()) {
                Ok(k) => k,
                Err(e) => {
                    failures.push(format!("program {j} does not compile: {e}\n{src}"));
                    continue;
                }
            };
            let Some((kernel, plan)) = planned.iter().find(|(k, _)| k.name.text == "k") else {
                failures.push(format!("program {j}: no kernel k"));
                continue;
            };
            for t in 0..TRIALS {
                let i = inputs(j, t);
                let outs = outputs(kernel, &p, &i);
                let outs: Vec<(&str, usize)> = outs.iter().map(|(n, l)| (n.as_str(), *l)).collect();
                let want = interp.call("k", &program_values(&p, &i));
                runs += 1;
                let got = call(&plan.func, &program_args(&p, &i), &outs);
                let ok = match (&got, &want) {
                    (Ok(Ok(g)), Ok(w)) => {
                        same_results(g, w, &p.parts)
                            || (options.contains("reassociate")
                                && same_reassociated(g, w, &p.parts))
                    }
                    // Both fail at run time (an index or size the program cannot meet); a
                    // kernel's index error is the interpreter's, index and length (a
                    // scatter's index past the end, LANGUAGE.md section 15).
                    // Or the kernel's entry check meets the bad index planted in an index
                    // array before the interpreter meets its own (a scatter's index past the
                    // end, program 88690).
                    // Or the interpreter meets the bad index in code fusion dropped (below)
                    // while the kernel fails on an index of its own (a scatter's past the
                    // end, program 88914: the gather whose `.len()` alone is read).
                    (Ok(Err(e)), Err(w)) => {
                        kernel_errs += 1;
                        same_index_error(e, w)
                            || bad_index_error(&p, &i, e)
                            || (bad_index_read(&i, w) && e.starts_with("index "))
                    }
                    // A bad index in an index array: checked at entry, where the kernel may
                    // reject it although the interpreter never reads it (section 10).
                    (Ok(Err(e)), Ok(_)) if bad_index_error(&p, &i, e) => {
                        entry_errs += 1;
                        true
                    }
                    // The bad index is read only by code that fusion or dead-code removal
                    // dropped (an unused `let`): the interpreter, which evaluates everything,
                    // meets it; the kernel has no such read left (docs/language.md, Limits).
                    (Ok(Ok(_)), Err(w)) if bad_index_read(&i, w) => {
                        dropped_errs += 1;
                        true
                    }
                    _ => false,
                };
                if !ok {
                    failures.push(format!(
                        "program {j}, inputs {t}:\n{src}\nexecutor: {got:?}\ninterpreter: {want:?}"
                    ));
                }
            }
        }
    }
    println!(
        "{count} programs from seed {first}, {runs} runs ({kernel_errs} failing in both, \
         {entry_errs} rejecting a bad index at entry, {dropped_errs} whose bad index only \
         removed code read), {} mismatches or faults",
        failures.len()
    );
    if !failures.is_empty() {
        let heads: Vec<&str> = failures.iter().filter_map(|f| f.lines().next()).collect();
        println!("failing: {}", heads.join(" | "));
    }
    assert!(
        failures.is_empty(),
        "{} mismatches or faults; first:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n\n")
    );
}

/// Unless the executor's error `e` is an index error, true; else whether the interpreter's
/// `w` names the same index and length.
fn same_index_error(e: &str, w: &str) -> bool {
    let Some(rest) = e.strip_prefix("index ") else {
        return true;
    };
    let Some((index, len)) = rest.split_once(" out of bounds for an array of length ") else {
        return true;
    };
    w.starts_with(&format!(
        "index {index} out of range for an array of {len} elements"
    ))
}

/// Is `e` (an executor's error) the `Error::Index` of the bad index that inputs `i` put in
/// an index array program `p` takes?
fn bad_index_error(p: &Program, i: &Inputs, e: &str) -> bool {
    match i.bad {
        Some((_, bad)) => p.bad_index(i) && e.starts_with(&format!("index {bad} out of bounds")),
        None => false,
    }
}

/// Is `w` (the interpreter's error) the read of the bad index that inputs `i` put in an
/// index array?
fn bad_index_read(i: &Inputs, w: &str) -> bool {
    i.bad
        .is_some_and(|(_, bad)| w.starts_with(&format!("index {bad} out of range")))
}

/// The generated programs reach the code the long runs are there to check: groups of eight
/// rows, tiles of sixteen columns, tiles reading segments of rows, running indexes, folds
/// cutting a prefix of their enclosing loop's slice, peeled interiors, states updated a row
/// at a time, tiles of two rows, the frame cut into pieces, rows of one length indexed at
/// one index, and row streams in scalar kernels (of the first 1,200, in that order: 32, 53,
/// 48, 6, 11, 158, 142, 46, 246, 2 and 4; 1,200 since rows of one length, 2 in the first
/// 600 before, were 0 there after the eighth session of issues 37, 38 and 40, which
/// changed both the generator and fusion; one program in three is
/// written without tuples, scans and views so that these stay common); and one trial in four has sizes that make the
/// groups and tiles run.
#[test]
fn generated_programs_reach_the_planned_loop_shapes() {
    let mut seen = [0u32; 11];
    for j in 0..1200 {
        let p = program(j);
        let (_, text) = planned(&p.src);
        let marks = [
            "/ 8usize)",
            "/ 16usize)",
            "__sg",
            "__at",
            "_all . get (0usize ..",
            // A peeled interior (stencils, clamped neighbours).
            "let __mid",
            // A fold's state updated in place, one row a step.
            "let __row_",
            // Tiles of two rows (the executor runs them: `Ex::Target` is true there).
            "let __tr",
            // The frame cut into pieces around a loop that writes it.
            ":: pieces (",
            // Rows of one length that a loop indexes at one index.
            ":: common_len (",
        ];
        for (n, mark) in seen.iter_mut().zip(marks) {
            *n += u32::from(text.contains(mark));
        }
        // Row streams in a scalar kernel (loops inside its result).
        seen[10] += u32::from(p.ret == "f64" && text.contains(":: rows ("));
    }
    eprintln!("of 1,200 programs, with each mark: {seen:?}");
    assert!(seen.iter().all(|&n| n > 0), "programs with each: {seen:?}");
    assert!(
        (0..100)
            .map(|j| inputs(j, 3))
            .any(|i| i.n >= 16 && i.m >= 16)
    );
}

/// Under `reassociate = true`, generated programs reach sums in lanes and fused products
/// (so the differential above runs them), and their inputs fill the lanes' chunks.
#[test]
fn reassociated_programs_reach_sums_in_lanes() {
    let (mut lanes, mut fused) = (0, 0);
    for j in 0..300 {
        let p = program(j);
        let (_, text) = planned(&format!("#![fsmooth(reassociate = true)]\n{}", p.src));
        lanes += u32::from(text.contains("let mut __lane1 :"));
        fused += u32::from(text.contains(":: fused ("));
    }
    eprintln!("of 300 programs: {lanes} with sums in lanes, {fused} with fused products");
    assert!(lanes > 0 && fused > 0, "{lanes} {fused}");
    assert!((0..100).map(|j| inputs(j, 3)).any(|i| i.n >= 8));
}

/// The executor runs a sum in lanes (`St::Lanes`) in the order the printed code adds:
/// step k of the first n - n % 8 into lane k % 8 (lane 0 from the sum's first value, the
/// others from -0.0), the lanes added halves first, then the rest in order; below 8 steps
/// the loop in order. Its result equals that order written out here, to the bit, for every
/// n from 0 to 20 (tests/reassociate.rs checks the compiled code against the same order).
#[test]
fn sums_in_lanes_run_in_the_printed_order() {
    let src = "#![fsmooth(reassociate = true)]
        pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> f64 {
            ifold(n, s, |acc, i| acc + a[i] * c[i][0])
        }";
    let (func, text) = planned(src);
    assert!(text.contains("__lane7"), "{text}");
    let mut rng = fsmooth_testdata::Rng::new(17);
    for n in 0..21 {
        let i = sized(&mut rng, n, 1, 0);
        let term = |k: usize| i.a[k] * i.c[k];
        let mut lanes = [-0.0f64; 8];
        lanes[0] = i.s;
        let whole = n - n % 8;
        for k in 0..n {
            let l = if k < whole { k % 8 } else { 0 };
            // As `__rt::fused` on this target.
            lanes[l] = if cfg!(target_feature = "fma") {
                i.a[k].mul_add(i.c[k], lanes[l])
            } else {
                lanes[l] + term(k)
            };
        }
        let halves = |l: &[f64]| (l[0] + l[1]) + (l[2] + l[3]);
        let want = halves(&lanes[..4]) + halves(&lanes[4..]);
        match run(&func, &args(&i), None) {
            Ok(Ok(got)) => {
                let got = executed(&got);
                assert_eq!(
                    got[0].to_bits(),
                    want.to_bits(),
                    "n = {n}: {got:?} against {want}"
                );
            }
            other => panic!("n = {n}: {other:?}"),
        }
    }
}

/// Every wrong length is an `Err` before anything is written, in the executor as in the
/// compiled code (the executor faults if an output was touched): each array argument one
/// longer or shorter, and each output one longer.
#[test]
fn wrong_lengths_are_errors_in_the_executor() {
    for j in 0..200 {
        let p = program(j);
        let planned = fsmooth_core::plan_block(p.src.parse().unwrap()).unwrap();
        let (kernel, plan) = planned.iter().find(|(k, _)| k.name.text == "k").unwrap();
        let i = inputs(j, 0);
        let outs = outputs(kernel, &p, &i);
        let outs: Vec<(&str, usize)> = outs.iter().map(|(n, l)| (n.as_str(), *l)).collect();
        for (which, extra) in [(0, 1), (1, 1), (2, 1), (2, 0)] {
            let mut a = program_args(&p, &i);
            match &mut a[which] {
                (_, Arg::Array(v)) if extra == 0 => {
                    v.pop();
                }
                (_, Arg::Array(v)) => v.push(1.0),
                (_, Arg::F32s(v)) if extra == 0 => {
                    v.pop();
                }
                (_, Arg::F32s(v)) => v.push(1.0),
                (_, other) => panic!("argument {which} is {other:?}, not a float array"),
            }
            match call(&plan.func, &a, &outs) {
                Ok(Err(_)) => {}
                other => panic!("program {j}, argument {which}: {other:?}\n{}", p.src),
            }
        }
        for k in 0..outs.len() {
            let mut long = outs.clone();
            long[k].1 += 1;
            match call(&plan.func, &program_args(&p, &i), &long) {
                Ok(Err(e)) => assert!(e.contains(long[k].0), "program {j}: {e}"),
                other => panic!("program {j}, {} too long: {other:?}\n{}", long[k].0, p.src),
            }
        }
    }
}

/// Programs of the generator that exposed compiler bugs in the 10^5-program run, kept as
/// written (the generator may change), with the block options they failed under: each must
/// compile and agree with the interpreter on the standard inputs.
const FOUND: [(&str, &str, &str); 10] = [
    // Program 16235: fusion dropped a binding read at an outer index (stack overflow in dps).
    (
        "",
        "[[f64; m]; n]",
        r#"outer(add(a, map(matvec(c, ifold(2, b, |acc1, i2| add(smul(acc1, 0.5), acc1))), |q3| sum(a[0..0 + 0]))), (outer({ let v4 = sub(a, a); map2(v4, v4, |u, w| u * w - s) }, ifold(0, if -0.897 < -1.519 { b } else { b }, |acc5, i6| add(smul(acc5, 0.5), { let v7 = acc5; v7 }))))[(n) % n])"#,
    ),
    // Program 30075: fusion dropped a binding read at an outer index (stack overflow in dps).
    (
        "",
        "[[f64; m]; n]",
        r#"build(n, |i1| (outer({ let v2 = map(a, |q3| b[0 % m]); emul(v2, v2) }, add(map(b, |q4| b[(i1) % m]), map(b, |q5| -1.281))))[i1])"#,
    ),
    // Program 56452: fusion dropped a binding read at an outer index (stack overflow in dps).
    (
        "",
        "[[f64; m]; n]",
        r#"build(n, |i1| { let v2 = twice(if 2 <= 3 { b } else { twice(b, |q| q - 0.25) }, |q| q - 0.25); { let v3 = map2(v2, { let v4 = b; v2 }, |u, w| u * w - s); build(m, |i5| v3[(0) % m]) } })"#,
    ),
    // Program 47362: a fill of the frame read the frame through an outer stream (E0502 in rustc).
    (
        "",
        "[f64; n]",
        r#"ifold(n, smul(matvec(build(n, |i1| map(b, |q2| [s, 1.5, -0.5][2])), b), ifold((2 + n), s, |acc3, i4| acc3 * 0.5 + ((-c[0 % n][0 % m]) + ifold(i4, acc3, |acc5, i6| acc5 * 0.5 + acc3)))), |acc7, i8| add(smul(acc7, 0.5), build(n, |i9| dot(if s < 2.525 { map(build(p, |z| s), |q10| acc7[i9]) } else { twice(build(p, |z| s), |q| q - 0.25) }, if i8 <= i9 { ifold(m, build(p, |z| s), |acc11, i12| add(smul(acc11, 0.5), acc11)) } else { build(p, |i13| -1.835) }))))"#,
    ),
    // Program 73562: a fill of the frame read the frame through an outer stream (E0502 in rustc).
    (
        "",
        "[f64; n]",
        r#"{ let v1 = build(n, |i2| { let x3 = s; sum(a[0..0 + 1]) }); build(n, |i4| (ifold(m, build(m, |i5| v1[i4]), |acc6, i7| add(smul(acc6, 0.5), add(acc6, acc6))))[((i4 * 2)) % m]) }"#,
    ),
    // Program 77879: a fill of the frame read the frame through an outer stream (E0502 in rustc).
    (
        "",
        "[f64; n]",
        r#"ifold((n * 2), a, |acc1, i2| add(smul(acc1, 0.5), build(n, |i3| dot(b, ifold(p, build(m, |i4| acc1[i3]), |acc5, i6| add(smul(acc5, 0.5), build(m, |i7| -2.274)))))))"#,
    ),
    // Program 28 of the tuple and view generator: `map` over the rows of `transpose(c)` (rows
    // `[f64; n]`) was rejected, `map`'s own `n` renaming the caller's inside the rows' type.
    (
        "",
        "[f64; m]",
        r#"ifold(n, map(transpose(c), |row| sum(row) * row[0 % n]), |acc, i| add(smul(acc, 0.5), acc))"#,
    ),
    // Program 945: unfused, the zero windows of `slide(3, [s, 0.5])` were mapped into a
    // buffer of no slots, and the code filling it named a frame that was never taken.
    (
        "#![fsmooth(fusion = false)]",
        "f64",
        r#"ifold((1 * 2), 1.592, |acc14, i15| acc14 * 0.5 + sum(map(slide(3, [s, 0.5]), |w16| (c)[0 % n][0 % m])))"#,
    ),
    // Program 11432: `hoist` took `x7.cos()`, on the state of a scan inside a build, for
    // invariant and moved it out of the build (an internal error; 30256 alike).
    (
        "",
        "[[f64; m]; n]",
        r#"build(n, |i1| map2(add(map(build(m, |z2| [s, 1.5, -0.5]), |row3| c[(0) % n][0 % m]), add(ifold(0, b, |acc4, i5| add(smul(acc4, 0.5), acc4)), build(m, |i6| s))), scan(m, ((-1.540, (0.683, s))).0, |x7, i8| x7 * 0.5 + (x7).cos()), |u, w| u * w - s))"#,
    ),
    // Program 28125 (issue 18's typed run): a row view whose index is computed by
    // statements (a `usize` array built in the frame) kept those statements in its offset,
    // run where the row was read, after a later `usize` allocation that the frame plan had
    // placed on the same slots.
    (
        "#![fsmooth(fusion = false)]",
        "f64",
        r#"dot(transpose(c)[(build(n, |z1| z1 + 1))[0 % n] % m], map(build(n, |z2| (3).min(p)), |k3| a[k3 % n]))"#,
    ),
];

#[test]
fn programs_that_found_bugs() {
    for (k, (options, ret, body)) in FOUND.iter().enumerate() {
        let src = format!(
            "{options}\nfn twice(v: [f64; q], f: fn(f64) -> f64) -> [f64; q] {{ build(q, |i| f(f(v[i]))) }}\n\
             pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> {ret} {{ {body} }}"
        );
        let planned = fsmooth_core::plan_block(src.parse().unwrap()).unwrap();
        let (_, plan) = &planned[0];
        let interp = Interp::new(&src).unwrap();
        for t in 0..TRIALS {
            let i = inputs(k as u64, t);
            let out_len = out_len(ret, &i);
            let want = interp.call("k", &values(&i)).unwrap().flatten();
            match run(&plan.func, &args(&i), out_len) {
                Ok(Ok(got)) => {
                    let got = executed(&got);
                    assert!(
                        got.len() == want.len()
                            && got.iter().zip(&want).all(|(a, b)| close(*a, *b)),
                        "{src}\n{got:?}\n{want:?}"
                    );
                }
                other => panic!("{src}\n{other:?}"),
            }
        }
    }
}

/// Generated program 94094 (bug 8 in docs/internals.md): fusion's same-element rule bound
/// an element of a length-`m` array at the head of a loop over `m + n`, where its reads were
/// only in a `concat`'s branch `i < m`, so the kernel loaded past the array's end (an index
/// error the interpreter does not raise). As the main test runs it, every trial.
#[test]
fn program_94094_matches_the_interpreter() {
    generated_program_matches(94094);
}

/// Generated program 5308 (found by the generator's flat sweeps, a fault since before
/// issue 37's eighth session): a fold's array state updated in place in its output, `add(smul(v28,
/// 0.5), ifold(..))`, had the inner fold computed in that output first (an array written in
/// a destination before the value that lives there), which lost `v28`. As the main test
/// runs it, every trial.
#[test]
fn program_5308_matches_the_interpreter() {
    generated_program_matches(5308);
}

/// Generated program `j` as the main test runs it with the default options, every trial.
fn generated_program_matches(j: u64) {
    generated_program_with_options_matches(j, "");
}

/// Generated program `j` as the main test runs it with `options` (inner attributes put
/// before it), every trial.
fn generated_program_with_options_matches(j: u64, options: &str) {
    let bad = trials_differing(j, &format!("{options}\n{}", program(j).src));
    assert!(bad.is_empty(), "program {j}, {}", bad.join("\n"));
}

/// The trials of generated program `j`'s inputs on which `src` (the program, or a text
/// with its parameters and result type) differs from the interpreter, each described.
fn trials_differing(j: u64, src: &str) -> Vec<String> {
    let p = program(j);
    let interp = Interp::new(src).unwrap();
    let planned = fsmooth_core::plan_block(src.parse().unwrap()).unwrap();
    let (kernel, plan) = planned.iter().find(|(k, _)| k.name.text == "k").unwrap();
    let mut bad = Vec::new();
    for t in 0..TRIALS {
        let i = inputs(j, t);
        let outs = outputs(kernel, &p, &i);
        let outs: Vec<(&str, usize)> = outs.iter().map(|(n, l)| (n.as_str(), *l)).collect();
        let want = interp.call("k", &program_values(&p, &i));
        let got = call(&plan.func, &program_args(&p, &i), &outs);
        let ok = match (&got, &want) {
            (Ok(Ok(g)), Ok(w)) => same_results(g, w, &p.parts),
            (Ok(Err(_)), Err(_)) => true,
            _ => false,
        };
        if !ok {
            bad.push(format!(
                "inputs {t}:\nexecutor: {got:?}\ninterpreter: {want:?}"
            ));
        }
    }
    bad
}

/// Generated programs of the second 10^5 run (bugs 9 to 11 in docs/internals.md): a row
/// streamed under `if i == 3` checked before its loop (42794, 71286, 21782), a row stream
/// whose start wrapped where it was proven only in the `else` of `if i == 0 || i == n - 1`
/// (69412), and an array of a chain written over in a frame destination while still read
/// (87037).
#[test]
fn programs_of_the_second_run_match_the_interpreter() {
    for j in [42794, 71286, 21782, 69412, 87037] {
        generated_program_matches(j);
    }
}

/// Kernel `k` of `src`, planned, and its loop IR printed (to check which shape it took).
fn planned(src: &str) -> (fsmooth_core::lir::Func, String) {
    let mut planned = fsmooth_core::plan_block(src.parse().unwrap()).unwrap();
    let func = planned.remove(0).1.func;
    let text = quote::ToTokens::to_token_stream(&func).to_string();
    (func, text)
}

/// Random inputs with `n` rows, `m` columns and `p`.
fn sized(rng: &mut fsmooth_testdata::Rng, n: usize, m: usize, p: usize) -> Inputs {
    let (a, b, c) = (rng.vec(n), rng.vec(m), rng.vec(n * m));
    Inputs::new(n, m, a, b, c, rng.f64(), p)
}

/// `func` (kernel `k` of `src`) gives the interpreter's result to the bit on `i`, its `out`
/// of `out_len` slots (`None`: a scalar kernel).
fn same_bits(src: &str, func: &fsmooth_core::lir::Func, i: &Inputs, out_len: Option<usize>) {
    let want = Interp::new(src)
        .unwrap()
        .call("k", &values(i))
        .unwrap()
        .flatten();
    let (n, m, p) = (i.n, i.m, i.p);
    match run(func, &args(i), out_len) {
        Ok(Ok(got)) => {
            let got = executed(&got);
            let same = got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "{src}, n = {n}, m = {m}, p = {p}\n{got:?}\n{want:?}");
        }
        other => panic!("{src}, n = {n}, m = {m}, p = {p}: {other:?}"),
    }
}

/// Builds over sum folds are compiled eight, then four rows at a time (`dps`'s jam): every
/// row count from 0 to 17 (so every number of fours and ones after the eights), every fold
/// length from 1 to 5, the fold's terms and the
/// rest of the row on either side of their `+`, the fold inside arithmetic and math calls,
/// and the results equal to the interpreter's to the bit (the jam keeps each row's
/// additions in order).
#[test]
fn rows_taken_eight_and_four_at_a_time_match_the_interpreter_to_the_bit() {
    let bodies = [
        "add(matvec(c, b), a)",
        "build(n, |i| s * dot(c[i], b))",
        "build(n, |i| ifold(m, a[i], |acc, l| c[i][l] * b[l] + acc))",
        "build(n, |i| ifold(m, 1.0, |acc, l| acc + c[i][l] / (b[l] + s)) - a[i])",
        "map(matvec(c, b), |v| v.tanh())",
        "build(n, |i| a[i] - (0.5 * dot(c[i], b)).exp())",
    ];
    let mut rng = fsmooth_testdata::Rng::new(11);
    for body in bodies {
        let src = format!(
            "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [f64; n] {{ {body} }}"
        );
        let (func, text) = planned(&src);
        assert!(text.contains("__nb"), "not jammed: {src}\n{text}");
        for n in 0..18 {
            // (m >= 1: the interpreter's matrix of `n` empty rows has no rows.)
            for m in 1..6 {
                same_bits(&src, &func, &sized(&mut rng, n, m, 0), Some(n));
            }
        }
    }
}

/// A row of the frame read at a fold's index (`t[k]` of 4, taken along the fold as a row
/// stream, `lir::row_streams`) and a row bound before the fold, read in every step (its
/// loads made once before the loop, `lir::invariant_loads`): the hand model's skinning,
/// in the executor against the interpreter to the bit, for counts 0 to 5 (a loop of no
/// steps included).
#[test]
fn frame_rows_along_a_fold_and_loads_made_before_it_match_the_interpreter_to_the_bit() {
    let src = "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [f64; n] {
        let t = build(n, |i| build(4, |r| c[i][r % m] * s + b[r % m]));
        build(n, |j| {
            let x = t[(j + p) % n];
            ifold(n, a[j], |acc, k| acc * 0.5 + (t[k][0] * x[0] + t[k][1] * x[0] + t[k][2] * x[3] + t[k][3] * x[3]) * b[k % m])
        })
    }";
    let (func, text) = planned(src);
    assert!(
        text.contains("rows_of"),
        "no row stream of the frame:\n{text}"
    );
    // The two loads of `x` bound before the loop over `k`, not in its step.
    let inner = text.rfind("for (").unwrap_or(0);
    let loads: Vec<usize> = text
        .match_indices("ldr_row :: < 4usize > (scratch")
        .map(|(i, _)| i)
        .collect();
    assert!(
        !loads.is_empty() && loads.iter().all(|&i| i < inner),
        "{text}"
    );
    let mut rng = fsmooth_testdata::Rng::new(17);
    for n in 0..6 {
        for m in 1..5 {
            for p in [0, 3] {
                same_bits(src, &func, &sized(&mut rng, n, m, p), Some(n));
            }
        }
    }
}

/// Costly calls that do not read a loop's index are computed before it, into a table
/// (`hoist`): a per-row table of `sin` and a scalar `ln` leave the loop over `i`, whatever
/// its count (0 included), and the results equal the interpreter's to the bit.
#[test]
fn hoisted_calls_match_the_interpreter_to_the_bit() {
    let src = "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> f64 {
        ifold(p, s, |acc, i| acc * 0.5 + sum(build(n, |r| dot(map(c[r], |v| (v * s).sin()), b) * (s * s + 1.0).ln() + a[r] * (i as f64))))
    }";
    let (func, text) = planned(src);
    let loop_at = text.find("for i_").expect("the loop over i");
    assert!(
        !text[loop_at..].contains("sin") && !text[loop_at..].contains("ln"),
        "not hoisted: {text}"
    );
    let mut rng = fsmooth_testdata::Rng::new(12);
    for p in 0..4 {
        for n in 0..4 {
            for m in 1..4 {
                same_bits(src, &func, &sized(&mut rng, n, m, p), None);
            }
        }
    }
}

/// A Jacobian's columns of `jvp` and rows of `vjp` over a branch, in loops (`unroll =
/// false`): `hoist`'s `peel` takes the primal half of forward mode's `if` out of the loop
/// as an `if` of its own, and the float arithmetic heading a branch that stays (computed
/// even where the branch is not taken); no `sqrt` and no primal division is left in the
/// loop, and the results match the interpreter's (its own dual numbers and tape: within
/// rounding), on both sides of the branch.
#[test]
fn jacobians_over_a_branch_share_the_primal_and_match_the_interpreter() {
    let kernels = [
        (
            6,
            0,
            "[[f64; 2]; 3]",
            "build(3, |j| jvp(|x| { let q = x * x + s * s; let v = if q > 0.5 { let r = q.sqrt(); let w = x / r; [(w * s).sin() * r, w + r] } else { [x * s, q] }; [v[0] / (v[1] + 3.0), v[1] * v[0]] }, s, (j as f64) + 0.5).1)",
        ),
        (
            2,
            0,
            "[f64; 2]",
            "build(2, |r| vjp(|x| { let q = x * x + s; if q > 0.5 { let t = q.sqrt(); [t * x, (t / (x + 2.0)).sin()] } else { [x, q] } }, s, build(2, |i| if i == r { 1.0 } else { 0.0 })).1)",
        ),
    ];
    for (len, divisions, ret, body) in kernels {
        let src = format!(
            "#![fsmooth(unroll = false)]\npub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> {ret} {{ {body} }}"
        );
        let (func, text) = planned(&src);
        let loop_at = text.find("for ").expect("the loop over the directions");
        assert!(text[..loop_at].contains("sqrt"), "{src}\n{text}");
        assert!(
            !text[loop_at..].contains("sqrt"),
            "not shared: {src}\n{text}"
        );
        // The loop does not divide: the columns' primal quotient `v[0] / (v[1] + 3.0)` left
        // the loop with the branch's primal half, and every tangent's slope (`1 / b`, `q /
        // b`, `0.5 / sqrt(x)`) is a primal value too (5 and 3 divisions when the tangents
        // divided; without the split, the branch's primal half divides in the loop).
        assert_eq!(
            text[loop_at..].matches(" / ").count(),
            divisions,
            "{src}\n{text}"
        );
        let interp = Interp::new(&src).unwrap();
        let mut rng = fsmooth_testdata::Rng::new(13);
        for t in 0..40 {
            let mut i = sized(&mut rng, 1, 1, 0);
            // Both sides of the branch: s from -1.5 to 1.5.
            i.s = (t as f64) / 13.0 - 1.5;
            let want = interp.call("k", &values(&i)).unwrap().flatten();
            match run(&func, &args(&i), Some(len)) {
                Ok(Ok(got)) => {
                    let got = executed(&got);
                    assert!(
                        got.len() == want.len()
                            && got.iter().zip(&want).all(|(a, b)| close(*a, *b)),
                        "{src}, s = {}\n{got:?}\n{want:?}",
                        i.s
                    );
                }
                other => panic!("{src}: {other:?}"),
            }
        }
    }
}

/// Matrix products run in tiles of 16, 4 and 1 columns (`dps`'s tile): every column count
/// from 1 to 40 (so every mix of widths), the right operand computed into the frame, and
/// the results equal to the interpreter's to the bit.
#[test]
fn column_tiles_match_the_interpreter_to_the_bit() {
    let body =
        "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [[f64; m]; n] {
        matmul(c, build(m, |r| map(b, |v| v * s + (r as f64))))
    }";
    // The right-hand matrix in the frame, then in a heap buffer of its own.
    for options in ["", "#![fsmooth(storage = \"heap\")]"] {
        let src = format!("{options}\n{body}");
        let (func, text) = planned(&src);
        assert!(text.contains("ldr :: < 16usize >"), "not tiled: {text}");
        // Its rows are streams, and each tile reads its segment of the row.
        assert!(
            text.contains("__sg") && text.contains(":: rows ("),
            "no segments: {text}"
        );
        let mut rng = fsmooth_testdata::Rng::new(13);
        for n in [0, 1, 3] {
            for m in 1..41 {
                same_bits(&src, &func, &sized(&mut rng, n, m, 0), Some(n * m));
            }
        }
    }
    // Columns fewer than the rows are wide: tiles without row streams.
    let src = "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [[f64; m - 1]; n] {
        let t = build(m, |r| map(b, |v| v * s + (r as f64)));
        build(n, |i| build(m - 1, |j| ifold(m, 0.0, |acc, l| acc + c[i][l] * t[l][j])))
    }";
    let (func, text) = planned(src);
    assert!(
        text.contains("ldr :: < 16usize >") && !text.contains("__sg"),
        "{text}"
    );
    let mut rng = fsmooth_testdata::Rng::new(16);
    for n in [1, 3] {
        for m in 1..41 {
            same_bits(src, &func, &sized(&mut rng, n, m, 0), Some(n * (m - 1)));
        }
    }
}

/// A product of `c` by a right-hand matrix in the frame (`t[l][j] = b[j] s + l`), each
/// element's sum starting from `c[i][j]`: the kernel of the tests of tiles of several rows.
const ROW_TILED: &str =
    "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [[f64; m]; n] {
    let t = build(m, |r| map(b, |v| v * s + (r as f64)));
    build(n, |i| build(m, |j| ifold(m, c[i][j], |acc, l| acc + c[i][l] * t[l][j])))
}";

/// Where the target has AVX, a matrix product's tiles cover two rows at a time
/// (`blocking`'s `row_tiles`, behind `cfg!(target_feature = "avx")`, which the executor
/// takes as true): every row count from 0 to 7 (pairs and a row left over) by column counts
/// that mix the tiles' widths, the results equal to the interpreter's to the bit.
#[test]
fn two_row_tiles_match_the_interpreter_to_the_bit() {
    let src = ROW_TILED;
    let (func, text) = planned(src);
    assert!(
        text.contains("cfg ! (target_feature = \"avx\")") && text.contains("let __tr"),
        "no tiles of two rows: {text}"
    );
    let mut rng = fsmooth_testdata::Rng::new(17);
    for n in 0..8 {
        for m in [1, 3, 4, 7, 16, 17, 21, 36] {
            same_bits(src, &func, &sized(&mut rng, n, m, 0), Some(n * m));
        }
    }
}

/// Under `reassociate = true`, where the target has AVX-512, tiles cover four rows and add
/// each term by `__rt::fused` (which the executor takes, `Ex::Target` being true there):
/// each element its terms in order, fused as `__rt::fused` is on this target, the rows a
/// four leaves over one at a time and unfused. Every row count from 0 to 9.
#[test]
fn fused_four_row_tiles_add_in_the_printed_order() {
    let src = format!("#![fsmooth(reassociate = true)]\n{ROW_TILED}");
    let (func, text) = planned(&src);
    assert!(
        text.contains("cfg ! (target_feature = \"avx512f\")") && text.contains("let __tr10_3"),
        "no tiles of four rows: {text}"
    );
    let mut rng = fsmooth_testdata::Rng::new(18);
    for n in 0..10 {
        let m = 19;
        let i = sized(&mut rng, n, m, 0);
        let fused_rows = n - n % 4;
        let mut want = Vec::new();
        for r in 0..n {
            for j in 0..m {
                let mut acc = i.c[r * m + j];
                for l in 0..m {
                    let (x, y) = (i.c[r * m + l], i.b[j] * i.s + l as f64);
                    acc = if r < fused_rows && cfg!(target_feature = "fma") {
                        x.mul_add(y, acc)
                    } else {
                        acc + x * y
                    };
                }
                want.push(acc);
            }
        }
        match run(&func, &args(&i), Some(n * m)) {
            Ok(Ok(got)) => {
                let got = executed(&got);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "n = {n}: {got:?} against {want:?}");
            }
            other => panic!("n = {n}: {other:?}"),
        }
    }
}

/// Folds whose count is an enclosing index (GMM's triangle) read their rows as streams, cut
/// once per outer step (`xc[..j]`, empty at j = 0) from the slice the outer loop streams
/// (`lir`'s prefix streams): every size from 0 to 7, the row read from a parameter and
/// from the frame, and the results equal to the interpreter's to the bit.
#[test]
fn triangle_folds_match_the_interpreter_to_the_bit() {
    let bodies = [
        // A row of the parameter c, and b's packed-triangle-like index.
        "build(n, |r| sum(build(m, |j| ifold(j, c[r][j], |acc, l| acc + c[r][l] * b[(l * j) % m]))))",
        // The row an intermediate in the frame, as `xc` in GMM.
        "build(n, |r| { let xc = map(c[r], |v| v - s); sqnorm(build(m, |j| ifold(j, xc[j], |acc, l| acc + xc[l] * b[l]))) })",
    ];
    let mut rng = fsmooth_testdata::Rng::new(14);
    for body in bodies {
        let src = format!(
            "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [f64; n] {{ {body} }}"
        );
        let (func, text) = planned(&src);
        // A row cut (`x.get(lo..hi)`) whose end is the outer index, `i_..` or `j_..`.
        let cut = text.split(". get (").skip(1).any(|rest| {
            let range = rest.split(" ,)").next().unwrap_or("");
            range.contains("i_") || range.contains("j_")
        });
        assert!(
            cut && !text.contains("ld (c"),
            "no row cut at the outer index: {src}\n{text}"
        );
        assert!(
            text.contains("_all . get (0usize .."),
            "no prefix of the outer loop's slice: {src}\n{text}"
        );
        for n in 0..3 {
            for m in 1..8 {
                same_bits(&src, &func, &sized(&mut rng, n, m, 0), Some(n));
            }
        }
    }
}

/// Loads at an index quadratic in a fold's index (a packed lower triangle, GMM's `q_times`)
/// read at a running index (`dps`'s runs): the same elements as the interpreter's index
/// arithmetic, so the same bits, for every triangle size 1..9.
#[test]
fn running_indexes_match_the_interpreter_to_the_bit() {
    let bodies = [
        // GMM's packed triangle below a diagonal of m.
        "build(n, |r| sqnorm(build(m, |j| ifold(j, a[j] * c[r][j], |acc, l| acc + a[m + l * (2 * m - l - 1) / 2 + (j - l - 1)] * c[r][l]))))",
        // The triangle's fold inside the terms of a sum over j, taken in groups of rows.
        "build(n, |r| ifold(m, 0.0, |acc, j| acc + ifold(j, c[r][j], |t, l| t + a[m + l * (2 * m - l - 1) / 2 + (j - l - 1)] * c[r][l])))",
        // Two loads at one quadratic index, and one at another whose steps shrink.
        "build(n, |r| sum(build(m, |j| ifold(j, s, |acc, l| acc + a[l * (l + 1) / 2 + l] * b[l] - a[l * (l + 1) / 2 + l] * c[r][j] + a[l * (2 * m - l - 1) / 2]))))",
    ];
    let mut rng = fsmooth_testdata::Rng::new(15);
    for body in bodies {
        let src = format!(
            "pub fn k(a: [f64; m * (m + 1) / 2], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [f64; n] {{ {body} }}"
        );
        let (func, text) = planned(&src);
        assert!(
            text.contains("__at") && !text.contains("/ 2usize"),
            "no running index: {src}\n{text}"
        );
        for n in 0..3 {
            for m in 1..9 {
                let mut i = sized(&mut rng, n, m, 0);
                i.a = rng.vec(m * (m + 1) / 2);
                same_bits(&src, &func, &i, Some(n));
            }
        }
    }
}

/// A fold whose step adds to one row of its matrix state (`accumulate`'s row increments,
/// what reverse mode's sums into rows become): dense and one-element rows, the row index
/// inside the state or not (a row outside is left alone), every row and column count up to
/// 4, under every option, the results equal to the interpreter's to the bit.
#[test]
fn row_increments_match_the_interpreter_to_the_bit() {
    let rows = [
        "build(m, |j| acc[r][j] + a[i] * c[i][j])",
        "build(m, |j| if j == (i * 5) % m { acc[r][j] + a[i] } else { acc[r][j] })",
        "build(m, |j| s * c[i][j] + acc[r][j])",
    ];
    let mut rng = fsmooth_testdata::Rng::new(19);
    for row in rows {
        let kernel = format!(
            "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [[f64; m]; p] {{
                ifold(n, build(p, |r| map(b, |v| v * s)), |acc, i| build(p, |r| {{
                    if r == (i * 3) % (p + 1) {{ {row} }} else {{ acc[r] }}
                }}))
            }}"
        );
        for option in OPTIONS {
            let src = format!("{option}\n{kernel}");
            let (func, text) = planned(&src);
            assert!(
                !option.is_empty() || (text.contains("let __row_at") && !text.contains("swap")),
                "no row increment in place: {src}\n{text}"
            );
            for n in 0..5 {
                for m in 1..5 {
                    for p in 0..4 {
                        same_bits(&src, &func, &sized(&mut rng, n, m, p), Some(p * m));
                    }
                }
            }
        }
    }
}

/// The row increment's test written the other ways a row choice may be (`e == r`, and `!=`
/// with the branches swapped, as `update_in_place` takes them): in place, to the bit.
#[test]
fn row_increments_spelled_otherwise_match_the_interpreter_to_the_bit() {
    let row = "build(m, |j| acc[r][j] + a[i] * c[i][j])";
    let mut rng = fsmooth_testdata::Rng::new(20);
    for choice in [
        format!("if (i * 3) % (p + 1) == r {{ {row} }} else {{ acc[r] }}"),
        format!("if r != (i * 3) % (p + 1) {{ acc[r] }} else {{ {row} }}"),
    ] {
        let src = format!(
            "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [[f64; m]; p] {{
                ifold(n, build(p, |r| map(b, |v| v * s)), |acc, i| build(p, |r| {{ {choice} }}))
            }}"
        );
        let (func, text) = planned(&src);
        assert!(
            text.contains("let __row_at") && !text.contains("swap"),
            "no row increment in place: {src}\n{text}"
        );
        for n in 0..4 {
            for p in 0..4 {
                same_bits(&src, &func, &sized(&mut rng, n, 3, p), Some(p * 3));
            }
        }
    }
}

/// `func` (kernel `k` of `src`) agrees with the interpreter on `i`: the same bits, or both
/// fail (an index the branch taken reads).
fn same_bits_or_both_fail(
    src: &str,
    func: &fsmooth_core::lir::Func,
    i: &Inputs,
    out_len: Option<usize>,
) {
    let want = Interp::new(src).unwrap().call("k", &values(i));
    let (n, m, p) = (i.n, i.m, i.p);
    match (run(func, &args(i), out_len), want) {
        (Ok(Ok(got)), Ok(want)) => {
            let (got, want) = (executed(&got), want.flatten());
            let same = got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(same, "{src}, n = {n}, m = {m}, p = {p}\n{got:?}\n{want:?}");
        }
        (Ok(Err(_)), Err(_)) => {}
        (got, want) => panic!("{src}, n = {n}, m = {m}, p = {p}: {got:?}\n{want:?}"),
    }
}

/// Bug 9: a stream's start is computed before its loop, so a row read at a checked index
/// (`c[3]`, `c[p]`) only on some steps (under an `if`) is read by loads in the branch,
/// unless every step reads it: cut before the loop, its check failed where the branch is
/// never taken (`n <= 3`). Bug 10: nor is a row whose index was proven only in the branch
/// (`c[i - 1]` in `if i > 0`, `c[p]` in `if p < n`): cut before the loop it wrapped at
/// `i = 0` or ran past the end, and the printed code skipped the loop. Every option, sizes
/// on both sides of the tests.
#[test]
fn rows_read_under_a_branch_are_cut_only_where_they_hold() {
    let bodies = [
        "build(n, |i| build(m, |j| if i == 3 { c[3][j] } else { s }))",
        "build(n, |i| build(m, |j| if s > 0.5 { c[p][j] } else { s }))",
        "madd(build(n, |i| b), build(n, |i| if i == 3 { sub(c[i], b) } else { b }))",
        "build(n, |i| build(m, |j| if i > 0 { c[i - 1][j] } else { s }))",
        "build(n, |i| build(m, |j| if i == 0 || i == n - 1 { s } else { c[i - 1][j] }))",
        "build(n, |i| build(m, |j| if p < n { c[p][j] } else { s }))",
    ];
    let mut rng = fsmooth_testdata::Rng::new(21);
    for body in bodies {
        for option in OPTIONS {
            let src = format!(
                "{option}\npub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [[f64; m]; n] {{ {body} }}"
            );
            let (func, _) = planned(&src);
            for n in 0..6 {
                for m in 1..4 {
                    for p in 0..6 {
                        same_bits_or_both_fail(&src, &func, &sized(&mut rng, n, m, p), Some(n * m));
                    }
                }
            }
        }
    }
}

/// Bug 11: in a chain of `let`s computed in a frame buffer's row (a build's element that a
/// `map` reads), an array written over one that the chain computed in the destination
/// (`x` over `b0`) was overwritten in turn by a later array computed there (`y`) while it
/// was still read (`add(x, y)`). An array computed in a destination is now never written
/// over by another (`Dps::over`), as when the destination is an output.
#[test]
fn arrays_of_a_chain_in_a_frame_destination_are_not_overwritten_while_read() {
    let bodies = [
        "map(build(n, |i| { let b0 = ifold(i, a, |acc, j| add(acc, acc)); let x = map(b0, |v| v + 1.0); let y = ifold(p, x, |acc, j| add(acc, acc)); add(x, y) }), |row| row[0])",
        "map(build(n, |i| ifold(2, a, |acc, t| add(acc, ifold(i, smul(acc, 0.5), |d, j| add(d, d))))), |row| row[0])",
    ];
    let mut rng = fsmooth_testdata::Rng::new(22);
    for body in bodies {
        for option in OPTIONS {
            let src = format!(
                "{option}\npub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64, p: usize) -> [f64; n] {{ {body} }}"
            );
            let (func, _) = planned(&src);
            for n in 0..5 {
                for p in 0..4 {
                    same_bits(&src, &func, &sized(&mut rng, n, 2, p), Some(n));
                }
            }
        }
    }
}

/// Generated programs of the third 10^5 run, faults since before issue 37's eighth session:
/// a nested tuple state (`(f64, (f64, [f64; m], f64, ..))`, flattened with a `let` of the
/// inner tuple, read as `t.1.1[0]` by a later component) was updated in place as if nothing
/// read the old array (68763; 18317, 54635 and nine more alike), and a strided row stream
/// taken for a plain element read at the same start, which no load replaced when the loop
/// wrote the frame (15865, unfused).
#[test]
fn programs_of_the_third_run_match_the_interpreter() {
    for j in [68763, 18317, 54635, 71717] {
        generated_program_matches(j);
    }
}

/// Program 15865 as the executor differential runs it (unfused, `fusion = false`).
#[test]
fn program_15865_unfused_matches_the_interpreter() {
    generated_program_with_options_matches(15865, "#![fsmooth(fusion = false)]");
}

/// For reducing a failing generated program by hand: `FSMOOTH_EXEC_SRC` names a file holding
/// program `FSMOOTH_EXEC_ONE`'s text, edited (same parameters and result type), which runs
/// with that program's inputs. Ignored unless asked for.
#[test]
#[ignore]
fn edited_program_matches() {
    let j = env("FSMOOTH_EXEC_ONE", 0);
    let src = std::fs::read_to_string(std::env::var("FSMOOTH_EXEC_SRC").unwrap()).unwrap();
    let bad = trials_differing(j, &src);
    for b in &bad {
        println!("{b}");
    }
    assert!(bad.is_empty(), "{} of {TRIALS} trials differ", bad.len());
}
