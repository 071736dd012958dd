//! Tests of the interchange of a `build` over folds, through the code the kernels expand to.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::middle::fuse::tests::{count, optimized};
use crate::middle::ir::Kind;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashMap;

/// The expansion of `src` with every compiler-made name (`s1_12`, `t_40`) numbered by
/// first appearance: equal for two kernels that compile to the same code.
pub(crate) fn code(src: &str) -> Vec<String> {
    fn flatten(ts: TokenStream, names: &mut HashMap<String, usize>, out: &mut Vec<String>) {
        for t in ts {
            match t {
                TokenTree::Group(g) => {
                    out.push(format!("{:?}", g.delimiter()));
                    flatten(g.stream(), names, out);
                }
                TokenTree::Ident(id) => {
                    let s = id.to_string();
                    let made = s.rsplit_once('_').is_some_and(|(a, b)| {
                        !a.is_empty() && b.bytes().all(|c| c.is_ascii_digit())
                    });
                    out.push(match made {
                        true => {
                            let next = names.len();
                            format!("v{}", names.entry(s).or_insert(next))
                        }
                        false => s,
                    });
                }
                t => out.push(t.to_string()),
            }
        }
    }
    let mut out = Vec::new();
    flatten(
        crate::expand(src.parse().unwrap()),
        &mut HashMap::new(),
        &mut out,
    );
    out
}

/// How many folds the middle leaves in `src`'s kernel.
fn folds(src: &str) -> usize {
    count(&optimized(src).body, &|k| matches!(k, Kind::Ifold(..)))
}

/// Goertzel at 8 frequencies: the fold written with an array state, and a scalar helper
/// mapped over the coefficients (written out, the helper inlined, a tuple pattern).
const ARRAY_STATE: &str = "pub fn k(x: [f32; n], c: [f32; 8]) -> [f32; 8] {
    let (s1, s2) = ifold(n, (build(8, |_| 0.0f32), build(8, |_| 0.0f32)), |(s1, s2), i| {
        (build(8, |k| x[i] + c[k] * s1[k] - s2[k]), s1)
    });
    build(8, |k| s1[k] * s1[k] + s2[k] * s2[k] - c[k] * s1[k] * s2[k])
}";

#[test]
fn a_map_over_a_scalar_fold_compiles_as_the_array_state() {
    let want = code(ARRAY_STATE);
    for src in [
        "fn power(x: [f32; n], c: f32) -> f32 {
            let (s1, s2) = ifold(n, (0.0, 0.0), |(s1, s2), i| (x[i] + c * s1 - s2, s1));
            s1 * s1 + s2 * s2 - c * s1 * s2
        }
        pub fn k(x: [f32; n], c: [f32; 8]) -> [f32; 8] { map(c, |ck| power(x, ck)) }",
        "pub fn k(x: [f32; n], c: [f32; 8]) -> [f32; 8] {
            build(8, |k| {
                let s = ifold(n, (0.0f32, 0.0f32), |s, i| (x[i] + c[k] * s.0 - s.1, s.0));
                s.0 * s.0 + s.1 * s.1 - c[k] * s.0 * s.1
            })
        }",
    ] {
        assert_eq!(folds(src), 1, "{src}");
        assert_eq!(code(src), want, "{src}");
    }
}

#[test]
fn a_sum_over_scalar_folds_compiles_as_the_array_state() {
    // The total power: fusion makes `sum(map(..))` a fold over the 8 terms, whose term the
    // rule rewrites as it does a `build`'s element.
    let want = code(
        &ARRAY_STATE
            .replace("[f32; 8] {", "f32 {")
            .replace("    build(8, |k| s1", "    sum(build(8, |k| s1")
            .replace("s2[k])\n}", "s2[k]))\n}"),
    );
    let src = "fn power(x: [f32; n], c: f32) -> f32 {
            let (s1, s2) = ifold(n, (0.0, 0.0), |(s1, s2), i| (x[i] + c * s1 - s2, s1));
            s1 * s1 + s2 * s2 - c * s1 * s2
        }
        pub fn k(x: [f32; n], c: [f32; 8]) -> f32 { sum(map(c, |ck| power(x, ck))) }";
    assert_eq!(folds(src), 1, "{}", optimized(src));
    assert_eq!(code(src), want, "{src}");
}

#[test]
fn a_map_over_a_fold_of_one_scalar_is_one_fold() {
    // A moving sum per column of a matrix of 4 columns: one pass over the rows.
    let src = "pub fn k(a: [[f64; 4]; n], w: [f64; 4]) -> [f64; 4] {
        build(4, |j| ifold(n, 0.0, |acc, i| acc * w[j] + a[i][j]))
    }";
    assert_eq!(folds(src), 1, "{}", optimized(src));
}

