//! The float type each literal gets from its context (LANGUAGE.md section 11), read from
//! the elaborated core (no lowering), and the errors of mixing `f32`, `f64` and `usize`.

use crate::front::diag::Diags;
use crate::middle::ir::{Core, Kernel, Kind};
use crate::middle::validate::{Rules, validate};

/// The kernels of `src` and the errors.
fn run(src: &str) -> (Vec<Kernel>, Vec<String>) {
    let mut d = Diags::default();
    let block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
    (block.kernels, d.messages())
}

/// The float literals of the only kernel of `src`, in evaluation order, as `value: type`;
/// the kernel must check cleanly and be well typed.
fn literals(src: &str) -> Vec<String> {
    let (ks, errs) = run(src);
    assert!(errs.is_empty(), "{src}\n{errs:#?}");
    assert_eq!(ks.len(), 1, "{src}");
    let problems = validate(&ks[0], Rules { anf: false });
    assert!(problems.is_empty(), "{src}\n{problems:#?}");
    fn walk(c: &Core, out: &mut Vec<String>) {
        if let Kind::Float(v) = c.kind {
            out.push(format!("{v:?}: {}", c.ty));
        }
        for x in c.children() {
            walk(x, out);
        }
    }
    let mut out = Vec::new();
    walk(&ks[0].body, &mut out);
    out
}

/// The one error of `src`.
fn error(src: &str) -> String {
    let (ks, errs) = run(src);
    assert!(ks.is_empty(), "{src}");
    assert_eq!(errs.len(), 1, "{src}\n{errs:#?}");
    errs[0].clone()
}

#[test]
fn without_an_expectation_a_literal_is_f64() {
    assert_eq!(
        literals("pub fn k(x: f64) -> f64 { x * 2.0 }"),
        ["2.0: f64"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> f64 { let y = 1.5; y + x as f64 }"),
        ["1.5: f64"]
    );
    // Inside a cast nothing is expected: Rust's `2.5 as f32` is an f64 cast too.
    assert_eq!(literals("pub fn k() -> f32 { 2.5 as f32 }"), ["2.5: f64"]);
}

#[test]
fn the_other_operand_sets_the_type() {
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { x * 2.0 }"),
        ["2.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { 2.0 * x }"),
        ["2.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { (1.0 + 2.0) * x - 0.5 }"),
        ["1.0: f32", "2.0: f32", "0.5: f32"]
    );
    // Comparisons too, though their result is a bool.
    assert_eq!(
        literals("pub fn k(x: f32) -> bool { x < 1.0 && 0.0 <= x }"),
        ["1.0: f32", "0.0: f32"]
    );
    // Negated literals.
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { x * -1.5 }"),
        ["1.5: f32"]
    );
}

#[test]
fn declared_types_set_the_type() {
    assert_eq!(literals("pub fn k() -> f32 { 1.5 }"), ["1.5: f32"]);
    assert_eq!(literals("pub fn k() -> f32 { -0.25 }"), ["0.25: f32"]);
    assert_eq!(
        literals("pub fn k(x: f64) -> f64 { let y: f32 = 0.5; x * (y as f64) }"),
        ["0.5: f32"]
    );
    assert_eq!(
        literals("pub fn k() -> (f32, f64) { (1.0, 2.0) }"),
        ["1.0: f32", "2.0: f64"]
    );
    // A suffix fixes the type, whatever the context.
    assert_eq!(
        literals("pub fn k() -> f64 { 2.0f32 as f64 }"),
        ["2.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { x * (2.0f64 as f32) }"),
        ["2.0: f64"]
    );
}

#[test]
fn branches_items_and_bodies_take_the_expected_type() {
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { if x > 0.0 { x } else { 0.0 } }"),
        ["0.0: f32", "0.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { if x > 0.0 { 1.0 } else { x } }"),
        ["0.0: f32", "1.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> [f32; 3] { [1.0, x, -2.0] }"),
        ["1.0: f32", "2.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(n: usize) -> [[f32; 2]; n] { build(n, |i| [0.0, i as f32]) }"),
        ["0.0: f32"]
    );
    assert_eq!(
        literals(
            "pub fn k(v: [f32; n]) -> [f32; n] { build(n, |i| if i == 0 { 0.0 } else { v[i] }) }"
        ),
        ["0.0: f32"]
    );
}

