use super::*;
use crate::middle::ir::Kernel;

fn run(src: &str) -> (Vec<Kernel>, Vec<String>) {
    let mut d = Diags::default();
    let block = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
    (block.kernels, d.messages())
}

#[test]
fn prelude_checks_clean() {
    let mut d = Diags::default();
    crate::pipeline::front(PRELUDE.parse().unwrap(), &mut d).unwrap();
    assert!(d.is_empty(), "{:?}", d.messages());
}

#[test]
fn shapes_flow_through_calls() {
    let (ks, errs) = run("pub fn k(a: [f64; n], b: [f64; n]) -> f64 { norm(add(a, b)) }");
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(ks.len(), 1);
    assert_eq!(ks[0].sizes, vec!["n".to_string()]);
}

#[test]
fn reports_mismatched_arguments_with_both_shapes() {
    let (_, errs) = run("pub fn k(a: [f64; 3], b: [f64; 4]) -> [f64; 3] { add(a, b) }");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("[f64; 3]") && errs[0].contains("[f64; 4]"),
        "{}",
        errs[0]
    );
    let (_, errs) = run("pub fn k(a: [f64; n], b: [f64; m]) -> [f64; n] { add(a, b) }");
    assert!(
        errs[0].contains("`n` = m") || errs[0].contains("[f64; n]"),
        "{errs:?}"
    );
}

#[test]
fn sizes_are_polynomials() {
    let (_, errs) = run("pub fn k(a: [f64; n]) -> [f64; 2 * n] { build(n + n, |i| a[i % n]) }");
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn collects_independent_errors() {
    let (_, errs) = run(
        "pub fn k(a: [f64; n]) -> f64 { sum(a) + 1 }\n pub fn j(a: [f64; n]) -> f64 { sqnrom(a) }",
    );
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[1].contains("sqnorm"));
}

#[test]
fn data_dependent_sizes_and_recursion_are_rejected() {
    let (_, errs) = run("pub fn k(a: [f64; n]) -> f64 { sum(build(a[0] as usize, |i| 1.0)) }");
    assert!(errs[0].contains("depends on data"), "{errs:?}");
    let (_, errs) = run("fn f(x: f64) -> f64 { f(x) }\npub fn k(x: f64) -> f64 { f(x) }");
    assert!(errs.iter().any(|e| e.contains("recursion")), "{errs:?}");
}

#[test]
fn exponential_inlining_is_cut_off() {
    let mut src = String::from("fn f0(x: f64) -> f64 { x }\n");
    for k in 1..40 {
        src += &format!(
            "fn f{k}(x: f64) -> f64 {{ f{}(x) + f{}(x) }}\n",
            k - 1,
            k - 1
        );
    }
    src += "pub fn k(x: f64) -> f64 { f39(x) }";
    let (_, errs) = run(&src);
    assert!(errs.iter().any(|e| e.contains("too much code")), "{errs:?}");
}

#[test]
fn unpinned_sizes_need_a_parameter() {
    let (_, errs) = run("pub fn k(a: [[f64; m]; n]) -> f64 { sum(a[0]) }");
    assert!(
        errs.iter().any(|e| e.contains("add a parameter `m: usize`")
            || e.contains("add a parameter `n: usize`")),
        "{errs:?}"
    );
    let (ks, errs) = run("pub fn k(a: [[f64; m]; n], m: usize) -> f64 { sum(a[0]) }");
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(ks[0].sizes, vec!["m".to_string(), "n".to_string()]);
}

/// Expansion time of a one-kernel block, repeated in one process (run with
/// `--ignored --nocapture`): most of it is the front end's fixed cost per block.
#[test]
#[ignore]
fn expansion_time_of_one_small_kernel() {
    let src =
        "pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }";
    let tokens: proc_macro2::TokenStream = src.parse().unwrap();
    let reps = 200;
    let start = std::time::Instant::now();
    let first = crate::expand(tokens.clone()).to_string();
    let once = start.elapsed();
    let mut last = None;
    let start = std::time::Instant::now();
    for _ in 1..reps {
        last = Some(crate::expand(tokens.clone()));
    }
    let rest = start.elapsed();
    assert_eq!(last.map(|t| t.to_string()), Some(first));
    println!(
        "expand(add3): first {:.2} ms, then a mean of {:.2} ms over {} more",
        once.as_secs_f64() * 1e3,
        rest.as_secs_f64() * 1e3 / (reps - 1) as f64,
        reps - 1
    );
}

