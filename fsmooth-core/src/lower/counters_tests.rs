//! Counters cannot overflow ([`crate::lower::counters`]), and an index compared with a
//! length by an enclosing test is in bounds ([`crate::lower::dps::Dps::knowing_below`]): the
//! rules on the folds users write, and where they must not apply.

use crate::lower::tests::expand;

/// The checked additions in `out` (an expansion).
fn checked_adds(out: &str) -> usize {
    out.matches(":: add (").count()
}

#[test]
fn a_histograms_count_is_unchecked_in_all_three_spellings() {
    for step in [
        "let bin = x[i].min(b - 1); build(b, |j| if j == bin { h[bin] + 1 } else { h[j] })",
        "build(b, |j| if j != x[i].min(b - 1) { h[j] } else { h[j] + 1 })",
        "let bin = x[i].min(b - 1); build(b, |j| if j == bin { h[j] + 1 } else { h[j] })",
    ] {
        let out = expand(&format!(
            "pub fn k(x: [usize; n], b: usize) -> [usize; b] {{ ifold(n, build(b, |_| 0), |h, i| {{ {step} }}) }}"
        ));
        assert_eq!(checked_adds(&out), 0, "{out}");
        // The bin's element is read under `if bin < b`: no check.
        assert!(!out.contains(":: check ("), "{out}");
    }
}

#[test]
fn a_scalar_count_is_unchecked() {
    let out = expand(
        "pub fn k(x: [f64; n]) -> usize { ifold(n, 0, |c, i| if x[i] > 0.0 { c + 1 } else { c }) }",
    );
    assert_eq!(checked_adds(&out), 0, "{out}");
    // Every step: `1 + c` too.
    let out = expand("pub fn k(x: [f64; n]) -> usize { ifold(n, 0, |c, _| 1 + c) }");
    assert_eq!(checked_adds(&out), 0, "{out}");
}

#[test]
fn a_count_read_through_a_let_is_unchecked() {
    let out = expand(
        "pub fn k(x: [usize; n], b: usize) -> [usize; b] {
            ifold(n, build(b, |_| 0), |h, i| {
                let bin = x[i].min(b - 1);
                let old = h[bin];
                build(b, |j| if j == bin { old + 1 } else { h[j] })
            })
        }",
    );
    assert_eq!(checked_adds(&out), 0, "{out}");
}

#[test]
fn a_step_adding_two_is_checked() {
    let out = expand(
        "pub fn k(x: [usize; n], b: usize) -> [usize; b] {
            ifold(n, build(b, |_| 0), |h, i| {
                let bin = x[i].min(b - 1);
                build(b, |j| if j == bin { h[bin] + 2 } else { h[j] })
            })
        }",
    );
    assert_eq!(checked_adds(&out), 1, "{out}");
    let out = expand("pub fn k(x: [f64; n]) -> usize { ifold(n, 0, |c, _| c + 2) }");
    assert_eq!(checked_adds(&out), 1, "{out}");
}

#[test]
fn a_step_adding_one_twice_to_an_element_is_checked() {
    // The element grows by 2 a step: `h[j] + 1` may be `2n - 1`.
    let out = expand(
        "pub fn k(x: [usize; n], b: usize) -> [usize; b] {
            ifold(n, build(b, |_| 0), |h, i| {
                let bin = x[i].min(b - 1);
                build(b, |j| if j == bin { h[j] + 1 + 1 } else { h[j] })
            })
        }",
    );
    assert_eq!(checked_adds(&out), 2, "{out}");
    let out = expand("pub fn k(x: [f64; n]) -> usize { ifold(n, 0, |c, _| (c + 1) + 1) }");
    assert_eq!(checked_adds(&out), 2, "{out}");
}

#[test]
fn a_state_starting_at_one_or_at_an_argument_is_checked() {
    let out = expand(
        "pub fn k(x: [usize; n], b: usize) -> [usize; b] {
            ifold(n, build(b, |_| 1), |h, i| {
                let bin = x[i].min(b - 1);
                build(b, |j| if j == bin { h[bin] + 1 } else { h[j] })
            })
        }",
    );
    assert_eq!(checked_adds(&out), 1, "{out}");
    let out = expand(
        "pub fn k(x: [usize; n], h0: [usize; b]) -> [usize; b] {
            ifold(n, h0, |h, i| {
                let bin = x[i].min(b - 1);
                build(b, |j| if j == bin { h[bin] + 1 } else { h[j] })
            })
        }",
    );
    assert_eq!(checked_adds(&out), 1, "{out}");
    let out = expand("pub fn k(x: [f64; n], c0: usize) -> usize { ifold(n, c0, |c, _| c + 1) }");
    assert_eq!(checked_adds(&out), 1, "{out}");
}

#[test]
fn a_sum_of_two_state_elements_is_checked() {
    // `h[0] + h[j]` doubles: not a counter, and not an element plus 1 either.
    let out = expand(
        "pub fn k(x: [usize; n], b: usize) -> [usize; b] {
            ifold(n, build(b, |_| 0), |h, _| build(b, |j| h[0] + h[j]))
        }",
    );
    assert!(out.contains("\"h[0] + h[j]\""), "{out}");
    // In a counter's step, the sum of the state with itself stays checked (each is at most
    // the steps done, their sum is not bounded by the count); its `+ 1` does not.
    let out = expand(
        "pub fn k(x: [usize; n]) -> usize { ifold(n, 0, |c, i| if c + c > x[i] { c } else { c + 1 }) }",
    );
    assert_eq!(checked_adds(&out), 1, "{out}");
    assert!(out.contains("\"c + c\""), "{out}");
}

#[test]
fn an_f64_state_has_no_check_to_remove() {
    let out = expand("pub fn k(x: [f64; n]) -> f64 { ifold(n, 0.0, |c, i| c + 1.0) }");
    assert_eq!(checked_adds(&out), 0, "{out}");
}

#[test]
fn an_index_tested_below_its_length_is_unchecked_in_the_branch() {
    // (Not an element of `x` itself: those are checked once at entry.)
    let out = expand(
        "pub fn k(a: [f64; m], x: [usize; n], s: usize) -> [f64; n] {
            build(n, |i| if x[i] + s < m { a[x[i] + s] } else { 0.0 })
        }",
    );
    assert!(!out.contains(":: check ("), "{out}");
    // The other branch, or a test against a longer bound, proves nothing.
    let out = expand(
        "pub fn k(a: [f64; m], x: [usize; n], s: usize) -> [f64; n] {
            build(n, |i| if x[i] + s < m { 0.0 } else { a[x[i] + s] })
        }",
    );
    assert!(out.contains(":: check ("), "{out}");
    let out = expand(
        "pub fn k(a: [f64; m], x: [usize; n], s: usize) -> [f64; n] {
            build(n, |i| if x[i] + s <= m { a[x[i] + s] } else { 0.0 })
        }",
    );
    assert!(out.contains(":: check ("), "{out}");
}
