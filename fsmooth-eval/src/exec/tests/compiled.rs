//! Kernels compiled from source (`fsmooth_core::plan_block`) with several results, scans,
//! tuple states and the layout views as destinations: they run clean (every output slot
//! written once, no overlapping or out-of-range access) and give what the source says,
//! computed here in plain Rust.

use crate::exec::{Arg, Fault, Outputs, Scalar, call};
use fsmooth_core::lir::Func;

/// Block options each kernel is also compiled with: none, and each that takes other paths
/// of the translation.
const OPTIONS: [&str; 4] = [
    "",
    "#![fsmooth(fusion = false)]",
    "#![fsmooth(storage = \"heap\")]",
    "#![fsmooth(unroll = false, storage = \"heap_frame\")]",
];

/// The loop IR of kernel `name` of the block `src`, and its outputs' names in order.
fn compile(src: &str, name: &str) -> (Func, Vec<String>) {
    let kernels = fsmooth_core::plan_block(src.parse().expect("tokens")).expect("compiles");
    let (k, p) = kernels
        .into_iter()
        .find(|(k, _)| k.name.text == name)
        .expect("the kernel");
    let names = fsmooth_core::emit::results(&k.ret)
        .arrays
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    (p.func, names)
}

/// Kernel `name` of `src` called with `params` and outputs of lengths `lens`.
fn exec(
    src: &str,
    name: &str,
    params: &[(&str, Arg)],
    lens: &[usize],
) -> Result<Result<Outputs, String>, Fault> {
    let (f, names) = compile(src, name);
    assert_eq!(names.len(), lens.len(), "outputs of `{name}`: {names:?}");
    let outs: Vec<(&str, usize)> = names
        .iter()
        .map(String::as_str)
        .zip(lens.iter().copied())
        .collect();
    call(&f, params, &outs)
}

/// As [`exec`], for a call that must succeed, the same under each of [`OPTIONS`].
#[track_caller]
fn ok(src: &str, name: &str, params: &[(&str, Arg)], lens: &[usize]) -> Outputs {
    let mut first = None;
    for options in OPTIONS {
        match exec(&format!("{options}\n{src}"), name, params, lens) {
            Ok(Ok(o)) => match &first {
                None => first = Some(o),
                Some(f) => assert_eq!(&o, f, "`{name}` with `{options}`"),
            },
            r => panic!("`{name}` with `{options}`: {r:?}"),
        }
    }
    first.expect("a run")
}

const A: [f64; 3] = [1.5, -2.0, 3.25];
const B: [f64; 2] = [4.0, 0.5];

fn ab() -> Vec<(&'static str, Arg)> {
    vec![("a", Arg::Array(A.to_vec())), ("b", Arg::Array(B.to_vec()))]
}

const TWO: &str = "pub fn two(a: [f64; n], b: [f64; m]) -> ([f64; n], f64, [f64; m]) {
    (map(a, |x| x * 2.0), sum(b), map(b, |x| x + 1.0))
}";

#[test]
fn a_tuple_of_two_arrays_and_a_scalar() {
    let (_, names) = compile(TWO, "two");
    assert_eq!(names, ["out0", "out2"]);
    let got = ok(TWO, "two", &ab(), &[A.len(), B.len()]);
    assert_eq!(
        got,
        Outputs {
            arrays: vec![
                A.iter().map(|x| x * 2.0).collect(),
                B.iter().map(|x| x + 1.0).collect(),
            ],
            scalars: vec![Scalar::F64(B.iter().sum())],
        }
    );
    // A wrong length of the second output is the kernel's error; the executor checks that
    // the first was not written.
    match exec(TWO, "two", &ab(), &[A.len(), B.len() + 1]) {
        Ok(Err(m)) => assert!(m.contains("`out2`"), "{m}"),
        r => panic!("{r:?}"),
    }
}

#[test]
fn several_scalars_come_back_as_a_tuple() {
    let src = "pub fn stats(a: [f64; n]) -> (f64, [f64; n], f64) {
        (sum(a), map(a, |x| x - 1.0), vmax(a))
    }
    pub fn pair(a: [f64; n]) -> (f64, f64) { (sum(a), a[0] * 3.0) }";
    let params = [("a", Arg::Array(A.to_vec()))];
    let got = ok(src, "stats", &params, &[A.len()]);
    let max = A.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(
        got,
        Outputs {
            arrays: vec![A.iter().map(|x| x - 1.0).collect()],
            scalars: vec![Scalar::F64(A.iter().sum()), Scalar::F64(max)],
        }
    );
    assert_eq!(
        ok(src, "pair", &params, &[]).scalars,
        [Scalar::F64(A.iter().sum()), Scalar::F64(A[0] * 3.0)]
    );
}