/// A name whose definition failed is bound to an error that silences its uses: one mistake,
/// one error (issue 16, item 5).
#[test]
fn a_failed_definition_gives_one_error() {
    for (src, want) in [
        (
            "pub fn k(s: f64, a: [f64; 2], b: [f64; 3]) -> f64 { let v = if s > 0.0 { a } else { b }; sum(v) }",
            "`if` branches must agree",
        ),
        (
            "pub fn k(n: usize) -> f64 { let w = build(n, |i| build(i, |j| 1.0)); sum(w[0]) }",
            "`build`'s count depends on a loop index",
        ),
        (
            "pub fn k(a: [f64; 3]) -> f64 { let v: [f64; 4] = a; sum(add(v, [1.0, 2.0, 3.0, 4.0])) }",
            "`v` is declared `[f64; 4]`",
        ),
        (
            "pub fn k(a: [f64; n]) -> f64 { let v: [bool; 2] = a; sum(v) }",
            "arrays hold `f64`",
        ),
        (
            "pub fn k(x: f64) -> f64 { let f = |y| y; f(x) }",
            "a closure is allowed only",
        ),
        (
            "fn h(x: f64, g: fn(f64) -> f64) -> f64 { g(x) }\npub fn k(x: f64) -> f64 { let f = |y| y; h(x, f) }",
            "a closure is allowed only",
        ),
        (
            "pub fn k(a: [bool; 3]) -> f64 { a[0] }",
            "arrays hold `f64`",
        ),
        (
            "pub fn k(a: [[bool; 3]; n]) -> f64 { sum(a[0]) }",
            "arrays hold `f64`",
        ),
        (
            "pub fn k(a: [f64; n]) -> f64 { ifold(n, zz, |acc, i| acc + a[i] + 1) }",
            "cannot find value `zz`",
        ),
    ] {
        let (ks, errs) = run(src);
        assert!(ks.is_empty(), "{src}");
        assert_eq!(errs.len(), 1, "{src}\n{errs:#?}");
        assert!(errs[0].contains(want), "{src}\n{errs:#?}");
    }
}

/// A `build` or `ifold` whose count failed still has its body checked: the index is bound
/// either way, so the body's own errors are real ones.
#[test]
fn a_failed_count_still_checks_the_body() {
    let (_, errs) = run("pub fn k(a: [f64; n]) -> [f64; n] { build(a[0] as usize, |i| a[i] + 1) }");
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert!(errs[0].contains("depends on data") && errs[1].contains("write `1.0`"));
    let (_, errs) =
        run("pub fn k(a: [f64; n]) -> f64 { ifold(a[0], 0.0, |acc, i| acc + a[i] + 1) }");
    assert_eq!(errs.len(), 2, "{errs:#?}");
}

#[test]
fn a_generic_element_keeps_the_callers_size_names() {
    // `map(v: [T; n], ..)` over `transpose(c)`: `T` is the caller's `[f64; n]` and `map`'s own
    // `n` is the caller's `m`; the caller's `n` inside `T` is not `map`'s (it was renamed to
    // `m` with it, and the argument was reported as `[[f64; m]; m]`).
    let (ks, errs) = run(
        "pub fn k(c: [[f64; m]; n], m: usize) -> [f64; m] { map(transpose(c), |r| sum(r) + r[0]) }",
    );
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(ks.len(), 1);
    // And when the names agree, they still mean the same size.
    let (_, errs) = run("pub fn k(c: [[f64; n]; n]) -> [f64; n] { map(c, |r| sum(r)) }");
    assert!(errs.is_empty(), "{errs:?}");
    let (_, errs) = run("pub fn k(c: [[f64; m]; n], m: usize) -> [f64; m] { map(c, |r| sum(r)) }");
    assert_eq!(errs.len(), 1, "{errs:?}");
}

#[test]
fn numbered_outputs_are_reserved_kernel_parameter_names() {
    // `out0`, `out1`, .. are the destinations of a kernel's several results.
    let (_, errs) = run("pub fn k(out1: [f64; n]) -> ([f64; n], f64) { (out1, sum(out1)) }");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("`out1` is a name the generated kernel uses"),
        "{errs:?}"
    );
    // `output` is not one.
    let (_, errs) = run("pub fn k(output: [f64; n]) -> f64 { sum(output) }");
    assert!(errs.is_empty(), "{errs:?}");
}