#[test]
fn folds_that_share_no_read_or_run_apart_stay_as_written() {
    for src in [
        // A run-time count of elements whose fold starts with a computed row: computed
        // again at every step of an interchanged fold.
        "pub fn k(t: [[f64; 4]; n], b: [f64; m], p: usize) -> [f64; n] {
            build(n, |j| {
                let row = t[(j + p) % n];
                ifold(m, 0.0, |acc, k| acc * 0.5 + (row[0] + row[3]) * b[k])
            })
        }",
        // Each fold reads only its own row: nothing read once for all.
        "pub fn k(a: [[f64; n]; 4]) -> [f64; 4] {
            build(4, |k| ifold(n, 0.0, |s, i| s * 0.5 + a[k][i]))
        }",
        // The count depends on the element.
        "pub fn k(x: [f64; n], m: [usize; 4]) -> [f64; 4] {
            build(4, |k| ifold(m[k], 0.0, |s, i| s + x[i % n]))
        }",
    ] {
        let k = optimized(src);
        let builds = count(&k.body, &|k| matches!(k, Kind::Ifold(..)));
        assert!(builds >= 1, "{k}");
        // No fold of an array of states (a literal count's folds may still run side by
        // side as one fold of a tuple: `siblings`).
        let array_state = count(
            &k.body,
            &|k| matches!(k, Kind::Ifold(_, init, ..) if init.ty.is_arr()),
        );
        assert_eq!(array_state, 0, "{src}\n{k}");
    }
}

#[test]
fn a_run_time_count_runs_interchanged_when_at_most_16() {
    // Goertzel at `m` frequencies: the array-state fold under `m <= 16` (its states in
    // local arrays of 16), the folds as written otherwise (`m` states would be in the
    // frame, swept once per sample: Horner's rule at many points).
    let src = "pub fn k(x: [f32; n], c: [f32; m]) -> [f32; m] {
        build(m, |k| ifold(n, 0.0f32, |s, i| s * c[k] + x[i]))
    }";
    let k = optimized(src);
    let tests = count(&k.body, &|e| {
        matches!(e, Kind::If(c, ..) if matches!(&c.kind, Kind::Bin(BinOp::Le, _, b, _)
            if matches!(b.kind, Kind::Size(Size::Lit(16)))))
    });
    assert_eq!(tests, 1, "{k}");
    let array_state = count(
        &k.body,
        &|e| matches!(e, Kind::Ifold(_, init, ..) if init.ty.is_arr()),
    );
    assert_eq!(array_state, 1, "{k}");
    assert_eq!(folds(src), 2, "{k}");
    let rust = crate::expand(src.parse().unwrap()).to_string();
    assert!(rust.contains("local_0"), "{rust}");
    assert!(
        rust.contains("scratch_len (n : usize , m : usize) -> usize { 0usize }"),
        "{rust}"
    );
}

#[test]
fn a_transposed_build_of_scans_compiles_as_the_scan_of_rows() {
    // Running sums per feature, by columns then transposed, and as one scan of rows.
    let rows = "pub fn k(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
        scan(n, build(d, |_| 0.0), |s, i| add(s, x[i]))
    }";
    let want = code(rows);
    for src in [
        "pub fn k(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
            transpose(build(d, |j| scan(n, 0.0, |s, i| s + x[i][j])))
        }",
        "pub fn k(x: [[f64; d]; n], d: usize) -> [[f64; d]; n] {
            let cols = build(d, |j| scan(n, 0.0, |s, i| s + x[i][j]));
            build(n, |i| build(d, |j| cols[j][i]))
        }",
    ] {
        assert_eq!(code(src), want, "{src}\n{}", optimized(src));
    }
    // Columns read whole stay as written (the result, written column by column).
    let src = "pub fn k(x: [[f64; d]; n], d: usize) -> ([[f64; n]; d], f64) {
        let cols = build(d, |j| scan(n, 0.0, |s, i| s + x[i][j]));
        (cols, cols[0][0])
    }";
    let k = optimized(src);
    assert_eq!(
        count(
            &k.body,
            &|e| matches!(e, Kind::Scan(_, init, ..) if init.ty.is_arr())
        ),
        0,
        "{k}"
    );
}

#[test]
fn a_flat_fold_over_rounds_of_points_compiles_as_the_nested_folds() {
    let nested = "pub fn k(f: [f64; n], steps: usize) -> [f64; n] {
        ifold(steps, build(n, |_| 0.0), |u, _| ifold(n, u, |v, i| {
            let l = if i > 0 { v[i - 1] } else { 0.0 };
            build(n, |j| if j == i { 0.5 * (l + f[i]) } else { v[j] })
        }))
    }";
    let want = code(nested);
    for flat in [
        "pub fn k(f: [f64; n], steps: usize) -> [f64; n] {
            ifold(steps * n, build(n, |_| 0.0), |v, t| {
                let i = t % n;
                let l = if i > 0 { v[i - 1] } else { 0.0 };
                build(n, |j| if j == i { 0.5 * (l + f[i]) } else { v[j] })
            })
        }",
        "pub fn k(f: [f64; n], steps: usize) -> [f64; n] {
            ifold(n * steps, build(n, |_| 0.0), |v, t| {
                let i = t % n;
                let l = if i > 0 { v[i - 1] } else { 0.0 };
                build(n, |j| if j == i { 0.5 * (l + f[i]) } else { v[j] })
            })
        }",
    ] {
        assert_eq!(code(flat), want, "{flat}\n{}", optimized(flat));
    }
    // A step reading the round (`t / n`) stays flat.
    let k = optimized(
        "pub fn k(f: [f64; n], steps: usize) -> [f64; n] {
            ifold(steps * n, build(n, |_| 0.0), |v, t| {
                let i = t % n;
                build(n, |j| if j == i { v[j] + ((t / n) as f64) * f[i] } else { v[j] })
            })
        }",
    );
    assert_eq!(folds_in(&k.body), 1, "{k}");
}

fn folds_in(e: &crate::middle::ir::Core) -> usize {
    count(e, &|k| matches!(k, Kind::Ifold(..)))
}
