//! LANGUAGE.md section 16 in the front end: Rust's float constants and array patterns
//! (desugared by the parser), Rust's rounding division in sizes, literals typed by their
//! context, errors that name the construct to use, and sizes read from the simplest length.

use crate::front::diag::Diags;
use crate::middle::ir::{Core, Kernel, Kind, Pin};
use crate::middle::validate::{Rules, validate};

/// The kernels of `src` and the errors.
fn run(src: &str) -> (Vec<Kernel>, Vec<String>) {
    let mut d = Diags::default();
    let block = crate::pipeline::front(src.parse().unwrap(), &mut d);
    (block.map(|b| b.kernels).unwrap_or_default(), d.messages())
}

/// The only kernel of `src`, which must check cleanly and be well typed.
fn kernel(src: &str) -> Kernel {
    let (mut ks, errs) = run(src);
    assert!(errs.is_empty(), "{src}\n{errs:#?}");
    assert_eq!(ks.len(), 1, "{src}");
    let problems = validate(&ks[0], Rules { anf: false });
    assert!(problems.is_empty(), "{src}\n{problems:#?}");
    ks.remove(0)
}

/// The float literals of the only kernel of `src`, in evaluation order, as `value: type`.
fn literals(src: &str) -> Vec<String> {
    fn walk(c: &Core, out: &mut Vec<String>) {
        if let Kind::Float(v) = c.kind {
            out.push(format!("{v:?}: {}", c.ty));
        }
        for x in c.children() {
            walk(x, out);
        }
    }
    let mut out = Vec::new();
    walk(&kernel(src).body, &mut out);
    out
}

/// The one error of `src`.
#[track_caller]
fn error(src: &str) -> String {
    let (_, errs) = run(src);
    assert_eq!(errs.len(), 1, "{src}\n{errs:#?}");
    errs[0].clone()
}

#[test]
fn float_constants_are_literals_of_their_type() {
    let pi64 = format!("{:?}: f64", std::f64::consts::PI);
    let pi32 = format!("{:?}: f32", f64::from(std::f32::consts::PI));
    for path in [
        "std::f64::consts::PI",
        "core::f64::consts::PI",
        "f64::consts::PI",
        "::std::f64::consts::PI",
    ] {
        let src = format!("pub fn k(x: f64) -> f64 {{ x * {path} }}");
        assert_eq!(literals(&src), [pi64.as_str()], "{path}");
    }
    for path in [
        "std::f32::consts::PI",
        "core::f32::consts::PI",
        "f32::consts::PI",
    ] {
        let src = format!("pub fn k(x: f32) -> f32 {{ x * {path} }}");
        assert_eq!(literals(&src), [pi32.as_str()], "{path}");
    }
    // Every stable constant, at both widths: the f32 one is exactly Rust's.
    macro_rules! each {
        ($($n:ident),*) => {$(
            let src = format!("pub fn k() -> f64 {{ std::f64::consts::{} }}", stringify!($n));
            assert_eq!(literals(&src), [format!("{:?}: f64", std::f64::consts::$n)]);
            let src = format!("pub fn k() -> f32 {{ core::f32::consts::{} }}", stringify!($n));
            assert_eq!(literals(&src), [format!("{:?}: f32", f64::from(std::f32::consts::$n))]);
        )*};
    }
    each!(
        PI,
        TAU,
        E,
        SQRT_2,
        FRAC_1_SQRT_2,
        LN_2,
        LN_10,
        LOG2_E,
        LOG10_E,
        LOG2_10,
        LOG10_2,
        FRAC_PI_2,
        FRAC_PI_3,
        FRAC_PI_4,
        FRAC_PI_6,
        FRAC_PI_8,
        FRAC_1_PI,
        FRAC_2_PI,
        FRAC_2_SQRT_PI
    );
}

#[test]
fn a_use_brings_constants_in_by_name() {
    let pi = format!("{:?}: f64", std::f64::consts::PI);
    let tau32 = format!("{:?}: f32", f64::from(std::f32::consts::TAU));
    assert_eq!(
        literals("use std::f64::consts::PI;\npub fn k(x: f64) -> f64 { x * PI }"),
        [pi.as_str()]
    );
    // Below its use, as in Rust; a glob; a rename; a group.
    assert_eq!(
        literals("pub fn k(x: f64) -> f64 { x * PI }\nuse core::f64::consts::*;"),
        [pi.as_str()]
    );
    assert_eq!(
        literals("use std::f32::consts::TAU as T;\npub fn k(x: f32) -> f32 { x * T }"),
        [tau32.as_str()]
    );
    assert_eq!(
        literals("use f64::consts::{PI, E};\npub fn k() -> f64 { PI * E }"),
        [pi, format!("{:?}: f64", std::f64::consts::E)]
    );
}