#[test]
fn concat_of_maps_as_a_result_and_as_a_component() {
    let src = "pub fn cat(a: [f64; n], b: [f64; m]) -> [f64; n + m] {
        concat(map(a, |x| x * 2.0), map(b, |x| x + 1.0))
    }
    pub fn cat2(a: [f64; n], b: [f64; m]) -> (f64, [f64; n + m], [f64; n]) {
        (sum(a), concat(map(b, |x| x - 1.0), reverse(a)), map(a, |x| x * x))
    }";
    let cat: Vec<f64> = A
        .iter()
        .map(|x| x * 2.0)
        .chain(B.iter().map(|x| x + 1.0))
        .collect();
    assert_eq!(ok(src, "cat", &ab(), &[A.len() + B.len()]).arrays, [cat]);
    let got = ok(src, "cat2", &ab(), &[A.len() + B.len(), A.len()]);
    let cat2: Vec<f64> = B
        .iter()
        .map(|x| x - 1.0)
        .chain(A.iter().rev().copied())
        .collect();
    assert_eq!(
        got,
        Outputs {
            arrays: vec![cat2, A.iter().map(|x| x * x).collect()],
            scalars: vec![Scalar::F64(A.iter().sum())],
        }
    );
}

#[test]
fn scans_keep_every_state() {
    let src = "pub fn cumsum(x: [f64; n]) -> [f64; n] { scan(n, 0.0, |acc, i| acc + x[i]) }
    pub fn doubling(x: [f64; n]) -> [[f64; n]; 3] { scan(3, x, |acc, i| map(acc, |v| v * 2.0)) }
    pub fn both(x: [f64; n]) -> ([f64; n], [f64; n]) {
        scan(n, (0.0, 1.0), |(s, p), i| { let y = x[i]; (s + y, p * y) })
    }";
    // (`(s + x[i], p * x[i])` as the step, without the `let`, is an internal compiler error
    // after `anf` today: a tuple-state scan's step is not put in A-normal form.)
    let params = [("x", Arg::Array(A.to_vec()))];
    let mut sums = Vec::new();
    let mut prods = Vec::new();
    let (mut s, mut p) = (0.0, 1.0);
    for x in A {
        s += x;
        p *= x;
        sums.push(s);
        prods.push(p);
    }
    assert_eq!(
        ok(src, "cumsum", &params, &[A.len()]).arrays,
        [sums.clone()]
    );
    // The state after step i: x * 2^(i + 1), each state a row.
    let rows: Vec<f64> = (1..=3)
        .flat_map(|k| A.iter().map(move |v| v * f64::from(1 << k)))
        .collect();
    assert_eq!(ok(src, "doubling", &params, &[3 * A.len()]).arrays, [rows]);
    assert_eq!(
        ok(src, "both", &params, &[A.len(), A.len()]).arrays,
        [sums, prods]
    );
}

#[test]
fn a_tuple_state_ifold() {
    let src = "pub fn tf(x: [f64; n], k: usize) -> ([f64; n], f64) {
        ifold(k, (x, 0.0), |(s, q), i| (map(s, |v| v + 1.0), q + s[0]))
    }";
    for k in [0usize, 1, 4] {
        let params = [("x", Arg::Array(A.to_vec())), ("k", Arg::Usize(k))];
        let (mut s, mut q) = (A.to_vec(), 0.0);
        for _ in 0..k {
            q += s[0];
            s.iter_mut().for_each(|v| *v += 1.0);
        }
        assert_eq!(
            ok(src, "tf", &params, &[A.len()]),
            Outputs {
                arrays: vec![s],
                scalars: vec![Scalar::F64(q)],
            },
            "k = {k}"
        );
    }
}

#[test]
fn views_written_as_destinations() {
    let src = "pub fn rev(a: [f64; n]) -> [f64; n] { reverse(map(a, |x| x + 1.0)) }
    pub fn inter(a: [f64; n]) -> [f64; 2 * n] { interleave(a, map(a, |x| x * 10.0)) }
    pub fn padded(a: [f64; n]) -> [f64; n + 3] { pad(map(a, |x| x - 1.0), 2, 1, 9.0) }
    pub fn windows(a: [f64; n]) -> [[f64; 2]; n - 1] { slide(2, a) }
    pub fn joined(a: [f64; n]) -> [f64; n * 2] {
        join(build(n, |i| build(2, |j| a[i] + (j as f64))))
    }
    pub fn halves(c: [f64; 2 * n]) -> [[f64; 2]; n] { split(2, map(c, |x| x * 3.0)) }";
    let params = [("a", Arg::Array(A.to_vec()))];
    let one = |name: &str, len: usize| ok(src, name, &params, &[len]).arrays;
    let n = A.len();
    assert_eq!(
        one("rev", n),
        [A.iter().rev().map(|x| x + 1.0).collect::<Vec<_>>()]
    );
    let inter: Vec<f64> = A.iter().flat_map(|&x| [x, x * 10.0]).collect();
    assert_eq!(one("inter", 2 * n), [inter]);
    let mut padded = vec![9.0, 9.0];
    padded.extend(A.iter().map(|x| x - 1.0));
    padded.push(9.0);
    assert_eq!(one("padded", n + 3), [padded]);
    let windows: Vec<f64> = A.windows(2).flatten().copied().collect();
    assert_eq!(one("windows", 2 * (n - 1)), [windows]);
    let joined: Vec<f64> = A.iter().flat_map(|&x| [x, x + 1.0]).collect();
    assert_eq!(one("joined", 2 * n), [joined]);
    let c = [1.0, 2.0, 3.0, 4.0];
    let halves = ok(src, "halves", &[("c", Arg::Array(c.to_vec()))], &[4]);
    assert_eq!(
        halves.arrays,
        [c.iter().map(|x| x * 3.0).collect::<Vec<_>>()]
    );
}