#[test]
fn math_arguments_take_the_receivers_type() {
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { x.max(0.0).powf(1.5) + x.clamp(-1.0, 1.0) }"),
        ["0.0: f32", "1.5: f32", "1.0: f32", "1.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { 0.5.min(x) + x.mul_add(2.0, 3.0) }"),
        ["0.5: f32", "2.0: f32", "3.0: f32"]
    );
    // `x.powi(-2)` is `1.0 / x.powi(2)`, in x's type.
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { x.powi(-2) }"),
        ["1.0: f32"]
    );
}

#[test]
fn call_arguments_take_the_parameters_type() {
    // A concrete parameter.
    assert_eq!(
        literals("fn h(s: f32) -> f32 { s }\npub fn k() -> f32 { h(1.0) }"),
        ["1.0: f32"]
    );
    // An element type bound by another argument.
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> [f32; n] { smul(v, 2.0) }"),
        ["2.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(v: [f32; 3]) -> [f32; 3] { add([1.0, 2.0, 3.0], v) }"),
        ["1.0: f32", "2.0: f32", "3.0: f32"]
    );
    // Only literals: the call's context.
    assert_eq!(
        literals("pub fn k() -> [f32; 3] { cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]) }").len(),
        6
    );
    assert!(
        literals("pub fn k() -> [f32; 3] { cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]) }")
            .iter()
            .all(|l| l.ends_with(": f32"))
    );
    // A closure's body.
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> [f32; n] { map(v, |x| x * 0.5) }"),
        ["0.5: f32"]
    );
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> [f32; n] { map(v, |x| 0.5) }"),
        ["0.5: f32"]
    );
}

#[test]
fn the_prelude_works_at_f32() {
    // `sum`'s start, -0.0, and `vmax`'s, -1.0 / 0.0, are f32s.
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> f32 { sum(v) }"),
        ["0.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> f32 { vmax(v) }"),
        ["1.0: f32", "0.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> f32 { logsumexp(v) }").len(),
        3
    );
    for src in [
        "pub fn k(a: [f32; n], b: [f32; n]) -> f32 { norm(sub(a, b)) + dot(a, b) }",
        "pub fn k(a: [[f32; k]; n], b: [[f32; m]; k], m: usize) -> [[f32; m]; n] { matmul(a, b) }",
        "pub fn k(a: [[f32; m]; n], v: [f32; m]) -> [f32; n] { matvec(a, v) }",
        "pub fn k(a: [f32; n], b: [f32; m]) -> [[f32; m]; n] { msmul(madd(outer(a, b), outer(a, b)), 0.5) }",
        "pub fn k(a: [[f32; m]; n], m: usize) -> [[f32; n]; m] { transpose(msub(a, a)) }",
        "pub fn k(a: [f32; 3], b: [f32; 3]) -> [f32; 3] { cross(a, emul(a, b)) }",
        "pub fn k(a: [f32; n], b: [f32; n]) -> [f32; n] { map2(a, b, |x, y| x * y + 1.0) }",
    ] {
        assert!(literals(src).iter().all(|l| l.ends_with(": f32")), "{src}");
    }
    // And at f64 as before.
    assert_eq!(
        literals("pub fn k(v: [f64; n]) -> f64 { sum(v) }"),
        ["0.0: f64"]
    );
}