#[test]
fn constants_have_their_own_type() {
    // An f64 constant is an f64, as in Rust: not retyped by its context.
    let e = error("pub fn k(x: f32) -> f32 { x * std::f64::consts::PI }");
    assert!(e.contains("f32") && e.contains("f64"), "{e}");
    let e = error("pub fn k() -> f64 { std::f64::consts::PII }");
    assert!(
        e.contains("no constant `PII` in `std::f64::consts`") && e.contains("`PI`"),
        "{e}"
    );
    let e = error("use std::f64::consts::PY;\npub fn k() -> f64 { 1.0 }");
    assert!(e.contains("no constant `PY`"), "{e}");
    // Rust's associated constants, where the contract is silent, are Rust's too.
    assert_eq!(
        literals("pub fn k() -> f64 { std::f64::MAX }"),
        literals(&format!("pub fn k() -> f64 {{ {:?} }}", f64::MAX))
    );
    let e = error("pub fn k() -> f64 { f64::NEG_INFINITYY }");
    assert!(
        e.contains("no constant `NEG_INFINITYY` of `f64`") && e.contains("`NEG_INFINITY`?"),
        "{e}"
    );
    let e = error("pub fn k() -> f64 { i64::MAX as f64 }");
    assert!(e.contains("float constants"), "{e}");
}

#[test]
fn array_patterns_bind_elements() {
    for src in [
        "pub fn k(q: [f64; 4]) -> f64 { let [w, x, y, z] = q; w * x + y - z }",
        "pub fn k(q: [f64; 4]) -> f64 { let [w, _, y, _] = q; w + y }",
        "pub fn k(q: [f64; 2], s: f64) -> f64 { let ([a, b], t) = (q, s); a * b + t }",
        "pub fn k(m: [[f64; 3]; 2]) -> f64 { let [r0, r1] = m; r0[2] - r1[0] }",
        "pub fn k(m: [[f64; 2]; 2]) -> f64 { let [[a, b], [c, d]] = m; a * d - b * c }",
        "pub fn k(p: [[f64; 2]; n]) -> [f64; n] { map(p, |[x, y]| x * y) }",
        "pub fn k(p: [[f64; 2]; n]) -> f64 { ifold(n, [0.0, 0.0], |[a, b], i| [a + p[i][0], b + p[i][1]])[1] }",
        "pub fn k(v: [f32; 3]) -> f32 { let [a, b, c]: [f32; 3] = v; a + b + c }",
    ] {
        kernel(src);
    }
}

#[test]
fn a_wrong_array_pattern_is_one_error_naming_both_lengths() {
    let e = error("pub fn k(q: [f64; 3]) -> f64 { let [a, b] = q; a + b }");
    assert!(
        e.contains("`[a, b]` has 2 elements") && e.contains("an array of 3"),
        "{e}"
    );
    let e = error("pub fn k(q: [f64; 2]) -> f64 { let [a, b, c] = q; a + b + c }");
    assert!(
        e.contains("3 elements") && e.contains("an array of 2"),
        "{e}"
    );
    let e = error("pub fn k(q: [f64; n]) -> f64 { let [a, b] = q; a + b }");
    assert!(e.contains("literal length"), "{e}");
    let e = error("pub fn k(x: f64) -> f64 { let [a, b] = x; a + b }");
    assert!(e.contains("takes apart an array"), "{e}");
    let e = error("pub fn k(p: [[f64; 3]; n]) -> [f64; n] { map(p, |[x, y]| x * y) }");
    assert!(e.contains("an array of 3"), "{e}");
    let e = error("pub fn k(q: [f64; 3]) -> f64 { let [a, ..] = q; a }");
    assert!(e.contains("no `..`"), "{e}");
}

#[test]
fn a_rejected_array_pattern_in_a_closure_is_one_error() {
    let e = error("pub fn k(p: [[f64; 3]; n]) -> [f64; n] { map(p, |[x, ..]| x) }");
    assert!(e.contains("no `..`"), "{e}");
}