#[test]
fn an_entry_error_leaves_every_output_untouched() {
    // w > n + 1: `n - w + 1` fails at entry, before anything is written.
    let src = "pub fn sl(a: [f64; n], w: usize) -> ([[f64; w]; n - w + 1], f64) {
        (slide(w, a), sum(a))
    }";
    let params = |w: usize| [("a", Arg::Array(A.to_vec())), ("w", Arg::Usize(w))];
    match exec(src, "sl", &params(5), &[0]) {
        Ok(Err(m)) => assert!(m.contains("underflows"), "{m}"),
        r => panic!("{r:?}"),
    }
    let got = ok(src, "sl", &params(2), &[4]);
    assert_eq!(
        got.arrays,
        [A.windows(2).flatten().copied().collect::<Vec<_>>()]
    );
    assert_eq!(got.scalars, [Scalar::F64(A.iter().sum())]);
}

#[test]
fn a_parallel_sum_adds_its_chunks_in_their_tree() {
    // 5,000 steps, each using the frame (`v`): chunks 0..1024, .., 4096..5000 from -0.0, the
    // frame as it was before the sum for each, their sums in a tree, then the first value.
    let src = "#![fsmooth(parallel = true)]
    pub fn energy(x: [f64; n], w: [f64; 2]) -> f64 {
        ifold(n, 0.5, |acc, i| { let v = build(2, |j| x[i] * w[j]); acc + (v[0] - v[1]).exp() })
    }";
    let n = 5_000;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 37) % 101) as f64 / 50.0 - 1.0)
        .collect();
    let w = [0.25, -0.5];
    let term = |i: usize| (x[i] * w[0] - x[i] * w[1]).exp();
    let chunk = |c: usize| (c * 1024..((c + 1) * 1024).min(n)).fold(-0.0, |s, i| s + term(i));
    // Five chunks: (0 + 1) + (2 + (3 + 4)).
    let tree = (chunk(0) + chunk(1)) + (chunk(2) + (chunk(3) + chunk(4)));
    let params = [("x", Arg::Array(x.clone())), ("w", Arg::Array(w.to_vec()))];
    let got = exec(src, "energy", &params, &[])
        .expect("runs clean")
        .expect("no error");
    assert_eq!(got.scalars, [Scalar::F64(0.5 + tree)]);
    // Below 4,096 steps, in order.
    let few = 4_000;
    let params = [
        ("x", Arg::Array(x[..few].to_vec())),
        ("w", Arg::Array(w.to_vec())),
    ];
    let got = exec(src, "energy", &params, &[])
        .expect("runs clean")
        .expect("no error");
    let seq = (0..few).fold(0.5, |s, i| s + term(i));
    assert_eq!(got.scalars, [Scalar::F64(seq)]);
}

#[test]
fn a_parallel_build_writes_every_row_once() {
    // 5,000 rows of 2 (a `ParRows`): the executor runs the steps in order and checks that
    // each output slot is written once; the rows are those of the plain loop.
    let src = "#![fsmooth(parallel = true)]
    pub fn rows(x: [f64; n]) -> [[f64; 2]; n] {
        build(n, |i| { let v = build(2, |j| x[i] * (j as f64 + 1.0)); [v[0] + v[1], v[1]] })
    }";
    let (f, _) = compile(src, "rows");
    let mut seen = false;
    fsmooth_core::lir::walk_sts(&f.body, &mut |n| {
        seen |= matches!(
            n,
            fsmooth_core::lir::Node::St(fsmooth_core::lir::St::ParRows { .. })
        );
    });
    assert!(seen, "a ParRows");
    let n = 5_000;
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let got = exec(src, "rows", &[("x", Arg::Array(x.clone()))], &[2 * n])
        .expect("runs clean")
        .expect("no error");
    let want: Vec<f64> = x
        .iter()
        .flat_map(|v| [v * 1.0 + v * 2.0, v * 2.0])
        .collect();
    assert_eq!(got.arrays, [want]);
}