#[test]
fn a_let_or_an_ifold_start_takes_the_type_its_uses_need() {
    // A `let` of a literal: an f32 once a use meets one.
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { let c = 0.5; let d = c * 2.0; x * d + c }"),
        ["0.5: f32", "2.0: f32"]
    );
    // An `ifold` started at a literal: from its body.
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> f32 { let s = ifold(n, 0.0, |acc, i| acc + v[i]); s }"),
        ["0.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> f32 { ifold(n, 0.0, |acc, i| v[i]) + v[0] }"),
        ["0.0: f32"]
    );
    // Component by component; and the count, an f64 in its own body, from a later use.
    assert_eq!(
        literals(
            "pub fn k(v: [f32; n]) -> f32 { let (s, c) = ifold(n, (0.0, 0.0), |(s, c), i| (s + v[i], c + 1.0)); s / c }"
        ),
        ["0.0: f32", "0.0: f32", "1.0: f32"]
    );
    assert_eq!(
        literals(
            "pub fn k(v: [f32; n]) -> (f32, f64) { ifold(n, (0.0, 0.0), |(s, c), i| (s + v[i], c + 1.0)) }"
        ),
        ["0.0: f32", "0.0: f64", "1.0: f64"]
    );
    // A scan's states.
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> [f32; n] { scan(n, 0.0, |acc, i| acc + v[i]) }"),
        ["0.0: f32"]
    );
    // A `let` of a literal passed to a call, started from, or returned.
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> [f32; n] { let s = 0.5; smul(v, s) }"),
        ["0.5: f32"]
    );
    assert_eq!(
        literals("pub fn k(v: [f32; n]) -> f32 { let z = 0.0; ifold(n, z, |acc, i| acc + v[i]) }"),
        ["0.0: f32"]
    );
    assert_eq!(
        literals("pub fn k() -> f32 { let c = 2.0; c }"),
        ["2.0: f32"]
    );
    assert_eq!(
        literals("pub fn k(x: f32) -> f32 { let c = 2.0; let d = c; x * d }"),
        ["2.0: f32"]
    );
    // A body that clashes with the start both ways is one error, not an endless retry.
    let e = error(
        "pub fn k(v: [f32; n], w: [f64; n]) -> f32 { ifold(n, 0.0, |acc, i| if acc > v[i] { w[i] } else { acc }) }",
    );
    assert!(e.contains("mismatched types"), "{e}");
    // A helper generic in T: its literals follow T.
    assert_eq!(
        literals(
            "fn half(v: [T; n]) -> [T; n] { build(n, |i| v[i] * 0.5) }\npub fn k(v: [f32; n]) -> [f32; n] { half(v) }"
        ),
        ["0.5: f32"]
    );
}

#[test]
fn mixing_f32_and_f64_names_both_and_the_cast() {
    let e = error("pub fn k(x: f32, y: f64) -> f32 { x + y }");
    assert!(
        e.contains("found `f32` and `f64`") && e.contains("`y as f32`") && e.contains("`as f64`"),
        "{e}"
    );
    // A suffixed literal is blamed, and told to drop its suffix.
    let e = error("pub fn k(x: f32) -> f32 { 2.0f64 * x }");
    assert!(e.contains("write `2.0`"), "{e}");
    let e = error("pub fn k(x: f32, y: f64) -> bool { x < y }");
    assert!(e.contains("`<` needs both sides"), "{e}");
    let e = error("pub fn k(x: f32, y: f64) -> f32 { x.max(y) }");
    assert!(
        e.contains("`max` takes arguments of its receiver's type, `f32`, found `f64`")
            && e.contains("`y as f32`"),
        "{e}"
    );
    let e = error("pub fn k(x: f32, y: f64, c: bool) -> f32 { if c { x } else { y } }");
    assert!(
        e.contains("mismatched types: `if` branches") && e.contains("`y as f32`"),
        "{e}"
    );
    let e = error("pub fn k(x: f32, y: f64) -> [f32; 2] { [x, y] }");
    assert!(
        e.contains("array literal elements") && e.contains("`y as f32`"),
        "{e}"
    );
    let e = error("pub fn k(v: [f32; n], s: f64) -> [f32; n] { smul(v, s) }");
    assert!(
        e.contains("argument `s` of `smul` expects `f32`, found `f64`") && e.contains("`s as f32`"),
        "{e}"
    );
    let e = error("pub fn k(a: [f32; n], b: [f64; n]) -> [f32; n] { add(a, b) }");
    assert!(
        e.contains("expects `[f32; n]`, found `[f64; n]`") && e.contains("map(b, |x| x as f32)"),
        "{e}"
    );
    let e = error("pub fn k(v: [f32; n], w: [f64; n]) -> f32 { ifold(n, v[0], |acc, i| w[i]) }");
    assert!(
        e.contains("the `ifold` body gives `f64`, but the accumulator starts as `f32`"),
        "{e}"
    );
    let e = error("pub fn k(x: f32) -> f64 { x * 2.0 }");
    assert!(
        e.contains("`k` declares `f64`, but its body gives `f32`")
            && e.contains("`(x * 2.0) as f64`"),
        "{e}"
    );
    let e = error("pub fn k(x: f64) -> f64 { let y: f32 = x; 0.0 }");
    assert!(
        e.contains("`y` is declared `f32`, but its value is `f64`") && e.contains("`x as f32`"),
        "{e}"
    );
    // A literal bound by a `let` that meets both types: one error, not a retry loop.
    let e = error("pub fn k(x: f32, y: f64) -> f64 { let c = 2.0; (x * c) as f64 + y * c }");
    assert!(e.contains("found `f64` and `f32`"), "{e}");
}