#[test]
fn literal_arrays_take_the_type_their_context_needs() {
    let mut bad = Vec::new();
    for src in [
        // An ifold's start in an f32 kernel.
        "pub fn k(x: [f32; 8]) -> [f32; 8] { ifold(3, build(8, |_| 0.0), |acc, t| build(8, |j| acc[j] + x[j])) }",
        // A tuple component of an f32 fold state.
        "pub fn k(x: [f32; 8]) -> ([f32; 8], f32) { ifold(3, (build(8, |_| 0.0), 0.0f32), |(a, s), t| (build(8, |j| a[j] + x[j]), s + x[t])) }",
        "pub fn k(x: [f32; 8]) -> f32 { let (a, s) = ifold(3, (build(8, |_| 0.0), 0.0), |(a, s), t| (build(8, |j| a[j] + x[j]), s + x[t])); a[0] + s }",
        // An argument of an f32 helper.
        "fn h(v: [f32; 8]) -> f32 { v[0] }\npub fn k() -> f32 { h(build(8, |_| 0.5)) }",
        // Added to and compared with f32 arrays.
        "pub fn k(x: [f32; 8]) -> [f32; 8] { add(x, build(8, |_| 1.0)) }",
        "pub fn k(x: [f32; 8]) -> [f32; 8] { let z = build(8, |_| 1.0); add(z, x) }",
        "pub fn k(x: [f32; 8]) -> bool { let z = build(8, |_| 1.0); z[0] < x[0] }",
        // Returned as an f32 result.
        "pub fn k() -> [f32; 8] { build(8, |_| 0.0) }",
        "pub fn k() -> [f32; 8] { let z = build(8, |_| 0.0); z }",
        "pub fn k(x: f32) -> ([f32; 2], f32) { let z = [0.0, 1.0]; (z, x) }",
        "pub fn k(x: [f32; 8]) -> f32 { let z = build(8, |_| 0.0); let s = ifold(3, z, |acc, t| build(8, |j| acc[j] + x[j])); s[1] }",
        "pub fn k(x: [f32; 8]) -> f32 { let z = build(8, |_| 2.0); dot(z, x) }",
        "pub fn k(x: [f32; 8]) -> [f32; 8] { let z = build(8, |i| if i == 0 { 1.0 } else { 0.5 }); emul(x, z) }",
    ] {
        let (ks, errs) = run(src);
        if !errs.is_empty() || ks.len() != 1 {
            bad.push(format!("{src}\n{errs:#?}"));
            continue;
        }
        let lits = literals(src);
        if !lits.iter().all(|l| l.ends_with(": f32")) {
            bad.push(format!("{src}\n{lits:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

#[test]
fn loops_and_assignments_name_the_construct_to_use() {
    let e = error("pub fn k(x: f64) -> f64 { let mut s = x; while s < 1.0 { s = s * 2.0; } s }");
    assert!(
        e.contains("`while`") && e.contains("iterate") && e.contains("ifold") && e.contains("scan"),
        "{e}"
    );
    let e = error("pub fn k(x: f64) -> f64 { let mut s = x; loop { s = s * 2.0; } s }");
    assert!(e.contains("`loop`") && e.contains("iterate"), "{e}");
    let e =
        error("pub fn k(v: [f64; n]) -> f64 { let mut s = 0.0; for i in 0..n { s += v[i]; } s }");
    assert!(
        e.contains("`for`") && e.contains("ifold") && e.contains("scan") && e.contains("iterate"),
        "{e}"
    );
    for assign in ["h[i] = 1.0;", "h[i] += 1.0;", "h = x;"] {
        let src =
            format!("pub fn k(x: [f64; 3], i: usize) -> [f64; 3] {{ let mut h = x; {assign} h }}");
        let e = error(&src);
        assert!(
            e.contains("scatter_add") && e.contains("if j == k"),
            "{assign}: {e}"
        );
    }
    // `mut` alone is still an error.
    let e = error("pub fn k(x: f64) -> f64 { let mut y = x; y }");
    assert!(e.contains("remove `mut`"), "{e}");
}

#[test]
fn a_let_that_reads_itself_names_ifold_and_scan() {
    for src in [
        "pub fn k(v: [f64; n]) -> f64 { let s = s + v[0]; s }",
        "pub fn k(v: [f64; n]) -> f64 { let x = x[0]; x }",
        "pub fn k(v: [f64; n]) -> f64 { let (a, s) = (v[0], s + 1.0); a + s }",
        "pub fn k(v: [f64; 2]) -> f64 { let [a, b] = [b, v[0]]; a + b }",
    ] {
        let e = error(src);
        assert!(
            e.contains("read in its own definition") && e.contains("ifold") && e.contains("scan"),
            "{src}: {e}"
        );
    }
    // Shadowing an earlier binding, or a closure's own parameter, is fine.
    kernel("pub fn k(v: [f64; n]) -> f64 { let s = v[0]; let s = s + 1.0; s }");
    kernel("pub fn k(v: [f64; n]) -> [f64; n] { let s = map(v, |s| s * 2.0); s }");
}

#[test]
fn a_size_is_read_from_the_length_that_is_the_name_alone() {
    let k = kernel(
        "pub fn dense(x: [f32; ni], w: [[f32; ni]; no], b: [f32; no]) -> [f32; no] { build(no, |o| b[o] + w[o][0] * x[0]) }",
    );
    let from = |name: &str| {
        k.pins.iter().find_map(|p| match p {
            Pin::FromLen { name: n, param, .. } if n == name => Some(param.clone()),
            _ => None,
        })
    };
    assert_eq!(from("ni").as_deref(), Some("x"));
    assert_eq!(from("no").as_deref(), Some("b"));
    // Pinned by a product alone, as before.
    let k = kernel("pub fn k(v: [[f64; 3]; n]) -> [f64; n] { map(v, |r| sum(r)) }");
    assert!(
        matches!(&k.pins[..], [Pin::FromLen { name, others, .. }] if name == "n" && others.len() == 1)
    );
}

#[test]
fn an_array_of_copies_names_build() {
    let e = error("pub fn k(x: [f64; d]) -> [f64; d] { let z = [0.0; d]; add(x, z) }");
    assert!(
        e.contains("`[v; n]` is not part of fsmooth: write `build(d, |_| 0.0)`"),
        "{e}"
    );
}