#[test]
fn usize_and_floats_do_not_mix() {
    let e = error("pub fn k(x: f32, n: usize) -> f32 { x * n }");
    assert!(
        e.contains("found `f32` and `usize`") && e.contains("`n as f32`"),
        "{e}"
    );
    let e = error("pub fn k(x: f32) -> f32 { x * 2 }");
    assert!(e.contains("write `2.0` for an f32"), "{e}");
    let e = error("pub fn k(v: [usize; n]) -> f64 { v[0] * 2.0 }");
    assert!(
        e.contains("found `usize` and `f64`") && e.contains("`v[0] as f64`"),
        "{e}"
    );
    let e = error("pub fn k(v: [f64; n]) -> [f32; n] { v as f32 }");
    assert!(
        e.contains("cannot cast `[f64; n]`") && e.contains("map(v, |x| x as f32)"),
        "{e}"
    );
    let e = error("pub fn k(v: [f32; n], x: f32) -> f32 { v[x] }");
    assert!(
        e.contains("an index is a `usize`, found `f32`") && e.contains("as usize"),
        "{e}"
    );
}

#[test]
fn usize_has_min_max_and_clamp() {
    let (ks, errs) = run(
        "pub fn k(v: [f64; n]) -> [f64; n] { build(n, |i| v[(i + 1).min(n - 1)] + v[i.max(1) - 1] + v[i.clamp(1, n - 1)]) }",
    );
    assert!(errs.is_empty(), "{errs:#?}");
    assert!(validate(&ks[0], Rules { anf: false }).is_empty());
    let e = error("pub fn k(n: usize) -> usize { n.min(2.0) }");
    assert!(
        e.contains("`min` on a `usize` takes `usize` arguments, found `f64`"),
        "{e}"
    );
    let e = error("pub fn k(n: usize) -> f64 { n.sqrt() }");
    assert!(
        e.contains("`sqrt` is a method of `f64` and `f32`, but this is `usize`")
            && e.contains("`n as f64`"),
        "{e}"
    );
}

#[test]
fn usize_arrays_are_values() {
    for src in [
        "pub fn k(cams: [[f64; 9]; c], obs: [[usize; 2]; p]) -> [f64; p] { build(p, |j| cams[obs[j][0]][0]) }",
        "pub fn k(idx: [usize; p], v: [f64; n]) -> f64 { ifold(p, 0.0, |acc, j| acc + v[idx[j]]) }",
        "pub fn k(v: [f64; n]) -> [usize; n] { map(v, |x| x as usize) }",
        "pub fn k(n: usize) -> [usize; n] { build(n, |i| (i + 1) % n) }",
        "pub fn k(v: [usize; n]) -> [f32; n] { map(v, |x| x as f32) }",
        "pub fn k(m: [[f64; c]; r], c: usize) -> [usize; r] { build(r, |i| ifold(c, 0, |b, j| if m[i][j] > m[i][b] { j } else { b })) }",
        "pub fn k(v: [usize; n]) -> [usize; n] { scan(n, 0, |acc, i| acc + v[i]) }",
    ] {
        let (ks, errs) = run(src);
        assert!(errs.is_empty(), "{src}\n{errs:#?}");
        assert!(validate(&ks[0], Rules { anf: false }).is_empty(), "{src}");
    }
    let e = error("pub fn k(v: [f64; n]) -> f64 { let b = build(n, |i| v[i] > 0.0); 0.0 }");
    assert!(e.contains("arrays hold `f64`, `f32` or `usize`"), "{e}");
}

#[test]
fn a_matrix_where_a_vector_goes_is_still_an_argument_of_the_wrong_rank() {
    let e = error("pub fn k(a: [[f64; 3]; 3], v: [f64; 3]) -> f64 { dot(a, v) }");
    assert!(
        e.contains("argument `a` of `dot` expects `[f64; 3]`, found `[[f64; 3]; 3]`"),
        "{e}"
    );
    let e = error("pub fn k(x: f64) -> f64 { sum(x) }");
    assert!(
        e.contains("argument `v` of `sum` expects `[f64; n]`, found `f64`"),
        "{e}"
    );
    // `map` and `transpose` take rows.
    let (_, errs) =
        run("pub fn k(a: [[[f32; 2]; m]; n], m: usize) -> [[[f32; 2]; n]; m] { transpose(a) }");
    assert!(errs.is_empty(), "{errs:#?}");
}
